// fvproxy run CASE.yaml: builds the mesh, runs the scalar solver (solver/simulation.hpp) with its output
// series and checkpoints (io/output_series.hpp), restart and stop signals, prints
// progress on stderr and the end-of-run summary on stdout, and writes <output dir>/summary.json.
#include "app/run.hpp"

#include <array>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "app/case_agreement.hpp"
#include "app/info.hpp"
#include "app/memory_check.hpp"
#include "app/rank_report.hpp"
#include "app/run_summary.hpp"
#include "core/build_info.hpp"
#include "core/error.hpp"
#include "core/kokkos_compat.hpp"
#include "core/memory_peaks.hpp"
#include "io/checkpoint.hpp"
#include "io/output_file.hpp"
#include "io/output_series.hpp"
#include "mesh/build.hpp"
#include "parallel/communicator.hpp"
#include "parallel/decomposition.hpp"
#include "parallel/mpi_environment.hpp"
#include "parallel/parts.hpp"
#include "solver/flow_solver.hpp"
#include "solver/simulation.hpp"

namespace fvproxy {

namespace {

namespace fs = std::filesystem;

volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void on_stop_signal(int sig) {
  g_stop_signal = sig;
}

const char* signal_name(int sig) {
  switch (sig) {
  case SIGTERM: return "SIGTERM";
  case SIGINT: return "SIGINT";
  case SIGUSR1: return "SIGUSR1";
  case SIGUSR2: return "SIGUSR2";
  default: return "a signal";
  }
}

/// Exit code of a run stopped by a signal during set-up, before anything was written
/// (docs/running.md#exit-codes): not 3, which promises a checkpoint.
constexpr int kStoppedInSetup = 4;

/// Collective: whether a stop signal reached any rank during set-up. If one did, rank 0 says so and
/// every rank returns kStoppedInSetup together.
bool stopped_in_setup(const Communicator& comm) {
  const int sig = static_cast<int>(comm.max(std::int64_t(g_stop_signal)));
  if (sig == 0) return false;
  if (comm.rank() == 0) {
    std::fprintf(stderr,
                 "fvproxy run: stopped by %s during set-up, before the first step: nothing was written (exit %d); "
                 "run the case again\n",
                 signal_name(sig), kStoppedInSetup);
    std::fflush(stderr);
  }
  comm.barrier();
  MpiEnvironment::set_collective_exit();
  return true;
}

/// The output folder removed at the end of a run that created it and left it empty (refused or
/// stopped during set-up): rank 0's, after the lock's file is gone (declare it before the lock).
class RemoveIfLeftEmpty {
public:
  /// Collective: whether the folder exists is agreed before any rank creates it.
  RemoveIfLeftEmpty(std::string dir, const Communicator& comm) : dir_(std::move(dir)) {
    std::error_code ec;
    created_here_ = !fs::exists(dir_, ec);
    created_ = !comm.any(!created_here_) && comm.rank() == 0;
  }
  /// The ranks turned out not to share the folder (check_one_output_folder): each removes its own.
  void on_every_rank() { created_ = created_here_; }
  ~RemoveIfLeftEmpty() {
    std::error_code ec;
    if (created_ && fs::is_empty(dir_, ec) && !ec) fs::remove(dir_, ec); // never a folder with files
  }
  RemoveIfLeftEmpty(const RemoveIfLeftEmpty&) = delete;
  RemoveIfLeftEmpty& operator=(const RemoveIfLeftEmpty&) = delete;

private:
  std::string dir_;
  bool created_ = false, created_here_ = false;
};

/// Collective: every rank sees the folder rank 0 locked (the lock file holds rank 0's text). Ranks
/// started in different working folders with a relative output folder, or on hosts that share no
/// file system, would each write into a folder of their own (issue 37: "writing out/mesh.h5
/// failed", an empty folder left on one rank). InputError naming `key` and where each rank looked.
void check_one_output_folder(const std::string& dir, const std::string& key, const OutputLock& lock,
                             const Communicator& comm, RemoveIfLeftEmpty& cleanup) {
  if (comm.size() == 1) return;
  const std::string text = comm.broadcast(lock.text());
  std::ifstream in(lock.path());
  const std::string seen((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const bool mine = !text.empty() && seen == text;
  if (!comm.any(!mine)) return;
  std::error_code ec;
  const std::string where = "rank " + std::to_string(comm.rank()) + " (" + host_name() + ", working folder " +
                            fs::current_path(ec).string() + ") looks in " + fs::absolute(dir, ec).string() +
                            (mine ? "" : ": not rank 0's folder");
  std::string all;
  for (const std::string& w : comm.gather(where)) all += "\n  " + w;
  cleanup.on_every_rank();
  MpiEnvironment::set_collective_exit(); // every rank throws this error: rank 0 says it, all exit 2
  throw InputError(key,
                   "the ranks do not see one output folder '" + dir + "': the file rank 0 locked in it (" +
                       OutputLock::kFileName + ") is not there for every rank" + all,
                   "start every rank in one working folder, or give an absolute path on a file system that every "
                   "rank's host shares");
}

/// The mesh of a run: the whole mesh on one rank, else this rank's part.
struct RunMesh {
  BuiltMesh whole;                   ///< one rank (on N ranks: nothing, whatever rank built it)
  std::optional<Decomposition> part; ///< N ranks
  std::string legacy_fingerprint;    ///< a restart from an earlier version's checkpoint needs it
  bool whole_elsewhere = false;      ///< built in parts or on rank 0: no rank holds the whole mesh
  const Mesh& device() const { return part ? part->mesh : whole.device; }
};

/// On N ranks a mesh that can be built in parts is (docs/decomposition.md#built-in-parts); any other is
/// built and partitioned on rank 0, each rank sent its part. On one rank, the whole mesh.
RunMesh build_run_mesh(const CaseConfig& cfg, const CliArgs& cli, const Communicator& comm, bool talk) {
  RunMesh m;
  m.whole_elsewhere = comm.size() > 1;
  Kokkos::Timer build;
  if (comm.size() > 1 && builds_in_parts(cfg.mesh)) {
    m.part.emplace(decompose_in_parts(cfg.mesh, comm, cfg.parallel.halo));
    const double seconds = comm.max(build.seconds());
    const BoxConfig& g = *cfg.mesh.generate;
    if (talk)
      std::printf("  mesh: generated %s box %dx%dx%d, %lld cells, ordering %s, built in parts on %d ranks (%.2f s, "
                  "slowest rank)\n",
                  to_string(g.element), g.cells[0], g.cells[1], g.cells[2],
                  static_cast<long long>(m.part->mesh.n_global_cells), to_string(cfg.mesh.reorder), comm.size(),
                  seconds);
  } else if (comm.size() > 1) {
    // Rank 0's whole mesh: what the header says of it and, for a restart from an earlier version's
    // checkpoint, its older fingerprint; rank 0 frees the mesh itself before uploading its part.
    std::string source;
    index_t n_faces = 0;
    double seconds_build = 0, seconds_reorder = 0;
    const bool legacy = !cli.restart.empty();
    const auto on_root = [&](const BuiltMesh& b) {
      source = b.source, n_faces = b.device.n_faces;
      seconds_build = b.seconds_build, seconds_reorder = b.seconds_reorder;
      if (legacy) m.legacy_fingerprint = mesh_fingerprint_sequential(b.host);
    };
    m.part.emplace(decompose_from_root(cfg.mesh, comm, cfg.parallel.halo, "mpirun -np", on_root));
    const double seconds = comm.max(build.seconds());
    if (talk)
      std::printf("  mesh: %s, %lld cells, %d faces, ordering %s, built on rank 0 and sent in parts to %d ranks "
                  "(%.2f s + %.2f s reorder there, %.2f s in all)\n",
                  source.c_str(), static_cast<long long>(m.part->mesh.n_global_cells), n_faces,
                  to_string(cfg.mesh.reorder), comm.size(), seconds_build, seconds_reorder, seconds);
    if (legacy) m.legacy_fingerprint = comm.broadcast(m.legacy_fingerprint);
  } else {
    m.whole = build_mesh(cfg.mesh);
    const BuiltMesh& b = m.whole;
    if (talk)
      std::printf("  mesh: %s, %d cells, %d faces, ordering %s (%.2f s + %.2f s reorder)\n", b.source.c_str(),
                  b.device.n_cells, b.device.n_faces, to_string(cfg.mesh.reorder), b.seconds_build, b.seconds_reorder);
  }
  return m;
}

/// The partition's numbers from every rank's part (collective; no rank needs the whole mesh).
void print_partition(const Decomposition& part, const CaseConfig& cfg, const Communicator& comm, bool talk) {
  const long long owned = part.mesh.n_cells, ghosts = part.mesh.n_ghosts;
  const long long cut = comm.sum(std::int64_t(part.mesh.n_interior - part.mesh.n_owned_faces)) / 2;
  const double mean = double(part.mesh.n_global_cells) / comm.size();
  const long long owned_min = comm.min(std::int64_t(owned)), owned_max = comm.max(std::int64_t(owned));
  const long long ghosts_min = comm.min(std::int64_t(ghosts)), ghosts_max = comm.max(std::int64_t(ghosts));
  if (talk)
    std::printf("  ranks: %d, partition %s: owned cells %lld..%lld (imbalance %.3f), ghosts %lld..%lld, %lld faces "
                "cut\n",
                comm.size(), to_string(cfg.mesh.partition), owned_min, owned_max, double(owned_max) / mean, ghosts_min,
                ghosts_max, cut);
}

/// The mesh and its partition report; a mesh that fails to build is a RunError naming the stage.
RunMesh set_up_mesh(const CaseConfig& cfg, const CliArgs& cli, const Communicator& comm, bool talk) {
  RunMesh m;
  try {
    m = build_run_mesh(cfg, cli, comm, talk);
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    throw RunError(std::string("fvproxy run: error: building the mesh failed\n") + e.what());
  }
  if (m.part) print_partition(*m.part, cfg, comm, talk);
  return m;
}

/// --restart: each rank reads its block of the file's rows and receives its owned cells'
/// (io/checkpoint.hpp). No rank needs the whole mesh: the fingerprint comes from the parts.
std::optional<RestartPoint> read_restart_point(const CliArgs& cli, const CaseConfig& cfg, const RunMesh& m,
                                               const Communicator& comm) {
  if (cli.restart.empty()) return std::nullopt;
  RestartCells cells;
  if (m.part) {
    const LocalMesh& local = m.part->local;
    cells.gid.assign(local.host.cell_gid.begin(), local.host.cell_gid.begin() + m.part->mesh.n_cells);
    cells.global_cells = m.part->mesh.n_global_cells;
    cells.fingerprint = mesh_fingerprint_of_parts(local.host, local.n_owned, local.n_global_nodes, comm);
    cells.legacy_fingerprint = m.legacy_fingerprint;
  } else {
    cells.gid = m.whole.host.cell_gid;
    cells.global_cells = m.whole.host.n_cells();
    cells.fingerprint = mesh_fingerprint(m.whole.host);
    cells.legacy_fingerprint = mesh_fingerprint_sequential(m.whole.host);
  }
  return read_restart(cli.restart, cfg, cells, comm);
}

/// The boundary section resolved on the mesh's patches before anything is written (the run's only
/// resolution: run_simulation takes it): a refused case leaves no mesh.h5 behind. Collective (every
/// rank's boundary faces): a no-slip wall's velocity in the wall's plane, a subsonic inflow's
/// direction into the domain.
BoundaryOnMesh resolve_case_on_mesh(const CaseConfig& cfg, const Mesh& mesh, const Communicator& comm) {
  BoundaryOnMesh b = resolve_boundary(cfg, mesh);
  if (cfg.physics.is_flow()) check_boundary_directions(cfg, mesh, comm);
  return b;
}

OutputSeries make_series(const CaseConfig& cfg, const RunMesh& m, const Communicator& comm) {
  if (m.whole_elsewhere) return OutputSeries(cfg.output_dir, cfg, m.part->local, comm, file_metadata(cfg));
  return OutputSeries(cfg.output_dir, cfg, m.whole.host, file_metadata(cfg));
}

/// integrals.csv (output.integrals, flow models): step, time, the volume-averaged kinetic energy,
/// its dissipation rate -dE/dt between consecutive rows, then the solver's other integrals (the
/// wall patches' forces); rank 0 writes, a row at a time, flushed. After a restart the rows up to
/// the checkpoint's step are kept. The header is written with the first row (the names come with it).
class IntegralsCsv {
public:
  IntegralsCsv(const CaseConfig& cfg, bool root, const RestartPoint* restart)
      : path_(fs::path(cfg.output_dir) / "integrals.csv"),
        wanted_(cfg.physics.is_flow() && cfg.output.integrals.kind != EveryConfig::Kind::none), here_(wanted_ && root) {
    if (here_ && restart) keep_rows_until(restart->step);
  }
  bool wanted() const { return wanted_; }

  void write(long long step, double t, const std::vector<std::string>& names, const std::vector<double>& v) {
    if (!here_) return;
    if (!out_.is_open()) open(names);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%lld,%.17g,%.17g,", step, t, v[0]);
    out_ << buf;
    if (have_last_ && t > last_t_) {
      std::snprintf(buf, sizeof buf, "%.17g", -(v[0] - last_e_) / (t - last_t_));
      out_ << buf;
    }
    for (std::size_t k = 1; k < v.size(); ++k) {
      std::snprintf(buf, sizeof buf, ",%.17g", v[k]);
      out_ << buf;
    }
    out_ << '\n';
    out_.flush();
    if (!out_) throw RunError("fvproxy run: error: writing integrals.csv failed (disk full?)");
    last_t_ = t, last_e_ = v[0], have_last_ = true;
  }

private:
  void keep_rows_until(long long last_step) {
    std::ifstream in(path_);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == 's') continue; // the header
      if (std::atoll(line.c_str()) > last_step) break;
      kept_.push_back(line);
      double t = 0, e = 0;
      long long step = 0;
      if (std::sscanf(line.c_str(), "%lld,%lf,%lf", &step, &t, &e) == 3) last_t_ = t, last_e_ = e, have_last_ = true;
    }
  }
  /// The first row: the file is rewritten (the kept rows, then the new ones).
  void open(const std::vector<std::string>& names) {
    out_.open(path_, std::ios::trunc);
    if (!out_) throw RunError("fvproxy run: error: cannot write " + path_.string());
    out_ << "step,time,kinetic_energy,dissipation_rate";
    for (std::size_t k = 1; k < names.size(); ++k) out_ << ',' << names[k];
    out_ << '\n';
    for (const auto& l : kept_) out_ << l << '\n';
  }

  fs::path path_;
  bool wanted_ = false, here_ = false;
  std::ofstream out_;
  std::vector<std::string> kept_;
  double last_t_ = 0, last_e_ = 0;
  bool have_last_ = false;
};

/// One progress line on stderr (rewritten in place on a terminal).
void print_progress(const Progress& p, bool tty) {
  std::fflush(stdout);
  // toward an end time with a variable step, the progress is the time's
  const double done = p.by_time ? p.time / p.end_time : double(p.step) / double(p.total_steps);
  std::string res;
  if (!p.residuals.empty()) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "  residuals %.2e %.2e %.2e", p.residuals[0],
                  p.residuals.size() > 1 ? p.residuals[1] : 0.0, p.residuals.size() > 2 ? p.residuals[2] : 0.0);
    res = buf;
  }
  std::fprintf(stderr, "%sstep %lld/%s%lld (%5.1f%%)  t = %.6g/%.6g  dt = %.3e  %.3e cell-updates/s%s  ETA %s%s",
               tty ? "\r\033[K" : "", p.step, p.by_time ? "~" : "", p.total_steps, 100.0 * done, p.time, p.end_time,
               p.dt, p.cell_updates_per_second, res.c_str(), duration(p.eta_seconds).c_str(), tty ? "" : "\n");
  std::fflush(stderr);
}

/// What the time loop calls back: the files (the mesh after the initial state's checks: a refused
/// case writes nothing), the stop flag, and (rank 0 unless quiet) the log and progress.
RunHooks make_hooks(OutputSeries& series, const std::optional<RestartPoint>& restart, IntegralsCsv& integrals,
                    bool talk, bool tty) {
  RunHooks hooks;
  hooks.write_mesh = [&series, &restart] {
    series.write_mesh();
    if (restart) series.adopt_existing(restart->step);
  };
  hooks.write_fields = [&series](long long step, double t, ConstView2<real> u) {
    return series.write_fields(step, t, u);
  };
  hooks.write_checkpoint = [&series](long long step, double t, ConstView2<real> u, const CheckpointInfo& info) {
    return series.write_checkpoint(step, t, u, info);
  };
  hooks.stop_requested = [] { return g_stop_signal != 0; };
  if (integrals.wanted())
    hooks.write_integrals = [&integrals](long long step, double t, const std::vector<std::string>& names,
                                         const std::vector<double>& v) { integrals.write(step, t, names, v); };
  if (talk) {
    hooks.log = [](const std::string& s) { std::printf("  %s\n", s.c_str()); };
    hooks.progress = [tty](const Progress& p) { print_progress(p, tty); };
  }
  return hooks;
}

/// Every rank's placement, cells and timers, gathered on rank 0 (collective).
nlohmann::json gather_report(const RunSummary& r, const RunMesh& m, const RunHooks& hooks, const HaloStats& before,
                             const Communicator& comm) {
  RankRun mine;
  mine.owned = m.device().n_cells;
  mine.ghosts = m.part ? m.part->mesh.n_ghosts : 0;
  mine.setup = hooks.seconds_before + r.setup_seconds;
  mine.time_loop = r.wall_seconds;
  mine.io = r.io_seconds;
  mine.kernels = r.timers;
  mine.halo = m.part ? m.part->halo.get() : nullptr;
  mine.halo_before = before;
  mine.memory = MemoryTracker::now();
  return gather_run_report(comm, mine);
}

/// The command that continues a stopped run from its checkpoint.
std::string continue_command(const RunSummary& r, const CliArgs& cli) {
  std::string again = cli.positional[0];
  for (const auto& set : cli.sets) again += " --set '" + set + "'";
  if (!cli.output_dir.empty()) again += " --output-dir " + cli.output_dir;
  return "fvproxy run " + again + " --restart " + (r.checkpoint_files.empty() ? "?" : r.checkpoint_files.back());
}

/// Every rank ends with `code` together (after a failure or a stop that every rank knows of).
int end_together(const Communicator& comm, int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  comm.barrier();
  MpiEnvironment::set_collective_exit();
  return code;
}

/// The case as every rank read it (the same on every rank, checked before any other collective).
CaseConfig read_run_case(const CliArgs& cli, const Communicator& comm) {
  ConfigSource src = ConfigSource::from_file(cli.positional[0]);
  for (const auto& s : cli.sets) src.apply_set(s);
  check_ranks_agree(case_entries(src, cli), comm);
  CaseConfig cfg = parse_case(src);
  if (!cli.output_dir.empty()) cfg.output_dir = cli.output_dir;
  cfg.run.profile = cli.profile || cfg.run.profile;
  return cfg;
}

void print_banner(const CaseConfig& cfg) {
  const BuildInfo info = build_info();
  std::printf("fvproxy run: case %s (%s), %s on %s, Kokkos %s, real = %s\n", cfg.name.c_str(), cfg.source_file.c_str(),
              info.default_execution_space.c_str(), info.device.c_str(), info.kokkos_version.c_str(),
              info.real_type.c_str());
}

/// What follows the time loop on rank 0: where the output is, and which operators ran.
void print_output(const RunSummary& r, const CaseConfig& cfg, const OutputSeries& series) {
  std::printf("  output: %s (ParaView: open %s)\n", cfg.output_dir.c_str(), series.xdmf_path().c_str());
  std::printf("  operators:");
  for (const auto& [op, what] : r.operators) std::printf(" %s %s;", op.c_str(), what.c_str());
  std::printf("\n");
}

} // namespace

FileMetadata file_metadata(const CaseConfig& cfg) {
  const YAML::Node resolved = cfg.resolved();
  YAML::Emitter e;
  e << resolved;
  FileMetadata meta;
  meta.case_yaml = e.c_str();
  meta.variants = cfg.has_solver ? to_json(resolved["operators"]).dump() : "{}";
  meta.build = info_json().dump();
  return meta;
}

StopSignals::StopSignals() {
  g_stop_signal = 0;
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  for (std::size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &sa, &old_[i]);
}

int StopSignals::received() {
  return g_stop_signal;
}

StopSignals::~StopSignals() {
  for (std::size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &old_[i], nullptr);
}

int cmd_run(const CliArgs& cli) {
  // main installed StopSignals before MPI and Kokkos started: a stop signal during set-up ends the
  // run before anything is written (checked at the end of each set-up stage), one during the time
  // loop after a checkpoint.
  Kokkos::Timer since_start;
  MemoryTracker::start(); // Kokkos allocations from here on (the summary's memory peaks)
  const Communicator comm = Communicator::world();
  const CaseConfig cfg = read_run_case(cli, comm);
  check_case_fits(cfg, MemoryUse::run, comm.size()); // before anything is built or created
  const bool root = comm.rank() == 0, talk = !cli.quiet && root, tty = isatty(fileno(stderr));
  if (stopped_in_setup(comm)) return kStoppedInSetup;
  // Kokkos Tools region of the set-up here (mesh, partition, restart); run_simulation has its own.
  std::optional<kc::ProfileRegion> setup_region(std::in_place, "fvproxy::run::setup");
  RemoveIfLeftEmpty remove_if_empty(cfg.output_dir, comm);
  // Collective: every rank creates the folder, rank 0 locks it, every rank learns the outcome and
  // that it sees rank 0's folder.
  const std::string key = cli.output_dir.empty() ? "output.dir" : "--output-dir";
  prepare_output_dir(cfg.output_dir, key);
  const OutputLock lock(cfg.output_dir, key); // a second run into this folder is refused until this one ends
  check_one_output_folder(cfg.output_dir, key, lock, comm, remove_if_empty);
  const std::string summary_path = (fs::path(cfg.output_dir) / "summary.json").string();
  if (talk) print_banner(cfg);
  std::fflush(stdout);

  const RunMesh m = set_up_mesh(cfg, cli, comm, talk);
  const std::optional<RestartPoint> restart = read_restart_point(cli, cfg, m, comm);
  if (stopped_in_setup(comm)) return kStoppedInSetup;
  const BoundaryOnMesh boundary = resolve_case_on_mesh(cfg, m.device(), comm);
  OutputSeries series = make_series(cfg, m, comm);
  IntegralsCsv integrals(cfg, root, restart ? &*restart : nullptr);
  RunHooks hooks = make_hooks(series, restart, integrals, talk, tty);
  hooks.profile = cfg.run.profile;
  hooks.seconds_before = since_start.seconds();
  setup_region.reset();

  // The halo counters from here on: the decomposition's own exchanges (cell geometry) left out.
  const HaloStats halo_before = m.part ? m.part->halo->stats() : HaloStats{};
  const RestartPoint* from = restart ? &*restart : nullptr;
  const RunSummary r =
      m.part ? run_simulation(cfg, m.part->mesh, hooks, false, from, comm, m.part->halo.get(), &boundary)
             : run_simulation(cfg, m.whole.device, hooks, false, from, Communicator::self(), nullptr, &boundary);
  if (talk && tty) std::fprintf(stderr, "\r\033[K");
  if (talk) print_output(r, cfg, series);
  const nlohmann::json report = gather_report(r, m, hooks, halo_before, comm);
  if (root) write_atomically(summary_path, summary_json(r, cfg, report).dump(2) + "\n", "fvproxy run");
  if (r.failure) {
    const std::string message = failure_message(r, cfg, summary_path);
    if (comm.size() == 1) throw RunError(message);
    // Every rank knows the failure (collective check): rank 0 says it, all exit 1 together.
    if (root) std::fprintf(stderr, "%s\n", message.c_str());
    return end_together(comm, 1);
  }
  if (r.stopped.empty()) {
    if (talk) print_summary(r, cfg, summary_path, report);
    return 0;
  }
  // Exit 3, told apart from success (0) and failure (1): the run can go on from its checkpoint.
  if (root)
    std::fprintf(
        stderr, "fvproxy run: stopped at step %lld of %lld (t = %.6g): %s\ncheckpoint: %s\ncontinue with: %s\n",
        r.steps, r.total_steps, r.time, r.stopped.c_str(),
        r.checkpoint_files.empty() ? "none" : r.checkpoint_files.back().c_str(), continue_command(r, cli).c_str());
  if (talk) print_summary(r, cfg, summary_path, report);
  return end_together(comm, 3); // every rank stopped at the same step
}

} // namespace fvproxy
