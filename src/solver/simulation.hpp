#pragma once
// The time loop of `fvproxy run`: steps the case's solver (solver.hpp: the scalar model's or the
// flow models') from t = 0 to time.end_time or for time.steps steps, reports progress through a
// callback, watches for failing values, and gathers what the end-of-run summary needs
// (summary.json: docs/output.md#json-output).
//
// Time steps, fixed schedule (the scalar model, or time.dt): with time.dt the step is fixed;
// otherwise dt = CFL step (time_step.hpp), computed once. Toward an end_time, the run takes
// n = ceil(T / dt) equal steps of T / n (never larger than the stable step, and the last one lands
// on T exactly). Simulated time after step n is n * dt (no accumulated round-off).
// Variable schedule (the flow models with time.cfl: the stable step changes with the flow): every
// step takes dt = CFL step of the current state, shortened so that it lands exactly on
// time.end_time and on every multiple of output.every.time and checkpoint.every.time; the time is
// accumulated. A restart continues from the checkpoint's time with the same rule (bitwise the same
// steps). The flow models also stop on a density or pressure <= 0 (checked every step; the last
// good state is written as a fields file) and, with time.residual_tolerance, once every residual
// (solver.hpp) relative to the first step's falls below it.
//
// Output and checkpoints (hooks; the files themselves are io's): with output.every, the fields at
// step 0 (not after a restart), at every N steps or each time t crosses a multiple of T, and always
// the final state; checkpoints at checkpoint.every (steps, simulated time or wall seconds), and
// before stopping early at run.wall_limit (when the next step would pass it) or on a stop request.
// A restart continues toward the same end: with the checkpoint's own time step (bitwise the same
// steps) when the case still gives it, else with the rest of the way to end_time split again.
//
// Timing: wall_seconds covers the time loop only (after set-up, ending with one fence), unfenced:
// cell_updates_per_second = cells * steps / wall_seconds. Per-kernel timers are taken (fenced)
// only when `profile` is set; they slow the run.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/kernel_profiler.hpp"
#include "mesh/mesh.hpp"
#include "solver/case_config.hpp"
#include "solver/diagnostics.hpp"
#include "solver/schedule.hpp"
#include "solver/solver.hpp"

namespace fvproxy {

struct Progress {
  long long step = 0, total_steps = 0;
  double time = 0, end_time = 0, dt = 0;
  double wall_seconds = 0, eta_seconds = 0, cell_updates_per_second = 0;
  std::vector<double> residuals; ///< the flow models' latest (RunSummary::residual_names)
  bool by_time = false;          ///< variable steps toward end_time: total_steps is an estimate
};

/// What a checkpoint records besides the state.
struct CheckpointInfo {
  double dt = 0;
  long long total_steps = 0;
  std::vector<double> conservation_initial;
  std::vector<double> residual_reference;
};

struct RunHooks {
  /// Called at most every `progress_interval` wall seconds during the loop (and not at all when
  /// empty).
  std::function<void(const Progress&)> progress;
  /// One-line messages at set-up (memory, time step, operators).
  std::function<void(const std::string&)> log;
  bool profile = false;
  /// Writes the cell fields (output.every, the final state, a flow's last good state); `u` holds the
  /// columns of output_field_layout; returns the file written.
  std::function<std::string(long long step, double time, ConstView2<real> u)> write_fields;
  /// Writes a checkpoint (checkpoint.every, run.wall_limit, a stop request); returns the file.
  std::function<std::string(long long step, double time, ConstView2<real> u, const CheckpointInfo&)> write_checkpoint;
  /// output.integrals: one row of the solver's integrals (Solver::integrals) at step 0 (not after a
  /// restart), at every interval and at the end.
  std::function<void(long long step, double time, const std::vector<std::string>& names,
                     const std::vector<double>& values)>
      write_integrals;
  /// Writes the mesh file, once, after the initial state passed its checks and before the first
  /// fields: a case refused for its initial state leaves nothing behind.
  std::function<void()> write_mesh;
  /// Polled every step: true when the run should checkpoint and stop (SIGTERM, SIGINT).
  std::function<bool()> stop_requested;
  /// Wall seconds spent before run_simulation (reading the case, building the mesh): counted
  /// against run.wall_limit.
  double seconds_before = 0;
};

struct RunSummary {
  std::string case_name;
  gid_t cells = 0; ///< over every rank
  int components = 0;
  long long steps = 0;
  double time = 0, dt = 0, wall_seconds = 0, setup_seconds = 0, cell_updates_per_second = 0;
  double io_seconds = 0;    ///< writing fields and checkpoints (inside wall_seconds, not in cell_updates_per_second)
  StableStep cfl;           ///< the CFL step at the start (dt = cfl.dt unless time.dt is given)
  bool variable_dt = false; ///< the variable schedule (see above)
  double dt_min = 0, dt_max = 0;            ///< the steps' range (variable schedule)
  long long retried_steps = 0;              ///< steps taken again with half the step (time.retries)
  std::vector<std::string> conserved_names; ///< one per conservation total (state column)
  std::size_t memory_bytes = 0;             ///< device bytes: mesh + solver
  std::size_t memory_available = 0;
  std::optional<std::vector<ErrorNorms>> errors; ///< when the case has an exact solution, per error_names
  std::vector<std::string> error_names;          ///< u0...; density, velocity, pressure
  std::string no_exact_solution;                 ///< why not, otherwise
  std::vector<double> conservation_initial, conservation_final;
  std::vector<KernelTime> timers; ///< only with profile
  std::vector<std::pair<std::string, std::string>> operators;
  std::optional<StateFailure> failure;    ///< set when the run stopped on a non-finite or out-of-bounds value
  Bounds bounds;                          ///< the max-principle monitor's intervals
  std::vector<real> final_min, final_max; ///< per component, over the cells at the end (completed runs)
  std::string stopped;                    ///< why the run stopped early ("" = it completed)
  long long total_steps = 0;              ///< the steps the case asks for
  long long first_step = 1;               ///< > 1 after a restart
  std::vector<std::string> fields_files, checkpoint_files; ///< written by this run
  std::vector<std::vector<real>> final_state;              ///< per component, in the mesh's storage order (if asked)
  std::string last_good_file; ///< a flow's failure: the fields file of the state before the failing step
  // The residual monitor (flow models): per residual_names, the first step's and the last step's.
  std::vector<std::string> residual_names;
  std::vector<double> residual_reference, residual_last;
  bool converged = false;        ///< stopped by time.residual_tolerance
  std::vector<WallForce> forces; ///< the flow models' wall forces at the end (completed runs)
};

/// Runs the case on `mesh` (built from cfg.mesh). Throws RunError when the state does not fit in
/// memory, InputError when the time settings make more than kMaxSteps steps; a failing value
/// (non-finite, out of bounds, non-physical) ends the run early with `failure` set.
/// On a decomposed mesh every rank calls it with its part, its `halo` and `comm`: the time step,
/// the stop, checkpoint and output decisions, the failure check and the diagnostics are collective
/// (the same on every rank); `final_state` holds this rank's owned cells. `boundary`: the boundary
/// section already resolved on `mesh` (`fvproxy run` resolves it before it writes anything); null:
/// resolved here, with the same refusals.
RunSummary run_simulation(const CaseConfig& cfg, const Mesh& mesh, const RunHooks& hooks, bool keep_final_state = false,
                          const RestartPoint* restart = nullptr, const Communicator& comm = Communicator::self(),
                          Halo* halo = nullptr, const BoundaryOnMesh* boundary = nullptr);

} // namespace fvproxy
