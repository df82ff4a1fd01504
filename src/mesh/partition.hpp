#pragma once
// Dividing the cells of a mesh between MPI ranks (mesh.partition), and the quality of a division.
// Every rank computes the same partition of the same global mesh (deterministic), and
// `fvproxy mesh --partition N` reports one for any N without mpirun. Only ptscotch may use MPI: the
// ranks of a communicator compute it together (each from a slice of the cell graph) and every rank
// receives the whole vector.
//
// Methods (docs/parallel.md#partitioning):
//   metis    k-way partition of the cell dual graph (interior faces, periodic ones included; two
//            cells sharing several faces are one edge weighted by the face count, so the edge cut
//            METIS minimizes is the number of faces between parts), METIS 5.1, fixed seed;
//   hilbert, zorder  equal contiguous pieces of the cells sorted along the curve (ties by gid);
//   blocks   px x py x pz boxes of a generated box's hexes (the best balanced factorization,
//            then the one with the fewest faces between parts), each hex's cells together;
//   ptscotch the same cell graph as metis, partitioned by PT-Scotch 7 (mesh/ptscotch.hpp), fixed
//            seed; the partition depends on the number of ranks that compute it.
#include <mpi.h>

#include <array>
#include <string>
#include <vector>

#include "mesh/host_mesh.hpp"
#include "mesh/mesh.hpp"
#include "mesh/mesh_options.hpp"

namespace fvproxy {

struct Partition {
  PartitionMethod method = PartitionMethod::metis;
  int parts = 1;
  std::vector<int> part;              ///< part (rank) of each cell of the mesh it was computed for
  std::array<int, 3> blocks{1, 1, 1}; ///< blocks: px, py, pz
  int refilled = 0;                   ///< parts the method left empty, each then given one cell of the largest part
};

/// METIS (and Scotch) may leave parts empty on a graph barely larger than the number of parts (3
/// parts of 4 cells): a rank without cells has nothing to compute and no neighbour to exchange with.
/// Each empty part takes the highest-numbered cell of the then largest part (deterministic, the
/// same on every rank). Returns the number of parts refilled. `part`: every
/// cell's part in the order of the mesh's cells (its rows); a box built in parts does the same
/// among the ranks (parallel/parts.cpp).
int refill_empty_parts(std::vector<int>& part, int parts);
/// The same when the ranks of `comm` each hold some of the cells: `part` and `row` (each cell's
/// index in the whole mesh) of this rank's cells; every rank ends with what refill_empty_parts
/// gives its cells on the whole vector. Collective; returns the number of parts refilled.
int refill_empty_parts(std::vector<int>& part, const std::vector<gid_t>& row, int parts, MPI_Comm comm);

/// InputError naming `where` when `parts` is below 1 or above `cells`: every part (rank) needs a
/// cell, whatever the method.
void check_parts_fit(const std::string& where, long long parts, long long cells);

/// Partitions `host` (whose device copy is `device`, for the curves' centroids) into `parts`.
/// `box` is the generator's configuration of a generated mesh (nullptr for a file): `blocks` needs
/// it. InputError (naming `where`) for more parts than cells, or `blocks` that cannot divide the
/// box (more parts than hexes, or a mesh read from a file).
/// `comm`: for ptscotch, the ranks that compute the partition together (collective: each holds the
/// same global mesh and calls this with the same arguments; rank r of S partitions the cell graph's
/// slice [r n / S, (r + 1) n / S) and every rank gets every cell's part); MPI_COMM_NULL (and a
/// one-rank communicator): this process alone, sequential Scotch. The other methods ignore it.
Partition partition_cells(const HostMesh& host, const Mesh& device, PartitionMethod method, int parts,
                          const BoxConfig* box, const std::string& where, MPI_Comm comm = MPI_COMM_NULL);

/// The px x py x pz factorization of `parts` for a box of `cells` hexes with the smallest largest
/// block (balance first), then the fewest faces cut (a periodic axis cut p times, else p - 1);
/// ties to the first in (px, py, pz) order. {0,0,0} when no factorization fits (a factor above its
/// axis' cell count).
std::array<int, 3> block_factors(int parts, const std::array<int, 3>& cells, const std::array<bool, 3>& periodic);

/// Per part and in total, what a partition costs: the numbers of the partition report.
struct PartitionQuality {
  std::string method;
  int parts = 1;
  std::vector<long long> owned;     ///< owned cells per part
  std::vector<long long> ghosts;    ///< ghost cells per part (other parts' cells sharing a face)
  std::vector<int> neighbours;      ///< neighbour parts per part
  std::vector<long long> cut_faces; ///< faces between this part and others, per part
  double imbalance = 1;             ///< max / mean owned cells
  long long edge_cut = 0;           ///< interior faces whose two cells are in different parts
  double ghost_fraction = 0;        ///< sum of ghosts / cells
  int neighbours_max = 0;
  double neighbours_mean = 0;
  int values_per_ghost = 0;      ///< values a ghost receives per Runge-Kutta stage
  long long halo_values_max = 0; ///< per part and stage: ghosts x values_per_ghost
  double halo_values_mean = 0;
  long long halo_bytes_max = 0; ///< per part and stage: halo values x sizeof(real)
  double halo_bytes_mean = 0;
  int empty_parts = 0; ///< parts with no cell
};

/// `values_per_ghost`: what one ghost cell receives per stage (the state, and the gradients and
/// limiter values when the operators use them: docs/halo.md#halo-exchange). O(cells + faces)
/// for any number of parts.
PartitionQuality partition_quality(const HostMesh& host, const Partition& p, int values_per_ghost);

} // namespace fvproxy
