#pragma once
// The scalar transport as a convection model (convection_kernels.hpp's contract): the optimized
// convection operator (convection.cpp) and the fused face pass (face_pass/face_pass.cpp) share it.
#include <vector>

#include "operators/boundary_patches.hpp"
#include "operators/convection/convection_kernels.hpp"
#include "operators/launch.hpp"
#include "operators/part.hpp"
#include "physics/fluxes.hpp"

namespace fvproxy {

/// N components carried by the steady face volume flux phi_f, each with the upwind flux
/// (physics/fluxes.hpp), MUSCL on the components themselves. A separable model: the kernels
/// reconstruct and flux one component after another.
template <int N> struct ScalarUpwind {
  static constexpr int n_vars = N;
  static constexpr bool separable = true;
  using Face = real; ///< phi_f
  ConstView1<real> phi;
  KOKKOS_INLINE_FUNCTION Face face(index_t f) const { return phi(f); }
  template <Reconstruction R> KOKKOS_INLINE_FUNCTION real value(const ConstView2<real>& u, const ConstView2<real>& grad,
                                                                const ConstView2<real>& lim, index_t c, int k,
                                                                const real (&rc)[3]) const {
    static_assert(R != Reconstruction::primitive, "the scalar model has no primitive variables");
    if constexpr (R == Reconstruction::first_order) {
      (void)grad, (void)lim, (void)rc;
      return u(c, k);
    } else {
      return u(c, k) + lim(c, k) * (grad(c, 3 * k) * rc[0] + grad(c, 3 * k + 1) * rc[1] + grad(c, 3 * k + 2) * rc[2]);
    }
  }
  KOKKOS_INLINE_FUNCTION real flux(const Face& p, real l, real r) const { return UpwindFlux{}(p, l, r); }
};

/// Dirichlet and inflow patches: u_R = u_b, the boundary values of the face.
struct ScalarBoundaryValue {
  ConstView2<real> ub;
  index_t n_interior;
  KOKKOS_INLINE_FUNCTION real value(index_t f, int k, real) const { return ub(f - n_interior, k); }
};

/// Outflow patches: u_R = u_L (the state leaves as it is).
struct ScalarOutflow {
  KOKKOS_INLINE_FUNCTION real value(index_t, int, real l) const { return l; }
};

/// rhs -= the convective fluxes of the boundary faces of `part`: each patch's runs of the part's
/// cells (gather, after their interior faces) or its faces (atomic scatter, with the inner part).
template <int N, Reconstruction R>
void scalar_convection_patches(const ScalarUpwind<N>& model, const ConvectionGeometry& g,
                               const std::vector<PatchRuns>& patches, index_t n_interior, const LaunchOptions& opt,
                               bool gather, ConstView2<real> u, ConstView2<real> ub, ConstView2<real> grad,
                               ConstView2<real> lim, View2<real> rhs, Part part) {
  using Model = ScalarUpwind<N>;
  const ScalarBoundaryValue value{ub, n_interior};
  if (gather) {
    for (const auto& p : patches) { // the runs of the part's own cells, after their interior faces
      const IndexRange nr = p.runs_of(part);
      if (p.type == BoundaryType::outflow)
        launch("fvproxy::convection::gather_outflow", nr, opt,
               ConvectionGatherPatch<Model, R, ScalarOutflow>{model, {}, g, u, grad, lim, rhs, p.runs});
      else
        launch("fvproxy::convection::gather_inflow", nr, opt,
               ConvectionGatherPatch<Model, R, ScalarBoundaryValue>{model, value, g, u, grad, lim, rhs, p.runs});
    }
    return;
  }
  // Boundary faces belong to owned cells: their scatter kernels run with the inner part (or all).
  if (!PartRanges::has_boundary(part)) return;
  for (const auto& p : patches) {
    const Kokkos::RangePolicy<ExecSpace> range(p.begin, p.end);
    if (p.type == BoundaryType::outflow)
      Kokkos::parallel_for("fvproxy::convection::scatter_outflow", range,
                           ConvectionScatterPatch<Model, R, ScalarOutflow>{model, {}, g, u, grad, lim, rhs});
    else
      Kokkos::parallel_for("fvproxy::convection::scatter_inflow", range,
                           ConvectionScatterPatch<Model, R, ScalarBoundaryValue>{model, value, g, u, grad, lim, rhs});
  }
}

} // namespace fvproxy
