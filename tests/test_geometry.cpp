// Geometry of single reference elements: volumes, centroids, outward area vectors, closure.
#include <cmath>

#include "mesh/mesh.hpp"
#include "test_helpers.hpp"

namespace fvproxy {
namespace {

struct AllToPatch0 final : BoundaryClassifier {
  int patch_of(const HostMesh&, const index_t*, int) const override { return 0; }
  std::string where() const override { return ""; }
};

HostMesh single(CellType t, const std::vector<double>& x) {
  HostMesh h;
  h.x = x;
  const index_t n = index_t(x.size() / 3);
  for (index_t v = 0; v < n; ++v) h.node_gid.push_back(v);
  std::vector<index_t> nodes(n);
  for (index_t v = 0; v < n; ++v) nodes[v] = v;
  h.add_cell(t, nodes.data(), 0);
  build_faces(h, {"all"}, AllToPatch0{});
  return h;
}

struct Expected {
  CellType type;
  std::vector<double> x;
  double volume;
  std::array<double, 3> centroid;
};

TEST(Geometry, ReferenceElements) {
  const std::vector<Expected> cases{
      {CellType::tet, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, 1.0 / 6, {0.25, 0.25, 0.25}},
      {CellType::hex, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1}, 1.0, {0.5, 0.5, 0.5}},
      {CellType::prism, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1}, 0.5, {1.0 / 3, 1.0 / 3, 0.5}},
      {CellType::pyramid, {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0.5, 0.5, 1}, 1.0 / 3, {0.5, 0.5, 0.25}},
  };
  for (const auto& e : cases) {
    SCOPED_TRACE(element_info(e.type).name);
    const HostMesh h = single(e.type, e.x);
    ASSERT_EQ(h.n_faces(), element_info(e.type).n_faces);
    const Mesh m = upload(h);
    EXPECT_NO_THROW(validate_geometry(m, "test"));
    auto V = Kokkos::create_mirror_view_and_copy(HostSpace(), m.volume);
    auto C = Kokkos::create_mirror_view_and_copy(HostSpace(), m.centroid);
    auto S = Kokkos::create_mirror_view_and_copy(HostSpace(), m.face_area);
    auto F = Kokkos::create_mirror_view_and_copy(HostSpace(), m.face_centroid);
    EXPECT_NEAR(V(0), e.volume, test::tol(1e-14));
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(C(0, d), e.centroid[d], test::tol(1e-14));
    for (index_t f = 0; f < m.n_faces; ++f) {
      double out = 0;
      for (int d = 0; d < 3; ++d) out += (F(f, d) - C(0, d)) * S(f, d);
      EXPECT_GT(out, 0) << "face " << f << " area vector points into the cell";
    }
  }
}

TEST(Geometry, NonPlanarHexIsClosedAndVolumeMatchesTets) {
  // A hex with one lifted corner: non-planar faces. The fan triangulation keeps it closed, and the
  // volume equals the sum over 24 tets (centroid of nodes, face centre, edge) computed here.
  std::vector<double> x{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1.2, 1.1, 1.3, 0, 1, 1};
  const HostMesh h = single(CellType::hex, x);
  const Mesh m = upload(h);
  EXPECT_NO_THROW(validate_geometry(m, "test"));
  auto V = Kokkos::create_mirror_view_and_copy(HostSpace(), m.volume);
  auto p = [&](int i) { return std::array<double, 3>{x[3 * i], x[3 * i + 1], x[3 * i + 2]}; };
  std::array<double, 3> ref{0, 0, 0};
  for (int i = 0; i < 8; ++i)
    for (int d = 0; d < 3; ++d) ref[d] += p(i)[d] / 8;
  double vol = 0;
  for (const auto& f : element_info(CellType::hex).faces) {
    std::array<double, 3> c{0, 0, 0};
    for (int i = 0; i < 4; ++i)
      for (int d = 0; d < 3; ++d) c[d] += p(f.nodes[i])[d] / 4;
    for (int i = 0; i < 4; ++i) {
      const auto a = p(f.nodes[i]), b = p(f.nodes[(i + 1) % 4]);
      const double u[3] = {a[0] - ref[0], a[1] - ref[1], a[2] - ref[2]};
      const double v[3] = {b[0] - ref[0], b[1] - ref[1], b[2] - ref[2]};
      const double w[3] = {c[0] - ref[0], c[1] - ref[1], c[2] - ref[2]};
      vol += (w[0] * (u[1] * v[2] - u[2] * v[1]) - w[1] * (u[0] * v[2] - u[2] * v[0]) +
              w[2] * (u[0] * v[1] - u[1] * v[0])) /
             6;
    }
  }
  EXPECT_NEAR(V(0), vol, test::tol(1e-14));
  EXPECT_GT(V(0), 1.0);
}

TEST(Geometry, InvertedElementIsRefused) {
  const HostMesh h = single(CellType::tet, {0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1}); // nodes 1, 2 swapped
  const Mesh m = upload(h);
  test::expect_input_error([&] { validate_geometry(m, "inverted.msh"); },
                           {"inverted.msh: error: non-positive cell volume", "cell (global id) 0"});
}

} // namespace
} // namespace fvproxy
