#pragma once
// Reference elements: node counts and local faces, each listed so that the right-hand rule gives
// the outward normal (Gmsh's node ordering for tet, hex, prism and pyramid).
#include <cstdint>

namespace fvproxy {

enum class CellType : std::uint8_t { tet = 0, hex = 1, prism = 2, pyramid = 3 };
inline constexpr int kCellTypes = 4;
inline constexpr int kMaxCellNodes = 8;
inline constexpr int kMaxCellFaces = 6;
inline constexpr int kMaxFaceNodes = 4;

struct LocalFace {
  int n;                    ///< 3 (triangle) or 4 (quadrilateral)
  int nodes[kMaxFaceNodes]; ///< local node numbers, outward orientation
};

struct ElementInfo {
  const char* name;
  int n_nodes;
  int n_faces;
  LocalFace faces[kMaxCellFaces];
};

inline constexpr ElementInfo kElements[kCellTypes] = {
    // tet: 0,1,2 counterclockwise seen from 3
    {"tet", 4, 4, {{3, {0, 2, 1, -1}}, {3, {0, 1, 3, -1}}, {3, {0, 3, 2, -1}}, {3, {1, 2, 3, -1}}}},
    // hex: 0-3 bottom counterclockwise seen from the top 4-7
    {"hex",
     8,
     6,
     {{4, {0, 3, 2, 1}},
      {4, {4, 5, 6, 7}},
      {4, {0, 1, 5, 4}},
      {4, {1, 2, 6, 5}},
      {4, {2, 3, 7, 6}},
      {4, {3, 0, 4, 7}}}},
    // prism: triangle 0,1,2 below triangle 3,4,5
    {"prism", 6, 5, {{3, {0, 2, 1, -1}}, {3, {3, 4, 5, -1}}, {4, {0, 1, 4, 3}}, {4, {1, 2, 5, 4}}, {4, {2, 0, 3, 5}}}},
    // pyramid: quadrilateral base 0-3, apex 4
    {"pyramid",
     5,
     5,
     {{4, {0, 3, 2, 1}}, {3, {0, 1, 4, -1}}, {3, {1, 2, 4, -1}}, {3, {2, 3, 4, -1}}, {3, {3, 0, 4, -1}}}},
};

inline constexpr const ElementInfo& element_info(CellType t) {
  return kElements[static_cast<int>(t)];
}

} // namespace fvproxy
