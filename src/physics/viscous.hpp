#pragma once
// The Navier-Stokes model's viscous terms, pointwise (docs/physics.md#viscous-terms): the
// viscosity laws, the heat conductivity from the Prandtl number, and the viscous flux through a
// face from the face's velocity and temperature gradients (the diffusion operator forms those from
// the corrected face gradients, as it does for the scalar model).
//
//   tau = mu (grad u + grad u^T - 2/3 (div u) I),   q = -k grad T,   k = mu c_p / Pr,
//   F_v . n = (0, tau n, (tau u) . n - q . n)   (added to the rate of the owner, with the sign of
//   the convective flux reversed: d/dt (V U) = - sum F . S + sum F_v . S).
#include "physics/flow.hpp"

namespace fvproxy::flow {

/// mu independent of temperature.
struct ConstantViscosity {
  real mu = 0;
  KOKKOS_INLINE_FUNCTION real operator()(real /*T*/) const { return mu; }
};

/// Sutherland's law: mu = mu_ref (T / T_ref)^(3/2) (T_ref + S) / (T + S).
struct Sutherland {
  real mu_ref = real(1.716e-5), t_ref = real(273.15), s = real(110.4); ///< air
  KOKKOS_INLINE_FUNCTION real operator()(real T) const {
    const real r = T / t_ref;
    return mu_ref * r * kc::sqrt(r) * (t_ref + s) / (T + s);
  }
};

/// The one-sided gradient at a boundary face: the cell's gradient g corrected along
/// r = x_f - x_c so that it reaches the face value w_b, G = g + (w_b - w_c - g . r) r / |r|^2
/// (inv_r2 = 1 / |r|^2). The viscous operator's no-slip walls and the wall forces both use it.
KOKKOS_INLINE_FUNCTION void wall_gradient(const real (&g)[3], real wc, real wb, const real (&r)[3], real inv_r2,
                                          real (&G)[3]) {
  const real c = (wb - wc - (g[0] * r[0] + g[1] * r[1] + g[2] * r[2])) * inv_r2;
  for (int i = 0; i < 3; ++i) G[i] = g[i] + c * r[i];
}

/// The face gradients and values at a slip wall or symmetry plane (unit normal n, r = x_f - x_P):
/// those of the interior face between the cell P and its mirror image P' (velocity M u_P, velocity
/// gradient M gu M, temperature T_P, temperature gradient M gT, centroid x_P + 2 (r . n) n; M = I -
/// 2 n n^T), which the interior formula G_f = (G_P + G_P')/2 + (W_P' - W_P - (G_P + G_P')/2 . d) d / |d|^2
/// reduces to:
///   Gu = gu - n (gu^T n)^T - (gu n) n^T + (2 s - (u . n + (r . n) s) / (r . n)) n n^T,  s = n . gu n
///   GT = gT - (gT . n) n,   u_f = v - (v . n) n with v = u + gu r,   T_f = T + gT . r
/// so the face's normal velocity is 0, d u_n / d n = -(u . n) / (r . n), and there is no
/// tangential stress and no heat flux (docs/physics.md#viscous-terms).
KOKKOS_INLINE_FUNCTION void mirror_face_gradient(const real (&gu)[3][3], const real (&gT)[3], const real (&u)[3],
                                                 real T, const real (&r)[3], const real (&n)[3], real (&Gu)[3][3],
                                                 real (&GT)[3], real (&uf)[3], real& Tf) {
  real a[3], b[3]; // gu n, gu^T n
  for (int i = 0; i < 3; ++i) {
    a[i] = gu[i][0] * n[0] + gu[i][1] * n[1] + gu[i][2] * n[2];
    b[i] = gu[0][i] * n[0] + gu[1][i] * n[1] + gu[2][i] * n[2];
  }
  const real s = dot(n, a), rn = dot(r, n), un = dot(u, n);
  const real nn = 2 * s - (un + rn * s) / rn;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) Gu[i][j] = gu[i][j] - n[i] * b[j] - a[i] * n[j] + nn * n[i] * n[j];
  const real tn = dot(gT, n);
  for (int i = 0; i < 3; ++i) GT[i] = gT[i] - tn * n[i];
  real v[3];
  for (int i = 0; i < 3; ++i) v[i] = u[i] + gu[i][0] * r[0] + gu[i][1] * r[1] + gu[i][2] * r[2];
  const real vn = dot(v, n);
  for (int i = 0; i < 3; ++i) uf[i] = v[i] - vn * n[i];
  Tf = T + dot(gT, r);
}

/// Heat conductivity k = mu c_p / Pr, c_p = gamma R / (gamma - 1).
KOKKOS_INLINE_FUNCTION real conductivity(real mu, const IdealGas& gas, real prandtl) {
  return mu * gas.gamma * gas.gas_constant / ((gas.gamma - 1) * prandtl);
}

/// The viscous flux per unit area through unit normal n: gu[i][j] = d u_i / d x_j, gT = grad T,
/// u the face velocity, mu and k at the face.
KOKKOS_INLINE_FUNCTION Flux viscous_flux(const real (&gu)[3][3], const real (&gT)[3], const real (&u)[3], real mu,
                                         real k, const real (&n)[3]) {
  const real div = gu[0][0] + gu[1][1] + gu[2][2];
  real tau_n[3]; // tau n
  for (int i = 0; i < 3; ++i) {
    real t = 0;
    for (int j = 0; j < 3; ++j) t += (gu[i][j] + gu[j][i]) * n[j];
    tau_n[i] = mu * (t - real(2) / 3 * div * n[i]);
  }
  Flux F;
  F.rho = 0;
  for (int i = 0; i < 3; ++i) F.m[i] = tau_n[i];
  F.E = dot(tau_n, u) + k * dot(gT, n); // tau symmetric: (tau u) . n = (tau n) . u
  return F;
}

/// The viscous time-step limit's rate per cell face: lambda_v = max(4/3, gamma / Pr) mu / rho
/// |S|^2 / V (summed over a cell's faces, with lambda = sum (|u_n| + c) |S| / V for the
/// convective part; docs/physics.md#viscous-terms).
KOKKOS_INLINE_FUNCTION real viscous_rate(real mu, real rho, const IdealGas& gas, real prandtl, real area2_over_volume) {
  const real a = real(4) / 3, b = gas.gamma / prandtl;
  return (a > b ? a : b) * mu / rho * area2_over_volume;
}

} // namespace fvproxy::flow
