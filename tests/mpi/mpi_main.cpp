// The MPI tests' main: MPI, Kokkos, one report (rank 0's), and a fatal failure on one rank ends every rank.
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

namespace {
/// On ranks other than 0: each failed assertion, prefixed with the rank (rank 0 prints the report).
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed())
      std::printf("[rank %d] %s:%d: Failure\n%s\n", rank_, r.file_name() ? r.file_name() : "?", r.line_number(),
                  r.summary());
  }

private:
  int rank_;
};

/// A fatal failure (ASSERT_*) on one rank returns from its test body while the other ranks may
/// enter a collective it never reaches: the job would wait for the ctest timeout. The failure is
/// printed, then MPI_Abort ends every rank at once. A non-fatal one (EXPECT_*) lets the body go on,
/// and after each test the ranks agree on its outcome (rank 0 names the ranks that failed it).
class FailEveryRankAtOnce : public ::testing::EmptyTestEventListener {
public:
  explicit FailEveryRankAtOnce(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.fatally_failed()) return;
    // (UnitTest::current_test_info() would deadlock here: gtest holds its mutex while reporting.)
    std::printf("[rank %d] FAIL: fatal failure in %s at %s:%d: ending every rank (MPI_Abort)\n", rank_, test_.c_str(),
                r.file_name() ? r.file_name() : "?", r.line_number());
    std::fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  void OnTestStart(const ::testing::TestInfo& t) override { test_ = std::string(t.test_suite_name()) + "." + t.name(); }
  void OnTestEnd(const ::testing::TestInfo& t) override {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int mine = t.result()->Failed() ? 1 : 0;
    std::vector<int> all(size, 0);
    MPI_Gather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank_ != 0) return;
    std::string ranks;
    for (int r = 0; r < size; ++r)
      if (all[r]) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
    if (!ranks.empty()) std::printf("FAIL: %s.%s failed on rank(s) %s\n", t.test_suite_name(), t.name(), ranks.c_str());
  }

private:
  int rank_;
  std::string test_;
};

// Run by ctest (mpi.fail_fast: --gtest_also_run_disabled_tests, this test alone): rank 1's ASSERT
// fails while rank 0 waits in a barrier; the job must end at once, not at the timeout.
TEST(FailFast, DISABLED_OneRanksFatalFailureEndsEveryRank) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ASSERT_GT(size, 1) << "needs 2 ranks or more";
  ASSERT_NE(rank, 1) << "rank 1 fails on purpose";
  MPI_Barrier(MPI_COMM_WORLD); // rank 1 never gets here
}
} // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ::testing::InitGoogleTest(&argc, argv);
  if (rank != 0) { // one report: rank 0's
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(rank));
  }
  ::testing::UnitTest::GetInstance()->listeners().Append(new FailEveryRankAtOnce(rank));
  int failed = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    failed = RUN_ALL_TESTS();
  }
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) std::printf("%s: %d ranks\n", any ? "FAIL" : "OK", size);
  MPI_Finalize();
  return any ? 1 : 0;
}
