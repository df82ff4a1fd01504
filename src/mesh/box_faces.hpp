#pragma once
// A generated box's faces enumerated per hex (src/mesh/box_generator.cpp): every hex is split the
// same way, so which cell and local face lies across each cell face is a fixed table of the split
// (HexSplit), and the faces, their owners, node orders, periodic translations and patches follow
// without matching node keys. The result is build_faces' to the bit (tests/test_box_generator.cpp).
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "mesh/host_mesh.hpp"
#include "mesh/mesh_options.hpp"

namespace fvproxy {

/// One hex's cells: each cell's corners as corner codes (bit 0: +x, bit 1: +y, bit 2: +z), in the
/// element's reference node order and the generator's cell order; and, per cell and local face,
/// what lies across it.
struct HexSplit {
  struct Across {
    int hex_face = -1; ///< -1: a cell of the same hex; else 2 a + side: the hex's face on axis a
    int cell = -1;     ///< the cell across (in the same hex, or in the hex across hex_face)
    int face = -1;     ///< its local face
  };
  CellType type = CellType::hex;
  int n_cells = 0;
  std::array<std::array<int, kMaxCellNodes>, 6> corner{};
  std::array<std::array<Across, kMaxCellFaces>, 6> across{};
};

/// The split of `kind` (hex: one hex; prism: two; tet: six around the main diagonal).
const HexSplit& hex_split(ElementKind kind);

/// The position of each id of an ascending list (a table over their span when it is at most 8
/// times their count, else a binary search), -1 for an id not in it; without a list, every id of
/// [0, total) is its own position. A box piece's hexes and nodes are found by it.
template <class Id> class SortedPositions {
public:
  SortedPositions(const std::vector<Id>* ids, Id total) : ids_(ids), total_(total) {
    if (!ids || ids->empty()) return;
    first_ = ids->front();
    const std::size_t span = std::size_t(ids->back() - first_) + 1;
    if (span > 8 * ids->size()) return;
    table_.assign(span, -1);
    for (std::size_t q = 0; q < ids->size(); ++q) table_[std::size_t((*ids)[q] - first_)] = static_cast<index_t>(q);
  }
  index_t operator()(Id id) const {
    if (!ids_) return id >= 0 && id < total_ ? static_cast<index_t>(id) : -1;
    if (!table_.empty()) return id >= first_ && id - first_ < Id(table_.size()) ? table_[std::size_t(id - first_)] : -1;
    const auto it = std::lower_bound(ids_->begin(), ids_->end(), id);
    return it != ids_->end() && *it == id ? static_cast<index_t>(it - ids_->begin()) : -1;
  }

private:
  const std::vector<Id>* ids_;
  Id total_, first_ = 0;
  std::vector<index_t> table_;
};

/// Where a box piece's cells are: hex q of its ascending list holds cells q n .. q n + n - 1.
using HexPositions = SortedPositions<gid_t>;

/// The faces of the box piece `m` (its cells made per hex of `hexes`, ascending, or of the whole box
/// when null, in hex order and the split's order): m's faces, n_interior, patches (`names`, the last
/// being the piece's cut when `cut_patch` >= 0), translations and cell -> faces CSR, as build_faces
/// makes them. Every periodic axis needs at least 3 hexes.
void enumerate_box_faces(HostMesh& m, const BoxConfig& cfg, const std::vector<gid_t>* hexes,
                         const std::vector<std::string>& names, int cut_patch);

} // namespace fvproxy
