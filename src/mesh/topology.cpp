#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "core/error.hpp"
#include "mesh/host_mesh.hpp"
#include "mesh/host_parallel.hpp"

namespace fvproxy {

void HostMesh::add_cell(CellType t, const index_t* nodes, gid_t gid) {
  const int n = element_info(t).n_nodes;
  cell_type.push_back(t);
  cell_nodes.insert(cell_nodes.end(), nodes, nodes + n);
  cell_node_off.push_back(static_cast<index_t>(cell_nodes.size()));
  cell_gid.push_back(gid);
}

std::array<double, 3> face_center(const HostMesh& m, const index_t* nodes, int n) {
  std::array<double, 3> c{0, 0, 0};
  for (int i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) c[d] += m.x[3 * std::size_t(nodes[i]) + d];
  for (int d = 0; d < 3; ++d) c[d] /= n;
  return c;
}

namespace {

double bbox_diagonal(const HostMesh& m) {
  double lo[3] = {std::numeric_limits<double>::max(), std::numeric_limits<double>::max(),
                  std::numeric_limits<double>::max()};
  double hi[3] = {-lo[0], -lo[1], -lo[2]};
  for (std::size_t i = 0; i < m.x.size(); i += 3)
    for (int d = 0; d < 3; ++d) lo[d] = std::min(lo[d], m.x[i + d]), hi[d] = std::max(hi[d], m.x[i + d]);
  double s = 0;
  for (int d = 0; d < 3; ++d) s += (hi[d] - lo[d]) * (hi[d] - lo[d]);
  return std::sqrt(s);
}

} // namespace

double face_match_tolerance(const HostMesh& m) {
  return 1e-9 * std::max(bbox_diagonal(m), 1e-300);
}

std::uint8_t shift_index(HostMesh& m, const std::array<double, 3>& t, double tol) {
  for (std::size_t i = 0; i < m.shifts.size(); ++i) {
    const auto& s = m.shifts[i];
    if (std::abs(s[0] - t[0]) <= tol && std::abs(s[1] - t[1]) <= tol && std::abs(s[2] - t[2]) <= tol)
      return static_cast<std::uint8_t>(i);
  }
  if (m.shifts.size() + 2 > 255) throw InputError("mesh", "too many distinct periodic translations");
  m.shifts.push_back(t);
  m.shifts.push_back({-t[0], -t[1], -t[2]});
  return static_cast<std::uint8_t>(m.shifts.size() - 2);
}

namespace {

struct FaceRecord {
  index_t key[kMaxFaceNodes];
  index_t cell;
  std::int32_t local;
};

bool key_less(const FaceRecord& a, const FaceRecord& b) {
  for (int i = 0; i < kMaxFaceNodes; ++i)
    if (a.key[i] != b.key[i]) return a.key[i] < b.key[i];
  if (a.cell != b.cell) return a.cell < b.cell;
  return a.local < b.local;
}

bool same_key(const FaceRecord& a, const FaceRecord& b) {
  return std::equal(a.key, a.key + kMaxFaceNodes, b.key);
}

std::string describe_face(const HostMesh& m, const index_t* nodes, int n) {
  std::ostringstream os;
  os << "face with nodes (global ids)";
  for (int i = 0; i < n; ++i) os << ' ' << m.node_gid[nodes[i]];
  const auto c = face_center(m, nodes, n);
  os << " at (" << c[0] << ", " << c[1] << ", " << c[2] << ")";
  return os.str();
}

/// The node of `cell` that has the same node key as `node` (its periodic partner, or itself).
index_t partner_in_cell(const HostMesh& m, index_t node, index_t cell) {
  const index_t key = m.node_key.empty() ? node : m.node_key[node];
  for (index_t k = m.cell_node_off[cell]; k < m.cell_node_off[cell + 1]; ++k) {
    const index_t u = m.cell_nodes[k];
    if ((m.node_key.empty() ? u : m.node_key[u]) == key) return u;
  }
  throw std::logic_error("fvproxy: periodic face node without a partner in the neighbour cell");
}

/// build_faces' passes. On the host threads (mesh/host_parallel.hpp); the result does not depend on
/// their number: records at fixed places, a sort to std::sort's order (the records are all
/// different), faces numbered by their group's place in it, periodic translations numbered in face
/// order.
struct FaceBuilder {
  HostMesh& mesh;
  const BoundaryClassifier& classify;
  const double tol;
  std::vector<FaceRecord> rec; ///< one per cell face, sorted by key
  std::int64_t n_rec = 0;
  std::vector<std::int64_t> start; ///< start[g] = face g's group's first record
  std::int64_t n_faces = 0;
  // Per face: its node count, owner, neighbour, patch, translation; problems flagged.
  std::vector<index_t> node_off;
  std::vector<index_t> owner, neighbour;
  std::vector<int> face_patch;
  std::vector<std::array<double, 3>> shift_t;
  std::vector<char> periodic;
  std::vector<char> bad;

  FaceBuilder(HostMesh& mesh, const BoundaryClassifier& classify)
      : mesh(mesh), classify(classify), tol(face_match_tolerance(mesh)) {}

  int local_nodes(index_t c, int lf, index_t* out) const { return cell_face_nodes(mesh, c, lf, out); }

  /// One record per face of every cell (its sorted node key), sorted: a face's records side by side.
  void make_records() {
    const index_t nc = mesh.n_cells();
    std::vector<std::int64_t> first(std::size_t(nc) + 1, 0);
    host::parallel_for("fvproxy::mesh::face_record_counts", nc,
                       [&](std::int64_t c) { first[c] = element_info(mesh.cell_type[c]).n_faces; });
    n_rec = host::exclusive_scan(first);
    rec.resize(static_cast<std::size_t>(n_rec));
    host::parallel_for("fvproxy::mesh::face_records", nc, [&](std::int64_t c) {
      const ElementInfo& e = element_info(mesh.cell_type[c]);
      for (int lf = 0; lf < e.n_faces; ++lf) {
        FaceRecord& r = rec[first[c] + lf];
        cell_face_key(mesh, index_t(c), lf, r.key);
        r.cell = static_cast<index_t>(c);
        r.local = lf;
      }
    });
    std::vector<std::int64_t>().swap(first);
    host::parallel_sort(
        rec, [](const FaceRecord& a, const FaceRecord& b) { return key_less(a, b); }, "fvproxy::mesh::face_sort");
  }

  /// Groups of equal keys: one face each, in sorted order. start[g] = the group's first record.
  void group_records() {
    const std::int64_t R = n_rec;
    std::vector<std::int64_t> face_of(static_cast<std::size_t>(R) + 1, 0);
    host::parallel_for("fvproxy::mesh::face_groups", R,
                       [&](std::int64_t i) { face_of[i] = (i == 0 || !same_key(rec[i - 1], rec[i])) ? 1 : 0; });
    n_faces = host::exclusive_scan(face_of); // face_of[i]: the face of record i's group (+1 unless first)
    start.assign(static_cast<std::size_t>(n_faces) + 1, R);
    host::parallel_for("fvproxy::mesh::face_starts", R, [&](std::int64_t i) {
      if (i == 0 || !same_key(rec[i - 1], rec[i])) start[face_of[i]] = i;
    });
    std::vector<std::int64_t>().swap(face_of);
  }

  /// Per face: its node count, owner, neighbour, patch, translation; problems flagged (the serial
  /// pass below reports the first one, as it always did).
  void match_faces() {
    node_off.assign(static_cast<std::size_t>(n_faces) + 1, 0);
    owner.resize(n_faces), neighbour.resize(n_faces);
    face_patch.resize(n_faces);
    shift_t.resize(n_faces);
    periodic.assign(n_faces, 0);
    bad.assign(n_faces, 0);
    host::parallel_for("fvproxy::mesh::face_match", n_faces, [&](std::int64_t g) {
      const std::int64_t i = start[g], j = start[g + 1];
      index_t on[kMaxFaceNodes];
      const int n = local_nodes(rec[i].cell, rec[i].local, on);
      node_off[g] = n;
      owner[g] = rec[i].cell;
      if (j - i > 2) {
        bad[g] = 1;
      } else if (j - i == 2) {
        if (rec[i + 1].cell == rec[i].cell) {
          bad[g] = 1;
          return;
        }
        index_t nn[kMaxFaceNodes];
        local_nodes(rec[i + 1].cell, rec[i + 1].local, nn);
        const auto co = face_center(mesh, on, n), cnb = face_center(mesh, nn, n);
        // Components below the tolerance are rounding (the two sides sum their nodes in different
        // orders): snap them to zero so a translation is exactly along its axes.
        std::array<double, 3> t{co[0] - cnb[0], co[1] - cnb[1], co[2] - cnb[2]};
        for (double& tk : t)
          if (std::abs(tk) <= tol) tk = 0.0;
        periodic[g] = std::abs(t[0]) > tol || std::abs(t[1]) > tol || std::abs(t[2]) > tol;
        shift_t[g] = t;
        neighbour[g] = rec[i + 1].cell;
        face_patch[g] = -1;
      } else {
        const int p = classify.patch_of(mesh, on, n);
        if (p < 0) bad[g] = 1;
        neighbour[g] = -1;
        face_patch[g] = p;
      }
    });
  }

  /// Translations numbered in face order (the first face with a new one adds it and its opposite),
  /// up to the first bad face: errors come in face order, as in a single pass.
  void number_translations() {
    const std::int64_t g_bad = std::find(bad.begin(), bad.end(), 1) - bad.begin();
    mesh.shifts.assign(1, {0.0, 0.0, 0.0});
    mesh.face_shift.assign(n_faces, 0);
    for (std::int64_t g = 0; g < g_bad; ++g)
      if (periodic[g]) mesh.face_shift[g] = shift_index(mesh, shift_t[g], tol);
    if (g_bad < n_faces) report_bad_face(g_bad);
  }

  /// The InputError for bad face g: shared by more than two cells, a cell's own neighbour, or a
  /// boundary face in no patch.
  [[noreturn]] void report_bad_face(std::int64_t g) const {
    const std::int64_t i = start[g], j = start[g + 1];
    index_t on[kMaxFaceNodes];
    const int n = local_nodes(rec[i].cell, rec[i].local, on);
    if (j - i > 2) {
      std::ostringstream os;
      os << "cells (global ids)";
      for (std::int64_t k = i; k < j; ++k) os << ' ' << mesh.cell_gid[rec[k].cell];
      throw InputError("mesh", "a face is shared by more than two cells (" + std::to_string(j - i) + ")",
                       describe_face(mesh, on, n) + " belongs to " + os.str());
    }
    if (j - i == 2)
      throw InputError("mesh", "a cell is its own neighbour across a face",
                       describe_face(mesh, on, n) + " of cell (global id) " +
                           std::to_string(mesh.cell_gid[rec[i].cell]));
    throw InputError("mesh", "a boundary face lies in no boundary patch",
                     describe_face(mesh, on, n) + " of cell (global id) " + std::to_string(mesh.cell_gid[rec[i].cell]) +
                         "\n" + classify.where());
  }

  /// The faces' nodes, owners and neighbours into the mesh (the records are done with).
  void store_faces() {
    std::vector<std::array<double, 3>>().swap(shift_t);
    const index_t n_face_nodes = host::exclusive_scan(node_off);
    node_off[n_faces] = n_face_nodes;
    mesh.face_nodes.assign(static_cast<std::size_t>(n_face_nodes), 0);
    host::parallel_for("fvproxy::mesh::face_nodes", n_faces, [&](std::int64_t g) {
      local_nodes(rec[start[g]].cell, rec[start[g]].local, mesh.face_nodes.data() + node_off[g]);
    });
    mesh.face_node_off.swap(node_off);
    mesh.face_owner.swap(owner);
    mesh.face_neighbour.swap(neighbour);
    std::vector<FaceRecord>().swap(rec);
  }
};

} // namespace

void build_faces(HostMesh& m, const std::vector<std::string>& patch_names, const BoundaryClassifier& classify) {
  FaceBuilder b(m, classify);
  b.make_records();
  b.group_records();
  b.match_faces();
  b.number_translations();
  b.store_faces();
  m.patches.clear();
  for (const auto& name : patch_names) m.patches.push_back({name, 0, 0});
  finalize_faces(m, std::move(b.face_patch));
}

namespace {

/// The faces by (patch, interior first; owner; neighbour), ties in face order: what a stable sort
/// gives, as three stable passes of O(faces + cells) — by owner, by patch (counting sorts), then
/// each (patch, owner) run (a cell's few faces) by neighbour.
std::vector<index_t> face_order(const HostMesh& m, const std::vector<int>& patch_of) {
  const index_t nf = m.n_faces(), nc = m.n_cells();
  std::vector<index_t> start(std::size_t(nc) + 1, 0), by_owner(nf), order(nf);
  for (index_t f = 0; f < nf; ++f) ++start[m.face_owner[f] + 1];
  for (index_t c = 0; c < nc; ++c) start[c + 1] += start[c];
  for (index_t f = 0; f < nf; ++f) by_owner[start[m.face_owner[f]]++] = f;
  std::vector<index_t> group(m.patches.size() + 2, 0); // interior (patch -1), then each patch
  for (index_t f = 0; f < nf; ++f) ++group[std::size_t(patch_of[f] + 2)];
  for (std::size_t g = 1; g < group.size(); ++g) group[g] += group[g - 1];
  for (const index_t f : by_owner) order[group[std::size_t(patch_of[f] + 1)]++] = f;
  for (index_t b = 0, e = 0; b < nf; b = e) {
    e = b + 1;
    while (e < nf && patch_of[order[e]] == patch_of[order[b]] && m.face_owner[order[e]] == m.face_owner[order[b]]) ++e;
    for (index_t i = b + 1; i < e; ++i)
      for (index_t j = i; j > b && m.face_neighbour[order[j]] < m.face_neighbour[order[j - 1]]; --j)
        std::swap(order[j], order[j - 1]);
  }
  return order;
}

} // namespace

void finalize_faces(HostMesh& m, std::vector<int> patch_of) {
  const index_t nf = m.n_faces();
  if (patch_of.empty()) {
    patch_of.assign(nf, -1);
    for (std::size_t p = 0; p < m.patches.size(); ++p)
      for (index_t f = m.patches[p].begin; f < m.patches[p].end; ++f) patch_of[f] = int(p);
  }
  // Interior faces: owner is the lower-numbered cell (flip the face where it is not). Each face
  // alone: on the host threads.
  host::parallel_for("fvproxy::mesh::face_flip", nf, [&](std::int64_t f) {
    index_t& o = m.face_owner[f];
    index_t& nb = m.face_neighbour[f];
    if (nb >= 0 && nb < o) {
      std::swap(o, nb);
      const auto b = m.face_nodes.begin() + m.face_node_off[f], e = m.face_nodes.begin() + m.face_node_off[f + 1];
      std::reverse(b, e);
      const std::uint8_t s = m.face_shift[f];
      if (s != 0) {
        // A periodic face's nodes are those on its owner's side: take the new owner's partner nodes
        // (same node key), and the opposite translation (pairs (k, k+1) with k odd).
        for (auto it = b; it != e; ++it) *it = partner_in_cell(m, *it, o);
        m.face_shift[f] = static_cast<std::uint8_t>(s % 2 == 1 ? s + 1 : s - 1);
      }
    }
  });
  const std::vector<index_t> order = face_order(m, patch_of);
  std::vector<index_t> fno(static_cast<std::size_t>(nf) + 1, 0);
  std::vector<index_t> fo(nf), fnb(nf);
  std::vector<std::uint8_t> fs(nf);
  host::parallel_for("fvproxy::mesh::face_gather", nf, [&](std::int64_t k) {
    const index_t f = order[k];
    fno[k] = m.face_node_off[f + 1] - m.face_node_off[f];
    fo[k] = m.face_owner[f];
    fnb[k] = m.face_neighbour[f];
    fs[k] = m.face_shift[f];
  });
  fno[nf] = host::exclusive_scan(fno);
  std::vector<index_t> fn(m.face_nodes.size());
  host::parallel_for("fvproxy::mesh::face_gather_nodes", nf, [&](std::int64_t k) {
    const index_t f = order[k];
    std::copy(m.face_nodes.begin() + m.face_node_off[f], m.face_nodes.begin() + m.face_node_off[f + 1],
              fn.begin() + fno[k]);
  });
  m.face_node_off.swap(fno);
  m.face_nodes.swap(fn);
  m.face_owner.swap(fo);
  m.face_neighbour.swap(fnb);
  m.face_shift.swap(fs);
  // Interior faces first, then each patch's faces: set the ranges from the sorted patch numbers.
  index_t k = 0;
  while (k < nf && patch_of[order[k]] < 0) ++k;
  m.n_interior = k;
  for (std::size_t p = 0; p < m.patches.size(); ++p) {
    m.patches[p].begin = k;
    while (k < nf && patch_of[order[k]] == int(p)) ++k;
    m.patches[p].end = k;
  }

  build_cell_faces(m);
}

void build_cell_faces(HostMesh& m) {
  const index_t nf = m.n_faces();
  const index_t nc = m.n_cells();
  std::vector<index_t> count(nc + 1, 0);
  for (index_t f = 0; f < nf; ++f) {
    ++count[m.face_owner[f] + 1];
    if (m.face_neighbour[f] >= 0) ++count[m.face_neighbour[f] + 1];
  }
  for (index_t c = 0; c < nc; ++c) count[c + 1] += count[c];
  m.cell_face_off = count;
  m.cell_faces.assign(count[nc], 0);
  m.cell_face_sign.assign(count[nc], 0);
  std::vector<index_t> fill(count.begin(), count.end() - 1);
  for (index_t f = 0; f < nf; ++f) {
    const index_t o = m.face_owner[f];
    m.cell_faces[fill[o]] = f;
    m.cell_face_sign[fill[o]++] = 1;
    const index_t nb = m.face_neighbour[f];
    if (nb >= 0) {
      m.cell_faces[fill[nb]] = f;
      m.cell_face_sign[fill[nb]++] = -1;
    }
  }
}

} // namespace fvproxy
