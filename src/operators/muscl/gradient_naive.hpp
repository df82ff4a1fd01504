#pragma once
// The naive gradient: the honest first GPU port, with the classic mistakes on purpose
// (docs/operators/muscl.md names each):
//   - MDRangePolicy over (entity, component);
//   - the dimension a run-time value (NaiveGeometry::dim): direction loops not unrolled, their
//     small arrays (vectors, the 3x3 least-squares matrix and its inverse) in local memory;
//   - the component count and the method are run-time values, the method a branch in the kernel;
//   - geometry recomputed in the inner loops (centroid differences, periodic shifts, Green-Gauss
//     weights with divisions; the least-squares matrix rebuilt and inverted for every cell and
//     component at every call);
//   - the result accumulated by read-modify-write of global memory inside the face loop;
//   - one atomic per component and direction per face (scatter), or, under run.deterministic,
//     a per-cell gather that keeps every other mistake;
//   - boundary faces handled by a per-face branch in the same kernel; the Green-Gauss correction
//     matrix, like the least-squares one, rebuilt and inverted for every cell and component.
#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "operators/naive_geometry.hpp"

namespace fvproxy::naive {

/// Scatter: one (face, component) per work item, atomics into grad, method branch per item.
struct GradientScatter {
  NaiveGeometry g;
  ConstView2<real> u, ub;
  View2<real> grad;
  int method; // 0 Green-Gauss, 1 least squares (a run-time branch, on purpose)
  KOKKOS_FUNCTION void operator()(const index_t f, const int k) const {
    const index_t o = g.owner(f);
    real v[kMaxDim];
    g.owner_to_ghost(f, v);
    if (g.interior(f)) {
      const index_t n = g.neighbour(f);
      if (method == 0) {
        const real w = g.gg_weight(f);
        const real uf = w * u(o, k) + (1 - w) * u(n, k);
        for (int i = 0; i < g.dim; ++i) { // a ghost's row is its own rank's to sum
          if (o < g.n_owned) Kokkos::atomic_add(&grad(o, 3 * k + i), uf * g.S(f, i));
          if (n < g.n_owned) Kokkos::atomic_add(&grad(n, 3 * k + i), -uf * g.S(f, i));
        }
      } else {
        const real du = u(n, k) - u(o, k);
        for (int i = 0; i < g.dim; ++i) {
          const real c = v[i] * du;
          if (o < g.n_owned) Kokkos::atomic_add(&grad(o, 3 * k + i), c);
          if (n < g.n_owned) Kokkos::atomic_add(&grad(n, 3 * k + i), c);
        }
      }
    } else {
      const real b = ub(f - g.n_interior, k), w = g.boundary_weight(f);
      for (int i = 0; i < g.dim; ++i) {
        const real c = method == 0 ? (w * u(o, k) + (1 - w) * b) * g.S(f, i) : v[i] * (b - u(o, k));
        Kokkos::atomic_add(&grad(o, 3 * k + i), c);
      }
    }
  }
};

/// Gather (run.deterministic): one (cell, component) per work item, read-modify-write of grad
/// in the face loop.
struct GradientGather {
  NaiveGeometry g;
  ConstView2<real> u, ub;
  View2<real> grad;
  int method;
  KOKKOS_FUNCTION void operator()(const index_t c, const int k) const {
    for (int i = 0; i < g.dim; ++i) grad(c, 3 * k + i) = 0;
    for (index_t q = g.off(c); q < g.off(c + 1); ++q) {
      const index_t f = g.faces(q);
      const real s = g.sign(q);
      real v[kMaxDim];
      g.owner_to_ghost(f, v);
      if (g.interior(f)) {
        const index_t other = s > 0 ? g.neighbour(f) : g.owner(f);
        if (method == 0) {
          const real w = s > 0 ? g.gg_weight(f) : 1 - g.gg_weight(f);
          const real uf = w * u(c, k) + (1 - w) * u(other, k);
          for (int i = 0; i < g.dim; ++i) grad(c, 3 * k + i) += s * uf * g.S(f, i);
        } else {
          const real du = u(other, k) - u(c, k);
          for (int i = 0; i < g.dim; ++i) grad(c, 3 * k + i) += s * v[i] * du;
        }
      } else {
        const real b = ub(f - g.n_interior, k), w = g.boundary_weight(f);
        for (int i = 0; i < g.dim; ++i)
          grad(c, 3 * k + i) += method == 0 ? (w * u(c, k) + (1 - w) * b) * g.S(f, i) : v[i] * (b - u(c, k));
      }
    }
  }
};

/// Finalize per (cell, component): rebuild the cell's 3x3 matrix from its faces — the Green-Gauss
/// correction matrix sum_f s S_f (x_i,f - x_c)^T or the least-squares matrix sum_f v v^T —, invert
/// it by cofactors and multiply: every call, for every component.
struct GradientFinalize {
  NaiveGeometry g;
  View2<real> grad;
  int method;
  ConstView2<real> u = {}, ub = {}; ///< the stencil's values (read only when it has entries)
  KOKKOS_FUNCTION void operator()(const index_t c, const int k) const {
    real m[kMaxDim][kMaxDim] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    if (method == 1 && g.has_stencil()) // the vertex stencil's extra entries (least squares)
      for (index_t q = g.s_off(c); q < g.s_off(c + 1); ++q) {
        real v[kMaxDim];
        g.stencil_dx(c, q, v);
        for (int i = 0; i < g.dim; ++i) {
          for (int j = 0; j < g.dim; ++j) m[i][j] += v[i] * v[j];
          grad(c, 3 * k + i) += v[i] * (g.stencil_value(c, q, u, ub, k) - u(c, k));
        }
      }
    for (index_t q = g.off(c); q < g.off(c + 1); ++q) {
      const index_t f = g.faces(q);
      real v[kMaxDim];
      g.owner_to_ghost(f, v); // interior: d; boundary: r, or the mirrored centroid on a mirror face
      if (method == 0) {
        const real s = g.sign(q);
        if (g.interior(f)) { // x_i - x_c: (1 - w) d from the owner, -w d from the neighbour
          const real w = g.gg_weight(f);
          for (int i = 0; i < g.dim; ++i) v[i] = s > 0 ? (1 - w) * v[i] : -w * v[i];
        } else { // where the face value sits: r, or half way to the mirrored centroid
          const real w = g.boundary_weight(f);
          for (int i = 0; i < g.dim; ++i) v[i] = (1 - w) * v[i];
        }
        for (int i = 0; i < g.dim; ++i)
          for (int j = 0; j < g.dim; ++j) m[i][j] += s * g.S(f, i) * v[j];
      } else {
        for (int i = 0; i < g.dim; ++i)
          for (int j = 0; j < g.dim; ++j) m[i][j] += v[i] * v[j];
      }
    }
    const real det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                     m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    real inv[kMaxDim][kMaxDim];
    for (int i = 0; i < g.dim; ++i)
      for (int j = 0; j < g.dim; ++j) {
        const int a = (j + 1) % 3, b = (j + 2) % 3, p = (i + 1) % 3, q = (i + 2) % 3;
        inv[i][j] = (m[a][p] * m[b][q] - m[a][q] * m[b][p]) / det;
      }
    real rhs[kMaxDim];
    for (int i = 0; i < g.dim; ++i) rhs[i] = grad(c, 3 * k + i);
    for (int i = 0; i < g.dim; ++i) {
      real x = 0;
      for (int j = 0; j < g.dim; ++j) x += inv[i][j] * rhs[j];
      grad(c, 3 * k + i) = x;
    }
  }
};

} // namespace fvproxy::naive
