// Gmsh reader: the three encodings of one mesh agree; mixed elements; documented errors.
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "mesh/gmsh_reader.hpp"
#include "mesh/mesh.hpp"
#include "test_helpers.hpp"

namespace fvproxy {
namespace {

using test::expect_input_error;
using test::source_path;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Gmsh, AsciiBinaryAndV22GiveIdenticalMeshes) {
  const HostMesh a = read_gmsh(source_path("mesh/sphere_in_box.msh"));
  const HostMesh b = read_gmsh(source_path("mesh/sphere_in_box_bin.msh"));
  const HostMesh c = read_gmsh(source_path("mesh/sphere_in_box_v22.msh"));
  test::expect_same_mesh(a, b, "b");
  test::expect_same_mesh(a, c, "c");
  EXPECT_GT(a.n_cells(), 1000);
  std::vector<std::string> names;
  for (const auto& p : a.patches) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"xmin", "xmax", "ymin", "ymax", "zmin", "zmax", "sphere"}));
  const Mesh m = upload(a);
  EXPECT_NO_THROW(validate_geometry(m, "sphere"));
  // The box minus an inscribed polyhedral sphere: a little more than 1 - (4/3) pi 0.25^3.
  const double v = check_geometry(m).total_volume;
  EXPECT_GT(v, 1.0 - 4.0 / 3.0 * M_PI * 0.015625);
  EXPECT_LT(v, 0.95);
}

TEST(Gmsh, HybridPrismHex) {
  const HostMesh h = read_gmsh(source_path("mesh/hybrid_channel.msh"));
  int hex = 0, prism = 0;
  for (CellType t : h.cell_type) hex += t == CellType::hex, prism += t == CellType::prism;
  EXPECT_GT(hex, 0);
  EXPECT_GT(prism, 0);
  EXPECT_EQ(hex + prism, h.n_cells());
  const Mesh m = upload(h);
  EXPECT_NO_THROW(validate_geometry(m, "hybrid"));
  EXPECT_NEAR(check_geometry(m).total_volume, 1.0, test::tol(1e-12));
}

// A unit cube as six pyramids around its centre, written as MSH 2.2; `edit` changes the text.
std::string pyramid_cube(bool drop_one_face = false, bool duplicate_cell = false) {
  const double X[9][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},      {0, 0, 1},
                          {1, 0, 1}, {1, 1, 1}, {0, 1, 1}, {0.5, 0.5, 0.5}};
  std::ostringstream s;
  s << "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n2 1 \"walls\"\n3 2 \"fluid\"\n$EndPhysicalNames\n";
  s << "$Nodes\n9\n";
  for (int i = 0; i < 9; ++i) s << i + 1 << ' ' << X[i][0] << ' ' << X[i][1] << ' ' << X[i][2] << '\n';
  s << "$EndNodes\n";
  std::vector<std::string> el;
  int tag = 1;
  for (int f = 0; f < 6; ++f) {
    if (drop_one_face && f == 3) continue;
    const auto& q = element_info(CellType::hex).faces[f].nodes;
    el.push_back(std::to_string(tag++) + " 3 2 1 1 " + std::to_string(q[0] + 1) + ' ' + std::to_string(q[1] + 1) + ' ' +
                 std::to_string(q[2] + 1) + ' ' + std::to_string(q[3] + 1));
  }
  for (int f = 0; f < 6 + (duplicate_cell ? 1 : 0); ++f) {
    const auto& q = element_info(CellType::hex).faces[f % 6].nodes;
    // Base (h0, h3, h2, h1) so that the pyramid's base normal is the hex face's outward normal.
    el.push_back(std::to_string(tag++) + " 7 2 2 1 " + std::to_string(q[0] + 1) + ' ' + std::to_string(q[3] + 1) + ' ' +
                 std::to_string(q[2] + 1) + ' ' + std::to_string(q[1] + 1) + " 9");
  }
  s << "$Elements\n" << el.size() << '\n';
  for (const auto& e : el) s << e << '\n';
  s << "$EndElements\n";
  return s.str();
}

TEST(Gmsh, PyramidsFromV22) {
  const HostMesh h = read_gmsh_text(pyramid_cube(), "pyramids.msh");
  EXPECT_EQ(h.n_cells(), 6);
  for (CellType t : h.cell_type) EXPECT_EQ(t, CellType::pyramid);
  EXPECT_EQ(h.n_faces() - h.n_interior, 6);
  EXPECT_EQ(h.n_interior, 12);
  ASSERT_EQ(h.patches.size(), 1u);
  EXPECT_EQ(h.patches[0].name, "walls");
  const Mesh m = upload(h);
  EXPECT_NO_THROW(validate_geometry(m, "pyramids"));
  EXPECT_NEAR(check_geometry(m).total_volume, 1.0, test::tol(1e-14));
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(Gmsh, DocumentedErrors) {
  const std::string good = pyramid_cube();
  expect_input_error([&] { read_gmsh_text(pyramid_cube(true), "m.msh"); },
                     {"m.msh", "a boundary face lies in no boundary patch", "surface Physical group"});
  expect_input_error([&] { read_gmsh_text(pyramid_cube(false, true), "m.msh"); },
                     {"a face is shared by more than two cells (3)"});
  expect_input_error([&] { read_gmsh_text(replace(good, "0.5 0.5 0.5", "0.5 abc 0.5"), "m.msh"); },
                     {"m.msh:19: error: expected node coordinate (a number), got 'abc' (in $Nodes)"});
  expect_input_error([&] { read_gmsh_text(replace(good, "7 7 2 2 1", "7 11 2 2 1"), "m.msh"); },
                     {"m.msh:", "unsupported element type 11 (10-node tetrahedron)", "Mesh.ElementOrder = 1"});
  expect_input_error([&] { read_gmsh_text(replace(good, " 9\n$EndElements", " 10\n$EndElements"), "m.msh"); },
                     {"refers to node tag 10, which $Nodes does not define"});
  expect_input_error([&] { read_gmsh_text(good.substr(0, good.find("$EndElements") - 20), "m.msh"); },
                     {"m.msh:", "unexpected end of file", "truncated"});
  expect_input_error([&] { read_gmsh_text(replace(good, "$EndNodes", "$EndNode"), "m.msh"); }, {"expected $EndNodes"});
  expect_input_error([&] { read_gmsh_text(replace(good, "2.2 0 8", "3.0 0 8"), "m.msh"); },
                     {"m.msh:2: error: unsupported MSH format version 3.0"});
  expect_input_error([&] { read_gmsh_text("solid cube\nfacet normal 0 0 1\n", "cube.stl"); },
                     {"cube.stl:1: error: not a Gmsh MSH file"});
  expect_input_error([&] { read_gmsh_text(replace(good, "$Nodes\n9\n", "$Nodes\n9\n1 0 0 0\n"), "m.msh"); },
                     {"node tag 1 appears twice"});
  expect_input_error([] { read_gmsh("/nonexistent.msh"); }, {"/nonexistent.msh: error: cannot open the mesh file"});
  // A triangle across the cube's bottom diagonal and the apex is no face of any pyramid.
  std::string stray = replace(good, "$Elements\n12\n", "$Elements\n13\n99 2 2 1 1 1 3 9\n");
  expect_input_error([&] { read_gmsh_text(stray, "m.msh"); },
                     {"m.msh:22: error: surface element 99 matches no face of a volume element (in $Elements)"});
}

TEST(Gmsh, TruncatedFilesGiveLineOrOffset) {
  const std::string ascii = slurp(source_path("mesh/sphere_in_box.msh"));
  expect_input_error([&] { read_gmsh_text(ascii.substr(0, ascii.size() / 2), "half.msh"); }, {"half.msh:", "(in $"});
  const std::string bin = slurp(source_path("mesh/sphere_in_box_bin.msh"));
  // Cut in its element section: the declared element count no longer fits in what is left, which
  // the reader sees before reading past the end (counts are checked against the bytes left).
  expect_input_error([&] { read_gmsh_text(bin.substr(0, bin.size() / 2), "half_bin.msh"); },
                     {"half_bin.msh: byte offset ", "number of elements 4635 cannot be right", "(in $Elements)"});
  // Cut inside a node's coordinates: the end of the file is met.
  expect_input_error([&] { read_gmsh_text(bin.substr(0, bin.size() / 8), "eighth_bin.msh"); },
                     {"eighth_bin.msh: byte offset "});
}

TEST(Gmsh, NonFiniteBinaryCoordinatesAreRefused) {
  // MSH 4.1 binary: after "$Nodes\n", 4 size_t (blocks, nodes, min and max tag), then per block
  // int dim, int tag, int parametric, size_t count, the count node tags (size_t), then the
  // coordinates (3 doubles per node). The first block's first node's y becomes NaN, then +inf.
  const std::string bin = slurp(source_path("mesh/sphere_in_box_bin.msh"));
  const std::size_t nodes = bin.find("$Nodes\n");
  ASSERT_NE(nodes, std::string::npos);
  const std::size_t block = nodes + 7 + 4 * 8;
  std::uint64_t count = 0, tag = 0;
  std::memcpy(&count, bin.data() + block + 12, 8);
  std::memcpy(&tag, bin.data() + block + 20, 8);
  ASSERT_GT(count, 0u);
  ASSERT_LT(count, 100000u);
  const std::size_t y = block + 20 + 8 * count + 8;
  for (const double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    std::string damaged = bin;
    std::memcpy(damaged.data() + y, &bad, 8);
    expect_input_error([&] { read_gmsh_text(damaged, "nan_bin.msh"); },
                       {"nan_bin.msh: byte offset " + std::to_string(y),
                        "node " + std::to_string(tag) + ": coordinate y is " + (std::isnan(bad) ? "nan" : "inf"),
                        "not a finite number"});
  }
  // The same offsets unchanged read fine (the test patches the place it means to).
  EXPECT_NO_THROW(read_gmsh_text(bin, "bin.msh"));
}

} // namespace
} // namespace fvproxy
