#include "solver/simulation.hpp"

#include <cmath>
#include <sstream>
#include <tuple>

#include "core/build_info.hpp"
#include "core/error.hpp"
#include "core/kokkos_compat.hpp"
#include "physics/scalar_solution.hpp"

namespace fvproxy {

namespace {

std::string mib(double bytes) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(1);
  s << bytes / (1024.0 * 1024.0) << " MiB";
  return s.str();
}

/// How often the loop reads the non-finite flag from the device (a synchronization), in steps,
/// besides every progress report and the end.
constexpr long long kCheckEvery = 16;

} // namespace

RunSummary run_simulation(const CaseConfig& cfg, const Mesh& mesh, const RunHooks& hooks, bool keep_final_state,
                          const RestartPoint* restart, const Communicator& comm, Halo* halo) {
  Kokkos::Timer setup;
  auto log = [&](const std::string& s) {
    if (hooks.log) hooks.log(s);
  };
  RunSummary r;
  r.case_name = cfg.name;
  r.cells = mesh.n_global_cells;
  r.components = cfg.physics.components;

  // Memory: the mesh is on the device already; refuse before allocating the solver.
  const std::size_t solver_bytes = ScalarSolver::memory_bytes(mesh, cfg);
  r.memory_bytes = mesh.memory_bytes() + solver_bytes;
  r.memory_available = available_memory_bytes();
  {
    std::ostringstream s;
    s << "memory: " << mib(double(r.memory_bytes)) << " on the device (" << r.memory_bytes / std::max(1, mesh.n_cells)
      << " bytes/cell x " << mesh.n_cells << " cells: mesh " << mib(double(mesh.memory_bytes())) << ", solver "
      << mib(double(solver_bytes)) << ")";
    if (r.memory_available) s << ", " << mib(double(r.memory_available)) << " free";
    log(s.str());
  }
  if (r.memory_available && solver_bytes > r.memory_available)
    throw RunError("fvproxy run: error: not enough memory for the solver: it needs " + mib(double(solver_bytes)) +
                   " beyond the mesh, and the device has " + mib(double(r.memory_available)) +
                   " free\nuse a coarser mesh (mesh.generate.cells) or fewer components");

  ScalarSolver solver(mesh, cfg, comm, halo);
  r.operators = solver.describe();
  r.bounds = solver.bounds();
  r.cfl = solver.stable_step(cfg.time.cfl);
  double dt = 0;
  if (!cfg.time.dt && cfg.time.cfl > cfl_limit(cfg.time.integrator))
    log("warning: time.cfl = " + std::to_string(cfg.time.cfl).substr(0, 5) + " exceeds the stable limit " +
        std::to_string(cfl_limit(cfg.time.integrator)).substr(0, 3) + " of " + to_string(cfg.time.integrator) +
        " (the run may be unstable; the max-principle monitor stops it if it grows)");
  // ceil(T / dt) steps, refused beyond kMaxSteps (also when T / dt overflows a long long)
  auto count_steps = [&](double T, double step, const std::string& key) {
    const double n = std::ceil(T / step * (1 - 1e-12));
    if (!(n <= double(kMaxSteps)))
      throw InputError(cfg.source_file,
                       key + ": end_time / dt = " + std::to_string(T / step) + " steps, more than the " +
                           std::to_string(kMaxSteps) + " a run may have",
                       "dt = " + std::to_string(step) + "; use a larger time step or a shorter time.end_time");
    return std::max(1LL, static_cast<long long>(n));
  };
  if (cfg.time.dt) {
    dt = *cfg.time.dt;
    if (r.cfl.dt > 0 && dt > r.cfl.dt)
      log("warning: time.dt = " + std::to_string(dt) + " exceeds the CFL-1 step estimate " +
          std::to_string(r.cfl.dt / cfg.time.cfl) + " (the run may be unstable)");
  } else {
    if (!(r.cfl.dt > 0))
      throw InputError(cfg.source_file, "time.cfl: nothing limits the time step (zero velocity and zero diffusivity)",
                       "give a fixed step with time.dt");
    dt = r.cfl.dt;
  }
  long long total_steps = 0;
  if (cfg.time.end_time) {
    const double T = *cfg.time.end_time;
    total_steps = count_steps(T, dt, cfg.time.dt ? "time.dt" : "time.cfl");
    dt = T / double(total_steps);
  } else {
    total_steps = *cfg.time.steps;
  }
  // Simulated time after step s: base_time + dt (s - base_step) (no accumulated round-off).
  long long base_step = 0;
  double base_time = 0;
  if (restart) {
    const long long s0 = restart->step;
    if (restart->dt == dt && restart->total_steps == total_steps) {
      // the same schedule as the run that wrote the checkpoint: bitwise the same steps
      if (s0 >= total_steps)
        throw InputError(restart->file,
                         "the checkpoint is at step " + std::to_string(s0) + ", the case's last step (" +
                             std::to_string(total_steps) + "): nothing is left to run",
                         "give a later time.end_time or more time.steps to continue");
    } else if (cfg.time.end_time) {
      const double T = *cfg.time.end_time;
      if (!(T > restart->time))
        throw InputError(restart->file, "the checkpoint is at t = " + std::to_string(restart->time) +
                                            ", not before time.end_time = " + std::to_string(T) +
                                            ": nothing is left to run");
      const double step_limit = cfg.time.dt ? *cfg.time.dt : r.cfl.dt; // fixed or CFL step
      const long long n = count_steps(T - restart->time, step_limit, cfg.time.dt ? "time.dt" : "time.cfl");
      dt = (T - restart->time) / double(n);
      base_step = s0, base_time = restart->time, total_steps = s0 + n;
      log("restart: the case's time step differs from the checkpoint's (" + std::to_string(restart->dt) +
          "): the remaining time is split into " + std::to_string(n) + " new steps");
    } else {
      if (total_steps <= s0)
        throw InputError(restart->file, "the checkpoint is at step " + std::to_string(s0) +
                                            ", the case's time.steps = " + std::to_string(total_steps) +
                                            ": nothing is left to run");
      base_step = s0, base_time = restart->time;
    }
    r.first_step = s0 + 1;
  }
  auto time_at = [&](long long s) { return base_time + dt * double(s - base_step); };
  r.dt = dt;
  r.total_steps = total_steps;
  {
    std::ostringstream s;
    s.precision(6);
    s << "time step: dt = " << dt
      << (cfg.time.dt ? " (fixed)" : " (CFL " + std::to_string(cfg.time.cfl).substr(0, 5) + ")") << ", " << total_steps
      << " steps of " << to_string(cfg.time.integrator) << " to t = " << time_at(total_steps)
      << "; stable-step rate max " << r.cfl.max_rate << " at cell " << r.cfl.limiting_cell;
    if (restart)
      s << "; restarting at step " << restart->step << " (t = " << restart->time << ") from " << restart->file;
    log(s.str());
  }

  solver.initialize();
  if (restart) {
    if (int(restart->state.size()) != r.components)
      throw InputError(restart->file, "the checkpoint holds " + std::to_string(restart->state.size()) +
                                          " components, the case " + std::to_string(r.components));
    auto h = Kokkos::create_mirror_view(solver.state());
    for (int k = 0; k < r.components; ++k)
      for (index_t c = 0; c < mesh.n_cells; ++c) h(c, k) = restart->state[k][c];
    Kokkos::deep_copy(solver.state(), h);
    r.conservation_initial = restart->conservation_initial;
  } else {
    r.conservation_initial = conserved_totals(mesh, solver.state(), comm);
  }
  r.no_exact_solution = exact_solution_unavailable(cfg);
  const CheckpointInfo ckinfo{dt, total_steps, r.conservation_initial};
  // Whether step s ends an interval of `e` (steps or simulated time).
  auto crosses = [&](const EveryConfig& e, long long s) {
    if (e.kind == EveryConfig::Kind::steps) return s % static_cast<long long>(e.value) == 0;
    if (e.kind == EveryConfig::Kind::time)
      return std::floor(time_at(s) / e.value + 1e-9) > std::floor(time_at(s - 1) / e.value + 1e-9);
    return false;
  };
  const bool series = cfg.output.every.kind != EveryConfig::Kind::none;
  double io_seconds = 0;
  auto timed = [&](auto&& f) {
    Kokkos::Timer t;
    f();
    io_seconds += t.seconds();
  };
  if (hooks.write_fields && series && !restart)
    timed([&] { r.fields_files.push_back(hooks.write_fields(0, 0.0, solver.state())); });
  kc::fence("fvproxy::solver::setup");
  r.setup_seconds = setup.seconds() - io_seconds;

  ScopedKernelProfiler profiler(hooks.profile);
  Kokkos::Timer wall;
  double last_report = 0, last_checkpoint = 0;
  io_seconds = 0;
  const long long first = r.first_step;
  long long done = first - 1;
  // Only rank 0 may print progress; every rank must still take part in the check a report makes.
  const bool progress_somewhere = comm.any(bool(hooks.progress));
  for (long long step = first; step <= total_steps; ++step) {
    solver.step(static_cast<real>(time_at(step - 1)), static_cast<real>(dt), step, true);
    const double now = wall.seconds();
    const bool last = step == total_steps;
    // Decisions that depend on a rank's clock or signals are made collectively: one reduction of
    // the flags per step (none on one rank), so every rank stops, checkpoints and checks together.
    bool signalled = !last && hooks.stop_requested && hooks.stop_requested();
    const double mean_step = (now - io_seconds) / double(step - first + 1);
    bool out_of_time =
        !last && cfg.run.wall_limit && hooks.seconds_before + setup.seconds() + 2 * mean_step >= *cfg.run.wall_limit;
    const auto& ce = cfg.checkpoint.every;
    bool wall_checkpoint = ce.kind == EveryConfig::Kind::wall_seconds && now - last_checkpoint >= ce.value;
    bool report = !last && now - last_report >= cfg.run.progress_interval;
    if (comm.size() > 1) {
      const unsigned bits = comm.bitwise_or((signalled ? 1u : 0u) | (out_of_time ? 2u : 0u) |
                                            (wall_checkpoint ? 4u : 0u) | (report ? 8u : 0u));
      signalled = bits & 1u, out_of_time = bits & 2u, wall_checkpoint = bits & 4u, report = bits & 8u;
    }
    report = report && progress_somewhere; // the same on every rank: it triggers the collective check
    const bool stop = signalled || out_of_time;
    const bool checkpoint = hooks.write_checkpoint && (stop || crosses(ce, step) || wall_checkpoint);
    const bool output = hooks.write_fields && (last || (series && crosses(cfg.output.every, step)));
    if (report || step % kCheckEvery == 0 || last || checkpoint || output || stop) {
      if ((r.failure = solver.first_failure())) break;
    }
    done = step;
    const double t = last && cfg.time.end_time ? *cfg.time.end_time : time_at(step);
    if (output) timed([&] { r.fields_files.push_back(hooks.write_fields(step, t, solver.state())); });
    if (checkpoint) {
      timed([&] { r.checkpoint_files.push_back(hooks.write_checkpoint(step, t, solver.state(), ckinfo)); });
      last_checkpoint = wall.seconds();
    }
    if (stop) {
      r.stopped = signalled ? "stop requested (SIGTERM, SIGINT, SIGUSR1 or SIGUSR2)" : "run.wall_limit reached";
      break;
    }
    if (report) last_report = now;
    if (report && hooks.progress) {
      Progress p;
      p.step = step, p.total_steps = total_steps, p.time = t, p.dt = dt;
      p.end_time = time_at(total_steps), p.wall_seconds = now;
      p.eta_seconds = mean_step * double(total_steps - step);
      p.cell_updates_per_second = double(mesh.n_global_cells) / mean_step;
      hooks.progress(p);
    }
  }
  kc::fence("fvproxy::solver::end");
  r.wall_seconds = wall.seconds();
  r.io_seconds = io_seconds;
  if (hooks.profile) r.timers = KernelProfiler::table();
  r.steps = r.failure ? r.failure->step : done;
  r.time = time_at(r.steps);
  if (cfg.time.end_time && !r.failure && r.steps == total_steps)
    r.time = *cfg.time.end_time; // n * (T / n) may differ from T by an ulp
  const double compute = r.wall_seconds - io_seconds;
  r.cell_updates_per_second = compute > 0 ? double(mesh.n_global_cells) * double(r.steps - first + 1) / compute : 0;
  if (r.failure) return r;

  r.conservation_final = conserved_totals(mesh, solver.state(), comm);
  std::tie(r.final_min, r.final_max) = domain_bounds(mesh, solver.state(), View2<real>(), comm);
  if (r.no_exact_solution.empty())
    r.errors = error_norms(mesh, solver.state(), solver.solution(), static_cast<real>(r.time), comm);
  if (keep_final_state) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), solver.state());
    r.final_state.assign(r.components, std::vector<real>(mesh.n_cells));
    for (int k = 0; k < r.components; ++k)
      for (index_t c = 0; c < mesh.n_cells; ++c) r.final_state[k][c] = h(c, k);
  }
  return r;
}

} // namespace fvproxy
