#pragma once
// The optimized gradient: the same mathematics as the naive port with its mistakes removed
// (docs/operators/muscl.md): the component count N and the method are template parameters (no
// run-time branch, no local-memory arrays: accumulators are registers), geometry is precomputed
// (OperatorGeometry), each output is written once, interior and boundary faces are walked in two
// branch-free loops, and the launch policy and the scatter are options.
#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "operators/operator_geometry.hpp"

namespace fvproxy::optimized {

enum class GradientMethod { green_gauss, least_squares };

/// Geometry views the kernels read (no recomputation).
struct GradientGeometry {
  ConstView1<index_t> owner, neighbour, cell_face_off, cell_boundary_begin, cell_faces;
  ConstView1<std::int8_t> sign;
  ConstVec3View<real> S, d, r;
  ConstView1<real> gg_weight;
  ConstView2<real> gg_inverse, lsq_inverse;
  index_t n_interior;
  ConstVec3View<real> ghost;     ///< boundary faces: owner centroid -> where ub sits (least squares)
  ConstView1<real> ghost_weight; ///< boundary faces: the owner's weight in the face value (Green-Gauss)
  /// The stencil's extra entries (OperatorGeometry::stencil, operators/vertex_stencil.hpp): none
  /// for the face stencil.
  ConstVec3View<real> C;
  ConstView1<index_t> s_off, s_img, s_index;
  ConstView1<std::uint8_t> s_shift;
  ConstVec3View<real> s_shifts, s_image_x;
  index_t first_row;
  /// The corners stencil's entries summed by the pre-pass (stencil_sums.hpp: StencilSums), row
  /// s_row(c) of s_sums per cell with entries; no rows: the kernels walk the entries themselves.
  ConstView1<index_t> s_row;
  ConstView2<real> s_sums;
};

/// The views of `m` and `og` the optimized gradient, limiter and fused kernels read.
inline GradientGeometry gradient_geometry(const Mesh& m, const OperatorGeometry& og) {
  const VertexStencil& s = og.stencil;
  return {m.face_owner,
          m.face_neighbour,
          m.cell_face_off,
          og.cell_boundary_begin,
          m.cell_faces,
          m.cell_face_sign,
          m.face_area,
          og.d,
          og.r,
          og.gg_weight,
          og.gg_inverse,
          og.lsq_inverse,
          m.n_interior,
          og.ghost,
          og.ghost_weight,
          m.centroid,
          s.off,
          s.image_begin,
          s.index,
          s.shift,
          s.shifts,
          s.image_x,
          s.first_row,
          s.row,
          {}};
}

/// The values a gather reads: component k of cell c (a row of u) and of a boundary face or mirror
/// image (a row of ub).
struct Values {
  ConstView2<real> u, ub;
  KOKKOS_INLINE_FUNCTION real cell(index_t c, int k) const { return u(c, k); }
  KOKKOS_INLINE_FUNCTION real boundary(index_t row, int k) const { return ub(row, k); }
};

/// Two sets of values side by side, as one of N1 + N2 components: 0..N1-1 from (u1, ub1), the rest
/// from (u2, ub2) (the navier-stokes cell pass: muscl_paired.hpp). The component index of every
/// read is a compile-time constant in the unrolled loops, so the choice costs nothing.
template <int N1> struct PairedValues {
  ConstView2<real> u1, ub1, u2, ub2;
  KOKKOS_INLINE_FUNCTION real cell(index_t c, int k) const { return k < N1 ? u1(c, k) : u2(c, k - N1); }
  KOKKOS_INLINE_FUNCTION real boundary(index_t row, int k) const { return k < N1 ? ub1(row, k) : ub2(row, k - N1); }
};

/// Plain entry q of cell c's stencil (s_off(c) <= q < s_img(c)): dx, its position minus the
/// centroid, and v, the vertex neighbour's N cell values.
template <int N, class V> KOKKOS_INLINE_FUNCTION void plain_entry(const GradientGeometry& g, const V& values, index_t c,
                                                                  index_t q, real (&dx)[3], real (&v)[N]) {
  const index_t j = g.s_index(q);
  const std::uint8_t t = g.s_shift(q);
  for (int i = 0; i < 3; ++i) dx[i] = g.C(j, i) + g.s_shifts(t, i) - g.C(c, i);
  for (int k = 0; k < N; ++k) v[k] = values.cell(j, k);
}

/// Image entry q of cell c's stencil (s_img(c) <= q < s_off(c + 1)): dx and the mirror image's N
/// boundary-row values.
template <int N, class V> KOKKOS_INLINE_FUNCTION void image_entry(const GradientGeometry& g, const V& values, index_t c,
                                                                  index_t q, real (&dx)[3], real (&v)[N]) {
  const index_t row = g.s_index(q), e = row - g.first_row;
  for (int i = 0; i < 3; ++i) dx[i] = g.s_image_x(e, i) - g.C(c, i);
  for (int k = 0; k < N; ++k) v[k] = values.boundary(row, k);
}

/// on(dx, v) for each extra entry of cell c's stencil (none with the face stencil): plain entries
/// first, then images, in the stencil's order.
template <int N, class V, class On>
KOKKOS_INLINE_FUNCTION void stencil_entries(const GradientGeometry& g, const V& values, index_t c, const On& on) {
  real dx[3], v[N];
  for (index_t q = g.s_off(c); q < g.s_img(c); ++q) {
    plain_entry<N>(g, values, c, q, dx, v);
    on(dx, v);
  }
  for (index_t q = g.s_img(c); q < g.s_off(c + 1); ++q) {
    image_entry<N>(g, values, c, q, dx, v);
    on(dx, v);
  }
}

/// The least-squares sums of the stencil's extra entries added to acc (and their values to on_value).
/// With the pre-pass's rows (s_sums: the corners stencil), a cell with entries adds its row: the sums
/// of dx (v_k - uc_k) and each component's smallest and largest value (on_value sees those two: the
/// limiter's extremes are the same, as x -> x - uc_k keeps the order in floating point too).
template <int N, class V, class OnValue>
KOKKOS_INLINE_FUNCTION void stencil_sums(const GradientGeometry& g, const V& values, index_t c, const real (&uc)[N],
                                         real (&acc)[N][3], const OnValue& on_value) {
  if (g.s_sums.extent(0) > 0) { // the same for every cell of the launch
    if (g.s_off(c + 1) == g.s_off(c)) return;
    const index_t r = g.s_row(c);
    for (int k = 0; k < N; ++k) {
      for (int i = 0; i < 3; ++i) acc[k][i] += g.s_sums(r, 3 * k + i);
      on_value(k, g.s_sums(r, 3 * N + k));
      on_value(k, g.s_sums(r, 4 * N + k));
    }
    return;
  }
  stencil_entries<N>(g, values, c, [&](const real(&dx)[3], const real(&v)[N]) {
    for (int k = 0; k < N; ++k) {
      on_value(k, v[k]);
      const real du = v[k] - uc[k];
      for (int i = 0; i < 3; ++i) acc[k][i] += dx[i] * du;
    }
  });
}

/// acc (3 per component) -> the gradient gr of cell c (in registers).
template <int N, GradientMethod M>
KOKKOS_INLINE_FUNCTION void solve(const GradientGeometry& g, index_t c, const real (&acc)[N][3], real (&gr)[N][3]) {
  if constexpr (M == GradientMethod::green_gauss) {
    real gi[9]; // G_c^{-1}, row-major (OperatorGeometry::gg_inverse)
    for (int j = 0; j < 9; ++j) gi[j] = g.gg_inverse(c, j);
    for (int k = 0; k < N; ++k)
      for (int i = 0; i < 3; ++i)
        gr[k][i] = gi[3 * i] * acc[k][0] + gi[3 * i + 1] * acc[k][1] + gi[3 * i + 2] * acc[k][2];
  } else {
    real mi[6];
    for (int j = 0; j < 6; ++j) mi[j] = g.lsq_inverse(c, j);
    for (int k = 0; k < N; ++k)
      for (int i = 0; i < 3; ++i)
        gr[k][i] = mi[sym_index(i, 0)] * acc[k][0] + mi[sym_index(i, 1)] * acc[k][1] + mi[sym_index(i, 2)] * acc[k][2];
  }
}

/// acc -> the gradient of cell c, written once.
template <int N, GradientMethod M> KOKKOS_INLINE_FUNCTION void
finish(const GradientGeometry& g, const View2<real>& grad, index_t c, const real (&acc)[N][3]) {
  real gr[N][3];
  solve<N, M>(g, c, acc, gr);
  for (int k = 0; k < N; ++k)
    for (int i = 0; i < 3; ++i) grad(c, 3 * k + i) = gr[k][i];
}

/// gather_sums' interior faces: acc (not zeroed) += each face neighbour's term.
template <int N, GradientMethod M, class V, class OnValue>
KOKKOS_INLINE_FUNCTION void interior_sums(const GradientGeometry& g, const V& values, index_t c, const real (&uc)[N],
                                          real (&acc)[N][3], const OnValue& on_value) {
  const index_t bb = g.cell_boundary_begin(c);
  for (index_t q = g.cell_face_off(c); q < bb; ++q) { // interior faces
    const index_t f = g.cell_faces(q);
    const real s = g.sign(q);
    const index_t other = s > 0 ? g.neighbour(f) : g.owner(f);
    if constexpr (M == GradientMethod::green_gauss) {
      const real w = s > 0 ? g.gg_weight(f) : 1 - g.gg_weight(f);
      const real sS[3] = {s * g.S(f, 0), s * g.S(f, 1), s * g.S(f, 2)};
      for (int k = 0; k < N; ++k) {
        const real v = values.cell(other, k);
        on_value(k, v);
        const real uf = w * uc[k] + (1 - w) * v;
        for (int i = 0; i < 3; ++i) acc[k][i] += uf * sS[i];
      }
    } else {
      const real wv[3] = {s * g.d(f, 0), s * g.d(f, 1), s * g.d(f, 2)};
      for (int k = 0; k < N; ++k) {
        const real v = values.cell(other, k);
        on_value(k, v);
        const real du = v - uc[k];
        for (int i = 0; i < 3; ++i) acc[k][i] += wv[i] * du;
      }
    }
  }
}

/// gather_sums' boundary faces (owned by c): acc += each boundary value's term.
template <int N, GradientMethod M, class V, class OnValue>
KOKKOS_INLINE_FUNCTION void boundary_sums(const GradientGeometry& g, const V& values, index_t c, const real (&uc)[N],
                                          real (&acc)[N][3], const OnValue& on_value) {
  const index_t bb = g.cell_boundary_begin(c);
  for (index_t q = bb; q < g.cell_face_off(c + 1); ++q) { // boundary faces (owned by c)
    const index_t f = g.cell_faces(q);
    const index_t b = f - g.n_interior;
    if constexpr (M == GradientMethod::green_gauss) {
      const real w = g.ghost_weight(b); // 0: ub is the face value; 1/2: a mirror ghost's
      for (int k = 0; k < N; ++k) {
        const real v = values.boundary(b, k);
        on_value(k, v);
        const real uf = w * uc[k] + (1 - w) * v;
        for (int i = 0; i < 3; ++i) acc[k][i] += uf * g.S(f, i);
      }
    } else {
      const real wv[3] = {g.ghost(b, 0), g.ghost(b, 1), g.ghost(b, 2)};
      for (int k = 0; k < N; ++k) {
        const real v = values.boundary(b, k);
        on_value(k, v);
        const real du = v - uc[k];
        for (int i = 0; i < 3; ++i) acc[k][i] += wv[i] * du;
      }
    }
  }
}

/// The gather's sums of cell c (acc, zeroed here) over its interior faces, then its boundary faces,
/// then the stencil's extra entries (least squares); on_value(k, v) sees every neighbour and boundary value v of
/// component k once, in that order (the fused MUSCL kernel takes the limiter's extremes from them: muscl_fused.hpp).
template <int N, GradientMethod M, class V, class OnValue>
KOKKOS_INLINE_FUNCTION void gather_sums(const GradientGeometry& g, const V& values, index_t c, const real (&uc)[N],
                                        real (&acc)[N][3], const OnValue& on_value) {
  for (int k = 0; k < N; ++k) acc[k][0] = acc[k][1] = acc[k][2] = 0;
  interior_sums<N, M>(g, values, c, uc, acc, on_value);
  boundary_sums<N, M>(g, values, c, uc, acc, on_value);
  if constexpr (M == GradientMethod::least_squares) stencil_sums<N>(g, values, c, uc, acc, on_value);
}

/// gather_sums without a use for the values.
struct IgnoreValues {
  KOKKOS_INLINE_FUNCTION void operator()(int, real) const {}
};

/// Gather: one cell per work item, its faces' contributions summed in registers.
template <int N, GradientMethod M> struct GradientGather {
  GradientGeometry g;
  ConstView2<real> u, ub;
  View2<real> grad;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    real uc[N], acc[N][3];
    for (int k = 0; k < N; ++k) uc[k] = u(c, k);
    gather_sums<N, M>(g, Values{u, ub}, c, uc, acc, IgnoreValues{});
    finish<N, M>(g, grad, c, acc);
  }
};

/// Atomic scatter, interior faces: each face adds to both its cells (3N atomics per side). Cross
/// (the faces between an owned cell and a ghost, operators/part.hpp): to the owned side only.
template <int N, GradientMethod M, bool Cross = false> struct GradientScatterInterior {
  GradientGeometry g;
  ConstView2<real> u;
  View2<real> acc;
  index_t n_owned; ///< cells below it are owned (Cross)
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const index_t o = g.owner(f), n = g.neighbour(f);
    const bool to_o = !Cross || o < n_owned, to_n = !Cross || n < n_owned;
    if constexpr (M == GradientMethod::green_gauss) {
      const real w = g.gg_weight(f);
      const real S[3] = {g.S(f, 0), g.S(f, 1), g.S(f, 2)};
      for (int k = 0; k < N; ++k) {
        const real uf = w * u(o, k) + (1 - w) * u(n, k);
        for (int i = 0; i < 3; ++i) {
          if (to_o) Kokkos::atomic_add(&acc(o, 3 * k + i), uf * S[i]);
          if (to_n) Kokkos::atomic_add(&acc(n, 3 * k + i), -uf * S[i]);
        }
      }
    } else {
      const real wd[3] = {g.d(f, 0), g.d(f, 1), g.d(f, 2)};
      for (int k = 0; k < N; ++k) {
        const real du = u(n, k) - u(o, k);
        for (int i = 0; i < 3; ++i) {
          if (to_o) Kokkos::atomic_add(&acc(o, 3 * k + i), wd[i] * du);
          if (to_n) Kokkos::atomic_add(&acc(n, 3 * k + i), wd[i] * du);
        }
      }
    }
  }
};

/// Atomic scatter, boundary faces (a cell may own several: atomics).
template <int N, GradientMethod M> struct GradientScatterBoundary {
  GradientGeometry g;
  ConstView2<real> u, ub;
  View2<real> acc;
  KOKKOS_FUNCTION void operator()(const index_t b) const {
    const index_t f = g.n_interior + b, o = g.owner(f);
    for (int k = 0; k < N; ++k) {
      if constexpr (M == GradientMethod::green_gauss) {
        const real w = g.ghost_weight(b), uf = w * u(o, k) + (1 - w) * ub(b, k);
        for (int i = 0; i < 3; ++i) Kokkos::atomic_add(&acc(o, 3 * k + i), uf * g.S(f, i));
      } else {
        const real du = ub(b, k) - u(o, k);
        for (int i = 0; i < 3; ++i) Kokkos::atomic_add(&acc(o, 3 * k + i), g.ghost(b, i) * du);
      }
    }
  }
};

/// After a scatter: the accumulated sums (in grad) and the stencil's extra entries (a gather:
/// none with the face stencil) -> gradients, in place.
template <int N, GradientMethod M> struct GradientFinish {
  GradientGeometry g;
  ConstView2<real> u, ub;
  View2<real> grad;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    real acc[N][3];
    for (int k = 0; k < N; ++k)
      for (int i = 0; i < 3; ++i) acc[k][i] = grad(c, 3 * k + i);
    if constexpr (M == GradientMethod::least_squares) {
      if (g.s_off(c + 1) > g.s_off(c)) { // the face stencil's cells read no u here
        real uc[N];
        for (int k = 0; k < N; ++k) uc[k] = u(c, k);
        stencil_sums<N>(g, Values{u, ub}, c, uc, acc, IgnoreValues{});
      }
    }
    finish<N, M>(g, grad, c, acc);
  }
};

} // namespace fvproxy::optimized
