#pragma once
// Closed-form states of the compressible model's cases (docs/physics.md#closed-form-solutions-of-the-cases), pointwise
// so that initial conditions and error norms are evaluated cell by cell on the device:
//   IsentropicVortex: Shu's vortex (Euler), advected unchanged by a uniform stream: exact at all
//                     times in a periodic box (the error norms of the convergence test);
//   TaylorGreen:      the Taylor-Green vortex's initial state (Navier-Stokes, Re = 1600 benchmark);
//   Couette:          plane Couette flow's steady velocity and temperature (Navier-Stokes).
#include "physics/flow.hpp"

namespace fvproxy::flow {

/// Shu's isentropic vortex of strength beta about the axis (x0 + U t) parallel to z, in a gas of
/// density 1 and pressure 1 (temperature T = p / rho = 1 far away) moving with velocity U:
///   du = beta / (2 pi) exp((1 - r^2) / 2) (-(y - y_c), x - x_c, 0),
///   T = 1 - (gamma - 1) beta^2 / (8 gamma pi^2) exp(1 - r^2),  rho = T^(1/(gamma-1)), p = rho T.
/// `period` > 0: the periodic box's size in x and y (the nearest image of the centre counts).
struct IsentropicVortex {
  real gamma = real(1.4), beta = real(5);
  real x0[2] = {0, 0}; ///< centre at t = 0
  real U[3] = {1, 1, 0};
  real period[2] = {0, 0};
  KOKKOS_INLINE_FUNCTION Primitive operator()(const real (&x)[3], real t) const {
    real d[2];
    for (int i = 0; i < 2; ++i) {
      d[i] = x[i] - (x0[i] + U[i] * t);
      if (period[i] > 0) d[i] -= period[i] * kc::floor(d[i] / period[i] + real(0.5));
    }
    const real r2 = d[0] * d[0] + d[1] * d[1];
    const real pi = real(3.14159265358979323846);
    const real f = beta / (2 * pi) * kc::exp((1 - r2) / 2);
    const real T = 1 - (gamma - 1) * beta * beta / (8 * gamma * pi * pi) * kc::exp(1 - r2);
    Primitive w;
    w.rho = kc::pow(T, 1 / (gamma - 1));
    w.p = w.rho * T;
    w.u[0] = U[0] - f * d[1];
    w.u[1] = U[1] + f * d[0];
    w.u[2] = U[2];
    return w;
  }
};

/// The Taylor-Green vortex's initial state in the periodic box [0, 2 pi L)^3 (the DNS benchmark's
/// form): u = V0 (sin x cos y cos z, -cos x sin y cos z, 0) in x / L,
/// p = p0 + rho0 V0^2 / 16 (cos 2x + cos 2y)(cos 2z + 2), rho = rho0 p / p0 (uniform temperature).
struct TaylorGreen {
  real L = 1, V0 = 1, rho0 = 1, p0 = 1;
  KOKKOS_INLINE_FUNCTION Primitive operator()(const real (&x)[3]) const {
    const real a = x[0] / L, b = x[1] / L, c = x[2] / L;
    Primitive w;
    w.u[0] = V0 * kc::sin(a) * kc::cos(b) * kc::cos(c);
    w.u[1] = -V0 * kc::cos(a) * kc::sin(b) * kc::cos(c);
    w.u[2] = 0;
    w.p = p0 + rho0 * V0 * V0 / 16 * (kc::cos(2 * a) + kc::cos(2 * b)) * (kc::cos(2 * c) + 2);
    w.rho = rho0 * w.p / p0;
    return w;
  }
};

/// A plane acoustic pulse running along n through a uniform state (`mean`): to first order in its
/// amplitude a simple wave, p' = A p exp(-((n . x - x0) / w)^2), rho' = p' / c^2,
/// u' = p' / (rho c) n, which travels at u . n + c along n unchanged until it meets a boundary
/// (the reflection of a subsonic boundary: docs/physics.md#acoustic-reflection-of-the-subsonic-boundaries).
struct AcousticPulse {
  Primitive mean;
  real n[3] = {1, 0, 0};
  real x0 = 0, width = 1, amplitude = real(1e-3), gamma = real(1.4);
  KOKKOS_INLINE_FUNCTION Primitive operator()(const real (&x)[3]) const {
    const real s = (dot(n, x) - x0) / width;
    const real dp = amplitude * mean.p * kc::exp(-s * s);
    const real c2 = gamma * mean.p / mean.rho;
    Primitive w = mean;
    w.p += dp;
    w.rho += dp / c2;
    const real du = dp / (mean.rho * kc::sqrt(c2));
    for (int i = 0; i < 3; ++i) w.u[i] += du * n[i];
    return w;
  }
};

/// Plane Couette flow between a wall at rest (y = 0, temperature T0) and a wall moving with
/// velocity U along x (y = h, temperature T1), constant viscosity and conductivity, uniform
/// pressure: u = U y / h and, with viscous heating, T = T0 + (T1 - T0) y/h + Pr U^2 / (2 c_p)
/// (y/h)(1 - y/h).
struct Couette {
  real h = 1, U = 1, T0 = 1, T1 = 1, prandtl = real(0.72), cp = real(1004.675);
  KOKKOS_INLINE_FUNCTION real velocity(real y) const { return U * y / h; }
  KOKKOS_INLINE_FUNCTION real temperature(real y) const {
    const real e = y / h;
    return T0 + (T1 - T0) * e + prandtl * U * U / (2 * cp) * e * (1 - e);
  }
};

} // namespace fvproxy::flow
