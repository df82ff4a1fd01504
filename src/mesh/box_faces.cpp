#include "mesh/box_faces.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "mesh/host_parallel.hpp"

namespace fvproxy {

namespace {

using Key = std::array<index_t, kMaxFaceNodes>;

/// Corner codes of local face lf of split cell s, sorted, padded with -1.
Key face_codes(const HexSplit& split, int s, int lf) {
  const LocalFace& f = element_info(split.type).faces[lf];
  Key k;
  k.fill(-1);
  for (int i = 0; i < f.n; ++i) k[i] = split.corner[s][f.nodes[i]];
  sort_face_key(k.data(), f.n);
  return k;
}

/// What lies across local face lf of split cell s: the face's corners all on one side of the hex
/// (a hex face), and the cell of the same hex or of the hex across with the same corners there.
HexSplit::Across find_across(const HexSplit& split, int s, int lf) {
  const int nf = element_info(split.type).n_faces;
  const int n = element_info(split.type).faces[lf].n;
  Key target = face_codes(split, s, lf);
  HexSplit::Across out;
  for (int a = 0; a < 3 && out.hex_face < 0; ++a) {
    int ones = 0;
    for (int i = 0; i < n; ++i) ones += (target[i] >> a) & 1;
    if (ones == 0 || ones == n) {
      out.hex_face = 2 * a + (ones == n ? 1 : 0);
      for (int i = 0; i < n; ++i) target[i] ^= 1 << a; // the same corners seen from the hex across
      sort_face_key(target.data(), n);
    }
  }
  for (int s2 = 0; s2 < split.n_cells; ++s2)
    for (int lf2 = 0; lf2 < nf; ++lf2)
      if ((out.hex_face >= 0 || s2 != s) && face_codes(split, s2, lf2) == target) {
        out.cell = s2, out.face = lf2;
        return out;
      }
  throw std::logic_error("fvproxy: a hex split's face has no cell across it");
}

HexSplit make_split(ElementKind kind) {
  HexSplit sp;
  if (kind == ElementKind::hex) {
    sp.type = CellType::hex, sp.n_cells = 1;
    sp.corner[0] = {0, 1, 3, 2, 4, 5, 7, 6};
  } else if (kind == ElementKind::prism) {
    sp.type = CellType::prism, sp.n_cells = 2;
    sp.corner[0] = {0, 1, 3, 4, 5, 7};
    sp.corner[1] = {0, 3, 2, 4, 7, 6};
  } else {
    // For each permutation (a,b,c) of the axes, the path 000 -> e_a -> e_a+e_b -> 111; the odd
    // permutations with their middle corners swapped (positive orientation).
    static constexpr int perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
    sp.type = CellType::tet, sp.n_cells = 6;
    for (int s = 0; s < 6; ++s) {
      const int c1 = 1 << perms[s][0], c2 = c1 | (1 << perms[s][1]);
      sp.corner[s] = {0, s >= 3 ? c2 : c1, s >= 3 ? c1 : c2, 7};
    }
  }
  for (int s = 0; s < sp.n_cells; ++s)
    for (int lf = 0; lf < element_info(sp.type).n_faces; ++lf) sp.across[s][lf] = find_across(sp, s, lf);
  return sp;
}

} // namespace

const HexSplit& hex_split(ElementKind kind) {
  static const HexSplit splits[3] = {make_split(ElementKind::hex), make_split(ElementKind::tet),
                                     make_split(ElementKind::prism)};
  return splits[kind == ElementKind::hex ? 0 : kind == ElementKind::tet ? 1 : 2];
}

namespace {

/// enumerate_box_faces' passes: interior faces counted per owner and written in (owner,
/// neighbour) order on the host threads; periodic translations numbered in the order of the
/// faces' sorted node keys (build_faces' order); boundary faces by (patch, owner, node keys).
struct BoxFaceEnumerator {
  HostMesh& m;
  const BoxConfig& cfg;
  const std::vector<gid_t>* hexes;
  const HexSplit& split;
  const HexPositions pos;
  const int per;
  int patch[3][2];
  const int cut;

  struct Link {
    index_t cell; ///< -1: a boundary face
    int face;     ///< its local face (interior)
    int patch;    ///< boundary: its patch
    bool wrapped; ///< interior: across a periodic axis' ends
  };

  BoxFaceEnumerator(HostMesh& m, const BoxConfig& cfg, const std::vector<gid_t>* hexes, int cut)
      : m(m), cfg(cfg), hexes(hexes), split(hex_split(cfg.element)),
        pos(hexes, gid_t(cfg.cells[0]) * cfg.cells[1] * cfg.cells[2]), per(split.n_cells), cut(cut) {
    int p = 0;
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) patch[a][side] = cfg.periodic[a] ? -1 : p++;
  }

  gid_t hex_at(index_t q) const { return hexes ? (*hexes)[std::size_t(q)] : gid_t(q); }

  Link across(index_t c, int lf) const {
    const index_t q = c / per;
    const int s = static_cast<int>(c % per);
    const HexSplit::Across& a = split.across[s][lf];
    if (a.hex_face < 0) return {q * per + a.cell, a.face, -1, false};
    const gid_t h = hex_at(q), nx = cfg.cells[0], ny = cfg.cells[1];
    gid_t ijk[3] = {h % nx, (h / nx) % ny, h / (nx * ny)};
    const int ax = a.hex_face / 2, side = a.hex_face % 2;
    gid_t v = ijk[ax] + (side ? 1 : -1);
    bool wrapped = false;
    if (v < 0 || v >= cfg.cells[ax]) {
      if (!cfg.periodic[ax]) return {-1, -1, patch[ax][side], false};
      v = v < 0 ? cfg.cells[ax] - 1 : 0, wrapped = true;
    }
    ijk[ax] = v;
    const index_t p = pos(ijk[0] + nx * (ijk[1] + ny * ijk[2]));
    if (p < 0) {
      if (cut < 0) throw std::logic_error("fvproxy: a whole box's cell face has nothing across it");
      return {-1, -1, cut, false};
    }
    return {p * per + a.cell, a.face, -1, wrapped};
  }

  int face_nodes(index_t c, int lf, index_t* out) const { return cell_face_nodes(m, c, lf, out); }

  Key face_key(index_t c, int lf) const {
    Key k;
    cell_face_key(m, c, lf, k.data());
    return k;
  }

  /// Interior faces: owner c's, ordered by neighbour. Returns the wrapped faces and their owners'
  /// local faces.
  std::vector<std::pair<index_t, int>> interior_faces() {
    const index_t nc = m.n_cells();
    const int nf = element_info(split.type).n_faces;
    std::vector<index_t> count(std::size_t(nc) + 1, 0), nodes(std::size_t(nc) + 1, 0);
    host::parallel_for("fvproxy::mesh::box_face_counts", nc, [&](std::int64_t c) {
      for (int lf = 0; lf < nf; ++lf)
        if (across(index_t(c), lf).cell > c) ++count[c], nodes[c] += element_info(split.type).faces[lf].n;
    });
    const index_t n_int = host::exclusive_scan(count), n_nodes = host::exclusive_scan(nodes);
    m.face_owner.assign(n_int, 0), m.face_neighbour.assign(n_int, 0), m.face_shift.assign(n_int, 0);
    m.face_node_off.assign(std::size_t(n_int) + 1, n_nodes), m.face_nodes.assign(n_nodes, 0);
    std::vector<std::int8_t> wrapped(n_int, -1); // the owner's local face of a wrapped face
    host::parallel_for("fvproxy::mesh::box_faces", nc, [&](std::int64_t c) {
      std::pair<Link, int> own[kMaxCellFaces]; // (what is across, local face)
      int n = 0;
      for (int lf = 0; lf < nf; ++lf) {
        const Link l = across(index_t(c), lf);
        if (l.cell > c) own[n++] = {l, lf};
      }
      for (int i = 1; i < n; ++i) // insertion sort by neighbour (a cell has at most 6 faces)
        for (int j = i; j > 0 && own[j].first.cell < own[j - 1].first.cell; --j) std::swap(own[j], own[j - 1]);
      index_t f = count[c], at = nodes[c];
      for (int i = 0; i < n; ++i, ++f) {
        m.face_owner[f] = index_t(c), m.face_neighbour[f] = own[i].first.cell;
        m.face_node_off[f] = at;
        at += face_nodes(index_t(c), own[i].second, m.face_nodes.data() + at);
        if (own[i].first.wrapped) wrapped[f] = static_cast<std::int8_t>(own[i].second);
      }
    });
    m.n_interior = n_int;
    std::vector<std::pair<index_t, int>> w;
    for (index_t f = 0; f < n_int; ++f)
      if (wrapped[f] >= 0) w.emplace_back(f, wrapped[f]);
    return w;
  }

  /// Translations of the wrapped faces `w`, numbered as build_faces numbers them: in the order of
  /// the faces' sorted node keys, each face's from its two sides' centres.
  void number_translations(const std::vector<std::pair<index_t, int>>& w) {
    const double tol = face_match_tolerance(m);
    struct Wrapped {
      Key key;
      index_t face;
      std::array<double, 3> t;
    };
    std::vector<Wrapped> ws(w.size());
    for (std::size_t i = 0; i < w.size(); ++i) {
      const index_t f = w[i].first, o = m.face_owner[f], nb = m.face_neighbour[f];
      const int lf = w[i].second;
      index_t on[kMaxFaceNodes], nn[kMaxFaceNodes];
      const int n = face_nodes(o, lf, on);
      const Link l = across(o, lf);
      face_nodes(nb, l.face, nn);
      const auto co = face_center(m, on, n), cn = face_center(m, nn, n);
      std::array<double, 3> t{co[0] - cn[0], co[1] - cn[1], co[2] - cn[2]};
      for (double& tk : t)
        if (std::abs(tk) <= tol) tk = 0.0;
      ws[i] = {face_key(o, lf), f, t};
    }
    std::sort(ws.begin(), ws.end(), [](const Wrapped& a, const Wrapped& b) { return a.key < b.key; });
    m.shifts.assign(1, {0.0, 0.0, 0.0});
    for (const Wrapped& x : ws) m.face_shift[x.face] = shift_index(m, x.t, tol);
  }

  /// Boundary faces after the interior ones: by patch, owner and sorted node keys.
  void boundary_faces(const std::vector<std::string>& names) {
    struct Bf {
      int patch;
      index_t owner;
      Key key;
      int face;
    };
    std::vector<Bf> b;
    const int nf = element_info(split.type).n_faces;
    for (index_t c = 0; c < m.n_cells(); ++c)
      for (int lf = 0; lf < nf; ++lf) {
        const Link l = across(c, lf);
        if (l.cell < 0) b.push_back({l.patch, c, face_key(c, lf), lf});
      }
    std::sort(b.begin(), b.end(), [](const Bf& x, const Bf& y) {
      return x.patch != y.patch ? x.patch < y.patch : x.owner != y.owner ? x.owner < y.owner : x.key < y.key;
    });
    std::vector<index_t> count(names.size(), 0);
    for (const Bf& x : b) ++count[std::size_t(x.patch)];
    m.patches.clear();
    for (std::size_t p = 0, k = std::size_t(m.n_interior); p < names.size(); k += std::size_t(count[p++]))
      m.patches.push_back({names[p], index_t(k), index_t(k + std::size_t(count[p]))});
    std::size_t n_nodes = m.face_nodes.size(); // reserved exactly: no doubled capacity
    for (const Bf& x : b) n_nodes += std::size_t(element_info(split.type).faces[x.face].n);
    m.face_nodes.reserve(n_nodes), m.face_node_off.reserve(m.face_node_off.size() + b.size());
    m.face_owner.reserve(m.face_owner.size() + b.size()), m.face_neighbour.reserve(m.face_owner.capacity());
    m.face_shift.reserve(m.face_owner.capacity());
    for (const Bf& x : b) {
      index_t nd[kMaxFaceNodes];
      const int n = face_nodes(x.owner, x.face, nd);
      m.face_nodes.insert(m.face_nodes.end(), nd, nd + n);
      m.face_node_off.push_back(static_cast<index_t>(m.face_nodes.size()));
      m.face_owner.push_back(x.owner), m.face_neighbour.push_back(-1), m.face_shift.push_back(0);
    }
  }
};

} // namespace

void enumerate_box_faces(HostMesh& m, const BoxConfig& cfg, const std::vector<gid_t>* hexes,
                         const std::vector<std::string>& names, int cut_patch) {
  BoxFaceEnumerator e(m, cfg, hexes, cut_patch);
  e.number_translations(e.interior_faces());
  e.boundary_faces(names);
  build_cell_faces(m);
}

} // namespace fvproxy
