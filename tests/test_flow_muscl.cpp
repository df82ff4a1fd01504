// The flow models' MUSCL passes (operators/flow/flow_muscl.hpp): the positivity check of the
// reconstruction inside the fused kernel, and inside the navier-stokes paired pass, gives the limiter
// values of the muscl operator followed by flow_positivity_limit (its own kernel), on tets and hexes,
// with each gradient method, limiter and reconstruction, on a state whose kinetic energy dwarfs its
// pressure (so that the check zeroes some cells).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "operator_fixture.hpp"
#include "operators/flow/flow_muscl.hpp"
#include "operators/flow/flow_viscous.hpp"
#include "test_helpers.hpp"

namespace fvproxy {
namespace {

constexpr int NV = flow::kVariables;
using HostOut = test::HostView2;

/// A fast shear flow at a low pressure: velocity gradients ~15 (a cell's velocity varies by ~1 across
/// it) and p ~ 2e-3, so that a limited MUSCL on U can give a face a negative pressure.
void fill_fast_shear(const Mesh& m, const View2<real>& u) {
  auto C = Kokkos::create_mirror_view_and_copy(HostSpace(), m.centroid);
  auto hu = Kokkos::create_mirror_view(u);
  for (index_t c = 0; c < m.n_cells; ++c) {
    const double x = C(c, 0), y = C(c, 1), z = C(c, 2);
    const double rho = 1 + 0.3 * std::sin(3 * x + 2 * y),
                 v[3] = {3 * std::sin(6 * y + z), 2 * std::cos(5 * x - z), std::sin(4 * x)};
    const double p = 0.05 * (1.5 + std::cos(4 * z));
    hu(c, 0) = rho;
    for (int i = 0; i < 3; ++i) hu(c, 1 + i) = rho * v[i];
    hu(c, 4) = p / 0.4 + 0.5 * rho * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  }
  Kokkos::deep_copy(u, hu);
}

struct State {
  Mesh mesh;
  OperatorGeometry geom;
  std::vector<FlowPatchBC> bcs;
  flow::IdealGas gas;
  View2<real> u, ub, w, wb, wv, wvb;
};

State state(const HostMesh& h) {
  State s{upload(h), {}, {}, {}, {}, {}, {}, {}, {}, {}};
  const Mesh& m = s.mesh;
  s.bcs.resize(m.patches.size());
  const FlowBoundaryKind types[] = {FlowBoundaryKind::slip_wall, FlowBoundaryKind::supersonic_outflow,
                                    FlowBoundaryKind::no_slip_wall, FlowBoundaryKind::symmetry};
  for (std::size_t i = 0; i < s.bcs.size(); ++i) s.bcs[i].type = types[i % 4];
  s.geom = make_operator_geometry(m, mirror_patches(s.bcs));
  s.gas.gas_constant = 1;
  const index_t nb = m.n_faces - m.n_interior;
  s.u = View2<real>("fvproxy::test::u", m.n_cells, NV);
  fill_fast_shear(m, s.u);
  s.ub = View2<real>("fvproxy::test::ub", nb, NV);
  flow_boundary_values(m, s.gas, s.bcs, s.u, s.ub);
  s.w = View2<real>("fvproxy::test::w", m.n_cells, NV);
  s.wb = View2<real>("fvproxy::test::wb", nb, NV);
  flow_primitive_state(m, s.gas, s.bcs, s.u, s.w, s.wb);
  s.wv = View2<real>("fvproxy::test::wv", m.n_cells, 4);
  s.wvb = View2<real>("fvproxy::test::wvb", nb, 4);
  flow_primitive_fields(m, s.gas, s.bcs, s.u, s.wv, s.wvb);
  return s;
}

TEST(FlowMuscl, PositivityCheckInThePassEqualsTheSeparateKernel) {
  const std::vector<std::pair<std::string, HostMesh>> meshes{
      {"tet jitter zorder", test::box_mesh(ElementKind::tet, {false, false, false}, 0.15, Ordering::zorder)},
      {"hex jitter random", test::box_mesh(ElementKind::hex, {false, false, false}, 0.2, Ordering::random)}};
  for (const auto& [name, h] : meshes) {
    const State s = state(h);
    const Mesh& m = s.mesh;
    for (FlowVariables rec : {FlowVariables::conservative, FlowVariables::primitive})
      for (Gradient method : {Gradient::least_squares, Gradient::green_gauss})
        for (Limiter limiter : {Limiter::venkatakrishnan, Limiter::barth_jespersen}) {
          const bool primitive = rec == FlowVariables::primitive;
          SCOPED_TRACE(name + (primitive ? ", MUSCL on W, " : ", MUSCL on U, ") + to_string(method) + ", " +
                       to_string(limiter));
          MusclConfig cfg;
          cfg.gradient = method, cfg.limiter = limiter;
          const LimiterScale scale = flow_limiter_scale();
          const View2<real> in = primitive ? s.w : s.u, in_b = primitive ? s.wb : s.ub;
          // the reference: the fused muscl operator, then flow_positivity_limit
          View2<real> rg("fvproxy::test::ref_grad", m.n_cells, 3 * NV), rl("fvproxy::test::ref_lim", m.n_cells, NV);
          make_muscl(m, s.geom, cfg, NV, false, scale)->compute(in, in_b, rg, rl);
          const HostOut before = test::host_copy(rl);
          flow_positivity_limit(m, s.geom, rec, s.gas, s.u, rg, rl, Part::all);
          const HostOut ref = test::host_copy(rl);
          int zeroed = 0;
          for (index_t c = 0; c < m.n_cells; ++c) { // limited before, first order after
            bool was = false, now = true;
            for (int k = 0; k < NV; ++k) was = was || before(c, k) > 0, now = now && ref(c, k) == 0;
            zeroed += was && now;
          }
          // the fused pass with the check
          const FlowPositivityCheck check{true, rec, s.gas};
          const FlowMuscl f = make_flow_muscl(m, s.geom, cfg, false, scale, check);
          ASSERT_TRUE(f.positivity_checked);
          View2<real> g("fvproxy::test::grad", m.n_cells, 3 * NV), l("fvproxy::test::lim", m.n_cells, NV);
          f.muscl->compute(in, in_b, g, l);
          // the paired pass with the check (its velocity shared with MUSCL on W)
          View2<real> pg("fvproxy::test::paired_grad", m.n_cells, 3 * NV),
              pl("fvproxy::test::paired_lim", m.n_cells, NV), pv("fvproxy::test::paired_viscous", m.n_cells, 12);
          make_paired_muscl(m, s.geom, cfg, scale, primitive, check)
              ->compute(in, in_b, s.wv, s.wvb, pg, pl, pv, Part::all);
          const HostOut got = test::host_copy(l), paired = test::host_copy(pl), hg = test::host_copy(g),
                        hrg = test::host_copy(rg);
          double d = 0, dp = 0, dg = 0;
          for (index_t c = 0; c < m.n_cells; ++c) {
            for (int k = 0; k < NV; ++k) {
              d = std::max(d, std::abs(double(got(c, k) - ref(c, k))));
              dp = std::max(dp, std::abs(double(paired(c, k) - ref(c, k))));
            }
            for (int j = 0; j < 3 * NV; ++j) dg = std::max(dg, std::abs(double(hg(c, j) - hrg(c, j))));
          }
          EXPECT_LE(d, test::tol(1e-13));
          EXPECT_LE(dp, test::tol(1e-13));
          EXPECT_LE(dg, test::tol(1e-12));
          std::printf("[flow muscl] %s: %d of %d cells first order by the check\n",
                      (name + (primitive ? ", W, " : ", U, ") + to_string(method) + ", " + to_string(limiter)).c_str(),
                      zeroed, int(m.n_cells));
          if (!primitive) {
            EXPECT_GT(zeroed, 0) << "the state must make the check act";
          }
        }
  }
}

TEST(FlowMuscl, NoCheckWhereTheMusclOperatorDoesNotFuse) {
  const State s = state(test::box_mesh(ElementKind::tet, {false, false, false}, 0.1, Ordering::none));
  const FlowPositivityCheck check{true, FlowVariables::conservative, s.gas};
  MusclConfig cfg;
  cfg.fused = false; // two passes: flow_positivity_limit after them
  EXPECT_FALSE(make_flow_muscl(s.mesh, s.geom, cfg, false, flow_limiter_scale(), check).positivity_checked);
  cfg = MusclConfig{};
  cfg.limiter = Limiter::none; // unlimited: the face states' own fallback only
  EXPECT_FALSE(make_flow_muscl(s.mesh, s.geom, cfg, false, {}, check).positivity_checked);
  cfg = MusclConfig{};
  EXPECT_FALSE(
      make_flow_muscl(s.mesh, s.geom, cfg, false, flow_limiter_scale(), FlowPositivityCheck{}).positivity_checked);
  EXPECT_TRUE(make_flow_muscl(s.mesh, s.geom, cfg, false, flow_limiter_scale(), check).positivity_checked);
}

} // namespace
} // namespace fvproxy
