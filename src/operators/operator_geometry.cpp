#include "operators/operator_geometry.hpp"

#include <sstream>

#include "core/error.hpp"
#include "core/kokkos_compat.hpp"
#include "physics/fluxes.hpp"

namespace fvproxy {

namespace {

template <class V> std::size_t bytes(const V& v) {
  return v.span() * sizeof(typename V::value_type);
}

struct FaceVectors {
  ConstVec3View<real> C, F, S, T;
  ConstView1<index_t> owner, neighbour;
  ConstView1<std::uint8_t> shift;
  index_t n_interior, outer_begin; ///< interior faces: [0, n_interior) and [outer_begin, n_all_faces)
  Vec3View<real> d, r;
  View1<real> w, alpha;
  Vec3View<real> k;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const index_t o = owner(f);
    real rv[3], dv[3], s[3];
    for (int i = 0; i < 3; ++i) rv[i] = F(f, i) - C(o, i), s[i] = S(f, i);
    if (f < n_interior || f >= outer_begin) {
      const index_t n = neighbour(f);
      for (int i = 0; i < 3; ++i) dv[i] = C(n, i) + T(shift(f), i) - C(o, i), d(f, i) = dv[i];
      const real sd = s[0] * dv[0] + s[1] * dv[1] + s[2] * dv[2];
      const real sdr = s[0] * (dv[0] - rv[0]) + s[1] * (dv[1] - rv[1]) + s[2] * (dv[2] - rv[2]);
      w(f) = sdr / sd;
    } else {
      for (int i = 0; i < 3; ++i) dv[i] = rv[i];
    }
    for (int i = 0; i < 3; ++i) r(f, i) = rv[i];
    const auto c = DiffusionCoefficients::from(s, dv);
    alpha(f) = c.alpha;
    for (int i = 0; i < 3; ++i) k(f, i) = c.k[i];
  }
};

struct BoundaryBegin {
  ConstView1<index_t> off, faces;
  index_t n_interior, outer_begin; ///< boundary faces: [n_interior, outer_begin)
  View1<index_t> begin;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    index_t q = off(c);
    while (q < off(c + 1) && (faces(q) < n_interior || faces(q) >= outer_begin)) ++q;
    begin(c) = q;
  }
};

/// ghost(b) and ghost_weight(b) of the boundary faces (OperatorGeometry).
struct BoundaryGhosts {
  ConstVec3View<real> r, S;
  ConstView1<std::int8_t> mirror;
  index_t n_interior;
  Vec3View<real> ghost;
  View1<real> weight;
  KOKKOS_FUNCTION void operator()(const index_t b) const {
    const index_t f = n_interior + b;
    const real rv[3] = {r(f, 0), r(f, 1), r(f, 2)};
    if (!mirror(b)) {
      for (int i = 0; i < 3; ++i) ghost(b, i) = rv[i];
      weight(b) = 0;
      return;
    }
    const real a = kc::sqrt(S(f, 0) * S(f, 0) + S(f, 1) * S(f, 1) + S(f, 2) * S(f, 2));
    const real n[3] = {S(f, 0) / a, S(f, 1) / a, S(f, 2) / a};
    const real rn = rv[0] * n[0] + rv[1] * n[1] + rv[2] * n[2];
    for (int i = 0; i < 3; ++i) ghost(b, i) = 2 * rn * n[i];
    weight(b) = real(0.5);
  }
};

struct LeastSquaresInverse {
  ConstView1<index_t> off, boundary_begin, faces;
  ConstView1<std::int8_t> sign;
  ConstVec3View<real> d, r; ///< r: the ghost vectors of the boundary faces (OperatorGeometry::ghost)
  index_t n_interior;
  ConstVec3View<real> C; ///< cell centroids (the stencil's plain entries)
  ConstView1<index_t> s_off, s_img, s_index;
  ConstView1<std::uint8_t> s_shift;
  ConstVec3View<real> s_shifts, s_image_x;
  index_t first_row;
  View2<real> inv;
  View1<real> det_ratio; ///< det(M) / (trace(M)/3)^3: ~1 well conditioned, ~0 singular
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    real m[6] = {0, 0, 0, 0, 0, 0};
    const auto add = [&](const real(&v)[3]) {
      for (int i = 0; i < 3; ++i)
        for (int j = i; j < 3; ++j) m[sym_index(i, j)] += v[i] * v[j];
    };
    for (index_t k = off(c); k < off(c + 1); ++k) {
      const index_t f = faces(k);
      real v[3];
      for (int i = 0; i < 3; ++i) v[i] = k < boundary_begin(c) ? sign(k) * d(f, i) : r(f - n_interior, i);
      add(v);
    }
    for (index_t q = s_off(c); q < s_img(c); ++q) { // the stencil's vertex neighbours
      const index_t j = s_index(q);
      real v[3];
      for (int i = 0; i < 3; ++i) v[i] = C(j, i) + s_shifts(s_shift(q), i) - C(c, i);
      add(v);
    }
    for (index_t q = s_img(c); q < s_off(c + 1); ++q) { // and their mirror images
      const index_t e = s_index(q) - first_row;
      real v[3];
      for (int i = 0; i < 3; ++i) v[i] = s_image_x(e, i) - C(c, i);
      add(v);
    }
    const real a = m[0], b = m[1], e = m[2], xy = m[3], xz = m[4], yz = m[5];
    const real c00 = b * e - yz * yz, c01 = xz * yz - xy * e, c02 = xy * yz - b * xz;
    const real det = a * c00 + xy * c01 + xz * c02;
    const real tr = (a + b + e) / real(3);
    det_ratio(c) = det / (tr * tr * tr);
    const real id = real(1) / det;
    inv(c, 0) = c00 * id;
    inv(c, 1) = (a * e - xz * xz) * id;
    inv(c, 2) = (a * b - xy * xy) * id;
    inv(c, 3) = c01 * id;
    inv(c, 4) = c02 * id;
    inv(c, 5) = (xy * xz - a * yz) * id;
  }
};

/// G_c = sum_f s S_f (x_i,f - x_c)^T and its inverse (row-major): x_i is where the face value sits.
/// x_i - x_c is (1 - w) d on the owner side of an interior face, -w d on the neighbour side (the
/// centroids' line through the face's plane); on a boundary face (1 - ghost_weight) ghost: r (the
/// face centroid) for a face value, (r . n) n for a mirror face, whose value (u_P + ub) / 2 sits
/// half way to the mirrored centroid, as on the interior face to the cell's mirror image.
struct GreenGaussInverse {
  ConstView1<index_t> off, boundary_begin, faces;
  ConstView1<std::int8_t> sign;
  ConstVec3View<real> S, d, ghost;
  ConstView1<real> w, ghost_weight, volume;
  index_t n_interior;
  View2<real> inv;
  View1<real> det_ratio; ///< det(G) / V^3: 1 for a textbook Green-Gauss cell, ~0 singular
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    real m[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    for (index_t k = off(c); k < off(c + 1); ++k) {
      const index_t f = faces(k);
      const real s = sign(k);
      real v[3];
      if (k < boundary_begin(c)) {
        const real t = s > 0 ? 1 - w(f) : -w(f);
        for (int i = 0; i < 3; ++i) v[i] = t * d(f, i);
      } else {
        const index_t b = f - n_interior;
        for (int i = 0; i < 3; ++i) v[i] = (1 - ghost_weight(b)) * ghost(b, i);
      }
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) m[i][j] += s * S(f, i) * v[j];
    }
    real adj[3][3]; // adj[i][j] = cofactor (j, i)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const int a = (j + 1) % 3, b = (j + 2) % 3, p = (i + 1) % 3, q = (i + 2) % 3;
        adj[i][j] = m[a][p] * m[b][q] - m[a][q] * m[b][p];
      }
    const real det = m[0][0] * adj[0][0] + m[0][1] * adj[1][0] + m[0][2] * adj[2][0];
    const real vol = volume(c);
    det_ratio(c) = det / (vol * vol * vol);
    const real id = real(1) / det;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) inv(c, 3 * i + j) = adj[i][j] * id;
  }
};

/// InputError naming the cell with the smallest ratio when it is not above `threshold`.
void check_conditioning(const Mesh& m, const View1<real>& ratio, real threshold, const std::string& what,
                        const std::string& why) {
  using MinLoc = Kokkos::MinLoc<real, index_t>;
  typename MinLoc::value_type worst;
  Kokkos::parallel_reduce(
      "fvproxy::operators::" + what + "_conditioning", Kokkos::RangePolicy<ExecSpace>(0, m.n_cells),
      KOKKOS_LAMBDA(const index_t c, typename MinLoc::value_type& v) {
        if (!(ratio(c) >= v.val)) v.val = ratio(c), v.loc = c; // NaN counts as the worst
      },
      MinLoc(worst));
  if (m.n_cells > 0 && !(worst.val > threshold)) {
    auto gid = Kokkos::create_mirror_view_and_copy(HostSpace(), m.cell_gid);
    std::ostringstream os;
    os << "cell (global id) " << gid(worst.loc) << ": " << why << " = " << worst.val;
    throw InputError("mesh",
                     what == "lsq" ? "least-squares gradient matrix is singular"
                                   : "Green-Gauss correction matrix is singular",
                     os.str());
  }
}

} // namespace

std::size_t OperatorGeometry::memory_bytes() const {
  return bytes(d) + bytes(r) + bytes(gg_weight) + bytes(gg_inverse) + bytes(diff_alpha) + bytes(diff_k) +
         bytes(lsq_inverse) + bytes(cell_boundary_begin) + bytes(ghost) + bytes(ghost_weight) + bytes(mirror) +
         stencil.memory_bytes();
}

OperatorGeometry make_operator_geometry(const Mesh& m, const std::vector<bool>& mirror_patches, Stencil stencil) {
  using Kokkos::view_alloc;
  using Kokkos::WithoutInitializing;
  // Every face and the cells whose gradients this rank computes: with two ghost layers the first
  // layer's too (Mesh::n_layer1, docs/halo.md#two-ghost-layers). Face arrays have a row per face
  // (d and gg_weight are read on interior faces only), boundary-face arrays a row per boundary face.
  const index_t nf = m.n_all_faces, nc = m.n_gradient_cells(), nb = m.n_boundary_rows();
  OperatorGeometry g;
  g.d = Vec3View<real>(view_alloc(WithoutInitializing, "fvproxy::operators::d"), m.n_layer1 ? nf : m.n_interior);
  g.r = Vec3View<real>(view_alloc(WithoutInitializing, "fvproxy::operators::r"), nf);
  g.gg_weight =
      View1<real>(view_alloc(WithoutInitializing, "fvproxy::operators::gg_weight"), m.n_layer1 ? nf : m.n_interior);
  g.gg_inverse = View2<real>(view_alloc(WithoutInitializing, "fvproxy::operators::gg_inverse"), nc, 9);
  g.diff_alpha = View1<real>(view_alloc(WithoutInitializing, "fvproxy::operators::diff_alpha"), nf);
  g.diff_k = Vec3View<real>(view_alloc(WithoutInitializing, "fvproxy::operators::diff_k"), nf);
  g.lsq_inverse = View2<real>(view_alloc(WithoutInitializing, "fvproxy::operators::lsq_inverse"), nc, 6);
  g.cell_boundary_begin =
      View1<index_t>(view_alloc(WithoutInitializing, "fvproxy::operators::cell_boundary_begin"), nc);
  Kokkos::parallel_for(
      "fvproxy::operators::cell_boundary_begin", Kokkos::RangePolicy<ExecSpace>(0, nc),
      BoundaryBegin{m.cell_face_off, m.cell_faces, m.n_interior, m.outer_begin, g.cell_boundary_begin});
  Kokkos::parallel_for("fvproxy::operators::face_vectors", Kokkos::RangePolicy<ExecSpace>(0, nf),
                       FaceVectors{m.centroid, m.face_centroid, m.face_area, m.shifts, m.face_owner, m.face_neighbour,
                                   m.face_shift, m.n_interior, m.outer_begin, g.d, g.r, g.gg_weight, g.diff_alpha,
                                   g.diff_k});
  g.mirror = View1<std::int8_t>("fvproxy::operators::mirror", nb);
  g.ghost = Vec3View<real>(view_alloc(WithoutInitializing, "fvproxy::operators::ghost"), nb);
  g.ghost_weight = View1<real>(view_alloc(WithoutInitializing, "fvproxy::operators::ghost_weight"), nb);
  auto mh = Kokkos::create_mirror_view(g.mirror);
  Kokkos::deep_copy(mh, std::int8_t(0));
  for (const std::vector<Patch>* patches : {&m.patches, &m.layer1_patches})
    for (std::size_t p = 0; p < patches->size() && p < mirror_patches.size(); ++p)
      if (mirror_patches[p])
        for (index_t f = (*patches)[p].begin; f < (*patches)[p].end; ++f) mh(f - m.n_interior) = 1;
  Kokkos::deep_copy(g.mirror, mh);
  Kokkos::parallel_for("fvproxy::operators::boundary_ghosts", Kokkos::RangePolicy<ExecSpace>(0, nb),
                       BoundaryGhosts{g.r, m.face_area, g.mirror, m.n_interior, g.ghost, g.ghost_weight});
  g.stencil =
      stencil == Stencil::face ? face_stencil(m) : make_vertex_stencil(m, mirror_patches, stencil == Stencil::corners);
  const VertexStencil& st = g.stencil;
  View1<real> ratio(view_alloc(WithoutInitializing, "fvproxy::operators::lsq_det_ratio"), nc);
  Kokkos::parallel_for("fvproxy::operators::lsq_inverse", Kokkos::RangePolicy<ExecSpace>(0, nc),
                       LeastSquaresInverse{m.cell_face_off, g.cell_boundary_begin, m.cell_faces, m.cell_face_sign, g.d,
                                           g.ghost, m.n_interior, m.centroid, st.off, st.image_begin, st.index,
                                           st.shift, st.shifts, st.image_x, st.first_row, g.lsq_inverse, ratio});
  check_conditioning(m, ratio, real(1e-6), "lsq",
                     "det(M) / (tr(M)/3)^3 (its neighbours and boundary faces are nearly coplanar)");
  Kokkos::parallel_for("fvproxy::operators::gg_inverse", Kokkos::RangePolicy<ExecSpace>(0, nc),
                       GreenGaussInverse{m.cell_face_off, g.cell_boundary_begin, m.cell_faces, m.cell_face_sign,
                                         m.face_area, g.d, g.ghost, g.gg_weight, g.ghost_weight, m.volume, m.n_interior,
                                         g.gg_inverse, ratio});
  check_conditioning(m, ratio, real(1e-3), "gg", "det(G) / V^3 (1 on an unskewed cell)");
  return g;
}

} // namespace fvproxy
