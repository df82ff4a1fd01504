// The local mesh built in parts, on rank 0 and cut by every rank: the same, field by field.
#include "mpi_fixture.hpp"

namespace fvproxy {
namespace {

using mpi_test::meshes;
using mpi_test::tag;

/// Boxes that can be built in parts: every element, periodic and not, jittered, each partition
/// curve and `blocks`, each ordering that is a sort key.
std::vector<MeshConfig> boxes_in_parts() {
  std::vector<MeshConfig> out;
  auto box = [&](ElementKind e, std::array<int, 3> cells, std::array<bool, 3> periodic, Ordering o, PartitionMethod p) {
    MeshConfig m;
    m.generate = BoxConfig{};
    m.generate->cells = cells;
    m.generate->element = e;
    m.generate->perturb = 0.2;
    m.generate->periodic = periodic;
    m.reorder = o;
    m.partition = p;
    out.push_back(m);
  };
  box(ElementKind::tet, {6, 5, 4}, {true, true, false}, Ordering::zorder, PartitionMethod::zorder);
  box(ElementKind::tet, {5, 4, 6}, {false, true, true}, Ordering::hilbert, PartitionMethod::hilbert);
  box(ElementKind::tet, {4, 6, 3}, {true, false, false}, Ordering::zorder, PartitionMethod::blocks);
  box(ElementKind::hex, {7, 5, 3}, {false, false, false}, Ordering::none, PartitionMethod::blocks);
  box(ElementKind::hex, {6, 6, 6}, {true, true, true}, Ordering::none, PartitionMethod::zorder);
  box(ElementKind::prism, {5, 3, 6}, {false, false, true}, Ordering::hilbert, PartitionMethod::zorder);
  box(ElementKind::prism, {3, 3, 3}, {true, true, true}, Ordering::zorder, PartitionMethod::hilbert);
  // PT-Scotch on the slabs' graph (the default for a box): the partition rank 0's whole mesh gets
  box(ElementKind::tet, {5, 6, 4}, {true, false, true}, Ordering::zorder, PartitionMethod::ptscotch);
  box(ElementKind::hex, {7, 4, 5}, {false, false, false}, Ordering::none, PartitionMethod::ptscotch);
  box(ElementKind::prism, {4, 5, 3}, {false, true, false}, Ordering::hilbert, PartitionMethod::ptscotch);
  if (Communicator::world().size() <= 4) // 4 cells: a cell per rank at most
    box(ElementKind::hex, {2, 2, 1}, {false, false, false}, Ordering::zorder, PartitionMethod::ptscotch);
  // 140 hexes: on 3 ranks the slabs of hexes [140 r/3, ...) are not the whole mesh's graph slices of
  // cells [840 r/3, ...): the slab holds the slice's cells, whose parts go to their slab's rank
  box(ElementKind::tet, {7, 4, 5}, {false, false, true}, Ordering::zorder, PartitionMethod::ptscotch);
  return out;
}

/// Two decompositions of one mesh hold the same local mesh, bitwise: cells, faces (by their cells'
/// and nodes' global ids), halo links, node positions, geometry and the domain's totals.
void expect_same_part(const Decomposition& a, const Decomposition& b) {
  const LocalMesh &x = a.local, &y = b.local;
  ASSERT_EQ(x.n_owned, y.n_owned);
  ASSERT_EQ(x.n_inner, y.n_inner);
  ASSERT_EQ(x.n_owned_faces, y.n_owned_faces);
  ASSERT_EQ(x.layers, y.layers);
  ASSERT_EQ(x.n_layer1, y.n_layer1);
  ASSERT_EQ(x.vertex, y.vertex);
  ASSERT_EQ(x.corners_only, y.corners_only);
  ASSERT_EQ(x.n_faces_owned, y.n_faces_owned);
  ASSERT_EQ(x.outer_begin, y.outer_begin);
  ASSERT_EQ(x.host.n_cells(), y.host.n_cells());
  ASSERT_EQ(x.host.n_faces(), y.host.n_faces());
  ASSERT_EQ(x.host.n_interior, y.host.n_interior);
  EXPECT_EQ(x.host.cell_gid, y.host.cell_gid);
  EXPECT_EQ(x.host.cell_type, y.host.cell_type);
  EXPECT_EQ(x.global_cell, y.global_cell);     // rows of the whole ordered mesh
  EXPECT_EQ(x.host.node_gid, y.host.node_gid); // the local nodes in the same order
  EXPECT_EQ(x.host.node_key, y.host.node_key);
  EXPECT_EQ(x.host.cell_node_off, y.host.cell_node_off);
  EXPECT_EQ(x.host.cell_nodes, y.host.cell_nodes);
  EXPECT_EQ(x.host.face_node_off, y.host.face_node_off);
  EXPECT_EQ(x.host.cell_face_off, y.host.cell_face_off);
  EXPECT_EQ(x.host.cell_faces, y.host.cell_faces);
  EXPECT_EQ(x.host.cell_face_sign, y.host.cell_face_sign);
  auto gids = [](const HostMesh& m, index_t f) {
    std::vector<gid_t> v;
    for (index_t k = m.face_node_off[f]; k < m.face_node_off[f + 1]; ++k) v.push_back(m.node_gid[m.face_nodes[k]]);
    return v;
  };
  auto cell = [](const HostMesh& m, index_t c) { return c < 0 ? gid_t(-1) : m.cell_gid[c]; };
  for (index_t f = 0; f < x.host.n_faces(); ++f) {
    ASSERT_EQ(cell(x.host, x.host.face_owner[f]), cell(y.host, y.host.face_owner[f])) << "face " << f;
    ASSERT_EQ(cell(x.host, x.host.face_neighbour[f]), cell(y.host, y.host.face_neighbour[f])) << "face " << f;
    ASSERT_EQ(gids(x.host, f), gids(y.host, f)) << "face " << f;
    ASSERT_EQ(x.host.shifts[x.host.face_shift[f]], y.host.shifts[y.host.face_shift[f]]) << "face " << f;
  }
  for (const auto& [xp, yp] :
       {std::make_pair(&x.host.patches, &y.host.patches), std::make_pair(&x.layer1_patches, &y.layer1_patches)}) {
    ASSERT_EQ(xp->size(), yp->size());
    for (std::size_t p = 0; p < xp->size(); ++p) {
      EXPECT_EQ((*xp)[p].name, (*yp)[p].name);
      EXPECT_EQ((*xp)[p].begin, (*yp)[p].begin);
      EXPECT_EQ((*xp)[p].end, (*yp)[p].end);
    }
  }
  ASSERT_EQ(x.links.size(), y.links.size());
  for (std::size_t k = 0; k < x.links.size(); ++k) {
    EXPECT_EQ(x.links[k].rank, y.links[k].rank);
    EXPECT_EQ(x.links[k].send, y.links[k].send);
    EXPECT_EQ(x.links[k].recv, y.links[k].recv);
  }
  std::map<gid_t, std::array<double, 3>> xn;
  for (index_t v = 0; v < x.host.n_nodes(); ++v)
    xn[x.host.node_gid[v]] = {x.host.x[3 * v], x.host.x[3 * v + 1], x.host.x[3 * v + 2]};
  for (index_t v = 0; v < y.host.n_nodes(); ++v) {
    const auto it = xn.find(y.host.node_gid[v]);
    ASSERT_NE(it, xn.end()) << "node gid " << y.host.node_gid[v];
    EXPECT_EQ(it->second, (std::array<double, 3>{y.host.x[3 * v], y.host.x[3 * v + 1], y.host.x[3 * v + 2]}));
  }
  // The geometry on the device, ghosts included (from their owners), and the domain's totals.
  EXPECT_EQ(a.mesh.n_global_cells, b.mesh.n_global_cells);
  EXPECT_EQ(a.mesh.global_volume, b.mesh.global_volume);
  auto same = [](auto u, auto v, const char* what) {
    auto hu = Kokkos::create_mirror_view_and_copy(HostSpace(), u);
    auto hv = Kokkos::create_mirror_view_and_copy(HostSpace(), v);
    ASSERT_EQ(hu.size(), hv.size()) << what;
    for (std::size_t i = 0; i < hu.size(); ++i) ASSERT_EQ(hu.data()[i], hv.data()[i]) << what << " [" << i << "]";
  };
  same(a.mesh.volume, b.mesh.volume, "volume");
  same(a.mesh.centroid, b.mesh.centroid, "centroid");
  same(a.mesh.face_area, b.mesh.face_area, "face_area");
  same(a.mesh.face_centroid, b.mesh.face_centroid, "face_centroid");
}

TEST(BuiltInParts, SameLocalMeshAsCutFromTheWholeMesh) {
  const Communicator w = Communicator::world();
  for (const MeshConfig& mc : boxes_in_parts()) {
    SCOPED_TRACE(std::string(to_string(mc.generate->element)) + " " + to_string(mc.reorder) + " ordering, " +
                 to_string(mc.partition) + " partition");
    ASSERT_TRUE(builds_in_parts(mc));
    const BuiltMesh g = build_mesh(mc);
    for (int layers : {1, 2}) { // docs/halo.md#two-ghost-layers
      SCOPED_TRACE(std::to_string(layers) + " ghost layers");
      const HaloSettings h(HaloVariant::optimized, HaloTransport::automatic, layers);
      expect_same_part(decompose(g, mc, w, h), decompose_in_parts(mc, w, h));
    }
    // the corners stencil's layers (operators.muscl.stencil: corners): vertex neighbours where two of
    // these patches meet (those of a periodic direction are absent), face neighbours elsewhere
    HaloSettings corners(HaloVariant::optimized, HaloTransport::automatic, 2);
    corners.adjacency = {true, true, {"xmin", "xmax", "ymin", "zmin", "zmax"}};
    SCOPED_TRACE("corners layers");
    expect_same_part(decompose(g, mc, w, corners), decompose_in_parts(mc, w, corners));
  }
}

TEST(BuiltOnRank0, SameLocalMeshAsCutByEveryRank) {
  // Rank 0 builds and partitions, sends each rank its part: the part every rank cuts from its own
  // whole mesh, for a Gmsh file and a box, with METIS, a curve and PT-Scotch (every rank partitions a
  // slice of the cell graph rank 0 hands out).
  const Communicator w = Communicator::world();
  for (MeshConfig mc : meshes())
    for (PartitionMethod p : {PartitionMethod::metis, PartitionMethod::hilbert, PartitionMethod::ptscotch}) {
      mc.partition = p;
      SCOPED_TRACE((mc.generate ? std::string("box") : mc.file) + ", " + to_string(p));
      MemoryTracker::start();
      const BuiltMesh g = build_mesh(mc);
      const Decomposition a = decompose(g, mc, w);
      index_t seen = 0; // the whole mesh on rank 0 only
      MemoryTracker::reset_device_peak();
      const std::uint64_t before = MemoryTracker::now().device_bytes;
      const Decomposition b = decompose_from_root(mc, w, HaloVariant::optimized, "test",
                                                  [&](const BuiltMesh& whole) { seen = whole.host.n_cells(); });
      // Rank 0 frees the whole device mesh before its part is uploaded (docs/decomposition.md#memory-per-rank):
      // its device peak is the whole mesh's, not that plus its part (1.5x on 2 ranks). 64 KiB more for
      // the backend's own small allocations (CUDA's reduction scratch: the 120 KB Gmsh mesh peaked at
      // 129-136 KB on an H200 at 2 ranks, perf/results/2026-11-29-h200-setup).
      const std::uint64_t peak = MemoryTracker::now().device_peak_bytes - before;
      if (w.rank() == 0 && w.size() > 1) {
        EXPECT_LE(double(peak), 1.1 * double(g.device.memory_bytes()) + 65536.0);
      }
      expect_same_part(a, b);
      const HaloSettings two(HaloVariant::optimized, HaloTransport::automatic, 2);
      expect_same_part(decompose(g, mc, w, two), decompose_from_root(mc, w, two, "test"));
      EXPECT_EQ(b.local.n_global_nodes, g.host.n_nodes());
      ASSERT_EQ(std::size_t(b.local.host.n_nodes()), b.local.node_row.size());
      const auto rows = node_file_rows(g.host);
      std::map<gid_t, index_t> row_of;
      for (index_t v = 0; v < g.host.n_nodes(); ++v) row_of[g.host.node_gid[v]] = rows[v];
      for (index_t v = 0; v < b.local.host.n_nodes(); ++v)
        ASSERT_EQ(b.local.node_row[v], row_of.at(b.local.host.node_gid[v]));
      EXPECT_EQ(seen, w.rank() == 0 ? g.host.n_cells() : 0);
    }
  // An error on rank 0 (more ranks than cells) is raised on every rank, with rank 0's message.
  MeshConfig tiny;
  tiny.generate = BoxConfig{};
  tiny.generate->cells = {1, 1, 1};
  if (w.size() > 1) {
    try {
      decompose_from_root(tiny, w, HaloVariant::optimized, "test");
      ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("test: error: " + std::to_string(w.size()) + " parts for 1 cells"),
                std::string::npos)
          << e.what();
      EXPECT_EQ(e.where(), "test");
    }
  }
}

TEST(BuiltInParts, SamplesSortGivesEveryKeyItsGlobalPosition) {
  // Keys with many ties (broken by gid), spread unevenly: rank r holds 3r + 1 of them.
  const Communicator w = Communicator::world();
  const int P = w.size(), me = w.rank();
  std::vector<std::uint64_t> keys;
  std::vector<gid_t> gids;
  gid_t first = 0;
  for (int r = 0; r < me; ++r) first += 3 * r + 1;
  for (int i = 0; i < 3 * me + 1; ++i) {
    const gid_t g = first + i;
    keys.push_back(std::uint64_t((g * 7919) % 5));
    gids.push_back(g);
  }
  gid_t n = 0;
  for (int r = 0; r < P; ++r) n += 3 * r + 1;
  const auto pos = global_positions(keys, gids, w);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    gid_t expect = 0; // keys of every rank, recomputed: those before (key, gid)
    for (gid_t h = 0; h < n; ++h) {
      const std::uint64_t k = std::uint64_t((h * 7919) % 5);
      if (k < keys[i] || (k == keys[i] && h < gids[i])) ++expect;
    }
    EXPECT_EQ(pos[i], expect) << "gid " << gids[i];
  }
}

} // namespace
} // namespace fvproxy
