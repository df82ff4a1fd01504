#pragma once
// Prescribed velocity fields of the scalar model, as small device functors.
#include "core/types.hpp"

namespace fvproxy {

/// u(x) = constant.
struct UniformVelocity {
  real u[3];
  KOKKOS_INLINE_FUNCTION void operator()(const real* /*x*/, real* v) const { v[0] = u[0], v[1] = u[1], v[2] = u[2]; }
};

/// Rigid rotation about `axis` (unit) through `center`: u(x) = omega axis x (x - center).
struct RotationVelocity {
  real axis[3], center[3], omega;
  KOKKOS_INLINE_FUNCTION void operator()(const real* x, real* v) const {
    const real r[3] = {x[0] - center[0], x[1] - center[1], x[2] - center[2]};
    v[0] = omega * (axis[1] * r[2] - axis[2] * r[1]);
    v[1] = omega * (axis[2] * r[0] - axis[0] * r[2]);
    v[2] = omega * (axis[0] * r[1] - axis[1] * r[0]);
  }
};

} // namespace fvproxy
