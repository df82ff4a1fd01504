#pragma once
// Where a rank runs (docs/parallel.md#per-rank-reports): its host, its rank among the ranks of that
// host (Kokkos picks a rank's GPU by this local rank unless --kokkos-device-id is given), and the
// device Kokkos runs it on: on CUDA the device id and PCI bus id of the GPU it got, on host
// backends "host" and no id; and the CPUs it may run on (its binding: scripts/gpu-bind.sh). Reported per rank by
// `fvproxy run` (summary.json) and `fvproxy bench`.
#include <string>

#include "parallel/communicator.hpp"

namespace fvproxy {

struct RankPlacement {
  int rank = 0;
  std::string host;            ///< the host name (gethostname)
  int local_rank = 0;          ///< among the ranks of this host (MPI_COMM_TYPE_SHARED)
  int local_size = 1;          ///< ranks on this host
  std::string device = "host"; ///< "host" on host backends; on CUDA "cuda"
  int device_id = -1;          ///< the CUDA device this rank runs on (cudaGetDevice); -1 on the host
  std::string pci_bus_id;      ///< its PCI bus id ("0000:3B:00.0"); "" on the host
  int visible_devices = 0;     ///< CUDA devices this rank sees (cudaGetDeviceCount); 0 on the host
  std::string cpus;            ///< the CPUs this rank may run on (sched_getaffinity), as "0-15,32"
  int cpu_count = 0;           ///< how many
};

/// This rank's placement (collective: every rank of `comm` calls it).
RankPlacement rank_placement(const Communicator& comm);

} // namespace fvproxy
