#pragma once
// The mesh as built on the host (generator, Gmsh reader, reordering), before it is copied to the
// device. Every index is local; cells and nodes carry their global id.
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "mesh/element.hpp"

namespace fvproxy {

struct Patch {
  std::string name;
  index_t begin = 0; ///< first face (faces of a patch are contiguous)
  index_t end = 0;   ///< one past the last face
};

struct HostMesh {
  /// Spatial dimension of the cells: 3 for every mesh fvproxy generates or reads (volume elements
  /// only); carried so that kernels written for any dimension take it from the mesh.
  int dim = 3;

  // Nodes
  std::vector<double> x; ///< 3 * n_nodes coordinates (node-major: x0 y0 z0 x1 ...)
  std::vector<gid_t> node_gid;
  /// Node key for face matching: periodic partner nodes share one key. Empty = the node index.
  std::vector<index_t> node_key;

  // Cells
  std::vector<CellType> cell_type;
  std::vector<index_t> cell_node_off{0}; ///< CSR offsets into cell_nodes
  std::vector<index_t> cell_nodes;
  std::vector<gid_t> cell_gid;

  // Faces: interior faces [0, n_interior) sorted by (owner, neighbour) with owner < neighbour,
  // then boundary faces grouped by patch. A face's nodes are ordered so that its area vector points
  // out of the owner.
  std::vector<index_t> face_node_off{0};
  std::vector<index_t> face_nodes;
  std::vector<index_t> face_owner;
  std::vector<index_t> face_neighbour; ///< -1 on boundary faces
  /// Periodic translation of interior faces: index into `shifts` (0 = none). The neighbour's
  /// image next to the owner lies at (neighbour position) + shifts[face_shift[f]].
  std::vector<std::uint8_t> face_shift;
  std::vector<std::array<double, 3>> shifts{{0.0, 0.0, 0.0}};
  index_t n_interior = 0;
  std::vector<Patch> patches;

  // Cell -> faces CSR, in the order of the cell's reference faces; sign +1 when the cell owns the
  // face (area vector outward), -1 when it is the neighbour.
  std::vector<index_t> cell_face_off{0};
  std::vector<index_t> cell_faces;
  std::vector<std::int8_t> cell_face_sign;

  index_t n_nodes() const { return static_cast<index_t>(node_gid.size()); }
  index_t n_cells() const { return static_cast<index_t>(cell_type.size()); }
  index_t n_faces() const { return static_cast<index_t>(face_owner.size()); }

  /// Appends a cell (its nodes in the element's reference ordering).
  void add_cell(CellType t, const index_t* nodes, gid_t gid);
};

/// Sorts a face's few node indices in place (insertion sort: n <= kMaxFaceNodes).
inline void sort_face_key(index_t* k, int n) {
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && k[j] < k[j - 1]; --j) {
      const index_t t = k[j];
      k[j] = k[j - 1];
      k[j - 1] = t;
    }
}

/// The nodes of cell c's local face lf (the element's reference order: outward), into `out`;
/// their count.
inline int cell_face_nodes(const HostMesh& m, index_t c, int lf, index_t* out) {
  const LocalFace& f = element_info(m.cell_type[c]).faces[lf];
  const index_t* cn = m.cell_nodes.data() + m.cell_node_off[c];
  for (int i = 0; i < f.n; ++i) out[i] = cn[f.nodes[i]];
  return f.n;
}

/// What two cells' faces are matched by: the node keys of cell c's local face lf (node_key, or the
/// node), sorted, the rest of the kMaxFaceNodes entries the largest index.
inline void cell_face_key(const HostMesh& m, index_t c, int lf, index_t* key) {
  const int n = cell_face_nodes(m, c, lf, key);
  for (int i = 0; i < kMaxFaceNodes; ++i)
    key[i] = i < n ? (m.node_key.empty() ? key[i] : m.node_key[key[i]]) : std::numeric_limits<index_t>::max();
  sort_face_key(key, n);
}

/// Assigns a boundary face (its node indices, owner orientation) to a patch; returns the patch
/// number or -1 when the face lies in no patch.
struct BoundaryClassifier {
  virtual ~BoundaryClassifier() = default;
  virtual int patch_of(const HostMesh& m, const index_t* nodes, int n) const = 0;
  /// Describes an unclassified face for the error message.
  virtual std::string where() const = 0;
};

/// Builds faces from cells: matches cell faces by their node keys (sorting, O(n log n)), makes
/// the interior/boundary split, periodic translations, patches and the cell->faces CSR.
/// InputError for a face shared by more than two cells or a boundary face outside every patch.
void build_faces(HostMesh& m, const std::vector<std::string>& patch_names, const BoundaryClassifier& classify);

/// Sorts faces into their canonical order (interior by (owner, neighbour), then boundary by patch
/// and owner), sets n_interior and the patch ranges, and rebuilds the cell->faces CSR.
/// `patch_of` gives each face's patch (-1: interior); empty = take it from the current ranges.
/// Used by build_faces and by reordering.
void finalize_faces(HostMesh& m, std::vector<int> patch_of = {});

/// The cell -> faces CSR (cell_face_off, cell_faces, cell_face_sign) from the faces' owners and
/// neighbours: each cell's faces in increasing face order, +1 where it owns the face, -1 else.
void build_cell_faces(HostMesh& m);

/// The centre of a face (its nodes' mean, summed in the given order).
std::array<double, 3> face_center(const HostMesh& m, const index_t* nodes, int n);

/// Distances below which build_faces takes two points as one: 1e-9 of the nodes' bounding box's
/// diagonal.
double face_match_tolerance(const HostMesh& m);

/// Index of translation `t` in m.shifts (adding it and its opposite when new).
std::uint8_t shift_index(HostMesh& m, const std::array<double, 3>& t, double tol);

} // namespace fvproxy
