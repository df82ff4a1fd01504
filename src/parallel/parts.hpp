#pragma once
// A generated box built in parts (docs/decomposition.md#built-in-parts): every rank generates only its
// own cells, their ghosts and two layers of hexes around them, never the whole mesh, and ends with
// the same local mesh that extract_local would cut from the whole mesh (the same cells in the same
// order, the same faces with the same owners, node orders and translations, the same halo links),
// so the solver's answer is bitwise that of one rank.
//
// How, on rank r of P (H hexes, n cells):
//   1. the slab of hexes [H r/P, H (r+1)/P) (when the partition or the ordering follows a curve):
//      its cells' centroid keys on the whole box's curve frame (min/max over the ranks), their
//      global positions along the curve by a parallel sample sort: the cells' place in the ordered
//      mesh (mesh.reorder) and their part (mesh.partition: equal contiguous pieces of the curve;
//      ptscotch: PT-Scotch on the cell graph sliced as the whole mesh's is, rank r the cells of
//      global ids [n r/P, n (r+1)/P), which its slab's piece holds with every face; each part then
//      to the slab that holds the cell); `blocks` parts are closed-form. The slab keeps (part, ordered index) of
//      its cells: the directory other ranks ask about their ghosts.
//   2. the rank's own hexes (its cells' hexes) and two layers around them (three with two ghost
//      layers) are generated with their faces; its ghosts are found in it, their places (part,
//      row) and, along a curve, the rows of every cell sharing a node with an owned cell or a ghost
//      are asked of the directory; the piece is put in the order of those rows (the other cells
//      last), so its local cells, faces and nodes (numbered by first use) follow the whole ordered
//      mesh, and the owned cells, the ghosts and the faces between them are cut out with extract_local.
// Two layers: the cells sharing a node with a ghost, whose rows number the ghost's nodes, reach one
// hex further than the ghost itself.
//
// Which meshes: `mesh.generate` boxes with mesh.partition ptscotch (the default for a box),
// blocks, hilbert or zorder and mesh.reorder none, zorder or hilbert (the orderings whose place is
// a sort key). METIS, `rcm`, `random` and Gmsh files still need the whole mesh (decompose()).
#include <vector>

#include "core/step_times.hpp"
#include "mesh/local_mesh.hpp"
#include "mesh/mesh_options.hpp"
#include "mesh/partition.hpp"
#include "parallel/communicator.hpp"

namespace fvproxy {

/// True when `cfg` can be built in parts (see above).
bool builds_in_parts(const MeshConfig& cfg);

struct PartsMesh {
  LocalMesh local;     ///< global_cell: each local cell's row in the whole ordered mesh; global_face empty
  Partition partition; ///< method, parts, blocks; `part` empty (no rank holds every cell's part)
  gid_t n_global_cells = 0;
  double seconds_sort = 0;  ///< step 1: slab, keys, sample sort, directory
  double seconds_piece = 0; ///< step 2: own piece, faces, order, cut out
  StepTimes steps;          ///< both steps in finer steps (docs/decomposition.md#built-in-parts)
};

/// Rank comm.rank()'s part among comm.size(). Collective. InputError (naming `where`) when the
/// box cannot be divided so (more ranks than cells, `blocks` that cannot).
/// `layers`: the ghost layers (parallel.halo.layers; the piece then reaches layers + 1 hexes out);
/// `adjacency`: which cells are next to each other (HaloSettings::adjacency; every vertex neighbour of
/// a cell lies in its hex or the 26 around it, and so every node of the cells within `layers` hexes
/// with the patches' faces there: the same piece holds them).
PartsMesh build_box_in_parts(const MeshConfig& cfg, const Communicator& comm, const std::string& where, int layers = 1,
                             const GhostAdjacency& adjacency = {});

/// The global position of each of this rank's `keys` (key, then global id; both unique together)
/// in the order of every rank's keys: a parallel sample sort. Collective.
std::vector<gid_t> global_positions(const std::vector<std::uint64_t>& keys, const std::vector<gid_t>& gids,
                                    const Communicator& comm);

} // namespace fvproxy
