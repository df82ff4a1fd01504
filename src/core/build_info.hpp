#pragma once
// What `fvproxy info` prints: version, git revision, Kokkos and its backends, the device, build
// type and real type. MPI and HDF5 versions come from their components (the app adds them).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fvproxy {

struct BuildInfo {
  std::string version, git_revision, build_type, real_type, compiler, cxx_standard;
  std::string kokkos_version, default_execution_space;
  std::vector<std::string> backends;
  std::string device;   ///< the default execution space's device: GPU name or CPU model
  std::string host_cpu; ///< CPU model
  int concurrency = 1;  ///< threads of the default execution space (or GPU threads)
};

/// Requires Kokkos to be initialized.
BuildInfo build_info();

/// Memory the default execution space can still allocate, in bytes: the GPU's free memory
/// (cudaMemGetInfo) on CUDA, MemAvailable from /proc/meminfo on host backends; 0 when unknown.
/// The environment variable FVPROXY_AVAILABLE_MEMORY (bytes) overrides it (to share a device with
/// other processes, and for tests of the refusal).
std::size_t available_memory_bytes();
/// Host memory free to this process: MemAvailable, or the room left under a container's memory
/// limit (cgroup) when that is smaller; 0 when unknown.
std::size_t available_host_memory_bytes();
/// True when the default execution space's memory is the host's (Serial, OpenMP): the mesh on
/// the host and on the "device" then draw on one pool.
bool device_memory_is_host_memory();
nlohmann::json to_json(const BuildInfo& b);

} // namespace fvproxy
