#pragma once
// The optimized limiter's per-cell pieces (limiter.hpp for the mathematics), shared by the two-pass
// limiter kernel (limiter.cpp) and the fused gradient + limiter kernel (muscl_fused.hpp): the
// component count N and the limiter functor L are template parameters, every per-component value
// lives in registers, and the geometry is precomputed (OperatorGeometry's d and r).
#include "core/types.hpp"
#include "operators/muscl/gradient_optimized.hpp"
#include "physics/limiters.hpp"

namespace fvproxy::optimized {

/// dmax / dmin of one component: the largest increase / decrease v - u_c over the cell's neighbour
/// and boundary values v (0 when there is none), updated one value at a time.
template <int N> struct Extremes {
  real dmax[N], dmin[N];
  KOKKOS_INLINE_FUNCTION void reset() {
    for (int k = 0; k < N; ++k) dmax[k] = 0, dmin[k] = 0;
  }
  KOKKOS_INLINE_FUNCTION void add(int k, real dv) {
    dmax[k] = dv > dmax[k] ? dv : dmax[k];
    dmin[k] = dv < dmin[k] ? dv : dmin[k];
  }
};

/// The extremes of cell c from u and ub (the two-pass limiter: a second read of the neighbours).
template <int N> KOKKOS_INLINE_FUNCTION void extremes(const GradientGeometry& g, const ConstView2<real>& u,
                                                      const ConstView2<real>& ub, index_t c, const real (&uc)[N],
                                                      Extremes<N>& e) {
  e.reset();
  const index_t bb = g.cell_boundary_begin(c);
  for (index_t q = g.cell_face_off(c); q < bb; ++q) {
    const index_t f = g.cell_faces(q);
    const index_t o = g.sign(q) > 0 ? g.neighbour(f) : g.owner(f);
    for (int k = 0; k < N; ++k) e.add(k, u(o, k) - uc[k]);
  }
  for (index_t q = bb; q < g.cell_face_off(c + 1); ++q)
    for (int k = 0; k < N; ++k) e.add(k, ub(g.cell_faces(q) - g.n_interior, k) - uc[k]);
  stencil_entries<N>(g, Values{u, ub}, c, [&](const real(&)[3], const real(&v)[N]) {
    for (int k = 0; k < N; ++k) e.add(k, v[k] - uc[k]);
  });
}

/// Venkatakrishnan's eps^2 of cell c per component (VenkatScale: from the cell's value and its
/// extremes, already in registers); 0, and no arithmetic, for the limiters that take no eps.
template <int N, class L> KOKKOS_INLINE_FUNCTION void eps2(const VenkatScale<N>& scale, const real (&uc)[N],
                                                           const Extremes<N>& e, real (&e2)[N]) {
  if constexpr (L::uses_eps) {
    real hi[N], lo[N];
    for (int k = 0; k < N; ++k) hi[k] = uc[k] + e.dmax[k], lo[k] = uc[k] + e.dmin[k];
    scale.eps2(hi, lo, e2);
  } else {
    for (int k = 0; k < N; ++k) e2[k] = 0;
  }
}

/// One face of `limit`: phi = min(phi, L(gr . rc, dmax, dmin, eps2)) per component.
template <int N, class L> KOKKOS_INLINE_FUNCTION void
limit_face(const real (&gr)[N][3], const Extremes<N>& e, const real (&e2)[N], const real (&rc)[3], real (&phi)[N]) {
  for (int k = 0; k < N; ++k) {
    const real delta = gr[k][0] * rc[0] + gr[k][1] * rc[1] + gr[k][2] * rc[2];
    const real p = L{}(delta, e.dmax[k], e.dmin[k], e2[k]);
    phi[k] = p < phi[k] ? p : phi[k];
  }
}

/// phi of cell c per component: the minimum over its faces of L(delta, dmax, dmin, eps2) with
/// delta = gr . (x_f - x_c), x_f - x_c = r on the owner side and r - d on the neighbour side;
/// scale: Venkatakrishnan's local threshold (VenkatScale, physics/limiters.hpp).
template <int N, class L> KOKKOS_INLINE_FUNCTION void limit(const GradientGeometry& g, index_t c, const real (&uc)[N],
                                                            const real (&gr)[N][3], const Extremes<N>& e,
                                                            const VenkatScale<N>& scale, real (&phi)[N]) {
  real e2[N];
  eps2<N, L>(scale, uc, e, e2);
  for (int k = 0; k < N; ++k) phi[k] = 1;
  const index_t bb = g.cell_boundary_begin(c);
  for (index_t q = g.cell_face_off(c); q < bb; ++q) { // interior faces
    const index_t f = g.cell_faces(q);
    const real m = g.sign(q) > 0 ? real(0) : real(1);
    const real rc[3] = {g.r(f, 0) - m * g.d(f, 0), g.r(f, 1) - m * g.d(f, 1), g.r(f, 2) - m * g.d(f, 2)};
    limit_face<N, L>(gr, e, e2, rc, phi);
  }
  for (index_t q = bb; q < g.cell_face_off(c + 1); ++q) { // boundary faces (owned by c)
    const index_t f = g.cell_faces(q);
    const real rc[3] = {g.r(f, 0), g.r(f, 1), g.r(f, 2)};
    limit_face<N, L>(gr, e, e2, rc, phi);
  }
}

/// What the fused kernels (muscl_fused.hpp, muscl_paired.hpp) do with a cell's limiter values after
/// the limiter, while its value, gradient and limiter values are in registers: nothing, or a
/// model's bound, `void operator()(g, c, uc, gr, phi)` that may lower phi (the flow models'
/// positivity: operators/flow/flow_positivity.hpp).
struct NoBound {
  template <int N> KOKKOS_INLINE_FUNCTION void operator()(const GradientGeometry&, index_t, const real (&)[N],
                                                          const real (&)[N][3], real (&)[N]) const {}
};

/// The two-pass limiter: one cell per work item, reading u's neighbours again and the gradient the
/// gradient kernel wrote.
template <int N, class L> struct LimiterGather {
  GradientGeometry g;
  ConstView2<real> u, ub, grad;
  View2<real> limiter;
  VenkatScale<N> scale; ///< Venkatakrishnan's threshold (limiter.hpp's venkat_scale)
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    real uc[N], gr[N][3], phi[N];
    for (int k = 0; k < N; ++k) uc[k] = u(c, k);
    Extremes<N> e;
    extremes<N>(g, u, ub, c, uc, e);
    for (int k = 0; k < N; ++k)
      for (int i = 0; i < 3; ++i) gr[k][i] = grad(c, 3 * k + i);
    limit<N, L>(g, c, uc, gr, e, scale, phi);
    for (int k = 0; k < N; ++k) limiter(c, k) = phi[k];
  }
};

} // namespace fvproxy::optimized
