#pragma once
// The fused MUSCL kernel (operators.muscl.fused: true; docs/operators/muscl.md#fused): the optimized
// gradient gather and the limiter in one pass per cell. The neighbour values the gradient sums read
// give the limiter's extremes as they go by, and the gradient stays in registers for the limiter's
// face loop, so each cell reads its neighbours' u, its faces' connectivity and u_c once (the two
// passes read them twice) and never reads back the gradient it wrote. The same arithmetic, in the
// same order, as GradientGather followed by LimiterGather.
#include "operators/muscl/gradient_optimized.hpp"
#include "operators/muscl/limiter_optimized.hpp"

namespace fvproxy::optimized {

template <int N, GradientMethod M, class L> struct FusedMuscl {
  GradientGeometry g;
  ConstView2<real> u, ub;
  View2<real> grad, limiter;
  VenkatScale<N> scale; ///< Venkatakrishnan's threshold (limiter.hpp's venkat_scale)
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    real uc[N], acc[N][3];
    for (int k = 0; k < N; ++k) uc[k] = u(c, k);
    Extremes<N> e;
    e.reset();
    gather_sums<N, M>(g, Values{u, ub}, c, uc, acc, [&](int k, real v) { e.add(k, v - uc[k]); });
    real gr[N][3], phi[N];
    solve<N, M>(g, c, acc, gr);
    for (int k = 0; k < N; ++k)
      for (int i = 0; i < 3; ++i) grad(c, 3 * k + i) = gr[k][i];
    limit<N, L>(g, c, uc, gr, e, scale, phi);
    for (int k = 0; k < N; ++k) limiter(c, k) = phi[k];
  }
};

} // namespace fvproxy::optimized
