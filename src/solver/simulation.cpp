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
#include "solver/scalar_solution.hpp"

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

/// One step of the loop: step `step` takes the state from t0 to t1.
struct Span {
  long long step = 0;
  double t0 = 0, t1 = 0, dt = 0;
  bool last = false; ///< the schedule's last step
};

/// What the ranks decide together after a step (one reduction; none on one rank).
struct Decisions {
  bool signalled = false, out_of_time = false, wall_checkpoint = false, report = false;
  double now = 0;       ///< the loop's wall time after the step
  double mean_step = 0; ///< wall seconds per step so far, without I/O
  bool stop() const { return signalled || out_of_time; }
};

/// What failed in a state, and where: "not finite at cell ... (global id) at (x, y, z): density = ...".
std::string describe_failure(const StateFailure& f, const std::vector<std::string>& names) {
  std::ostringstream s;
  s.precision(6);
  static const char* const out_of_range[] = {"density", "kinetic energy", "sound speed squared", "total energy",
                                             "pressure"};
  if (f.kind == StateFailure::Kind::out_of_range)
    s << "outside the range a state's values may take (" << kStateMin << " to " << kStateMax
      << " in this build's arithmetic): its " << out_of_range[f.component < 5 ? f.component : 0];
  else
    s << (f.kind == StateFailure::Kind::non_finite ? "not finite"
          : f.kind == StateFailure::Kind::non_physical
              ? (f.component == 0 ? "non-physical: density <= 0" : "non-physical: pressure <= 0")
              : "outside its admissible interval");
  s << " at cell " << f.cell_gid << " (global id) at (" << f.x[0] << ", " << f.x[1] << ", " << f.x[2] << ")";
  for (std::size_t k = 0; k < f.state.size(); ++k)
    s << (k ? ", " : ": ") << (k < names.size() ? names[k] : "u" + std::to_string(k)) << " = " << f.state[k];
  return s.str();
}

/// The failure of a state the run starts from, as one line.
std::string describe_start_failure(const std::string& start_state, const StateFailure& f,
                                   const std::vector<std::string>& names) {
  return start_state + " is " + describe_failure(f, names);
}

/// The time loop of one run: set-up (memory, solver, start state, schedule, first files), the
/// steps, and the summary. run_simulation below is its whole use.
class TimeLoop {
public:
  TimeLoop(const CaseConfig& cfg, const Mesh& mesh, const RunHooks& hooks, const RestartPoint* restart,
           const Communicator& comm, Halo* halo, const BoundaryOnMesh* boundary)
      : cfg_(cfg), mesh_(mesh), hooks_(hooks), restart_(restart), comm_(comm), halo_(halo),
        boundary_(boundary ? *boundary : resolve_boundary(cfg, mesh)) {}

  RunSummary run(bool keep_final_state) {
    set_up();
    // Per-kernel timers (with `profile`) over the steps and the final diagnostics, not the set-up.
    ScopedKernelProfiler profiler(hooks_.profile);
    steps();
    finish(keep_final_state);
    return std::move(r_);
  }

private:
  /// What the run starts from, as messages name it.
  std::string start_state_name() const { return restart_ ? "the checkpoint's state" : "initial: the initial state"; }
  void log(const std::string& s) const {
    if (hooks_.log) hooks_.log(s);
  }
  template <class F> void timed(F&& f) {
    Kokkos::Timer t;
    f();
    io_seconds_ += t.seconds();
  }

  void set_up();
  void check_memory();
  void start_state();
  double first_step_size();
  void plan();
  void log_plan() const;
  void write_start();

  void steps();
  std::optional<Span> next_span(long long step, double t) const;
  Decisions decide(const Span& s) const;
  bool advance(Span& s, Decisions& d);
  bool failed(const Span& s, const Decisions& d);
  void take_again(Span& s, int retry);
  void record_failure(const Span& s);
  bool converged(const Span& s, bool report);
  void write_due(const Span& s, const Decisions& d, bool end);
  void report_progress(const Span& s, const Decisions& d) const;
  void finish(bool keep_final_state);

  const CaseConfig& cfg_;
  const Mesh& mesh_;
  const RunHooks& hooks_;
  const RestartPoint* restart_;
  const Communicator& comm_;
  Halo* halo_;
  BoundaryOnMesh boundary_; ///< each mesh patch's boundary entry, resolved once

  RunSummary r_;
  std::unique_ptr<Solver> solver_;
  Schedule sched_;
  CheckpointInfo ckinfo_;
  std::vector<std::string> integral_names_;
  bool series_ = false, integrals_ = false;
  Kokkos::Timer setup_, wall_;
  double io_seconds_ = 0, last_report_ = 0, last_checkpoint_ = 0;
  double t_ = 0, t_failed_ = 0; ///< the time reached; the time after the failing step
  long long done_ = 0;          ///< the last step completed
  bool progress_somewhere_ = false;
};

void TimeLoop::set_up() {
  // Kokkos Tools regions (docs/performance.md#kokkos-tools): the set-up, then each time step.
  std::optional<kc::ProfileRegion> region(std::in_place, "fvproxy::solver::setup");
  r_.case_name = cfg_.name;
  r_.cells = mesh_.n_global_cells;
  r_.components = cfg_.physics.components;
  check_memory();
  solver_ = make_solver(mesh_, cfg_, boundary_, comm_, halo_);
  r_.operators = solver_->describe();
  r_.bounds = solver_->bounds();
  r_.conserved_names = solver_->conserved_names();
  r_.residual_names = solver_->residual_names();
  start_state();
  plan();
  write_start();
  kc::fence("fvproxy::solver::setup");
  region.reset();
  r_.setup_seconds = setup_.seconds() - io_seconds_;
}

/// The mesh is on the device already: refuse before allocating the solver.
void TimeLoop::check_memory() {
  const auto solver_bytes =
      static_cast<std::size_t>(solver_memory_bytes(mesh_.n_cells, mesh_.n_faces, mesh_.n_interior, cfg_));
  r_.memory_bytes = mesh_.memory_bytes() + solver_bytes;
  r_.memory_available = available_memory_bytes();
  std::ostringstream s;
  s << "memory: " << mib(double(r_.memory_bytes)) << " on the device (" << r_.memory_bytes / std::max(1, mesh_.n_cells)
    << " bytes/cell x " << mesh_.n_cells << " cells: mesh " << mib(double(mesh_.memory_bytes())) << ", solver "
    << mib(double(solver_bytes)) << ")";
  if (r_.memory_available) s << ", " << mib(double(r_.memory_available)) << " free";
  log(s.str());
  if (r_.memory_available && solver_bytes > r_.memory_available)
    throw RunError("fvproxy run: error: not enough memory for the solver: it needs " + mib(double(solver_bytes)) +
                   " beyond the mesh, and the device has " + mib(double(r_.memory_available)) +
                   " free\nuse a coarser mesh (mesh.generate.cells) or fewer components");
}

/// The initial state, or the checkpoint's (the one place a restart's state is applied), checked
/// before anything is written (collective: every rank throws the same error, rank 0 says it).
void TimeLoop::start_state() {
  solver_->initialize();
  if (restart_) {
    if (int(restart_->state.size()) < r_.components)
      throw InputError(restart_->file, "the checkpoint holds " + std::to_string(restart_->state.size()) +
                                           " components, the case " + std::to_string(r_.components));
    auto h = Kokkos::create_mirror_view(solver_->state());
    for (int k = 0; k < r_.components; ++k)
      for (index_t c = 0; c < mesh_.n_cells; ++c) h(c, k) = restart_->state[k][c];
    Kokkos::deep_copy(solver_->state(), h);
    solver_->restarted({restart_->state.begin() + r_.components, restart_->state.end()});
    r_.conservation_initial = restart_->conservation_initial;
    r_.residual_reference = restart_->residual_reference;
  } else {
    r_.conservation_initial = solver_->conserved_totals();
  }
  if (const std::optional<StateFailure> f = solver_->state_failure()) {
    MpiEnvironment::set_collective_exit();
    throw InputError(restart_ ? restart_->file : cfg_.initial_where,
                     describe_start_failure(start_state_name(), *f, r_.conserved_names),
                     restart_ ? "the checkpoint was not written by a run of this case"
                              : "the initial condition's parameters give a state the model cannot start from "
                                "(docs/flow-cases.md)");
  }
}

/// time.dt, or the stable step of the start state (with the warnings about either).
double TimeLoop::first_step_size() {
  const TimeConfig& time = cfg_.time;
  if (!time.dt && time.cfl > cfl_limit(time.integrator))
    log("warning: time.cfl = " + std::to_string(time.cfl).substr(0, 5) + " exceeds the stable limit " +
        std::to_string(cfl_limit(time.integrator)).substr(0, 3) + " of " + to_string(time.integrator) +
        " (the run may be unstable" +
        (cfg_.physics.is_flow() ? std::string(")") : "; the max-principle monitor stops it if it grows)"));
  if (time.dt) {
    if (r_.cfl.dt > 0 && *time.dt > r_.cfl.dt)
      log("warning: time.dt = " + std::to_string(*time.dt) + " exceeds the CFL-1 step estimate " +
          std::to_string(r_.cfl.dt / time.cfl) + " (the run may be unstable)");
    return *time.dt;
  }
  if (!(r_.cfl.dt > 0)) {
    MpiEnvironment::set_collective_exit(); // r_.cfl is reduced over ranks: every rank throws this
    if (cfg_.physics.is_flow())
      throw InputError(restart_ ? restart_->file : cfg_.initial_where,
                       start_state_name() +
                           " gives no stable time step: its largest wave speed is zero or not finite (cell " +
                           std::to_string(r_.cfl.limiting_cell) + ")",
                       "check the initial condition's values, or give a fixed step with time.dt");
    throw InputError(cfg_.source_file, "time.cfl: nothing limits the time step (zero velocity and zero diffusivity)",
                     "give a fixed step with time.dt");
  }
  return r_.cfl.dt;
}

void TimeLoop::plan() {
  const bool variable = solver_->variable_step() && !cfg_.time.dt;
  r_.variable_dt = variable;
  r_.cfl = solver_->stable_step(cfg_.time.cfl);
  const double dt = first_step_size();
  sched_ = make_schedule(cfg_.time, variable, dt, r_.cfl.dt, restart_, cfg_.source_file,
                         [this](const std::string& s) { log(s); });
  r_.first_step = sched_.first_step;
  r_.dt = sched_.dt;
  r_.total_steps = sched_.total_steps;
  log_plan();
  r_.no_exact_solution = solver_->no_exact_solution();
  ckinfo_ = CheckpointInfo{sched_.dt, sched_.total_steps, r_.conservation_initial, r_.residual_reference};
}

void TimeLoop::log_plan() const {
  const TimeConfig& time = cfg_.time;
  std::ostringstream s;
  s.precision(6);
  if (sched_.variable) {
    s << "time step: variable (CFL " << std::to_string(time.cfl).substr(0, 5) << ", " << to_string(time.integrator)
      << "), dt = " << r_.cfl.dt << " at the start";
    if (time.end_time)
      s << ", to t = " << *time.end_time;
    else
      s << ", " << sched_.total_steps << " steps";
    if (time.residual_tolerance) s << " or residuals below " << *time.residual_tolerance;
  } else {
    s << "time step: dt = " << sched_.dt
      << (time.dt ? " (fixed)" : " (CFL " + std::to_string(time.cfl).substr(0, 5) + ")") << ", " << sched_.total_steps
      << " steps of " << to_string(time.integrator) << " to t = " << sched_.time_at(sched_.total_steps);
  }
  s << "; stable-step rate max " << r_.cfl.max_rate << " at cell " << r_.cfl.limiting_cell;
  if (restart_)
    s << "; restarting at step " << restart_->step << " (t = " << restart_->time << ") from " << restart_->file;
  log(s.str());
}

/// The mesh file, and (not after a restart) the fields and integrals at step 0.
void TimeLoop::write_start() {
  series_ = cfg_.output.every.kind != EveryConfig::Kind::none;
  if (hooks_.write_mesh) timed([&] { hooks_.write_mesh(); });
  if (hooks_.write_fields && series_ && !restart_)
    timed([&] { r_.fields_files.push_back(hooks_.write_fields(0, 0.0, solver_->output_fields())); });
  integral_names_ = solver_->integral_names();
  integrals_ =
      hooks_.write_integrals && cfg_.output.integrals.kind != EveryConfig::Kind::none && !integral_names_.empty();
  if (integrals_ && !restart_) timed([&] { hooks_.write_integrals(0, 0.0, integral_names_, solver_->integrals()); });
}

void TimeLoop::steps() {
  wall_.reset();
  io_seconds_ = 0;
  done_ = sched_.first_step - 1;
  t_ = t_failed_ = restart_ ? restart_->time : 0.0;
  r_.dt_min = std::numeric_limits<double>::infinity(), r_.dt_max = 0;
  // Only rank 0 may print progress; every rank must still take part in the check a report makes.
  progress_somewhere_ = comm_.any(bool(hooks_.progress));
  for (long long step = sched_.first_step;; ++step) {
    std::optional<Span> span = next_span(step, t_);
    if (!span) break;
    Decisions d;
    if (!advance(*span, d)) break;
    const bool converged_now = converged(*span, d.report);
    done_ = step;
    t_ = span->t1;
    r_.dt_min = std::min(r_.dt_min, span->dt), r_.dt_max = std::max(r_.dt_max, span->dt);
    write_due(*span, d, span->last || converged_now);
    if (converged_now) {
      r_.converged = true;
      break;
    }
    if (d.stop()) {
      r_.stopped = d.signalled ? "stop requested (SIGTERM, SIGINT, SIGUSR1 or SIGUSR2)" : "run.wall_limit reached";
      break;
    }
    if (span->last) break;
    if (d.report) last_report_ = d.now;
    if (d.report && hooks_.progress) report_progress(*span, d);
  }
  kc::fence("fvproxy::solver::end");
}

/// The step `step` from the time reached `t`, or none when the schedule has ended.
std::optional<Span> TimeLoop::next_span(long long step, double t) const {
  Span s;
  s.step = step;
  if (!sched_.variable) {
    if (step > sched_.total_steps) return std::nullopt;
    s.last = step == sched_.total_steps;
    s.t0 = sched_.time_at(step - 1);
    s.t1 = s.last && cfg_.time.end_time ? *cfg_.time.end_time : sched_.time_at(step);
    s.dt = sched_.dt;
    return s;
  }
  if (cfg_.time.steps && step > sched_.total_steps) return std::nullopt;
  const StableStep st = step == sched_.first_step ? r_.cfl : solver_->stable_step(cfg_.time.cfl);
  if (!(st.dt > 0 && std::isfinite(st.dt)))
    throw RunError("fvproxy run: error: no stable time step at step " + std::to_string(step) +
                   " (t = " + std::to_string(t) + "): the largest wave speed is zero or not finite (cell " +
                   std::to_string(st.limiting_cell) + ")");
  s.last = cfg_.time.steps && step == sched_.total_steps;
  s.t0 = t;
  bool reaches_end = false;
  s.t1 = span_end(t, st.dt, {&cfg_.output.every, &cfg_.checkpoint.every, &cfg_.output.integrals}, cfg_.time.end_time,
                  reaches_end);
  if (reaches_end) s.last = true;
  s.dt = s.t1 - s.t0;
  return s;
}

/// Decisions that depend on a rank's clock or signals are made collectively: one reduction of the
/// flags per step (none on one rank), so every rank stops, checkpoints and checks together.
Decisions TimeLoop::decide(const Span& s) const {
  Decisions d;
  d.now = wall_.seconds();
  d.signalled = !s.last && hooks_.stop_requested && hooks_.stop_requested();
  d.mean_step = (d.now - io_seconds_) / double(s.step - sched_.first_step + 1);
  d.out_of_time = !s.last && cfg_.run.wall_limit &&
                  hooks_.seconds_before + setup_.seconds() + 2 * d.mean_step >= *cfg_.run.wall_limit;
  const EveryConfig& ce = cfg_.checkpoint.every;
  d.wall_checkpoint = ce.kind == EveryConfig::Kind::wall_seconds && d.now - last_checkpoint_ >= ce.value;
  d.report = !s.last && d.now - last_report_ >= cfg_.run.progress_interval;
  if (comm_.size() > 1) {
    const unsigned bits = comm_.bitwise_or((d.signalled ? 1u : 0u) | (d.out_of_time ? 2u : 0u) |
                                           (d.wall_checkpoint ? 4u : 0u) | (d.report ? 8u : 0u));
    d.signalled = bits & 1u, d.out_of_time = bits & 2u, d.wall_checkpoint = bits & 4u, d.report = bits & 8u;
  }
  d.report = d.report && progress_somewhere_; // the same on every rank: it triggers the collective check
  return d;
}

/// The failure check. The flow models check every step (their time step synchronizes anyway, and
/// the state before the failing step is what they hand to the output); the scalar model every
/// kCheckEvery steps, and whenever something is reported or written.
bool TimeLoop::failed(const Span& s, const Decisions& d) {
  const bool writes = (hooks_.write_checkpoint && crosses(cfg_.checkpoint.every, s.step, s.t0, s.t1)) ||
                      (hooks_.write_fields && series_ && crosses(cfg_.output.every, s.step, s.t0, s.t1));
  if (!(solver_->variable_step() || d.report || s.step % kCheckEvery == 0 || s.last || writes || d.stop() ||
        d.wall_checkpoint))
    return false;
  return bool(r_.failure = solver_->first_failure());
}

/// Takes the step `s`; a variable step whose result fails is taken again from its start with half
/// the step (time.retries). False when it failed for good (a fixed dt, or the retries spent): the
/// last good state is written.
bool TimeLoop::advance(Span& s, Decisions& d) {
  const int retries = sched_.variable ? cfg_.time.retries : 0;
  for (int retry = 0;; ++retry) {
    {
      const kc::ProfileRegion region("fvproxy::solver::time_step");
      solver_->step(static_cast<real>(s.t0), static_cast<real>(s.dt), s.step, true);
    }
    d = decide(s);
    if (!failed(s, d)) return true;
    if (retry >= retries || !solver_->retry_step()) {
      record_failure(s);
      return false;
    }
    take_again(s, retry);
  }
}

/// The failing step once more from its start state (the solver has put it back), with half the step.
void TimeLoop::take_again(Span& s, int retry) {
  const StateFailure f = *r_.failure;
  r_.failure.reset();
  ++r_.retried_steps;
  const double dt = s.dt;
  s.dt = 0.5 * dt;
  s.t1 = s.t0 + s.dt;
  s.last = cfg_.time.steps && s.step == sched_.total_steps; // no longer reaching the end time
  constexpr long long kPrinted = 20; // the first retries printed; the rest counted (a scheme failing every step)
  if (r_.retried_steps > kPrinted) return;
  std::ostringstream m;
  m.precision(6);
  m << "step " << s.step << " (t = " << s.t0 << ", dt = " << dt << "): " << describe_failure(f, r_.conserved_names)
    << "; taken again with dt = " << s.dt;
  if (const long long n = solver_->retry_first_order_cells()) m << " and first order in " << n << " cells";
  m << " (time.retries: " << retry + 1 << " of " << cfg_.time.retries << ")";
  if (r_.retried_steps == kPrinted) m << "; further steps taken again are counted in the summary, not printed";
  log(m.str());
}

/// The run stops at a failing step: the state before it is written for a look at what went wrong.
void TimeLoop::record_failure(const Span& s) {
  t_failed_ = s.t1;
  if (hooks_.write_fields && solver_->last_good_output_fields().data())
    timed([&] { r_.last_good_file = hooks_.write_fields(s.step - 1, s.t0, solver_->last_good_output_fields()); });
}

/// The residual monitor: the first step's residuals are the reference; then every step with a
/// tolerance, else at reports and at the end. True when every residual fell below the tolerance.
bool TimeLoop::converged(const Span& s, bool report) {
  const std::optional<double>& tolerance = cfg_.time.residual_tolerance;
  if (r_.residual_names.empty() || !(r_.residual_reference.empty() || tolerance || report || s.last)) return false;
  r_.residual_last = solver_->residuals(static_cast<real>(s.dt));
  if (r_.residual_reference.empty())
    r_.residual_reference = r_.residual_last, ckinfo_.residual_reference = r_.residual_last;
  if (!tolerance) return false;
  double worst = 0;
  for (std::size_t k = 0; k < r_.residual_last.size(); ++k)
    worst = std::max(worst, r_.residual_reference[k] > 0 ? r_.residual_last[k] / r_.residual_reference[k] : 0.0);
  return worst < *tolerance;
}

/// The fields, integrals and checkpoint that fall at the end of this step.
void TimeLoop::write_due(const Span& s, const Decisions& d, bool end) {
  const EveryConfig& ce = cfg_.checkpoint.every;
  if (sched_.variable) ckinfo_.dt = s.dt, ckinfo_.total_steps = std::max(sched_.total_steps, s.step);
  const bool checkpoint = hooks_.write_checkpoint && (d.stop() || crosses(ce, s.step, s.t0, s.t1) || d.wall_checkpoint);
  const bool output = hooks_.write_fields && (end || (series_ && crosses(cfg_.output.every, s.step, s.t0, s.t1)));
  if (output) timed([&] { r_.fields_files.push_back(hooks_.write_fields(s.step, s.t1, solver_->output_fields())); });
  if (integrals_ && (end || d.stop() || crosses(cfg_.output.integrals, s.step, s.t0, s.t1)))
    timed([&] { hooks_.write_integrals(s.step, s.t1, integral_names_, solver_->integrals()); });
  if (checkpoint) {
    timed([&] {
      r_.checkpoint_files.push_back(hooks_.write_checkpoint(s.step, s.t1, solver_->checkpoint_state(), ckinfo_));
    });
    last_checkpoint_ = wall_.seconds();
  }
}

void TimeLoop::report_progress(const Span& s, const Decisions& d) const {
  Progress p;
  p.step = s.step, p.time = s.t1, p.dt = s.dt;
  p.wall_seconds = d.now;
  p.cell_updates_per_second = double(mesh_.n_global_cells) / d.mean_step;
  if (!sched_.variable || cfg_.time.steps) {
    p.total_steps = sched_.total_steps;
    p.end_time = sched_.variable ? 0.0 : sched_.time_at(sched_.total_steps);
    p.eta_seconds = d.mean_step * double(sched_.total_steps - s.step);
  } else { // toward an end time at the current step
    const double left = (*cfg_.time.end_time - s.t1) / s.dt;
    p.total_steps = s.step + static_cast<long long>(std::ceil(left));
    p.end_time = *cfg_.time.end_time;
    p.eta_seconds = d.mean_step * left;
    p.by_time = true;
  }
  p.residuals = r_.residual_last;
  hooks_.progress(p);
}

/// Where the run ended, its rate, and (completed runs) the diagnostics of the final state.
void TimeLoop::finish(bool keep_final_state) {
  r_.wall_seconds = wall_.seconds();
  r_.io_seconds = io_seconds_;
  if (hooks_.profile) r_.timers = KernelProfiler::table();
  r_.steps = r_.failure ? r_.failure->step : done_;
  r_.time = r_.failure ? t_failed_ : t_;
  if (!sched_.variable) {
    r_.time = sched_.time_at(r_.steps);
    if (cfg_.time.end_time && !r_.failure && r_.steps == sched_.total_steps)
      r_.time = *cfg_.time.end_time; // n * (T / n) may differ from T by an ulp
  } else {
    r_.dt = r_.dt_max;
    if (!r_.failure && !cfg_.time.steps && r_.stopped.empty()) r_.total_steps = r_.steps;
    if (!r_.failure && r_.converged) r_.total_steps = cfg_.time.steps ? sched_.total_steps : r_.steps;
  }
  if (!(r_.dt_min <= r_.dt_max)) r_.dt_min = r_.dt_max = sched_.dt;
  const double compute = r_.wall_seconds - io_seconds_;
  r_.cell_updates_per_second =
      compute > 0 ? double(mesh_.n_global_cells) * double(r_.steps - sched_.first_step + 1) / compute : 0;
  if (r_.failure) return;
  r_.conservation_final = solver_->conserved_totals();
  r_.forces = solver_->wall_forces();
  std::tie(r_.final_min, r_.final_max) = solver_->final_range();
  if (r_.no_exact_solution.empty()) {
    const std::vector<FieldError> e = solver_->errors(r_.time);
    r_.errors.emplace();
    for (const FieldError& f : e) r_.error_names.push_back(f.field), r_.errors->push_back(f.norms);
  }
  if (keep_final_state) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), solver_->state());
    r_.final_state.assign(r_.components, std::vector<real>(mesh_.n_cells));
    for (int k = 0; k < r_.components; ++k)
      for (index_t c = 0; c < mesh_.n_cells; ++c) r_.final_state[k][c] = h(c, k);
  }
}

} // namespace

RunSummary run_simulation(const CaseConfig& cfg, const Mesh& mesh, const RunHooks& hooks, bool keep_final_state,
                          const RestartPoint* restart, const Communicator& comm, Halo* halo,
                          const BoundaryOnMesh* boundary) {
  return TimeLoop(cfg, mesh, hooks, restart, comm, halo, boundary).run(keep_final_state);
}

} // namespace fvproxy
