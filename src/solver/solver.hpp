#pragma once
// What the time loop (simulation.hpp) asks of a model's solver: the scalar transport solver
// (scalar_solver.hpp) and the compressible flow solver (flow_solver.hpp) both answer it. A solver
// owns its state, operators and boundary conditions on one mesh (a rank's part of it), advances
// the state by one explicit step, gives its stable time step, its failures and its diagnostics;
// the loop owns the schedule, the output, checkpoints and stops.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "parallel/communicator.hpp"
#include "parallel/halo.hpp"
#include "solver/case_config.hpp"
#include "solver/diagnostics.hpp"
#include "solver/time_step.hpp"

namespace fvproxy {

/// A value of the state that ends the run, where and when it first appeared.
///   non_finite     a NaN or infinity (any model);
///   out_of_bounds  the scalar model's max-principle monitor: outside [admissible[0], admissible[1]]
///                  (run.bound_tolerance);
///   non_physical   the flow models: a density or pressure <= 0.
struct StateFailure {
  enum class Kind { non_finite, out_of_bounds, non_physical, out_of_range } kind = Kind::non_finite;
  long long step = -1; ///< the step whose result it is (1-based)
  int component = 0;   ///< the state column (non_physical: 0 density, 4 pressure; out_of_range: FlowSolver's codes)
  gid_t cell_gid = -1;
  double x[3] = {0, 0, 0};       ///< the cell centroid
  double admissible[2] = {0, 0}; ///< out_of_bounds: the interval it left
  std::vector<double> state;     ///< the cell's state (all columns) after the failing step
};

/// The max-principle monitor's intervals (scalar model): [lo, hi] per component is the range of the
/// initial field and the boundary values at t = 0; admissible is that interval widened by
/// run.bound_tolerance times its width on each side (+-inf when off).
struct Bounds {
  std::vector<real> lo, hi, admissible_lo, admissible_hi;
};

/// The force the flow exerts on one wall patch: sum over its faces of p n A (pressure) and
/// -tau n A (viscous), n the face's unit normal out of the fluid.
struct WallForce {
  std::string patch;
  double pressure[3] = {0, 0, 0}, viscous[3] = {0, 0, 0};
  double total(int i) const { return pressure[i] + viscous[i]; }
};

/// Error norms of one field against the exact solution (vectors: of the error's Euclidean norm).
struct FieldError {
  std::string field;
  ErrorNorms norms;
};

class Solver {
public:
  virtual ~Solver() = default;

  /// u = the initial condition.
  virtual void initialize() = 0;
  /// Advances the state from t to t + dt (all stages); `step` (1-based) is recorded with the first
  /// failing value when `check`.
  virtual void step(real t, real dt, long long step, bool check) = 0;
  /// The first failing value recorded by step(). Collective: the same answer on every rank.
  virtual std::optional<StateFailure> first_failure() const = 0;
  /// Puts back the state the last step() started from (and what it advanced with it) and clears the
  /// recorded failure, so that the step can be taken again with a smaller dt (time.retries; the flow
  /// models also at first order where it failed). False when the solver keeps no such state.
  virtual bool retry_step() { return false; }
  /// The cells (over every rank) the step taken again computes at first order, after retry_step().
  virtual long long retry_first_order_cells() const { return 0; }
  /// The current state checked as step() checks its result (the flow models: non-finite values,
  /// density or pressure <= 0), before the first step: the failure at "step 0". Collective. The
  /// scalar model's initial field defines its bounds and is finite by its parser: none.
  virtual std::optional<StateFailure> state_failure() { return std::nullopt; }
  /// The CFL step of the current state (collective: the domain's).
  virtual StableStep stable_step(double cfl) const = 0;
  /// Whether the stable step changes with the state (then the loop asks for it every step).
  virtual bool variable_step() const { return false; }

  /// The state (rows: owned then ghost cells; columns: checkpoint_field_layout's). A caller that
  /// writes it calls restarted() after (the flow solver keeps fields derived from it between steps).
  virtual View2<real> state() const = 0;
  /// The array a checkpoint holds (rows: owned cells first; columns: checkpoint_field_layout's):
  /// the state, and the flow solver's non-reflecting faces' slots after it.
  virtual ConstView2<real> checkpoint_state() { return state(); }
  /// The state was replaced by a checkpoint's (after initialize()); `extra`: the checkpoint's columns
  /// beyond the state's, per column over the owned cells (the non-reflecting faces' slots; empty when
  /// the checkpoint has none: the solver takes that state from the cells).
  virtual void restarted(const std::vector<std::vector<real>>& /*extra*/) {}
  /// The columns of output_field_layout for the state (the state itself for the scalar model).
  virtual ConstView2<real> output_fields() { return state(); }
  /// After a failure, the output fields of the last good state (the state before the failing
  /// step; empty when the solver does not keep it).
  virtual ConstView2<real> last_good_output_fields() { return {}; }

  /// The name of each state column in the conservation totals (u0...; density, momentum[0], ...).
  virtual std::vector<std::string> conserved_names() const = 0;
  /// sum_c u(c, k) V_c per column over every rank (bitwise the same on any partition).
  virtual std::vector<double> conserved_totals() const = 0;
  /// Empty when the case has an exact solution (errors() then gives its norms), else why not.
  virtual std::string no_exact_solution() const = 0;
  /// Volume-weighted error norms per field at time t (collective).
  virtual std::vector<FieldError> errors(double t) const = 0;
  /// The scalar model's max-principle intervals (empty for the flow models).
  virtual const Bounds& bounds() const = 0;
  /// min and max per state column over the owned cells at the end (collective; the scalar model).
  virtual std::pair<std::vector<real>, std::vector<real>> final_range() const { return {}; }

  /// The residual fields' names (flow models: density, momentum, total_energy; empty: no monitor).
  virtual std::vector<std::string> residual_names() const { return {}; }
  /// The RMS (volume-weighted) of (u^{n+1} - u^n) / dt per residual field over the last step
  /// (collective); a vector field's is the norm of its components'.
  virtual std::vector<double> residuals(real /*dt*/) { return {}; }

  /// What the flow models write to integrals.csv (output.integrals): kinetic_energy =
  /// sum_c (|m|^2 / 2 rho) V / sum_c V, then each wall patch's total force (PATCH_fx, _fy, _fz)
  /// (collective; empty names: none).
  virtual std::vector<std::string> integral_names() const { return {}; }
  virtual std::vector<double> integrals() { return {}; }
  /// The force on each wall patch (slip and no-slip walls) for the current state (collective).
  virtual std::vector<WallForce> wall_forces() { return {}; }

  /// What runs, per operator.
  virtual std::vector<std::pair<std::string, std::string>> describe() const = 0;
  virtual const Mesh& mesh() const = 0;
};

/// The case's solver (physics.model), on the boundary section resolved on `mesh`.
std::unique_ptr<Solver> make_solver(const Mesh& mesh, const CaseConfig& cfg, const BoundaryOnMesh& boundary,
                                    const Communicator& comm, Halo* halo);
/// resolve_boundary on the mesh's patches (its refusals: solver/case_config.hpp).
BoundaryOnMesh resolve_boundary(const CaseConfig& cfg, const Mesh& mesh);
/// Device bytes the case's solver allocates besides the mesh.
double solver_memory_bytes(double cells, double faces, double interior_faces, const CaseConfig& cfg);

/// A rank's stable step made the domain's: the largest max_rate over the ranks and its cell (on a
/// tie the lowest global id); dt is left to the caller. Collective; nothing on one rank.
void reduce_over_ranks(StableStep& s, const Communicator& comm);

/// The first failure recorded in `keys` (StateCheck's layout) on any rank, with the cell's global
/// id, centroid and state row (read on the rank holding it). Collective.
std::optional<StateFailure> locate_failure(const Mesh& mesh, const Communicator& comm,
                                           const Kokkos::View<unsigned long long[2], MemSpace>& keys,
                                           ConstView2<real> u, StateFailure::Kind second_kind);

} // namespace fvproxy
