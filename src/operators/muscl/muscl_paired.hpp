#pragma once
// One cell pass for two gradient sets (docs/operators/muscl.md#paired): the navier-stokes step's
// MUSCL gradients and limiter of its N1 reconstructed variables and the unlimited gradients of the
// viscous fluxes' N2 variables (u, v, w, T) in one gather per cell. The two sets share the stencil:
// each face's connectivity and geometry, the cell's least-squares or Green-Gauss matrix and the
// launch are read once instead of once per set. Each component's sums are the same arithmetic, in
// the same order, as FusedMuscl (or GradientGather) on its own set: the same bits.
#include <string>
#include <type_traits>

#include "core/types.hpp"
#include "operators/muscl/gradient_optimized.hpp"
#include "operators/muscl/limiter_optimized.hpp"
#include "operators/operator_options.hpp"
#include "operators/part.hpp"

namespace fvproxy {

namespace optimized {

/// The flow models' cell rows with the velocity shared: (rho, u, v, w, p) of the first set and T, the
/// last of the second set's (u, v, w, T), whose velocity is the first set's (both derived from the
/// conserved state by the same flow::to_primitive).
struct SharedVelocityValues {
  ConstView2<real> u1, u2;
  KOKKOS_INLINE_FUNCTION real cell(index_t c, int k) const { return k < 5 ? u1(c, k) : u2(c, 3); }
};

/// The two sets' gradients (grad1: N1 x 3, grad2: N2 x 3) and the first set's limiter values, one
/// cell per work item. L: the limiter functor, or void (unlimited: no extremes, no limiter write).
/// SharedVelocity (the flow models with MUSCL on (rho, u, p): N1 = 5, N2 = 4): the second set's
/// velocity in the cell rows is the first set's, so the interior faces are summed over the 6 distinct
/// values and their sums copied to both sets before each set's own boundary values are added (the
/// same terms in the same order as apart).
/// B: the bound on the first set's limiter values (NoBound, or the flow models' positivity).
template <int N1, int N2, GradientMethod M, class L, bool SharedVelocity = false, class B = NoBound>
struct PairedMuscl {
  static constexpr int N = N1 + N2;
  /// With the shared velocity (the flow defaults' instantiations), at most 128 registers under the
  /// range policy (two blocks of 256 threads per SM): the corners stencil's pre-pass rows
  /// (stencil_sums) took the default one from 128 to 136 registers (docs/operators/muscl.md#paired).
  /// The others would spill under that cap (ptxas), so they keep the compiler's choice.
  using launch_bounds = std::conditional_t<SharedVelocity, Kokkos::LaunchBounds<256, 2>, Kokkos::LaunchBounds<>>;
  static_assert(!SharedVelocity || (N1 == 5 && N2 == 4), "a shared velocity is the flow models' layout");
  GradientGeometry g;
  PairedValues<N1> v;
  View2<real> grad1, limiter, grad2;
  VenkatScale<N1> scale; ///< Venkatakrishnan's threshold of the first set (limiter.hpp's venkat_scale)
  B bound{};
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    real uc[N], acc[N][3];
    Extremes<N1> e;
    e.reset();
    const auto extremes = [&](int k, real x) {
      if constexpr (!std::is_void_v<L>)
        if (k < N1) e.add(k, x - uc[k]);
    };
    if constexpr (SharedVelocity) {
      const SharedVelocityValues cells{v.u1, v.u2};
      real u6[6], a6[6][3];
      for (int k = 0; k < 6; ++k) u6[k] = cells.cell(c, k), a6[k][0] = a6[k][1] = a6[k][2] = 0;
      for (int k = 0; k < N1; ++k) uc[k] = u6[k];
      for (int k = 0; k < 3; ++k) uc[N1 + k] = u6[1 + k];
      uc[N - 1] = u6[5];
      interior_sums<6, M>(g, cells, c, u6, a6, extremes); // extremes reads uc: the same first N1 values
      for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < N1; ++k) acc[k][i] = a6[k][i];
        for (int k = 0; k < 3; ++k) acc[N1 + k][i] = a6[1 + k][i];
        acc[N - 1][i] = a6[5][i];
      }
      boundary_sums<N, M>(g, v, c, uc, acc, extremes);
      if constexpr (M == GradientMethod::least_squares) stencil_sums<N>(g, v, c, uc, acc, extremes);
    } else {
      for (int k = 0; k < N; ++k) uc[k] = v.cell(c, k);
      gather_sums<N, M>(g, v, c, uc, acc, extremes);
    }
    real gr[N][3];
    solve<N, M>(g, c, acc, gr);
    for (int k = 0; k < N1; ++k)
      for (int i = 0; i < 3; ++i) grad1(c, 3 * k + i) = gr[k][i];
    for (int k = 0; k < N2; ++k)
      for (int i = 0; i < 3; ++i) grad2(c, 3 * k + i) = gr[N1 + k][i];
    if constexpr (!std::is_void_v<L>) {
      real u1[N1], g1[N1][3], phi[N1];
      for (int k = 0; k < N1; ++k) {
        u1[k] = uc[k];
        for (int i = 0; i < 3; ++i) g1[k][i] = gr[k][i];
      }
      limit<N1, L>(g, c, u1, g1, e, scale, phi);
      bound(g, c, u1, g1, phi);
      for (int k = 0; k < N1; ++k) limiter(c, k) = phi[k];
    }
  }
};

} // namespace optimized

/// The navier-stokes cell pass: MUSCL's gradients (and limiter values) of u1 and the viscous
/// gradients of u2 in one launch per part.
class PairedMusclOperator {
public:
  virtual ~PairedMusclOperator() = default;
  /// grad1 and, if limits(), limiter of the cells of `part` from (u1, ub1); grad2 from (u2, ub2).
  virtual void compute(ConstView2<real> u1, ConstView2<real> ub1, ConstView2<real> u2, ConstView2<real> ub2,
                       View2<real> grad1, View2<real> limiter, View2<real> grad2, Part part) const = 0;
  virtual bool limits() const = 0;
  /// What runs, for reports.
  virtual std::string description() const = 0;
};

} // namespace fvproxy
