#pragma once
// Which part of a rank's owned cells an operator call covers (docs/halo.md#overlap), so that
// the work that reads no ghost value can run while the halo messages fly:
//
//   all       every owned cell and every face that touches one (what one rank does);
//   inner     the owned cells with no ghost neighbour, [0, n_inner), the interior faces between two
//             owned cells, [0, n_owned_faces), and every boundary face (boundary faces belong to
//             owned cells): nothing here reads a ghost row;
//   frontier  the owned cells next to a ghost, [n_inner, n_cells), and the faces between an owned
//             cell and a ghost, [n_owned_faces, n_interior);
//   layer1    with two ghost layers (docs/halo.md#two-ghost-layers), the first layer's ghosts,
//             [n_cells, n_cells + n_layer1), whose gradients and limiter values the muscl operator
//             computes here (a gather over their faces, whatever the variant's scatter); no face of
//             the flux operators. Empty with one ghost layer.
//
// inner then frontier does what all does. A face scatter over the frontier's faces adds to the
// owned side only: the ghost's own rank adds the other side, so every flux across a rank boundary
// reaches its owned cell exactly once and nothing is added into ghost rows.
#include <array>

#include "core/types.hpp"
#include "mesh/mesh.hpp"

namespace fvproxy {

enum class Part { all, inner, frontier, layer1 };
inline const char* to_string(Part p) {
  return p == Part::all ? "all" : p == Part::inner ? "inner" : p == Part::frontier ? "frontier" : "layer1";
}

/// Which rows a pointwise kernel over cells fills (the flow solver's derived fields, computed
/// before and after the state's exchange: docs/halo.md#overlap): every local cell; the owned
/// cells [0, n_cells) and their boundary faces; the ghost rows [n_cells, n_local) alone, and the
/// first ghost layer's boundary faces (two layers). owned then ghosts does what all does.
/// owned_boundary: the owned cells' boundary faces alone, when their cell rows are already current
/// (the flow models' fused stage update wrote them: operators/flow/flow_stage_update.hpp).
enum class Rows { all, owned, ghosts, owned_boundary };

/// [begin, end) of entity indices.
struct IndexRange {
  index_t begin = 0, end = 0;
  index_t size() const { return end > begin ? end - begin : 0; }
};

/// The mesh's counts that split its entities into parts (copied from a Mesh: operators keep it).
struct PartRanges {
  index_t n_cells = 0, n_inner = 0, n_interior = 0, n_owned_faces = 0, n_faces = 0, n_layer1 = 0;

  static PartRanges of(const Mesh& m) {
    return {m.n_cells, m.n_inner, m.n_interior, m.n_owned_faces, m.n_faces, m.n_layer1};
  }
  /// The cell rows of `r` in a mesh of `n_local` local cells (owned and ghosts).
  IndexRange rows(Rows r, index_t n_local) const {
    if (r == Rows::owned) return {0, n_cells};
    if (r == Rows::ghosts) return {n_cells, n_local};
    if (r == Rows::owned_boundary) return {};
    return {0, n_local};
  }
  /// Whether the owned cells' boundary faces belong to `r` (all, owned, owned_boundary).
  static bool has_boundary(Rows r) { return r != Rows::ghosts; }
  /// The owned cells of `p`.
  IndexRange cells(Part p) const {
    if (p == Part::inner) return {0, n_inner};
    if (p == Part::frontier) return {n_inner, n_cells};
    if (p == Part::layer1) return {n_cells, n_cells + n_layer1};
    return {0, n_cells};
  }
  /// Interior faces between two owned cells (all, inner).
  IndexRange owned_faces(Part p) const {
    return p == Part::frontier || p == Part::layer1 ? IndexRange{} : IndexRange{0, n_owned_faces};
  }
  /// Interior faces between an owned cell and a ghost (all, frontier): a scatter adds to the owned side only.
  IndexRange cross_faces(Part p) const {
    return p == Part::inner || p == Part::layer1 ? IndexRange{} : IndexRange{n_owned_faces, n_interior};
  }
  /// Whether the boundary faces [n_interior, n_faces) belong to `p` (all, inner).
  static bool has_boundary(Part p) { return p == Part::all || p == Part::inner; }
  /// The boundary faces of `p`, as face indices.
  IndexRange boundary_faces(Part p) const {
    return has_boundary(p) ? IndexRange{n_interior, n_faces} : IndexRange{n_interior, n_interior};
  }
  /// Every face of `p` as the ranges a loop over all face kinds launches (the naive scatters): all
  /// faces in one range for all, else the part's owned, cross and boundary faces (some empty).
  std::array<IndexRange, 3> faces(Part p) const {
    if (p == Part::all) return {IndexRange{0, n_faces}, IndexRange{}, IndexRange{}};
    return {owned_faces(p), cross_faces(p), boundary_faces(p)};
  }
};

/// The faces of patch `p` whose boundary values the rows `r` need: the owned cells' (all, owned,
/// owned_boundary) and the first ghost layer's (all, ghosts; none with one ghost layer).
inline std::array<IndexRange, 2> patch_faces(const Mesh& m, std::size_t p, Rows r) {
  std::array<IndexRange, 2> out{};
  if (r != Rows::ghosts) out[0] = {m.patches[p].begin, m.patches[p].end};
  if ((r == Rows::all || r == Rows::ghosts) && p < m.layer1_patches.size())
    out[1] = {m.layer1_patches[p].begin, m.layer1_patches[p].end};
  return out;
}

} // namespace fvproxy
