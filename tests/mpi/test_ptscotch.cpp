// PT-Scotch's distributed partition: valid, and errors on every rank.
#include "mpi_fixture.hpp"

namespace fvproxy {
namespace {

using mpi_test::meshes;
using mpi_test::tag;

/// Every rank's parts of its slice [begin, end), gathered: each cell's part on every rank.
std::vector<int> gather_parts(const std::vector<int>& mine, index_t n, const std::vector<index_t>& first,
                              const Communicator& w) {
  std::vector<int> count(w.size()), displ(w.size()), all(n, -1);
  for (int r = 0; r < w.size(); ++r) {
    count[r] = first[r + 1] - first[r];
    displ[r] = first[r];
  }
  MPI_Allgatherv(mine.data(), int(mine.size()), MPI_INT, all.data(), count.data(), displ.data(), MPI_INT, w.raw());
  return all;
}

TEST(Ptscotch, EmptyPartsAreRefilledAmongTheRanksAsOnTheWholeMesh) {
  // Parts a partitioner left empty, the cells spread over the ranks in a scrambled order (as a box
  // built in parts holds its slab by global id, not by row): each rank's cells end in the parts
  // refill_empty_parts gives the whole vector, and the count agrees.
  const Communicator w = Communicator::world();
  const int P = w.size();
  for (const auto& [n, parts] : std::vector<std::pair<int, int>>{{4, 3}, {11, 7}, {30, 9}}) {
    std::vector<int> whole(static_cast<std::size_t>(n));
    for (int c = 0; c < n; ++c) whole[std::size_t(c)] = (c * c) % 3 == 0 ? 1 : c % 5 == 0 ? 4 % parts : 0;
    std::vector<int> expected = whole;
    const int refilled = refill_empty_parts(expected, parts);
    ASSERT_GT(refilled, 0);
    if (n == 4) { // parts 0 and 1 hold two cells each: the first of them gives its highest-numbered cell
      EXPECT_EQ(whole, (std::vector<int>{1, 0, 0, 1}));
      EXPECT_EQ(expected, (std::vector<int>{1, 0, 2, 1}));
    }
    std::vector<int> mine;
    std::vector<gid_t> rows;
    for (int k = 0; k < n; ++k) {
      const int c = (k * 7 + 3) % n; // n is prime to 7: every row once
      if (k % P == w.rank()) mine.push_back(whole[std::size_t(c)]), rows.push_back(c);
    }
    SCOPED_TRACE(std::to_string(n) + " cells, " + std::to_string(parts) + " parts");
    EXPECT_EQ(refill_empty_parts(mine, rows, parts, w.raw()), refilled);
    for (std::size_t i = 0; i < mine.size(); ++i)
      EXPECT_EQ(mine[i], expected[std::size_t(rows[i])]) << "row " << rows[i];
  }
}

TEST(Ptscotch, DistributedGraphGivesAValidPartition) {
  // The cell graph split unevenly over the ranks (as a mesh built in parts would be), partitioned
  // by PT-Scotch into P and 2P + 1 parts: every cell in a part, every part non-empty and within 10%
  // of the mean, the same parts when called again, and the global path (even slices) valid too.
  const Communicator w = Communicator::world();
  const int P = w.size();
  for (const MeshConfig& mc : meshes()) {
    const BuiltMesh b = build_mesh(mc);
    const index_t n = b.host.n_cells();
    // Rank r holds about (r + 1) / (1 + 2 + ... + P) of the cells; then the same with rank 0 empty.
    std::vector<index_t> uneven(P + 1, 0), empty0(P + 1, 0);
    for (int r = 0; r < P; ++r) uneven[r + 1] = index_t(gid_t(n) * (r + 1) * (r + 2) / (P * (P + 1)));
    for (int r = 1; r < P; ++r) empty0[r + 1] = index_t(gid_t(n) * r / (P - 1));
    for (const auto& [first, parts] :
         std::vector<std::pair<std::vector<index_t>, int>>{{uneven, P}, {uneven, 2 * P + 1}, {empty0, P}}) {
      if (P == 1 && first == empty0) continue;
      const DistGraph g = cell_graph(b.host, first[w.rank()], first[w.rank() + 1]);
      SCOPED_TRACE(std::string(mc.generate ? "tets" : "gmsh") + ", " + std::to_string(parts) + " parts on " +
                   std::to_string(P) + " ranks, " + std::to_string(g.n_local()) + " vertices here");
      const std::vector<int> mine = ptscotch_parts(g, parts, w.raw());
      ASSERT_EQ(gid_t(mine.size()), g.n_local());
      EXPECT_EQ(ptscotch_parts(g, parts, w.raw()), mine) << "not deterministic";
      Partition p;
      p.method = PartitionMethod::ptscotch;
      p.parts = parts;
      p.part = gather_parts(mine, n, first, w);
      for (int r : p.part) {
        ASSERT_GE(r, 0);
        ASSERT_LT(r, parts);
      }
      const PartitionQuality q = partition_quality(b.host, p, 5);
      EXPECT_EQ(q.empty_parts, 0);
      EXPECT_LE(q.imbalance, 1.1);
      if (parts > 1) {
        EXPECT_GT(q.edge_cut, 0);
      }
    }
    // The global path: rank r partitions the even slice r, every rank gets every part; the same on
    // every rank and again on a second call.
    const BoxConfig* box = mc.generate ? &*mc.generate : nullptr;
    const Partition p = partition_cells(b.host, b.device, PartitionMethod::ptscotch, P, box, "test", w.raw());
    EXPECT_EQ(partition_cells(b.host, b.device, PartitionMethod::ptscotch, P, box, "test", w.raw()).part, p.part);
    EXPECT_EQ(partition_quality(b.host, p, 5).empty_parts, 0);
    EXPECT_EQ(w.broadcast(std::string(reinterpret_cast<const char*>(p.part.data()), p.part.size() * sizeof(int))),
              std::string(reinterpret_cast<const char*>(p.part.data()), p.part.size() * sizeof(int)))
        << "ranks disagree";
  }
}

TEST(Ptscotch, InconsistentGraphsFailOnEveryRank) {
  // Every rank throws (none is left waiting in a collective), with the same message.
  const Communicator w = Communicator::world();
  if (w.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  const BuiltMesh b = build_mesh(meshes()[0]);
  const index_t n = b.host.n_cells();
  const index_t begin = index_t(gid_t(n) * w.rank() / w.size()), end = index_t(gid_t(n) * (w.rank() + 1) / w.size());
  DistGraph gap = cell_graph(b.host, begin, end);
  if (w.rank() == 1) { // rank 1 starts one vertex late: vertex `begin` belongs to no rank
    gap = cell_graph(b.host, begin + 1, end);
  }
  try {
    ptscotch_parts(gap, w.size(), w.raw());
    ADD_FAILURE() << "a gap between ranks was accepted";
  } catch (const RunError& e) {
    EXPECT_NE(std::string(e.what()).find("rank 1 holds vertices"), std::string::npos) << e.what();
  }
  DistGraph bad = cell_graph(b.host, begin, end);
  if (w.rank() == w.size() - 1) bad.adjncy.back() = n + 5; // a neighbour out of range on the last rank
  try {
    ptscotch_parts(bad, w.size(), w.raw());
    ADD_FAILURE() << "a neighbour out of range was accepted";
  } catch (const RunError& e) {
    EXPECT_NE(std::string(e.what()).find("rank " + std::to_string(w.size() - 1) + ": vertex"), std::string::npos)
        << e.what();
  }
}

} // namespace
} // namespace fvproxy
