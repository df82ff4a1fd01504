#pragma once
// Compressible flow, pointwise (docs/physics.md#compressible-flow): the states, the ideal-gas
// equation of state, the conversions and the physical flux through a face, as small
// KOKKOS_INLINE_FUNCTIONs that the operators (one face, one cell at a time) are templated on. The
// numerical fluxes live in riemann_fluxes.hpp, the exact Riemann solution in exact_riemann.hpp.
//
// Conserved variables per unit volume: density rho, momentum m = rho u, total energy
// E = rho e + rho |u|^2 / 2 (e the specific internal energy); primitive: rho, u, p.
#include "core/kokkos_compat.hpp"
#include "core/types.hpp"

namespace fvproxy::flow {

/// The number of conserved variables: density, three momentum components, total energy.
inline constexpr int kVariables = 5;

/// Conserved state per unit volume (also the layout of a flux per unit area).
struct Conserved {
  real rho, m[3], E;
};
using Flux = Conserved;

/// Primitive state: density, velocity, pressure.
struct Primitive {
  real rho, u[3], p;
};

/// Calorically perfect ideal gas: p = (gamma - 1) rho e, T = p / (rho R).
struct IdealGas {
  real gamma = real(1.4);
  real gas_constant = real(287.05); ///< J / (kg K)
  /// Internal energy per unit volume, rho e.
  KOKKOS_INLINE_FUNCTION real internal_energy(real /*rho*/, real p) const { return p / (gamma - 1); }
  KOKKOS_INLINE_FUNCTION real pressure(real /*rho*/, real rho_e) const { return (gamma - 1) * rho_e; }
  KOKKOS_INLINE_FUNCTION real sound_speed(real rho, real p) const { return kc::sqrt(gamma * p / rho); }
  KOKKOS_INLINE_FUNCTION real temperature(real rho, real p) const { return p / (rho * gas_constant); }
};

KOKKOS_INLINE_FUNCTION real dot(const real (&a)[3], const real (&b)[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

template <class EoS> KOKKOS_INLINE_FUNCTION Primitive to_primitive(const Conserved& U, const EoS& eos) {
  Primitive w;
  w.rho = U.rho;
  const real inv = 1 / U.rho;
  for (int i = 0; i < 3; ++i) w.u[i] = U.m[i] * inv;
  w.p = eos.pressure(U.rho, U.E - real(0.5) * dot(U.m, w.u));
  return w;
}

template <class EoS> KOKKOS_INLINE_FUNCTION Conserved to_conserved(const Primitive& w, const EoS& eos) {
  Conserved U;
  U.rho = w.rho;
  for (int i = 0; i < 3; ++i) U.m[i] = w.rho * w.u[i];
  U.E = eos.internal_energy(w.rho, w.p) + real(0.5) * w.rho * dot(w.u, w.u);
  return U;
}

/// Specific total enthalpy H = (E + p) / rho.
template <class EoS> KOKKOS_INLINE_FUNCTION real enthalpy(const Primitive& w, const EoS& eos) {
  return (eos.internal_energy(w.rho, w.p) + w.p) / w.rho + real(0.5) * dot(w.u, w.u);
}

/// The physical flux F(U) . n through a face of unit normal n, per unit area.
template <class EoS> KOKKOS_INLINE_FUNCTION Flux normal_flux(const Primitive& w, const real (&n)[3], const EoS& eos) {
  const real un = dot(w.u, n);
  Flux F;
  F.rho = w.rho * un;
  for (int i = 0; i < 3; ++i) F.m[i] = w.rho * un * w.u[i] + w.p * n[i];
  F.E = un * (eos.internal_energy(w.rho, w.p) + w.p + real(0.5) * w.rho * dot(w.u, w.u));
  return F;
}

/// The largest wave speed along n, |u . n| + c (the CFL's and Rusanov's).
template <class EoS> KOKKOS_INLINE_FUNCTION real wave_speed(const Primitive& w, const real (&n)[3], const EoS& eos) {
  return kc::fabs(dot(w.u, n)) + eos.sound_speed(w.rho, w.p);
}

/// The five conserved values as an array (0 density, 1..3 momentum, 4 energy) and back.
KOKKOS_INLINE_FUNCTION real component(const Conserved& U, int k) {
  return k == 0 ? U.rho : k == 4 ? U.E : U.m[k - 1];
}

} // namespace fvproxy::flow
