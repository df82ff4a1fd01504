#pragma once
// What the MPI tests share (tests/mpi/: one executable, fvproxy_mpi_tests, which ctest runs under
// mpirun at 1, 2 and 3 ranks, mpi.tests_N). Every rank builds the same global mesh, partitions it
// into as many parts as there are ranks and extracts its own part; the checks compare with the
// global mesh held by every rank. Only rank 0 prints GoogleTest's report; a failure on any rank
// fails the test on every rank (mpi_main.cpp), so the exit code is the same everywhere.
#include <mpi.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include "../test_helpers.hpp"
#include "core/error.hpp"
#include "core/memory_peaks.hpp"
#include "io/checkpoint.hpp"
#include "io/field_file.hpp"
#include "io/output_series.hpp"
#include "mesh/build.hpp"
#include "mesh/local_mesh.hpp"
#include "mesh/partition.hpp"
#include "mesh/ptscotch.hpp"
#include "operators/convection/convection.hpp"
#include "operators/diffusion/diffusion.hpp"
#include "operators/face_flux.hpp"
#include "operators/flow/flow_convection.hpp"
#include "operators/flow/flow_viscous.hpp"
#include "operators/muscl/gradient.hpp"
#include "operators/muscl/limiter.hpp"
#include "operators/muscl/muscl.hpp"
#include "parallel/communicator.hpp"
#include "parallel/decomposition.hpp"
#include "parallel/halo.hpp"
#include "parallel/parts.hpp"
#include "solver/simulation.hpp"

namespace fvproxy::mpi_test {

/// A jittered periodic tet box and the Gmsh hybrid channel in a random numbering.
inline std::vector<MeshConfig> meshes() {
  MeshConfig tet;
  tet.generate = BoxConfig{};
  tet.generate->cells = {6, 5, 4};
  tet.generate->element = ElementKind::tet;
  tet.generate->perturb = 0.15;
  tet.generate->periodic = {true, true, false};
  tet.reorder = Ordering::zorder;
  MeshConfig gmsh;
  gmsh.file = test::source_path("mesh/hybrid_channel.msh");
  gmsh.reorder = Ordering::random;
  return {tet, gmsh};
}

/// A value per (global id, column) that no other cell or column has.
inline real tag(gid_t gid, int c) {
  return real(gid) * real(16) + real(c) + real(0.25);
}

} // namespace fvproxy::mpi_test
