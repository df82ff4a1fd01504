#include "mesh/partition.hpp"

#include <metis.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <utility>

#include "core/error.hpp"
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
  // Dual graph: one edge per pair of face-sharing cells, weighted by the number of shared faces
  // (a cell pair can share a direct and a periodic face); METIS needs no self loops or duplicates.
  std::vector<std::vector<std::pair<index_t, idx_t>>> adj(n);
  for (index_t f = 0; f < m.n_interior; ++f) {
    const index_t a = m.face_owner[f], b = m.face_neighbour[f];
    if (a == b) continue;
    adj[a].emplace_back(b, 1);
    adj[b].emplace_back(a, 1);
  }
  std::vector<idx_t> xadj(n + 1, 0), adjncy, adjwgt;
  adjncy.reserve(2 * std::size_t(m.n_interior));
  adjwgt.reserve(2 * std::size_t(m.n_interior));
  for (index_t c = 0; c < n; ++c) {
    auto& l = adj[c];
    std::sort(l.begin(), l.end());
    for (std::size_t k = 0; k < l.size(); ++k) {
      if (k > 0 && l[k].first == l[k - 1].first) {
        ++adjwgt.back();
        continue;
      }
      adjncy.push_back(static_cast<idx_t>(l[k].first));
      adjwgt.push_back(1);
    }
    xadj[c + 1] = static_cast<idx_t>(adjncy.size());
    std::vector<std::pair<index_t, idx_t>>().swap(l);
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

Partition partition_cells(const HostMesh& host, const Mesh& device, PartitionMethod method, int parts,
                          const BoxConfig* box, const std::string& where) {
  Partition p;
  p.method = method;
  p.parts = parts;
  const index_t n = host.n_cells();
  if (parts < 1) throw InputError(where, "the number of parts must be >= 1, got " + std::to_string(parts));
  if (parts > n)
    throw InputError(where, std::to_string(parts) + " parts for " + std::to_string(n) + " cells",
                     "every rank needs at least one cell: use fewer ranks or a finer mesh");
  if (method == PartitionMethod::blocks && !box)
    throw InputError(where, "mesh.partition 'blocks' divides a generated box; this mesh is read from a file",
                     "use metis, hilbert or zorder");
  if (parts == 1) { // METIS divides by zero for one part: never call it then
    p.part.assign(n, 0);
    return p;
  }
  switch (method) {
  case PartitionMethod::metis: p.part = metis_parts(host, parts); break;
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
    const int per = box->element == ElementKind::tet ? 6 : box->element == ElementKind::prism ? 2 : 1;
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
  // (part, ghost cell) and (part, neighbour part) pairs, each once.
  std::vector<std::pair<int, index_t>> ghost_pairs;
  std::vector<std::pair<int, int>> part_pairs;
  for (index_t f = 0; f < m.n_interior; ++f) {
    const index_t a = m.face_owner[f], b = m.face_neighbour[f];
    const int pa = p.part[a], pb = p.part[b];
    if (pa == pb) continue;
    ++q.edge_cut;
    ++q.cut_faces[pa];
    ++q.cut_faces[pb];
    ghost_pairs.emplace_back(pa, b);
    ghost_pairs.emplace_back(pb, a);
    part_pairs.emplace_back(pa, pb);
    part_pairs.emplace_back(pb, pa);
  }
  std::sort(ghost_pairs.begin(), ghost_pairs.end());
  ghost_pairs.erase(std::unique(ghost_pairs.begin(), ghost_pairs.end()), ghost_pairs.end());
  for (const auto& g : ghost_pairs) ++q.ghosts[g.first];
  std::sort(part_pairs.begin(), part_pairs.end());
  part_pairs.erase(std::unique(part_pairs.begin(), part_pairs.end()), part_pairs.end());
  for (const auto& g : part_pairs) ++q.neighbours[g.first];
  const double n = static_cast<double>(m.n_cells());
  const long long max_owned = *std::max_element(q.owned.begin(), q.owned.end());
  q.imbalance = max_owned / (n / P);
  q.ghost_fraction = std::accumulate(q.ghosts.begin(), q.ghosts.end(), 0.0) / n;
  q.neighbours_max = *std::max_element(q.neighbours.begin(), q.neighbours.end());
  q.neighbours_mean = std::accumulate(q.neighbours.begin(), q.neighbours.end(), 0.0) / P;
  q.halo_values_max = *std::max_element(q.ghosts.begin(), q.ghosts.end()) * values_per_ghost;
  q.halo_values_mean = std::accumulate(q.ghosts.begin(), q.ghosts.end(), 0.0) * values_per_ghost / P;
  q.empty_parts = static_cast<int>(std::count(q.owned.begin(), q.owned.end(), 0LL));
  return q;
}

} // namespace fvproxy
