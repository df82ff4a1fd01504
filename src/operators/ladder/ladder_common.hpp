#pragma once
// What the ladder's translation units share (operators/ladder/ladder.hpp): the geometry the steps
// before "precomputed" recompute (as the naive kernels do, with the dimension fixed at 3 from step
// 2 on), the dispatch on 1 and 5 components, and the options of the steps that delegate to the
// existing variants (0: naive, 6: optimized gather/range).
#include <stdexcept>
#include <string>

#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "operators/ladder/ladder.hpp"
#include "operators/part.hpp"

namespace fvproxy::ladder {

/// The mesh's views as the naive kernels read them, plus cell_boundary_begin (topology: where a
/// cell's boundary faces begin in its face list) for the steps that split the loops.
struct Geometry {
  ConstVec3View<real> C, F, S, T;
  ConstView1<index_t> owner, neighbour, off, faces, bbegin;
  ConstView1<std::int8_t> sign;
  ConstView1<std::uint8_t> shift;
  ConstView1<real> volume;
  index_t n_interior;
  index_t n_owned; ///< Mesh::n_cells: rows at or above it are ghosts, which a scatter never adds to

  static Geometry of(const Mesh& m, const OperatorGeometry& og) {
    return {m.centroid,       m.face_centroid, m.face_area,
            m.shifts,         m.face_owner,    m.face_neighbour,
            m.cell_face_off,  m.cell_faces,    og.cell_boundary_begin,
            m.cell_face_sign, m.face_shift,    m.volume,
            m.n_interior,     m.n_cells};
  }
  /// From the owner centroid to the neighbour's periodic image (interior) or the face centroid,
  /// recomputed (3-D).
  KOKKOS_INLINE_FUNCTION void owner_to_other(index_t f, real* v) const {
    const index_t o = owner(f);
    if (f < n_interior) {
      for (int i = 0; i < 3; ++i) v[i] = C(neighbour(f), i) + T(shift(f), i) - C(o, i);
    } else {
      for (int i = 0; i < 3; ++i) v[i] = F(f, i) - C(o, i);
    }
  }
  /// Interior face only: owner to neighbour image.
  KOKKOS_INLINE_FUNCTION void owner_to_neighbour(index_t f, real* v) const {
    const index_t o = owner(f), n = neighbour(f);
    for (int i = 0; i < 3; ++i) v[i] = C(n, i) + T(shift(f), i) - C(o, i);
  }
  /// Owner centroid to face centroid.
  KOKKOS_INLINE_FUNCTION void owner_to_face(index_t f, real* v) const {
    const index_t o = owner(f);
    for (int i = 0; i < 3; ++i) v[i] = F(f, i) - C(o, i);
  }
  /// Green-Gauss owner weight S.(d - r) / S.d of an interior face, with a division (recomputed).
  KOKKOS_INLINE_FUNCTION real gg_weight(index_t f) const {
    real d[3], r[3];
    owner_to_neighbour(f, d);
    owner_to_face(f, r);
    real sd = 0, sdr = 0;
    for (int i = 0; i < 3; ++i) {
      sd += S(f, i) * d[i];
      sdr += S(f, i) * (d[i] - r[i]);
    }
    return sdr / sd;
  }
};

/// Make<N>::make(args...) for N = 1 or 5; InputError otherwise.
template <template <int> class Make, class... Args> auto dispatch(int n, Args&&... args) {
  if (n == 5) return Make<5>::make(std::forward<Args>(args)...);
  if (n != 1) check_ladder_components(n, "physics.components");
  return Make<1>::make(std::forward<Args>(args)...);
}

/// The ladder's operators cover every owned cell and face at once (the benchmark paths' calls).
inline void check_part(Part p, const char* what) {
  if (p != Part::all)
    throw std::logic_error(std::string(what) + ": the ablation ladder's operators compute Part::all only");
}

/// Step 0's options (the naive variant) and step 6's (the optimized kernels, gather, RangePolicy).
template <class Config> Config step_options(Config c, int step) {
  c.variant = step == 0 ? Variant::naive : Variant::optimized;
  c.scatter = Scatter::gather;
  c.policy = Policy::range;
  return c;
}

} // namespace fvproxy::ladder
