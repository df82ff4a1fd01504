// Box generator: counts, total volume, closure, periodic matching, closed-form global ids, jitter.
#include <cmath>
#include <set>
#include <tuple>

#include "mesh/box_generator.hpp"
#include "mesh/mesh.hpp"
#include "test_helpers.hpp"

namespace fvproxy {
namespace {

struct BoxCase {
  ElementKind element;
  std::array<bool, 3> periodic;
  double perturb;
};

std::string name_of(const BoxCase& c) {
  std::string s = to_string(c.element);
  s += "_p";
  for (int a = 0; a < 3; ++a) s += c.periodic[a] ? char('x' + a) : '0';
  s += c.perturb > 0 ? "_jitter" : "_regular";
  return s;
}

class BoxTest : public ::testing::TestWithParam<BoxCase> {
protected:
  BoxConfig config() const {
    BoxConfig b;
    b.cells = {4, 3, 5};
    b.element = GetParam().element;
    b.lengths = {2.0, 1.5, 0.5};
    b.origin = {-1.0, 0.25, 3.0};
    b.periodic = GetParam().periodic;
    b.perturb = GetParam().perturb;
    b.seed = 42;
    return b;
  }
};

TEST_P(BoxTest, CountsVolumeClosure) {
  const BoxConfig b = config();
  const HostMesh h = generate_box(b);
  const long nh = long(b.cells[0]) * b.cells[1] * b.cells[2];
  const int per = b.element == ElementKind::tet ? 6 : b.element == ElementKind::prism ? 2 : 1;
  EXPECT_EQ(h.n_cells(), nh * per);
  EXPECT_EQ(h.n_nodes(), (b.cells[0] + 1) * (b.cells[1] + 1) * (b.cells[2] + 1));
  // Boundary faces: per non-periodic side, its quads (split into 2 triangles where the element does).
  long boundary = 0;
  for (int a = 0; a < 3; ++a) {
    if (b.periodic[a]) continue;
    const long quads = nh / b.cells[a];
    const int split = b.element == ElementKind::tet || (b.element == ElementKind::prism && a == 2) ? 2 : 1;
    boundary += 2 * quads * split;
  }
  EXPECT_EQ(h.n_faces() - h.n_interior, boundary);
  long cell_faces = 0;
  for (CellType t : h.cell_type) cell_faces += element_info(t).n_faces;
  EXPECT_EQ(2L * h.n_interior + boundary, cell_faces);
  EXPECT_EQ(h.patches.size(), box_patch_names(b).size());
  for (const auto& p : h.patches) {
    EXPECT_GT(p.end - p.begin, 0) << p.name;
  }

  const Mesh m = upload(h);
  EXPECT_NO_THROW(validate_geometry(m, "test"));
  const GeometryChecks g = check_geometry(m);
  EXPECT_NEAR(g.total_volume, 2.0 * 1.5 * 0.5, test::tol(1e-12));
  EXPECT_GT(g.min_volume, 0.0);
  EXPECT_LT(g.max_closure, test::tol(1e-12));
}

TEST_P(BoxTest, FaceOrderingAndCsr) {
  const HostMesh h = generate_box(config());
  for (index_t f = 0; f < h.n_interior; ++f) {
    ASSERT_GE(h.face_neighbour[f], 0);
    ASSERT_LT(h.face_owner[f], h.face_neighbour[f]);
    if (f > 0) {
      ASSERT_LE(std::make_pair(h.face_owner[f - 1], h.face_neighbour[f - 1]),
                std::make_pair(h.face_owner[f], h.face_neighbour[f]));
    }
  }
  for (index_t f = h.n_interior; f < h.n_faces(); ++f) ASSERT_EQ(h.face_neighbour[f], -1);
  for (index_t c = 0; c < h.n_cells(); ++c) {
    ASSERT_EQ(h.cell_face_off[c + 1] - h.cell_face_off[c], element_info(h.cell_type[c]).n_faces);
    for (index_t k = h.cell_face_off[c]; k < h.cell_face_off[c + 1]; ++k) {
      const index_t f = h.cell_faces[k];
      ASSERT_EQ(h.cell_face_sign[k] > 0 ? h.face_owner[f] : h.face_neighbour[f], c);
    }
  }
}

TEST_P(BoxTest, PeriodicMatchingAndJitter) {
  const BoxConfig b = config();
  const HostMesh h = generate_box(b);
  const Mesh m = upload(h);
  auto C = Kokkos::create_mirror_view_and_copy(HostSpace(), m.centroid);
  const double hmax = std::max({b.lengths[0] / b.cells[0], b.lengths[1] / b.cells[1], b.lengths[2] / b.cells[2]});
  int periodic_faces = 0;
  for (index_t f = 0; f < h.n_interior; ++f) {
    const auto& t = h.shifts[h.face_shift[f]];
    double d2 = 0;
    for (int k = 0; k < 3; ++k) {
      const double d = C(h.face_neighbour[f], k) + t[k] - C(h.face_owner[f], k);
      d2 += d * d;
    }
    ASSERT_LT(std::sqrt(d2), 2 * hmax) << "face " << f << ": neighbour image not next to the owner";
    if (h.face_shift[f] != 0) {
      ++periodic_faces;
      int axis = -1;
      for (int k = 0; k < 3; ++k)
        if (std::abs(t[k]) > 0) axis = k;
      ASSERT_GE(axis, 0);
      EXPECT_TRUE(b.periodic[axis]);
      EXPECT_NEAR(std::abs(t[axis]), b.lengths[axis], 1e-12);
    }
  }
  long expected = 0;
  const long nh = long(b.cells[0]) * b.cells[1] * b.cells[2];
  for (int a = 0; a < 3; ++a)
    if (b.periodic[a])
      expected +=
          (nh / b.cells[a]) * (b.element == ElementKind::tet || (b.element == ElementKind::prism && a == 2) ? 2 : 1);
  EXPECT_EQ(periodic_faces, expected);

  // Boundary-plane nodes stay on their plane; periodic partners share their tangential position.
  const int nx = b.cells[0], ny = b.cells[1];
  for (index_t v = 0; v < h.n_nodes(); ++v) {
    const int ijk[3] = {int(v % (nx + 1)), int((v / (nx + 1)) % (ny + 1)), int(v / ((nx + 1) * (ny + 1)))};
    ASSERT_EQ(h.node_gid[v], v);
    for (int a = 0; a < 3; ++a) {
      const double x = h.x[3 * v + a];
      if (ijk[a] == 0) {
        EXPECT_EQ(x, b.origin[a]);
      }
      if (ijk[a] == b.cells[a]) {
        EXPECT_NEAR(x, b.origin[a] + b.lengths[a], 1e-14);
      }
      if (b.perturb == 0) {
        EXPECT_NEAR(x, b.origin[a] + ijk[a] * b.lengths[a] / b.cells[a], 1e-14);
      }
    }
    for (int a = 0; a < 3; ++a)
      if (b.periodic[a] && ijk[a] == b.cells[a]) {
        const index_t partner = h.node_key[v];
        for (int t = 0; t < 3; ++t) {
          // Tangential axes (a corner node also wraps along its other periodic axes: skip those).
          if (t != a && !(b.periodic[t] && ijk[t] == b.cells[t])) {
            EXPECT_EQ(h.x[3 * v + t], h.x[3 * partner + t]);
          }
        }
      }
  }
}

TEST_P(BoxTest, ClosedFormGlobalIds) {
  const BoxConfig b = config();
  const HostMesh h = generate_box(b);
  std::set<gid_t> ids(h.cell_gid.begin(), h.cell_gid.end());
  ASSERT_EQ(ids.size(), h.cell_gid.size());
  EXPECT_EQ(*ids.begin(), 0);
  EXPECT_EQ(*ids.rbegin(), gid_t(h.n_cells()) - 1);
  if (b.perturb > 0) return;
  const Mesh m = upload(h);
  auto C = Kokkos::create_mirror_view_and_copy(HostSpace(), m.centroid);
  const int per = b.element == ElementKind::tet ? 6 : b.element == ElementKind::prism ? 2 : 1;
  for (index_t c = 0; c < h.n_cells(); ++c) {
    const gid_t hex = h.cell_gid[c] / per; // the hex (i, j, k) the cell lies in
    const int i = int(hex % b.cells[0]), j = int((hex / b.cells[0]) % b.cells[1]),
              k = int(hex / (b.cells[0] * b.cells[1]));
    const int ijk[3] = {i, j, k};
    for (int a = 0; a < 3; ++a) {
      const double lo = b.origin[a] + ijk[a] * b.lengths[a] / b.cells[a];
      EXPECT_GT(C(c, a), lo);
      EXPECT_LT(C(c, a), lo + b.lengths[a] / b.cells[a]);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Boxes, BoxTest,
                         ::testing::Values(BoxCase{ElementKind::hex, {false, false, false}, 0.0},
                                           BoxCase{ElementKind::hex, {true, true, true}, 0.3},
                                           BoxCase{ElementKind::tet, {false, false, false}, 0.2},
                                           BoxCase{ElementKind::tet, {true, false, true}, 0.0},
                                           BoxCase{ElementKind::prism, {false, true, false}, 0.3},
                                           BoxCase{ElementKind::prism, {false, false, false}, 0.0},
                                           BoxCase{ElementKind::tet, {true, true, true}, 0.3}),
                         [](const ::testing::TestParamInfo<BoxCase>& info) { return name_of(info.param); });

TEST(Box, JitterIsSeededAndNonOrthogonal) {
  BoxConfig b;
  b.cells = {4, 4, 4};
  b.perturb = 0.25;
  const HostMesh h1 = generate_box(b), h2 = generate_box(b);
  EXPECT_EQ(h1.x, h2.x);
  b.seed = 2;
  const HostMesh h3 = generate_box(b);
  EXPECT_NE(h1.x, h3.x);
}

TEST(Box, PieceHoldsTheWholeBoxsCellsAndNodes) {
  // A piece (generate_box_piece) has the whole box's cells of its hexes with the same nodes, by
  // global id and position: a compact piece (its nodes found through a table over their span) and
  // one of two far-apart hexes of a periodic box (a span 8 times its nodes: a binary search).
  BoxConfig b;
  b.cells = {5, 4, 6};
  b.element = ElementKind::tet;
  b.perturb = 0.2;
  b.periodic = {false, true, true};
  const HostMesh whole = generate_box(b);
  for (const std::vector<gid_t>& hexes :
       {std::vector<gid_t>{6, 7, 8, 11, 12, 13, 26, 27}, std::vector<gid_t>{0, 119}}) {
    SCOPED_TRACE(std::to_string(hexes.size()) + " hexes");
    const HostMesh piece = generate_box_piece(b, hexes);
    ASSERT_EQ(piece.n_cells(), index_t(6 * hexes.size()));
    for (index_t c = 0; c < piece.n_cells(); ++c) {
      const gid_t g = piece.cell_gid[c];
      ASSERT_EQ(g / 6, hexes[std::size_t(c / 6)]);
      const index_t w = static_cast<index_t>(g); // the whole box's cell of that id
      ASSERT_EQ(whole.cell_gid[w], g);
      for (int k = 0; k < 4; ++k) {
        const index_t u = piece.cell_nodes[piece.cell_node_off[c] + k],
                      v = whole.cell_nodes[whole.cell_node_off[w] + k];
        EXPECT_EQ(piece.node_gid[u], whole.node_gid[v]);
        for (int a = 0; a < 3; ++a) EXPECT_EQ(piece.x[3 * u + a], whole.x[3 * v + a]);
      }
    }
  }
}

TEST(Box, EnumeratedFacesAreTheMatchedOnes) {
  // The faces enumerated per hex (mesh/box_faces.hpp, the default) are build_faces' to the bit:
  // every element kind, periodic axes (with 3 hexes, the fewest), jitter, the whole box and
  // pieces (compact, scattered, wrapping round a periodic axis, one hex).
  const std::vector<std::array<bool, 3>> periodics = {
      {false, false, false}, {true, false, true}, {false, true, false}, {true, true, true}};
  const std::vector<std::vector<gid_t>> pieces = {
      {0, 1, 2, 3, 4, 5, 12, 13, 14, 15, 16, 17}, {2, 9, 10, 33, 59}, {0, 2, 3, 5, 48, 50}, {31}};
  for (const ElementKind e : {ElementKind::tet, ElementKind::hex, ElementKind::prism})
    for (const std::array<bool, 3>& periodic : periodics) {
      BoxConfig b;
      b.cells = {3, 4, 5};
      b.element = e;
      b.lengths = {2.0, 1.5, 0.5};
      b.origin = {-1.0, 0.25, 3.0};
      b.periodic = periodic;
      b.perturb = periodic[1] ? 0.3 : 0.0;
      b.seed = 7;
      SCOPED_TRACE(std::string(to_string(e)) + " periodic " + std::to_string(periodic[0]) +
                   std::to_string(periodic[1]) + std::to_string(periodic[2]));
      test::expect_same_mesh(generate_box(b), generate_box(b, BoxFaces::match), "whole box");
      for (const std::vector<gid_t>& hexes : pieces) {
        test::expect_same_mesh(generate_box_piece(b, hexes), generate_box_piece(b, hexes, BoxFaces::match),
                               std::to_string(hexes.size()) + " hexes from " + std::to_string(hexes[0]));
      }
    }
}

} // namespace
} // namespace fvproxy
