#pragma once
// Stream-ordered synchronization for the halo exchange (docs/halo.md#overlap): an event that
// one execution-space instance records and another waits for on the device, so that no host thread
// and no device-wide fence sits between the halo's copies and the solver's kernels. Kokkos 3.4 and
// 4.x have no portable event, so this is the one place where the halo speaks CUDA:
//   CUDA          a cudaEvent_t (timing disabled unless asked: a timed event is the GPU-timeline
//                 measurement of docs/halo.md#halo-statistics);
//   host backends the instance's work is done when a Kokkos call returns: record() fences the
//                 instance, waits are nothing, and there is no device timeline.
#include <stdexcept>
#include <string>

#include "core/types.hpp"

namespace fvproxy::device {

#if defined(KOKKOS_ENABLE_CUDA)
constexpr bool kCudaExec = std::is_same_v<ExecSpace, Kokkos::Cuda>;
/// Throws with the call's name and CUDA's message unless `e` is cudaSuccess.
inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
#else
constexpr bool kCudaExec = false;
#endif

/// Whether kernels and copies run asynchronously to the host on their own streams (a GPU backend),
/// so that the halo's events order them; else the calling thread does the work.
constexpr bool kAsync = kCudaExec;

class Event {
public:
  explicit Event(bool timing = false) {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (kCudaExec)
      check(cudaEventCreateWithFlags(&e_, timing ? cudaEventDefault : cudaEventDisableTiming),
            "cudaEventCreateWithFlags");
#endif
    (void)timing;
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() {
#if defined(KOKKOS_ENABLE_CUDA)
    if (e_) cudaEventDestroy(e_);
#endif
  }
  /// Marks the point reached by the work queued on `on` so far.
  void record(const ExecSpace& on) {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (kCudaExec) {
      check(cudaEventRecord(e_, on.cuda_stream()), "cudaEventRecord");
      return;
    }
#endif
    on.fence();
  }
  /// The work queued on `on` after this call starts once the recorded point is reached.
  void make_wait(const ExecSpace& on) const {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (kCudaExec) check(cudaStreamWaitEvent(on.cuda_stream(), e_, 0), "cudaStreamWaitEvent");
#endif
    (void)on;
  }
  /// Blocks the calling thread until the recorded point is reached.
  void synchronize() const {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (kCudaExec) check(cudaEventSynchronize(e_), "cudaEventSynchronize");
#endif
  }
  /// Whether the recorded point is reached (does not block).
  bool done() const {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (kCudaExec) return cudaEventQuery(e_) == cudaSuccess;
#endif
    return true;
  }
  /// Seconds on the device's clock from `a` to `b` (both timed and reached); 0 on host backends.
  static double seconds(const Event& a, const Event& b) {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (kCudaExec) {
      float ms = 0;
      check(cudaEventElapsedTime(&ms, a.e_, b.e_), "cudaEventElapsedTime");
      return 1e-3 * double(ms);
    }
#endif
    (void)a, (void)b;
    return 0;
  }
#if defined(KOKKOS_ENABLE_CUDA)
  cudaEvent_t raw() const {
    return e_;
  }

private:
  cudaEvent_t e_ = nullptr;
#endif
};

} // namespace fvproxy::device
