#include "parallel/mpi_environment.hpp"

#include <cstdlib>

#ifdef FVPROXY_HAVE_MPI
#include <mpi.h>
#endif

namespace fvproxy {

MpiEnvironment::MpiEnvironment([[maybe_unused]] int& argc, [[maybe_unused]] char**& argv) {
#ifdef FVPROXY_HAVE_MPI
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    // Open MPI's default MPI-IO component (OMPIO, 4.x) does not report a failed write (a full disk,
    // a file-size limit) to every rank of a collective write: parallel HDF5 then waits forever
    // inside its own collective steps (measured at 3 ranks). ROMIO reports it, and fvproxy ends
    // every rank with the file's name (docs/parallel.md). A choice of the user's (OMPI_MCA_io,
    // mpirun --mca io) is kept.
    setenv("OMPI_MCA_io", "^ompio", 0);
    MPI_Init(&argc, &argv);
    owns_ = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
#endif
}

MpiEnvironment::~MpiEnvironment() {
#ifdef FVPROXY_HAVE_MPI
  if (owns_) MPI_Finalize();
#endif
}

namespace {
bool g_collective_exit = false;
}

void MpiEnvironment::set_collective_exit() {
  g_collective_exit = true;
}
bool MpiEnvironment::collective_exit() {
  return g_collective_exit;
}

void MpiEnvironment::abort(int code) {
#ifdef FVPROXY_HAVE_MPI
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  int size = 1;
  if (initialized && !finalized) MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (initialized && !finalized && size > 1) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::exit(code);
}

std::string mpi_library_version() {
#ifdef FVPROXY_HAVE_MPI
  char buf[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(buf, &len);
  std::string s(buf, len);
  const auto nl = s.find_first_of("\n,");
  return nl == std::string::npos ? s : s.substr(0, nl);
#else
  return "disabled";
#endif
}

} // namespace fvproxy
