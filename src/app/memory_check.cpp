#include "app/memory_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <vector>

#include "core/build_info.hpp"
#include "core/error.hpp"
#include "core/types.hpp"
#include "mesh/memory_estimate.hpp"
#include "parallel/parts.hpp"
#include "solver/scalar_solver.hpp"
#include "solver/solver.hpp"

namespace fvproxy {

namespace {

std::string count_text(double v) {
  std::ostringstream s;
  s.precision(0);
  s << std::fixed << v;
  return s.str();
}

/// A mesh built in parts: cuts `c` down to what one of `ranks` ranks holds.
void take_rank_share(const CaseConfig& cfg, int ranks, MeshCounts& c) {
  // Built in parts: a rank holds its share and, at most, its hexes' piece (two layers around
  // them: ((s + 4) / s)^3 for a part of s^3 hexes, on the host; less on the device).
  const double per = c.cells / std::max(1.0, double(cfg.mesh.generate->cells[0]) * cfg.mesh.generate->cells[1] *
                                                 cfg.mesh.generate->cells[2]);
  const double s = std::max(1.0, std::cbrt(c.cells / per / ranks));
  const double share = std::min(1.0, std::pow((s + 4) / s, 3) / ranks);
  for (double* v : {&c.cells, &c.nodes, &c.faces, &c.interior_faces, &c.cell_nodes, &c.face_nodes}) *v *= share;
  char buf[96];
  std::snprintf(buf, sizeof buf, " (built in parts: a rank's share, %.3g of it)", share);
  c.what += buf;
}

void check_local_indices(const MeshCounts& c, const std::string& where) {
  // Local indices are 32-bit (index_t): every count and every CSR offset must fit.
  const double limit = double(std::numeric_limits<index_t>::max());
  const std::vector<std::pair<const char*, double>> sizes{{"cells", c.cells},
                                                          {"nodes", c.nodes},
                                                          {"faces", c.faces},
                                                          {"cell-node entries", c.cell_nodes},
                                                          {"face-node entries", c.face_nodes},
                                                          {"cell-face entries", c.cell_faces()}};
  for (const auto& [what, n] : sizes)
    if (n > limit)
      throw InputError(where,
                       "the mesh is too large for 32-bit local indices: " + count_text(n) + " " + what + " (at most " +
                           count_text(limit) + " per rank)",
                       c.what + "; use fewer cells, or more ranks with a mesh that is built in parts "
                                "(docs/decomposition.md#built-in-parts)");
}

/// What a command holds besides the mesh (bytes on the device and on the host), and its part of
/// the estimate's line.
struct WorkMemory {
  double device = 0, host = 0;
  std::string text;
};

WorkMemory work_memory(const CaseConfig& cfg, const MeshCounts& c, MemoryUse use) {
  const double R = sizeof(real), N = cfg.physics.components, C = c.cells;
  double work_device = 0, work_host = 0;
  std::string work;
  switch (use) {
  case MemoryUse::mesh:
  case MemoryUse::mesh_compare: break;
  case MemoryUse::mesh_write:
    work_host = 3 * mesh_file_bytes(c); // the datasets, HDF5's in-memory image, its copy written out
    work = ", the mesh file's image " + bytes_text(work_host) + " (host)";
    break;
  case MemoryUse::bench:
    // The solver's arrays, with gradients and limiter always, and the benchmark's own state.
    work_device = ScalarSolver::memory_bytes(c.cells, c.faces, c.interior_faces, cfg) + R * C * N * (3 + 1 + 2);
    work = ", operators and work arrays " + bytes_text(work_device);
    break;
  case MemoryUse::run:
    work_device = solver_memory_bytes(c.cells, c.faces, c.interior_faces, cfg);
    // mesh.h5 (datasets, in-memory image, its copy), then each fields/checkpoint file likewise
    // with the state copied to the host.
    work_host = std::max(3 * mesh_file_bytes(c), R * C * N + 3 * C * (8 + R * N));
    work = ", solver " + bytes_text(work_device) + ", output buffers " + bytes_text(work_host) + " (host)";
    break;
  }
  return {work_device, work_host, work};
}

/// The memory available to the case, and where that number comes from.
struct AvailableMemory {
  bool shared;     ///< the device's memory is the host's
  bool overridden; ///< by FVPROXY_AVAILABLE_MEMORY
  double device_avail, host_avail;
  std::string avail_source;
};

AvailableMemory available_memory() {
  const bool shared = device_memory_is_host_memory();
  const char* env = std::getenv("FVPROXY_AVAILABLE_MEMORY");
  const bool overridden = env && *env;
  const double device_avail = double(available_memory_bytes());
  const double host_avail = shared ? device_avail : double(available_host_memory_bytes());
  const std::string avail_source = overridden ? "set by FVPROXY_AVAILABLE_MEMORY"
                                              : (shared ? "free host memory" : "free device memory") +
                                                    std::string("; FVPROXY_AVAILABLE_MEMORY=<bytes> sets it");
  return {shared, overridden, device_avail, host_avail, avail_source};
}

/// InputError when the case's peak `need` exceeds the memory available; `line` is the estimate.
void refuse_if_too_large(const CaseConfig& cfg, MemoryUse use, const std::string& where, const MemoryNeed& need,
                         const AvailableMemory& available, const std::string& line) {
  // Named references, not a structured binding: a lambda may not capture one in C++17 (nvcc
  // refuses it; g++ accepts it as an extension).
  const bool shared = available.shared, overridden = available.overridden;
  const double device_avail = available.device_avail, host_avail = available.host_avail;
  const std::string& avail_source = available.avail_source;
  auto refuse = [&](double needed, double avail, const std::string& kind) {
    throw InputError(where,
                     "the case needs about " + bytes_text(needed) + " of " + kind + "memory, and " + bytes_text(avail) +
                         " is available",
                     line + "\navailable: " + bytes_text(avail) + " (" +
                         (kind == "host " ? std::string("free host memory") : avail_source) + ")\nuse fewer cells" +
                         (cfg.mesh.generate ? " (mesh.generate.cells)" : "") +
                         (use == MemoryUse::run || use == MemoryUse::bench ? " or fewer components" : ""));
  };
  if (shared) {
    if (device_avail > 0 && need.combined > device_avail) refuse(need.combined, device_avail, "");
  } else {
    if (device_avail > 0 && need.device > device_avail) refuse(need.device, device_avail, "device ");
    if (!overridden && host_avail > 0 && need.host > host_avail) refuse(need.host, host_avail, "host ");
  }
}

} // namespace

std::string check_case_fits(const CaseConfig& cfg, MemoryUse use, int ranks) {
  MeshCounts c = mesh_counts(cfg.mesh);
  if (!c.known) return "";
  if (ranks > 1 && builds_in_parts(cfg.mesh)) take_rank_share(cfg, ranks, c);
  const std::string where = cfg.mesh.generate ? "mesh.generate.cells" : cfg.mesh.file_as_written;

  check_local_indices(c, where);

  const WorkMemory work = work_memory(cfg, c, use);
  const MemoryNeed need = case_memory(c, cfg.mesh, use == MemoryUse::mesh_compare, work.device, work.host);
  const double mesh_host = host_mesh_bytes(c), mesh_device = device_mesh_bytes(c);

  const AvailableMemory available = available_memory();

  std::ostringstream line;
  line << "memory estimate: " << c.what << (c.exact ? "" : " (estimate)") << ": mesh " << bytes_text(mesh_host)
       << " (host) + " << bytes_text(mesh_device) << " (device)" << work.text << "; peak "
       << (available.shared ? bytes_text(need.combined)
                            : bytes_text(need.host) + " host, " + bytes_text(need.device) + " device");
  refuse_if_too_large(cfg, use, where, need, available, line.str());
  return line.str();
}

} // namespace fvproxy
