// Reordering: valid permutations; geometry and connectivity invariant per global id; locality.
#include <algorithm>
#include <map>

#include "mesh/box_generator.hpp"
#include "mesh/build.hpp"
#include "mesh/gmsh_reader.hpp"
#include "mesh/host_parallel.hpp"
#include "mesh/reorder.hpp"
#include "mesh/report.hpp"
#include "mesh/space_filling_curves.hpp"
#include "test_helpers.hpp"

namespace fvproxy {
namespace {

HostMesh box(ElementKind e, std::array<int, 3> n, std::array<bool, 3> periodic, double perturb) {
  BoxConfig b;
  b.cells = n;
  b.element = e;
  b.periodic = periodic;
  b.perturb = perturb;
  return generate_box(b);
}

struct PerGid {
  std::map<gid_t, double> volume;
  std::map<gid_t, std::array<double, 3>> centroid;
  std::map<gid_t, std::vector<gid_t>> neighbours;
  std::map<gid_t, std::array<double, 3>> node_x;
  std::map<std::string, index_t> patch_faces;
  std::map<std::string, std::array<double, 3>> patch_area;
};

PerGid by_gid(const HostMesh& h) {
  const Mesh m = upload(h);
  auto V = Kokkos::create_mirror_view_and_copy(HostSpace(), m.volume);
  auto C = Kokkos::create_mirror_view_and_copy(HostSpace(), m.centroid);
  auto S = Kokkos::create_mirror_view_and_copy(HostSpace(), m.face_area);
  PerGid r;
  for (index_t c = 0; c < h.n_cells(); ++c) {
    r.volume[h.cell_gid[c]] = V(c);
    r.centroid[h.cell_gid[c]] = {C(c, 0), C(c, 1), C(c, 2)};
  }
  for (index_t f = 0; f < h.n_interior; ++f) {
    r.neighbours[h.cell_gid[h.face_owner[f]]].push_back(h.cell_gid[h.face_neighbour[f]]);
    r.neighbours[h.cell_gid[h.face_neighbour[f]]].push_back(h.cell_gid[h.face_owner[f]]);
  }
  for (auto& [g, v] : r.neighbours) std::sort(v.begin(), v.end());
  for (index_t v = 0; v < h.n_nodes(); ++v) r.node_x[h.node_gid[v]] = {h.x[3 * v], h.x[3 * v + 1], h.x[3 * v + 2]};
  for (const auto& p : h.patches) {
    r.patch_faces[p.name] = p.end - p.begin;
    std::array<double, 3> a{0, 0, 0};
    for (index_t f = p.begin; f < p.end; ++f)
      for (int d = 0; d < 3; ++d) a[d] += S(f, d);
    r.patch_area[p.name] = a;
  }
  return r;
}

void expect_invariant(const PerGid& a, const PerGid& b) {
  ASSERT_EQ(a.volume.size(), b.volume.size());
  for (const auto& [g, v] : a.volume)
    EXPECT_NEAR(v, b.volume.at(g), test::tol(1e-14 + 1e-12 * std::abs(v))) << "cell " << g;
  for (const auto& [g, c] : a.centroid)
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(c[d], b.centroid.at(g)[d], test::tol(1e-13)) << "cell " << g;
  EXPECT_EQ(a.neighbours, b.neighbours);
  EXPECT_EQ(a.node_x, b.node_x);
  EXPECT_EQ(a.patch_faces, b.patch_faces);
  for (const auto& [p, s] : a.patch_area)
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(s[d], b.patch_area.at(p)[d], test::tol(1e-12)) << p;
}

class ReorderTest : public ::testing::TestWithParam<int> {
protected:
  HostMesh mesh() const {
    switch (GetParam()) {
    case 0: return box(ElementKind::hex, {6, 5, 4}, {false, false, false}, 0.2);
    case 1: return box(ElementKind::tet, {4, 3, 5}, {true, false, false}, 0.1);
    case 2: return box(ElementKind::prism, {4, 4, 3}, {true, true, true}, 0.25);
    default: return read_gmsh(test::source_path("mesh/hybrid_channel.msh"));
    }
  }
};

TEST_P(ReorderTest, EveryOrderingIsAnInvariantPermutation) {
  const HostMesh h = mesh();
  const Mesh m = upload(h);
  const PerGid ref = by_gid(h);
  for (Ordering o : all_orderings()) {
    SCOPED_TRACE(to_string(o));
    const auto p = ordering_permutation(h, m, o, 5);
    ASSERT_TRUE(is_permutation(p, h.n_cells()));
    EXPECT_EQ(p, ordering_permutation(h, m, o, 5)) << "not deterministic";
    const HostMesh r = permute_cells(h, p);
    ASSERT_EQ(r.n_faces(), h.n_faces());
    ASSERT_EQ(r.n_interior, h.n_interior);
    for (index_t c = 0; c < r.n_cells(); ++c) ASSERT_EQ(r.cell_gid[c], h.cell_gid[p[c]]);
    for (index_t f = 0; f < r.n_interior; ++f) ASSERT_LT(r.face_owner[f], r.face_neighbour[f]);
    expect_invariant(ref, by_gid(r));
    EXPECT_NO_THROW(validate_geometry(upload(r), "reordered"));
    // Locality computed from the permutation equals that of the renumbered mesh.
    std::vector<index_t> new_of_old(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) new_of_old[p[i]] = index_t(i);
    const Locality a = locality(h, new_of_old), b = locality(r);
    EXPECT_DOUBLE_EQ(a.mean, b.mean);
    EXPECT_DOUBLE_EQ(a.median, b.median);
    EXPECT_EQ(a.max, b.max);
    EXPECT_DOUBLE_EQ(a.same_block_32, b.same_block_32);
  }
}

INSTANTIATE_TEST_SUITE_P(Meshes, ReorderTest, ::testing::Values(0, 1, 2, 3));

TEST(Reorder, ZorderHasFarBetterLocalityThanRandom) {
  for (ElementKind e : {ElementKind::hex, ElementKind::tet}) {
    const HostMesh h = box(e, {16, 16, 16}, {false, false, false}, 0.1);
    const Mesh m = upload(h);
    auto loc = [&](Ordering o) {
      const auto p = ordering_permutation(h, m, o, 1);
      std::vector<index_t> inv(p.size());
      for (std::size_t i = 0; i < p.size(); ++i) inv[p[i]] = index_t(i);
      return locality(h, inv);
    };
    const Locality z = loc(Ordering::zorder), r = loc(Ordering::random), hb = loc(Ordering::hilbert),
                   rcm = loc(Ordering::rcm);
    EXPECT_LT(z.mean, 0.1 * r.mean) << to_string(e);
    EXPECT_LT(z.median, 0.01 * r.median) << to_string(e);
    EXPECT_GT(z.same_block_32, 0.4);
    EXPECT_LT(r.same_block_32, 0.01);
    EXPECT_LT(hb.mean, 0.1 * r.mean);
    EXPECT_LT(rcm.bandwidth, r.bandwidth / 4);
  }
}

TEST(Reorder, RandomDependsOnSeed) {
  EXPECT_EQ(random_permutation(100, 3), random_permutation(100, 3));
  EXPECT_NE(random_permutation(100, 3), random_permutation(100, 4));
  EXPECT_TRUE(is_permutation(random_permutation(1000, 9), 1000));
}

TEST(Reorder, LocalityByHand) {
  const HostMesh h = box(ElementKind::hex, {4, 1, 1}, {false, false, false}, 0.0); // faces (0,1) (1,2) (2,3)
  const Locality id = locality(h);
  EXPECT_EQ(id.mean, 1.0);
  EXPECT_EQ(id.median, 1.0);
  EXPECT_EQ(id.max, 1);
  EXPECT_EQ(id.same_block_32, 1.0);
  const Locality p = locality(h, {0, 3, 1, 2}); // distances 3, 2, 1
  EXPECT_EQ(p.mean, 2.0);
  EXPECT_EQ(p.median, 2.0);
  EXPECT_EQ(p.max, 3);
  EXPECT_EQ(p.bandwidth, 3);
}

TEST(SpaceFillingCurves, MortonBits) {
  const MortonKey z;
  EXPECT_EQ(z(0, 0, 1), 1u);
  EXPECT_EQ(z(0, 1, 0), 2u);
  EXPECT_EQ(z(1, 0, 0), 4u);
  EXPECT_EQ(z(3, 0, 0), 4u + 32u);
  EXPECT_EQ(z(0x1fffff, 0x1fffff, 0x1fffff), (1ULL << 63) - 1);
}

TEST(SpaceFillingCurves, HilbertVisitsNeighboursInTurn) {
  // On an 8^3 grid of the curve's top level, consecutive Hilbert keys are face neighbours.
  const HilbertKey hk;
  std::vector<std::pair<std::uint64_t, std::array<int, 3>>> pts;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j)
      for (int k = 0; k < 8; ++k)
        pts.push_back({hk(std::uint32_t(i) << 18, std::uint32_t(j) << 18, std::uint32_t(k) << 18), {i, j, k}});
  std::sort(pts.begin(), pts.end());
  for (std::size_t n = 1; n < pts.size(); ++n) {
    ASSERT_NE(pts[n].first, pts[n - 1].first);
    int dist = 0;
    for (int d = 0; d < 3; ++d) dist += std::abs(pts[n].second[d] - pts[n - 1].second[d]);
    ASSERT_EQ(dist, 1) << "keys " << pts[n - 1].first << " -> " << pts[n].first;
  }
}

} // namespace
} // namespace fvproxy

// --- the mesh build on host threads (mesh/host_parallel.hpp) -------------------------------------

namespace fvproxy {
namespace {

TEST(HostParallel, SortIsStdStableSortOnAnyThreadCount) {
  // Many ties (stability shows) and sizes around the pieces' bounds.
  for (const std::size_t n : {std::size_t(40000), std::size_t(100003), std::size_t(262144)}) {
    std::vector<std::pair<int, int>> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = {int((i * 2654435761u) % 977), int(i)};
    auto by_first = [](const std::pair<int, int>& a, const std::pair<int, int>& b) { return a.first < b.first; };
    auto want = v;
    std::stable_sort(want.begin(), want.end(), by_first);
    for (const int t : {1, 2, 3, 8, 13}) {
      host::threads_override() = t;
      auto got = v;
      host::parallel_sort(got, by_first, "fvproxy::test::sort");
      host::threads_override() = 0;
      EXPECT_EQ(got, want) << n << " values, " << t << " threads";
    }
  }
}

TEST(HostParallel, MergeRunsIsStdStableSortOfTheRuns) {
  // Sorted runs (some empty, ties within and across runs) of any count, merged on any thread count:
  // std::stable_sort of the whole (a tie keeps its run's order, then its order within the run).
  auto by_first = [](const std::pair<int, int>& a, const std::pair<int, int>& b) { return a.first < b.first; };
  for (const int runs : {1, 2, 3, 5, 8}) {
    std::vector<std::pair<int, int>> v;
    std::vector<std::int64_t> bound{0};
    for (int r = 0; r < runs; ++r) {
      const std::size_t n = r == 1 ? 0 : std::size_t(9000 + 4111 * r);
      const std::size_t b = v.size();
      for (std::size_t i = 0; i < n; ++i) v.emplace_back(int(((b + i) * 2654435761u) % 977), int(b + i));
      std::stable_sort(v.begin() + std::int64_t(b), v.end(), by_first);
      bound.push_back(std::int64_t(v.size()));
    }
    auto want = v;
    std::stable_sort(want.begin(), want.end(), by_first);
    for (const int t : {1, 2, 3, 8}) {
      host::threads_override() = t;
      auto got = v;
      host::merge_runs(got, bound, by_first, "fvproxy::test::merge");
      host::threads_override() = 0;
      EXPECT_EQ(got, want) << runs << " runs, " << t << " threads";
    }
  }
}

TEST(HostParallel, ExclusiveScan) {
  std::vector<std::int64_t> v(200001);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::int64_t(i % 7);
  auto want = v;
  std::int64_t s = 0;
  for (auto& x : want) {
    const std::int64_t y = x;
    x = s;
    s += y;
  }
  for (const int t : {1, 3, 8}) {
    host::threads_override() = t;
    auto got = v;
    EXPECT_EQ(host::exclusive_scan(got), s);
    host::threads_override() = 0;
    EXPECT_EQ(got, want) << t << " threads";
  }
}

TEST(HostParallel, MeshesAreTheSameOnAnyThreadCount) {
  // Large enough that the face records (> 2^15) take the parallel sort.
  std::vector<std::pair<std::string, MeshConfig>> cases;
  for (const ElementKind e : {ElementKind::tet, ElementKind::hex, ElementKind::prism}) {
    MeshConfig mc;
    mc.generate = BoxConfig{};
    mc.generate->element = e;
    mc.generate->cells = e == ElementKind::hex ? std::array<int, 3>{26, 24, 22} : std::array<int, 3>{17, 15, 13};
    mc.generate->perturb = 0.2;
    mc.generate->periodic = {true, false, true};
    for (const Ordering o : {Ordering::zorder, Ordering::rcm}) {
      mc.reorder = o;
      cases.emplace_back(to_string(e) + std::string(" ") + to_string(o), mc);
    }
  }
  for (const auto& [what, mc] : cases) {
    host::threads_override() = 1;
    const BuiltMesh one = build_mesh(mc);
    for (const int t : {2, 5}) {
      host::threads_override() = t;
      const BuiltMesh many = build_mesh(mc);
      test::expect_same_mesh(one.host, many.host, what + ", " + std::to_string(t) + " threads");
    }
    host::threads_override() = 0;
  }
}

} // namespace
} // namespace fvproxy
