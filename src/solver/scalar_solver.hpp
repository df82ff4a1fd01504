#pragma once
// The scalar transport solver on one mesh: the case's operators (muscl gradients and limiter,
// convection, diffusion, each in the variant the case picks), its boundary conditions, and the
// explicit time step in Shu-Osher form (time_step.hpp).
//
// The rate L(u, t) = convection + diffusion is assembled per stage as
//   boundary values ub(t) -> rhs = 0 -> gradients (when convection is second order or anything
//   diffuses) -> limiter (second order with a limiter) -> convection (non-zero velocity) ->
//   diffusion (non-zero diffusivity)
// Operators are skipped when the case makes them vanish; the limiter of `limiter: none` is 1,
// filled once.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "operators/convection/convection.hpp"
#include "operators/diffusion/diffusion.hpp"
#include "operators/face_pass/face_pass.hpp"
#include "operators/muscl/limiter.hpp"
#include "operators/muscl/muscl.hpp"
#include "operators/operator_geometry.hpp"
#include "parallel/communicator.hpp"
#include "parallel/halo.hpp"
#include "physics/scalar_profile.hpp"
#include "solver/boundary_conditions.hpp"
#include "solver/case_config.hpp"
#include "solver/solver.hpp"
#include "solver/time_step.hpp"

namespace fvproxy {

class ScalarSolver final : public Solver {
public:
  /// Builds the operators and allocates the state (`mesh` must outlive the solver). On a
  /// decomposed mesh (mesh.n_ghosts > 0) `halo` fills the ghost rows before each use (the state
  /// before the gradients, the gradients and limiter values before convection and diffusion) and
  /// every set-up quantity that spans the domain (the data's range) is reduced over `comm`; both
  /// must outlive the solver.
  ScalarSolver(const Mesh& mesh, const CaseConfig& cfg, const BoundaryOnMesh& boundary,
               const Communicator& comm = Communicator::self(), Halo* halo = nullptr);

  /// Device bytes the solver allocates besides the mesh (operator geometry, face fluxes, state and
  /// work arrays), computed before allocating anything.
  static std::size_t memory_bytes(const Mesh& mesh, const CaseConfig& cfg);
  /// The same from the mesh's counts alone (before the mesh exists; doubles: no overflow).
  static double memory_bytes(double cells, double faces, double interior_faces, const CaseConfig& cfg);

  /// Values one ghost cell receives per Runge-Kutta stage (docs/halo.md#halo-exchange): the
  /// state (N components), then its gradient (3N) when convection is second order or diffusion on,
  /// and its limiter values (N) when convection is second order.
  /// `layers`: the ghost layers of the decomposition (Halo::layers() once it is built; the case's
  /// parallel.halo.layers only for estimates made before it).
  static int halo_values_per_ghost(const CaseConfig& cfg, int layers);
  /// Whether a stage reads its neighbours' gradients (second-order convection or diffusion): with
  /// one ghost layer they are a second exchange per stage (docs/halo.md#two-ghost-layers).
  static bool reads_gradients(const CaseConfig& cfg);

  /// u = the initial condition (the case's profiles at the cell centroids).
  void initialize() override;
  /// rhs = L(u, t): boundary values, then the operators (every one adds to rhs). On a decomposed
  /// mesh the ghost rows of u must hold their owners' values (step() exchanges them first).
  void rate(ConstView2<real> u, real t, View2<real> rhs);
  /// Advances the state from t to t + dt (all stages). `step` (1-based) is recorded with the first
  /// non-finite value when `check`. On a decomposed mesh each stage exchanges the state, then the
  /// gradients and limiter values (one message per neighbour each); with the optimized halo the
  /// inner cells are computed while the messages fly (docs/halo.md#overlap).
  void step(real t, real dt, long long step, bool check) override;
  /// The first non-finite or out-of-bounds value recorded by step() (copies two words from the
  /// device); the earlier one, non-finite on a tie. Collective: the same answer on every rank.
  std::optional<StateFailure> first_failure() const override;
  const Bounds& bounds() const override { return bounds_; }

  /// The CFL time step of the case's velocity and diffusivities (collective: the domain's).
  StableStep stable_step(double cfl) const override;

  View2<real> state() const override { return u_; }
  const ScalarSolution& solution() const { return solution_; }
  const Mesh& mesh() const override { return mesh_; }
  int components() const { return n_; }
  int stages() const { return static_cast<int>(stages_.size()); }
  /// What runs, per operator ("gradient least-squares optimized/gather/range", ...; "off" when
  /// the case makes an operator vanish).
  std::vector<std::pair<std::string, std::string>> describe() const override;

  std::vector<std::string> conserved_names() const override;
  std::vector<double> conserved_totals() const override;
  std::string no_exact_solution() const override { return no_exact_; }
  /// u0, u1, ... against the case's profile (ScalarSolution) at t.
  std::vector<FieldError> errors(double t) const override;
  std::pair<std::vector<real>, std::vector<real>> final_range() const override;

private:
  /// The arrays the face reconstructions read across faces, exchanged after the gradients.
  std::vector<View2<real>> reconstruction_arrays() const;
  /// rhs_ = L(u_, t) with the halo exchanges of u_, then of the gradients and limiter values,
  /// overlapped with the inner part of the operators.
  void overlapped_rate(real t);
  /// rhs = 0 before the operators add to it: a fill, unless rhs is rhs_ and the last stage update
  /// zeroed it as it read it (then nothing: the update's pass did it).
  void zero_rate(View2<real> rhs);
  /// The convective and diffusive fluxes of `part` into rhs: the fused face pass, or each operator.
  void face_fluxes(ConstView2<real> u, View2<real> rhs, Part part) const;

  const Mesh& mesh_;
  Communicator comm_;
  Halo* halo_ = nullptr;
  int n_;
  OperatorGeometry geom_;
  View1<real> phi_;
  ScalarSolution solution_;
  BoundaryConditions bc_;
  std::unique_ptr<MusclOperator> muscl_; ///< gradients, and the limiter unless `limiter: none`
  std::unique_ptr<ConvectionOperator> convection_;
  std::unique_ptr<DiffusionOperator> diffusion_;
  /// operators.step: fused with both convection and diffusion: their interior faces in one pass
  std::unique_ptr<FacePassOperator> face_pass_;
  std::vector<ShuOsherStage> stages_;
  double kappa_max_ = 0;
  bool two_layers_ = false; ///< two ghost layers: the first layer's gradients computed here, not exchanged
  View2<real> u_, un_, rhs_, ub_, grad_, lim_;
  bool rate_zeroed_ = false; ///< rhs_ is zero: the last stage update zeroed it (no fill needed)
  Bounds bounds_;
  StateCheck check_;
  std::string no_exact_;
};

} // namespace fvproxy
