#pragma once
// The flow models' initial conditions and exact solutions as pointwise profiles W(x, t), which the
// solver's kernels (operators/flow/flow_cell_kernels.hpp: FillState, ErrorTerms) evaluate cell by
// cell on the device: a uniform state with a velocity profile, the plane Riemann problem (exact
// after t = 0), Shu's vortex, an acoustic pulse, the Taylor-Green vortex.
#include "physics/exact_riemann.hpp"
#include "physics/flow_boundary.hpp"
#include "physics/flow_solutions.hpp"

namespace fvproxy::flow {

/// A uniform state, its velocity shaped by a profile (InletProfile: uniform or a channel's parabola).
struct UniformProfile {
  Primitive w;
  InletProfile profile;
  KOKKOS_INLINE_FUNCTION Primitive operator()(const real (&x)[3], real) const {
    Primitive v = w;
    const real s = profile.shape(x);
    for (int i = 0; i < 3; ++i) v.u[i] *= s;
    return v;
  }
};
/// The plane Riemann problem: the two states at t = 0, the exact self-similar solution after.
struct RiemannProfile {
  ExactRiemann e;
  real x0;
  KOKKOS_INLINE_FUNCTION Primitive operator()(const real (&x)[3], real t) const {
    const real s = dot(x, e.n) - x0;
    if (t > 0) return e.sample(s / t);
    Primitive w; // selected by value (a reference to either state would put both in local memory)
    const bool left = s < 0;
    w.rho = left ? e.left.rho : e.right.rho, w.p = left ? e.left.p : e.right.p;
    for (int i = 0; i < 3; ++i) w.u[i] = left ? e.left.u[i] : e.right.u[i];
    return w;
  }
};
struct VortexProfile {
  IsentropicVortex v;
  KOKKOS_INLINE_FUNCTION Primitive operator()(const real (&x)[3], real t) const { return v(x, t); }
};
struct AcousticPulseProfile {
  AcousticPulse a;
  KOKKOS_INLINE_FUNCTION Primitive operator()(const real (&x)[3], real) const { return a(x); }
};
struct TaylorGreenProfile {
  TaylorGreen tg;
  KOKKOS_INLINE_FUNCTION Primitive operator()(const real (&x)[3], real) const { return tg(x); }
};

} // namespace fvproxy::flow
