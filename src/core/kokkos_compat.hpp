#pragma once
// Every difference between Kokkos 3.4 and Kokkos 4.x lives here (docs/architecture.md). Porting fvproxy to
// another Kokkos version means editing this header alone.
#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>

#if !defined(KOKKOS_VERSION)
#error "Kokkos_Core.hpp did not define KOKKOS_VERSION"
#endif

namespace fvproxy::kc {

#if KOKKOS_VERSION >= 40000
using Kokkos::acos;
using Kokkos::cbrt;
using Kokkos::cos;
using Kokkos::exp;
using Kokkos::fabs;
using Kokkos::floor;
using Kokkos::fmax;
using Kokkos::fmin;
using Kokkos::isfinite;
using Kokkos::pow;
using Kokkos::sin;
using Kokkos::sqrt;
#else
using Kokkos::Experimental::acos;
using Kokkos::Experimental::cbrt;
using Kokkos::Experimental::cos;
using Kokkos::Experimental::exp;
using Kokkos::Experimental::fabs;
using Kokkos::Experimental::floor;
using Kokkos::Experimental::fmax;
using Kokkos::Experimental::fmin;
using Kokkos::Experimental::isfinite;
using Kokkos::Experimental::pow;
using Kokkos::Experimental::sin;
using Kokkos::Experimental::sqrt;
#endif

/// Fence with a label where the Kokkos version supports one (3.4 has no `fence(label)`).
inline void fence([[maybe_unused]] const std::string& label) {
#if KOKKOS_VERSION >= 30699
  Kokkos::fence(label);
#else
  Kokkos::fence();
#endif
}

/// Kokkos 3.7 renamed its command-line options (--kokkos-num-threads, --kokkos-tools-libs, ...)
/// and added some (--kokkos-map-device-id-by, --kokkos-print-configuration, =BOOL flags); 4.x
/// warns on the old names. Kokkos 3.4 reads only the old ones and ignores the rest silently.
constexpr bool kNewCommandLine = KOKKOS_VERSION >= 30700;

/// The environment variables naming Kokkos Tools libraries that this Kokkos reads: 3.4 reads
/// KOKKOS_PROFILE_LIBRARY only; from 3.7 KOKKOS_TOOLS_LIBS too (the old one deprecated).
inline constexpr const char* kToolsLibraryVariables[] = {
#if KOKKOS_VERSION >= 30700
    "KOKKOS_TOOLS_LIBS",
#endif
    "KOKKOS_PROFILE_LIBRARY"};

/// Kokkos version as "major.minor.patch".
inline std::string kokkos_version_string() {
  const int v = KOKKOS_VERSION;
  const int major = v / 10000, minor = (v / 100) % 100, patch = v % 100;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%d.%d.%02d", major, minor, patch);
  return buf;
}

/// A second instance of the execution space `Exec` whose work may run beside the default
/// instance's: the halo's packing, copies and unpacking run on it while the inner cells' kernels
/// run on the default instance (docs/halo.md#overlap). On CUDA a non-blocking stream of our
/// own with the device's highest priority, so that the halo's small kernels start as soon as a
/// multiprocessor frees up instead of after every block of the inner kernel queued before them
/// (Kokkos 4's `partition_space` gives no priority; Kokkos 3.4 has none; a blocking stream would
/// wait for Kokkos 3.4's default instance on the legacy default stream). Destroyed with this
/// object. Host backends: the default instance (host kernels and copies run in the calling thread).
template <class Exec> class SideInstance {
public:
  SideInstance() {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
      int least = 0, greatest = 0;
      cudaDeviceGetStreamPriorityRange(&least, &greatest);
      cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, greatest);
      instance_ = Exec(stream_);
    }
#endif
  }
  SideInstance(const SideInstance&) = delete;
  SideInstance& operator=(const SideInstance&) = delete;
  ~SideInstance() {
    instance_.fence();
#if defined(KOKKOS_ENABLE_CUDA)
    if (stream_) {
      instance_ = Exec(); // drop the instance that uses the stream before destroying it
      cudaStreamDestroy(stream_);
    }
#endif
  }
  const Exec& get() const {
    return instance_;
  }

private:
  Exec instance_{};
#if defined(KOKKOS_ENABLE_CUDA)
  cudaStream_t stream_ = nullptr;
#endif
};

/// A Kokkos Tools profiling region for a scope (Kokkos::Profiling::pushRegion / popRegion, which
/// Kokkos 3.4 and 4.x both have; 4.x's ScopedRegion is not in 3.4). Named like the kernels,
/// "fvproxy::<component>::<name>" (docs/performance.md#kokkos-tools); free when no tool is loaded.
class ProfileRegion {
public:
  explicit ProfileRegion(const std::string& name) { Kokkos::Profiling::pushRegion(name); }
  ~ProfileRegion() { Kokkos::Profiling::popRegion(); }
  ProfileRegion(const ProfileRegion&) = delete;
  ProfileRegion& operator=(const ProfileRegion&) = delete;
};

} // namespace fvproxy::kc
