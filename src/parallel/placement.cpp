#include "parallel/placement.hpp"

#include <unistd.h>

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace fvproxy {

RankPlacement rank_placement(const Communicator& comm) {
  RankPlacement p;
  p.rank = comm.rank();
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0) p.host = name;
  if (p.host.empty()) p.host = "?";
  if (comm.size() > 1) {
    MPI_Comm local = MPI_COMM_NULL;
    MPI_Comm_split_type(comm.raw(), MPI_COMM_TYPE_SHARED, comm.rank(), MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &p.local_rank);
    MPI_Comm_size(local, &p.local_size);
    MPI_Comm_free(&local);
  }
#if defined(KOKKOS_ENABLE_CUDA)
  // Kokkos::initialize made the device it chose current on this thread.
  p.device = "cuda";
  int dev = -1, count = 0;
  if (cudaGetDevice(&dev) == cudaSuccess) {
    p.device_id = dev;
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, dev) == cudaSuccess) p.pci_bus_id = bus;
  }
  if (cudaGetDeviceCount(&count) == cudaSuccess) p.visible_devices = count;
#endif
  return p;
}

} // namespace fvproxy
