#include "parallel/placement.hpp"

#include <sched.h>
#include <unistd.h>

#include <string>

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace fvproxy {

namespace {

/// The CPUs this process may run on, as ranges ("0-15,32"), and how many; "" and 0 when unknown.
void cpu_affinity(std::string& list, int& count) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return;
  count = CPU_COUNT(&set);
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    int last = c;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    if (!list.empty()) list += ',';
    list += std::to_string(c);
    if (last > c) list += '-' + std::to_string(last);
    c = last;
  }
}

} // namespace

RankPlacement rank_placement(const Communicator& comm) {
  RankPlacement p;
  p.rank = comm.rank();
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0) p.host = name;
  cpu_affinity(p.cpus, p.cpu_count);
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
