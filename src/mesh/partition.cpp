#include "mesh/partition.hpp"

#include <metis.h>
#include <mpi.h>

#include <algorithm>
#include <numeric>
#include <utility>

#include "core/error.hpp"
#include "mesh/ptscotch.hpp"
#include "mesh/reorder.hpp"

namespace fvproxy {

namespace {

/// Equal contiguous pieces of `order` (new -> old): the cell at position s goes to s * P / n.
std::vector<int> contiguous_pieces(const std::vector<index_t>& order, int parts) {
  const long long n = static_cast<long long>(order.size());
  std::vector<int> part(order.size());
  for (long long s = 0; s < n; ++s) part[order[s]] = static_cast<int>(s * parts / n);
  return part;
}

std::vector<int> metis_parts(const HostMesh& m, int parts) {
  const index_t n = m.n_cells();
  // The cell graph: one edge per pair of face-sharing cells, weighted by the number of shared faces
  // (a cell pair can share a direct and a periodic face); METIS needs no self loops or duplicates.
  std::vector<idx_t> xadj, adjncy, adjwgt;
  {
    const DistGraph g = cell_graph(m, 0, n);
    xadj.assign(g.xadj.begin(), g.xadj.end());
    adjncy.assign(g.adjncy.begin(), g.adjncy.end());
    adjwgt.assign(g.adjwgt.begin(), g.adjwgt.end());
  }
  idx_t nv = static_cast<idx_t>(n), ncon = 1, np = static_cast<idx_t>(parts), objval = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  options[METIS_OPTION_SEED] = 1; // the same partition on every run and every rank
  std::vector<idx_t> part(n, 0);
  const int rc = METIS_PartGraphKway(&nv, &ncon, xadj.data(), adjncy.data(), nullptr, nullptr, adjwgt.data(), &np,
                                     nullptr, nullptr, options, &objval, part.data());
  if (rc != METIS_OK)
    throw RunError("error: METIS_PartGraphKway failed (" +
                   std::string(rc == METIS_ERROR_MEMORY  ? "out of memory"
                               : rc == METIS_ERROR_INPUT ? "input error"
                                                         : "error") +
                   ") for " + std::to_string(n) + " cells in " + std::to_string(parts) + " parts");
  return std::vector<int>(part.begin(), part.end());
}

/// PT-Scotch on the ranks of `comm`, each the vertices of its contiguous slice [n r/S, n (r+1)/S) of
/// the graph `slice` cuts (as a box built in parts hands it), every vertex's part on every rank;
/// sequential Scotch on this process alone without a communicator.
template <class Slice> std::vector<int> ptscotch_all(gid_t n, const Slice& slice, int parts, MPI_Comm comm) {
  const int S = comm_size(comm), rank = comm_rank(comm);
  auto first = [&](int r) { return static_cast<gid_t>(static_cast<__int128>(n) * r / S); };
  if (S == 1) return ptscotch_parts_one_process(slice(0, n), parts);
  const std::vector<int> mine = ptscotch_parts(slice(first(rank), first(rank + 1)), parts, comm);
  std::vector<int> all(static_cast<std::size_t>(n)), count(S), displ(S);
  for (int r = 0; r < S; ++r) {
    count[r] = static_cast<int>(first(r + 1) - first(r));
    displ[r] = static_cast<int>(first(r));
  }
  MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_INT, all.data(), count.data(), displ.data(), MPI_INT,
                 comm);
  return all;
}

/// PT-Scotch's parts of the cells of `m`: of its cell graph by global id (cell_graph_by_gid), or for
/// a generated box (`box`) of its hexes (box_hex_graph: each cell takes its hex's part).
std::vector<int> ptscotch_global(const HostMesh& m, const BoxConfig* box, int parts, MPI_Comm comm) {
  const index_t n = m.n_cells();
  std::vector<int> part(n);
  if (box) {
    const int per = box_cells_per_hex(*box);
    const gid_t hexes = gid_t(box->cells[0]) * box->cells[1] * box->cells[2];
    if (hexes * per != n)
      throw RunError("error: ptscotch_global: " + std::to_string(n) + " cells, not the box's " +
                     std::to_string(hexes * per));
    const std::vector<int> by_hex = ptscotch_all(
        hexes, [&](gid_t b, gid_t e) { return box_hex_graph(*box, b, e); }, parts, comm);
    for (index_t c = 0; c < n; ++c) part[c] = by_hex[std::size_t(m.cell_gid[c] / per)];
    return part;
  }
  const std::vector<int> by_gid = ptscotch_all(
      n, [&](gid_t b, gid_t e) { return cell_graph_by_gid(m, b, e); }, parts, comm);
  for (index_t c = 0; c < n; ++c) part[c] = by_gid[std::size_t(m.cell_gid[c])];
  return part;
}

/// refill_empty_parts on this process's cells (part, and each one's row: row(c)), the counts and
/// the largest row made global by sum(counts) and max(row) (nothing on one process).
template <class Row, class Sum, class Max>
int refill(std::vector<int>& part, const Row& row, int parts, const Sum& sum, const Max& max) {
  std::vector<long long> owned(std::size_t(parts), 0);
  for (const int r : part) ++owned[std::size_t(r)];
  sum(owned);
  int refilled = 0;
  for (int r = 0; r < parts; ++r) {
    if (owned[std::size_t(r)] > 0) continue;
    const int donor = static_cast<int>(std::max_element(owned.begin(), owned.end()) - owned.begin());
    long long last = -1; // the donor's cell of the largest row
    for (std::size_t c = 0; c < part.size(); ++c)
      if (part[c] == donor) last = std::max(last, static_cast<long long>(row(c)));
    max(last);
    for (std::size_t c = 0; c < part.size(); ++c)
      if (part[c] == donor && static_cast<long long>(row(c)) == last) part[c] = r;
    --owned[std::size_t(donor)];
    ++owned[std::size_t(r)];
    ++refilled;
  }
  return refilled;
}

} // namespace

int refill_empty_parts(std::vector<int>& part, int parts) {
  return refill(
      part, [](std::size_t c) { return c; }, parts, [](std::vector<long long>&) {}, [](long long&) {});
}

int refill_empty_parts(std::vector<int>& part, const std::vector<gid_t>& row, int parts, MPI_Comm comm) {
  return refill(
      part, [&](std::size_t c) { return row[c]; }, parts,
      [&](std::vector<long long>& owned) {
        MPI_Allreduce(MPI_IN_PLACE, owned.data(), int(owned.size()), MPI_LONG_LONG, MPI_SUM, comm);
      },
      [&](long long& last) { MPI_Allreduce(MPI_IN_PLACE, &last, 1, MPI_LONG_LONG, MPI_MAX, comm); });
}

namespace {

long long faces_cut(const std::array<int, 3>& f, const std::array<int, 3>& c, const std::array<bool, 3>& periodic) {
  long long cut = 0;
  for (int a = 0; a < 3; ++a) {
    const long long cross = static_cast<long long>(c[(a + 1) % 3]) * c[(a + 2) % 3];
    const int planes = f[a] == 1 ? 0 : (periodic[a] ? f[a] : f[a] - 1);
    cut += planes * cross;
  }
  return cut;
}

} // namespace

std::array<int, 3> block_factors(int parts, const std::array<int, 3>& cells, const std::array<bool, 3>& periodic) {
  std::array<int, 3> best{0, 0, 0};
  long long best_cut = -1, best_max = -1;
  for (int px = 1; px <= parts; ++px) {
    if (parts % px != 0 || px > cells[0]) continue;
    for (int py = 1; py <= parts / px; ++py) {
      if ((parts / px) % py != 0 || py > cells[1]) continue;
      const int pz = parts / px / py;
      if (pz > cells[2]) continue;
      const std::array<int, 3> f{px, py, pz};
      const long long cut = faces_cut(f, cells, periodic);
      // The largest block (cell i of an axis goes to block i * p / n: at most ceil(n / p) wide).
      long long largest = 1;
      for (int a = 0; a < 3; ++a) largest *= (cells[a] + f[a] - 1) / f[a];
      if (best_cut < 0 || largest < best_max || (largest == best_max && cut < best_cut))
        best = f, best_cut = cut, best_max = largest;
    }
  }
  return best;
}

void check_parts_fit(const std::string& where, long long parts, long long cells) {
  if (parts < 1) throw InputError(where, "the number of parts must be >= 1, got " + std::to_string(parts));
  if (parts > cells)
    throw InputError(where, std::to_string(parts) + " parts for " + std::to_string(cells) + " cells",
                     "every rank needs at least one cell: use fewer ranks or a finer mesh");
}

Partition partition_cells(const HostMesh& host, const Mesh& device, PartitionMethod method, int parts,
                          const BoxConfig* box, const std::string& where, MPI_Comm comm) {
  Partition p;
  p.method = method;
  p.parts = parts;
  const index_t n = host.n_cells();
  check_parts_fit(where, parts, n);
  if (method == PartitionMethod::blocks && !box)
    throw InputError(where, "mesh.partition 'blocks' divides a generated box; this mesh is read from a file",
                     "use metis, hilbert or zorder");
  if (parts == 1) { // METIS divides by zero for one part: never call it (nor Scotch) then
    p.part.assign(n, 0);
    return p;
  }
  switch (method) {
  case PartitionMethod::metis: p.part = metis_parts(host, parts); break;
  case PartitionMethod::ptscotch: p.part = ptscotch_global(host, box, parts, comm); break;
  case PartitionMethod::hilbert:
  case PartitionMethod::zorder: {
    const Ordering curve = method == PartitionMethod::hilbert ? Ordering::hilbert : Ordering::zorder;
    p.part = contiguous_pieces(ordering_permutation(host, device, curve, 1), parts);
    break;
  }
  case PartitionMethod::blocks: {
    const std::array<int, 3>& c = box->cells;
    std::array<bool, 3> periodic{false, false, false};
    for (int a = 0; a < 3; ++a) periodic[a] = box->periodic[a];
    p.blocks = block_factors(parts, c, periodic);
    if (p.blocks[0] == 0)
      throw InputError(where,
                       "'blocks' cannot divide the box of " + std::to_string(c[0]) + "x" + std::to_string(c[1]) + "x" +
                           std::to_string(c[2]) + " hexes into " + std::to_string(parts) + " boxes",
                       "no px x py x pz = " + std::to_string(parts) +
                           " has every factor within its axis' cell count: use metis, hilbert or zorder");
    const int per = box_cells_per_hex(*box);
    p.part.resize(n);
    for (index_t k = 0; k < n; ++k) {
      const gid_t hex = host.cell_gid[k] / per;
      const gid_t i = hex % c[0], j = (hex / c[0]) % c[1], l = hex / (gid_t(c[0]) * c[1]);
      const int bi = static_cast<int>(i * p.blocks[0] / c[0]), bj = static_cast<int>(j * p.blocks[1] / c[1]),
                bk = static_cast<int>(l * p.blocks[2] / c[2]);
      p.part[k] = bi + p.blocks[0] * (bj + p.blocks[1] * bk);
    }
    break;
  }
  }
  p.refilled = refill_empty_parts(p.part, parts);
  return p;
}

PartitionQuality partition_quality(const HostMesh& m, const Partition& p, int values_per_ghost) {
  PartitionQuality q;
  q.method = to_string(p.method);
  q.parts = p.parts;
  q.values_per_ghost = values_per_ghost;
  const int P = p.parts;
  q.owned.assign(P, 0);
  q.ghosts.assign(P, 0);
  q.neighbours.assign(P, 0);
  q.cut_faces.assign(P, 0);
  for (int r : p.part) ++q.owned[r];
  for (index_t f = 0; f < m.n_interior; ++f) {
    const int pa = p.part[m.face_owner[f]], pb = p.part[m.face_neighbour[f]];
    if (pa == pb) continue;
    ++q.edge_cut;
    ++q.cut_faces[pa];
    ++q.cut_faces[pb];
  }
  // Each part's cells (a counting sort), then per part the other parts' cells and the parts next to
  // its cells, each counted once through a stamp: O(cells + faces) whatever the number of parts.
  const index_t nc = m.n_cells();
  std::vector<index_t> first(std::size_t(P) + 1, 0), cells(nc);
  for (int r = 0; r < P; ++r) first[r + 1] = first[r] + static_cast<index_t>(q.owned[r]);
  {
    std::vector<index_t> fill(first.begin(), first.end() - 1);
    for (index_t c = 0; c < nc; ++c) cells[fill[p.part[c]]++] = c;
  }
  std::vector<int> cell_seen(nc, -1), part_seen(P, -1);
  for (int r = 0; r < P; ++r)
    for (index_t i = first[r]; i < first[r + 1]; ++i) {
      const index_t c = cells[i];
      for (index_t k = m.cell_face_off[c]; k < m.cell_face_off[c + 1]; ++k) {
        const index_t f = m.cell_faces[k];
        if (f >= m.n_interior) continue;
        const index_t other = m.face_owner[f] == c ? m.face_neighbour[f] : m.face_owner[f];
        const int po = p.part[other];
        if (po == r) continue;
        if (cell_seen[other] != r) {
          cell_seen[other] = r;
          ++q.ghosts[r];
        }
        if (part_seen[po] != r) {
          part_seen[po] = r;
          ++q.neighbours[r];
        }
      }
    }
  const double n = static_cast<double>(m.n_cells());
  const long long max_owned = *std::max_element(q.owned.begin(), q.owned.end());
  q.imbalance = max_owned / (n / P);
  q.ghost_fraction = std::accumulate(q.ghosts.begin(), q.ghosts.end(), 0.0) / n;
  q.neighbours_max = *std::max_element(q.neighbours.begin(), q.neighbours.end());
  q.neighbours_mean = std::accumulate(q.neighbours.begin(), q.neighbours.end(), 0.0) / P;
  q.halo_values_max = *std::max_element(q.ghosts.begin(), q.ghosts.end()) * values_per_ghost;
  q.halo_values_mean = std::accumulate(q.ghosts.begin(), q.ghosts.end(), 0.0) * values_per_ghost / P;
  q.halo_bytes_max = q.halo_values_max * static_cast<long long>(sizeof(real));
  q.halo_bytes_mean = q.halo_values_mean * static_cast<double>(sizeof(real));
  q.empty_parts = static_cast<int>(std::count(q.owned.begin(), q.owned.end(), 0LL));
  return q;
}

} // namespace fvproxy
