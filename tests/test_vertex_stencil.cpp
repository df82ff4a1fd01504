// The vertex stencil (operators/vertex_stencil.hpp): on a uniform hex box each cell's stencil is the
// 26 cells around it of the infinite lattice, whether the box ends in walls or symmetry planes (the
// entries then include the mirror images, twice and three times mirrored at edges and corners) or
// is periodic (the entries through the periodic faces, translated next to the cell); the same
// stencil on any number of host threads. (Decomposed meshes: tests/mpi/test_distributed_run.cpp.)
#include <algorithm>
#include <array>
#include <set>

#include "mesh/host_parallel.hpp"
#include "operator_fixture.hpp"
#include "operators/flow/flow_convection.hpp"
#include "operators/muscl/muscl.hpp"
#include "operators/operator_geometry.hpp"
#include "test_helpers.hpp"

namespace fvproxy {
namespace {

/// Per cell: the lattice offsets (in cells) of its face neighbours, mirror faces' ghosts and stencil
/// entries; fails when one is not a lattice point or appears twice.
std::vector<std::vector<std::array<int, 3>>> lattice_offsets(const Mesh& m, const OperatorGeometry& g, double h) {
  const auto host = [](const auto& v) { return Kokkos::create_mirror_view_and_copy(HostSpace(), v); };
  const auto off = host(m.cell_face_off), faces = host(m.cell_faces), owner = host(m.face_owner);
  const auto sign = host(m.cell_face_sign);
  const auto d = host(g.d), ghost = host(g.ghost);
  const auto mirror = host(g.mirror);
  const auto C = host(m.centroid);
  const auto s_off = host(g.stencil.off), s_img = host(g.stencil.image_begin), s_index = host(g.stencil.index);
  const auto s_shift = host(g.stencil.shift);
  const auto shifts = host(g.stencil.shifts), image_x = host(g.stencil.image_x);
  std::vector<std::vector<std::array<int, 3>>> out(static_cast<std::size_t>(m.n_cells));
  for (index_t c = 0; c < m.n_cells; ++c) {
    auto& o = out[c];
    const auto add = [&](const double(&v)[3]) {
      std::array<int, 3> k{};
      for (int i = 0; i < 3; ++i) {
        k[i] = static_cast<int>(std::lround(v[i] / h));
        EXPECT_NEAR(v[i], k[i] * h, test::tol(1e-9) * h) << "cell " << c << ": not a lattice point";
      }
      o.push_back(k);
    };
    for (index_t q = off(c); q < off(c + 1); ++q) {
      const index_t f = faces(q);
      if (f < m.n_interior) {
        const double v[3] = {sign(q) * d(f, 0), sign(q) * d(f, 1), sign(q) * d(f, 2)};
        add(v);
      } else if (mirror(f - m.n_interior)) {
        const index_t b = f - m.n_interior;
        EXPECT_EQ(owner(f), c);
        const double v[3] = {ghost(b, 0), ghost(b, 1), ghost(b, 2)};
        add(v);
      }
    }
    for (index_t q = s_off(c); q < s_off(c + 1); ++q) {
      double v[3];
      for (int i = 0; i < 3; ++i)
        v[i] = q < s_img(c) ? C(s_index(q), i) + shifts(s_shift(q), i) - C(c, i)
                            : image_x(s_index(q) - g.stencil.first_row, i) - C(c, i);
      add(v);
    }
  }
  return out;
}

/// Every cell sees the 26 lattice neighbours, each once.
void expect_full_lattice(const Mesh& m, const OperatorGeometry& g, double h) {
  const auto offsets = lattice_offsets(m, g, h);
  std::set<std::array<int, 3>> all;
  for (int i = -1; i <= 1; ++i)
    for (int j = -1; j <= 1; ++j)
      for (int k = -1; k <= 1; ++k)
        if (i || j || k) all.insert({i, j, k});
  for (index_t c = 0; c < m.n_cells; ++c) {
    const std::set<std::array<int, 3>> got(offsets[c].begin(), offsets[c].end());
    EXPECT_EQ(offsets[c].size(), got.size()) << "cell " << c << ": an offset twice";
    EXPECT_EQ(got, all) << "cell " << c;
  }
}

TEST(VertexStencil, HexBoxWithMirrorWallsSeesTheMirroredLattice) {
  // 3 x 3 x 3 hexes, every side a mirror patch: the corner cell's 26 are 3 face neighbours, 3 mirror
  // faces' ghosts, 4 vertex neighbours and 16 images (9 once, 6 twice, 1 three times mirrored).
  const HostMesh h = test::box_mesh(ElementKind::hex, {false, false, false}, 0.0, Ordering::none, {3, 3, 3});
  const Mesh m = upload(h);
  const OperatorGeometry g = make_operator_geometry(m, std::vector<bool>(m.patches.size(), true), Stencil::vertex);
  expect_full_lattice(m, g, 1.0 / 3);
  EXPECT_GT(g.stencil.n_images, 0);
  // Without mirror patches the boundary cells have fewer: the face stencil's cells plus the vertex
  // neighbours inside the box (a corner: 3 + 4; its boundary faces' values sit at the face centroids).
  const OperatorGeometry plain = make_operator_geometry(m, {}, Stencil::vertex);
  EXPECT_EQ(plain.stencil.n_images, 0);
  EXPECT_EQ(plain.stencil.n_entries, 8 * 4 + 12 * 7 + 6 * 12 + 20);
}

TEST(VertexStencil, CornersKeepsTheVertexEntriesWhereTwoMirrorPlanesMeetOnly) {
  // operators.muscl.stencil: corners. Jittered tets, mirror patches ymin, zmin and xmax (ymax, zmax
  // and xmin not): a cell with a node on two of them (the edges y = z = 0, x = 1 & y = 0, x = 1 &
  // z = 0) has exactly the vertex stencil's entries and images, every other cell none (the face stencil).
  const HostMesh h = test::box_mesh(ElementKind::tet, {false, false, false}, 0.15, Ordering::zorder, {4, 3, 3});
  const Mesh m = upload(h);
  std::vector<bool> mirror(m.patches.size(), false);
  for (std::size_t p = 0; p < m.patches.size(); ++p)
    mirror[p] = m.patches[p].name == "ymin" || m.patches[p].name == "zmin" || m.patches[p].name == "xmax";
  const OperatorGeometry v = make_operator_geometry(m, mirror, Stencil::vertex);
  const OperatorGeometry k = make_operator_geometry(m, mirror, Stencil::corners);
  const auto host = [](const auto& x) { return Kokkos::create_mirror_view_and_copy(HostSpace(), x); };
  const auto node_off = host(m.cell_node_off), nodes = host(m.cell_nodes);
  const auto X = host(m.node_x);
  const auto v_off = host(v.stencil.off), v_index = host(v.stencil.index), v_img = host(v.stencil.image_begin);
  const auto k_off = host(k.stencil.off), k_index = host(k.stencil.index), k_img = host(k.stencil.image_begin);
  const auto v_x = host(v.stencil.image_x), k_x = host(k.stencil.image_x);
  index_t corner_cells = 0;
  for (index_t c = 0; c < m.n_cells; ++c) {
    bool corner = false; // brute force: a node on two of the three mirror planes
    for (index_t q = node_off(c); q < node_off(c + 1); ++q) {
      const index_t a = nodes(q);
      const int on = (std::abs(X(a, 1)) < 1e-12) + (std::abs(X(a, 2)) < 1e-12) + (std::abs(X(a, 0) - 1) < 1e-12);
      corner = corner || on >= 2;
    }
    corner_cells += corner;
    SCOPED_TRACE("cell " + std::to_string(c) + (corner ? " (at a corner)" : ""));
    ASSERT_EQ(k_off(c + 1) - k_off(c), corner ? v_off(c + 1) - v_off(c) : 0);
    if (!corner) continue;
    ASSERT_EQ(k_img(c) - k_off(c), v_img(c) - v_off(c));
    for (index_t q = 0; q < v_off(c + 1) - v_off(c); ++q) {
      const index_t a = v_off(c) + q, b = k_off(c) + q;
      if (a < v_img(c)) {
        EXPECT_EQ(k_index(b), v_index(a));
      } else { // images numbered apart: the same mirrored centroid
        for (int i = 0; i < 3; ++i)
          EXPECT_EQ(k_x(k_index(b) - k.stencil.first_row, i), v_x(v_index(a) - v.stencil.first_row, i));
      }
    }
  }
  EXPECT_GT(corner_cells, 0);
  EXPECT_LT(corner_cells, m.n_cells / 2);
  EXPECT_LT(k.stencil.n_entries, v.stencil.n_entries / 2);
}

TEST(VertexStencil, PeriodicHexBoxSeesTheLatticeThroughItsPeriodicFaces) {
  // Periodic in every direction: 20 vertex neighbours per cell, translated next to it.
  const HostMesh h = test::box_mesh(ElementKind::hex, {true, true, true}, 0.0, Ordering::random, {4, 4, 4});
  const Mesh m = upload(h);
  const OperatorGeometry g = make_operator_geometry(m, {}, Stencil::vertex);
  expect_full_lattice(m, g, 0.25);
  EXPECT_EQ(g.stencil.n_entries, 20 * m.n_cells);
  EXPECT_EQ(g.stencil.n_images, 0);
  // Periodic in x, walls on y and z: images of the cells through the periodic faces too.
  const HostMesh hx = test::box_mesh(ElementKind::hex, {true, false, false}, 0.0, Ordering::zorder, {4, 4, 4});
  const Mesh mx = upload(hx);
  expect_full_lattice(mx, make_operator_geometry(mx, std::vector<bool>(mx.patches.size(), true), Stencil::vertex),
                      0.25);
}

TEST(VertexStencil, TetsHaveEveryCellSharingAVertex) {
  // On jittered tets with mirror walls the stencil of each cell holds every cell sharing one of
  // its vertices that is not a face neighbour (and the images); it is symmetric in the plain cells.
  const HostMesh h = test::box_mesh(ElementKind::tet, {false, false, false}, 0.15, Ordering::zorder, {3, 3, 2});
  const Mesh m = upload(h);
  const OperatorGeometry g = make_operator_geometry(m, std::vector<bool>(m.patches.size(), true), Stencil::vertex);
  const auto host = [](const auto& v) { return Kokkos::create_mirror_view_and_copy(HostSpace(), v); };
  const auto node_off = host(m.cell_node_off), nodes = host(m.cell_nodes);
  const auto off = host(g.stencil.off), img = host(g.stencil.image_begin), index = host(g.stencil.index);
  const auto face_off = host(m.cell_face_off), faces = host(m.cell_faces), owner = host(m.face_owner),
             neighbour = host(m.face_neighbour);
  std::vector<std::set<index_t>> plain(static_cast<std::size_t>(m.n_cells));
  for (index_t c = 0; c < m.n_cells; ++c) plain[c] = {&index(off(c)), &index(off(c)) + (img(c) - off(c))};
  for (index_t c = 0; c < m.n_cells; ++c) {
    std::set<index_t> want;
    for (index_t j = 0; j < m.n_cells; ++j) {
      if (j == c) continue;
      bool shares = false;
      for (index_t a = node_off(c); a < node_off(c + 1) && !shares; ++a)
        for (index_t b = node_off(j); b < node_off(j + 1) && !shares; ++b) shares = nodes(a) == nodes(b);
      if (shares) want.insert(j);
    }
    for (index_t q = face_off(c); q < face_off(c + 1); ++q)
      if (faces(q) < m.n_interior) want.erase(owner(faces(q)) == c ? neighbour(faces(q)) : owner(faces(q)));
    EXPECT_EQ(plain[c], want) << "cell " << c;
    for (index_t j : plain[c]) EXPECT_TRUE(plain[j].count(c)) << "cells " << c << ", " << j;
  }
  EXPECT_GT(g.stencil.n_images, 0);
}

TEST(VertexStencil, TheSameOnAnyNumberOfHostThreads) {
  // Built in two passes over pieces of the cells on the host threads: the same views with 1, 2 and
  // 3 pieces (2304 jittered tets, periodic in x, mirror walls: translations and images).
  const HostMesh h = test::box_mesh(ElementKind::tet, {true, false, false}, 0.15, Ordering::zorder, {8, 8, 6});
  const Mesh m = upload(h);
  ASSERT_GE(m.n_cells, 2048); // pieces below that are not split
  const auto host = [](const auto& v) { return Kokkos::create_mirror_view_and_copy(HostSpace(), v); };
  const int before = host::threads_override();
  std::vector<OperatorGeometry> gs;
  for (int t : {1, 2, 3}) {
    host::threads_override() = t;
    gs.push_back(make_operator_geometry(m, std::vector<bool>(m.patches.size(), true), Stencil::vertex));
  }
  host::threads_override() = before;
  const VertexStencil& a = gs[0].stencil;
  EXPECT_GT(a.n_images, 0);
  EXPECT_GT(a.shifts.extent(0), 1u);
  for (std::size_t k = 1; k < gs.size(); ++k) {
    const VertexStencil& b = gs[k].stencil;
    EXPECT_EQ(b.n_entries, a.n_entries);
    EXPECT_EQ(b.n_images, a.n_images);
    EXPECT_EQ(b.n_owned_images, a.n_owned_images);
    const auto same = [&](const auto& x, const auto& y, const char* what) {
      const auto hx = host(x), hy = host(y);
      ASSERT_EQ(hx.span(), hy.span()) << what;
      for (std::size_t i = 0; i < hx.span(); ++i) ASSERT_EQ(hx.data()[i], hy.data()[i]) << what << " [" << i << "]";
    };
    same(a.off, b.off, "off");
    same(a.image_begin, b.image_begin, "image_begin");
    same(a.index, b.index, "index");
    same(a.shift, b.shift, "shift");
    same(a.shifts, b.shifts, "shifts");
    same(a.image_x, b.image_x, "image_x");
    same(a.image_cell, b.image_cell, "image_cell");
    same(a.image_normal, b.image_normal, "image_normal");
  }
}

TEST(VertexStencil, MirrorImagesTakeEachWallsGhostRule) {
  // A channel of jittered tets between a no-slip wall at rest (y = 0), a sliding one (y = 1, u = a),
  // a symmetry plane (z = 0) and a slip wall (z = 1), periodic in x: W = (1, a y, 0, 0, 1) is linear,
  // and so are its mirror images under each wall's rule (flow_image_values: 2 u_wall - u at the
  // no-slip walls; the normal velocity reversed at the others), so the least-squares gradient on the
  // vertex stencil is exact in every cell. Images mirrored at the no-slip walls as at a slip wall
  // (u kept) are not (checked).
  const double a = 0.75;
  const HostMesh h = test::box_mesh(ElementKind::tet, {true, false, false}, 0.15, Ordering::zorder, {3, 4, 4});
  const Mesh m = upload(h);
  std::vector<FlowPatchBC> bcs(m.patches.size());
  for (std::size_t p = 0; p < m.patches.size(); ++p) {
    FlowPatchBC& bc = bcs[p];
    const std::string& name = m.patches[p].name;
    if (name == "ymin") bc.type = FlowBoundaryKind::no_slip_wall;
    if (name == "ymax") bc.type = FlowBoundaryKind::no_slip_wall, bc.wall_velocity[0] = real(a);
    if (name == "zmin") bc.type = FlowBoundaryKind::symmetry;
    if (name == "zmax") bc.type = FlowBoundaryKind::slip_wall;
  }
  const OperatorGeometry g = make_operator_geometry(m, mirror_patches(bcs), Stencil::vertex);
  ASSERT_GT(g.stencil.n_images, 0);
  const flow::IdealGas gas;
  const index_t nc = m.n_cells;
  View2<real> u("fvproxy::test::u", nc, 5), w("fvproxy::test::w", nc, 5);
  View2<real> wb("fvproxy::test::wb", m.n_boundary_rows() + g.stencil.n_images, 5);
  auto C = Kokkos::create_mirror_view_and_copy(HostSpace(), m.centroid);
  auto hu = Kokkos::create_mirror_view(u);
  for (index_t c = 0; c < nc; ++c) {
    const flow::Conserved U = flow::to_conserved(flow::Primitive{1, {real(a * C(c, 1)), 0, 0}, 1}, gas);
    hu(c, 0) = U.rho, hu(c, 1) = U.m[0], hu(c, 2) = U.m[1], hu(c, 3) = U.m[2], hu(c, 4) = U.E;
  }
  Kokkos::deep_copy(u, hu);
  flow_primitive_state(m, gas, bcs, u, w, wb);
  flow_image_values(g, gas, flow_mirror_rules(bcs), ImageVariables::primitive, w, wb);
  MusclConfig cfg;
  cfg.stencil = Stencil::vertex;
  View2<real> grad("fvproxy::test::grad", nc, 15);
  make_muscl(m, g, cfg, 5, true, {})->compute(w, wb, grad, View2<real>());
  auto hg = Kokkos::create_mirror_view_and_copy(HostSpace(), grad);
  for (index_t c = 0; c < nc; ++c)
    for (int k = 0; k < 5; ++k)
      for (int i = 0; i < 3; ++i)
        ASSERT_NEAR(hg(c, 3 * k + i), k == 1 && i == 1 ? a : 0.0, test::tol(1e-11)) << "cell " << c << " W" << k;
}

} // namespace
} // namespace fvproxy
