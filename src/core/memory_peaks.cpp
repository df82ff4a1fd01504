#include "core/memory_peaks.hpp"

#include <cstring>
#include <mutex>
#include <sys/resource.h>

#include <Kokkos_Core.hpp>

namespace fvproxy {

namespace {

namespace T = Kokkos::Tools::Experimental;

struct Counts {
  std::mutex lock;
  bool active = false;
  std::uint64_t device = 0, device_peak = 0;
  Kokkos_Profiling_allocateDataFunction previous_allocate = nullptr;
  Kokkos_Profiling_deallocateDataFunction previous_deallocate = nullptr;
};
Counts& counts() {
  static Counts c;
  return c;
}

const char* device_space_name() {
  return Kokkos::DefaultExecutionSpace::memory_space::name();
}

void on_allocate(const Kokkos_Profiling_SpaceHandle space, const char* label, const void* ptr,
                 const std::uint64_t size) {
  Counts& c = counts();
  if (std::strcmp(space.name, device_space_name()) == 0) {
    std::lock_guard<std::mutex> g(c.lock);
    c.device += size;
    if (c.device > c.device_peak) c.device_peak = c.device;
  }
  if (c.previous_allocate) c.previous_allocate(space, label, ptr, size);
}

void on_deallocate(const Kokkos_Profiling_SpaceHandle space, const char* label, const void* ptr,
                   const std::uint64_t size) {
  Counts& c = counts();
  if (std::strcmp(space.name, device_space_name()) == 0) {
    std::lock_guard<std::mutex> g(c.lock);
    c.device = c.device >= size ? c.device - size : 0; // an allocation made before start()
  }
  if (c.previous_deallocate) c.previous_deallocate(space, label, ptr, size);
}

} // namespace

void MemoryTracker::start() {
  Counts& c = counts();
  if (c.active) return;
  c.active = true;
  // A tools library's own callbacks, if one is loaded, keep being called.
  const T::EventSet current = T::get_callbacks();
  c.previous_allocate = current.allocate_data;
  c.previous_deallocate = current.deallocate_data;
  T::set_allocate_data_callback(on_allocate);
  T::set_deallocate_data_callback(on_deallocate);
}

bool MemoryTracker::active() {
  return counts().active;
}

void MemoryTracker::reset_device_peak() {
  Counts& c = counts();
  std::lock_guard<std::mutex> g(c.lock);
  c.device_peak = c.device;
}

MemoryPeaks MemoryTracker::now() {
  MemoryPeaks m;
  Counts& c = counts();
  {
    std::lock_guard<std::mutex> g(c.lock);
    m.device_bytes = c.device;
    m.device_peak_bytes = c.device_peak;
  }
  m.device_space = device_space_name();
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) == 0) m.host_peak_bytes = std::uint64_t(u.ru_maxrss) * 1024; // Linux: KiB
  return m;
}

} // namespace fvproxy
