#pragma once
// Restart: a checkpoint file read back, checked against the case and the mesh, its state put in
// the mesh's storage order (cells are matched by global id, so the ordering may differ).
//
// On several ranks no rank reads the whole file: each reads its block of rows (rows
// [r·G/P, (r+1)·G/P), the block it would write: one collective hyperslab per dataset), and the
// rows travel to the ranks that own their cells, found through a directory of global ids spread
// over the ranks (global id g at rank g mod P): three small exchanges of ids, then one of the
// values. Any rank count continues any checkpoint, in any cell order (docs/decomposition.md#output-files).
#include <cstdint>
#include <string>
#include <vector>

#include "mesh/host_mesh.hpp"
#include "parallel/communicator.hpp"
#include "solver/case_config.hpp"
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

/// The cells one rank continues, and what identifies the whole mesh.
struct RestartCells {
  std::vector<gid_t> gid;        ///< global ids of this rank's owned cells, in its storage order
  std::int64_t global_cells = 0; ///< cells of the whole mesh
  std::string fingerprint;       ///< mesh_fingerprint() of the whole mesh (or of its parts)
  /// mesh_fingerprint_sequential() of the whole mesh where a rank holds it (checkpoints of earlier
  /// versions); empty: not known (a restart of such a checkpoint then fails the fingerprint check).
  std::string legacy_fingerprint;
};

/// What one rank read from the file (the tests check that it is its block only).
struct RestartRead {
  std::int64_t file_rows = 0;              ///< cells in the file
  std::int64_t row_begin = 0, row_end = 0; ///< the rows this rank read: [row_begin, row_end)
  std::int64_t rows_received = 0;          ///< rows that reached this rank (its owned cells)
};

/// Reads `path` for a restart of `cfg`, collectively over `comm`: the state of `cells` (this
/// rank's owned cells; ghosts get theirs from the halo exchange). InputError naming the file, on
/// every rank, for a missing, damaged or foreign file, or a checkpoint of another mesh, component
/// count or real type. `read`, when given, receives what this rank read.
RestartPoint read_restart(const std::string& path, const CaseConfig& cfg, const RestartCells& cells,
                          const Communicator& comm, RestartRead* read = nullptr);

/// One rank holding all of `mesh`.
RestartPoint read_restart(const std::string& path, const CaseConfig& cfg, const HostMesh& mesh);

} // namespace fvproxy
