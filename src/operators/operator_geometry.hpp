#pragma once
// Per-face and per-cell coefficients the operators need, computed once from the mesh geometry
// (the optimized variants read them; the naive ones recompute them in their inner loops).
//
//   d(f)          interior faces: neighbour centroid (its periodic image next to the owner)
//                 minus owner centroid
//   r(f)          every face: face centroid minus owner centroid (on boundary faces the
//                 least-squares and diffusion "neighbour" point is the face centroid)
//   gg_weight(f)  interior faces: owner weight of the face value for Green-Gauss,
//                 w = S.(d - r) / S.d (1/2 on a uniform mesh); u_f = w u_P + (1 - w) u_N is the
//                 linear interpolation to x_i = x_P + (1 - w) d, where the line between the two
//                 centroids crosses the face's plane (x_i = x_f only on unskewed faces)
//   gg_inverse(c, 9)  inverse of the Green-Gauss correction matrix G_c = sum over the cell's faces
//                 of s S_f (x_i,f - x_c)^T (x_i = the face centroid on boundary faces), row-major:
//                 grad u_c = G_c^{-1} sum_f s u_f S_f is exact for linear fields on any closed
//                 polyhedral cell, skewed or not (G_c = V_c I when every x_i is the face centroid
//                 of a planar face: then it is the textbook Green-Gauss gradient)
//   diff_alpha(f), diff_k(f)  DiffusionCoefficients (physics/fluxes.hpp) of every face, with d on
//                 interior faces and r on boundary faces
//   ghost(b), ghost_weight(b), mirror(b)  boundary faces (b = f - n_interior): where the boundary
//                 value ub(b) of a gradient sits (docs/physics.md#boundary-values-for-gradients).
//                 On a face-value face (mirror 0: Dirichlet, inflow, outflow, far field) ub is the
//                 value at the face centroid: ghost = r, ghost_weight = 0. On a mirror face (mirror 1:
//                 walls and symmetry planes of the flow models) ub is the ghost cell's value, the
//                 owner's mirror image about the face's plane: ghost = 2 (r . n) n (the mirrored
//                 centroid), ghost_weight = 1/2 (the face value is (u_P + ub) / 2). Least squares
//                 takes ub at x_c + ghost, Green-Gauss the face value w u_P + (1 - w) ub at x_f.
//   lsq_inverse(c, 6)  inverse of M_c = sum over faces of v v^T (v: d to the neighbour, or ghost on
//                 a boundary face; unit weights, docs/operators/muscl.md says why),
//                 symmetric: xx yy zz xy xz yz
//   stencil      operators.muscl.stencil's extra entries of the least-squares gradient and the
//                limiter's extremes (operators/vertex_stencil.hpp): none for the face stencil; the
//                vertex neighbours and their mirror images for the vertex stencil, which lsq_inverse
//                then includes
//   cell_boundary_begin(c)  position in the cell->faces CSR where the cell's boundary faces begin
//                 (a cell lists its faces by increasing face number: interior ones first), so
//                 kernels loop over interior and boundary faces without a per-face branch
#include <vector>

#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "operators/vertex_stencil.hpp"

namespace fvproxy {

struct OperatorGeometry {
  Vec3View<real> d;
  Vec3View<real> r;
  View1<real> gg_weight;
  View2<real> gg_inverse;
  View1<real> diff_alpha;
  Vec3View<real> diff_k;
  View2<real> lsq_inverse;
  View1<index_t> cell_boundary_begin;
  Vec3View<real> ghost;
  View1<real> ghost_weight;
  View1<std::int8_t> mirror;
  VertexStencil stencil;

  std::size_t memory_bytes() const;
};

/// Labelled kernels "fvproxy::operators::..." on the device. InputError naming the cell's global
/// id when a least-squares or Green-Gauss correction matrix is singular (a cell whose neighbours
/// are coplanar, or a degenerate cell). `mirror_patches[p]` true: patch p's boundary values are
/// mirror ghosts (walls, symmetry planes); empty or false: face values. `stencil`: the gradients'
/// and limiter's (operators.muscl.stencil).
OperatorGeometry make_operator_geometry(const Mesh& m, const std::vector<bool>& mirror_patches = {},
                                        Stencil stencil = Stencil::face);

/// Index of the symmetric 3x3 entry (i, j) in the 6-vector xx yy zz xy xz yz.
KOKKOS_INLINE_FUNCTION constexpr int sym_index(int i, int j) {
  return i == j ? i : (i + j == 1 ? 3 : (i + j == 2 ? 4 : 5));
}

} // namespace fvproxy
