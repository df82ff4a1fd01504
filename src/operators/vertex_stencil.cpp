#include "operators/vertex_stencil.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>

#include "core/error.hpp"
#include "mesh/host_parallel.hpp"

namespace fvproxy {

namespace {

template <class V> std::size_t stencil_bytes(const V& v) {
  return v.span() * sizeof(typename V::value_type);
}

struct UnionFind {
  std::vector<index_t> parent;
  explicit UnionFind(index_t n) : parent(static_cast<std::size_t>(n)) {
    std::iota(parent.begin(), parent.end(), index_t(0));
  }
  index_t find(index_t a) {
    while (parent[a] != a) a = parent[a] = parent[parent[a]];
    return a;
  }
  void unite(index_t a, index_t b) {
    a = find(a), b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};

/// A compressed sparse row list.
struct Csr {
  std::vector<index_t> off, item;
};

template <class Pairs> Csr make_csr(index_t n, const Pairs& pairs) {
  Csr c;
  c.off.assign(static_cast<std::size_t>(n) + 1, 0);
  for (const auto& p : pairs) ++c.off[p.first + 1];
  std::partial_sum(c.off.begin(), c.off.end(), c.off.begin());
  c.item.resize(pairs.size());
  std::vector<index_t> at(c.off.begin(), c.off.end() - 1);
  for (const auto& p : pairs) c.item[at[p.first]++] = p.second;
  return c;
}

/// A mirror plane through a node: its patch, the point and the unit normal (the patch's faces at
/// the node, area-weighted: a planar patch's own plane).
struct NodePlane {
  int patch;
  std::array<double, 3> point, normal;
};

/// One extra entry of a cell: what identifies it (images last, then the cell, the mirror patches,
/// the translation in units of the tolerance) and where it sits.
struct Entry {
  bool image = false;
  index_t cell = 0;
  gid_t gid = 0; ///< the cell's global id: the order of a cell's entries on any rank count
  std::array<int, 3> patches{{-1, -1, -1}};
  std::array<long long, 3> t{{0, 0, 0}};
  /// An image: the global id of the node whose planes mirror it. A curved wall's planes differ from
  /// node to node, so one cell has images of one key at several places: the smallest id's is kept
  /// (the same on any ordering and rank count; before 2026-11-30 the first found, which an ordering
  /// changed: the cylinder's answer moved by 3e-4 with mesh.reorder).
  gid_t via = 0;
  std::array<double, 3> x{}, shift{};
  std::array<NodePlane, 3> planes{};
  bool same_key(const Entry& o) const { return image == o.image && cell == o.cell && patches == o.patches && t == o.t; }
  bool operator<(const Entry& o) const {
    if (image != o.image) return !image;
    if (gid != o.gid) return gid < o.gid;
    if (patches != o.patches) return patches < o.patches;
    if (t != o.t) return t < o.t;
    return via < o.via;
  }
};

/// The host copies of the device mesh the builder reads.
template <class T> using Host1 = Kokkos::View<T*, Kokkos::LayoutLeft, HostSpace>;
using Host3 = Kokkos::View<real* [3], Kokkos::LayoutLeft, HostSpace>;

template <class V> auto host_copy(const V& v) {
  return Kokkos::create_mirror_view_and_copy(HostSpace(), v);
}

struct HostConnectivity {
  Host1<index_t> cell_node_off, cell_nodes, cell_face_off, cell_faces, face_node_off, face_nodes, owner, neighbour;
  Host1<std::int8_t> sign;
  Host1<std::uint8_t> face_shift;
  Host1<gid_t> cell_gid, node_gid;
  Host3 x, C, S, T;
  explicit HostConnectivity(const Mesh& m)
      : cell_node_off(host_copy(m.cell_node_off)), cell_nodes(host_copy(m.cell_nodes)),
        cell_face_off(host_copy(m.cell_face_off)), cell_faces(host_copy(m.cell_faces)),
        face_node_off(host_copy(m.face_node_off)), face_nodes(host_copy(m.face_nodes)), owner(host_copy(m.face_owner)),
        neighbour(host_copy(m.face_neighbour)), sign(host_copy(m.cell_face_sign)), face_shift(host_copy(m.face_shift)),
        cell_gid(host_copy(m.cell_gid)), node_gid(host_copy(m.node_gid)), x(host_copy(m.node_x)),
        C(host_copy(m.centroid)), S(host_copy(m.face_area)), T(host_copy(m.shifts)) {}
};

class StencilBuilder {
public:
  StencilBuilder(const Mesh& m, const std::vector<bool>& mirror, bool corners_only)
      : m_(m), h_(m), mirror_(mirror), corners_only_(corners_only) {
    translation_quantum();
    node_cells();
    periodic_classes();
    node_planes();
  }

  /// The cell's extra entries, sorted and unique (none for a cell at no corner with corners_only).
  std::vector<Entry> entries(index_t c) const {
    if (corners_only_ && !at_corner(c)) return {};
    std::vector<Entry> excluded = face_keys(c), out;
    for (index_t q = h_.cell_node_off(c); q < h_.cell_node_off(c + 1); ++q) {
      const index_t a = h_.cell_nodes(q), r = root_[a];
      for (index_t k = cls_.off[r]; k < cls_.off[r + 1]; ++k) add_through(c, a, cls_.item[k], excluded, out);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end(), [](const Entry& p, const Entry& q) { return p.same_key(q); }),
              out.end());
    return out;
  }

  /// Whether a node of c lies on two or more mirror patches (an edge or corner where their planes meet).
  bool at_corner(index_t c) const {
    for (index_t q = h_.cell_node_off(c); q < h_.cell_node_off(c + 1); ++q)
      if (planes_[h_.cell_nodes(q)].size() >= 2) return true;
    return false;
  }

  std::array<long long, 3> quantize(const double (&v)[3]) const {
    std::array<long long, 3> t{};
    for (int i = 0; i < 3; ++i) t[i] = std::llround(v[i] / quantum_);
    return t;
  }

private:
  /// The unit in which translations are compared: 1e-7 of the largest periodic translation (the
  /// same table on every rank), 1 without any (every translation is then 0).
  void translation_quantum() {
    double l = 0;
    for (index_t k = 0; k < static_cast<index_t>(h_.T.extent(0)); ++k)
      for (int i = 0; i < 3; ++i) l = std::max(l, std::abs(double(h_.T(k, i))));
    quantum_ = 1e-7 * (l > 0 ? l : 1);
  }

  /// Every local cell at each of its nodes (a ghost's too: a gradient cell's vertex neighbours may be
  /// ghosts; with vertex ghost layers all of them are here).
  void node_cells() {
    std::vector<std::pair<index_t, index_t>> pairs;
    for (index_t c = 0; c < m_.n_local(); ++c)
      for (index_t q = h_.cell_node_off(c); q < h_.cell_node_off(c + 1); ++q) pairs.emplace_back(h_.cell_nodes(q), c);
    node_cells_ = make_csr(static_cast<index_t>(h_.x.extent(0)), pairs);
  }

  /// The node of cell `cell` at x + t (within the face's size), -1 when none.
  index_t partner(index_t cell, const double (&p)[3], double tol) const {
    for (index_t q = h_.cell_node_off(cell); q < h_.cell_node_off(cell + 1); ++q) {
      const index_t b = h_.cell_nodes(q);
      double d = 0;
      for (int i = 0; i < 3; ++i) d = std::max(d, std::abs(h_.x(b, i) - p[i]));
      if (d <= tol) return b;
    }
    return -1;
  }

  /// Nodes that are one point of the periodic domain, as classes: those sharing a node key
  /// (HostMesh::node_key: a local mesh lacks the periodic faces between two ghosts), else the two
  /// sides of each periodic face.
  void periodic_classes() {
    const index_t nn = static_cast<index_t>(h_.x.extent(0));
    UnionFind uf(nn);
    if (m_.node_key && !m_.node_key->empty()) {
      for (index_t n = 0; n < nn; ++n) uf.unite(n, (*m_.node_key)[std::size_t(n)]);
      classes_from(uf, nn);
      return;
    }
    for (index_t f = 0; f < m_.n_all_faces; ++f) {
      const int s = f < m_.n_interior || f >= m_.outer_begin ? h_.face_shift(f) : 0; // interior faces
      if (s == 0) continue;
      const index_t o = h_.owner(f), nb = h_.neighbour(f);
      const double tol =
          1e-6 * std::sqrt(std::sqrt(h_.S(f, 0) * h_.S(f, 0) + h_.S(f, 1) * h_.S(f, 1) + h_.S(f, 2) * h_.S(f, 2)));
      for (index_t q = h_.face_node_off(f); q < h_.face_node_off(f + 1); ++q) {
        const index_t a = h_.face_nodes(q);
        // x_neighbour + T lies next to the owner: an owner node a has its partner at x_a - T
        double p[3], p2[3];
        for (int i = 0; i < 3; ++i) p[i] = h_.x(a, i) - h_.T(s, i), p2[i] = h_.x(a, i) + h_.T(s, i);
        index_t b = partner(nb, p, tol);
        if (b < 0) b = partner(o, p2, tol);
        if (b < 0)
          throw InputError("operators.muscl.stencil", "vertex: no periodic partner of a node of face " +
                                                          std::to_string(f) + " (a non-conforming periodic mesh)");
        uf.unite(a, b);
      }
    }
    classes_from(uf, nn);
  }

  /// Each class under its root, every node in one (itself alone where it has no partner).
  void classes_from(UnionFind& uf, index_t nn) {
    root_.resize(static_cast<std::size_t>(nn));
    std::vector<std::pair<index_t, index_t>> members;
    for (index_t n = 0; n < nn; ++n) members.emplace_back(root_[n] = uf.find(n), n);
    cls_ = make_csr(nn, members);
  }

  /// A face's key on any rank: its nodes' global ids, ascending.
  std::array<gid_t, kMaxFaceNodes> face_key(index_t f) const {
    std::array<gid_t, kMaxFaceNodes> k;
    k.fill(-1);
    int n = 0;
    for (index_t q = h_.face_node_off(f); q < h_.face_node_off(f + 1) && n < kMaxFaceNodes; ++q) {
      int j = n++; // insertion sort of at most four ids (std::sort here trips g++ 12's -Warray-bounds)
      for (const gid_t v = h_.node_gid(h_.face_nodes(q)); j > 0 && v < k[std::size_t(j - 1)]; --j)
        k[std::size_t(j)] = k[std::size_t(j - 1)];
      k[std::size_t(j)] = h_.node_gid(h_.face_nodes(q));
    }
    return k;
  }

  /// Each mirror patch's plane at each of its nodes: the area-weighted normal of its faces there, the
  /// owned cells' and the ghosts' (layer1_patches), summed in the order of their face keys so that
  /// every rank holding them all gets the same bits.
  void node_planes() {
    planes_.assign(h_.x.extent(0), {});
    for (std::size_t p = 0; p < m_.patches.size() && p < mirror_.size(); ++p) {
      if (!mirror_[p]) continue;
      std::vector<std::pair<std::array<gid_t, kMaxFaceNodes>, index_t>> faces;
      for (const std::vector<Patch>* patches : {&m_.patches, &m_.layer1_patches})
        if (p < patches->size())
          for (index_t f = (*patches)[p].begin; f < (*patches)[p].end; ++f) faces.emplace_back(face_key(f), f);
      std::sort(faces.begin(), faces.end());
      for (const auto& kf : faces) {
        const index_t f = kf.second;
        for (index_t q = h_.face_node_off(f); q < h_.face_node_off(f + 1); ++q) {
          std::vector<NodePlane>& at = planes_[h_.face_nodes(q)];
          if (at.empty() || at.back().patch != static_cast<int>(p)) at.push_back({static_cast<int>(p), {}, {0, 0, 0}});
          for (int i = 0; i < 3; ++i) at.back().normal[i] += h_.S(f, i);
        }
      }
    }
    for (std::size_t n = 0; n < planes_.size(); ++n)
      for (NodePlane& pl : planes_[n]) {
        const double a =
            std::sqrt(pl.normal[0] * pl.normal[0] + pl.normal[1] * pl.normal[1] + pl.normal[2] * pl.normal[2]);
        for (int i = 0; i < 3; ++i) pl.normal[i] /= a, pl.point[i] = h_.x(static_cast<index_t>(n), i);
      }
  }

  /// The keys already in the face stencil: the face neighbours (with their translation) and the
  /// cell's own mirror image about each wall it has a face on.
  std::vector<Entry> face_keys(index_t c) const {
    std::vector<Entry> keys;
    for (index_t q = h_.cell_face_off(c); q < h_.cell_face_off(c + 1); ++q) {
      const index_t f = h_.cell_faces(q);
      Entry e;
      if (f < m_.n_interior || f >= m_.outer_begin) { // interior (ghost-ghost faces: from outer_begin)
        const double s = h_.sign(q);
        e.cell = s > 0 ? h_.neighbour(f) : h_.owner(f);
        double t[3];
        for (int i = 0; i < 3; ++i) t[i] = s * h_.T(h_.face_shift(f), i);
        e.t = quantize(t);
      } else {
        const int p = patch_of(f);
        if (p < 0 || p >= static_cast<int>(mirror_.size()) || !mirror_[p]) continue;
        e.image = true, e.cell = c, e.patches = {{p, -1, -1}};
      }
      keys.push_back(e);
    }
    return keys;
  }

  int patch_of(index_t f) const {
    for (const std::vector<Patch>* patches : {&m_.patches, &m_.layer1_patches})
      for (std::size_t p = 0; p < patches->size(); ++p)
        if (f >= (*patches)[p].begin && f < (*patches)[p].end) return static_cast<int>(p);
    return -1;
  }

  /// The entries through node `a` of c, seen at its periodic partner `mn` (a itself when none).
  void add_through(index_t c, index_t a, index_t mn, const std::vector<Entry>& excluded,
                   std::vector<Entry>& out) const {
    double o[3];
    for (int i = 0; i < 3; ++i) o[i] = h_.x(a, i) - h_.x(mn, i);
    const std::array<long long, 3> t = quantize(o);
    const std::vector<NodePlane>& pl = planes_[mn];
    const int k = static_cast<int>(pl.size());
    if (k > 6)
      throw InputError("operators.muscl.stencil",
                       "vertex: a node lies on " + std::to_string(k) + " wall or symmetry patches (at most 6)");
    for (int mask = 0; mask < (1 << k); ++mask) {
      if (__builtin_popcount(static_cast<unsigned>(mask)) > 3) continue;
      Entry e;
      e.image = mask != 0;
      e.t = t;
      e.via = e.image ? h_.node_gid(mn) : 0;
      int np = 0;
      for (int b = 0; b < k; ++b)
        if (mask & (1 << b)) e.planes[np] = pl[b], e.patches[np++] = pl[b].patch;
      for (index_t q = node_cells_.off[mn]; q < node_cells_.off[mn + 1]; ++q) {
        e.cell = node_cells_.item[q];
        e.gid = h_.cell_gid(e.cell);
        if (!e.image && e.cell == c && t == std::array<long long, 3>{{0, 0, 0}}) continue;
        if (std::any_of(excluded.begin(), excluded.end(), [&](const Entry& x) { return x.same_key(e); })) continue;
        double x[3] = {h_.C(e.cell, 0), h_.C(e.cell, 1), h_.C(e.cell, 2)};
        for (int j = 0; j < np; ++j) {
          const NodePlane& p = e.planes[j];
          const double dn =
              (x[0] - p.point[0]) * p.normal[0] + (x[1] - p.point[1]) * p.normal[1] + (x[2] - p.point[2]) * p.normal[2];
          for (int i = 0; i < 3; ++i) x[i] -= 2 * dn * p.normal[i];
        }
        for (int i = 0; i < 3; ++i) e.x[i] = x[i] + o[i], e.shift[i] = o[i];
        out.push_back(e);
      }
    }
  }

  const Mesh& m_;
  HostConnectivity h_;
  const std::vector<bool>& mirror_;
  bool corners_only_ = false; ///< operators.muscl.stencil: corners
  double quantum_ = 1;
  Csr node_cells_, cls_;
  std::vector<index_t> root_;
  std::vector<std::vector<NodePlane>> planes_;
};

} // namespace

std::size_t VertexStencil::memory_bytes() const {
  return stencil_bytes(off) + stencil_bytes(image_begin) + stencil_bytes(index) + stencil_bytes(shift) +
         stencil_bytes(shifts) + stencil_bytes(image_x) + stencil_bytes(image_cell) + stencil_bytes(image_patch) +
         stencil_bytes(image_normal) + stencil_bytes(cells) + stencil_bytes(row);
}

std::string stencil_note(const VertexStencil& s, index_t cells) {
  if (!s.vertex) return "";
  char b[128];
  if (s.corners)
    std::snprintf(b, sizeof b, " + corners stencil (%lld entries at %lld of %lld cells, %lld mirror images)",
                  static_cast<long long>(s.n_entries), static_cast<long long>(s.n_stencil_cells),
                  static_cast<long long>(cells), static_cast<long long>(s.n_images));
  else
    std::snprintf(b, sizeof b, " + vertex stencil (%.1f entries per cell, %lld mirror images)",
                  cells > 0 ? double(s.n_entries) / cells : 0.0, static_cast<long long>(s.n_images));
  return b;
}

double stencil_memory_estimate(Stencil s, double cells, double faces) {
  if (s != Stencil::vertex || cells <= 0) return 0; // corners: the cells at edges of mirror planes only
  const double per_cell = faces / cells, entries = per_cell < 2.25 ? 66 : per_cell < 2.75 ? 33 : 20;
  return cells * (entries * (sizeof(index_t) + 1) + 2 * sizeof(index_t));
}

VertexStencil face_stencil(const Mesh& m) {
  VertexStencil s;
  const index_t nc = m.n_gradient_cells();
  s.off = View1<index_t>("fvproxy::operators::stencil_off", nc + 1);
  s.image_begin = View1<index_t>("fvproxy::operators::stencil_image_begin", nc);
  s.index = View1<index_t>("fvproxy::operators::stencil_index", 0);
  s.shift = View1<std::uint8_t>("fvproxy::operators::stencil_shift", 0);
  s.shifts = Vec3View<real>("fvproxy::operators::stencil_shifts", 1);
  s.image_x = Vec3View<real>("fvproxy::operators::stencil_image_x", 0);
  s.image_cell = View1<index_t>("fvproxy::operators::stencil_image_cell", 0);
  s.image_patch = View2<index_t>("fvproxy::operators::stencil_image_patch", 0, 3);
  s.image_normal = View2<real>("fvproxy::operators::stencil_image_normal", 0, 9);
  s.first_row = m.n_boundary_rows();
  return s;
}

namespace {

/// The stencil numbered on the host: the CSR of every cell's entries, the translations, the images.
/// Built on the host threads in two passes over the cells (each cell's entries made twice: counted,
/// then written at their offsets), so the result does not depend on the threads: the translations
/// in the order of their keys (the zero translation first; each one's value from the lowest cell
/// that has it), the owned cells' mirror images first (filled before the state's exchange), then
/// the ghosts', each in cell order.
struct HostStencil {
  std::vector<index_t> off, image_begin, index;
  std::vector<std::uint8_t> shift;
  std::vector<std::array<long long, 3>> shift_keys;
  std::vector<std::array<double, 3>> shift_values;
  std::vector<Entry> images;
  index_t n_owned_images = 0;

  HostStencil(const StencilBuilder& builder, index_t nc, index_t n_owned, index_t first_row)
      : off(static_cast<std::size_t>(nc) + 1, 0), image_begin(static_cast<std::size_t>(nc)) {
    std::vector<index_t> owned_images(std::size_t(nc) + 1, 0), ghost_images(std::size_t(nc) + 1, 0);
    count(builder, nc, n_owned, owned_images, ghost_images);
    host::exclusive_scan(off);
    n_owned_images = host::exclusive_scan(owned_images);
    const index_t n_ghost_images = host::exclusive_scan(ghost_images);
    index.resize(std::size_t(off[nc]));
    shift.resize(std::size_t(off[nc]));
    images.resize(std::size_t(n_owned_images + n_ghost_images));
    host::parallel_for("fvproxy::operators::stencil_fill", nc, [&](std::int64_t i) {
      const index_t c = static_cast<index_t>(i);
      index_t q = off[c], plain = 0, o = owned_images[c], g = n_owned_images + ghost_images[c];
      for (const Entry& e : builder.entries(c)) { // the plain entries first, then the images
        if (e.image) {
          const index_t k = e.cell < n_owned ? o++ : g++;
          index[q] = first_row + k, shift[q] = 0, images[std::size_t(k)] = e;
        } else {
          index[q] = e.cell, shift[q] = shift_index(e.t), ++plain;
        }
        ++q;
      }
      image_begin[c] = off[c] + plain;
    });
  }

private:
  /// Pass 1: each cell's entries (off[c]) and mirror images of owned and ghost cells, and the
  /// translations with the lowest cell that has each (per piece of cells, then merged).
  void count(const StencilBuilder& builder, index_t nc, index_t n_owned, std::vector<index_t>& owned_images,
             std::vector<index_t>& ghost_images) {
    using Key = std::array<long long, 3>;
    struct Seen {
      Key key;
      index_t cell;
      std::array<double, 3> value;
    };
    const int parts = nc < 2048 ? 1 : host::threads();
    std::vector<std::vector<Seen>> seen(static_cast<std::size_t>(parts));
    host::for_pieces("fvproxy::operators::stencil_count", nc, parts, [&](int t, std::int64_t b, std::int64_t e) {
      std::vector<Seen>& mine = seen[std::size_t(t)];
      for (index_t c = index_t(b); c < index_t(e); ++c) {
        const std::vector<Entry> es = builder.entries(c);
        off[c] = static_cast<index_t>(es.size()); // counts at [c], offsets after the scan
        for (const Entry& x : es) {
          if (x.image)
            ++(x.cell < n_owned ? owned_images : ghost_images)[c];
          else if (std::none_of(mine.begin(), mine.end(), [&](const Seen& s) { return s.key == x.t; }))
            mine.push_back({x.t, c, x.shift});
        }
      }
    });
    std::vector<Seen> all{{Key{{0, 0, 0}}, -1, {{0, 0, 0}}}}; // the zero translation first
    for (const auto& v : seen)
      for (const Seen& s : v) {
        const auto it = std::find_if(all.begin(), all.end(), [&](const Seen& a) { return a.key == s.key; });
        if (it == all.end())
          all.push_back(s);
        else if (it->cell >= 0 && s.cell < it->cell)
          *it = s;
      }
    std::sort(all.begin() + 1, all.end(), [](const Seen& x, const Seen& y) { return x.key < y.key; });
    if (all.size() > 255) throw std::logic_error("make_vertex_stencil: more than 255 translations");
    for (const Seen& s : all) shift_keys.push_back(s.key), shift_values.push_back(s.value);
  }

  std::uint8_t shift_index(const std::array<long long, 3>& t) const {
    const auto it = std::find(shift_keys.begin(), shift_keys.end(), t);
    return static_cast<std::uint8_t>(it - shift_keys.begin());
  }
};

template <class V, class View> View upload_vector(const V& v, View view) {
  auto h = Kokkos::create_mirror_view(view);
  for (std::size_t i = 0; i < v.size(); ++i) h(i) = v[i];
  Kokkos::deep_copy(view, h);
  return view;
}

/// The images' views of s (image_x, image_cell, image_patch, image_normal).
void upload_images(const std::vector<Entry>& images, VertexStencil& s) {
  const std::size_t n = images.size();
  s.image_x = Vec3View<real>("fvproxy::operators::stencil_image_x", n);
  s.image_cell = View1<index_t>("fvproxy::operators::stencil_image_cell", n);
  s.image_patch = View2<index_t>("fvproxy::operators::stencil_image_patch", n, 3);
  s.image_normal = View2<real>("fvproxy::operators::stencil_image_normal", n, 9);
  auto hx = Kokkos::create_mirror_view(s.image_x);
  auto hc = Kokkos::create_mirror_view(s.image_cell);
  auto hp = Kokkos::create_mirror_view(s.image_patch);
  auto hn = Kokkos::create_mirror_view(s.image_normal);
  for (std::size_t e = 0; e < n; ++e) {
    const Entry& im = images[e];
    hc(e) = im.cell;
    for (int i = 0; i < 3; ++i) hx(e, i) = static_cast<real>(im.x[i]);
    for (int j = 0; j < 3; ++j) {
      hp(e, j) = im.patches[j];
      for (int i = 0; i < 3; ++i) hn(e, 3 * j + i) = static_cast<real>(im.planes[j].normal[i]);
    }
  }
  Kokkos::deep_copy(s.image_x, hx);
  Kokkos::deep_copy(s.image_cell, hc);
  Kokkos::deep_copy(s.image_patch, hp);
  Kokkos::deep_copy(s.image_normal, hn);
}

} // namespace

VertexStencil make_vertex_stencil(const Mesh& m, const std::vector<bool>& mirror_patches, bool corners_only) {
  if (m.n_ghosts > 0 && !(m.vertex_layers && m.n_layer1 > 0))
    throw InputError("operators.muscl.stencil",
                     std::string(corners_only ? "corners" : "vertex") +
                         " needs two ghost layers by vertex adjacency (parallel.halo.layers: 2); this decomposed "
                         "mesh's hold fewer");
  if (m.corner_layers_only && !corners_only)
    throw InputError("operators.muscl.stencil", "vertex needs every vertex neighbour of every cell; this decomposed "
                                                "mesh's ghost layers hold them at the corners only (stencil: corners)");
  const index_t nc = m.n_gradient_cells();
  const StencilBuilder builder(m, mirror_patches, corners_only);
  const HostStencil h(builder, nc, m.n_cells, m.n_boundary_rows());
  VertexStencil s;
  s.vertex = true;
  s.corners = corners_only;
  for (index_t c = 0; c < nc; ++c) s.n_stencil_cells += h.off[std::size_t(c) + 1] > h.off[std::size_t(c)];
  s.first_row = m.n_boundary_rows();
  s.n_images = static_cast<index_t>(h.images.size());
  s.n_owned_images = h.n_owned_images;
  s.n_entries = h.off[nc];
  s.off = upload_vector(h.off, View1<index_t>("fvproxy::operators::stencil_off", h.off.size()));
  s.image_begin = upload_vector(h.image_begin, View1<index_t>("fvproxy::operators::stencil_image_begin", nc));
  s.index = upload_vector(h.index, View1<index_t>("fvproxy::operators::stencil_index", h.index.size()));
  s.shift = upload_vector(h.shift, View1<std::uint8_t>("fvproxy::operators::stencil_shift", h.shift.size()));
  s.shifts = Vec3View<real>("fvproxy::operators::stencil_shifts", h.shift_values.size());
  auto hs = Kokkos::create_mirror_view(s.shifts);
  for (std::size_t k = 0; k < h.shift_values.size(); ++k)
    for (int i = 0; i < 3; ++i) hs(k, i) = static_cast<real>(h.shift_values[k][i]);
  Kokkos::deep_copy(s.shifts, hs);
  upload_images(h.images, s);
  if (corners_only) { // the pre-pass's rows (operators/muscl/stencil_sums.hpp)
    std::vector<index_t> row(std::size_t(nc), -1);
    for (index_t c = 0; c < nc; ++c)
      if (h.off[std::size_t(c) + 1] > h.off[std::size_t(c)])
        row[std::size_t(c)] = static_cast<index_t>(s.host_cells.size()), s.host_cells.push_back(c);
    s.cells = upload_vector(s.host_cells, View1<index_t>("fvproxy::operators::stencil_cells", s.host_cells.size()));
    s.row = upload_vector(row, View1<index_t>("fvproxy::operators::stencil_row", row.size()));
  }
  return s;
}
} // namespace fvproxy
