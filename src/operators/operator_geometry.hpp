#pragma once
// Per-face and per-cell coefficients the operators need, computed once from the mesh geometry
// (the optimized variants read them; the naive ones recompute them in their inner loops).
//
//   d(f)          interior faces: neighbour centroid (its periodic image next to the owner)
//                 minus owner centroid
//   r(f)          every face: face centroid minus owner centroid (on boundary faces the
//                 least-squares and diffusion "neighbour" point is the face centroid)
//   gg_weight(f)  interior faces: owner weight of the face value for Green-Gauss,
//                 w = S.(d - r) / S.d (1/2 on a uniform mesh); u_f = w u_P + (1 - w) u_N
//   diff_alpha(f), diff_k(f)  DiffusionCoefficients (physics/fluxes.hpp) of every face, with d on
//                 interior faces and r on boundary faces
//   lsq_weight(f) least-squares weight 1/|d|^2 (interior faces) or 1/|r|^2 (boundary faces)
//   lsq_inverse(c, 6)  inverse of M_c = sum over faces of w d d^T with w = 1/|d|^2 (d: to the
//                 neighbour, or to the boundary face centroid), symmetric: xx yy zz xy xz yz
//   cell_boundary_begin(c)  position in the cell->faces CSR where the cell's boundary faces begin
//                 (a cell lists its faces by increasing face number: interior ones first), so
//                 kernels loop over interior and boundary faces without a per-face branch
#include "core/types.hpp"
#include "mesh/mesh.hpp"

namespace fvproxy {

struct OperatorGeometry {
  Vec3View<real> d;
  Vec3View<real> r;
  View1<real> gg_weight;
  View1<real> diff_alpha;
  Vec3View<real> diff_k;
  View1<real> lsq_weight;
  View2<real> lsq_inverse;
  View1<index_t> cell_boundary_begin;

  std::size_t memory_bytes() const;
};

/// Labelled kernels "fvproxy::operators::..." on the device. InputError naming the cell's global
/// id when a least-squares matrix is singular (a cell whose neighbours are coplanar).
OperatorGeometry make_operator_geometry(const Mesh& m);

/// Index of the symmetric 3x3 entry (i, j) in the 6-vector xx yy zz xy xz yz.
KOKKOS_INLINE_FUNCTION constexpr int sym_index(int i, int j) {
  return i == j ? i : (i + j == 1 ? 3 : (i + j == 2 ? 4 : 5));
}

} // namespace fvproxy
