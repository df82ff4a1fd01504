#pragma once
// One rank's part of a partitioned mesh: its owned cells and one or two layers of ghost cells (the
// first: the other ranks' cells that share a face with an owned cell; the second: those that share
// a face with the first), with what the halo exchange needs. No MPI here: any rank's part can be
// extracted from the global mesh in one process (the tests do so for every rank).
// docs/decomposition.md#the-local-mesh.
//
// Cells: [0, n_inner) owned cells with no ghost neighbour, [n_inner, n_owned) owned cells next to a
// ghost ("frontier"), then the first layer's ghosts, then the second layer's (two layers), each
// layer grouped by owner rank (ascending), by global id within a rank. Owned cells keep the
// relative order of the global mesh (its curve order) within each of the two classes. Global ids
// everywhere.
// Faces: interior faces between two owned cells [0, n_owned_faces), then interior faces between
// an owned cell and a ghost [n_owned_faces, n_interior), then the owned cells' boundary faces by
// patch, [n_interior, n_faces_owned); with two layers then the first layer's boundary faces by
// patch (layer1_patches) and the interior faces between two ghosts of which one at least is in the
// first layer, [outer_begin, n_faces()): every face of a first-layer ghost is present. Each class
// in the global mesh's face order. Every face keeps its global orientation, node order and
// periodic shift, so its geometry is computed bitwise as on one rank; the owner of a face may
// therefore be the ghost (face_owner > face_neighbour there, unlike the global mesh). A cell's faces
// (cell_faces) are in global face order, so sums over them are too. Every patch of the global mesh
// is present by name, empty where this rank has none of its faces. The last layer's ghosts do not
// have all their faces here: their geometry must come from their owner.
// node_key: where the global mesh has keys (periodic partners share one), each local node's key
// is the local node of smallest index with the same global key (the vertex stencil finds periodic
// partners by it; a local mesh is never re-faced or reordered).
//
// Vertex adjacency (`vertex`, operators.muscl.stencil: vertex or corners; docs/operators/muscl.md#stencil):
// "neighbour" above is then every cell sharing a node with the cell, or a periodic partner of one
// (node_key), instead of every cell sharing a face: the first layer holds every vertex neighbour of
// an owned cell, the second every vertex neighbour of the first, the frontier is every owned cell
// with a ghost vertex neighbour, and the first layer's boundary faces include the second layer's
// (the vertex stencil's mirror planes at a first-layer cell's nodes need every face of the patch
// there). The faces are otherwise chosen as with face adjacency. Corners only (GhostAdjacency::
// corner_patches, operators.muscl.stencil: corners): "neighbour" is every vertex neighbour for the
// cells at a corner of those patches and for their vertex neighbours, the face neighbours between
// two other cells; so the corner cells among the owned and the first layer have every vertex
// neighbour here, with every face of the patches at their nodes, and the rest the face stencil's.
#include <string>
#include <vector>

#include "mesh/host_mesh.hpp"

namespace fvproxy {

/// What one rank exchanges with one neighbour rank: rows in the order of the receiver's ghosts
/// (its first layer's by gid, then its second layer's by gid).
struct HaloLink {
  int rank = -1;             ///< the neighbour
  std::vector<index_t> send; ///< owned cells the neighbour holds as ghosts, in its ghost order
  std::vector<index_t> recv; ///< this rank's ghosts owned by the neighbour, in the same order
};

/// Which cells are next to each other for the ghost layers (docs/decomposition.md#the-local-mesh):
/// those sharing a face; with `vertex`, those sharing a node or a periodic partner of one
/// (HostMesh::node_key); with `corner_patches` as well (operators.muscl.stencil: corners), those
/// sharing a node only where one of the two has a node on two or more of those patches (an edge or
/// corner where the stencil's mirror planes meet: the cells that take vertex entries), those sharing
/// a face elsewhere. Symmetric: a cell is next to another exactly when the other is next to it.
struct GhostAdjacency {
  bool vertex = false;
  bool corners = false;                    ///< with `vertex`: only where two of corner_patches meet
  std::vector<std::string> corner_patches; ///< with `corners` (none: face adjacency everywhere)
  bool corners_only() const { return vertex && corners; }
};

/// The cells of `m` with a node on two or more of the patches named `names` (a node of two patches'
/// faces; the vertex stencil's corners rule, operators/vertex_stencil.hpp).
std::vector<char> cells_at_corners(const HostMesh& m, const std::vector<std::string>& names);

/// The cells next to each cell (GhostAdjacency). for_each(c, f) calls f(n) for each, possibly more
/// than once, never for c itself.
class CellAdjacency {
public:
  CellAdjacency(const HostMesh& m, const GhostAdjacency& rule);
  template <class F> void for_each(index_t c, F&& f) const {
    const bool all = vertex_ && (!corners_ || corner_[c]);
    if (!all) {
      for (index_t k = m_.cell_face_off[c]; k < m_.cell_face_off[c + 1]; ++k) {
        const index_t x = m_.cell_faces[k];
        const index_t n = m_.face_owner[x] == c ? m_.face_neighbour[x] : m_.face_owner[x];
        if (n >= 0 && n != c) f(n);
      }
      if (!vertex_) return;
    }
    for (index_t k = m_.cell_node_off[c]; k < m_.cell_node_off[c + 1]; ++k) {
      const index_t key = key_of(m_.cell_nodes[k]);
      for (index_t q = key_off_[key]; q < key_off_[key + 1]; ++q) {
        const index_t n = key_cells_[q];
        if (n != c && (all || corner_[n])) f(n);
      }
    }
  }
  bool vertex() const { return vertex_; }

private:
  index_t key_of(index_t v) const { return m_.node_key.empty() ? v : m_.node_key[v]; }
  const HostMesh& m_;
  bool vertex_, corners_;                    ///< GhostAdjacency::vertex, corners_only()
  std::vector<char> corner_;                 ///< corners only: the cells at a corner
  std::vector<index_t> key_off_, key_cells_; ///< vertex: key -> the cells with a node of that key
};

struct LocalMesh {
  HostMesh host;
  int rank = 0, ranks = 1;
  index_t n_owned = 0;               ///< owned cells: [0, n_owned)
  index_t n_inner = 0;               ///< owned cells with no ghost neighbour: [0, n_inner)
  index_t n_owned_faces = 0;         ///< interior faces between owned cells: [0, n_owned_faces)
  int layers = 1;                    ///< ghost layers (parallel.halo.layers)
  bool vertex = false;               ///< the layers by vertex adjacency (see above)
  bool corners_only = false;         ///< ... at the cells at corners only (GhostAdjacency::corner_patches)
  index_t n_layer1 = 0;              ///< first-layer ghosts: [n_owned, n_owned + n_layer1)
  index_t n_faces_owned = 0;         ///< faces of owned cells: [0, n_faces_owned) (host.patches)
  index_t outer_begin = 0;           ///< ghost-ghost faces: [outer_begin, host.n_faces()) (two layers)
  std::vector<Patch> layer1_patches; ///< the first layer's boundary faces, [n_faces_owned, outer_begin)
  std::vector<HaloLink> links;       ///< one per neighbour rank, by rank
  std::vector<index_t> global_cell;  ///< local cell -> cell of the global mesh
  std::vector<index_t> global_face;  ///< local face -> face of the global mesh
  /// Local node -> its row in mesh files (node_file_rows of the global mesh); empty: the node's
  /// global id (a generated box, whose ids are 0..n-1).
  std::vector<index_t> node_row;
  std::int64_t n_global_nodes = 0; ///< nodes of the global mesh
  index_t n_ghosts() const { return host.n_cells() - n_owned; }
};

/// The row of each node in mesh files: the nodes in ascending global id (the id itself when the ids
/// are 0..n-1), so that ranks that know only their part's nodes write the same rows.
std::vector<index_t> node_file_rows(const HostMesh& m);

/// Extracts rank `rank`'s part (cells with part[c] == rank) of `global` among `ranks` parts, with
/// `layers` (1 or 2) ghost layers. The parts of the cells within `layers` faces (vertex: vertices) of the rank's cells
/// must be known (part[c] >= 0 there; others may be -1). With one rank the result is `global`
/// itself, bitwise (all cells inner, same order). `adjacency`: which cells are next to each other
/// (above; by faces when not given).
LocalMesh extract_local(const HostMesh& global, const std::vector<int>& part, int rank, int ranks, int layers = 1,
                        const GhostAdjacency& adjacency = {});

} // namespace fvproxy
