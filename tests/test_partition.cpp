// Partitions (mesh.partition) and the local meshes extracted from them, for P = 1..4 in one
// process: coverage, determinism, balance, exact report numbers on a box, ghosts = face
// neighbours in other parts, send lists = the neighbours' receive lists, and geometry of every
// owned cell bitwise that of the global mesh (P = 1 reproduces the global mesh exactly).
#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "core/error.hpp"
#include "core/kokkos_compat.hpp"
#include "mesh/build.hpp"
#include "mesh/local_mesh.hpp"
#include "mesh/partition.hpp"
#include "mesh/ptscotch.hpp"
#include "parallel/communicator.hpp"
#include "test_helpers.hpp"

namespace fvproxy {
namespace {

struct Case {
  std::string name;
  MeshConfig cfg;
};

std::vector<Case> meshes() {
  std::vector<Case> out;
  MeshConfig tet;
  tet.generate = BoxConfig{};
  tet.generate->cells = {5, 4, 3};
  tet.generate->element = ElementKind::tet;
  tet.generate->perturb = 0.15;
  tet.generate->periodic = {true, false, true};
  tet.reorder = Ordering::zorder;
  out.push_back({"periodic jittered tets, zorder", tet});
  MeshConfig prism = tet;
  prism.generate->element = ElementKind::prism;
  prism.generate->periodic = {false, false, false};
  prism.reorder = Ordering::random;
  out.push_back({"prisms, random numbering", prism});
  MeshConfig gmsh;
  gmsh.file = test::source_path("mesh/hybrid_channel.msh");
  gmsh.reorder = Ordering::hilbert;
  out.push_back({"hybrid channel (Gmsh), hilbert", gmsh});
  return out;
}

std::vector<PartitionMethod> methods_for(const MeshConfig& c) {
  std::vector<PartitionMethod> m{PartitionMethod::metis, PartitionMethod::ptscotch, PartitionMethod::hilbert,
                                 PartitionMethod::zorder};
  if (c.generate) m.push_back(PartitionMethod::blocks);
  return m;
}

TEST(Partition, CoversEveryCellDeterministicallyAndBalanced) {
  for (const Case& mc : meshes()) {
    const BuiltMesh b = build_mesh(mc.cfg);
    const index_t n = b.host.n_cells();
    for (PartitionMethod method : methods_for(mc.cfg))
      for (int P = 1; P <= 4; ++P) {
        SCOPED_TRACE(mc.name + ", " + to_string(method) + ", P = " + std::to_string(P));
        const BoxConfig* box = mc.cfg.generate ? &*mc.cfg.generate : nullptr;
        const Partition p = partition_cells(b.host, b.device, method, P, box, "test");
        ASSERT_EQ(index_t(p.part.size()), n);
        std::vector<long long> owned(P, 0);
        for (int r : p.part) {
          ASSERT_GE(r, 0);
          ASSERT_LT(r, P);
          ++owned[r];
        }
        for (int r = 0; r < P; ++r) EXPECT_GT(owned[r], 0) << "part " << r << " is empty";
        EXPECT_EQ(partition_cells(b.host, b.device, method, P, box, "test").part, p.part) << "not deterministic";
        const PartitionQuality q = partition_quality(b.host, p, 5);
        const double ideal = double(n) / P;
        if (method == PartitionMethod::hilbert || method == PartitionMethod::zorder) {
          EXPECT_LE(q.imbalance, std::ceil(ideal) / ideal + 1e-12);
        }
        if (method == PartitionMethod::metis || method == PartitionMethod::ptscotch) {
          EXPECT_LE(q.imbalance, 1.1);
        }
        // The report's edge cut is the number of interior faces between parts.
        long long cut = 0;
        for (index_t f = 0; f < b.host.n_interior; ++f)
          cut += p.part[b.host.face_owner[f]] != p.part[b.host.face_neighbour[f]];
        EXPECT_EQ(q.edge_cut, cut);
        if (P == 1) {
          EXPECT_EQ(cut, 0);
        } else {
          EXPECT_GT(cut, 0);
        }
      }
  }
}

TEST(Partition, EveryPartOwnsACellOnMeshesBarelyLargerThanTheParts) {
  // METIS leaves parts empty on such graphs (3 parts of a 2x2x1 box, 4 of 3x2x1): each then takes a
  // cell of the largest part, for every method and every number of parts up to the cell count.
  int refilled = 0;
  // a named array, not a braced list: nvcc 11.8 cannot deduce the range of the latter
  const std::array<std::array<int, 3>, 4> boxes{{{3, 1, 1}, {2, 2, 1}, {3, 2, 1}, {2, 2, 2}}};
  for (const std::array<int, 3>& cells : boxes) {
    MeshConfig c;
    c.generate = BoxConfig{};
    c.generate->cells = cells;
    const BuiltMesh b = build_mesh(c);
    const int n = static_cast<int>(b.host.n_cells());
    for (PartitionMethod method : methods_for(c))
      for (int P = 2; P <= n; ++P) {
        SCOPED_TRACE(std::string(to_string(method)) + ", " + std::to_string(P) + " parts of " + std::to_string(n) +
                     " cells");
        Partition p;
        try {
          p = partition_cells(b.host, b.device, method, P, &*c.generate, "test");
        } catch (const InputError&) {
          EXPECT_EQ(method, PartitionMethod::blocks); // no fitting px x py x pz: refused, tested elsewhere
          continue;
        }
        std::vector<int> owned(P, 0);
        for (int r : p.part) ++owned[r];
        EXPECT_EQ(std::count(owned.begin(), owned.end(), 0), 0);
        EXPECT_EQ(partition_quality(b.host, p, 5).empty_parts, 0);
        refilled += p.refilled;
      }
  }
  EXPECT_GT(refilled, 0) << "no method left a part empty: the refill is not exercised";
}

TEST(Partition, CurvesArePiecesOfTheCurveOrder) {
  // On a Z-ordered mesh the zorder partition is contiguous index ranges (the mesh is in curve order).
  MeshConfig c = meshes()[0].cfg;
  const BuiltMesh b = build_mesh(c);
  const Partition p = partition_cells(b.host, b.device, PartitionMethod::zorder, 3, &*c.generate, "test");
  EXPECT_TRUE(std::is_sorted(p.part.begin(), p.part.end()));
}

TEST(Ptscotch, BoxHexGraphIsTheHexMeshCellGraph) {
  // A generated box's PT-Scotch graph is its hexes': on a hex box it is the cell graph itself (the
  // same neighbours, periodic ones included, each sharing one face), from the box alone, in any slice; a tet
  // box's cells each take their hex's part.
  BoxConfig box;
  box.cells = {3, 4, 5};
  box.periodic = {false, true, true};
  MeshConfig c;
  c.generate = box;
  c.reorder = Ordering::zorder; // the graph is by global id: the order does not matter
  const BuiltMesh b = build_mesh(c);
  for (const auto& [begin, end] : std::vector<std::pair<gid_t, gid_t>>{{0, 60}, {7, 41}, {60, 60}}) {
    const DistGraph h = box_hex_graph(box, begin, end), m = cell_graph_by_gid(b.host, begin, end);
    EXPECT_EQ(h.vtx_begin, m.vtx_begin);
    EXPECT_EQ(h.vtx_end, m.vtx_end);
    EXPECT_EQ(h.xadj, m.xadj);
    EXPECT_EQ(h.adjncy, m.adjncy);
    EXPECT_TRUE(h.adjwgt.empty()) << "every weight 1";
    for (const gid_t w : m.adjwgt) EXPECT_EQ(w, 1) << "two hexes share one face";
  }
  EXPECT_EQ(box_hex_graph(box, 0, 1).adjncy, (std::vector<gid_t>{1, 3, 9, 12, 48})) << "x, y and z neighbours";
  EXPECT_THROW(box_hex_graph(box, 0, 61), RunError);
  // 4x4x4 hexes of tets in 3 parts: each hex's six tets in one part, every part within 0.5 %+ a hex.
  MeshConfig t;
  t.generate = BoxConfig{};
  t.generate->cells = {4, 4, 4};
  t.generate->element = ElementKind::tet;
  const BuiltMesh bt = build_mesh(t);
  const Partition p = partition_cells(bt.host, bt.device, PartitionMethod::ptscotch, 3, &*t.generate, "test");
  std::map<gid_t, std::set<int>> parts_of_hex;
  for (index_t cell = 0; cell < bt.host.n_cells(); ++cell)
    parts_of_hex[bt.host.cell_gid[cell] / 6].insert(p.part[cell]);
  ASSERT_EQ(parts_of_hex.size(), 64u);
  for (const auto& [hex, parts] : parts_of_hex) EXPECT_EQ(parts.size(), 1u) << "hex " << hex;
  const PartitionQuality q = partition_quality(bt.host, p, 1);
  EXPECT_LE(q.imbalance, 22.0 * 6 / 128) << "more than a hex over 0.5 % above the mean of 128 cells";
}

TEST(Partition, BlocksOnABoxGiveTheExpectedReport) {
  // 4x4x4 hexes, not periodic, 2 parts: the cheapest cut is one plane of 16 faces (first in
  // (px, py, pz) order: 1x1x2); each part has 32 cells, 16 ghosts, one neighbour.
  MeshConfig c;
  c.generate = BoxConfig{};
  c.generate->cells = {4, 4, 4};
  c.reorder = Ordering::zorder;
  const BuiltMesh b = build_mesh(c);
  const Partition p = partition_cells(b.host, b.device, PartitionMethod::blocks, 2, &*c.generate, "test");
  EXPECT_EQ(p.blocks, (std::array<int, 3>{1, 1, 2}));
  const PartitionQuality q = partition_quality(b.host, p, 5);
  EXPECT_EQ(q.owned, (std::vector<long long>{32, 32}));
  EXPECT_EQ(q.ghosts, (std::vector<long long>{16, 16}));
  EXPECT_EQ(q.edge_cut, 16);
  EXPECT_DOUBLE_EQ(q.imbalance, 1.0);
  EXPECT_DOUBLE_EQ(q.ghost_fraction, 0.5);
  EXPECT_EQ(q.neighbours_max, 1);
  EXPECT_EQ(q.halo_values_max, 80);
  // z periodic: a cut across z costs two planes, so the split moves to the first axis that costs
  // one: y (1x2x1).
  c.generate->periodic = {false, false, true};
  const BuiltMesh bp = build_mesh(c);
  const Partition pp = partition_cells(bp.host, bp.device, PartitionMethod::blocks, 2, &*c.generate, "test");
  EXPECT_EQ(pp.blocks, (std::array<int, 3>{1, 2, 1}));
  EXPECT_EQ(partition_quality(bp.host, pp, 5).edge_cut, 16);
  // Tets: each hex's six tets stay together.
  c.generate->element = ElementKind::tet;
  const BuiltMesh bt = build_mesh(c);
  const Partition pt = partition_cells(bt.host, bt.device, PartitionMethod::blocks, 4, &*c.generate, "test");
  std::map<gid_t, int> hex_part;
  for (index_t k = 0; k < bt.host.n_cells(); ++k) {
    const auto [it, fresh] = hex_part.emplace(bt.host.cell_gid[k] / 6, pt.part[k]);
    EXPECT_EQ(it->second, pt.part[k]);
  }
  EXPECT_EQ(block_factors(4, {8, 8, 8}, {false, false, false}), (std::array<int, 3>{1, 2, 2}));
  EXPECT_EQ(block_factors(7, {2, 2, 2}, {false, false, false}), (std::array<int, 3>{0, 0, 0}));
}

TEST(Partition, BadRequestsAreRefused) {
  MeshConfig c = meshes()[2].cfg; // a Gmsh mesh
  const BuiltMesh b = build_mesh(c);
  test::expect_input_error(
      [&] { partition_cells(b.host, b.device, PartitionMethod::blocks, 2, nullptr, "mesh.partition"); },
      {"mesh.partition", "'blocks' divides a generated box"});
  test::expect_input_error(
      [&] { partition_cells(b.host, b.device, PartitionMethod::metis, int(b.host.n_cells()) + 1, nullptr, "ranks"); },
      {"parts for", "every rank needs at least one cell"});
  MeshConfig box = meshes()[0].cfg;
  box.generate->cells = {3, 3, 3};
  const BuiltMesh bb = build_mesh(box);
  test::expect_input_error(
      [&] { partition_cells(bb.host, bb.device, PartitionMethod::blocks, 5, &*box.generate, "mesh.partition"); },
      {"'blocks' cannot divide the box of 3x3x3 hexes into 5 boxes"});
}

/// The report's numbers counted the slow, obvious way: per part the set of ghost cells and of
/// neighbour parts.
TEST(Partition, QualityCountsGhostsAndNeighboursOnce) {
  for (const Case& mc : meshes()) {
    const BuiltMesh b = build_mesh(mc.cfg);
    const HostMesh& m = b.host;
    for (int P : {2, 3, 7}) {
      SCOPED_TRACE(mc.name + ", P = " + std::to_string(P));
      const Partition p = partition_cells(m, b.device, PartitionMethod::metis, P, nullptr, "test");
      const PartitionQuality q = partition_quality(m, p, 5);
      std::vector<std::set<index_t>> ghosts(P);
      std::vector<std::set<int>> neighbours(P);
      for (index_t f = 0; f < m.n_interior; ++f) {
        const index_t a = m.face_owner[f], c = m.face_neighbour[f];
        if (p.part[a] == p.part[c]) continue;
        ghosts[p.part[a]].insert(c);
        ghosts[p.part[c]].insert(a);
        neighbours[p.part[a]].insert(p.part[c]);
        neighbours[p.part[c]].insert(p.part[a]);
      }
      long long total = 0;
      for (int r = 0; r < P; ++r) {
        EXPECT_EQ(q.ghosts[r], (long long)ghosts[r].size()) << "part " << r;
        EXPECT_EQ(q.neighbours[r], (int)neighbours[r].size()) << "part " << r;
        total += ghosts[r].size();
      }
      EXPECT_DOUBLE_EQ(q.ghost_fraction, double(total) / m.n_cells());
      EXPECT_EQ(q.halo_values_max, 5 * *std::max_element(q.ghosts.begin(), q.ghosts.end()));
      EXPECT_EQ(q.halo_bytes_max, q.halo_values_max * (long long)sizeof(real));
      EXPECT_DOUBLE_EQ(q.halo_bytes_mean, q.halo_values_mean * sizeof(real));
    }
  }
}

TEST(CellGraph, IsTheSymmetricFaceGraphWeightedByFaceCounts) {
  for (const Case& mc : meshes()) {
    SCOPED_TRACE(mc.name);
    const BuiltMesh b = build_mesh(mc.cfg);
    const HostMesh& m = b.host;
    const index_t n = m.n_cells();
    std::map<std::pair<index_t, index_t>, gid_t> faces; // (cell, neighbour) -> faces between them
    for (index_t f = 0; f < m.n_interior; ++f) {
      const index_t a = m.face_owner[f], c = m.face_neighbour[f];
      if (a == c) continue;
      ++faces[{a, c}];
      ++faces[{c, a}];
    }
    const DistGraph g = cell_graph(m, 0, n);
    ASSERT_EQ(g.xadj.size(), std::size_t(n) + 1);
    std::map<std::pair<index_t, index_t>, gid_t> edges;
    for (index_t v = 0; v < n; ++v) {
      EXPECT_TRUE(std::is_sorted(g.adjncy.begin() + g.xadj[v], g.adjncy.begin() + g.xadj[v + 1]));
      for (gid_t k = g.xadj[v]; k < g.xadj[v + 1]; ++k)
        EXPECT_TRUE(edges.emplace(std::pair<index_t, index_t>{v, index_t(g.adjncy[k])}, g.adjwgt[k]).second);
    }
    EXPECT_EQ(edges, faces);
    // A slice numbers its vertices and neighbours globally: the same rows.
    const DistGraph s = cell_graph(m, n / 3, 2 * n / 3);
    EXPECT_EQ(s.vtx_begin, n / 3);
    EXPECT_EQ(s.n_local(), 2 * n / 3 - n / 3);
    for (gid_t v = 0; v < s.n_local(); ++v) {
      const gid_t gv = s.vtx_begin + v;
      EXPECT_TRUE(std::equal(s.adjncy.begin() + s.xadj[v], s.adjncy.begin() + s.xadj[v + 1],
                             g.adjncy.begin() + g.xadj[gv], g.adjncy.begin() + g.xadj[gv + 1]));
      EXPECT_TRUE(std::equal(s.adjwgt.begin() + s.xadj[v], s.adjwgt.begin() + s.xadj[v + 1],
                             g.adjwgt.begin() + g.xadj[gv], g.adjwgt.begin() + g.xadj[gv + 1]));
    }
  }
}

/// A chain of n vertices (edge weights w), whole, on this process.
DistGraph chain(gid_t n, gid_t w) {
  DistGraph g;
  g.vtx_end = n;
  for (gid_t v = 0; v < n; ++v) {
    if (v > 0) g.adjncy.push_back(v - 1);
    if (v + 1 < n) g.adjncy.push_back(v + 1);
    g.xadj.push_back(gid_t(g.adjncy.size()));
  }
  g.adjwgt.assign(g.adjncy.size(), w);
  return g;
}

TEST(Ptscotch, OneProcessPartitionsAGraph) {
  // A chain of 400 vertices in 4 parts: every part non-empty, within 3% of 100, and the cut small
  // (a chain cut into 4 pieces has 3 cut edges; Scotch may leave a few more).
  const DistGraph g = chain(400, 1);
  const std::vector<int> part = ptscotch_parts_one_process(g, 4);
  ASSERT_EQ(part.size(), 400u);
  std::vector<int> owned(4, 0);
  int cut = 0;
  for (std::size_t v = 0; v < part.size(); ++v) {
    ASSERT_GE(part[v], 0);
    ASSERT_LT(part[v], 4);
    ++owned[part[v]];
    if (v > 0) cut += part[v] != part[v - 1];
  }
  for (int r = 0; r < 4; ++r) {
    EXPECT_GT(owned[r], 0);
    EXPECT_LE(owned[r], 103);
  }
  EXPECT_LE(cut, 6);
  EXPECT_EQ(ptscotch_parts_one_process(g, 4), part) << "not deterministic";
  EXPECT_EQ(ptscotch_parts_one_process(g, 1), std::vector<int>(400, 0));
  // Without MPI (this program never initializes it) the communicator is one rank: the same path.
  EXPECT_EQ(ptscotch_parts(g, 4, MPI_COMM_SELF), part);
}

TEST(Ptscotch, ManyPartsByRecursiveBisection) {
  // Above 1024 parts the sequential strategy is recursive bisection alone: a 40^3 grid graph in
  // 2000 parts of 32 vertices, each non-empty and within 10% of the mean, the same twice.
  const gid_t L = 40, n = L * L * L;
  DistGraph g;
  g.vtx_end = n;
  for (gid_t v = 0; v < n; ++v) {
    const gid_t i = v % L, j = (v / L) % L, k = v / (L * L);
    for (gid_t u : {k > 0 ? v - L * L : -1, j > 0 ? v - L : -1, i > 0 ? v - 1 : -1, i + 1 < L ? v + 1 : -1,
                    j + 1 < L ? v + L : -1, k + 1 < L ? v + L * L : -1})
      if (u >= 0) g.adjncy.push_back(u);
    g.xadj.push_back(gid_t(g.adjncy.size()));
  }
  const int parts = 2000;
  const std::vector<int> part = ptscotch_parts_one_process(g, parts);
  std::vector<int> owned(parts, 0);
  for (int r : part) {
    ASSERT_GE(r, 0);
    ASSERT_LT(r, parts);
    ++owned[r];
  }
  EXPECT_GT(*std::min_element(owned.begin(), owned.end()), 0);
  EXPECT_LE(*std::max_element(owned.begin(), owned.end()), 1.1 * n / parts);
  EXPECT_EQ(ptscotch_parts_one_process(g, parts), part) << "not deterministic";
}

TEST(Ptscotch, BadGraphsAreRefused) {
  auto refused = [](const DistGraph& g, int parts, const std::string& fragment) {
    try {
      ptscotch_parts_one_process(g, parts);
      ADD_FAILURE() << "accepted: expected '" << fragment << "'";
    } catch (const RunError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  DistGraph g = chain(10, 1);
  DistGraph out = g;
  out.adjncy[3] = 10;
  refused(out, 2, "neighbour 10 outside 0..9");
  DistGraph self = g;
  self.adjncy[0] = 0;
  refused(self, 2, "vertex 0 is its own neighbour");
  DistGraph asym = g;
  asym.adjwgt[0] = 2; // 0 -> 1 weighs 2, 1 -> 0 weighs 1
  refused(asym, 2, "SCOTCH_graphCheck");
  DistGraph shifted = g;
  shifted.vtx_begin = 1;
  shifted.vtx_end = 11;
  refused(shifted, 2, "must start at vertex 0");
  DistGraph short_xadj = g;
  short_xadj.xadj.pop_back();
  refused(short_xadj, 2, "xadj has 10 entries for 10 vertices");
  DistGraph weights = g;
  weights.adjwgt.pop_back();
  refused(weights, 2, "adjwgt has");
}

/// Device geometry of a host mesh, copied back.
struct HostGeometry {
  std::vector<real> volume, centroid, face_area, face_centroid;
};
HostGeometry geometry(const HostMesh& h) {
  const Mesh m = upload(h);
  HostGeometry g;
  auto copy = [](const auto& v, std::vector<real>& out) {
    auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    out.assign(hv.data(), hv.data() + hv.size());
  };
  copy(m.volume, g.volume);
  copy(m.centroid, g.centroid);
  copy(m.face_area, g.face_area);
  copy(m.face_centroid, g.face_centroid);
  return g;
}

real vec(const std::vector<real>& v, index_t n, index_t i, int d) {
  return v[std::size_t(d) * std::size_t(n) + std::size_t(i)]; // LayoutLeft (n, 3)
}

/// What l sends to each neighbour is, gid by gid and in order, what the neighbour receives from l;
/// every cell sent is owned, at or above `first_sent`.
void expect_sends_are_receives(const std::vector<LocalMesh>& ls, const LocalMesh& l, index_t first_sent) {
  for (const HaloLink& link : l.links) {
    const LocalMesh& other = ls[link.rank];
    const auto back =
        std::find_if(other.links.begin(), other.links.end(), [&](const HaloLink& x) { return x.rank == l.rank; });
    ASSERT_NE(back, other.links.end());
    std::vector<gid_t> sent, received;
    for (index_t c : link.send) {
      EXPECT_LT(c, l.n_owned);
      EXPECT_GE(c, first_sent);
      sent.push_back(l.host.cell_gid[c]);
    }
    for (index_t c : back->recv) received.push_back(other.host.cell_gid[c]);
    EXPECT_EQ(sent, received);
  }
}

TEST(LocalMesh, GhostsHalosAndGeometryMatchTheGlobalMesh) {
  for (const Case& mc : meshes()) {
    const BuiltMesh b = build_mesh(mc.cfg);
    const HostMesh& g = b.host;
    const HostGeometry gg = geometry(g);
    for (PartitionMethod method : methods_for(mc.cfg))
      for (int P = 1; P <= 4; ++P) {
        SCOPED_TRACE(mc.name + ", " + to_string(method) + ", P = " + std::to_string(P));
        const BoxConfig* box = mc.cfg.generate ? &*mc.cfg.generate : nullptr;
        const Partition p = partition_cells(g, b.device, method, P, box, "test");
        std::vector<LocalMesh> ls;
        for (int r = 0; r < P; ++r) ls.push_back(extract_local(g, p.part, r, P));
        std::vector<int> owners(g.n_cells(), 0);
        std::map<gid_t, index_t> global_of_gid;
        for (index_t c = 0; c < g.n_cells(); ++c) global_of_gid[g.cell_gid[c]] = c;
        std::vector<int> face_seen(g.n_faces(), 0);
        for (const LocalMesh& l : ls) {
          const HostMesh& h = l.host;
          const index_t n = h.n_cells();
          ASSERT_EQ(index_t(l.global_cell.size()), n);
          // Owned cells are this part's, each once over all ranks; relative global order kept per class.
          for (index_t c = 0; c < l.n_owned; ++c) {
            EXPECT_EQ(p.part[l.global_cell[c]], l.rank);
            ++owners[l.global_cell[c]];
            EXPECT_EQ(h.cell_gid[c], g.cell_gid[l.global_cell[c]]);
          }
          EXPECT_TRUE(std::is_sorted(l.global_cell.begin(), l.global_cell.begin() + l.n_inner));
          EXPECT_TRUE(std::is_sorted(l.global_cell.begin() + l.n_inner, l.global_cell.begin() + l.n_owned));
          // Ghosts = the face neighbours of owned cells in other parts, exactly.
          std::set<index_t> expected_ghosts;
          std::set<index_t> frontier;
          for (index_t f = 0; f < g.n_interior; ++f) {
            const index_t a = g.face_owner[f], bn = g.face_neighbour[f];
            if ((p.part[a] == l.rank) != (p.part[bn] == l.rank)) {
              expected_ghosts.insert(p.part[a] == l.rank ? bn : a);
              frontier.insert(p.part[a] == l.rank ? a : bn);
            }
          }
          EXPECT_EQ(std::set<index_t>(l.global_cell.begin() + l.n_owned, l.global_cell.end()), expected_ghosts);
          EXPECT_EQ(std::set<index_t>(l.global_cell.begin() + l.n_inner, l.global_cell.begin() + l.n_owned), frontier);
          // Faces: each owned cell has all its global faces, in global order, same signs and node gids;
          // a ghost only its faces to owned cells.
          for (index_t c = 0; c < n; ++c) {
            const index_t gc = l.global_cell[c];
            std::vector<index_t> lf, gf;
            std::vector<int> ls_sign, gs_sign;
            for (index_t k = h.cell_face_off[c]; k < h.cell_face_off[c + 1]; ++k) {
              lf.push_back(l.global_face[h.cell_faces[k]]);
              ls_sign.push_back(h.cell_face_sign[k]);
            }
            for (index_t k = g.cell_face_off[gc]; k < g.cell_face_off[gc + 1]; ++k) {
              const index_t f = g.cell_faces[k];
              const index_t other = g.face_owner[f] == gc ? g.face_neighbour[f] : g.face_owner[f];
              if (c >= l.n_owned && (other < 0 || p.part[other] != l.rank)) continue; // a ghost's faces elsewhere
              gf.push_back(f);
              gs_sign.push_back(g.cell_face_sign[k]);
            }
            EXPECT_EQ(lf, gf) << "cell gid " << h.cell_gid[c];
            EXPECT_EQ(ls_sign, gs_sign);
          }
          for (index_t f = 0; f < h.n_faces(); ++f) {
            const index_t gf = l.global_face[f];
            ++face_seen[gf];
            ASSERT_EQ(h.face_node_off[f + 1] - h.face_node_off[f], g.face_node_off[gf + 1] - g.face_node_off[gf]);
            for (index_t k = 0; k < h.face_node_off[f + 1] - h.face_node_off[f]; ++k)
              EXPECT_EQ(h.node_gid[h.face_nodes[h.face_node_off[f] + k]],
                        g.node_gid[g.face_nodes[g.face_node_off[gf] + k]]);
            EXPECT_EQ(h.face_shift[f], g.face_shift[gf]);
            EXPECT_EQ(f < l.n_owned_faces,
                      f < h.n_interior && h.face_owner[f] < l.n_owned && h.face_neighbour[f] < l.n_owned);
          }
          // Every patch by name, in the global order.
          ASSERT_EQ(h.patches.size(), g.patches.size());
          for (std::size_t q = 0; q < g.patches.size(); ++q) EXPECT_EQ(h.patches[q].name, g.patches[q].name);
          // Geometry: owned cells and all local faces bitwise the global mesh's.
          const HostGeometry lg = geometry(h);
          for (index_t c = 0; c < l.n_owned; ++c) {
            EXPECT_EQ(lg.volume[c], gg.volume[l.global_cell[c]]);
            for (int d = 0; d < 3; ++d)
              EXPECT_EQ(vec(lg.centroid, n, c, d), vec(gg.centroid, g.n_cells(), l.global_cell[c], d));
          }
          for (index_t f = 0; f < h.n_faces(); ++f)
            for (int d = 0; d < 3; ++d) {
              EXPECT_EQ(vec(lg.face_area, h.n_faces(), f, d), vec(gg.face_area, g.n_faces(), l.global_face[f], d));
              EXPECT_EQ(vec(lg.face_centroid, h.n_faces(), f, d),
                        vec(gg.face_centroid, g.n_faces(), l.global_face[f], d));
            }
          // Halo links: what r sends to s is what s receives from r, gid by gid, in order; one
          // layer sends frontier cells only.
          expect_sends_are_receives(ls, l, l.n_inner);
        }
        for (index_t c = 0; c < g.n_cells(); ++c) EXPECT_EQ(owners[c], 1);
        for (index_t f = 0; f < g.n_faces(); ++f) {
          const bool cross = f < g.n_interior && p.part[g.face_owner[f]] != p.part[g.face_neighbour[f]];
          EXPECT_EQ(face_seen[f], cross ? 2 : 1) << "face " << f;
        }
        if (P == 1) { // the global mesh itself
          const HostMesh& h = ls[0].host;
          EXPECT_EQ(h.x, g.x);
          EXPECT_EQ(h.node_gid, g.node_gid);
          EXPECT_EQ(h.cell_gid, g.cell_gid);
          EXPECT_EQ(h.cell_nodes, g.cell_nodes);
          EXPECT_EQ(h.face_nodes, g.face_nodes);
          EXPECT_EQ(h.face_owner, g.face_owner);
          EXPECT_EQ(h.face_neighbour, g.face_neighbour);
          EXPECT_EQ(h.cell_faces, g.cell_faces);
          EXPECT_EQ(h.cell_face_sign, g.cell_face_sign);
          EXPECT_EQ(ls[0].n_inner, g.n_cells());
          EXPECT_TRUE(ls[0].links.empty());
        }
      }
  }
}

/// The cells within one face of `cells` that are not in it (face neighbours, periodic ones too).
std::set<index_t> face_neighbours(const HostMesh& g, const std::set<index_t>& cells) {
  std::set<index_t> out;
  for (index_t f = 0; f < g.n_interior; ++f) {
    const index_t a = g.face_owner[f], b = g.face_neighbour[f];
    if (cells.count(a) && !cells.count(b)) out.insert(b);
    if (cells.count(b) && !cells.count(a)) out.insert(a);
  }
  return out;
}

TEST(LocalMesh, TwoGhostLayersKeepTheOwnedPartAndGiveTheFirstLayerEveryFace) {
  for (const Case& mc : meshes()) {
    const BuiltMesh b = build_mesh(mc.cfg);
    const HostMesh& g = b.host;
    for (PartitionMethod method : methods_for(mc.cfg))
      for (int P = 2; P <= 4; ++P) {
        SCOPED_TRACE(mc.name + ", " + to_string(method) + ", P = " + std::to_string(P));
        const BoxConfig* box = mc.cfg.generate ? &*mc.cfg.generate : nullptr;
        const Partition p = partition_cells(g, b.device, method, P, box, "test");
        std::vector<LocalMesh> ls;
        for (int r = 0; r < P; ++r) ls.push_back(extract_local(g, p.part, r, P, 2));
        for (const LocalMesh& l : ls) {
          const LocalMesh one = extract_local(g, p.part, l.rank, P, 1);
          const HostMesh& h = l.host;
          EXPECT_EQ(l.layers, 2);
          // Layers: the first = the face neighbours of the owned cells, the second = theirs beyond.
          std::set<index_t> owned;
          for (index_t c = 0; c < g.n_cells(); ++c)
            if (p.part[c] == l.rank) owned.insert(c);
          const std::set<index_t> first = face_neighbours(g, owned);
          std::set<index_t> near(owned);
          near.insert(first.begin(), first.end());
          const std::set<index_t> second = face_neighbours(g, near);
          ASSERT_EQ(l.n_layer1, index_t(first.size()));
          EXPECT_EQ(
              std::set<index_t>(l.global_cell.begin() + l.n_owned, l.global_cell.begin() + l.n_owned + l.n_layer1),
              first);
          EXPECT_EQ(std::set<index_t>(l.global_cell.begin() + l.n_owned + l.n_layer1, l.global_cell.end()), second);
          // The owned cells, the first layer and the owned cells' faces exactly as with one layer.
          ASSERT_EQ(l.n_faces_owned, one.host.n_faces());
          EXPECT_EQ(l.n_owned, one.n_owned);
          EXPECT_EQ(l.n_inner, one.n_inner);
          EXPECT_EQ(l.n_owned_faces, one.n_owned_faces);
          EXPECT_EQ(h.n_interior, one.host.n_interior);
          EXPECT_EQ(std::vector<index_t>(l.global_cell.begin(), l.global_cell.begin() + l.n_owned + l.n_layer1),
                    one.global_cell);
          EXPECT_EQ(std::vector<index_t>(l.global_face.begin(), l.global_face.begin() + l.n_faces_owned),
                    one.global_face);
          for (index_t c = 0; c < l.n_owned; ++c) {
            const auto lf = std::vector<index_t>(h.cell_faces.begin() + h.cell_face_off[c],
                                                 h.cell_faces.begin() + h.cell_face_off[c + 1]);
            const auto of = std::vector<index_t>(one.host.cell_faces.begin() + one.host.cell_face_off[c],
                                                 one.host.cell_faces.begin() + one.host.cell_face_off[c + 1]);
            EXPECT_EQ(lf, of) << "owned cell " << c;
          }
          // Owned and first-layer cells have every global face, in global order, signs as there;
          // a first-layer cell's boundary faces lie in layer1_patches, the ghost-ghost faces after.
          ASSERT_EQ(l.layer1_patches.size(), g.patches.size());
          for (index_t c = 0; c < l.n_owned + l.n_layer1; ++c) {
            const index_t gc = l.global_cell[c];
            std::vector<index_t> lf, gf;
            std::vector<int> lsg, gsg;
            for (index_t k = h.cell_face_off[c]; k < h.cell_face_off[c + 1]; ++k) {
              const index_t f = h.cell_faces[k];
              lf.push_back(l.global_face[f]), lsg.push_back(h.cell_face_sign[k]);
              if (c >= l.n_owned && h.face_neighbour[f] < 0) { // a first-layer boundary face
                EXPECT_GE(f, l.n_faces_owned);
                EXPECT_LT(f, l.outer_begin);
              } else if (c >= l.n_owned && !(f >= l.n_owned_faces && f < h.n_interior)) {
                EXPECT_GE(f, l.outer_begin) << "a ghost-ghost face";
              }
            }
            for (index_t k = g.cell_face_off[gc]; k < g.cell_face_off[gc + 1]; ++k)
              gf.push_back(g.cell_faces[k]), gsg.push_back(g.cell_face_sign[k]);
            EXPECT_EQ(lf, gf) << "cell gid " << h.cell_gid[c];
            EXPECT_EQ(lsg, gsg);
          }
          for (std::size_t q = 0; q < g.patches.size(); ++q)
            for (index_t f = l.layer1_patches[q].begin; f < l.layer1_patches[q].end; ++f) {
              EXPECT_GE(l.global_face[f], g.patches[q].begin);
              EXPECT_LT(l.global_face[f], g.patches[q].end);
              EXPECT_GE(h.face_owner[f], l.n_owned);
              EXPECT_LT(h.face_owner[f], l.n_owned + l.n_layer1);
            }
          // Halo links: every ghost received once; what r sends to s is what s receives from r, in order.
          std::vector<index_t> received_rows;
          expect_sends_are_receives(ls, l, 0); // a second-layer ghost may be an inner cell there
          for (const HaloLink& link : l.links) {
            received_rows.insert(received_rows.end(), link.recv.begin(), link.recv.end());
            for (index_t c : link.recv) EXPECT_EQ(p.part[l.global_cell[c]], link.rank);
          }
          std::sort(received_rows.begin(), received_rows.end());
          std::vector<index_t> ghosts(std::size_t(h.n_cells() - l.n_owned));
          std::iota(ghosts.begin(), ghosts.end(), l.n_owned);
          EXPECT_EQ(received_rows, ghosts);
        }
      }
  }
}

/// The cells sharing a node (or a periodic partner of one: node_key) with one of `cells`, not in it.
std::set<index_t> vertex_neighbours(const HostMesh& g, const std::set<index_t>& cells) {
  const auto key = [&](index_t v) { return g.node_key.empty() ? v : g.node_key[v]; };
  std::set<index_t> keys, out;
  for (index_t c : cells)
    for (index_t k = g.cell_node_off[c]; k < g.cell_node_off[c + 1]; ++k) keys.insert(key(g.cell_nodes[k]));
  for (index_t c = 0; c < g.n_cells(); ++c)
    for (index_t k = g.cell_node_off[c]; k < g.cell_node_off[c + 1]; ++k)
      if (!cells.count(c) && keys.count(key(g.cell_nodes[k]))) out.insert(c);
  return out;
}

TEST(LocalMesh, VertexLayersHoldEveryCellSharingANode) {
  // operators.muscl.stencil: vertex (docs/operators/muscl.md#stencil): the first layer is every
  // cell sharing a node (periodic partners included) with an owned cell, the second every one
  // sharing a node with the first; the frontier is every owned cell with a ghost vertex
  // neighbour; every boundary face of both layers is here (the mirror planes at the first layer's
  // nodes); the halo sends what the other ranks receive; local node keys join the same nodes as the
  // global ones.
  for (const Case& mc : meshes()) {
    const BuiltMesh b = build_mesh(mc.cfg);
    const HostMesh& g = b.host;
    for (PartitionMethod method : {PartitionMethod::metis, PartitionMethod::zorder})
      for (int P = 2; P <= 3; ++P) {
        SCOPED_TRACE(mc.name + ", " + to_string(method) + ", P = " + std::to_string(P));
        const BoxConfig* box = mc.cfg.generate ? &*mc.cfg.generate : nullptr;
        const Partition p = partition_cells(g, b.device, method, P, box, "test");
        std::vector<LocalMesh> ls;
        for (int r = 0; r < P; ++r) ls.push_back(extract_local(g, p.part, r, P, 2, GhostAdjacency{true, false, {}}));
        for (const LocalMesh& l : ls) {
          const HostMesh& h = l.host;
          EXPECT_TRUE(l.vertex);
          std::set<index_t> owned;
          for (index_t c = 0; c < g.n_cells(); ++c)
            if (p.part[c] == l.rank) owned.insert(c);
          const std::set<index_t> first = vertex_neighbours(g, owned);
          std::set<index_t> near(owned);
          near.insert(first.begin(), first.end());
          const std::set<index_t> second = vertex_neighbours(g, near);
          ASSERT_EQ(l.n_layer1, index_t(first.size()));
          EXPECT_EQ(
              std::set<index_t>(l.global_cell.begin() + l.n_owned, l.global_cell.begin() + l.n_owned + l.n_layer1),
              first);
          EXPECT_EQ(std::set<index_t>(l.global_cell.begin() + l.n_owned + l.n_layer1, l.global_cell.end()), second);
          for (index_t c = 0; c < l.n_owned; ++c) { // inner: no ghost vertex neighbour
            const bool frontier = !vertex_neighbours(g, {l.global_cell[c]}).empty() && [&] {
              for (index_t n : vertex_neighbours(g, {l.global_cell[c]}))
                if (!owned.count(n)) return true;
              return false;
            }();
            EXPECT_EQ(c >= l.n_inner, frontier) << "owned cell gid " << h.cell_gid[c];
          }
          std::multiset<index_t> boundary; // every boundary face of the two layers, once
          for (std::size_t q = 0; q < g.patches.size(); ++q)
            for (index_t f = l.layer1_patches[q].begin; f < l.layer1_patches[q].end; ++f) {
              EXPECT_GE(l.global_face[f], g.patches[q].begin);
              EXPECT_LT(l.global_face[f], g.patches[q].end);
              boundary.insert(l.global_face[f]);
            }
          std::multiset<index_t> expected;
          for (std::size_t q = 0; q < g.patches.size(); ++q)
            for (index_t f = g.patches[q].begin; f < g.patches[q].end; ++f)
              if (first.count(g.face_owner[f]) || second.count(g.face_owner[f])) expected.insert(f);
          EXPECT_EQ(boundary, expected);
          expect_sends_are_receives(ls, l, 0);
          // local node keys: two local nodes share one exactly when their global nodes do
          if (g.node_key.empty()) { // no periodic partners (a Gmsh file): none here either
            EXPECT_TRUE(h.node_key.empty());
            continue;
          }
          ASSERT_EQ(h.node_key.size(), std::size_t(h.n_nodes()));
          std::map<index_t, index_t> global_node; // local -> global by the global id
          for (index_t v = 0; v < g.n_nodes(); ++v) global_node[index_t(g.node_gid[v])] = v;
          std::map<index_t, index_t> key_of_global_key;
          for (index_t v = 0; v < h.n_nodes(); ++v) {
            const index_t gk = g.node_key[global_node.at(index_t(h.node_gid[v]))];
            const auto [it, fresh] = key_of_global_key.emplace(gk, h.node_key[v]);
            EXPECT_EQ(it->second, h.node_key[v]) << "local node " << v;
            (void)fresh;
          }
          std::set<index_t> local_keys;
          for (const auto& kv : key_of_global_key) local_keys.insert(kv.second);
          EXPECT_EQ(local_keys.size(), key_of_global_key.size()) << "two global keys on one local key";
        }
      }
  }
}

/// Whether cells a and b of g share a face.
bool share_face(const HostMesh& g, index_t a, index_t b) {
  for (index_t k = g.cell_face_off[a]; k < g.cell_face_off[a + 1]; ++k) {
    const index_t f = g.cell_faces[k];
    if ((g.face_owner[f] == a && g.face_neighbour[f] == b) || (g.face_owner[f] == b && g.face_neighbour[f] == a))
      return true;
  }
  return false;
}

TEST(LocalMesh, CornersLayersHoldEveryVertexNeighbourWhereMirrorPatchesMeet) {
  // operators.muscl.stencil: corners (docs/operators/muscl.md#stencil): two cells are neighbours
  // when they share a face, or a node (or a periodic partner of one) and one of them has a node on
  // two or more of the mirror patches; so every cell at such a corner among the owned and the first
  // layer has all its vertex neighbours here (the stencil's entries), and the other ghosts are the
  // face stencil's. Brute force over every pair of cells, against the vertex and face layers' sizes.
  struct CornersCase {
    std::string name;
    MeshConfig cfg;
    std::vector<std::string> mirrors;
  };
  std::vector<CornersCase> cases;
  MeshConfig tet;
  tet.generate = BoxConfig{};
  tet.generate->cells = {6, 4, 3};
  tet.generate->element = ElementKind::tet;
  tet.generate->perturb = 0.15;
  tet.generate->periodic = {true, false, false};
  tet.reorder = Ordering::zorder;
  cases.push_back({"jittered tets periodic in x, walls on y and z", tet, {"ymin", "ymax", "zmin", "zmax"}});
  MeshConfig prism = tet;
  prism.generate->element = ElementKind::prism;
  prism.generate->periodic = {false, false, false};
  prism.reorder = Ordering::random;
  cases.push_back({"prisms, one corner of three planes", prism, {"xmax", "ymin", "zmin"}});
  MeshConfig gmsh;
  gmsh.file = test::source_path("mesh/hybrid_channel.msh");
  cases.push_back({"hybrid channel (Gmsh)", gmsh, {"bottom", "top", "walls"}});
  for (const CornersCase& mc : cases) {
    const BuiltMesh b = build_mesh(mc.cfg);
    const HostMesh& g = b.host;
    const index_t nc = g.n_cells();
    std::vector<std::set<index_t>> node_patches(std::size_t(g.n_nodes()));
    for (std::size_t q = 0; q < g.patches.size(); ++q)
      if (std::count(mc.mirrors.begin(), mc.mirrors.end(), g.patches[q].name))
        for (index_t f = g.patches[q].begin; f < g.patches[q].end; ++f)
          for (index_t k = g.face_node_off[f]; k < g.face_node_off[f + 1]; ++k)
            node_patches[std::size_t(g.face_nodes[k])].insert(index_t(q));
    std::vector<char> corner(std::size_t(nc), 0);
    for (index_t c = 0; c < nc; ++c)
      for (index_t k = g.cell_node_off[c]; k < g.cell_node_off[c + 1]; ++k)
        if (node_patches[std::size_t(g.cell_nodes[k])].size() >= 2) corner[std::size_t(c)] = 1;
    const index_t n_corner = index_t(std::count(corner.begin(), corner.end(), 1));
    ASSERT_GT(n_corner, 0) << mc.name;
    ASSERT_LT(n_corner, nc) << mc.name;
    EXPECT_EQ(cells_at_corners(g, mc.mirrors), corner) << mc.name;
    std::vector<std::set<index_t>> around(static_cast<std::size_t>(nc)); // each cell's vertex neighbours, once
    for (index_t n = 0; n < nc; ++n) around[std::size_t(n)] = vertex_neighbours(g, {n});
    const auto next = [&](const std::set<index_t>& cells) {
      std::set<index_t> out;
      for (index_t c : cells)
        for (index_t n : around[std::size_t(c)])
          if (!cells.count(n) && (corner[std::size_t(c)] || corner[std::size_t(n)] || share_face(g, c, n)))
            out.insert(n);
      return out;
    };
    const GhostAdjacency corners{true, true, mc.mirrors};
    for (int P = 2; P <= 3; ++P) {
      SCOPED_TRACE(mc.name + ", P = " + std::to_string(P));
      const BoxConfig* box = mc.cfg.generate ? &*mc.cfg.generate : nullptr;
      const Partition p = partition_cells(g, b.device, PartitionMethod::metis, P, box, "test");
      std::vector<LocalMesh> ls;
      for (int r = 0; r < P; ++r) ls.push_back(extract_local(g, p.part, r, P, 2, corners));
      index_t ghosts_face = 0, ghosts_corners = 0, ghosts_vertex = 0;
      for (const LocalMesh& l : ls) {
        EXPECT_TRUE(l.vertex);
        EXPECT_TRUE(l.corners_only);
        std::set<index_t> owned;
        for (index_t c = 0; c < nc; ++c)
          if (p.part[c] == l.rank) owned.insert(c);
        const std::set<index_t> first = next(owned);
        std::set<index_t> near(owned);
        near.insert(first.begin(), first.end());
        const std::set<index_t> second = next(near);
        ASSERT_EQ(l.n_layer1, index_t(first.size()));
        EXPECT_EQ(std::set<index_t>(l.global_cell.begin() + l.n_owned, l.global_cell.begin() + l.n_owned + l.n_layer1),
                  first);
        EXPECT_EQ(std::set<index_t>(l.global_cell.begin() + l.n_owned + l.n_layer1, l.global_cell.end()), second);
        // what the stencil needs: every vertex neighbour of a corner cell among the owned and the first layer
        const std::set<index_t> local(l.global_cell.begin(), l.global_cell.end());
        for (index_t k = 0; k < l.n_owned + l.n_layer1; ++k) {
          if (!corner[std::size_t(l.global_cell[k])]) continue;
          for (index_t n : around[std::size_t(l.global_cell[k])]) {
            EXPECT_TRUE(local.count(n)) << "corner cell gid " << l.host.cell_gid[k] << " lacks " << g.cell_gid[n];
          }
        }
        for (index_t c = 0; c < l.n_owned; ++c) { // inner: no ghost neighbour
          bool frontier = false;
          for (index_t n : next({l.global_cell[c]})) frontier = frontier || !owned.count(n);
          EXPECT_EQ(c >= l.n_inner, frontier) << "owned cell gid " << l.host.cell_gid[c];
        }
        expect_sends_are_receives(ls, l, 0);
        ghosts_corners += l.n_ghosts();
        ghosts_face += extract_local(g, p.part, l.rank, P, 2).n_ghosts();
        ghosts_vertex += extract_local(g, p.part, l.rank, P, 2, GhostAdjacency{true, false, {}}).n_ghosts();
      }
      EXPECT_GT(ghosts_corners, ghosts_face);
      EXPECT_LT(ghosts_corners, ghosts_vertex);
    }
  }
}

} // namespace
} // namespace fvproxy
