#pragma once
// Unlimited cell gradients of every component, owned by the muscl operator (docs/inputs.md#solver-sections): the
// MUSCL reconstruction limits them and the diffusion operator uses them as they are.
//
//   Green-Gauss:    grad u_c = G_c^{-1} sum_f s_f u_f S_f, u_f = w u_P + (1 - w) u_N on interior
//                   faces (w: OperatorGeometry::gg_weight), u_f = u_b on boundary faces, G_c the
//                   cell's correction matrix sum_f s_f S_f (x_i,f - x_c)^T (V_c I on unskewed
//                   cells): exact for linear fields on any mesh, so consistent on skewed cells
//                   where (1/V_c) sum_f ... is not (OperatorGeometry::gg_inverse).
//   least squares:  grad u_c = M_c^{-1} sum_f v_f (u_f' - u_c), v_f the vector to the neighbour
//                   centroid (periodic image) or to the boundary face centroid, u_f' the
//                   neighbour's or the boundary value, M_c = sum_f v_f v_f^T (unit weights:
//                   inverse-distance weights make unlimited MUSCL unstable on distorted tets,
//                   docs/operators/muscl.md). Exact for linear fields on any mesh.
//
// Storage: u (cells x N), boundary values ub (boundary faces x N, row f - n_interior),
// grad (cells x 3N) with column 3k + d for component k, direction d.
#include <memory>
#include <string>

#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "operators/operator_geometry.hpp"
#include "operators/operator_options.hpp"
#include "operators/part.hpp"

namespace fvproxy {

class GradientOperator {
public:
  virtual ~GradientOperator() = default;
  /// grad of the cells of `part` (operators/part.hpp): inner reads no ghost row of u, frontier
  /// needs them; a scatter's inner part zeroes grad and must come first; layer1 (two ghost layers)
  /// is a gather whatever the variant, after the owned cells.
  virtual void compute(ConstView2<real> u, ConstView2<real> ub, View2<real> grad, Part part = Part::all) const = 0;
  /// "naive", "optimized/gather/range", ... (what runs, for reports)
  virtual std::string description() const = 0;
};

/// The variant and options of `cfg` for `components` components. Under `deterministic`, every
/// variant gathers (no atomics).
std::unique_ptr<GradientOperator> make_gradient(const Mesh& mesh, const OperatorGeometry& geom, const MusclConfig& cfg,
                                                int components, bool deterministic);

} // namespace fvproxy
