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
/// (docs/inputs.md#exit-codes): not 3, which promises a checkpoint.
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
    created_ = !comm.any(fs::exists(dir_, ec)) && comm.rank() == 0;
  }
  ~RemoveIfLeftEmpty() {
    std::error_code ec;
    if (created_ && fs::is_empty(dir_, ec) && !ec) fs::remove(dir_, ec); // never a folder with files
  }
  RemoveIfLeftEmpty(const RemoveIfLeftEmpty&) = delete;
  RemoveIfLeftEmpty& operator=(const RemoveIfLeftEmpty&) = delete;

private:
  std::string dir_;
  bool created_ = false;
};

/// YAML (the resolved configuration) as JSON: numbers and booleans typed, the rest strings.
nlohmann::json to_json(const YAML::Node& n) {
  switch (n.Type()) {
  case YAML::NodeType::Map: {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& kv : n) j[kv.first.as<std::string>()] = to_json(kv.second);
    return j;
  }
  case YAML::NodeType::Sequence: {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& e : n) j.push_back(to_json(e));
    return j;
  }
  case YAML::NodeType::Scalar: {
    const std::string s = n.Scalar();
    if (s == "true") return true;
    if (s == "false") return false;
    char* end = nullptr;
    errno = 0;
    const long long i = std::strtoll(s.c_str(), &end, 10);
    if (!s.empty() && *end == '\0' && errno == 0) return i;
    const double d = std::strtod(s.c_str(), &end);
    if (!s.empty() && *end == '\0') return d;
    return s;
  }
  default: return nullptr;
  }
}

std::string duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  const long long t = static_cast<long long>(s + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", t / 3600, t / 60 % 60, t % 60);
  return buf;
}

/// The name of state column k in messages (u<k>; density, momentum[i], total_energy).
std::string column_name(const RunSummary& r, int k) {
  return k < int(r.conserved_names.size()) ? r.conserved_names[k] : "u" + std::to_string(k);
}

/// A flow failure's field: density or pressure (non-physical), else the column.
std::string failure_field(const RunSummary& r, const StateFailure& f) {
  if (f.kind == StateFailure::Kind::non_physical) return f.component == 0 ? "density" : "pressure";
  return column_name(r, f.component);
}

/// The conservation totals by field: a vector's components (name[i]) gathered into one list.
nlohmann::json conservation_json(const RunSummary& r) {
  nlohmann::json out = nlohmann::json::object();
  for (std::size_t k = 0; k < r.conservation_initial.size(); ++k) {
    const std::string name = column_name(r, int(k));
    const auto bracket = name.find('[');
    const double fin = k < r.conservation_final.size() ? r.conservation_final[k] : 0.0;
    const bool has_final = k < r.conservation_final.size();
    if (bracket == std::string::npos) {
      out[name] = {{"initial", r.conservation_initial[k]},
                   {"final", has_final ? nlohmann::json(fin) : nlohmann::json(nullptr)}};
      continue;
    }
    nlohmann::json& v = out[name.substr(0, bracket)];
    v["initial"].push_back(r.conservation_initial[k]);
    v["final"].push_back(has_final ? nlohmann::json(fin) : nlohmann::json(nullptr));
  }
  return out;
}

nlohmann::json summary_json(const RunSummary& r, const CaseConfig& cfg, const nlohmann::json& report) {
  nlohmann::json j;
  j["case"] = r.case_name;
  const bool oob = r.failure && r.failure->kind == StateFailure::Kind::out_of_bounds;
  const bool unphysical = r.failure && r.failure->kind == StateFailure::Kind::non_physical;
  j["model"] = to_string(cfg.physics.model);
  j["status"] = r.failure            ? (oob          ? "out-of-bounds"
                                        : unphysical ? "non-physical"
                                                     : "non-finite")
                : !r.stopped.empty() ? "stopped"
                : r.converged        ? "converged"
                                     : "completed";
  if (!r.stopped.empty()) j["stopped"] = r.stopped;
  j["steps"] = r.steps;
  j["total_steps"] = r.total_steps;
  j["first_step"] = r.first_step;
  j["io_seconds"] = r.io_seconds;
  j["files"] = {{"fields", nlohmann::json::array()}, {"checkpoints", nlohmann::json::array()}};
  for (const auto& f : r.fields_files) j["files"]["fields"].push_back(fs::path(f).filename().string());
  for (const auto& f : r.checkpoint_files) j["files"]["checkpoints"].push_back(fs::path(f).filename().string());
  j["time"] = r.time;
  j["dt"] = r.dt;
  j["time_step"] = {{"variable", r.variable_dt}, {"min", r.dt_min}, {"max", r.dt_max}};
  j["cells"] = r.cells;
  j["wall_seconds"] = r.wall_seconds;
  j["setup_seconds"] = r.setup_seconds;
  j["cell_updates_per_second"] = r.cell_updates_per_second;
  j["errors"] = nlohmann::json::object();
  if (r.errors)
    for (std::size_t k = 0; k < r.errors->size(); ++k)
      j["errors"][r.error_names[k]] = {
          {"l1", (*r.errors)[k].l1}, {"l2", (*r.errors)[k].l2}, {"linf", (*r.errors)[k].linf}};
  else
    j["no_exact_solution"] = r.no_exact_solution;
  j["conservation"] = conservation_json(r);
  if (!r.residual_names.empty()) {
    // RMS of (u^{n+1} - u^n) / dt per field: the first step's, the last computed, and their ratio
    nlohmann::json res = nlohmann::json::object();
    for (std::size_t k = 0; k < r.residual_names.size(); ++k) {
      const double first = k < r.residual_reference.size() ? r.residual_reference[k] : 0.0;
      const double last = k < r.residual_last.size() ? r.residual_last[k] : 0.0;
      res[r.residual_names[k]] = {{"first", first}, {"last", last}, {"relative", first > 0 ? last / first : 0.0}};
    }
    j["residuals"] = res;
    j["converged"] = r.converged;
    if (cfg.time.residual_tolerance) j["residual_tolerance"] = *cfg.time.residual_tolerance;
  }
  // Per rank, and min / mean / max over ranks (rank_report.hpp); "seconds" of a timer is its max.
  j["timers"] = report["timers"];
  j["halo"] = report["halo"];
  j["phases"] = report["phases"];
  j["slowest_rank"] = report["slowest_rank"];
  j["ranks"] = report["ranks"];
  j["memory"] = report["memory"];
  j["memory_bytes"] = r.memory_bytes;
  for (const auto& [op, what] : r.operators) j["operators"][op] = what;
  j["cfl"] = {{"max_rate", r.cfl.max_rate}, {"limiting_cell", r.cfl.limiting_cell}, {"dt", r.cfl.dt}};
  if (r.failure) {
    const auto& f = *r.failure;
    nlohmann::json e = {{"step", f.step},
                        {"field", failure_field(r, f)},
                        {"cell_global_id", f.cell_gid},
                        {"position", {f.x[0], f.x[1], f.x[2]}}};
    if (oob) e["admissible"] = {f.admissible[0], f.admissible[1]};
    nlohmann::json st = nlohmann::json::object();
    for (std::size_t k = 0; k < f.state.size(); ++k)
      st[column_name(r, int(k))] = std::isfinite(f.state[k]) ? nlohmann::json(f.state[k]) : nlohmann::json(nullptr);
    e["state"] = st;
    if (!r.last_good_file.empty()) e["last_good_state"] = fs::path(r.last_good_file).filename().string();
    j[oob ? "out_of_bounds" : unphysical ? "non_physical" : "non_finite"] = e;
  }
  // The max-principle monitor: the data's range, the admissible interval, and (completed runs)
  // the final range, per field. +-inf (monitor off) is written as null.
  j["bounds"] = nlohmann::json::object();
  auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
  for (std::size_t k = 0; k < r.bounds.lo.size(); ++k) {
    nlohmann::json b = {{"initial", {r.bounds.lo[k], r.bounds.hi[k]}},
                        {"admissible", {num(r.bounds.admissible_lo[k]), num(r.bounds.admissible_hi[k])}}};
    if (k < r.final_min.size()) b["final"] = {r.final_min[k], r.final_max[k]};
    j["bounds"]["u" + std::to_string(k)] = b;
  }
  if (!r.forces.empty()) {
    // the flow's force on each wall patch (coefficients: perf/cylinder_drag.py)
    nlohmann::json f = nlohmann::json::object();
    for (const WallForce& w : r.forces)
      f[w.patch] = {{"pressure", {w.pressure[0], w.pressure[1], w.pressure[2]}},
                    {"viscous", {w.viscous[0], w.viscous[1], w.viscous[2]}},
                    {"total", {w.total(0), w.total(1), w.total(2)}}};
    j["forces"] = f;
  }
  j["config"] = to_json(cfg.resolved());
  j["build"] = info_json();
  return j;
}

void print_summary(const RunSummary& r, const CaseConfig& cfg, const std::string& summary_path,
                   const nlohmann::json& report) {
  std::printf("done: %lld steps to t = %.6g in %.3f s (wall, set-up %.2f s, output %.2f s), %.3e cell-updates/s\n",
              r.steps - r.first_step + 1, r.time, r.wall_seconds, r.setup_seconds, r.io_seconds,
              r.cell_updates_per_second);
  if (r.first_step > 1) std::printf("  restarted at step %lld; now at step %lld\n", r.first_step - 1, r.steps);
  if (!r.fields_files.empty())
    std::printf("  fields: %zu files, last %s\n", r.fields_files.size(), r.fields_files.back().c_str());
  if (r.variable_dt)
    std::printf("  time step: variable, %.4g to %.4g%s\n", r.dt_min, r.dt_max,
                r.converged ? " (stopped: residuals below time.residual_tolerance)" : "");
  if (r.errors) {
    std::printf("  error vs exact solution at t = %.6g (volume-weighted):\n", r.time);
    std::printf("    %-12s %14s %14s %14s\n", "field", "L1", "L2", "Linf");
    for (std::size_t k = 0; k < r.errors->size(); ++k)
      std::printf("    %-12s %14.6e %14.6e %14.6e\n", r.error_names[k].c_str(), (*r.errors)[k].l1, (*r.errors)[k].l2,
                  (*r.errors)[k].linf);
  } else {
    std::printf("  no error norms: %s\n", r.no_exact_solution.c_str());
  }
  std::printf("  conservation (sum u V; constant in a periodic box, else changed by the boundary fluxes):\n"
              "    %-12s %22s %22s %12s\n",
              "field", "initial", "final", "change");
  for (std::size_t k = 0; k < r.conservation_final.size(); ++k) {
    const double a = r.conservation_initial[k], b = r.conservation_final[k];
    std::printf("    %-12s %22.15e %22.15e %12.3e\n", column_name(r, int(k)).c_str(), a, b, b - a);
  }
  for (const WallForce& w : r.forces) {
    std::printf("  force on %s: (%.6g, %.6g, %.6g) = pressure (%.6g, %.6g, %.6g) + viscous (%.6g, %.6g, %.6g)",
                w.patch.c_str(), w.total(0), w.total(1), w.total(2), w.pressure[0], w.pressure[1], w.pressure[2],
                w.viscous[0], w.viscous[1], w.viscous[2]);
    std::printf("\n");
  }
  if (!r.residual_last.empty()) {
    std::printf("  residuals (RMS of du/dt, last step / first step):");
    for (std::size_t k = 0; k < r.residual_names.size() && k < r.residual_last.size(); ++k)
      std::printf(" %s %.3e / %.3e;", r.residual_names[k].c_str(), r.residual_last[k],
                  k < r.residual_reference.size() ? r.residual_reference[k] : 0.0);
    std::printf("\n");
  }
  print_run_report(report, cfg.run.profile);
  std::printf("  summary: %s\n", summary_path.c_str());
  (void)cfg;
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
  ConfigSource src = ConfigSource::from_file(cli.positional[0]);
  for (const auto& s : cli.sets) src.apply_set(s);
  const Communicator comm = Communicator::world();
  check_ranks_agree(case_entries(src, cli), comm); // before any other collective
  CaseConfig cfg = parse_case(src);
  if (!cli.output_dir.empty()) cfg.output_dir = cli.output_dir;
  const bool profile = cli.profile || cfg.run.profile;
  cfg.run.profile = profile;
  // Before anything is built or created (per rank when the mesh is built in parts).
  check_case_fits(cfg, MemoryUse::run, comm.size());
  const bool root = comm.rank() == 0;
  const std::string key = cli.output_dir.empty() ? "output.dir" : "--output-dir";
  if (stopped_in_setup(comm)) return kStoppedInSetup;
  // Kokkos Tools region of the set-up here (mesh, partition, restart); run_simulation has its own.
  std::optional<kc::ProfileRegion> setup_region(std::in_place, "fvproxy::run::setup");
  const RemoveIfLeftEmpty remove_if_empty(cfg.output_dir, comm);
  // Both collective: rank 0 creates and locks the folder, every rank learns the outcome.
  prepare_output_dir(cfg.output_dir, key);
  const OutputLock lock(cfg.output_dir, key); // a second run into this folder is refused until this one ends
  const fs::path summary_path = fs::path(cfg.output_dir) / "summary.json";

  const bool talk = !cli.quiet && root;
  const bool tty = isatty(fileno(stderr));
  const BuildInfo info = build_info();
  if (talk)
    std::printf("fvproxy run: case %s (%s), %s on %s, Kokkos %s, real = %s\n", cfg.name.c_str(),
                cfg.source_file.c_str(), info.default_execution_space.c_str(), info.device.c_str(),
                info.kokkos_version.c_str(), info.real_type.c_str());
  std::fflush(stdout);
  // On N ranks, a mesh that can be built in parts is (no rank holds the whole mesh:
  // docs/parallel.md#built-in-parts).
  const bool in_parts = comm.size() > 1 && builds_in_parts(cfg.mesh);
  // Any other mesh on N ranks: built and partitioned on rank 0, each rank sent its part (no other
  // rank holds the whole mesh).
  const bool from_root = comm.size() > 1 && !in_parts;
  BuiltMesh b;
  std::optional<Decomposition> part;
  std::string legacy_fingerprint;
  try {
    if (in_parts) {
      Kokkos::Timer build;
      part.emplace(decompose_in_parts(cfg.mesh, comm, cfg.parallel.halo));
      const double seconds = comm.max(build.seconds());
      const BoxConfig& g = *cfg.mesh.generate;
      if (talk)
        std::printf("  mesh: generated %s box %dx%dx%d, %lld cells, ordering %s, built in parts on %d ranks (%.2f s, "
                    "slowest rank)\n",
                    to_string(g.element), g.cells[0], g.cells[1], g.cells[2],
                    static_cast<long long>(part->mesh.n_global_cells), to_string(cfg.mesh.reorder), comm.size(),
                    seconds);
    } else if (from_root) {
      Kokkos::Timer build;
      part.emplace(decompose_from_root(cfg.mesh, comm, cfg.parallel.halo, "mpirun -np", &b));
      const double seconds = comm.max(build.seconds());
      if (talk)
        std::printf("  mesh: %s, %lld cells, %d faces, ordering %s, built on rank 0 and sent in parts to %d ranks "
                    "(%.2f s + %.2f s reorder there, %.2f s in all)\n",
                    b.source.c_str(), static_cast<long long>(part->mesh.n_global_cells), b.device.n_faces,
                    to_string(cfg.mesh.reorder), comm.size(), b.seconds_build, b.seconds_reorder, seconds);
      // A restart from a checkpoint of an earlier version needs the whole mesh's older fingerprint.
      if (!cli.restart.empty())
        legacy_fingerprint = comm.broadcast(comm.rank() == 0 ? mesh_fingerprint_sequential(b.host) : "");
      b = BuiltMesh{}; // rank 0 keeps nothing of the whole mesh either
    } else {
      b = build_mesh(cfg.mesh);
    }
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    throw RunError(std::string("fvproxy run: error: building the mesh failed\n") + e.what());
  }
  if (talk && !part)
    std::printf("  mesh: %s, %d cells, %d faces, ordering %s (%.2f s + %.2f s reorder)\n", b.source.c_str(),
                b.device.n_cells, b.device.n_faces, to_string(cfg.mesh.reorder), b.seconds_build, b.seconds_reorder);
  if (part) {
    // The partition's numbers from every rank's part (no rank needs the whole mesh for them).
    const long long owned = part->mesh.n_cells, ghosts = part->mesh.n_ghosts;
    const long long cut = comm.sum(std::int64_t(part->mesh.n_interior - part->mesh.n_owned_faces)) / 2;
    const double mean = double(part->mesh.n_global_cells) / comm.size();
    const long long owned_min = comm.min(std::int64_t(owned)), owned_max = comm.max(std::int64_t(owned));
    const long long ghosts_min = comm.min(std::int64_t(ghosts)), ghosts_max = comm.max(std::int64_t(ghosts));
    if (talk)
      std::printf("  ranks: %d, partition %s: owned cells %lld..%lld (imbalance %.3f), ghosts %lld..%lld, %lld faces "
                  "cut\n",
                  comm.size(), to_string(cfg.mesh.partition), owned_min, owned_max, double(owned_max) / mean,
                  ghosts_min, ghosts_max, cut);
  }

  std::optional<RestartPoint> restart;
  if (!cli.restart.empty()) {
    // Each rank reads its block of the file's rows and receives its owned cells' (io/checkpoint.hpp).
    // No rank needs the whole mesh: the fingerprint comes from the parts.
    RestartCells cells;
    if (part) {
      cells.gid.assign(part->local.host.cell_gid.begin(), part->local.host.cell_gid.begin() + part->mesh.n_cells);
      cells.global_cells = part->mesh.n_global_cells;
      cells.fingerprint =
          mesh_fingerprint_of_parts(part->local.host, part->local.n_owned, part->local.n_global_nodes, comm);
      cells.legacy_fingerprint = legacy_fingerprint;
    } else {
      cells.gid = b.host.cell_gid;
      cells.global_cells = b.host.n_cells();
      cells.fingerprint = mesh_fingerprint(b.host);
      cells.legacy_fingerprint = mesh_fingerprint_sequential(b.host);
    }
    restart = read_restart(cli.restart, cfg, cells, comm);
  }

  if (stopped_in_setup(comm)) return kStoppedInSetup;
  {
    // The boundary section against the mesh's patches before anything is written (the solvers
    // check it again): a refused case leaves no mesh.h5 behind.
    std::vector<std::string> names;
    for (const Patch& p : (part ? part->mesh : b.device).patches) names.push_back(p.name);
    check_boundaries(cfg, names);
    // Collective (every rank's boundary faces): a no-slip wall's velocity in the wall's plane.
    if (cfg.physics.is_flow()) check_wall_velocities(cfg, part ? part->mesh : b.device, comm);
  }
  const bool whole_elsewhere = in_parts || from_root; // no rank holds the whole mesh now
  OutputSeries series = whole_elsewhere ? OutputSeries(cfg.output_dir, cfg, part->local, comm, file_metadata(cfg))
                                        : OutputSeries(cfg.output_dir, cfg, b.host, file_metadata(cfg));
  if (part && !whole_elsewhere)
    series.set_decomposition(comm, std::vector<index_t>(part->local.global_cell.begin(),
                                                        part->local.global_cell.begin() + part->mesh.n_cells));

  RunHooks hooks;
  // After the initial state's checks (run_simulation): a refused case writes nothing.
  hooks.write_mesh = [&series, &restart] {
    series.write_mesh();
    if (restart) series.adopt_existing(restart->step);
  };
  hooks.profile = profile;
  hooks.seconds_before = since_start.seconds();
  hooks.write_fields = [&series](long long step, double t, ConstView2<real> u) {
    return series.write_fields(step, t, u);
  };
  hooks.write_checkpoint = [&series](long long step, double t, ConstView2<real> u, const CheckpointInfo& info) {
    return series.write_checkpoint(step, t, u, info);
  };
  hooks.stop_requested = [] { return g_stop_signal != 0; };
  // integrals.csv (output.integrals, flow models): step, time, the volume-averaged kinetic energy,
  // its dissipation rate -dE/dt between consecutive rows, then the solver's other integrals (the
  // wall patches' forces); rank 0 writes, a row at a time, flushed. After a restart the rows up to
  // the checkpoint's step are kept. The header is written with the first row (the names come with it).
  std::ofstream integrals_csv;
  const fs::path integrals_path = fs::path(cfg.output_dir) / "integrals.csv";
  const bool integrals_here = cfg.physics.is_flow() && cfg.output.integrals.kind != EveryConfig::Kind::none && root;
  std::vector<std::string> integrals_kept;
  double last_t = 0, last_e = 0;
  bool have_last = false;
  if (integrals_here && restart) {
    {
      std::ifstream in(integrals_path);
      std::string line;
      while (std::getline(in, line)) {
        if (line.empty() || line[0] == 's') continue; // the header
        const long long s = std::atoll(line.c_str());
        if (s > restart->step) break;
        integrals_kept.push_back(line);
        double t = 0, e = 0;
        long long step = 0;
        if (std::sscanf(line.c_str(), "%lld,%lf,%lf", &step, &t, &e) == 3) last_t = t, last_e = e, have_last = true;
      }
    }
  }
  if (cfg.physics.is_flow() && cfg.output.integrals.kind != EveryConfig::Kind::none)
    hooks.write_integrals = [&](long long step, double t, const std::vector<std::string>& names,
                                const std::vector<double>& v) {
      if (!integrals_here) return;
      if (!integrals_csv.is_open()) { // the first row: the file is rewritten (the kept rows, then the new ones)
        integrals_csv.open(integrals_path, std::ios::trunc);
        if (!integrals_csv) throw RunError("fvproxy run: error: cannot write " + integrals_path.string());
        integrals_csv << "step,time,kinetic_energy,dissipation_rate";
        for (std::size_t k = 1; k < names.size(); ++k) integrals_csv << ',' << names[k];
        integrals_csv << '\n';
        for (const auto& l : integrals_kept) integrals_csv << l << '\n';
      }
      char buf[64];
      std::snprintf(buf, sizeof buf, "%lld,%.17g,%.17g,", step, t, v[0]);
      integrals_csv << buf;
      if (have_last && t > last_t) {
        std::snprintf(buf, sizeof buf, "%.17g", -(v[0] - last_e) / (t - last_t));
        integrals_csv << buf;
      }
      for (std::size_t k = 1; k < v.size(); ++k) {
        std::snprintf(buf, sizeof buf, ",%.17g", v[k]);
        integrals_csv << buf;
      }
      integrals_csv << '\n';
      integrals_csv.flush();
      if (!integrals_csv) throw RunError("fvproxy run: error: writing integrals.csv failed (disk full?)");
      last_t = t, last_e = v[0], have_last = true;
    };
  if (talk) {
    hooks.log = [](const std::string& s) { std::printf("  %s\n", s.c_str()); };
    hooks.progress = [tty](const Progress& p) {
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
    };
  }
  setup_region.reset();
  // The halo counters from here on: the decomposition's own exchanges (cell geometry) left out.
  const HaloStats halo_before = part ? part->halo->stats() : HaloStats{};
  RunSummary r =
      part ? run_simulation(cfg, part->mesh, hooks, false, restart ? &*restart : nullptr, comm, part->halo.get())
           : run_simulation(cfg, b.device, hooks, false, restart ? &*restart : nullptr);
  if (talk && tty) std::fprintf(stderr, "\r\033[K");
  if (talk) std::printf("  output: %s (ParaView: open %s)\n", cfg.output_dir.c_str(), series.xdmf_path().c_str());
  if (talk) {
    std::printf("  operators:");
    for (const auto& [op, what] : r.operators) std::printf(" %s %s;", op.c_str(), what.c_str());
    std::printf("\n");
  }
  // Every rank's placement, cells and timers, gathered on rank 0 (collective).
  RankRun mine;
  mine.owned = part ? part->mesh.n_cells : b.device.n_cells;
  mine.ghosts = part ? part->mesh.n_ghosts : 0;
  mine.setup = hooks.seconds_before + r.setup_seconds;
  mine.time_loop = r.wall_seconds;
  mine.io = r.io_seconds;
  mine.kernels = r.timers;
  mine.halo = part ? part->halo.get() : nullptr;
  mine.halo_before = halo_before;
  mine.memory = MemoryTracker::now();
  const nlohmann::json report = gather_run_report(comm, mine);
  if (root) write_atomically(summary_path, summary_json(r, cfg, report).dump(2) + "\n", "fvproxy run");
  if (r.failure) {
    const auto& f = *r.failure;
    std::ostringstream s;
    s.precision(6);
    if (f.kind == StateFailure::Kind::non_finite)
      s << "fvproxy run: error: non-finite value of " << failure_field(r, f);
    else if (f.kind == StateFailure::Kind::non_physical)
      s << "fvproxy run: error: non-positive " << failure_field(r, f);
    else
      s << "fvproxy run: error: u" << f.component << " left the admissible interval [" << f.admissible[0] << ", "
        << f.admissible[1] << "]";
    s << " at step " << f.step << " (t = " << r.time << "): cell " << f.cell_gid << " (global id) at (" << f.x[0]
      << ", " << f.x[1] << ", " << f.x[2] << ")\n";
    if (!f.state.empty()) {
      s << "  its state:";
      for (std::size_t k = 0; k < f.state.size(); ++k) s << " " << column_name(r, int(k)) << " = " << f.state[k];
      s << "\n";
    }
    if (!r.last_good_file.empty())
      s << "  the last good state (step " << f.step - 1 << ") is in " << r.last_good_file << "\n";
    if (f.kind == StateFailure::Kind::out_of_bounds)
      s << "the scalar model keeps u within the range of its initial and boundary values [" << r.bounds.lo[f.component]
        << ", " << r.bounds.hi[f.component] << "]; the interval widens it by run.bound_tolerance = "
        << (cfg.run.bound_tolerance ? *cfg.run.bound_tolerance : 0.0) << " of its width on each side\n";
    s << "the run is unstable: reduce time.cfl or time.dt, or use a limiter (operators.muscl.limiter"
      << (cfg.physics.is_flow() ? ": barth-jespersen is the most robust" : "") << ")";
    if (cfg.physics.is_flow())
      s << "; near vacuum or strong expansions, operators.convection.flux: hllc or rusanov and "
           "reconstruction: primitive are the most robust (docs/physics.md#positivity)";
    s << "; summary in " << summary_path.string();
    if (comm.size() == 1) throw RunError(s.str());
    // Every rank knows the failure (collective check): rank 0 says it, all exit 1 together.
    if (root) std::fprintf(stderr, "%s\n", s.str().c_str());
    std::fflush(stderr);
    comm.barrier();
    MpiEnvironment::set_collective_exit();
    return 1;
  }
  if (!r.stopped.empty()) {
    // Told apart from success (0) and failure (1): the run can go on from its checkpoint.
    std::string again = cli.positional[0];
    for (const auto& set : cli.sets) again += " --set '" + set + "'";
    if (!cli.output_dir.empty()) again += " --output-dir " + cli.output_dir;
    if (root)
      std::fprintf(stderr,
                   "fvproxy run: stopped at step %lld of %lld (t = %.6g): %s\ncheckpoint: %s\ncontinue with: fvproxy "
                   "run %s --restart %s\n",
                   r.steps, r.total_steps, r.time, r.stopped.c_str(),
                   r.checkpoint_files.empty() ? "none" : r.checkpoint_files.back().c_str(), again.c_str(),
                   r.checkpoint_files.empty() ? "?" : r.checkpoint_files.back().c_str());
    if (talk) print_summary(r, cfg, summary_path.string(), report);
    std::fflush(stdout);
    std::fflush(stderr);
    comm.barrier();
    MpiEnvironment::set_collective_exit(); // every rank stopped at the same step
    return 3;
  }
  if (talk) print_summary(r, cfg, summary_path.string(), report);
  return 0;
}

} // namespace fvproxy
