#pragma once
// The compressible flow solver (physics.model: euler | navier-stokes; docs/physics.md#running-a-flow)
// on one mesh: the state U = (rho, rho u, rho v, rho w, E) per cell, the case's boundary conditions
// (one FlowPatchBC per mesh patch), and the rate
//   L(U) = convection (flow_convection.hpp: a Riemann flux, MUSCL with the muscl operator's
//          gradients and limiter of U or of (rho, u, v, w, p))
//        + viscous terms (navier-stokes: flow_viscous.hpp, from the gradients of (u, v, w, T)
//          that the muscl operator's gradient computes, unlimited; with operators.muscl.fused in
//          the same cell pass as the MUSCL gradients: muscl_paired.hpp)
// advanced in Shu-Osher form, each stage's update fused with the next stage's zeroed rate and cell
// fields (flow_stage_update.hpp; the arithmetic of the scalar model's stage update). The time step
// changes with the flow: cfl / max_c lambda_c every step, with
//   lambda_c = 1/(2 V_c) sum_f (|u_c . S_f| + c_c |S_f|) + sum_f max(4/3, gamma/Pr) mu_c / rho_c |S_f|^2 / V_c^2
// (the spectral radius of the convective Jacobian, the standard form: (|u| + c) / h in 1-D and
// sum_i (|u_i| + c) / h_i on a hex; plus the viscous limit, 0 for euler; docs/physics.md#time-step-of-the-flow-models).
// After each checked step one pass looks for a density or pressure <= 0 or a non-finite value
// (first_failure); the state before the step is kept (last_good_output_fields).
#include <memory>
#include <string>
#include <vector>

#include "operators/face_pass/flow_face_pass.hpp"
#include "operators/flow/flow_convection.hpp"
#include "operators/flow/flow_muscl.hpp"
#include "operators/flow/flow_viscous.hpp"
#include "operators/muscl/muscl.hpp"
#include "operators/muscl/muscl_paired.hpp"
#include "operators/operator_geometry.hpp"
#include "solver/solver.hpp"

namespace fvproxy {

/// The largest angle (sin of it) between a no-slip wall's velocity and a face of its patch: a
/// moving wall slides along itself. Not zero: a constant velocity along a curved patch (a
/// cylinder's axis) meets faces whose normals carry the mesh's rounding.
constexpr double kWallVelocityTolerance = 0.0174524064372835; // sin(1 degree)

/// Collective, over each rank's part of `mesh`: every no-slip wall's velocity is tangent to each
/// face of its patch within kWallVelocityTolerance, and every subsonic inflow's direction enters
/// the domain through each face of its patch by at least as much (sin 1 degree along the inward
/// normal). Otherwise every rank throws the same InputError naming boundary.<patch>.velocity or
/// .direction where it was given, and the worst face.
void check_boundary_directions(const CaseConfig& cfg, const Mesh& mesh, const Communicator& comm);

class FlowSolver final : public Solver {
public:
  /// Builds the operators and allocates the state (`mesh`, `comm` and `halo` must outlive the solver).
  FlowSolver(const Mesh& mesh, const CaseConfig& cfg, const BoundaryOnMesh& boundary,
             const Communicator& comm = Communicator::self(), Halo* halo = nullptr);

  /// Device bytes the solver allocates besides the mesh (from the mesh's counts).
  static double memory_bytes(double cells, double faces, double interior_faces, const CaseConfig& cfg);
  /// Values one ghost cell receives per stage: the state (5), then the gradients (15) and limiter
  /// values (5) at second order, and the gradients of (u, v, w, T) (12) with viscosity.
  /// `layers`: the ghost layers of the decomposition (Halo::layers() once it is built; the case's
  /// parallel.halo.layers only for estimates made before it).
  static int halo_values_per_ghost(const CaseConfig& cfg, int layers);
  /// One condition per mesh patch, from its entry of the boundary section (`boundary`). Collective
  /// where a mass-flow inlet's area is summed over the ranks.
  static std::vector<FlowPatchBC> patch_conditions(const Mesh& mesh, const CaseConfig& cfg,
                                                   const BoundaryOnMesh& boundary, const Communicator& comm);

  void initialize() override;
  void step(real t, real dt, long long step, bool check) override;
  std::optional<StateFailure> first_failure() const override;
  /// Puts back the step's start state and marks the cells the step taken again computes at first
  /// order: where the failed step left a non-physical state and their face neighbours (with those of
  /// an earlier attempt of the same step; flow_first_order_neighbourhood). Collective.
  bool retry_step() override;
  long long retry_first_order_cells() const override { return first_order_cells_; }
  std::optional<StateFailure> state_failure() override;
  StableStep stable_step(double cfl) const override;
  bool variable_step() const override { return true; }
  View2<real> state() const override { return u_; }
  ConstView2<real> checkpoint_state() override;
  void restarted(const std::vector<std::vector<real>>& extra) override;
  ConstView2<real> output_fields() override;
  ConstView2<real> last_good_output_fields() override;
  std::vector<std::string> conserved_names() const override;
  std::vector<double> conserved_totals() const override;
  std::string no_exact_solution() const override { return no_exact_; }
  /// density, velocity (the norm of the error vector) and pressure against the exact solution.
  std::vector<FieldError> errors(double t) const override;
  const Bounds& bounds() const override { return no_bounds_; }
  std::vector<std::string> residual_names() const override { return {"density", "momentum", "total_energy"}; }
  std::vector<double> residuals(real dt) override;
  std::vector<std::string> integral_names() const override;
  std::vector<double> integrals() override;
  /// The forces on the slip and no-slip walls from the fluxes the solver applies at their faces
  /// (patch_fluxes): "pressure" the convective momentum flux (the wall pressure of a no-slip wall's
  /// own flux, the Riemann flux against the mirror state on a slip wall), "viscous" minus the viscous
  /// one (navier-stokes); the gradients and limiter values are computed for the current state first.
  std::vector<WallForce> wall_forces() override;
  std::vector<std::pair<std::string, std::string>> describe() const override;
  const Mesh& mesh() const override { return mesh_; }

  /// Records the first non-finite or non-physical cell of the state in check_ (keyed by `step`).
  void physical_check(long long step);

private:
  /// rhs = L(u) (ghost rows of u exchanged first on a decomposed mesh); u, rhs: u_ and rhs_ (with
  /// fields_current_ their owned cell fields and the zeroed rate are taken as the update left them).
  void rate(View2<real> u, View2<real> rhs);
  // The constructor's parts, in its order: the state arrays, the convection operator, then (after
  // the initial state) the second-order reconstruction and the viscous operator.
  void allocate_state();
  /// retry_step()'s marks: first_order_ from the failed state u_ (its owned rows), before it is put back.
  void mark_first_order();
  /// The non-reflecting faces' incoming characteristics (one row per boundary face, the first ghost
  /// layer's too), given to their patches' conditions; none without a non-reflecting patch.
  void allocate_incoming();
  /// Those invariants before their first use: the fixed conditions' (a fresh run) or the boundary
  /// cells' own (a restart), from the state with its ghost rows (collective).
  void start_incoming();
  FlowConvectionConfig convection_config() const;
  std::unique_ptr<FlowConvectionOperator> make_convection(bool det) const;
  void make_second_order(bool det, bool paired);
  void make_viscous(bool det, bool paired);
  /// The fields of output_field_layout from the state `u` into out_.
  ConstView2<real> derived(ConstView2<real> u);
  /// The gradients (and limiter values) the convection and viscous operators read: derive(), then
  /// gradients(), of every row.
  void reconstruct(View2<real> u);
  /// The fields the gradients are taken of (primitive state, boundary values, the viscous
  /// operator's W) in `rows`.
  void derive(View2<real> u, Rows rows);
  /// Rows of a boundary-value array: the boundary faces', then the vertex stencil's mirror images.
  index_t boundary_rows() const { return mesh_.n_boundary_rows() + geom_.stencil.n_images; }
  /// The gradients and limiter values of `part`'s cells (their derived fields and their
  /// neighbours' are there).
  void gradients(View2<real> u, Part part);
  /// rhs -= the convective, += the viscous fluxes of `part`: the face pass (operators.step: fused),
  /// or the convection then the viscous operator; `between` runs after the convection's launches
  /// (the face pass's), before the viscous operator's.
  void face_fluxes(View2<real> u, View2<real> rhs, Part part);
  template <class Between> void face_fluxes(View2<real> u, View2<real> rhs, Part part, Between&& between);

  const Mesh& mesh_;
  const CaseConfig& cfg_;
  Communicator comm_;
  Halo* halo_ = nullptr;
  std::vector<FlowPatchBC> patches_;
  OperatorGeometry geom_;    ///< walls and symmetry planes as mirror patches (their gradients' ghosts)
  View2<real> mirror_rules_; ///< the vertex stencil's mirror images' ghost rules (flow_mirror_rules)
  flow::IdealGas gas_;
  bool second_order_ = false, primitive_ = false, viscous_ = false;
  bool two_layers_ = false;         ///< two ghost layers: the first layer's gradients computed here, not exchanged
  bool limited_ = false;            ///< second order with a limiter (operators.muscl.limiter)
  bool positivity_checked_ = false; ///< the fused muscl pass checks positivity (no flow_positivity_limit)
  std::unique_ptr<MusclOperator> muscl_, viscous_gradient_; ///< null with paired_
  /// muscl.fused, navier-stokes, second order: the MUSCL and the viscous gradients in one cell pass
  std::unique_ptr<PairedMusclOperator> paired_;
  std::unique_ptr<FlowConvectionOperator> convection_; ///< null with face_pass_
  std::unique_ptr<FlowViscousOperator> viscosity_;     ///< null with face_pass_ (and for euler)
  /// operators.step: fused (navier-stokes): the convection and viscous operators in one (the interior
  /// faces in one pass, then each one's boundary kernels)
  std::unique_ptr<FlowFacePassOperator> face_pass_;
  std::vector<ShuOsherStage> stages_;
  View2<real> u_, un_, rhs_, ub_, grad_, lim_, w_, wb_, wv_, wvb_, gwv_, out_;
  View1<real> incoming_, incoming_n_, impedance_; ///< allocate_incoming's, their step-start copy, their z
  View1<int> slot_;                               ///< each non-reflecting face's slot in its cell's checkpoint columns
  View2<real> checkpoint_;                        ///< the state and the faces' slots (non-reflecting boundaries only)
  bool non_reflecting_ = false, incoming_ready_ = false, incoming_from_cells_ = false;
  /// The owned rows of w_ and wv_ are u_'s and rhs_ is zero: the fused stage update wrote them since
  /// u_ last changed otherwise (initialize, restarted and retry_step clear it, and integrals, which
  /// uses rhs_ as scratch; a caller that writes u_ through state() calls restarted()).
  bool fields_current_ = false;
  /// The cells (rows) the step taken again computes at first order (retry_step); empty in a step
  /// that is not taken again. retrying_: retry_step() ran since the last step().
  View1<index_t> first_order_;
  bool retrying_ = false;
  long long first_order_cells_ = 0; ///< first_order_'s owned cells over every rank
  double volume_ = 0;               ///< the domain's (every rank's owned cells)
  StateCheck check_;
  Bounds no_bounds_;
  std::string no_exact_;
};

} // namespace fvproxy
