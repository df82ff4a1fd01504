#include "solver/simulation.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <tuple>

#include "core/build_info.hpp"
#include "core/error.hpp"
#include "core/kokkos_compat.hpp"
#include "parallel/mpi_environment.hpp"
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

/// k * T as the double nearest its 15-digit decimal (3 * 0.05 = 0.15000000000000002 becomes 0.15):
/// the output times a user wrote, not their round-off.
double decimal(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", x);
  const double d = std::strtod(buf, nullptr);
  return std::fabs(d - x) <= 1e-14 * std::fabs(x) ? d : x;
}

} // namespace

RunSummary run_simulation(const CaseConfig& cfg, const Mesh& mesh, const RunHooks& hooks, bool keep_final_state,
                          const RestartPoint* restart, const Communicator& comm, Halo* halo) {
  Kokkos::Timer setup;
  // Kokkos Tools regions (docs/performance.md#kokkos-tools): the set-up, then each time step.
  std::optional<kc::ProfileRegion> setup_region(std::in_place, "fvproxy::solver::setup");
  auto log = [&](const std::string& s) {
    if (hooks.log) hooks.log(s);
  };
  RunSummary r;
  r.case_name = cfg.name;
  r.cells = mesh.n_global_cells;
  r.components = cfg.physics.components;

  // Memory: the mesh is on the device already; refuse before allocating the solver.
  const auto solver_bytes =
      static_cast<std::size_t>(solver_memory_bytes(mesh.n_cells, mesh.n_faces, mesh.n_interior, cfg));
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

  std::unique_ptr<Solver> solver = make_solver(mesh, cfg, comm, halo);
  r.operators = solver->describe();
  r.bounds = solver->bounds();
  r.conserved_names = solver->conserved_names();
  r.residual_names = solver->residual_names();
  // The initial state, or the checkpoint's.
  solver->initialize();
  if (restart) {
    if (int(restart->state.size()) != r.components)
      throw InputError(restart->file, "the checkpoint holds " + std::to_string(restart->state.size()) +
                                          " components, the case " + std::to_string(r.components));
    auto h = Kokkos::create_mirror_view(solver->state());
    for (int k = 0; k < r.components; ++k)
      for (index_t c = 0; c < mesh.n_cells; ++c) h(c, k) = restart->state[k][c];
    Kokkos::deep_copy(solver->state(), h);
    r.conservation_initial = restart->conservation_initial;
    r.residual_reference = restart->residual_reference;
  } else {
    r.conservation_initial = solver->conserved_totals();
  }
  // The state the run starts from, checked before anything is written (collective: every rank
  // throws the same error, rank 0 says it).
  const std::string start_state = restart ? "the checkpoint's state" : "initial: the initial state";
  if (const std::optional<StateFailure> f = solver->state_failure()) {
    std::ostringstream s;
    s.precision(6);
    s << start_state << " is "
      << (f->kind == StateFailure::Kind::non_finite ? "not finite"
          : f->kind == StateFailure::Kind::non_physical
              ? (f->component == 0 ? "non-physical: density <= 0" : "non-physical: pressure <= 0")
              : "outside its admissible interval")
      << " at cell " << f->cell_gid << " (global id) at (" << f->x[0] << ", " << f->x[1] << ", " << f->x[2] << ")";
    for (std::size_t k = 0; k < f->state.size(); ++k)
      s << (k ? ", " : ": ") << (k < r.conserved_names.size() ? r.conserved_names[k] : "u" + std::to_string(k)) << " = "
        << f->state[k];
    MpiEnvironment::set_collective_exit();
    throw InputError(restart ? restart->file : cfg.initial_where, s.str(),
                     restart ? "the checkpoint was not written by a run of this case"
                             : "the initial condition's parameters give a state the model cannot start from "
                               "(docs/physics.md#the-cases)");
  }
  const bool variable = solver->variable_step() && !cfg.time.dt;
  r.variable_dt = variable;
  r.cfl = solver->stable_step(cfg.time.cfl);
  double dt = 0;
  if (!cfg.time.dt && cfg.time.cfl > cfl_limit(cfg.time.integrator))
    log("warning: time.cfl = " + std::to_string(cfg.time.cfl).substr(0, 5) + " exceeds the stable limit " +
        std::to_string(cfl_limit(cfg.time.integrator)).substr(0, 3) + " of " + to_string(cfg.time.integrator) +
        " (the run may be unstable" +
        (cfg.physics.is_flow() ? std::string(")") : "; the max-principle monitor stops it if it grows)"));
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
    if (!(r.cfl.dt > 0)) {
      MpiEnvironment::set_collective_exit(); // r.cfl is reduced over ranks: every rank throws this
      if (cfg.physics.is_flow())
        throw InputError(restart ? restart->file : cfg.initial_where,
                         start_state +
                             " gives no stable time step: its largest wave speed is zero or not finite (cell " +
                             std::to_string(r.cfl.limiting_cell) + ")",
                         "check the initial condition's values, or give a fixed step with time.dt");
      throw InputError(cfg.source_file, "time.cfl: nothing limits the time step (zero velocity and zero diffusivity)",
                       "give a fixed step with time.dt");
    }
    dt = r.cfl.dt;
  }
  long long total_steps = 0;
  if (variable) {
    total_steps = cfg.time.steps ? *cfg.time.steps : 0; // toward an end_time: not known in advance
  } else if (cfg.time.end_time) {
    const double T = *cfg.time.end_time;
    total_steps = count_steps(T, dt, cfg.time.dt ? "time.dt" : "time.cfl");
    dt = T / double(total_steps);
  } else {
    total_steps = *cfg.time.steps;
  }
  // Fixed schedule: simulated time after step s is base_time + dt (s - base_step).
  long long base_step = 0;
  double base_time = 0;
  if (restart && variable) {
    const long long s0 = restart->step;
    if (cfg.time.end_time && !(*cfg.time.end_time > restart->time))
      throw InputError(restart->file, "the checkpoint is at t = " + std::to_string(restart->time) +
                                          ", not before time.end_time = " + std::to_string(*cfg.time.end_time) +
                                          ": nothing is left to run");
    if (cfg.time.steps && total_steps <= s0)
      throw InputError(restart->file, "the checkpoint is at step " + std::to_string(s0) + ", the case's time.steps = " +
                                          std::to_string(total_steps) + ": nothing is left to run");
    base_step = s0, base_time = restart->time;
    r.first_step = s0 + 1;
  } else if (restart) {
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
    if (variable) {
      s << "time step: variable (CFL " << std::to_string(cfg.time.cfl).substr(0, 5) << ", "
        << to_string(cfg.time.integrator) << "), dt = " << r.cfl.dt << " at the start";
      if (cfg.time.end_time)
        s << ", to t = " << *cfg.time.end_time;
      else
        s << ", " << total_steps << " steps";
      if (cfg.time.residual_tolerance) s << " or residuals below " << *cfg.time.residual_tolerance;
    } else {
      s << "time step: dt = " << dt
        << (cfg.time.dt ? " (fixed)" : " (CFL " + std::to_string(cfg.time.cfl).substr(0, 5) + ")") << ", "
        << total_steps << " steps of " << to_string(cfg.time.integrator) << " to t = " << time_at(total_steps);
    }
    s << "; stable-step rate max " << r.cfl.max_rate << " at cell " << r.cfl.limiting_cell;
    if (restart)
      s << "; restarting at step " << restart->step << " (t = " << restart->time << ") from " << restart->file;
    log(s.str());
  }

  r.no_exact_solution = solver->no_exact_solution();
  CheckpointInfo ckinfo{dt, total_steps, r.conservation_initial, r.residual_reference};
  // Whether the step from t0 to t1 (step s) ends an interval of `e` (steps or simulated time).
  auto crosses = [&](const EveryConfig& e, long long s, double t0, double t1) {
    if (e.kind == EveryConfig::Kind::steps) return s % static_cast<long long>(e.value) == 0;
    if (e.kind == EveryConfig::Kind::time) return std::floor(t1 / e.value + 1e-9) > std::floor(t0 / e.value + 1e-9);
    return false;
  };
  const bool series = cfg.output.every.kind != EveryConfig::Kind::none;
  double io_seconds = 0;
  auto timed = [&](auto&& f) {
    Kokkos::Timer t;
    f();
    io_seconds += t.seconds();
  };
  if (hooks.write_mesh) timed([&] { hooks.write_mesh(); });
  if (hooks.write_fields && series && !restart)
    timed([&] { r.fields_files.push_back(hooks.write_fields(0, 0.0, solver->output_fields())); });
  const bool integrals = hooks.write_integrals && cfg.output.integrals.kind != EveryConfig::Kind::none &&
                         !solver->integral_names().empty();
  const std::vector<std::string> integral_names = solver->integral_names();
  if (integrals && !restart) timed([&] { hooks.write_integrals(0, 0.0, integral_names, solver->integrals()); });
  kc::fence("fvproxy::solver::setup");
  setup_region.reset();
  r.setup_seconds = setup.seconds() - io_seconds;

  ScopedKernelProfiler profiler(hooks.profile);
  Kokkos::Timer wall;
  double last_report = 0, last_checkpoint = 0;
  io_seconds = 0;
  const long long first = r.first_step;
  long long done = first - 1;
  double t = restart ? restart->time : 0.0; // the time reached
  double t_failed = t;                      // the time after the failing step
  r.dt_min = std::numeric_limits<double>::infinity(), r.dt_max = 0;
  const bool monitor = !r.residual_names.empty();
  // Only rank 0 may print progress; every rank must still take part in the check a report makes.
  const bool progress_somewhere = comm.any(bool(hooks.progress));
  for (long long step = first;; ++step) {
    double step_dt = dt, t0 = t, t1 = 0;
    bool last = false;
    if (!variable) {
      if (step > total_steps) break;
      last = step == total_steps;
      t0 = time_at(step - 1);
      t1 = last && cfg.time.end_time ? *cfg.time.end_time : time_at(step);
    } else {
      if (cfg.time.steps && step > total_steps) break;
      const StableStep st = step == first ? r.cfl : solver->stable_step(cfg.time.cfl);
      if (!(st.dt > 0 && std::isfinite(st.dt)))
        throw RunError("fvproxy run: error: no stable time step at step " + std::to_string(step) +
                       " (t = " + std::to_string(t) + "): the largest wave speed is zero or not finite (cell " +
                       std::to_string(st.limiting_cell) + ")");
      last = cfg.time.steps && step == total_steps;
      // Land on the end time and on every output and checkpoint time exactly: a target within one
      // stable step is reached by this step, one within two by two equal steps (no sliver step).
      t1 = t0 + st.dt;
      auto land = [&](double target) {
        const double gap = target - t0;
        if (!(gap > 0)) return false;
        if (gap <= st.dt * (1 + 1e-12)) {
          t1 = std::min(t1, target);
          return t1 == target;
        }
        if (gap < 2 * st.dt) t1 = std::min(t1, t0 + gap / 2);
        return false;
      };
      for (const EveryConfig* e : {&cfg.output.every, &cfg.checkpoint.every, &cfg.output.integrals})
        if (e->kind == EveryConfig::Kind::time) land(decimal((std::floor(t0 / e->value + 1e-9) + 1) * e->value));
      if (cfg.time.end_time && land(*cfg.time.end_time)) last = true;
      step_dt = t1 - t0;
    }
    {
      const kc::ProfileRegion region("fvproxy::solver::time_step");
      solver->step(static_cast<real>(t0), static_cast<real>(step_dt), step, true);
    }
    const double now = wall.seconds();
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
    // The flow models check every step (their time step synchronizes anyway, and the state before
    // the failing step is what they hand to the output); the scalar model every kCheckEvery steps.
    const bool writes = (hooks.write_checkpoint && crosses(ce, step, t0, t1)) ||
                        (hooks.write_fields && series && crosses(cfg.output.every, step, t0, t1));
    if (solver->variable_step() || report || step % kCheckEvery == 0 || last || writes || signalled || out_of_time ||
        wall_checkpoint) {
      if ((r.failure = solver->first_failure())) {
        t_failed = t1;
        // the state before the failing step, for a look at what went wrong
        if (hooks.write_fields && solver->last_good_output_fields().data())
          timed([&] { r.last_good_file = hooks.write_fields(step - 1, t0, solver->last_good_output_fields()); });
        break;
      }
    }
    // The residual monitor: the first step's are the reference; then every step with a
    // tolerance, else at reports and at the end.
    bool converged = false;
    if (monitor && (r.residual_reference.empty() || cfg.time.residual_tolerance || report || last)) {
      r.residual_last = solver->residuals(static_cast<real>(step_dt));
      if (r.residual_reference.empty())
        r.residual_reference = r.residual_last, ckinfo.residual_reference = r.residual_last;
      if (cfg.time.residual_tolerance) {
        double worst = 0;
        for (std::size_t k = 0; k < r.residual_last.size(); ++k)
          worst = std::max(worst, r.residual_reference[k] > 0 ? r.residual_last[k] / r.residual_reference[k] : 0.0);
        converged = worst < *cfg.time.residual_tolerance;
      }
    }
    done = step;
    t = t1;
    r.dt_min = std::min(r.dt_min, step_dt), r.dt_max = std::max(r.dt_max, step_dt);
    const bool stop = signalled || out_of_time;
    const bool end = last || converged;
    if (variable) ckinfo.dt = step_dt, ckinfo.total_steps = std::max(total_steps, step);
    const bool checkpoint = hooks.write_checkpoint && (stop || crosses(ce, step, t0, t1) || wall_checkpoint);
    const bool output = hooks.write_fields && (end || (series && crosses(cfg.output.every, step, t0, t1)));
    if (output) timed([&] { r.fields_files.push_back(hooks.write_fields(step, t1, solver->output_fields())); });
    if (integrals && (end || stop || crosses(cfg.output.integrals, step, t0, t1)))
      timed([&] { hooks.write_integrals(step, t1, integral_names, solver->integrals()); });
    if (checkpoint) {
      timed([&] { r.checkpoint_files.push_back(hooks.write_checkpoint(step, t1, solver->state(), ckinfo)); });
      last_checkpoint = wall.seconds();
    }
    if (converged) {
      r.converged = true;
      break;
    }
    if (stop) {
      r.stopped = signalled ? "stop requested (SIGTERM, SIGINT, SIGUSR1 or SIGUSR2)" : "run.wall_limit reached";
      break;
    }
    if (last) break;
    if (report) last_report = now;
    if (report && hooks.progress) {
      Progress p;
      p.step = step, p.time = t1, p.dt = step_dt;
      p.wall_seconds = now;
      p.cell_updates_per_second = double(mesh.n_global_cells) / mean_step;
      if (!variable || cfg.time.steps) {
        p.total_steps = total_steps;
        p.end_time = variable ? 0.0 : time_at(total_steps);
        p.eta_seconds = mean_step * double(total_steps - step);
      } else { // toward an end time at the current step
        const double left = (*cfg.time.end_time - t1) / step_dt;
        p.total_steps = step + static_cast<long long>(std::ceil(left));
        p.end_time = *cfg.time.end_time;
        p.eta_seconds = mean_step * left;
        p.by_time = true;
      }
      p.residuals = r.residual_last;
      hooks.progress(p);
    }
  }
  kc::fence("fvproxy::solver::end");
  r.wall_seconds = wall.seconds();
  r.io_seconds = io_seconds;
  if (hooks.profile) r.timers = KernelProfiler::table();
  r.steps = r.failure ? r.failure->step : done;
  r.time = r.failure ? t_failed : t;
  if (!variable) {
    r.time = time_at(r.steps);
    if (cfg.time.end_time && !r.failure && r.steps == total_steps)
      r.time = *cfg.time.end_time; // n * (T / n) may differ from T by an ulp
  } else {
    r.dt = r.dt_max;
    if (!r.failure && !cfg.time.steps && r.stopped.empty()) r.total_steps = r.steps;
    if (!r.failure && r.converged) r.total_steps = cfg.time.steps ? total_steps : r.steps;
  }
  if (!(r.dt_min <= r.dt_max)) r.dt_min = r.dt_max = dt;
  const double compute = r.wall_seconds - io_seconds;
  r.cell_updates_per_second = compute > 0 ? double(mesh.n_global_cells) * double(r.steps - first + 1) / compute : 0;
  if (r.failure) return r;

  r.conservation_final = solver->conserved_totals();
  r.forces = solver->wall_forces();
  std::tie(r.final_min, r.final_max) = solver->final_range();
  if (r.no_exact_solution.empty()) {
    const std::vector<FieldError> e = solver->errors(r.time);
    r.errors.emplace();
    for (const FieldError& f : e) r.error_names.push_back(f.field), r.errors->push_back(f.norms);
  }
  if (keep_final_state) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), solver->state());
    r.final_state.assign(r.components, std::vector<real>(mesh.n_cells));
    for (int k = 0; k < r.components; ++k)
      for (index_t c = 0; c < mesh.n_cells; ++c) r.final_state[k][c] = h(c, k);
  }
  return r;
}

} // namespace fvproxy
