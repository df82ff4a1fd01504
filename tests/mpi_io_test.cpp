// The collective HDF5 writer at several ranks (run under mpirun -np 2 and 3): every rank holds
// the same small mesh and writes a synthetic share of it (its slice of the cells, the nodes and
// each patch's faces; the fields of its cells), collectively into one file through MPI-IO. Rank 0
// then writes the same data alone and checks that both files hold identical datasets, byte for
// byte, and that no temporary file is left. Prints OK on success; exit 1 on any difference.
#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "io/field_file.hpp"
#include "io/hdf5_file.hpp"
#include "mesh/box_generator.hpp"
#include "mesh/mesh_options.hpp"

using namespace fvproxy;
namespace fs = std::filesystem;

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  if (!ok) {
    std::printf("FAIL: %s\n", what.c_str());
    ++failures;
  }
}

template <class T> void same(const h5::File& a, const h5::File& b, const std::string& name) {
  check(a.shape(name) == b.shape(name), name + ": shapes differ");
  check(a.read<T>(name) == b.read<T>(name), name + ": values differ");
}

std::string bytes_of(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

index_t share(index_t n, int r, int size) {
  return static_cast<index_t>((std::int64_t(n) * r) / size);
}

} // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string dir = argc > 1 ? argv[1] : "mpi_io_test";
  if (rank == 0) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  try {
    // The mesh generator and the writers run Kokkos host kernels: Kokkos must be initialized
    // (Kokkos 3.4 ran them silently without; 4.x prints an error for each instance made before).
    Kokkos::ScopeGuard kokkos(argc, argv);
    BoxConfig box;
    box.cells = {5, 3, 2};
    box.element = ElementKind::prism;
    box.perturb = 0.1;
    const HostMesh m = generate_box(box);
    const FileMetadata meta{"case: mpi\n", "{}", "{}"};
    // This rank's share.
    MeshSlice s;
    s.cell_begin = share(m.n_cells(), rank, size), s.cell_end = share(m.n_cells(), rank + 1, size);
    s.node_begin = share(m.n_nodes(), rank, size), s.node_end = share(m.n_nodes(), rank + 1, size);
    index_t max_patch = 0;
    for (const Patch& p : m.patches) max_patch = std::max(max_patch, p.end - p.begin);
    s.face_begin = share(max_patch, rank, size), s.face_end = share(max_patch, rank + 1, size);
    write_mesh_file(dir + "/mesh_collective.h5", m, meta, s, Communicator::world());
    std::vector<real> u0, u1;
    for (index_t c = 0; c < m.n_cells(); ++c) {
      u0.push_back(real(0.5) + real(m.cell_gid[c]) / real(7));
      u1.push_back(-real(m.cell_gid[c] % 5));
    }
    FieldFile h;
    h.time = 0.375;
    h.step = 11;
    h.names = {"u0", "u1"};
    h.meta = meta;
    const index_t n = s.cell_end - s.cell_begin;
    write_field_file(dir + "/fields_collective.h5", h, n, m.cell_gid.data() + s.cell_begin,
                     {u0.data() + s.cell_begin, u1.data() + s.cell_begin}, Communicator::world());
    if (rank == 0) {
      write_mesh_file(dir + "/mesh_serial.h5", m, meta, MeshSlice{}, Communicator::self());
      write_field_file(dir + "/fields_serial.h5", h, m.n_cells(), m.cell_gid.data(), {u0.data(), u1.data()},
                       Communicator::self());
      const h5::File a = h5::File::open(dir + "/mesh_collective.h5"), b = h5::File::open(dir + "/mesh_serial.h5");
      same<double>(a, b, "/mesh/nodes");
      same<std::int64_t>(a, b, "/mesh/topology");
      same<std::uint8_t>(a, b, "/mesh/cell_types");
      same<std::int64_t>(a, b, "/cells/global_id");
      same<std::int64_t>(a, b, "/nodes/global_id");
      for (const Patch& p : m.patches) {
        same<std::int64_t>(a, b, "/patches/" + p.name + "/topology");
        same<std::int64_t>(a, b, "/patches/" + p.name + "/cell_global_id");
      }
      check(a.attribute_int("/", "cells") == m.n_cells(), "cells attribute");
      const FieldFile fa = read_field_file(dir + "/fields_collective.h5");
      const FieldFile fb = read_field_file(dir + "/fields_serial.h5");
      check(fa.cell_gid == fb.cell_gid && fa.values == fb.values, "fields differ");
      check(fa.time == 0.375 && fa.step == 11, "time/step attributes");
      check(fa.meta.case_yaml == "case: mpi\n", "case_yaml");
      // Not only the same datasets: the same bytes (docs/output.md, "The same bytes on every rank count").
      check(bytes_of(dir + "/mesh_collective.h5") == bytes_of(dir + "/mesh_serial.h5"),
            "mesh_collective.h5 and mesh_serial.h5 differ in their bytes");
      check(bytes_of(dir + "/fields_collective.h5") == bytes_of(dir + "/fields_serial.h5"),
            "fields_collective.h5 and fields_serial.h5 differ in their bytes");
      for (const auto& e : fs::directory_iterator(dir))
        check(e.path().filename().string()[0] != '.', "temporary file left: " + e.path().string());
      std::printf("%s: %d ranks wrote %d cells, %d nodes collectively\n", failures ? "FAIL" : "OK", size, m.n_cells(),
                  m.n_nodes());
    }
  } catch (const std::exception& e) {
    std::printf("FAIL: rank %d: %s\n", rank, e.what());
    ++failures;
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return failures ? 1 : 0;
}
