#include "mesh/box_generator.hpp"

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
  BoxClassifier(const BoxIndex& idx, const BoxConfig& cfg) : idx_(idx) {
    int p = 0;
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) patch_[a][side] = cfg.periodic[a] ? -1 : p++;
  }
  int patch_of(const HostMesh&, const index_t* nodes, int n) const override {
    // All nodes of the face on one boundary plane.
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        const int plane = side == 0 ? 0 : idx_.n[a];
        bool all = true;
        for (int i = 0; i < n && all; ++i) all = idx_.ijk(nodes[i])[a] == plane;
        if (all) return patch_[a][side];
      }
    return -1;
  }
  std::string where() const override { return "(generated box: the face lies on no box side)"; }

private:
  BoxIndex idx_;
  int patch_[3][2];
};

} // namespace

std::vector<std::string> box_patch_names(const BoxConfig& cfg) {
  std::vector<std::string> names;
  for (int a = 0; a < 3; ++a)
    if (!cfg.periodic[a]) names.emplace_back(kPatchNames[2 * a]), names.emplace_back(kPatchNames[2 * a + 1]);
  return names;
}

HostMesh generate_box(const BoxConfig& cfg) {
  const BoxIndex idx{cfg.cells};
  const int nx = cfg.cells[0], ny = cfg.cells[1], nz = cfg.cells[2];
  const double h[3] = {cfg.lengths[0] / nx, cfg.lengths[1] / ny, cfg.lengths[2] / nz};
  HostMesh m;
  const std::size_t nn = std::size_t(nx + 1) * (ny + 1) * (nz + 1);
  m.x.resize(3 * nn);
  m.node_gid.resize(nn);
  m.node_key.resize(nn);
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i) {
        const index_t v = idx.node(i, j, k);
        const int ijk[3] = {i, j, k};
        int wrapped[3] = {i, j, k};
        for (int a = 0; a < 3; ++a)
          if (cfg.periodic[a] && ijk[a] == cfg.cells[a]) wrapped[a] = 0;
        const index_t key = idx.node(wrapped[0], wrapped[1], wrapped[2]);
        m.node_gid[v] = v;
        m.node_key[v] = key;
        for (int a = 0; a < 3; ++a) {
          double x = cfg.origin[a] + ijk[a] * h[a];
          // Jitter from the partner-shared key: periodic partners move identically. Nodes on a
          // boundary plane of axis a do not move along a (volumes and periodic matching stay exact).
          const bool on_plane = ijk[a] == 0 || ijk[a] == cfg.cells[a];
          if (cfg.perturb > 0 && !on_plane)
            x += cfg.perturb * h[a] * uniform_pm1(cfg.seed, static_cast<std::uint64_t>(key) * 3 + a);
          m.x[3 * std::size_t(v) + a] = x;
        }
      }

  const std::size_t nhex = std::size_t(nx) * ny * nz;
  const int per = cfg.element == ElementKind::tet ? 6 : cfg.element == ElementKind::prism ? 2 : 1;
  m.cell_type.reserve(nhex * per);
  m.cell_gid.reserve(nhex * per);
  m.cell_node_off.reserve(nhex * per + 1);
  m.cell_nodes.reserve(nhex * per * (cfg.element == ElementKind::hex ? 8 : cfg.element == ElementKind::tet ? 4 : 6));
  // Tet split: for each permutation (a,b,c) of the axes, the path 000 -> e_a -> e_a+e_b -> 111.
  static constexpr int perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const gid_t hid = i + gid_t(nx) * (j + gid_t(ny) * k);
        auto corner = [&](int dx, int dy, int dz) { return idx.node(i + dx, j + dy, k + dz); };
        const index_t v[8] = {corner(0, 0, 0), corner(1, 0, 0), corner(1, 1, 0), corner(0, 1, 0),
                              corner(0, 0, 1), corner(1, 0, 1), corner(1, 1, 1), corner(0, 1, 1)};
        if (cfg.element == ElementKind::hex) {
          m.add_cell(CellType::hex, v, hid);
        } else if (cfg.element == ElementKind::prism) {
          const index_t p0[6] = {v[0], v[1], v[2], v[4], v[5], v[6]};
          const index_t p1[6] = {v[0], v[2], v[3], v[4], v[6], v[7]};
          m.add_cell(CellType::prism, p0, 2 * hid);
          m.add_cell(CellType::prism, p1, 2 * hid + 1);
        } else {
          for (int s = 0; s < 6; ++s) {
            int d[3] = {0, 0, 0};
            index_t t[4];
            t[0] = corner(0, 0, 0);
            for (int q = 0; q < 2; ++q) {
              d[perms[s][q]] = 1;
              t[q + 1] = corner(d[0], d[1], d[2]);
            }
            t[3] = corner(1, 1, 1);
            if (s >= 3) std::swap(t[1], t[2]); // odd permutations: restore positive orientation
            m.add_cell(CellType::tet, t, 6 * hid + s);
          }
        }
      }
  build_faces(m, box_patch_names(cfg), BoxClassifier(idx, cfg));
  return m;
}

} // namespace fvproxy
