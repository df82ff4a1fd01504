#pragma once
// Boundary conditions of the compressible model, pointwise (docs/physics.md#boundary-conditions):
// each maps the interior state next to a boundary face and the face's outward unit normal n to the
// outside state the face's Riemann flux takes as its right state (the interior state is the left
// one). One functor per type, so that an optimized operator launches one kernel per patch.
#include "physics/flow.hpp"

namespace fvproxy::flow {

/// Inviscid wall and symmetry plane: the mirror image (normal velocity reversed, density and
/// pressure kept). With HLLC or Roe the face's mass and energy fluxes vanish and the momentum flux
/// is a pressure along n.
struct SlipWall {
  KOKKOS_INLINE_FUNCTION Primitive operator()(const Primitive& in, const real (&n)[3]) const {
    Primitive out = in;
    const real un = dot(in.u, n);
    for (int i = 0; i < 3; ++i) out.u[i] = in.u[i] - 2 * un * n[i];
    return out;
  }
};
using Symmetry = SlipWall;

/// Viscous wall, at rest or sliding in its plane with `velocity`: the velocity mirrored about the
/// wall's (u_out = 2 u_wall - u_in, so that the face's velocity is the wall's), density and
/// pressure kept; adiabatic or at a wall temperature, which the viscous flux takes at the face
/// (wall_temperature <= 0: adiabatic, no heat flux through the wall).
struct NoSlipWall {
  real wall_temperature = 0;
  real velocity[3] = {0, 0, 0};
  KOKKOS_INLINE_FUNCTION Primitive operator()(const Primitive& in, const real (&/*n*/)[3]) const {
    Primitive out = in;
    for (int i = 0; i < 3; ++i) out.u[i] = 2 * velocity[i] - in.u[i];
    return out;
  }
};

/// Every characteristic enters: the prescribed state.
struct SupersonicInflow {
  Primitive state;
  KOKKOS_INLINE_FUNCTION Primitive operator()(const Primitive& /*in*/, const real (&/*n*/)[3]) const { return state; }
};

/// Every characteristic leaves: the interior state.
struct SupersonicOutflow {
  KOKKOS_INLINE_FUNCTION Primitive operator()(const Primitive& in, const real (&/*n*/)[3]) const { return in; }
};

/// Far field (characteristic, ideal gas): the Riemann invariants along n, the outgoing
/// R+ = u_n + 2c/(gamma - 1) from the interior and the incoming R- = u_n - 2c/(gamma - 1) from the
/// free stream, give the face's normal velocity and sound speed; entropy p / rho^gamma and the
/// tangential velocity come from the interior where the flow leaves, from the free stream where it
/// enters. Supersonic faces take the free stream (inflow) or the interior (outflow) whole.
struct Farfield {
  Primitive free;
  real gamma = real(1.4);
  KOKKOS_INLINE_FUNCTION Primitive operator()(const Primitive& in, const real (&n)[3]) const {
    const real g1 = gamma - 1;
    const real ci = kc::sqrt(gamma * in.p / in.rho), cf = kc::sqrt(gamma * free.p / free.rho);
    const real uni = dot(in.u, n), unf = dot(free.u, n);
    if (uni <= -ci) return free; // supersonic inflow
    if (uni >= ci) return in;    // supersonic outflow
    const real rp = uni + 2 * ci / g1, rm = unf - 2 * cf / g1;
    const real un = real(0.5) * (rp + rm), c = real(0.25) * g1 * (rp - rm);
    // the side the entropy and tangential velocity come from, selected by value (a reference to either
    // would put both states in local memory on CUDA)
    const bool leaving = un > 0;
    Primitive up;
    up.rho = leaving ? in.rho : free.rho, up.p = leaving ? in.p : free.p;
    for (int i = 0; i < 3; ++i) up.u[i] = leaving ? in.u[i] : free.u[i];
    const real s = up.p / kc::pow(up.rho, gamma);
    Primitive out;
    out.rho = kc::pow(c * c / (gamma * s), 1 / g1);
    out.p = out.rho * c * c / gamma;
    const real unu = dot(up.u, n);
    for (int i = 0; i < 3; ++i) out.u[i] = up.u[i] + (un - unu) * n[i];
    return out;
  }
};

} // namespace fvproxy::flow
