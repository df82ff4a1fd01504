#include "core/build_info.hpp"

#include <cstdlib>
#include <fstream>
#include <type_traits>

#include "core/kokkos_compat.hpp"
#include "core/types.hpp"
#include "fvproxy_version.hpp" // generated: FVPROXY_VERSION, FVPROXY_GIT_REVISION, FVPROXY_BUILD_TYPE

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace fvproxy {

namespace {
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      const auto c = line.find(':');
      if (c != std::string::npos) return line.substr(c + 2);
    }
  return "unknown CPU";
}
} // namespace

BuildInfo build_info() {
  BuildInfo b;
  b.version = FVPROXY_VERSION;
  b.git_revision = FVPROXY_GIT_REVISION;
  b.build_type = FVPROXY_BUILD_TYPE;
  b.real_type = sizeof(real) == 8 ? "double" : "float";
#if defined(__clang__)
  b.compiler = "clang " __clang_version__;
#elif defined(__GNUC__)
  b.compiler = "g++ " __VERSION__;
#endif
#if defined(__CUDACC_VER_MAJOR__)
  b.compiler += " / nvcc " + std::to_string(__CUDACC_VER_MAJOR__) + "." + std::to_string(__CUDACC_VER_MINOR__);
#endif
  b.cxx_standard = "C++" + std::to_string(__cplusplus / 100 % 100);
  b.kokkos_version = kc::kokkos_version_string();
  b.default_execution_space = ExecSpace::name();
#if defined(KOKKOS_ENABLE_SERIAL)
  b.backends.emplace_back("Serial");
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  b.backends.emplace_back("OpenMP");
#endif
#if defined(KOKKOS_ENABLE_THREADS)
  b.backends.emplace_back("Threads");
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  b.backends.emplace_back("Cuda");
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess) {
    b.device = std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ", " +
               std::to_string(prop.multiProcessorCount) + " SMs, " +
               std::to_string(static_cast<long long>(prop.totalGlobalMem >> 20)) + " MiB)";
  } else {
    b.device = "CUDA device unavailable";
  }
#else
  b.device = cpu_model();
#endif
  b.host_cpu = cpu_model();
  b.concurrency = ExecSpace::concurrency();
  return b;
}

std::size_t available_host_memory_bytes() {
  std::size_t avail = 0;
  {
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("MemAvailable:", 0) == 0) {
        avail = static_cast<std::size_t>(std::strtoull(line.c_str() + 13, nullptr, 10)) * 1024; // kB
        break;
      }
  }
  // A container's memory limit (cgroup v2, else v1) can be far below what the machine has free.
  auto read_number = [](const char* path, std::size_t& v) {
    std::ifstream in(path);
    std::string s;
    if (!(in >> s) || s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
    v = static_cast<std::size_t>(std::strtoull(s.c_str(), nullptr, 10));
    return true;
  };
  std::size_t limit = 0, used = 0;
  if ((read_number("/sys/fs/cgroup/memory.max", limit) && read_number("/sys/fs/cgroup/memory.current", used)) ||
      (read_number("/sys/fs/cgroup/memory/memory.limit_in_bytes", limit) &&
       read_number("/sys/fs/cgroup/memory/memory.usage_in_bytes", used))) {
    const std::size_t room = limit > used ? limit - used : 0;
    if (avail == 0 || room < avail) avail = room;
  }
  return avail;
}

bool device_memory_is_host_memory() {
  return std::is_same<MemSpace, Kokkos::HostSpace>::value;
}

std::size_t available_memory_bytes() {
  if (const char* env = std::getenv("FVPROXY_AVAILABLE_MEMORY"); env && *env) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(env, &end, 10);
    if (end && *end == '\0') return static_cast<std::size_t>(v);
  }
#if defined(KOKKOS_ENABLE_CUDA)
  if (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
    std::size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) == cudaSuccess) return free;
    return 0;
  }
#endif
  return available_host_memory_bytes();
}

nlohmann::json to_json(const BuildInfo& b) {
  return {{"version", b.version},
          {"git_revision", b.git_revision},
          {"build_type", b.build_type},
          {"real", b.real_type},
          {"compiler", b.compiler},
          {"cxx_standard", b.cxx_standard},
          {"kokkos",
           {{"version", b.kokkos_version},
            {"backends", b.backends},
            {"default_execution_space", b.default_execution_space},
            {"concurrency", b.concurrency}}},
          {"device", b.device},
          {"host_cpu", b.host_cpu}};
}

} // namespace fvproxy
