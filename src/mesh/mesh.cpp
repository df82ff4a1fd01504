#include "mesh/mesh.hpp"

#include <limits>
#include <sstream>

#include "core/error.hpp"
#include "core/exact_sum.hpp"
#include "core/kokkos_compat.hpp"
#include "mesh/host_parallel.hpp"

namespace fvproxy {

namespace {

template <class T> View1<T> to_device(const std::vector<T>& v, const std::string& label) {
  View1<T> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), v.size());
  Kokkos::View<const T*, Kokkos::LayoutLeft, HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(v.data(), v.size());
  Kokkos::deep_copy(d, h);
  return d;
}

template <class V> std::size_t bytes(const V& v) {
  return v.span() * sizeof(typename V::value_type);
}

// --- geometry kernels -------------------------------------------------------------------------

struct Vec {
  real x, y, z;
};
KOKKOS_INLINE_FUNCTION Vec operator-(Vec a, Vec b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
KOKKOS_INLINE_FUNCTION Vec operator+(Vec a, Vec b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
KOKKOS_INLINE_FUNCTION Vec operator*(real s, Vec a) {
  return {s * a.x, s * a.y, s * a.z};
}
KOKKOS_INLINE_FUNCTION Vec cross(Vec a, Vec b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
KOKKOS_INLINE_FUNCTION real dot(Vec a, Vec b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
KOKKOS_INLINE_FUNCTION real norm(Vec a) {
  return kc::sqrt(dot(a, a));
}

/// Area vector and centroid of each face.
struct FaceGeometry {
  ConstVec3View<real> x;
  ConstView1<index_t> off, nodes;
  Vec3View<real> area, center;

  KOKKOS_FUNCTION Vec node(index_t n) const { return {x(n, 0), x(n, 1), x(n, 2)}; }

  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const index_t b = off(f), e = off(f + 1);
    Vec c{0, 0, 0};
    for (index_t k = b; k < e; ++k) c = c + node(nodes(k));
    c = (real(1) / real(e - b)) * c;
    Vec s{0, 0, 0}, m{0, 0, 0};
    real asum = 0;
    for (index_t k = b; k < e; ++k) {
      const Vec p = node(nodes(k)), q = node(nodes(k + 1 < e ? k + 1 : b));
      const Vec st = real(0.5) * cross(p - c, q - c);
      const real a = norm(st);
      s = s + st;
      m = m + (a / real(3)) * (c + p + q);
      asum += a;
    }
    area(f, 0) = s.x, area(f, 1) = s.y, area(f, 2) = s.z;
    const Vec ctr = asum > 0 ? (real(1) / asum) * m : c;
    center(f, 0) = ctr.x, center(f, 1) = ctr.y, center(f, 2) = ctr.z;
  }
};

/// Volume and centroid of each cell: tetrahedra (cell node average, face node average, two
/// consecutive face nodes) over the faces' fan triangles.
struct CellGeometry {
  ConstVec3View<real> x, shifts;
  ConstView1<index_t> cell_node_off, cell_nodes, cell_face_off, cell_faces, face_node_off, face_nodes;
  ConstView1<std::int8_t> sign;
  ConstView1<std::uint8_t> face_shift;
  View1<real> volume, inv_volume;
  Vec3View<real> centroid;

  KOKKOS_FUNCTION Vec node(index_t n) const { return {x(n, 0), x(n, 1), x(n, 2)}; }

  KOKKOS_FUNCTION void operator()(const index_t c) const {
    Vec ref{0, 0, 0};
    for (index_t k = cell_node_off(c); k < cell_node_off(c + 1); ++k) ref = ref + node(cell_nodes(k));
    ref = (real(1) / real(cell_node_off(c + 1) - cell_node_off(c))) * ref;
    real v = 0;
    Vec m{0, 0, 0};
    for (index_t k = cell_face_off(c); k < cell_face_off(c + 1); ++k) {
      const index_t f = cell_faces(k);
      const real s = sign(k);
      // The neighbour of a periodic face sees the face translated back to its own side.
      Vec off{0, 0, 0};
      if (s < 0 && face_shift(f) != 0)
        off = real(-1) * Vec{shifts(face_shift(f), 0), shifts(face_shift(f), 1), shifts(face_shift(f), 2)};
      const index_t b = face_node_off(f), e = face_node_off(f + 1);
      Vec fc{0, 0, 0};
      for (index_t j = b; j < e; ++j) fc = fc + node(face_nodes(j));
      fc = (real(1) / real(e - b)) * fc + off;
      for (index_t j = b; j < e; ++j) {
        const Vec p = node(face_nodes(j)) + off, q = node(face_nodes(j + 1 < e ? j + 1 : b)) + off;
        const Vec st = (real(0.5) * s) * cross(p - fc, q - fc);
        const real vt = dot(st, fc - ref) / real(3);
        v += vt;
        m = m + (vt * real(0.25)) * (ref + fc + p + q);
      }
    }
    volume(c) = v;
    inv_volume(c) = real(1) / v;
    const Vec ctr = (real(1) / v) * m;
    centroid(c, 0) = ctr.x, centroid(c, 1) = ctr.y, centroid(c, 2) = ctr.z;
  }
};

} // namespace

std::size_t Mesh::memory_bytes() const {
  return bytes(node_x) + bytes(node_gid) + bytes(cell_type) + bytes(cell_gid) + bytes(cell_node_off) +
         bytes(cell_nodes) + bytes(cell_face_off) + bytes(cell_faces) + bytes(cell_face_sign) + bytes(face_node_off) +
         bytes(face_nodes) + bytes(face_owner) + bytes(face_neighbour) + bytes(face_shift) + bytes(shifts) +
         bytes(volume) + bytes(inv_volume) + bytes(centroid) + bytes(face_area) + bytes(face_centroid);
}

namespace {

/// The counts, the nodes' positions, the cells' node and face lists, the faces' nodes and
/// translations: what the cell geometry reads.
Mesh upload_cell_geometry_inputs(const HostMesh& h, index_t n_owned) {
  Mesh m;
  m.n_cells = n_owned < 0 ? h.n_cells() : n_owned;
  m.n_ghosts = h.n_cells() - m.n_cells;
  m.n_global_cells = m.n_cells;
  m.n_faces = h.n_faces();
  m.n_all_faces = m.outer_begin = m.n_faces; // a second ghost layer's faces are set by decompose()
  m.n_interior = h.n_interior;
  m.n_inner = m.n_cells; // a local mesh's split is set by decompose()
  m.n_owned_faces = m.n_interior;
  m.n_nodes = h.n_nodes();
  m.dim = h.dim;
  m.patches = h.patches;
  if (!h.node_key.empty()) m.node_key = std::make_shared<const std::vector<index_t>>(h.node_key);
  {
    m.node_x = Vec3View<real>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fvproxy::mesh::node_x"), m.n_nodes);
    auto hx = Kokkos::create_mirror_view(m.node_x);
    host::parallel_for("fvproxy::mesh::node_x", m.n_nodes, [&](std::int64_t n) {
      for (int d = 0; d < 3; ++d) hx(n, d) = static_cast<real>(h.x[3 * std::size_t(n) + d]);
    });
    Kokkos::deep_copy(m.node_x, hx);
  }
  m.cell_node_off = to_device(h.cell_node_off, "fvproxy::mesh::cell_node_off");
  m.cell_nodes = to_device(h.cell_nodes, "fvproxy::mesh::cell_nodes");
  m.cell_face_off = to_device(h.cell_face_off, "fvproxy::mesh::cell_face_off");
  m.cell_faces = to_device(h.cell_faces, "fvproxy::mesh::cell_faces");
  m.cell_face_sign = to_device(h.cell_face_sign, "fvproxy::mesh::cell_face_sign");
  m.face_node_off = to_device(h.face_node_off, "fvproxy::mesh::face_node_off");
  m.face_nodes = to_device(h.face_nodes, "fvproxy::mesh::face_nodes");
  m.face_shift = to_device(h.face_shift, "fvproxy::mesh::face_shift");
  {
    m.shifts = Vec3View<real>("fvproxy::mesh::shifts", h.shifts.size());
    auto hs = Kokkos::create_mirror_view(m.shifts);
    for (std::size_t i = 0; i < h.shifts.size(); ++i)
      for (int d = 0; d < 3; ++d) hs(i, d) = static_cast<real>(h.shifts[i][d]);
    Kokkos::deep_copy(m.shifts, hs);
  }
  return m;
}

/// Cell volumes and centroids (the owned cells; ghost rows zero).
void compute_cell_geometry(Mesh& m) {
  m.volume = View1<real>("fvproxy::mesh::volume", m.n_local());
  m.inv_volume = View1<real>("fvproxy::mesh::inv_volume", m.n_local());
  m.centroid = Vec3View<real>("fvproxy::mesh::centroid", m.n_local());
  Kokkos::parallel_for("fvproxy::mesh::cell_geometry", Kokkos::RangePolicy<ExecSpace>(0, m.n_cells),
                       CellGeometry{m.node_x, m.shifts, m.cell_node_off, m.cell_nodes, m.cell_face_off, m.cell_faces,
                                    m.face_node_off, m.face_nodes, m.cell_face_sign, m.face_shift, m.volume,
                                    m.inv_volume, m.centroid});
}

} // namespace

Mesh upload(const HostMesh& h, index_t n_owned) {
  Mesh m = upload_cell_geometry_inputs(h, n_owned);
  m.node_gid = to_device(h.node_gid, "fvproxy::mesh::node_gid");
  std::vector<std::uint8_t> types(h.cell_type.size());
  for (std::size_t c = 0; c < types.size(); ++c) types[c] = static_cast<std::uint8_t>(h.cell_type[c]);
  m.cell_type = to_device(types, "fvproxy::mesh::cell_type");
  m.cell_gid = to_device(h.cell_gid, "fvproxy::mesh::cell_gid");
  m.face_owner = to_device(h.face_owner, "fvproxy::mesh::face_owner");
  m.face_neighbour = to_device(h.face_neighbour, "fvproxy::mesh::face_neighbour");
  compute_geometry(m);
  return m;
}

Mesh upload_centroids(const HostMesh& h) {
  Mesh m = upload_cell_geometry_inputs(h, -1);
  compute_cell_geometry(m);
  kc::fence("fvproxy::mesh::upload_centroids");
  return m;
}

void compute_geometry(Mesh& m) {
  using Kokkos::view_alloc;
  using Kokkos::WithoutInitializing;
  // Ghost rows are zero until the halo exchange fills them.
  m.face_area = Vec3View<real>(view_alloc(WithoutInitializing, "fvproxy::mesh::face_area"), m.n_all_faces);
  m.face_centroid = Vec3View<real>(view_alloc(WithoutInitializing, "fvproxy::mesh::face_centroid"), m.n_all_faces);
  Kokkos::parallel_for("fvproxy::mesh::face_geometry", Kokkos::RangePolicy<ExecSpace>(0, m.n_all_faces),
                       FaceGeometry{m.node_x, m.face_node_off, m.face_nodes, m.face_area, m.face_centroid});
  compute_cell_geometry(m);
  // The exact sum of the cell volumes: the same bits in every cell order and, summed over the ranks
  // (decompose), for every rank count.
  const auto vol = Kokkos::create_mirror_view_and_copy(HostSpace(), m.volume);
  ExactSum total;
  for (index_t c = 0; c < m.n_cells; ++c) total.add(double(vol(c)));
  m.global_volume = total.total();
  kc::fence("fvproxy::mesh::compute_geometry");
}

GeometryChecks check_geometry(const Mesh& m) {
  GeometryChecks g;
  using MinLoc = Kokkos::MinLoc<real, index_t>;
  using MaxLoc = Kokkos::MaxLoc<real, index_t>;
  typename MinLoc::value_type vmin;
  typename MaxLoc::value_type cmax;
  real total = 0;
  const auto vol = m.volume;
  const auto off = m.cell_face_off;
  const auto cf = m.cell_faces;
  const auto sg = m.cell_face_sign;
  const auto area = m.face_area;
  Kokkos::parallel_reduce(
      "fvproxy::mesh::check_volume", Kokkos::RangePolicy<ExecSpace>(0, m.n_cells),
      KOKKOS_LAMBDA(const index_t c, typename MinLoc::value_type& lmin) {
        if (vol(c) < lmin.val) lmin.val = vol(c), lmin.loc = c;
      },
      MinLoc(vmin));
  Kokkos::parallel_reduce(
      "fvproxy::mesh::total_volume", Kokkos::RangePolicy<ExecSpace>(0, m.n_cells),
      KOKKOS_LAMBDA(const index_t c, real& lsum) { lsum += vol(c); }, total);
  Kokkos::parallel_reduce(
      "fvproxy::mesh::check_closure", Kokkos::RangePolicy<ExecSpace>(0, m.n_cells),
      KOKKOS_LAMBDA(const index_t c, typename MaxLoc::value_type& lmax) {
        real s[3] = {0, 0, 0};
        for (index_t k = off(c); k < off(c + 1); ++k)
          for (int d = 0; d < 3; ++d) s[d] += sg(k) * area(cf(k), d);
        const real v = kc::fabs(vol(c));
        const real scale = v > 0 ? kc::cbrt(v) * kc::cbrt(v) : real(1);
        const real r = kc::sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]) / scale;
        if (r > lmax.val) lmax.val = r, lmax.loc = c;
      },
      MaxLoc(cmax));
  auto gid = Kokkos::create_mirror_view_and_copy(HostSpace(), m.cell_gid);
  g.min_volume = vmin.val;
  g.min_volume_cell = m.n_cells > 0 ? gid(vmin.loc) : -1;
  g.max_closure = cmax.val;
  g.max_closure_cell = (m.n_cells > 0 && cmax.loc >= 0 && cmax.loc < m.n_cells) ? gid(cmax.loc) : -1;
  if (g.max_closure <= 0) g.max_closure = 0, g.max_closure_cell = -1;
  g.total_volume = total;
  return g;
}

void validate_geometry(const Mesh& m, const std::string& source) {
  validate_geometry(m, check_geometry(m), source);
}

void validate_geometry(const Mesh& m, const GeometryChecks& g, const std::string& source) {
  if (m.n_cells == 0) throw InputError(source, "the mesh has no cells");
  if (!(g.min_volume > 0)) {
    std::ostringstream os;
    os << "cell (global id) " << g.min_volume_cell << " has volume " << g.min_volume
       << " (inverted or degenerate element: check its node ordering)";
    throw InputError(source, "non-positive cell volume", os.str());
  }
  const double tol = 1e4 * std::numeric_limits<real>::epsilon();
  if (!(g.max_closure <= tol)) {
    std::ostringstream os;
    os << "cell (global id) " << g.max_closure_cell
       << ": |sum of outward face area vectors| / V^(2/3) = " << g.max_closure << " > " << tol;
    throw InputError(source, "a cell is not closed", os.str());
  }
}

} // namespace fvproxy
