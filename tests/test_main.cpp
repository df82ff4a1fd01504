// GoogleTest main: Kokkos is initialized once for every test (default execution space: the
// build's device backend — OpenMP on host presets, CUDA on the cuda preset).
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  Kokkos::ScopeGuard kokkos(argc, argv);
  return RUN_ALL_TESTS();
}
