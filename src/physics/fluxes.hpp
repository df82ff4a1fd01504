#pragma once
// Pointwise face fluxes shared by the naive and optimized operators (one face, one component).
#include "core/kokkos_compat.hpp"
#include "core/types.hpp"

namespace fvproxy {

/// Upwind convective flux through a face with volume flux phi = u_f . S_f (out of the owner):
/// the left (owner-side) state when the flow leaves the owner, the right state otherwise.
struct UpwindFlux {
  KOKKOS_INLINE_FUNCTION real operator()(real phi, real left, real right) const {
    const real out = phi > 0 ? phi : real(0);
    const real in = phi < 0 ? phi : real(0);
    return out * left + in * right;
  }
};

/// Geometric coefficients of the corrected diffusion flux on one face, from its area vector S
/// and the owner-to-neighbour centroid vector d (periodic image included):
///   grad_f . S = alpha (u_N - u_P) + gbar . k,   alpha = (S . d) / |d|^2,   k = S - alpha d
/// where gbar is the average of the two cell gradients. The first term is the two-point flux
/// along d; k . gbar the non-orthogonal correction (zero on orthogonal meshes). Exact for linear
/// fields whatever the mesh.
struct DiffusionCoefficients {
  real alpha;
  real k[3];
  KOKKOS_INLINE_FUNCTION static DiffusionCoefficients from(const real* S, const real* d) {
    const real dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    const real a = (S[0] * d[0] + S[1] * d[1] + S[2] * d[2]) / dd;
    return {a, {S[0] - a * d[0], S[1] - a * d[1], S[2] - a * d[2]}};
  }
};

/// Diffusive flux kappa grad_f . S (into the owner when positive: it adds to the owner's rate).
struct DiffusionFlux {
  KOKKOS_INLINE_FUNCTION real operator()(real kappa, const DiffusionCoefficients& c, real u_owner, real u_neighbour,
                                         const real* gbar) const {
    return kappa * (c.alpha * (u_neighbour - u_owner) + c.k[0] * gbar[0] + c.k[1] * gbar[1] + c.k[2] * gbar[2]);
  }
};

} // namespace fvproxy
