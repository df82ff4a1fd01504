// The compressible model's viscous operator (operators/flow/flow_viscous.hpp): both variants and
// every option agree, and on linear velocity and temperature fields it gives the exact viscous
// terms (zero momentum rate, energy rate tau : grad u) in every cell away from the boundary.
#include <gtest/gtest.h>

#include <cmath>

#include "operator_fixture.hpp"
#include "operators/flow/flow_viscous.hpp"
#include "operators/muscl/muscl.hpp"
#include "test_helpers.hpp"

namespace fvproxy {
namespace {

constexpr int NV = flow::kVariables;
constexpr int NW = 4;

struct ViscousSetup {
  Mesh mesh;
  OperatorGeometry geom;
  View2<real> u, w, wb, gw;
};

ViscousSetup setup(const HostMesh& h) {
  ViscousSetup s{upload(h), {}, {}, {}, {}, {}};
  s.geom = make_operator_geometry(s.mesh);
  s.u = View2<real>("fvproxy::test::visc_u", s.mesh.n_cells, NV);
  s.w = View2<real>("fvproxy::test::visc_w", s.mesh.n_cells, NW);
  s.wb = View2<real>("fvproxy::test::visc_wb", s.mesh.n_faces - s.mesh.n_interior, NW);
  s.gw = View2<real>("fvproxy::test::visc_gw", s.mesh.n_cells, 3 * NW);
  return s;
}

/// Gradients of W (least squares, no limiter) from w and wb.
void gradients(ViscousSetup& s) {
  const MusclConfig mc;
  View2<real> unused("fvproxy::test::visc_lim", s.mesh.n_cells, NW);
  make_muscl(s.mesh, s.geom, mc, NW, false, {})->compute(s.w, s.wb, s.gw, unused);
}

test::HostView2 rate(const ViscousSetup& s, const FlowViscousOperator& op) {
  return test::added_rate(s.mesh, NV, [&](View2<real> rhs) { op.apply(s.w, s.wb, s.gw, rhs); });
}

FlowViscousConfig config(Variant v, Scatter sc, Policy p, FlowViscosity::Law law) {
  FlowViscousConfig c;
  c.variant = v, c.scatter = sc, c.policy = p, c.team_size = 64;
  c.viscosity.law = law;
  c.viscosity.constant.mu = real(0.05);
  c.viscosity.sutherland = {real(0.04), real(1.0), real(0.4)}; // a scaled law, T ~ 1 in these units
  c.gas.gas_constant = 1;
  return c;
}

/// w and wb from W(q, x, y, z) at the cells' and the boundary faces' centroids (exact boundary
/// values for the gradients), then the gradients.
template <class Field> void fill_exact(ViscousSetup& s, const Field& W) {
  auto C = Kokkos::create_mirror_view_and_copy(HostSpace(), s.mesh.centroid);
  auto Fc = Kokkos::create_mirror_view_and_copy(HostSpace(), s.mesh.face_centroid);
  auto hw = Kokkos::create_mirror_view(s.w);
  auto hb = Kokkos::create_mirror_view(s.wb);
  for (index_t c = 0; c < s.mesh.n_cells; ++c)
    for (int q = 0; q < NW; ++q) hw(c, q) = W(q, C(c, 0), C(c, 1), C(c, 2));
  for (index_t f = s.mesh.n_interior; f < s.mesh.n_faces; ++f)
    for (int q = 0; q < NW; ++q) hb(f - s.mesh.n_interior, q) = W(q, Fc(f, 0), Fc(f, 1), Fc(f, 2));
  Kokkos::deep_copy(s.w, hw);
  Kokkos::deep_copy(s.wb, hb);
  gradients(s);
}

/// Both variants' rates in every cell with no boundary face (far-field patches: the boundary's
/// own fluxes do not matter there): 0 for momentum, `energy` (to `energy_tol`) for the energy.
void expect_inner_rates(const ViscousSetup& s, double energy, double energy_tol) {
  FlowPatchBC farfield;
  farfield.type = FlowBoundaryKind::farfield, farfield.state = {};
  const std::vector<FlowPatchBC> far(s.mesh.patches.size(), farfield);
  auto off = Kokkos::create_mirror_view_and_copy(HostSpace(), s.mesh.cell_face_off);
  auto faces = Kokkos::create_mirror_view_and_copy(HostSpace(), s.mesh.cell_faces);
  for (Variant v : {Variant::naive, Variant::optimized}) {
    const auto op = make_flow_viscous(
        s.mesh, s.geom, config(v, Scatter::gather, Policy::range, FlowViscosity::Law::constant), far, false);
    const test::HostView2 r = rate(s, *op);
    int checked = 0;
    for (index_t c = 0; c < s.mesh.n_cells; ++c) {
      bool inner = true;
      for (index_t q = off(c); q < off(c + 1); ++q) inner = inner && faces(q) < s.mesh.n_interior;
      if (!inner) continue;
      ++checked;
      for (int k = 1; k < 4; ++k) EXPECT_NEAR(r(c, k), 0.0, test::tol(1e-11)) << op->description() << " cell " << c;
      EXPECT_NEAR(r(c, 4), energy, energy_tol) << op->description() << " cell " << c;
    }
    EXPECT_GT(checked, 20);
  }
}

TEST(FlowViscous, VariantsAgreeOnEveryMeshAndViscosityLaw) {
  const std::vector<std::pair<std::string, HostMesh>> meshes{
      {"hex jitter zorder", test::box_mesh(ElementKind::hex, {false, false, false}, 0.25, Ordering::zorder)},
      {"tet periodic-x random", test::box_mesh(ElementKind::tet, {true, false, false}, 0.15, Ordering::random)},
      {"prism periodic-y none", test::box_mesh(ElementKind::prism, {false, true, false}, 0.1, Ordering::none)}};
  std::size_t first = 0;
  for (const auto& [name, h] : meshes) {
    ViscousSetup s = setup(h);
    test::fill_flow_state(s.mesh, s.u); // a smooth state: density, velocity, pressure
    // every boundary type with a viscous flux (no-slip walls isothermal and adiabatic, slip walls,
    // symmetry planes) and one without (far field), over the meshes
    std::vector<FlowPatchBC> bcs(s.mesh.patches.size());
    const FlowBoundaryKind types[] = {FlowBoundaryKind::no_slip_wall, FlowBoundaryKind::slip_wall,
                                      FlowBoundaryKind::no_slip_wall, FlowBoundaryKind::farfield,
                                      FlowBoundaryKind::symmetry};
    for (std::size_t i = 0; i < bcs.size(); ++i) {
      bcs[i].type = types[(i + first) % 5];
      bcs[i].wall_temperature = (i + first) % 5 == 0 ? real(1.3) : real(0);
      bcs[i].wall_velocity[1] = real(0.2);
    }
    first += 2;
    s.geom = make_operator_geometry(s.mesh, mirror_patches(bcs));
    flow::IdealGas gas;
    gas.gas_constant = 1;
    flow_primitive_fields(s.mesh, gas, bcs, s.u, s.w, s.wb);
    gradients(s);
    for (FlowViscosity::Law law : {FlowViscosity::Law::constant, FlowViscosity::Law::sutherland}) {
      SCOPED_TRACE(name + (law == FlowViscosity::Law::constant ? ", constant" : ", sutherland"));
      const test::HostView2 ref =
          rate(s, *make_flow_viscous(s.mesh, s.geom, config(Variant::naive, Scatter::atomic, Policy::range, law), bcs,
                                     false));
      const double scale = test::max_abs(ref);
      ASSERT_GT(scale, 1e-3);
      for (int k : {1, 2, 3, 4}) { // every viscous equation is exercised, the mass one never
        double m = 0, m0 = 0;
        for (index_t c = 0; c < s.mesh.n_cells; ++c)
          m = std::max(m, double(std::abs(ref(c, k)))), m0 += std::abs(ref(c, 0));
        EXPECT_GT(m, 1e-4 * scale) << "equation " << k;
        EXPECT_EQ(m0, 0.0);
      }
      struct V {
        Variant v;
        Scatter sc;
        Policy p;
        bool det;
      };
      for (const V& v : {V{Variant::naive, Scatter::gather, Policy::range, true},
                         V{Variant::optimized, Scatter::gather, Policy::range, false},
                         V{Variant::optimized, Scatter::gather, Policy::team, false},
                         V{Variant::optimized, Scatter::atomic, Policy::range, false},
                         V{Variant::optimized, Scatter::atomic, Policy::team, false}}) {
        const auto op = make_flow_viscous(s.mesh, s.geom, config(v.v, v.sc, v.p, law), bcs, v.det);
        EXPECT_LE(test::max_abs_diff(rate(s, *op), ref), test::tol(1e-12) * scale) << op->description();
      }
      // the wall forces' fluxes (patch_fluxes) of each patch: naive and optimized agree, and the
      // patches with a viscous flux have one
      const auto naive =
          make_flow_viscous(s.mesh, s.geom, config(Variant::naive, Scatter::gather, Policy::range, law), bcs, true);
      const auto opt = make_flow_viscous(s.mesh, s.geom,
                                         config(Variant::optimized, Scatter::atomic, Policy::range, law), bcs, false);
      for (std::size_t p = 0; p < s.mesh.patches.size(); ++p) {
        const test::HostView2 ha =
            test::patch_fluxes(s.mesh, p, NV, [&](View2<real> out) { naive->patch_fluxes(s.w, s.wb, s.gw, p, out); });
        const test::HostView2 hb =
            test::patch_fluxes(s.mesh, p, NV, [&](View2<real> out) { opt->patch_fluxes(s.w, s.wb, s.gw, p, out); });
        EXPECT_LE(test::max_abs_diff(ha, hb), test::tol(1e-12) * scale) << "patch " << p;
        if (bcs[p].type == FlowBoundaryKind::farfield)
          EXPECT_EQ(test::max_abs(ha), 0.0) << "patch " << p;
        else
          EXPECT_GT(test::max_abs(ha), 0.0) << "patch " << p << " (" << to_string(bcs[p].type) << ")";
      }
    }
  }
}

TEST(FlowViscous, ExactOnLinearFieldsAwayFromTheBoundary) {
  // W = (u, v, w, T) linear with exact values on the boundary faces: the least-squares gradients,
  // the corrected face gradients and the face values are exact, so in every cell with no boundary
  // face the rate is the exact one: 0 for momentum (tau constant), tau : grad u for the energy
  // (the heat flux is constant too). Meshes with planar faces (tets jittered, hexes not), where a
  // face's area vector times its centroid value integrates a linear field exactly.
  const double G[4][3] = {{0.3, -0.7, 0.2}, {0.5, 0.1, -0.4}, {-0.2, 0.6, 0.3}, {0.8, -0.3, 0.5}};
  const double W0[4] = {0.1, -0.2, 0.3, 1.5};
  const double mu = 0.05;
  double div = G[0][0] + G[1][1] + G[2][2], tau_grad = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) tau_grad += mu * (G[i][j] + G[j][i] - (i == j ? 2.0 / 3 * div : 0)) * G[i][j];
  for (const HostMesh& h :
       {test::box_mesh(ElementKind::tet, {false, false, false}, 0.2, Ordering::random, {6, 6, 6}),
        test::box_mesh(ElementKind::hex, {false, false, false}, 0.0, Ordering::zorder, {6, 6, 6})}) {
    ViscousSetup s = setup(h);
    fill_exact(s, [&](int q, double x, double y, double z) { return W0[q] + G[q][0] * x + G[q][1] * y + G[q][2] * z; });
    expect_inner_rates(s, tau_grad, test::tol(1e-11));
  }
}

TEST(FlowViscous, HeatFluxOfAQuadraticTemperatureIsExact) {
  // T = T0 + a |x|^2 and the velocity at rest on unjittered hexes: the least-squares gradients are
  // exact at the centroids, the corrected face gradients exact at the faces, so the rate of every
  // inner cell is the exact k laplacian(T) = 6 a k for the energy and 0 for momentum (a linear T
  // has no divergence of its heat flux: a dropped heat flux was invisible there).
  const double T0 = 1.2, a = 0.3, mu = 0.05;
  const double k = mu * 1.4 * 1.0 / (0.4 * 0.72); // c_p mu / Pr, R = 1 (config())
  ViscousSetup s = setup(test::box_mesh(ElementKind::hex, {false, false, false}, 0.0, Ordering::zorder, {6, 6, 6}));
  fill_exact(s, [&](int q, double x, double y, double z) { return q < 3 ? 0.0 : T0 + a * (x * x + y * y + z * z); });
  expect_inner_rates(s, 6 * a * k, test::tol(1e-10) * 6 * a * k);
}

} // namespace
} // namespace fvproxy
