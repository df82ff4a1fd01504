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
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::size_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
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
