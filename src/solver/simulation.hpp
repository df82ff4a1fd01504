#pragma once
// The time loop of `fvproxy run`: steps the scalar solver from t = 0 to time.end_time or for
// time.steps steps, reports progress through a callback, watches for non-finite values, and
// gathers what the end-of-run summary needs (summary.json: INTERFACE.md).
//
// Time steps: with time.dt the step is fixed; otherwise dt = CFL step (time_step.hpp). Toward an
// end_time, the run takes n = ceil(T / dt) equal steps of T / n (never larger than the stable step,
// and the last one lands on T exactly). Simulated time after step n is n * dt (no accumulated
// round-off).
//
// Timing: wall_seconds covers the time loop only (after set-up, ending with one fence), unfenced:
// cell_updates_per_second = cells * steps / wall_seconds. Per-kernel timers are taken (fenced)
// only when `profile` is set; they slow the run.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/kernel_profiler.hpp"
#include "mesh/mesh.hpp"
#include "solver/diagnostics.hpp"
#include "solver/scalar_solver.hpp"

namespace fvproxy {

struct Progress {
  long long step = 0, total_steps = 0;
  double time = 0, end_time = 0, dt = 0;
  double wall_seconds = 0, eta_seconds = 0, cell_updates_per_second = 0;
};

struct RunHooks {
  /// Called at most every `progress_interval` wall seconds during the loop (and not at all when
  /// empty).
  std::function<void(const Progress&)> progress;
  /// One-line messages at set-up (memory, time step, operators).
  std::function<void(const std::string&)> log;
  bool profile = false;
};

struct RunSummary {
  std::string case_name;
  index_t cells = 0;
  int components = 0;
  long long steps = 0;
  double time = 0, dt = 0, wall_seconds = 0, setup_seconds = 0, cell_updates_per_second = 0;
  StableStep cfl;               ///< the CFL step (dt = cfl.dt unless time.dt is given)
  std::size_t memory_bytes = 0; ///< device bytes: mesh + solver
  std::size_t memory_available = 0;
  std::optional<std::vector<ErrorNorms>> errors; ///< when the case has an exact solution
  std::string no_exact_solution;                 ///< why not, otherwise
  std::vector<double> conservation_initial, conservation_final;
  std::vector<KernelTime> timers; ///< only with profile
  std::vector<std::pair<std::string, std::string>> operators;
  std::optional<NonFinite> non_finite;        ///< set when the run stopped on a non-finite value
  std::vector<std::vector<real>> final_state; ///< per component, in the mesh's storage order (if asked)
};

/// Runs the case on `mesh` (built from cfg.mesh). Throws RunError when the state does not fit in
/// memory; a non-finite state ends the run early with `non_finite` set.
RunSummary run_simulation(const CaseConfig& cfg, const Mesh& mesh, const RunHooks& hooks,
                          bool keep_final_state = false);

} // namespace fvproxy
