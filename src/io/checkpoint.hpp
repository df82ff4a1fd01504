#pragma once
// Restart: a checkpoint file read back, checked against the case and the mesh, its state put in
// the mesh's storage order (cells are matched by global id, so the ordering may differ).
#include <string>

#include "core/config.hpp"
#include "mesh/host_mesh.hpp"
#include "parallel/communicator.hpp"
#include "solver/simulation.hpp"

namespace fvproxy {

/// A hash (16 hex digits) of the mesh independent of its ordering and of how it is divided: one
/// hash per cell (its global id, type, node global ids and node positions to 1e-9 of the extent of
/// the cells' nodes), summed (mod 2^64), with the cell and node counts. Stored in checkpoints.
std::string mesh_fingerprint(const HostMesh& m);

/// The same hash from every rank's part (its first `n_owned` cells), the whole mesh having
/// `n_nodes` nodes. Collective.
std::string mesh_fingerprint_of_parts(const HostMesh& part, index_t n_owned, std::int64_t n_nodes,
                                      const Communicator& comm);

/// The fingerprint of checkpoints written before (cells mixed in sequence in global-id order):
/// still accepted by read_restart.
std::string mesh_fingerprint_sequential(const HostMesh& m);

/// Reads `path` for a restart of `cfg` on `mesh`. InputError naming the file for a missing,
/// damaged or foreign file, or a checkpoint of another mesh, component count or real type.
RestartPoint read_restart(const std::string& path, const CaseConfig& cfg, const HostMesh& mesh);

} // namespace fvproxy
