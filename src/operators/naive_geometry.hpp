#pragma once
// Geometry as the naive kernels use it: recomputed from centroids, face centroids and periodic
// shifts at every use (their mistake, on purpose), shared by the naive gradient and diffusion.
// The spatial dimension is a run-time value taken from the mesh (`dim` = Mesh::dim, 3 for every
// mesh fvproxy builds), as in legacy codes that also run in 2D: every loop over directions has a
// run-time trip count, so the compiler cannot unroll it and the small per-thread arrays indexed by
// it (vectors, the least-squares matrix) live in local memory (the stack frame the cuda preset's
// ptxas report shows for the naive kernels). This one mistake alone doubled naive diffusion's time
// on the H200 (docs/performance.md).
#include "core/kokkos_compat.hpp"
#include "core/types.hpp"
#include "mesh/mesh.hpp"

namespace fvproxy::naive {

/// Size of the naive kernels' direction arrays (the largest dimension the legacy code supports).
inline constexpr int kMaxDim = 3;

/// The mesh views every naive kernel reads (centroids C, face centroids F, periodic shifts T, area
/// vectors S, the faces' cells, each cell's faces [off(c), off(c + 1)) and their signs, volumes).
struct NaiveFaces {
  ConstVec3View<real> C, F, T, S;
  ConstView1<index_t> owner, neighbour, off, faces;
  ConstView1<std::int8_t> sign;
  ConstView1<std::uint8_t> shift;
  ConstView1<real> volume;
  static NaiveFaces of(const Mesh& m) {
    return {m.centroid,      m.face_centroid, m.shifts,         m.face_area,  m.face_owner, m.face_neighbour,
            m.cell_face_off, m.cell_faces,    m.cell_face_sign, m.face_shift, m.volume};
  }
};

/// Geometry the naive kernels recompute: vector from cell c across its k-th face entry.
struct NaiveGeometry : NaiveFaces {
  index_t n_interior;
  index_t outer_begin; ///< Mesh::outer_begin: faces at or above it are interior too (two ghost layers)
  int dim;             ///< run-time spatial dimension, Mesh::dim (the mistake: loops over it cannot be unrolled)
  index_t n_owned;     ///< Mesh::n_cells: rows at or above it are ghosts, which a scatter never adds to
  ConstView1<std::int8_t> mirror; ///< per boundary face: 1 where ub is a mirror ghost (OperatorGeometry::mirror)
  /// operators.muscl.stencil's extra entries (OperatorGeometry::stencil; views of no rows where no
  /// kernel reads them: then the kernels test and skip them, the first port's run-time branch).
  ConstView1<index_t> s_off = {}, s_img = {}, s_index = {};
  ConstView1<std::uint8_t> s_shift = {};
  ConstVec3View<real> s_shifts = {}, s_image_x = {};
  index_t first_row = 0;

  /// Whether cell c has stencil entries to read.
  KOKKOS_INLINE_FUNCTION bool has_stencil() const { return s_off.extent(0) > 0; }
  /// The position of stencil entry q of cell c minus its centroid, recomputed.
  KOKKOS_INLINE_FUNCTION void stencil_dx(index_t c, index_t q, real* v) const {
    for (int i = 0; i < dim; ++i)
      v[i] = q < s_img(c) ? C(s_index(q), i) + s_shifts(s_shift(q), i) - C(c, i)
                          : s_image_x(s_index(q) - first_row, i) - C(c, i);
  }
  /// Stencil entry q's value of component k: a vertex neighbour's u or a mirror image's ub.
  KOKKOS_INLINE_FUNCTION real stencil_value(index_t c, index_t q, const ConstView2<real>& u, const ConstView2<real>& ub,
                                            int k) const {
    return q < s_img(c) ? u(s_index(q), k) : ub(s_index(q), k);
  }

  /// Whether face f is an interior face (a run-time test per face, as the first port has it).
  KOKKOS_INLINE_FUNCTION bool interior(index_t f) const { return f < n_interior || f >= outer_begin; }
  /// Vector from the owner centroid to the neighbour image (interior) or the face centroid.
  KOKKOS_INLINE_FUNCTION void owner_to_other(index_t f, real* v) const {
    const index_t o = owner(f);
    if (interior(f)) {
      for (int i = 0; i < dim; ++i) v[i] = C(neighbour(f), i) + T(shift(f), i) - C(o, i);
    } else {
      for (int i = 0; i < dim; ++i) v[i] = F(f, i) - C(o, i);
    }
  }
  /// owner_to_other, but to where a boundary value sits (least squares): the owner's centroid
  /// mirrored about the face's plane on a mirror face (OperatorGeometry::ghost), recomputed.
  KOKKOS_INLINE_FUNCTION void owner_to_ghost(index_t f, real* v) const {
    owner_to_other(f, v);
    if (interior(f) || !mirror(f - n_interior)) return;
    real a = 0, rn = 0;
    for (int i = 0; i < dim; ++i) a += S(f, i) * S(f, i);
    a = kc::sqrt(a);
    for (int i = 0; i < dim; ++i) rn += v[i] * S(f, i) / a;
    for (int i = 0; i < dim; ++i) v[i] = 2 * rn * S(f, i) / a;
  }
  /// The owner's weight in a boundary face's Green-Gauss face value (OperatorGeometry::ghost_weight).
  KOKKOS_INLINE_FUNCTION real boundary_weight(index_t f) const { return mirror(f - n_interior) ? real(0.5) : real(0); }
  /// Green-Gauss owner weight, recomputed with a division.
  KOKKOS_INLINE_FUNCTION real gg_weight(index_t f) const {
    real d[kMaxDim], sd = 0, sdr = 0;
    owner_to_other(f, d);
    for (int i = 0; i < dim; ++i) {
      sd += S(f, i) * d[i];
      sdr += S(f, i) * (d[i] - (F(f, i) - C(owner(f), i)));
    }
    return sdr / sd;
  }
};

/// The naive kernels' view of mesh `m`; `mirror`: OperatorGeometry::mirror (the naive gradient's
/// boundary values), empty where no kernel reads it.
inline NaiveGeometry naive_geometry(const Mesh& m, ConstView1<std::int8_t> mirror = {}) {
  return {NaiveFaces::of(m), m.n_interior, m.outer_begin, m.dim, m.n_cells, mirror};
}

/// naive_geometry with the stencil's views of `s` (OperatorGeometry::stencil).
template <class Stencil> NaiveGeometry with_stencil(NaiveGeometry g, const Stencil& s) {
  g.s_off = s.off, g.s_img = s.image_begin, g.s_index = s.index, g.s_shift = s.shift;
  g.s_shifts = s.shifts, g.s_image_x = s.image_x, g.first_row = s.first_row;
  return g;
}

} // namespace fvproxy::naive
