#pragma once
// The muscl operator's limiter: per cell and component, phi = min over the cell's faces of the
// limiter functor (physics/limiters.hpp) applied to delta = g . (x_f - x_c), with dmax/dmin the
// largest increase/decrease to the cell's neighbours (and boundary values). Venkatakrishnan's
// threshold is his eps^2 = (K h)^3 made dimensionless (docs/operators/muscl.md):
//   eps_k^2 = (K h / L)^3 (Delta u_k)^2,   h = (V_total / n_cells)^(1/3),  L = V_total^(1/3)
// with Delta u_k the reference range of component k (max - min of the initial field and the
// boundary values): one value per component, the same in every cell, invariant to the scale and
// offset of u (u -> a u + b leaves phi unchanged) and to the mesh's units. The reconstructed face
// state is u_c + phi g . (x_f - x_c). Storage: limiter (cells x N).
#include <memory>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "operators/operator_geometry.hpp"
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

/// Venkatakrishnan's eps^2 = (K h / L)^3 range^2 = K^3 range^2 / n_cells, since (h / L)^3 = 1 / n_cells
/// for h the mean cell size and L the size of the domain.
/// `n_cells` counts the cells of every rank (Mesh::n_global_cells).
inline real venkatakrishnan_eps2(double K, real range, gid_t n_cells) {
  return static_cast<real>(K * K * K * double(range) * double(range) / double(n_cells > 0 ? n_cells : 1));
}

} // namespace fvproxy
