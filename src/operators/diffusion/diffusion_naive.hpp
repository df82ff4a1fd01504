#pragma once
// The naive diffusion operator (the honest first port): MDRangePolicy over (entity, component),
// run-time component count and dimension (direction arrays in local memory), face coefficients recomputed from the
// geometry in the inner loop (centroid differences, periodic shifts, a division), a per-face branch on
// interior/boundary and on the boundary type, the face gradient average read from global memory per face, division by
// the volume per face, and an atomic per component per face (or, under run.deterministic, a
// per-cell gather with read-modify-write of rhs inside the face loop).
#include "core/types.hpp"
#include "operators/naive_geometry.hpp"
#include "physics/fluxes.hpp"

namespace fvproxy::naive {

struct DiffusionData {
  NaiveGeometry geo;
  ConstView1<std::int8_t> face_type; // per boundary face: 0 value-type, 1 outflow
  ConstView1<real> kappa;

  /// kappa grad_f . S for face f, component k (flux into the owner).
  KOKKOS_INLINE_FUNCTION real flux(index_t f, int k, const ConstView2<real>& u, const ConstView2<real>& ub,
                                   const ConstView2<real>& grad) const {
    const index_t o = geo.owner(f);
    real s[kMaxDim], d[kMaxDim], g[kMaxDim];
    for (int i = 0; i < geo.dim; ++i) s[i] = geo.S(f, i);
    geo.owner_to_other(f, d);
    if (f < geo.n_interior) {
      const index_t n = geo.neighbour(f);
      for (int i = 0; i < geo.dim; ++i) g[i] = (grad(o, 3 * k + i) + grad(n, 3 * k + i)) / 2;
      return DiffusionFlux{}(kappa(k), DiffusionCoefficients::from(s, d), u(o, k), u(n, k), g);
    }
    if (face_type(f - geo.n_interior) == 1) return 0; // outflow
    for (int i = 0; i < geo.dim; ++i) g[i] = grad(o, 3 * k + i);
    return DiffusionFlux{}(kappa(k), DiffusionCoefficients::from(s, d), u(o, k), ub(f - geo.n_interior, k), g);
  }
};

struct DiffusionScatter {
  DiffusionData g;
  ConstView2<real> u, ub, grad;
  View2<real> rhs;
  KOKKOS_FUNCTION void operator()(const index_t f, const int k) const {
    const NaiveGeometry& e = g.geo;
    const real fl = g.flux(f, k, u, ub, grad);
    if (e.owner(f) < e.n_owned) Kokkos::atomic_add(&rhs(e.owner(f), k), fl / e.volume(e.owner(f)));
    if (f < e.n_interior && e.neighbour(f) < e.n_owned)
      Kokkos::atomic_add(&rhs(e.neighbour(f), k), -fl / e.volume(e.neighbour(f)));
  }
};

struct DiffusionGather {
  DiffusionData g;
  ConstView2<real> u, ub, grad;
  View2<real> rhs;
  KOKKOS_FUNCTION void operator()(const index_t c, const int k) const {
    const NaiveGeometry& e = g.geo;
    for (index_t q = e.off(c); q < e.off(c + 1); ++q)
      rhs(c, k) += e.sign(q) * g.flux(e.faces(q), k, u, ub, grad) / e.volume(c);
  }
};

} // namespace fvproxy::naive
