// The navier-stokes face pass (operators.step: fused; docs/operators/face-pass.md): the convective
// and viscous fluxes of the interior faces in one pass, then each operator's boundary patches, equal
// the optimized convection followed by the optimized viscous operator, for each numerical flux,
// reconstruction, viscosity law, accumulation and launch policy, on hexes, tets, prisms and a Gmsh
// mesh with every wall type among the patches.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>

#include "mesh/gmsh_reader.hpp"
#include "operator_fixture.hpp"
#include "operators/face_pass/flow_face_pass.hpp"
#include "operators/muscl/muscl.hpp"
#include "test_helpers.hpp"

namespace fvproxy {
namespace {

constexpr int NV = flow::kVariables;

struct FlowProblem {
  Mesh mesh;
  OperatorGeometry geom;
  std::vector<FlowPatchBC> bcs;
  View2<real> u, ub, grad, lim, w, wb, gw;
};

/// A smooth state with a density jump (test::fill_flow_state), every boundary type with a viscous flux among the
/// patches (no-slip walls isothermal and adiabatic, slip walls, symmetry planes) and two without (far field, subsonic
/// outflow); the MUSCL gradients and Venkatakrishnan limiter of U, and W = (u, v, w, T) with its gradients.
FlowProblem flow_problem(const HostMesh& h, std::size_t first) {
  FlowProblem p{upload(h), {}, {}, {}, {}, {}, {}, {}, {}, {}};
  const Mesh& m = p.mesh;
  const FlowBoundaryKind types[] = {FlowBoundaryKind::no_slip_wall, FlowBoundaryKind::slip_wall,
                                    FlowBoundaryKind::no_slip_wall, FlowBoundaryKind::farfield,
                                    FlowBoundaryKind::symmetry,     FlowBoundaryKind::subsonic_outflow};
  p.bcs.resize(m.patches.size());
  for (std::size_t i = 0; i < p.bcs.size(); ++i) {
    FlowPatchBC& b = p.bcs[i];
    b.type = types[(i + first) % 6];
    b.wall_temperature = (i + first) % 6 == 0 ? real(1.3) : real(0);
    b.wall_velocity[1] = real(0.2);
    b.state = {real(1), {real(0.3), 0, 0}, real(1)};
    b.pressure = real(0.9);
  }
  p.geom = make_operator_geometry(m, mirror_patches(p.bcs));
  p.u = View2<real>("fvproxy::test::u", m.n_cells, NV);
  test::fill_flow_state(m, p.u, 0.4); // a density jump at x = 0.5 for the limiter
  {
    // and a shock on the oblique plane 2x + y + z = 2.2 (pressure x 2.5, a velocity jump partly along
    // every face it crosses): HLLC and Roe turn there (flow::rotated)
    auto C = Kokkos::create_mirror_view_and_copy(HostSpace(), m.centroid);
    auto hu = Kokkos::create_mirror_view_and_copy(HostSpace(), p.u);
    for (index_t c = 0; c < m.n_cells; ++c) {
      if (2 * C(c, 0) + C(c, 1) + C(c, 2) < 2.2) continue;
      double U[NV];
      for (int k = 0; k < NV; ++k) U[k] = hu(c, k);
      test::shock_flow_state(U, 1, {-0.5, 0.3, 0.2}, 2.5);
      for (int k = 0; k < NV; ++k) hu(c, k) = U[k];
    }
    Kokkos::deep_copy(p.u, hu);
  }
  const index_t nb = m.n_faces - m.n_interior;
  flow::IdealGas gas;
  gas.gas_constant = 1;
  p.ub = View2<real>("fvproxy::test::ub", nb, NV);
  flow_boundary_values(m, gas, p.bcs, p.u, p.ub);
  p.grad = View2<real>("fvproxy::test::grad", m.n_cells, 3 * NV);
  p.lim = View2<real>("fvproxy::test::lim", m.n_cells, NV);
  MusclConfig mc;
  mc.limiter = Limiter::venkatakrishnan;
  make_muscl(m, p.geom, mc, NV, true, flow_limiter_scale())->compute(p.u, p.ub, p.grad, p.lim);
  p.w = View2<real>("fvproxy::test::w", m.n_cells, 4);
  p.wb = View2<real>("fvproxy::test::wb", nb, 4);
  p.gw = View2<real>("fvproxy::test::gw", m.n_cells, 12);
  flow_primitive_fields(m, gas, p.bcs, p.u, p.w, p.wb);
  make_muscl(m, p.geom, MusclConfig{}, 4, true, {})->compute(p.w, p.wb, p.gw, View2<real>());
  return p;
}

struct Options {
  FlowConvectionConfig conv;
  FlowViscousConfig visc;
};

Options options(flow::FluxType flux, int order, FlowVariables rec, FlowViscosity::Law law, Scatter s, Policy pol) {
  Options o;
  o.conv.flux = flux, o.conv.order = order, o.conv.reconstruction = rec;
  o.conv.gas.gas_constant = 1;
  o.visc.gas.gas_constant = 1;
  o.visc.viscosity.law = law;
  o.visc.viscosity.constant.mu = real(0.05);
  o.visc.viscosity.sutherland = {real(0.04), real(1.0), real(0.4)};
  for (OperatorOptions* x : {static_cast<OperatorOptions*>(&o.conv), static_cast<OperatorOptions*>(&o.visc)})
    x->scatter = s, x->policy = pol, x->team_size = 64;
  return o;
}

test::HostView2 separate(const FlowProblem& p, const Options& o, bool det, bool conv = true, bool visc = true) {
  const auto c = make_flow_convection(p.mesh, p.geom, o.conv, p.bcs, det);
  const auto v = make_flow_viscous(p.mesh, p.geom, o.visc, p.bcs, det);
  return test::added_rate(p.mesh, NV, [&](View2<real> rhs) {
    if (conv) c->apply(p.u, p.grad, p.lim, rhs);
    if (visc) v->apply(p.w, p.wb, p.gw, rhs);
  });
}

test::HostView2 fused(const FlowProblem& p, const Options& o, bool det) {
  const auto f = make_flow_face_pass(p.mesh, p.geom, o.conv, o.visc, p.bcs, det);
  return test::added_rate(p.mesh, NV, [&](View2<real> rhs) { f->apply(p.u, p.grad, p.lim, p.w, p.wb, p.gw, rhs); });
}

TEST(FlowFacePass, EqualsConvectionThenViscous) {
  const std::vector<std::pair<std::string, HostMesh>> meshes{
      {"hex jitter zorder", test::box_mesh(ElementKind::hex, {false, false, false}, 0.25, Ordering::zorder)},
      {"tet jitter random", test::box_mesh(ElementKind::tet, {false, false, false}, 0.15, Ordering::random)},
      {"prism periodic x hilbert", test::box_mesh(ElementKind::prism, {true, false, false}, 0.1, Ordering::hilbert)},
      {"gmsh hybrid", read_gmsh(test::source_path("mesh/hybrid_channel.msh"))}};
  std::size_t first = 0;
  for (const auto& [name, h] : meshes) {
    const FlowProblem p = flow_problem(h, first++);
    for (const auto& [flux, order, rec, law] :
         {std::tuple{flow::FluxType::hllc, 2, FlowVariables::primitive, FlowViscosity::Law::sutherland},
          std::tuple{flow::FluxType::roe, 2, FlowVariables::conservative, FlowViscosity::Law::constant},
          std::tuple{flow::FluxType::rusanov, 1, FlowVariables::conservative, FlowViscosity::Law::sutherland}}) {
      // Both terms matter: a pass that dropped either (or a boundary kernel) would differ by far more
      // than round-off.
      const Options g = options(flux, order, rec, law, Scatter::gather, Policy::range);
      const double conv = test::max_abs(separate(p, g, true, true, false));
      const double visc = test::max_abs(separate(p, g, true, false, true));
      ASSERT_GT(visc, 1e-3 * conv) << name;
      if (flux != flow::FluxType::rusanov) { // the shock's faces turn: not the face-normal flux's rates
        Options normal = g;
        normal.conv.rotated = false;
        EXPECT_GT(test::max_abs_diff(separate(p, normal, true, true, false), separate(p, g, true, true, false)),
                  1e-3 * conv)
            << name << ": no face turned";
      }
      for (const auto& [s, pol, det] :
           {std::tuple{Scatter::gather, Policy::range, true}, std::tuple{Scatter::gather, Policy::team, false},
            std::tuple{Scatter::atomic, Policy::range, false}, std::tuple{Scatter::atomic, Policy::team, false},
            std::tuple{Scatter::stored, Policy::range, false}, std::tuple{Scatter::stored, Policy::team, true}}) {
        const Options o = options(flux, order, rec, law, s, pol);
        SCOPED_TRACE(name + ", " + to_string(flux) + ", order " + std::to_string(order) + ", " + to_string(s) + "/" +
                     to_string(pol));
        // the separate viscous operator has no stored accumulation: against the gather
        const Options so = s == Scatter::stored ? options(flux, order, rec, law, Scatter::gather, pol) : o;
        const test::HostView2 ref = separate(p, so, det), got = fused(p, o, det);
        EXPECT_LE(test::max_abs_diff(got, ref), test::tol(1e-13) * test::max_abs(ref));
        if (s != Scatter::stored) continue;
        // The flow convection alone (euler) stores too: each face's flux, summed per cell in the
        // gather's order, is the gather's rate bitwise.
        const auto stored = make_flow_convection(p.mesh, p.geom, o.conv, p.bcs, det);
        const auto gather = make_flow_convection(p.mesh, p.geom, so.conv, p.bcs, det);
        const auto rate = [&](const auto& op) {
          return test::added_rate(p.mesh, NV, [&](View2<real> rhs) { op->apply(p.u, p.grad, p.lim, rhs); });
        };
        EXPECT_EQ(test::max_abs_diff(rate(stored), rate(gather)), 0.0);
      }
      // The wall forces' fluxes: the face pass gives each patch's convective and viscous fluxes as
      // the two operators do (with one face pass the solver holds no other operator).
      const auto c = make_flow_convection(p.mesh, p.geom, g.conv, p.bcs, true);
      const auto v = make_flow_viscous(p.mesh, p.geom, g.visc, p.bcs, true);
      const auto f = make_flow_face_pass(p.mesh, p.geom, g.conv, g.visc, p.bcs, true);
      for (std::size_t q = 0; q < p.mesh.patches.size(); ++q) {
        SCOPED_TRACE(name + ", patch " + std::to_string(q) + " (" + to_string(p.bcs[q].type) + ")");
        const auto conv_ref =
            test::patch_fluxes(p.mesh, q, NV, [&](View2<real> o) { c->patch_fluxes(p.u, p.grad, p.lim, q, o); });
        const auto conv_got = test::patch_fluxes(
            p.mesh, q, NV, [&](View2<real> o) { f->convection_patch_fluxes(p.u, p.grad, p.lim, q, o); });
        EXPECT_GT(test::max_abs(conv_ref), 0.0);
        EXPECT_EQ(test::max_abs_diff(conv_got, conv_ref), 0.0);
        const auto visc_ref =
            test::patch_fluxes(p.mesh, q, NV, [&](View2<real> o) { v->patch_fluxes(p.w, p.wb, p.gw, q, o); });
        const auto visc_got =
            test::patch_fluxes(p.mesh, q, NV, [&](View2<real> o) { f->viscous_patch_fluxes(p.w, p.wb, p.gw, q, o); });
        EXPECT_EQ(test::max_abs_diff(visc_got, visc_ref), 0.0);
        const bool walled = p.bcs[q].type == FlowBoundaryKind::no_slip_wall ||
                            p.bcs[q].type == FlowBoundaryKind::slip_wall || p.bcs[q].type == FlowBoundaryKind::symmetry;
        EXPECT_EQ(test::max_abs(visc_ref) > 0, walled);
      }
    }
  }
}

TEST(FlowFacePass, RefusesMismatchedOperators) {
  const FlowProblem p =
      flow_problem(test::box_mesh(ElementKind::hex, {false, false, false}, 0, Ordering::none, {3, 3, 3}), 0);
  Options o = options(flow::FluxType::hllc, 2, FlowVariables::primitive, FlowViscosity::Law::constant, Scatter::gather,
                      Policy::range);
  o.visc.scatter = Scatter::atomic;
  EXPECT_THROW(make_flow_face_pass(p.mesh, p.geom, o.conv, o.visc, p.bcs, false), InputError);
  o = options(flow::FluxType::hllc, 2, FlowVariables::primitive, FlowViscosity::Law::constant, Scatter::gather,
              Policy::range);
  o.conv.variant = Variant::naive;
  EXPECT_THROW(make_flow_face_pass(p.mesh, p.geom, o.conv, o.visc, p.bcs, false), InputError);
  // stored fluxes: the face pass and the convection; the separate viscous operator refuses them
  o = options(flow::FluxType::hllc, 2, FlowVariables::primitive, FlowViscosity::Law::constant, Scatter::stored,
              Policy::range);
  EXPECT_NO_THROW(make_flow_face_pass(p.mesh, p.geom, o.conv, o.visc, p.bcs, false));
  EXPECT_NO_THROW(make_flow_convection(p.mesh, p.geom, o.conv, p.bcs, false));
  EXPECT_THROW(make_flow_viscous(p.mesh, p.geom, o.visc, p.bcs, false), InputError);
}

} // namespace
} // namespace fvproxy
