#pragma once
// What this process holds at its peak (docs/output.md, summary.json "memory"): the bytes of Kokkos
// allocations per memory space, counted through the Kokkos Tools allocate / deallocate callbacks
// (the same in Kokkos 3.4 and 4.x; chained to those of a tools library loaded with
// KOKKOS_PROFILE_LIBRARY on 3.4, KOKKOS_TOOLS_LIBS on 4.x or --kokkos-tools-libs, which keeps
// working), and the host's resident-set peak (getrusage).
//
// The device figure is the default execution space's memory space (CudaSpace on a CUDA build,
// HostSpace on host backends, where it is also part of the resident set). Allocations made
// before start() are not counted, nor are their frees.
#include <cstdint>
#include <string>

namespace fvproxy {

struct MemoryPeaks {
  std::uint64_t device_bytes = 0;      ///< Kokkos allocations in the device memory space now
  std::uint64_t device_peak_bytes = 0; ///< their peak since start()
  std::uint64_t host_peak_bytes = 0;   ///< the process's resident-set peak (ru_maxrss)
  std::string device_space;            ///< the memory space counted: "Cuda", "Host", ...
};

class MemoryTracker {
public:
  /// Starts counting Kokkos allocations (once; later calls do nothing). Call after
  /// Kokkos::initialize, before the allocations to count.
  static void start();
  /// Counting since start()?
  static bool active();
  /// What this process holds now and held at its peak.
  static MemoryPeaks now();
  /// The device peak from here on: set to what is held now (one phase's peak; the tests').
  static void reset_device_peak();
};

} // namespace fvproxy
