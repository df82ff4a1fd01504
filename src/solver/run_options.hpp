#pragma once
// The case file's `time`, `output`, `checkpoint` and `run` sections (docs/inputs.md#solver-sections):
// the time loop's schedule, what it writes and when, and how it watches the run. The case
// assembles the sections (solver/case_config.hpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "physics/physics_options.hpp"

namespace fvproxy {

enum class Integrator { euler, ssprk2, ssprk3 };
/// The integrator's stable CFL limit in fvproxy's definition of the CFL number (solver/time_step.hpp:
/// lambda dt <= 1 keeps a first-order forward Euler update a convex combination): the scheme's SSP
/// coefficient, 1 for all three. A larger time.cfl is warned about, more than twice it refused.
inline double cfl_limit(Integrator) {
  return 1.0;
}
/// time.cfl's default: 0.5 for the scalar model (its MUSCL halves the first-order bound in theory);
/// for the flow models, whose rate is the standard spectral radius (solver/flow_solver.hpp), the
/// largest CFL of 0.8, 0.9, 1.0 (1: the integrators' limit, above which a run warns) at which every
/// case of docs/physics.md#the-flow-defaults stays stable and positive with that integrator
/// (measured: perf/toro.py cfl).
inline double default_cfl(bool flow, Integrator i) {
  if (!flow) return 0.5;
  return i == Integrator::euler ? 0.8 : 1.0; // ssprk2, ssprk3: every case stable up to their limit, 1
}
/// The most steps a run may have (the non-finite and bound checks key the step in 28 bits).
inline constexpr long long kMaxSteps = (1LL << 28) - 1;
const char* to_string(Integrator i);
struct TimeConfig {
  Integrator integrator = Integrator::ssprk3;
  double cfl = 0.5;               ///< used when dt is not given (default_cfl when not given)
  std::optional<double> dt;       ///< fixed time step
  std::optional<double> end_time; ///< exactly one of end_time | steps
  std::optional<long long> steps;
  /// Flow models: stop once every field's residual (docs/physics.md#residuals) is below this.
  std::optional<double> residual_tolerance;
  /// Flow models with a CFL step: a step whose result fails the state check (a non-positive density
  /// or pressure, a non-finite value) is taken again from its start with half the step, at most this
  /// many times, before the run stops (docs/inputs.md#parallel-time-output-checkpoint-run). 0: stop at the first
  /// failure.
  int retries = 3;
};

/// When something happens during a run: every N steps, every T of simulated time, or (checkpoints)
/// every S wall-clock seconds.
struct EveryConfig {
  enum class Kind { none, steps, time, wall_seconds } kind = Kind::none;
  double value = 0; ///< N (steps), T or S
};

/// The cell field `output.fields` may add to the components: the MPI rank that owns each cell
/// (the partition, for ParaView; 0 on one rank).
inline constexpr const char* kRankField = "rank";

struct OutputConfig {
  EveryConfig every;               ///< none: the final state only
  EveryConfig integrals;           ///< flow models: integrals.csv rows (kinetic energy, ...); none: off
  std::vector<std::string> fields; ///< empty: every component (u0, u1, ...); may list kRankField
};

struct CheckpointConfig {
  EveryConfig every; ///< none: only at run.wall_limit, SIGTERM or SIGINT
  int keep = 2;      ///< the newest `keep` checkpoints are kept, older ones removed
};

struct RunConfig {
  double progress_interval = 2.0;
  std::optional<double> wall_limit;
  bool profile = false;
  bool deterministic = false;
  /// Max-principle monitor: the run stops (exit 1) when a value leaves [lo - t (hi - lo),
  /// hi + t (hi - lo)], [lo, hi] the range of the initial field and the boundary values; empty = off.
  std::optional<double> bound_tolerance = 1.0;
};

namespace detail {
class Reader;
}

/// `time` of the case root (required); `flow`: the flow models' defaults and options.
TimeConfig read_time_options(const detail::Reader& r, const YAML::Node& root, bool flow);
/// `run` of the case root (read first: run.deterministic changes what the operators may say).
RunConfig read_run_options(const detail::Reader& r, const YAML::Node& root);
/// `output` of the case root: the folder (default out/<case>), when and which fields.
void read_output_options(const detail::Reader& r, const YAML::Node& root, const PhysicsConfig& physics,
                         std::string& dir, OutputConfig& output);
/// `checkpoint` of the case root.
CheckpointConfig read_checkpoint_options(const detail::Reader& r, const YAML::Node& root);
/// The sections as resolved, added to `n`.
void add_run_options_yaml(const TimeConfig& time, const std::string& output_dir, const OutputConfig& output,
                          const CheckpointConfig& checkpoint, const RunConfig& run, bool flow, YAML::Node& n);

} // namespace fvproxy
