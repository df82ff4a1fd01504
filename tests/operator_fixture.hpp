#pragma once
// Shared by the operator tests: small meshes in a chosen ordering, a field sampled at the cell
// centroids with boundary values at the boundary face centroids, and result helpers.
#include <algorithm>
#include <cmath>
#include <functional>

#include "mesh/box_generator.hpp"
#include "mesh/mesh.hpp"
#include "mesh/reorder.hpp"
#include "operators/operator_geometry.hpp"

namespace fvproxy::test {

using Field = std::function<double(int k, const double* x)>;
using HostView2 = Kokkos::View<real**, Kokkos::LayoutLeft, HostSpace>;

/// A 6x5x4 (or `n`) box of `e` cells, jittered by `perturb`, in ordering `o`.
inline HostMesh box_mesh(ElementKind e, std::array<bool, 3> periodic, double perturb, Ordering o,
                         std::array<int, 3> n = {6, 5, 4}) {
  BoxConfig b;
  b.cells = n;
  b.element = e;
  b.periodic = periodic;
  b.perturb = perturb;
  HostMesh h = generate_box(b);
  if (o == Ordering::none) return h;
  const Mesh m = upload(h);
  return permute_cells(h, ordering_permutation(h, m, o, 3));
}

/// The device mesh, its operator geometry, and `field` in u (cells x n) and ub (boundary faces x n).
struct FieldSetup {
  Mesh mesh;
  OperatorGeometry geom;
  int n = 1;
  View2<real> u, ub;
};

/// `mirrors`: every patch a mirror patch (walls, symmetry planes) for the vertex and corners stencils,
/// whose mirror images' rows of ub (after the boundary faces') then hold `field` at the images.
inline FieldSetup field_setup(const HostMesh& h, int n, const Field& field, Stencil stencil = Stencil::face,
                              bool mirrors = false) {
  FieldSetup s{upload(h), {}, n, {}, {}};
  s.geom = make_operator_geometry(s.mesh, std::vector<bool>(mirrors ? s.mesh.patches.size() : 0, true), stencil);
  const index_t n_boundary = s.mesh.n_faces - s.mesh.n_interior, n_images = s.geom.stencil.n_images;
  s.u = View2<real>("fvproxy::test::u", s.mesh.n_cells, n);
  s.ub = View2<real>("fvproxy::test::ub", n_boundary + n_images, n);
  auto C = Kokkos::create_mirror_view_and_copy(HostSpace(), s.mesh.centroid);
  auto F = Kokkos::create_mirror_view_and_copy(HostSpace(), s.mesh.face_centroid);
  const auto X = Kokkos::create_mirror_view_and_copy(HostSpace(), s.geom.stencil.image_x);
  auto hu = Kokkos::create_mirror_view(s.u);
  auto hb = Kokkos::create_mirror_view(s.ub);
  for (index_t c = 0; c < s.mesh.n_cells; ++c)
    for (int k = 0; k < n; ++k) {
      const double x[3] = {C(c, 0), C(c, 1), C(c, 2)};
      hu(c, k) = static_cast<real>(field(k, x));
    }
  for (index_t f = s.mesh.n_interior; f < s.mesh.n_faces; ++f)
    for (int k = 0; k < n; ++k) {
      const double x[3] = {F(f, 0), F(f, 1), F(f, 2)};
      hb(f - s.mesh.n_interior, k) = static_cast<real>(field(k, x));
    }
  for (index_t e = 0; e < n_images; ++e)
    for (int k = 0; k < n; ++k) {
      const double x[3] = {X(e, 0), X(e, 1), X(e, 2)};
      hb(n_boundary + e, k) = static_cast<real>(field(k, x));
    }
  Kokkos::deep_copy(s.u, hu);
  Kokkos::deep_copy(s.ub, hb);
  return s;
}

/// A copy of v on the host (never v itself, which create_mirror_view gives on a host backend).
inline HostView2 host_copy(const View2<real>& v) {
  HostView2 h = Kokkos::create_mirror(v);
  Kokkos::deep_copy(h, v);
  return h;
}

inline double max_abs(const HostView2& h) {
  double m = 0;
  for (std::size_t c = 0; c < h.extent(0); ++c)
    for (std::size_t k = 0; k < h.extent(1); ++k) m = std::max(m, double(std::abs(h(c, k))));
  return m;
}

/// max |a - b| over all entries.
inline double max_abs_diff(const HostView2& a, const HostView2& b) {
  double m = 0;
  for (std::size_t c = 0; c < a.extent(0); ++c)
    for (std::size_t k = 0; k < a.extent(1); ++k) m = std::max(m, double(std::abs(a(c, k) - b(c, k))));
  return m;
}

/// Runs `op(rhs)` on a rate that starts at 0.25 everywhere (operators add to it) and returns
/// what it added, on the host.
template <class Op> HostView2 added_rate(const Mesh& m, int n, const Op& op) {
  View2<real> rhs("fvproxy::test::rhs", m.n_cells, n);
  Kokkos::deep_copy(rhs, real(0.25));
  op(rhs);
  auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), rhs);
  for (index_t c = 0; c < m.n_cells; ++c)
    for (int k = 0; k < n; ++k) h(c, k) -= real(0.25);
  return h;
}

/// What `fill(out)` writes into a (faces of patch p, n) array: an operator's patch_fluxes, on the host.
template <class Fill> HostView2 patch_fluxes(const Mesh& m, std::size_t p, int n, const Fill& fill) {
  View2<real> out("fvproxy::test::patch_fluxes", m.patches.at(p).end - m.patches[p].begin, n);
  fill(out);
  return Kokkos::create_mirror_view_and_copy(HostSpace(), out);
}

/// u (cells x 5) = a smooth conserved flow state at the cell centroids (gamma = 1.4): density
/// 1 + 0.2 sin(2x + y), less `jump` where x >= 0.5; velocity (0.3 cos(y + z), 0.2 sin(x - z), 0.1 xy);
/// pressure 1 + 0.1 cos(3x - z).
inline void fill_flow_state(const Mesh& m, const View2<real>& u, double jump = 0) {
  auto C = Kokkos::create_mirror_view_and_copy(HostSpace(), m.centroid);
  auto hu = Kokkos::create_mirror_view(u);
  for (index_t c = 0; c < m.n_cells; ++c) {
    const double x = C(c, 0), y = C(c, 1), z = C(c, 2);
    const double rho = (x < 0.5 ? 1.0 : 1.0 - jump) + 0.2 * std::sin(2 * x + y),
                 v[3] = {0.3 * std::cos(y + z), 0.2 * std::sin(x - z), 0.1 * x * y};
    const double p = 1 + 0.1 * std::cos(3 * x - z);
    hu(c, 0) = rho;
    for (int i = 0; i < 3; ++i) hu(c, 1 + i) = rho * v[i];
    hu(c, 4) = p / 0.4 + 0.5 * rho * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  }
  Kokkos::deep_copy(u, hu);
}

/// A shock on one conserved flow state U (gamma = 1.4), in place: density x `rho_factor`, velocity +
/// `dv`, pressure x `p_factor`. Applied beyond an oblique plane with a `dv` partly along its faces, it
/// makes faces where HLLC and Roe turn to their rotated form (flow::rotated).
inline void shock_flow_state(double* U, double rho_factor, const double (&dv)[3], double p_factor) {
  const double rho0 = U[0], v[3] = {U[1] / rho0 + dv[0], U[2] / rho0 + dv[1], U[3] / rho0 + dv[2]};
  const double p = p_factor * 0.4 * (U[4] - 0.5 * (U[1] * U[1] + U[2] * U[2] + U[3] * U[3]) / rho0);
  const double rho = rho_factor * rho0;
  U[0] = rho;
  for (int i = 0; i < 3; ++i) U[1 + i] = rho * v[i];
  U[4] = p / 0.4 + 0.5 * rho * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

} // namespace fvproxy::test
