#pragma once
// The cell graph of a mesh, distributed over MPI ranks, and its partition by PT-Scotch 7 (Debian's
// libptscotch: mesh.partition: ptscotch, docs/parallel.md#partitioning).
//
// A DistGraph is how PT-Scotch and ParMETIS take a graph: its n vertices are numbered 0..n-1, rank r
// holds the contiguous range [vtx_begin, vtx_end) of them (rank 0 from 0, each rank's range right
// after the previous rank's: the ranges' starts are ParMETIS' vtxdist), with their adjacency in CSR
// form in global vertex numbers. The graph must be symmetric (u lists v once, with the weight v
// gives u), without self loops. A rank may hold no vertex.
//
// ptscotch_parts is collective over the communicator; with several ranks the result depends on
// their number (PT-Scotch's distributed coarsening), not on the run: the same graph on the same
// number of ranks gives the same parts (fixed seed, one thread per rank). On one rank (or without
// MPI) it runs the sequential Scotch partitioner contained in libptscotch.
//
// It takes the raw MPI communicator (a Communicator's raw()), so that the mesh layer needs MPI but
// not the parallel layer above it.
#include <mpi.h>

#include <vector>

#include "core/types.hpp"
#include "mesh/host_mesh.hpp"
#include "mesh/mesh_options.hpp"

namespace fvproxy {

struct DistGraph {
  gid_t vtx_begin = 0;        ///< this rank's first vertex (global number)
  gid_t vtx_end = 0;          ///< one past its last
  std::vector<gid_t> xadj{0}; ///< CSR offsets into adjncy: (vtx_end - vtx_begin) + 1 entries, xadj[0] = 0
  std::vector<gid_t> adjncy;  ///< neighbours of each local vertex, global numbers, each at most once
  std::vector<gid_t> adjwgt;  ///< edge weights (>= 1) as adjncy (the number of faces two cells share); empty: all 1
  double balance = 0.03;      ///< the imbalance PT-Scotch may leave: 3 %, METIS' default (ufactor 30)
  gid_t n_local() const { return vtx_end - vtx_begin; }
};

/// The part (0..parts-1) of each of this rank's vertices, by PT-Scotch (SCOTCH_dgraphPart, default
/// strategy, the graph's imbalance allowed, fixed seed). Collective over `comm`: every rank calls it with its
/// own slice of the same graph and the same `parts`. RunError on every rank for an inconsistent
/// graph (ranges that do not follow each other, a neighbour out of range, sizes that disagree, more
/// vertices or edges than SCOTCH_Num holds) or a Scotch failure. parts == 1: all zero, no Scotch.
std::vector<int> ptscotch_parts(const DistGraph& g, int parts, MPI_Comm comm);

/// The size of `c` and this process's rank in it; 1 and 0 for MPI_COMM_NULL or before MPI starts
/// (this process alone, as a Communicator::self() would be).
int comm_size(MPI_Comm c);
int comm_rank(MPI_Comm c);

/// The same on this process alone (the whole graph: vtx_begin = 0): sequential Scotch
/// (SCOTCH_graphPart). ptscotch_parts on a one-rank communicator calls this.
std::vector<int> ptscotch_parts_one_process(const DistGraph& g, int parts);

/// The cell graph of cells [begin, end) of `m` (vertex = cell index in `m`): an edge between two
/// cells sharing an interior face (periodic ones included), weighted by the number of faces they
/// share; each cell's neighbours in ascending order. `cell_graph(m, 0, m.n_cells())` is the whole
/// graph (the one METIS partitions).
DistGraph cell_graph(const HostMesh& m, index_t begin, index_t end);

/// The same graph numbered by global cell id (vertex g = the cell whose cell_gid is g): the cells
/// of `m` with ids in [begin, end), which must all be there with every face (the whole mesh, or a
/// piece reaching past them), neighbours by their ids. The same slice whichever mesh or piece it is
/// cut from, and whatever the cells' order: what the whole mesh on rank 0 and a box built in parts
/// hand PT-Scotch (docs/decomposition.md#built-in-parts). RunError when a cell of the range is missing.
DistGraph cell_graph_by_gid(const HostMesh& m, gid_t begin, gid_t end);

/// The graph PT-Scotch partitions for a generated box: its hexes [begin, end) (hex i + nx (j + ny
/// k), as the box numbers them), an edge to each face neighbour (periodic axes wrapped: at least 3
/// hexes each), every weight 1, 0.5 % imbalance allowed (a hex is 6 tets: at 3 % Scotch took 3 %
/// where on the cells it takes 0.3 %); every cell of a hex then takes the hex's part. A sixth of a tet
/// box's cell graph, computed from the box alone (no mesh), so that every path that partitions a
/// box (the whole mesh, rank 0's, the parts) hands PT-Scotch the same slices.
DistGraph box_hex_graph(const BoxConfig& b, gid_t begin, gid_t end);

} // namespace fvproxy
