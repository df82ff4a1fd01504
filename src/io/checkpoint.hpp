#pragma once
// Restart: a checkpoint file read back, checked against the case and the mesh, its state put in
// the mesh's storage order (cells are matched by global id, so the ordering may differ).
#include <string>

#include "core/config.hpp"
#include "mesh/host_mesh.hpp"
#include "solver/simulation.hpp"

namespace fvproxy {

/// A hash (16 hex digits) of the mesh independent of its ordering: every cell's global id, type,
/// node global ids and node positions (to 1e-9 of the mesh's extent), in global-id order.
std::string mesh_fingerprint(const HostMesh& m);

/// Reads `path` for a restart of `cfg` on `mesh`. InputError naming the file for a missing,
/// damaged or foreign file, or a checkpoint of another mesh, component count or real type.
RestartPoint read_restart(const std::string& path, const CaseConfig& cfg, const HostMesh& mesh);

} // namespace fvproxy
