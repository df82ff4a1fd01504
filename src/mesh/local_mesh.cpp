#include "mesh/local_mesh.hpp"

#include <algorithm>
#include <numeric>
#include <tuple>

#include "core/error.hpp"
#include "mesh/host_parallel.hpp"

namespace fvproxy {

std::vector<char> cells_at_corners(const HostMesh& m, const std::vector<std::string>& names) {
  constexpr int kNone = -1, kTwo = -2;
  std::vector<int> plane(std::size_t(m.n_nodes()), kNone); // the one patch at the node, or kTwo
  for (std::size_t p = 0; p < m.patches.size(); ++p) {
    if (std::find(names.begin(), names.end(), m.patches[p].name) == names.end()) continue;
    for (index_t f = m.patches[p].begin; f < m.patches[p].end; ++f)
      for (index_t k = m.face_node_off[f]; k < m.face_node_off[f + 1]; ++k) {
        int& at = plane[std::size_t(m.face_nodes[k])];
        at = at == kNone || at == int(p) ? int(p) : kTwo;
      }
  }
  std::vector<char> corner(std::size_t(m.n_cells()), 0);
  for (index_t c = 0; c < m.n_cells(); ++c)
    for (index_t k = m.cell_node_off[c]; k < m.cell_node_off[c + 1]; ++k)
      if (plane[std::size_t(m.cell_nodes[k])] == kTwo) corner[std::size_t(c)] = 1;
  return corner;
}

CellAdjacency::CellAdjacency(const HostMesh& m, const GhostAdjacency& rule)
    : m_(m), vertex_(rule.vertex), corners_(rule.corners_only()) {
  if (!vertex_) return;
  if (corners_) corner_ = cells_at_corners(m, rule.corner_patches);
  const index_t nn = m.n_nodes();
  key_off_.assign(std::size_t(nn) + 1, 0);
  for (index_t c = 0; c < m.n_cells(); ++c)
    for (index_t k = m.cell_node_off[c]; k < m.cell_node_off[c + 1]; ++k) ++key_off_[key_of(m.cell_nodes[k]) + 1];
  std::partial_sum(key_off_.begin(), key_off_.end(), key_off_.begin());
  key_cells_.resize(std::size_t(key_off_[nn]));
  std::vector<index_t> at(key_off_.begin(), key_off_.end() - 1);
  for (index_t c = 0; c < m.n_cells(); ++c) // each key's cells ascending: a cell once per key
    for (index_t k = m.cell_node_off[c]; k < m.cell_node_off[c + 1]; ++k) {
      const index_t key = key_of(m.cell_nodes[k]);
      if (at[key] == key_off_[key] || key_cells_[at[key] - 1] != c) key_cells_[at[key]++] = c;
    }
  // a key listed twice by one cell (a cell with two nodes of one key: a periodic box one cell wide)
  // left holes at its end: compact each key's list
  std::vector<index_t> off(key_off_.size(), 0), cells;
  cells.reserve(key_cells_.size());
  for (index_t key = 0; key < nn; ++key) {
    for (index_t q = key_off_[key]; q < at[key]; ++q) cells.push_back(key_cells_[q]);
    off[key + 1] = static_cast<index_t>(cells.size());
  }
  key_off_.swap(off);
  key_cells_.swap(cells);
}

namespace {

/// v sorted, without repeats.
void sort_unique(std::vector<int>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

/// What add_halo_links sends: (neighbour rank, its layer, gid, local owned cell). An owned cell c is
/// in rank r's first layer when a neighbour of c is r's; in its second when not and a neighbour n
/// of c, not r's, has a neighbour of r's. The parts next to each n (other than n's own) are found
/// once per n (a vertex neighbourhood holds ~70 cells on tets).
std::vector<std::tuple<int, int, gid_t, index_t>> halo_sends(const HostMesh& g, const std::vector<int>& part,
                                                             int layers, const CellAdjacency& adj, const LocalMesh& l) {
  const std::vector<index_t>& cells = l.global_cell;
  const int rank = l.rank;
  constexpr index_t kUnknown = -1, kNone = -2;
  std::vector<index_t> slot(layers < 2 ? 0 : std::size_t(g.n_cells()), kUnknown); // kNone, or in other_parts
  std::vector<std::vector<int>> other_parts; // only the cells next to another part than their own
  const auto parts_next_to = [&](index_t n) -> const std::vector<int>* {
    if (slot[n] == kUnknown) {
      std::vector<int> ps;
      adj.for_each(n, [&](index_t m) {
        if (part[m] >= 0 && part[m] != part[n]) ps.push_back(part[m]);
      });
      sort_unique(ps);
      slot[n] = ps.empty() ? kNone : static_cast<index_t>(other_parts.size());
      if (!ps.empty()) other_parts.push_back(std::move(ps));
    }
    return slot[n] == kNone ? nullptr : &other_parts[std::size_t(slot[n])];
  };
  std::vector<std::tuple<int, int, gid_t, index_t>> sends;
  std::vector<int> first, second;
  for (index_t i = 0; i < l.n_owned; ++i) {
    const index_t c = cells[i];
    first.clear(), second.clear();
    adj.for_each(c, [&](index_t n) {
      if (part[n] >= 0 && part[n] != rank) first.push_back(part[n]);
    });
    sort_unique(first);
    for (const int r : first) sends.emplace_back(r, 1, g.cell_gid[c], i);
    if (layers < 2) continue;
    adj.for_each(c, [&](index_t n) {
      if (const std::vector<int>* ps = parts_next_to(n))
        for (const int r : *ps)
          if (r != rank && !std::binary_search(first.begin(), first.end(), r)) second.push_back(r);
    });
    sort_unique(second);
    for (const int r : second) sends.emplace_back(r, 2, g.cell_gid[c], i);
  }
  std::sort(sends.begin(), sends.end());
  return sends;
}

/// l.links of a local mesh whose cells (l.global_cell) are cut out of g: the ghosts by owner rank,
/// the first layer's then the second's (each by gid), and what each neighbour needs from here in
/// its own ghost order: the owned cells next to its cells (its first layer), then those two cells
/// away (its second, with two layers; "next to" by `adj`: halo_sends).
void add_halo_links(const HostMesh& g, const std::vector<int>& part, int layers, const CellAdjacency& adj,
                    LocalMesh& l) {
  const std::vector<index_t>& cells = l.global_cell;
  const int rank = l.rank;
  for (index_t k = l.n_owned; k < index_t(cells.size()); ++k) {
    const int r = part[cells[k]];
    auto it = std::lower_bound(l.links.begin(), l.links.end(), r, [](const HaloLink& x, int v) { return x.rank < v; });
    if (it == l.links.end() || it->rank != r) {
      HaloLink link;
      link.rank = r;
      it = l.links.insert(it, link);
    }
    it->recv.push_back(k);
  }
  for (const auto& [r, layer_there, gid, c] : halo_sends(g, part, layers, adj, l)) {
    auto it = std::find_if(l.links.begin(), l.links.end(), [r = r](const HaloLink& x) { return x.rank == r; });
    if (it == l.links.end()) // a face between two parts makes each a ghost of the other: never here
      throw RunError("error: extract_local: rank " + std::to_string(r) + " needs cells of rank " +
                     std::to_string(rank) + " but owns no ghost of it");
    it->send.push_back(c);
  }
}

/// l.global_face (and the face counts and patch ranges) of the local mesh cut out of g: owned-owned,
/// owned-ghost, each patch's faces of owned cells; with two layers each patch's faces of
/// first-layer ghosts, then the ghost-ghost faces of the first layer; each class in global order.
/// layer[c]: 1 or 2 for the ghosts of that layer, else 0.
void select_faces(const HostMesh& g, const std::vector<int>& part, const std::vector<char>& layer, LocalMesh& l) {
  std::vector<index_t>& faces = l.global_face;
  HostMesh& h = l.host;
  const int rank = l.rank;
  auto owned = [&](index_t c) { return c >= 0 && part[c] == rank; };
  for (index_t f = 0; f < g.n_interior; ++f)
    if (owned(g.face_owner[f]) && owned(g.face_neighbour[f])) faces.push_back(f);
  l.n_owned_faces = static_cast<index_t>(faces.size());
  for (index_t f = 0; f < g.n_interior; ++f)
    if (owned(g.face_owner[f]) != owned(g.face_neighbour[f])) faces.push_back(f);
  h.n_interior = static_cast<index_t>(faces.size());
  auto patch_faces = [&](std::vector<Patch>& out, auto&& keep) {
    for (const Patch& p : g.patches) {
      Patch q{p.name, static_cast<index_t>(faces.size()), 0};
      for (index_t f = p.begin; f < p.end; ++f)
        if (keep(g.face_owner[f])) faces.push_back(f);
      q.end = static_cast<index_t>(faces.size());
      out.push_back(q);
    }
  };
  patch_faces(h.patches, owned);
  l.n_faces_owned = static_cast<index_t>(faces.size());
  if (l.layers == 2) {
    patch_faces(l.layer1_patches, [&](index_t c) { return layer[c] == 1 || (l.vertex && layer[c] == 2); });
    l.outer_begin = static_cast<index_t>(faces.size());
    for (index_t f = 0; f < g.n_interior; ++f) {
      const index_t a = g.face_owner[f], b = g.face_neighbour[f];
      if (layer[a] && layer[b] && (layer[a] == 1 || layer[b] == 1)) faces.push_back(f);
    }
  } else {
    l.outer_begin = l.n_faces_owned;
  }
}

/// Cell -> faces in global face order (the order of the global mesh's CSR), signs as there: the
/// local faces' order, then each cell's list sorted by global face. (A second-layer ghost lists
/// only its faces to the first layer: nothing reads them.)
void sort_cell_faces_globally(LocalMesh& l) {
  HostMesh& h = l.host;
  const std::vector<index_t>& faces = l.global_face;
  build_cell_faces(h);
  host::parallel_for("fvproxy::mesh::local_cell_faces", h.n_cells(), [&](std::int64_t i) {
    const index_t c = static_cast<index_t>(i);
    const auto b = h.cell_faces.begin() + h.cell_face_off[c], e = h.cell_faces.begin() + h.cell_face_off[c + 1];
    std::sort(b, e, [&](index_t x, index_t y) { return faces[x] < faces[y]; });
    for (index_t k = h.cell_face_off[c]; k < h.cell_face_off[c + 1]; ++k)
      h.cell_face_sign[k] = h.face_owner[h.cell_faces[k]] == c ? 1 : -1;
  });
}

/// Classify owned cells (frontier: a neighbour in another part, by `adj`) and the ghosts by layer
/// (layer[c]: 1 or 2 for the ghosts of that layer, else 0).
void classify_cells(const std::vector<int>& part, int rank, int layers, const CellAdjacency& adj,
                    std::vector<char>& frontier, std::vector<char>& layer) {
  const index_t nc = static_cast<index_t>(part.size());
  for (index_t c = 0; c < nc; ++c)
    if (part[c] == rank)
      adj.for_each(c, [&](index_t n) {
        if (part[n] != rank) frontier[c] = 1, layer[n] = 1;
      });
  if (layers == 2)
    for (index_t c = 0; c < nc; ++c)
      if (layer[c] == 1)
        adj.for_each(c, [&](index_t n) {
          if (part[n] != rank && layer[n] == 0) layer[n] = 2;
        });
}

/// A ghost's owner must be known: the halo exchanges with it.
void check_ghost_parts(const HostMesh& g, const std::vector<int>& part, const std::vector<char>& layer) {
  const index_t nc = g.n_cells();
  for (index_t c = 0; c < nc; ++c)
    if (layer[c] && part[c] < 0)
      throw RunError("error: extract_local: the part of ghost cell " + std::to_string(g.cell_gid[c]) + " is unknown");
}

/// l.global_cell: the inner owned cells, the frontier's, then each layer's ghosts by (owner, gid);
/// with l.n_inner, n_owned and n_layer1.
void order_cells(const HostMesh& g, const std::vector<int>& part, const std::vector<char>& frontier,
                 const std::vector<char>& layer, LocalMesh& l) {
  const index_t nc = g.n_cells();
  const int rank = l.rank;
  std::vector<index_t>& cells = l.global_cell;
  for (index_t c = 0; c < nc; ++c)
    if (part[c] == rank && !frontier[c]) cells.push_back(c);
  l.n_inner = static_cast<index_t>(cells.size());
  for (index_t c = 0; c < nc; ++c)
    if (part[c] == rank && frontier[c]) cells.push_back(c);
  l.n_owned = static_cast<index_t>(cells.size());
  for (char k = 1; k <= 2; ++k) {
    std::vector<index_t> ghosts;
    for (index_t c = 0; c < nc; ++c)
      if (layer[c] == k) ghosts.push_back(c);
    std::sort(ghosts.begin(), ghosts.end(), [&](index_t a, index_t b) {
      return part[a] != part[b] ? part[a] < part[b] : g.cell_gid[a] < g.cell_gid[b];
    });
    cells.insert(cells.end(), ghosts.begin(), ghosts.end());
    if (k == 1) l.n_layer1 = static_cast<index_t>(ghosts.size());
  }
}

/// Nodes: those of the local cells, in increasing global node index. Returns each global node's
/// local number (-1: not local).
std::vector<index_t> add_nodes(const HostMesh& g, LocalMesh& l) {
  const std::vector<index_t>& cells = l.global_cell;
  HostMesh& h = l.host;
  std::vector<index_t> node_of(g.n_nodes(), -1);
  for (index_t c : cells)
    for (index_t k = g.cell_node_off[c]; k < g.cell_node_off[c + 1]; ++k) node_of[g.cell_nodes[k]] = 0;
  for (index_t v = 0; v < g.n_nodes(); ++v)
    if (node_of[v] == 0) {
      node_of[v] = h.n_nodes();
      h.node_gid.push_back(g.node_gid[v]);
      h.x.insert(h.x.end(), g.x.begin() + 3 * std::size_t(v), g.x.begin() + 3 * std::size_t(v) + 3);
    }
  if (!g.node_key.empty()) { // each key: the local node of smallest index with it
    std::vector<index_t> first_of(g.n_nodes(), -1);
    h.node_key.resize(std::size_t(h.n_nodes()));
    for (index_t v = 0; v < g.n_nodes(); ++v)
      if (node_of[v] >= 0) {
        index_t& f = first_of[g.node_key[v]];
        if (f < 0 || node_of[v] < f) f = node_of[v];
      }
    for (index_t v = 0; v < g.n_nodes(); ++v)
      if (node_of[v] >= 0) h.node_key[node_of[v]] = first_of[g.node_key[v]];
  }
  return node_of;
}

/// The local cells, in l.global_cell's order, on their local nodes (each cell written once, on the
/// host threads).
void add_cells(const HostMesh& g, const std::vector<index_t>& node_of, LocalMesh& l) {
  HostMesh& h = l.host;
  const std::vector<index_t>& cells = l.global_cell;
  const std::int64_t n = std::int64_t(cells.size());
  h.cell_type.resize(std::size_t(n));
  h.cell_gid.resize(std::size_t(n));
  h.cell_node_off.assign(std::size_t(n) + 1, 0);
  host::parallel_for("fvproxy::mesh::local_cells", n, [&](std::int64_t i) {
    const index_t c = cells[std::size_t(i)];
    h.cell_type[std::size_t(i)] = g.cell_type[c];
    h.cell_gid[std::size_t(i)] = g.cell_gid[c];
    h.cell_node_off[std::size_t(i)] = g.cell_node_off[c + 1] - g.cell_node_off[c];
  });
  h.cell_node_off[std::size_t(n)] = host::exclusive_scan(h.cell_node_off);
  h.cell_nodes.resize(std::size_t(h.cell_node_off[std::size_t(n)]));
  host::parallel_for("fvproxy::mesh::local_cell_nodes", n, [&](std::int64_t i) {
    const index_t c = cells[std::size_t(i)];
    index_t at = h.cell_node_off[std::size_t(i)];
    for (index_t k = g.cell_node_off[c]; k < g.cell_node_off[c + 1]; ++k) h.cell_nodes[at++] = node_of[g.cell_nodes[k]];
  });
}

/// The faces select_faces chose (l.global_face), on the local nodes and cells (each face written
/// once, on the host threads).
void add_faces(const HostMesh& g, const std::vector<index_t>& node_of, LocalMesh& l) {
  const std::vector<index_t>& cells = l.global_cell;
  std::vector<index_t> local_of(g.n_cells(), -1);
  host::parallel_for("fvproxy::mesh::local_of", std::int64_t(cells.size()),
                     [&](std::int64_t k) { local_of[cells[std::size_t(k)]] = static_cast<index_t>(k); });
  HostMesh& h = l.host;
  const std::vector<index_t>& faces = l.global_face;
  const std::int64_t n = std::int64_t(faces.size());
  h.shifts = g.shifts;
  h.face_owner.resize(std::size_t(n));
  h.face_neighbour.resize(std::size_t(n));
  h.face_shift.resize(std::size_t(n));
  h.face_node_off.assign(std::size_t(n) + 1, 0);
  host::parallel_for("fvproxy::mesh::local_faces", n, [&](std::int64_t i) {
    const index_t f = faces[std::size_t(i)];
    h.face_node_off[std::size_t(i)] = g.face_node_off[f + 1] - g.face_node_off[f];
    h.face_owner[std::size_t(i)] = local_of[g.face_owner[f]];
    h.face_neighbour[std::size_t(i)] = g.face_neighbour[f] < 0 ? -1 : local_of[g.face_neighbour[f]];
    h.face_shift[std::size_t(i)] = g.face_shift[f];
  });
  h.face_node_off[std::size_t(n)] = host::exclusive_scan(h.face_node_off);
  h.face_nodes.resize(std::size_t(h.face_node_off[std::size_t(n)]));
  host::parallel_for("fvproxy::mesh::local_face_nodes", n, [&](std::int64_t i) {
    const index_t f = faces[std::size_t(i)];
    index_t at = h.face_node_off[std::size_t(i)];
    for (index_t k = g.face_node_off[f]; k < g.face_node_off[f + 1]; ++k) h.face_nodes[at++] = node_of[g.face_nodes[k]];
  });
}

} // namespace

LocalMesh extract_local(const HostMesh& g, const std::vector<int>& part, int rank, int ranks, int layers,
                        const GhostAdjacency& adjacency) {
  const index_t nc = g.n_cells();
  if (index_t(part.size()) != nc)
    throw RunError("error: extract_local: a partition of " + std::to_string(part.size()) + " cells for a mesh of " +
                   std::to_string(nc));
  if (layers != 1 && layers != 2)
    throw RunError("error: extract_local: " + std::to_string(layers) + " ghost layers (1 or 2)");
  LocalMesh l;
  l.rank = rank;
  l.ranks = ranks;
  l.layers = layers;
  l.vertex = adjacency.vertex;
  l.corners_only = adjacency.corners_only();
  l.n_global_nodes = g.n_nodes();
  std::vector<char> frontier(nc, 0), layer(nc, 0);
  const CellAdjacency adj(g, adjacency);
  classify_cells(part, rank, layers, adj, frontier, layer);
  check_ghost_parts(g, part, layer);
  order_cells(g, part, frontier, layer, l);
  l.host.dim = g.dim;
  const std::vector<index_t> node_of = add_nodes(g, l);
  add_cells(g, node_of, l);
  select_faces(g, part, layer, l);
  add_faces(g, node_of, l);
  sort_cell_faces_globally(l);
  add_halo_links(g, part, layers, adj, l);
  return l;
}

std::vector<index_t> node_file_rows(const HostMesh& m) {
  const index_t n = m.n_nodes();
  std::vector<index_t> row(n, -1);
  std::vector<char> seen(n, 0);
  bool dense = true;
  for (index_t v = 0; v < n && dense; ++v) {
    const gid_t g = m.node_gid[v];
    if (g < 0 || g >= n || seen[g])
      dense = false;
    else
      row[v] = static_cast<index_t>(g), seen[g] = 1;
  }
  if (!dense) {
    std::vector<index_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](index_t a, index_t b) { return m.node_gid[a] < m.node_gid[b]; });
    for (index_t k = 0; k < n; ++k) row[order[k]] = k;
  }
  return row;
}

} // namespace fvproxy
