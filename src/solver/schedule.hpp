#pragma once
// The time loop's schedule (docs/physics.md describes the rules; simulation.hpp summarises them):
// how many steps of which size, where a restart continues, and when output and checkpoints fall.
//
// Fixed schedule (the scalar model, or time.dt): simulated time after step s is
// base_time + dt (s - base_step), never accumulated. Variable schedule (the flow models with
// time.cfl): each step is the current stable step, shortened to land exactly on time.end_time and
// on every output and checkpoint time (span_end).
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "solver/run_options.hpp"

namespace fvproxy {

/// Where a restarted run continues from (read from a checkpoint, state in the mesh's storage order).
struct RestartPoint {
  std::string file;
  long long step = 0;
  double time = 0, dt = 0;
  long long total_steps = 0;
  std::vector<std::vector<real>> state; ///< per column: the components, then any non-reflecting faces' slots
  std::vector<double> conservation_initial;
  std::vector<double> residual_reference; ///< the flow models' first-step residuals (may be empty)
};

struct Schedule {
  bool variable = false;     ///< the variable schedule (the step follows the flow)
  double dt = 0;             ///< the fixed step (variable: the first stable step)
  long long total_steps = 0; ///< the last step (variable: time.steps, or 0 toward an end time)
  long long first_step = 1;  ///< > 1 after a restart
  long long base_step = 0;   ///< fixed schedule: time_at(s) = base_time + dt (s - base_step)
  double base_time = 0;

  double time_at(long long s) const { return base_time + dt * double(s - base_step); }
};

/// The schedule of `time` from the step `dt` (time.dt, or the stable step at the start: `cfl_dt`,
/// already reduced over ranks) and an optional restart. Throws InputError naming the key (in
/// `source_file`, or the checkpoint) when the steps exceed kMaxSteps or nothing is left to run.
/// `log` receives the restart's notice.
Schedule make_schedule(const TimeConfig& time, bool variable, double dt, double cfl_dt, const RestartPoint* restart,
                       const std::string& source_file, const std::function<void(const std::string&)>& log);

/// Whether the step `s` from t0 to t1 ends an interval of `e` (steps or simulated time).
bool crosses(const EveryConfig& e, long long s, double t0, double t1);

/// Variable schedule: the end of the step from t0 given the stable step `stable_dt`, landing
/// exactly on every time-kind interval of `every` and on `end_time`: a target within one stable
/// step is reached by this step, one within two by two equal steps (no sliver step). Sets
/// `reaches_end` when the step ends at end_time.
double span_end(double t0, double stable_dt, std::initializer_list<const EveryConfig*> every,
                const std::optional<double>& end_time, bool& reaches_end);

} // namespace fvproxy
