#pragma once
// The optimized diffusion operator: N and kappa compile-time sized (registers), face coefficients
// precomputed (OperatorGeometry::diff_alpha, diff_k), one read-modify-write of rhs per cell,
// multiplication by 1/V, interior faces in one kernel and each Dirichlet/inflow patch in its own
// launch (outflow patches carry no diffusive flux and launch nothing): no per-face branch.
// Gather: one thread per cell (interior), one per run of a patch's faces with the same owner
// (boundary; patches run one after another, so no two threads touch a cell at once: no atomics).
// Atomic: one thread per face, atomics into rhs.
#include "core/types.hpp"
#include "operators/operator_geometry.hpp"

namespace fvproxy::optimized {

struct DiffusionGeometry {
  ConstView1<index_t> owner, neighbour, cell_face_off, cell_boundary_begin, cell_faces;
  ConstView1<std::int8_t> sign;
  ConstView1<real> alpha, inv_volume;
  ConstVec3View<real> k;
};

template <int N> struct DiffusionGatherInterior {
  DiffusionGeometry g;
  ConstView2<real> u, grad;
  View2<real> rhs;
  real kappa[N];
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    real uc[N], gc[N][3], acc[N];
    for (int q = 0; q < N; ++q) {
      uc[q] = u(c, q);
      for (int i = 0; i < 3; ++i) gc[q][i] = grad(c, 3 * q + i);
      acc[q] = 0;
    }
    for (index_t j = g.cell_face_off(c); j < g.cell_boundary_begin(c); ++j) {
      const index_t f = g.cell_faces(j);
      const real s = g.sign(j);
      const index_t other = s > 0 ? g.neighbour(f) : g.owner(f);
      const real a = g.alpha(f),
                 hk[3] = {real(0.5) * s * g.k(f, 0), real(0.5) * s * g.k(f, 1), real(0.5) * s * g.k(f, 2)};
      for (int q = 0; q < N; ++q) {
        real kg = 0;
        for (int i = 0; i < 3; ++i) kg += hk[i] * (gc[q][i] + grad(other, 3 * q + i));
        acc[q] += a * (u(other, q) - uc[q]) + kg;
      }
    }
    const real iv = g.inv_volume(c);
    for (int q = 0; q < N; ++q) rhs(c, q) += kappa[q] * acc[q] * iv;
  }
};

/// A Dirichlet/inflow patch, one thread per run of faces with the same owner.
template <int N> struct DiffusionGatherPatch {
  DiffusionGeometry g;
  ConstView2<real> u, ub, grad;
  View2<real> rhs;
  ConstView2<index_t> runs; ///< run r: the faces [runs(r, 0), runs(r, 1)) of one owner (PatchRuns)
  index_t n_interior;
  real kappa[N];
  KOKKOS_FUNCTION void operator()(const index_t r) const {
    const index_t first = runs(r, 0), last = runs(r, 1);
    const index_t c = g.owner(first);
    real acc[N];
    for (int q = 0; q < N; ++q) acc[q] = 0;
    for (index_t f = first; f < last; ++f) {
      const real a = g.alpha(f);
      for (int q = 0; q < N; ++q) {
        const real kg = g.k(f, 0) * grad(c, 3 * q) + g.k(f, 1) * grad(c, 3 * q + 1) + g.k(f, 2) * grad(c, 3 * q + 2);
        acc[q] += a * (ub(f - n_interior, q) - u(c, q)) + kg;
      }
    }
    const real iv = g.inv_volume(c);
    for (int q = 0; q < N; ++q) rhs(c, q) += kappa[q] * acc[q] * iv;
  }
};

/// Cross (the faces between an owned cell and a ghost, operators/part.hpp): to the owned side only.
template <int N, bool Cross = false> struct DiffusionScatterInterior {
  DiffusionGeometry g;
  ConstView2<real> u, grad;
  View2<real> rhs;
  index_t n_owned; ///< cells below it are owned (Cross)
  real kappa[N];
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const index_t o = g.owner(f), n = g.neighbour(f);
    const bool to_o = !Cross || o < n_owned, to_n = !Cross || n < n_owned;
    const real a = g.alpha(f), io = g.inv_volume(o), in = g.inv_volume(n);
    for (int q = 0; q < N; ++q) {
      real kg = 0;
      for (int i = 0; i < 3; ++i) kg += real(0.5) * g.k(f, i) * (grad(o, 3 * q + i) + grad(n, 3 * q + i));
      const real fl = kappa[q] * (a * (u(n, q) - u(o, q)) + kg);
      if (to_o) Kokkos::atomic_add(&rhs(o, q), fl * io);
      if (to_n) Kokkos::atomic_add(&rhs(n, q), -fl * in);
    }
  }
};

template <int N> struct DiffusionScatterPatch {
  DiffusionGeometry g;
  ConstView2<real> u, ub, grad;
  View2<real> rhs;
  index_t n_interior;
  real kappa[N];
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const index_t o = g.owner(f);
    const real a = g.alpha(f), io = g.inv_volume(o);
    for (int q = 0; q < N; ++q) {
      const real kg = g.k(f, 0) * grad(o, 3 * q) + g.k(f, 1) * grad(o, 3 * q + 1) + g.k(f, 2) * grad(o, 3 * q + 2);
      Kokkos::atomic_add(&rhs(o, q), kappa[q] * (a * (ub(f - n_interior, q) - u(o, q)) + kg) * io);
    }
  }
};

} // namespace fvproxy::optimized
