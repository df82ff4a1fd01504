// GoogleTest main: Kokkos is initialized once for every test (default execution space: the
// build's device backend — OpenMP on host presets, CUDA on the cuda preset).
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // Listing the tests (CTest's discovery at build time) needs no device: the cuda preset builds
  // on machines without a GPU.
  if (::testing::GTEST_FLAG(list_tests)) return RUN_ALL_TESTS();
  Kokkos::ScopeGuard kokkos(argc, argv);
  return RUN_ALL_TESTS();
}
