#pragma once
// From the global mesh to this rank's part, ready for the solver (docs/parallel.md): partition
// (mesh.partition), local mesh (owned + one ghost layer), device copy, the halo exchange, the
// ghosts' geometry from their owners, and the domain's totals (cells, volume) that set-up
// formulas need (the same values as on one rank, bitwise).
//
// decompose() cuts the part out of the whole mesh, which every rank holds (the tests' reference);
// fvproxy run and bench build a generated box with a curve or `blocks` partition in parts
// (decompose_in_parts: no rank ever holds the whole mesh; parallel/parts.hpp) and any other mesh
// on rank 0 alone (decompose_from_root). All three give the same local mesh, bitwise.
#include <functional>
#include <memory>

#include "core/step_times.hpp"
#include "mesh/build.hpp"
#include "mesh/local_mesh.hpp"
#include "mesh/mesh_options.hpp"
#include "mesh/partition.hpp"
#include "parallel/communicator.hpp"
#include "parallel/halo.hpp"
#include "parallel/parallel_options.hpp"

namespace fvproxy {

struct Decomposition {
  Partition partition;
  LocalMesh local;
  Mesh mesh;                  ///< this rank's part on the device: n_cells owned, n_ghosts ghosts
  std::unique_ptr<Halo> halo; ///< fills ghost rows of any cell array
  /// Built in parts: the times of its steps on this rank (parallel/parts.hpp), seconds.
  double seconds_sort = 0, seconds_piece = 0, seconds_device = 0;
  StepTimes steps; ///< built in parts: the steps in finer steps, the device's included
};

/// This rank's part of `global` (built from `cfg`) among comm.size() ranks. InputError (naming
/// `where`) when the mesh cannot be divided so (more ranks than cells, `blocks` that cannot).
Decomposition decompose(const BuiltMesh& global, const MeshConfig& cfg, const Communicator& comm,
                        const HaloSettings& halo = HaloSettings(), const std::string& where = "mpirun -np");

/// The same part, the whole mesh built on rank 0 alone, partitioned there (every method) and each
/// rank's local mesh sent to it: no other rank holds the whole mesh (docs/decomposition.md#built-on-rank-0).
/// `on_root`, when given, sees the whole mesh on rank 0 once it is built and partitioned (its header
/// figures, a fingerprint); rank 0 then frees the whole device mesh before cutting the parts and the
/// whole host mesh before uploading its own part, so that its peak is the whole mesh's build, not
/// that plus its part. local.node_row holds the mesh file's node rows. An error building or
/// partitioning (InputError, RunError) is raised on every rank. Collective.
Decomposition decompose_from_root(const MeshConfig& cfg, const Communicator& comm,
                                  const HaloSettings& halo = HaloSettings(), const std::string& where = "mpirun -np",
                                  const std::function<void(const BuiltMesh&)>& on_root = {});

/// A Mesh holding only the whole mesh's sizes (n_cells = n_global_cells, n_interior, n_faces, from
/// every rank's part: a face between two ranks counted once), no arrays: for the cost models.
/// Collective.
Mesh whole_mesh_counts(const Decomposition& d, const Communicator& comm);

/// The same part, built in parts (builds_in_parts(cfg) must hold): `partition.part` is empty,
/// local.global_cell holds the rows of the whole ordered mesh, local.global_face is empty.
Decomposition decompose_in_parts(const MeshConfig& cfg, const Communicator& comm,
                                 const HaloSettings& halo = HaloSettings(), const std::string& where = "mpirun -np");

} // namespace fvproxy
