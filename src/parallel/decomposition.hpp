#pragma once
// From the global mesh to this rank's part, ready for the solver (docs/parallel.md): partition
// (mesh.partition), local mesh (owned + one ghost layer), device copy, the halo exchange, the
// ghosts' geometry from their owners, and the domain's totals (cells, volume) that set-up
// formulas need (the same values as on one rank, bitwise).
//
// In this version every rank builds the global mesh first (the global-mesh memory per rank is the
// scale-out issue's to remove) and keeps only its part on the device.
#include <memory>

#include "core/config.hpp"
#include "mesh/build.hpp"
#include "mesh/local_mesh.hpp"
#include "mesh/partition.hpp"
#include "parallel/communicator.hpp"
#include "parallel/halo.hpp"

namespace fvproxy {

struct Decomposition {
  Partition partition;
  LocalMesh local;
  Mesh mesh;                  ///< this rank's part on the device: n_cells owned, n_ghosts ghosts
  std::unique_ptr<Halo> halo; ///< fills ghost rows of any cell array
};

/// This rank's part of `global` (built from `cfg`) among comm.size() ranks. InputError (naming
/// `where`) when the mesh cannot be divided so (more ranks than cells, `blocks` that cannot).
Decomposition decompose(const BuiltMesh& global, const MeshConfig& cfg, const Communicator& comm,
                        HaloVariant variant = HaloVariant::optimized, const std::string& where = "mpirun -np");

} // namespace fvproxy
