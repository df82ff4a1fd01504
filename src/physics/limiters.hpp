#pragma once
// Slope limiters of the MUSCL reconstruction, pointwise (HERACLES++ style): each returns the
// factor phi in [0, 1] for one face of a cell, given the unlimited increment delta = grad u . r
// from the cell centroid to the face centroid and the admissible increments dmax = max_nb u - u_i
// >= 0 and dmin = min_nb u - u_i <= 0 over the cell's neighbours. The cell's limiter is the minimum
// over its faces.
#include "core/types.hpp"

namespace fvproxy {

struct NoLimiter {
  static constexpr bool uses_eps = false; ///< reads no eps2 (the kernels skip computing it)
  KOKKOS_INLINE_FUNCTION real operator()(real /*delta*/, real /*dmax*/, real /*dmin*/, real /*eps2*/) const {
    return real(1);
  }
};

/// Barth-Jespersen: the largest phi <= 1 keeping u_i + phi delta within [min_nb u, max_nb u].
/// Creates no new extrema.
struct BarthJespersen {
  static constexpr bool uses_eps = false;
  KOKKOS_INLINE_FUNCTION real operator()(real delta, real dmax, real dmin, real /*eps2*/) const {
    if (delta > 0) return dmax < delta ? dmax / delta : real(1);
    if (delta < 0) return dmin > delta ? dmin / delta : real(1);
    return real(1);
  }
};

/// Venkatakrishnan (1995): a smooth version of Barth-Jespersen; eps2 = (K h)^3 with h = V^(1/3)
/// the cell's size (made dimensionless: operators/muscl/limiter.hpp) lets small oscillations pass
/// unlimited (phi -> 1 where |delta|, |dmax| << eps), so it may create small new extrema, by design.
struct Venkatakrishnan {
  static constexpr bool uses_eps = true;
  KOKKOS_INLINE_FUNCTION real operator()(real delta, real dmax, real dmin, real eps2) const {
    if (delta == 0) return real(1);
    const real dp = delta > 0 ? dmax : dmin;
    const real num = (dp * dp + eps2) * delta + real(2) * delta * delta * dp;
    const real den = dp * dp + real(2) * delta * delta + dp * delta + eps2;
    const real phi = num / (den * delta);
    return phi < real(1) ? phi : real(1);
  }
};

} // namespace fvproxy
