#pragma once
// Fenced per-kernel timers for `fvproxy run --profile` (docs/running.md#fvproxy-run): while active, every
// parallel_for / parallel_reduce / parallel_scan is fenced before it starts and after it ends
// (through Kokkos' tools callbacks), and its time is added to its label. The fences perturb the
// timing of the whole run — which is why they are off unless asked for. Kernels are keyed by their
// labels ("fvproxy::<component>::<name>"), so the table names what Nsight and Kokkos Tools show.
// A Kokkos tool loaded at start-up (KOKKOS_PROFILE_LIBRARY on Kokkos 3.4, KOKKOS_TOOLS_LIBS on 4.x,
// --kokkos-tools-libs on both) is chained: its kernel callbacks still run, inside the fences, with
// the kernel ids it gives (docs/performance.md#kokkos-tools).
#include <string>
#include <vector>

namespace fvproxy {

struct KernelTime {
  std::string label;
  long long calls = 0;
  double seconds = 0;
};

class KernelProfiler {
public:
  /// Installs the callbacks and clears the table.
  static void start();
  /// Removes the callbacks (the table stays readable).
  static void stop();
  static bool active();
  /// Kernels by decreasing total time.
  static std::vector<KernelTime> table();
};

/// Starts the profiler for a scope when `on` (stops it at the end, also on exceptions).
class ScopedKernelProfiler {
public:
  explicit ScopedKernelProfiler(bool on) : on_(on) {
    if (on_) KernelProfiler::start();
  }
  ~ScopedKernelProfiler() {
    if (on_) KernelProfiler::stop();
  }
  ScopedKernelProfiler(const ScopedKernelProfiler&) = delete;
  ScopedKernelProfiler& operator=(const ScopedKernelProfiler&) = delete;

private:
  bool on_;
};

} // namespace fvproxy
