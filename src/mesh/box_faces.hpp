#pragma once
// A generated box's faces enumerated per hex (src/mesh/box_generator.cpp): every hex is split the
// same way, so which cell and local face lies across each cell face is a fixed table of the split
// (HexSplit), and the faces, their owners, node orders, periodic translations and patches follow
// without matching node keys. The result is build_faces' to the bit (tests/test_box_generator.cpp).
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

/// Where a box piece's cells are: the local number of its hexes' cells (hex position q in the
/// ascending list, cell q * n + s), -1 for a hex outside the piece.
class HexPositions {
public:
  /// `hexes`: ascending hex ids, or null for every hex of a box of `total` hexes.
  HexPositions(const std::vector<gid_t>* hexes, gid_t total);
  index_t operator()(gid_t hex) const;

private:
  const std::vector<gid_t>* hexes_;
  gid_t total_, first_ = 0;
  std::vector<index_t> table_; ///< positions over the hexes' span when it is at most 8 times their count
};

/// The faces of the box piece `m` (its cells made per hex of `hexes`, ascending, or of the whole box
/// when null, in hex order and the split's order): m's faces, n_interior, patches (`names`, the last
/// being the piece's cut when `cut_patch` >= 0), translations and cell -> faces CSR, as build_faces
/// makes them. Every periodic axis needs at least 3 hexes.
void enumerate_box_faces(HostMesh& m, const BoxConfig& cfg, const std::vector<gid_t>* hexes,
                         const std::vector<std::string>& names, int cut_patch);

} // namespace fvproxy
