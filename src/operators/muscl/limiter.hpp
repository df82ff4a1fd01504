#pragma once
// The muscl operator's limiter: per cell and component, phi = min over the cell's faces of the
// limiter functor (physics/limiters.hpp) applied to delta = g . (x_f - x_c), with dmax/dmin the
// largest increase/decrease to the cell's neighbours (and boundary values). Venkatakrishnan's
// threshold is local (VenkatScale, physics/limiters.hpp; docs/operators/convection.md#limiter):
//   eps_ck^2 = kappa^2 sum_{j in group(k)} max(|max_nb u_j - ref_j|, |min_nb u_j - ref_j|)^2
// over the cell and its face neighbours: it depends on no domain extent or global range, and is
// invariant to a shift or scaling of the mesh and to the units of each variable (u -> a u + b with
// ref -> a ref + b leaves phi unchanged). The reconstructed face state is u_c + phi g . (x_f - x_c).
// Storage: limiter (cells x N).
#include <memory>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "operators/operator_geometry.hpp"
#include "operators/operator_options.hpp"
#include "operators/part.hpp"
#include "physics/limiters.hpp"

namespace fvproxy {

class LimiterOperator {
public:
  virtual ~LimiterOperator() = default;
  /// The limiter values of the owned cells of `part` (operators/part.hpp; a gather: inner reads no
  /// ghost row, frontier reads the ghosts' u).
  virtual void compute(ConstView2<real> u, ConstView2<real> ub, ConstView2<real> grad, View2<real> limiter,
                       Part part = Part::all) const = 0;
  virtual std::string description() const = 0;
};

/// What the limiter needs besides the mesh and its options: each component's reference value and
/// group (VenkatScale). Empty (no component): no limiter.
struct LimiterScale {
  std::vector<real> reference; ///< ref_k: 0 for a physical quantity, a scalar's mid-range
  std::vector<int> group;      ///< components of one group share one scale (a vector's components)
  bool empty() const { return group.empty(); }
  int components() const { return static_cast<int>(group.size()); }
  /// n components measured from 0, each its own group.
  static LimiterScale absolute(int n);
};

/// A LimiterScale on the device, for the naive kernels (run-time component count).
struct LimiterScaleViews {
  View1<real> reference;
  View1<int> group;
};
/// `what` names the allocations: fvproxy::muscl::<what>_reference and _group.
LimiterScaleViews device_views(const LimiterScale& scale, const std::string& what);

/// A scalar field's scale: each component its own group, measured from the midpoint of its range
/// over u and ub (the initial field and its boundary values; value_bounds), so that adding a
/// constant to the field changes nothing.
LimiterScale scalar_limiter_scale(ConstView2<real> u, ConstView2<real> ub);
/// The same from given bounds (every rank's: the solvers' domain_bounds).
LimiterScale scalar_limiter_scale(const std::vector<real>& lo, const std::vector<real>& hi);

/// `scale`: the components' reference values and groups (LimiterScale).
std::unique_ptr<LimiterOperator> make_limiter(const Mesh& mesh, const OperatorGeometry& geom, const MusclConfig& cfg,
                                              const LimiterScale& scale);

/// (min, max) of each component over the cells of u and the boundary values ub (labelled reductions).
/// `rows` (< 0: all) limits u to its first rows (a rank's owned cells).
std::pair<std::vector<real>, std::vector<real>> value_bounds(ConstView2<real> u, ConstView2<real> ub,
                                                             index_t rows = -1);

/// The kernels' VenkatScale of `scale` with kappa = `threshold` (operators.muscl.venkatakrishnan_threshold).
template <int N> VenkatScale<N> venkat_scale(const LimiterScale& scale, double threshold) {
  VenkatScale<N> v{static_cast<real>(threshold * threshold), {}, {}};
  for (int k = 0; k < N; ++k) v.reference[k] = scale.reference[k], v.group[k] = scale.group[k];
  return v;
}

} // namespace fvproxy
