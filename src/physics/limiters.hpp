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

/// Venkatakrishnan (1995): a smooth version of Barth-Jespersen; eps2 (a local threshold: VenkatScale
/// below) lets small oscillations pass unlimited (phi -> 1 where |delta|, |dmax| << eps), so it may
/// create small new extrema, by design.
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

/// Venkatakrishnan's threshold, local and invariant (docs/operators/convection.md#limiter): per cell
/// and component k,
///   eps_k^2 = kappa^2 sum over the components j of k's group of S_j^2,
///   S_j = max(|hi_j - ref_j|, |lo_j - ref_j|)
/// with hi_j / lo_j the largest / smallest value of component j over the cell and its neighbours
/// (the values the limiter bounds the reconstruction by), ref_j its reference value (0 for a
/// physical quantity: density, pressure, velocity; the midpoint of the initial range for a
/// scalar) and kappa = operators.muscl.venkatakrishnan_threshold. S_j is the size of the variable
/// where the cell is, measured from ref_j: no domain extent, no global range, and eps scales with
/// each variable's units (u -> a u, ref -> a ref: eps -> |a| eps). A group limits a vector by one
/// scale (the three velocity components: eps is invariant to the frame's rotation).
/// S = max(|hi - ref|, |lo - ref|) of VenkatScale, for hi >= lo: max(hi - ref, ref - lo) (>= 0:
/// their sum is hi - lo).
KOKKOS_INLINE_FUNCTION real venkat_size(real hi, real lo, real ref) {
  const real a = hi - ref, b = ref - lo;
  return a > b ? a : b;
}

/// VenkatScale's eps^2 of component k for the naive kernels (run-time component count n): the
/// group's members' bounds(j, hi, lo) computed again for each; group(j), reference(j) callables
/// (views).
template <class Group, class Reference, class Bounds>
KOKKOS_INLINE_FUNCTION real group_eps2(real kappa2, int n, int k, const Group& group, const Reference& reference,
                                       const Bounds& bounds) {
  real sum = 0;
  for (int j = 0; j < n; ++j) {
    if (group(j) != group(k)) continue;
    real hi, lo;
    bounds(j, hi, lo);
    const real m = venkat_size(hi, lo, reference(j));
    sum += m * m;
  }
  return kappa2 * sum;
}

template <int N> struct VenkatScale {
  real kappa2;       ///< kappa^2
  real reference[N]; ///< ref_k
  int group[N];      ///< the group of component k (components with equal group share one scale)
  KOKKOS_INLINE_FUNCTION void eps2(const real (&hi)[N], const real (&lo)[N], real (&e2)[N]) const {
    real s2[N];
    for (int k = 0; k < N; ++k) {
      const real m = venkat_size(hi[k], lo[k], reference[k]);
      s2[k] = m * m;
    }
    for (int k = 0; k < N; ++k) {
      real sum = 0;
      for (int j = 0; j < N; ++j) sum += group[j] == group[k] ? s2[j] : real(0);
      e2[k] = kappa2 * sum;
    }
  }
};

} // namespace fvproxy
