// GoogleTest main: Kokkos is initialized once for every test (default execution space: the
// build's device backend — OpenMP on host presets, CUDA on the cuda preset).
#include <cstdlib>
#include <filesystem>
#include <string>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

namespace {
/// Open MPI's session folders of this process alone, removed at exit: isolated singletons share one
/// job-family folder, which two test processes starting or ending together can fail to create
/// (docs/development.md#mpi-start-up).
struct OwnMpiSessionFolder {
  std::string dir = (std::filesystem::temp_directory_path() / "fvproxy-ompi.XXXXXX").string();
  OwnMpiSessionFolder() {
    if (mkdtemp(dir.data()))
      setenv("OMPI_MCA_orte_tmpdir_base", dir.c_str(), 1);
    else
      dir.clear();
  }
  ~OwnMpiSessionFolder() {
    std::error_code ec;
    if (!dir.empty()) std::filesystem::remove_all(dir, ec);
  }
};
} // namespace

int main(int argc, char** argv) {
  const OwnMpiSessionFolder mpi_session;
  ::testing::InitGoogleTest(&argc, argv);
  // Listing the tests (CTest's discovery at build time) needs no device: the cuda preset builds
  // on machines without a GPU.
  if (::testing::GTEST_FLAG(list_tests)) return RUN_ALL_TESTS();
  Kokkos::ScopeGuard kokkos(argc, argv);
  return RUN_ALL_TESTS();
}
