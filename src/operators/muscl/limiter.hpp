#pragma once
// The muscl operator's limiter: per cell and component, phi = min over the cell's faces of the
// limiter functor (physics/limiters.hpp) applied to delta = g . (x_f - x_c), with dmax/dmin the
// largest increase/decrease to the cell's neighbours (and boundary values). Venkatakrishnan's
// threshold is his eps^2 = (K h)^3 made dimensionless, per cell (docs/operators/convection.md):
//   eps_ck^2 = (K h_c / L)^3 (Delta u_k)^2,   h_c = V_c^(1/3),  L = the domain's largest extent
// with Delta u_k the reference range of component k (max - min of the initial field and the
// boundary values). Invariant to the scale and offset of u (u -> a u + b leaves phi unchanged)
// and to the mesh's units; the cell's own size (not the mean cell's) keeps it right on thin,
// stretched and graded meshes. The reconstructed face state is u_c + phi g . (x_f - x_c).
// Storage: limiter (cells x N).
#include <memory>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "operators/operator_geometry.hpp"
#include "operators/operator_options.hpp"
#include "operators/part.hpp"

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

/// `range`: the reference range Delta u_k of each component (solution_range()).
std::unique_ptr<LimiterOperator> make_limiter(const Mesh& mesh, const OperatorGeometry& geom, const MusclConfig& cfg,
                                              int components, const std::vector<real>& range);

/// (min, max) of each component over the cells of u and the boundary values ub (labelled reductions).
/// `rows` (< 0: all) limits u to its first rows (a rank's owned cells).
std::pair<std::vector<real>, std::vector<real>> value_bounds(ConstView2<real> u, ConstView2<real> ub,
                                                             index_t rows = -1);

/// max - min of each component over u and ub (value_bounds).
std::vector<real> solution_range(ConstView2<real> u, ConstView2<real> ub);

/// Venkatakrishnan's reference length L: the domain's largest extent (Mesh::extent, over every
/// rank); 1 for a mesh without extent (no nodes), so that eps stays finite.
inline double venkatakrishnan_length(const Mesh& m) {
  return m.extent() > 0 ? m.extent() : 1.0;
}

/// Venkatakrishnan's per-component factor: eps_ck^2 = scale_k V_c with scale_k = (K / L)^3 range_k^2,
/// L = venkatakrishnan_length.
inline real venkatakrishnan_scale(double K, real range, const Mesh& m) {
  const double x = K / venkatakrishnan_length(m);
  return static_cast<real>(x * x * x * double(range) * double(range));
}

} // namespace fvproxy
