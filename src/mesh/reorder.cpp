#include "mesh/reorder.hpp"

#include <algorithm>
#include <numeric>

#include "core/kokkos_compat.hpp"
#include "mesh/host_parallel.hpp"
#include "mesh/random.hpp"
#include "mesh/space_filling_curves.hpp"

namespace fvproxy {

namespace {

/// Projects cell centroids onto a curve key (one labelled kernel, ArborX style).
template <class Curve> struct CurveProjection {
  ConstVec3View<real> centroid;
  View1<std::uint64_t> keys;
  real lo[3];
  real scale; // same for every axis: the grid is a cube, so shapes are not distorted

  KOKKOS_FUNCTION std::uint32_t quantize(real v, int d) const {
    const real q = (v - lo[d]) * scale;
    const real qmax = real((1u << kCurveBits) - 1);
    return static_cast<std::uint32_t>(q < 0 ? real(0) : (q > qmax ? qmax : q));
  }
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    keys(c) = Curve{}(quantize(centroid(c, 0), 0), quantize(centroid(c, 1), 1), quantize(centroid(c, 2), 2));
  }
};

CurveFrame frame_of(const Mesh& m) {
  const auto ctr = m.centroid;
  using MinMax = Kokkos::MinMax<real>;
  typename MinMax::value_type r[3];
  for (int d = 0; d < 3; ++d)
    Kokkos::parallel_reduce(
        "fvproxy::mesh::centroid_bounds", Kokkos::RangePolicy<ExecSpace>(0, m.n_cells),
        KOKKOS_LAMBDA(const index_t c, typename MinMax::value_type& v) {
          if (ctr(c, d) < v.min_val) v.min_val = ctr(c, d);
          if (ctr(c, d) > v.max_val) v.max_val = ctr(c, d);
        },
        MinMax(r[d]));
  const real lo[3] = {r[0].min_val, r[1].min_val, r[2].min_val}, hi[3] = {r[0].max_val, r[1].max_val, r[2].max_val};
  return curve_frame(lo, hi);
}

template <class Curve> std::vector<std::uint64_t> project(const Mesh& m, const CurveFrame& f, const char* label) {
  CurveProjection<Curve> p{
      m.centroid, View1<std::uint64_t>(std::string(label), m.n_cells), {f.lo[0], f.lo[1], f.lo[2]}, f.scale};
  Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace>(0, m.n_cells), p);
  auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), p.keys);
  return std::vector<std::uint64_t>(h.data(), h.data() + h.extent(0));
}

} // namespace

CurveFrame curve_frame(const real lo[3], const real hi[3]) {
  real ext = 0;
  for (int d = 0; d < 3; ++d) ext = std::max(ext, hi[d] - lo[d]);
  CurveFrame f;
  for (int d = 0; d < 3; ++d) f.lo[d] = lo[d];
  f.scale = ext > 0 ? real((1u << kCurveBits) - 1) / ext : real(0);
  return f;
}

std::vector<std::uint64_t> curve_keys(const Mesh& mesh, Ordering curve, const CurveFrame& frame) {
  if (curve == Ordering::hilbert) return project<HilbertKey>(mesh, frame, "fvproxy::mesh::hilbert_keys");
  return project<MortonKey>(mesh, frame, "fvproxy::mesh::morton_keys");
}

namespace {

std::vector<index_t> sort_by_key(const std::vector<std::uint64_t>& key, const std::vector<gid_t>& gid) {
  std::vector<index_t> p(key.size());
  std::iota(p.begin(), p.end(), 0);
  // (key, global id) is a strict total order: the same permutation on any number of threads.
  host::parallel_sort(
      p, [&](index_t a, index_t b) { return key[a] != key[b] ? key[a] < key[b] : gid[a] < gid[b]; },
      "fvproxy::mesh::curve_sort");
  return p;
}

} // namespace

std::vector<std::uint64_t> curve_keys(const Mesh& mesh, Ordering curve) {
  return curve_keys(mesh, curve, frame_of(mesh));
}

std::vector<index_t> rcm_permutation(const HostMesh& m) {
  const index_t n = m.n_cells();
  // Adjacency CSR from interior faces.
  std::vector<index_t> off(n + 1, 0);
  for (index_t f = 0; f < m.n_interior; ++f) ++off[m.face_owner[f] + 1], ++off[m.face_neighbour[f] + 1];
  for (index_t c = 0; c < n; ++c) off[c + 1] += off[c];
  std::vector<index_t> adj(off[n]);
  {
    std::vector<index_t> fill(off.begin(), off.end() - 1);
    for (index_t f = 0; f < m.n_interior; ++f) {
      adj[fill[m.face_owner[f]]++] = m.face_neighbour[f];
      adj[fill[m.face_neighbour[f]]++] = m.face_owner[f];
    }
  }
  auto degree = [&](index_t c) { return off[c + 1] - off[c]; };
  auto less = [&](index_t a, index_t b) {
    return degree(a) != degree(b) ? degree(a) < degree(b) : m.cell_gid[a] < m.cell_gid[b];
  };
  // Neighbours in (degree, gid) order, once.
  for (index_t c = 0; c < n; ++c) std::sort(adj.begin() + off[c], adj.begin() + off[c + 1], less);

  std::vector<index_t> level(n, -1), order;
  order.reserve(n);
  std::vector<char> placed(n, 0);
  // BFS from `s` over unplaced cells; returns the last level's best (min-degree) cell and depth.
  std::vector<index_t> queue;
  auto bfs = [&](index_t s, index_t& far, index_t& depth) {
    queue.assign(1, s);
    std::vector<index_t> touched{s};
    level[s] = 0;
    for (std::size_t h = 0; h < queue.size(); ++h) {
      const index_t c = queue[h];
      for (index_t k = off[c]; k < off[c + 1]; ++k) {
        const index_t nb = adj[k];
        if (placed[nb] || level[nb] >= 0) continue;
        level[nb] = level[c] + 1;
        queue.push_back(nb);
        touched.push_back(nb);
      }
    }
    depth = level[queue.back()];
    far = queue.back();
    for (index_t c : queue)
      if (level[c] == depth && less(c, far)) far = c;
    for (index_t c : touched) level[c] = -1;
  };
  // Components in order of their lowest-(degree, gid) cell.
  std::vector<index_t> starts(n);
  std::iota(starts.begin(), starts.end(), 0);
  std::sort(starts.begin(), starts.end(), less);
  for (index_t s0 : starts) {
    if (placed[s0]) continue;
    // Pseudo-peripheral start (George-Liu): follow the far end while the depth grows.
    index_t s = s0, far = s0, depth = 0, prev = -1;
    for (int it = 0; it < 8; ++it) {
      bfs(s, far, depth);
      if (depth <= prev) break;
      prev = depth;
      s = far;
    }
    // Cuthill-McKee from s.
    const std::size_t begin = order.size();
    order.push_back(s);
    placed[s] = 1;
    for (std::size_t h = begin; h < order.size(); ++h) {
      const index_t c = order[h];
      for (index_t k = off[c]; k < off[c + 1]; ++k)
        if (!placed[adj[k]]) placed[adj[k]] = 1, order.push_back(adj[k]);
    }
  }
  std::reverse(order.begin(), order.end());
  return order;
}

std::vector<index_t> random_permutation(index_t n, std::uint64_t seed) {
  std::vector<index_t> p(n);
  std::iota(p.begin(), p.end(), 0);
  for (index_t i = n - 1; i > 0; --i) {
    const auto j = static_cast<index_t>(splitmix64(splitmix64(seed) ^ std::uint64_t(i)) % std::uint64_t(i + 1));
    std::swap(p[i], p[j]);
  }
  return p;
}

std::vector<index_t> ordering_permutation(const HostMesh& host, const Mesh& mesh, Ordering ordering,
                                          std::uint64_t seed) {
  switch (ordering) {
  case Ordering::none: {
    std::vector<index_t> p(host.n_cells());
    std::iota(p.begin(), p.end(), 0);
    return p;
  }
  case Ordering::zorder:
  case Ordering::hilbert: return sort_by_key(curve_keys(mesh, ordering), host.cell_gid);
  case Ordering::rcm: return rcm_permutation(host);
  case Ordering::random: return random_permutation(host.n_cells(), seed);
  }
  return {};
}

bool is_permutation(const std::vector<index_t>& p, index_t n) {
  if (index_t(p.size()) != n) return false;
  std::vector<char> seen(n, 0);
  for (index_t v : p) {
    if (v < 0 || v >= n || seen[v]) return false;
    seen[v] = 1;
  }
  return true;
}

HostMesh permute_cells(const HostMesh& m, const std::vector<index_t>& new_to_old) {
  const index_t nc = m.n_cells(), nn = m.n_nodes();
  std::vector<index_t> old_to_new(nc);
  host::parallel_for("fvproxy::mesh::inverse_permutation", nc,
                     [&](std::int64_t c) { old_to_new[new_to_old[c]] = index_t(c); });
  HostMesh r;
  // Nodes by first use in the new cell order (unused nodes last, in their old order).
  std::vector<index_t> node_new(nn, -1), node_old;
  node_old.reserve(nn);
  for (index_t c : new_to_old)
    for (index_t k = m.cell_node_off[c]; k < m.cell_node_off[c + 1]; ++k) {
      const index_t v = m.cell_nodes[k];
      if (node_new[v] < 0) node_new[v] = index_t(node_old.size()), node_old.push_back(v);
    }
  for (index_t v = 0; v < nn; ++v)
    if (node_new[v] < 0) node_new[v] = index_t(node_old.size()), node_old.push_back(v);
  // The rest, entity by entity on the host threads (each output written once).
  r.x.resize(m.x.size());
  r.node_gid.resize(nn);
  if (!m.node_key.empty()) r.node_key.resize(nn);
  host::parallel_for("fvproxy::mesh::permute_nodes", nn, [&](std::int64_t v) {
    const index_t o = node_old[v];
    for (int d = 0; d < 3; ++d) r.x[3 * std::size_t(v) + d] = m.x[3 * std::size_t(o) + d];
    r.node_gid[v] = m.node_gid[o];
    if (!m.node_key.empty()) r.node_key[v] = node_new[m.node_key[o]];
  });
  // Cells.
  r.cell_type.resize(nc);
  r.cell_gid.resize(nc);
  r.cell_node_off.assign(std::size_t(nc) + 1, 0);
  host::parallel_for("fvproxy::mesh::permute_cell_sizes", nc, [&](std::int64_t c) {
    const index_t o = new_to_old[c];
    r.cell_type[c] = m.cell_type[o];
    r.cell_gid[c] = m.cell_gid[o];
    r.cell_node_off[c] = m.cell_node_off[o + 1] - m.cell_node_off[o];
  });
  r.cell_node_off[nc] = host::exclusive_scan(r.cell_node_off);
  r.cell_nodes.resize(m.cell_nodes.size());
  host::parallel_for("fvproxy::mesh::permute_cell_nodes", nc, [&](std::int64_t c) {
    const index_t o = new_to_old[c], b = m.cell_node_off[o], e = m.cell_node_off[o + 1];
    for (index_t k = b; k < e; ++k) r.cell_nodes[r.cell_node_off[c] + (k - b)] = node_new[m.cell_nodes[k]];
  });
  // Faces: renumber their cells and nodes; finalize_faces re-sorts them to follow the cells.
  r.face_node_off = m.face_node_off;
  r.face_nodes.resize(m.face_nodes.size());
  host::parallel_for("fvproxy::mesh::permute_face_nodes", std::int64_t(m.face_nodes.size()),
                     [&](std::int64_t k) { r.face_nodes[k] = node_new[m.face_nodes[k]]; });
  r.face_owner.resize(m.face_owner.size());
  r.face_neighbour.resize(m.face_neighbour.size());
  host::parallel_for("fvproxy::mesh::permute_faces", std::int64_t(m.face_owner.size()), [&](std::int64_t f) {
    r.face_owner[f] = old_to_new[m.face_owner[f]];
    r.face_neighbour[f] = m.face_neighbour[f] < 0 ? -1 : old_to_new[m.face_neighbour[f]];
  });
  r.face_shift = m.face_shift;
  r.shifts = m.shifts;
  r.n_interior = m.n_interior;
  r.patches = m.patches;
  finalize_faces(r);
  return r;
}

} // namespace fvproxy
