#include "mesh/box_generator.hpp"

#include <algorithm>
#include <limits>

#include "mesh/box_faces.hpp"
#include "mesh/host_parallel.hpp"
#include "mesh/random.hpp"

namespace fvproxy {

namespace {

struct BoxIndex {
  std::array<int, 3> n; // cells per axis
  index_t node(int i, int j, int k) const {
    return static_cast<index_t>(i + (n[0] + 1) * (j + static_cast<std::int64_t>(n[1] + 1) * k));
  }
  std::array<int, 3> ijk(index_t node) const {
    const int i = node % (n[0] + 1);
    const int r = node / (n[0] + 1);
    return {i, r % (n[1] + 1), r / (n[1] + 1)};
  }
};

const char* kPatchNames[6] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};

class BoxClassifier final : public BoundaryClassifier {
public:
  /// `cut`: the patch of faces on no box side (a piece's outer faces), -1 when there are none.
  BoxClassifier(const BoxIndex& idx, const BoxConfig& cfg, int cut = -1) : idx_(idx), cut_(cut) {
    int p = 0;
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) patch_[a][side] = cfg.periodic[a] ? -1 : p++;
  }
  int patch_of(const HostMesh& m, const index_t* nodes, int n) const override {
    // All nodes of the face on one boundary plane (node ijk from the global id: a piece's nodes
    // are numbered locally).
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        const int plane = side == 0 ? 0 : idx_.n[a];
        bool all = true;
        for (int i = 0; i < n && all; ++i) all = idx_.ijk(static_cast<index_t>(m.node_gid[nodes[i]]))[a] == plane;
        if (all && patch_[a][side] >= 0) return patch_[a][side];
      }
    return cut_;
  }
  std::string where() const override { return "(generated box: the face lies on no box side)"; }

private:
  BoxIndex idx_;
  int cut_;
  int patch_[3][2];
};

} // namespace

std::vector<std::string> box_patch_names(const BoxConfig& cfg) {
  std::vector<std::string> names;
  for (int a = 0; a < 3; ++a)
    if (!cfg.periodic[a]) names.emplace_back(kPatchNames[2 * a]), names.emplace_back(kPatchNames[2 * a + 1]);
  return names;
}

namespace {

/// The box's hexes `hexes` (all of them when null) and what box_cells builds of them.
struct BoxCells {
  const BoxConfig& cfg;
  const std::vector<gid_t>* hexes;
  const BoxIndex idx;
  const int nx, ny, nz;
  const double h[3];
  const std::size_t nhex;
  std::vector<index_t> nodes;                    // global node index of each local node
  SortedPositions<index_t> node_pos{nullptr, 0}; // a piece's: the local number of a global node

  BoxCells(const BoxConfig& cfg, const std::vector<gid_t>* hexes)
      : cfg(cfg), hexes(hexes), idx{cfg.cells}, nx(cfg.cells[0]), ny(cfg.cells[1]),
        nz(cfg.cells[2]), h{cfg.lengths[0] / nx, cfg.lengths[1] / ny, cfg.lengths[2] / nz},
        nhex(hexes ? hexes->size() : std::size_t(nx) * ny * nz) {}

  gid_t hex_at(std::size_t k) const { return hexes ? (*hexes)[k] : gid_t(k); }

  /// Node v, or its periodic partner on the low side where v is on a periodic axis' high plane.
  index_t wrapped(index_t v) const {
    const auto ijk = idx.ijk(v);
    int w[3] = {ijk[0], ijk[1], ijk[2]};
    for (int a = 0; a < 3; ++a)
      if (cfg.periodic[a] && ijk[a] == cfg.cells[a]) w[a] = 0;
    return idx.node(w[0], w[1], w[2]);
  }

  /// The local number of global node v (a piece's node: its position in `nodes`).
  index_t local(index_t v) const { return hexes ? node_pos(v) : v; }

  /// Calls f(v) for each corner of the piece's hexes and its periodic partner (with repeats).
  template <class F> void for_corners(const F& f) const {
    for (std::size_t k = 0; k < nhex; ++k) {
      const gid_t hx = hex_at(k);
      const int i = int(hx % nx), j = int((hx / nx) % ny), l = int(hx / (gid_t(nx) * ny));
      for (int c = 0; c < 8; ++c) {
        const index_t v = idx.node(i + (c & 1), j + ((c >> 1) & 1), l + ((c >> 2) & 1));
        f(v);
        f(wrapped(v));
      }
    }
  }

  /// Nodes: the corners of the hexes and their periodic partners, ascending, and their local
  /// numbers by global id (node_pos: a table over their span, or a binary search).
  void collect_nodes() {
    index_t lo = std::numeric_limits<index_t>::max(), hi = -1;
    for_corners([&](index_t v) { lo = std::min(lo, v), hi = std::max(hi, v); });
    if (hi < lo) return;
    const std::size_t span = std::size_t(hi - lo) + 1;
    std::vector<char> used(span, 0); // marks instead of sorting 16 entries per hex
    for_corners([&](index_t v) { used[std::size_t(v - lo)] = 1; });
    for (std::size_t u = 0; u < span; ++u)
      if (used[u]) nodes.push_back(lo + static_cast<index_t>(u));
    node_pos = SortedPositions<index_t>(&nodes, 0);
  }

  /// The nodes' global ids, keys (shared by periodic partners) and positions.
  void place_nodes(HostMesh& m) const {
    const std::size_t nn = hexes ? nodes.size() : std::size_t(nx + 1) * (ny + 1) * (nz + 1);
    m.x.resize(3 * nn);
    m.node_gid.resize(nn);
    m.node_key.resize(nn);
    host::parallel_for("fvproxy::mesh::box_nodes", std::int64_t(nn), [&](std::int64_t u) {
      const index_t v = hexes ? nodes[u] : static_cast<index_t>(u);
      const auto ijk = idx.ijk(v);
      const index_t key = wrapped(v);
      m.node_gid[u] = v;
      m.node_key[u] = local(key);
      for (int a = 0; a < 3; ++a) {
        double x = cfg.origin[a] + ijk[a] * h[a];
        // Jitter from the partner-shared key: periodic partners move identically. Nodes on a
        // boundary plane of axis a do not move along a (volumes and periodic matching stay exact).
        const bool on_plane = ijk[a] == 0 || ijk[a] == cfg.cells[a];
        if (cfg.perturb > 0 && !on_plane)
          x += cfg.perturb * h[a] * uniform_pm1(cfg.seed, static_cast<std::uint64_t>(key) * 3 + a);
        m.x[3 * u + a] = x;
      }
    });
  }

  /// Every hex's cells, in hex order: hex q's cells at q * n (the split's n cells), on the host
  /// threads.
  void add_cells(HostMesh& m) const {
    const HexSplit& sp = hex_split(cfg.element);
    const int per = sp.n_cells, nn = element_info(sp.type).n_nodes;
    const std::size_t nc = nhex * std::size_t(per);
    m.cell_type.assign(nc, sp.type);
    m.cell_gid.resize(nc);
    m.cell_node_off.resize(nc + 1);
    m.cell_nodes.resize(nc * std::size_t(nn));
    host::parallel_for("fvproxy::mesh::box_cells", std::int64_t(nhex), [&](std::int64_t q) {
      const gid_t hid = hex_at(std::size_t(q));
      const int i = int(hid % nx), j = int((hid / nx) % ny), k = int(hid / (gid_t(nx) * ny));
      for (int s = 0; s < per; ++s) {
        const std::size_t c = std::size_t(q) * per + s;
        m.cell_gid[c] = hid * per + s;
        m.cell_node_off[c] = static_cast<index_t>(c * nn);
        for (int n = 0; n < nn; ++n) {
          const int code = sp.corner[s][n];
          m.cell_nodes[c * nn + n] = local(idx.node(i + (code & 1), j + ((code >> 1) & 1), k + ((code >> 2) & 1)));
        }
      }
    });
    m.cell_node_off[nc] = static_cast<index_t>(nc * nn);
  }
};

/// The box's cells of `hexes` (ascending hex ids) and their nodes, numbered in ascending global
/// id (all of them when `hexes` is null: node index = global id); with `cut`, the faces on no box
/// side go to a last patch named kBoxCutPatch instead of being an error.
HostMesh box_cells(const BoxConfig& cfg, const std::vector<gid_t>* hexes, bool cut, BoxFaces faces) {
  BoxCells b(cfg, hexes);
  HostMesh m;
  if (hexes) b.collect_nodes();
  b.place_nodes(m);
  b.add_cells(m);
  std::vector<std::string> names = box_patch_names(cfg);
  const int cut_patch = cut ? static_cast<int>(names.size()) : -1;
  if (cut) names.emplace_back(kBoxCutPatch);
  // Enumerated per hex unless asked otherwise or a periodic axis has fewer than 3 hexes (then
  // two faces may join the same cells, or a cell itself: build_faces reports it).
  bool enumerate = faces == BoxFaces::enumerate;
  for (int a = 0; a < 3; ++a) enumerate = enumerate && (!cfg.periodic[a] || cfg.cells[a] >= 3);
  if (enumerate)
    enumerate_box_faces(m, cfg, hexes, names, cut_patch);
  else
    build_faces(m, names, BoxClassifier(b.idx, cfg, cut_patch));
  return m;
}

} // namespace

HostMesh generate_box(const BoxConfig& cfg, BoxFaces faces) {
  return box_cells(cfg, nullptr, false, faces);
}

HostMesh generate_box_piece(const BoxConfig& cfg, const std::vector<gid_t>& hexes, BoxFaces faces) {
  return box_cells(cfg, &hexes, true, faces);
}

} // namespace fvproxy
