// The navier-stokes cell pass (operators/muscl/muscl_paired.hpp): the MUSCL gradients and limiter
// values of 5 components and the unlimited gradients of 4 more in one gather per cell equal the fused
// muscl operator on the first set and the gradient operator on the second, on hexes, tets, prisms
// and a Gmsh mesh, with each gradient method, limiter (none too), launch policy and stencil, and with
// the second set's velocity shared with the first (the flow models' MUSCL on (rho, u, p)).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "mesh/gmsh_reader.hpp"
#include "operator_fixture.hpp"
#include "operators/flow/flow_muscl.hpp"
#include "operators/muscl/limiter.hpp"
#include "operators/muscl/muscl.hpp"
#include "operators/muscl/muscl_paired.hpp"
#include "test_helpers.hpp"

namespace fvproxy {
namespace {

using HostOut = test::HostView2;

/// Smooth fields with a jump (the limiters act on some cells), different in each set.
const test::Field kFirst = [](int k, const double* x) {
  const double r2 = (x[0] - 0.5) * (x[0] - 0.5) + (x[1] - 0.45) * (x[1] - 0.45) + (x[2] - 0.4) * (x[2] - 0.4);
  return std::exp(-r2 / 0.05) + (r2 < 0.06 ? 0.5 : 0.0) + std::sin(3 * x[2] + k) + 0.1 * k;
};
const test::Field kSecond = [](int k, const double* x) {
  return std::cos(2 * x[0] - x[1] + k) + (x[1] > 0.55 ? 0.3 * (k + 1) : 0.0) + x[2] * x[2];
};

View2<real> poisoned(const std::string& name, index_t rows, int cols) {
  View2<real> v(name, rows, cols);
  Kokkos::deep_copy(v, std::nan(""));
  return v;
}

/// max |a - b| over every entry (NaN, an entry not written, counts as infinite) and max |b|.
std::pair<double, double> compare(const HostOut& a, const HostOut& b) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < a.extent(0); ++i)
    for (std::size_t j = 0; j < a.extent(1); ++j) {
      const double d = std::abs(double(a(i, j)) - double(b(i, j)));
      diff = std::isfinite(d) ? std::max(diff, d) : INFINITY;
      scale = std::max(scale, double(std::abs(b(i, j))));
    }
  return {diff, scale};
}

TEST(MusclPaired, EqualsTheTwoSetsOnTheirOwn) {
  struct Case {
    std::string name;
    HostMesh mesh;
    Stencil stencil;
  };
  const std::vector<Case> cases{
      {"hex jitter zorder", test::box_mesh(ElementKind::hex, {false, false, false}, 0.25, Ordering::zorder),
       Stencil::face},
      {"tet jitter random", test::box_mesh(ElementKind::tet, {false, false, false}, 0.15, Ordering::random),
       Stencil::face},
      {"prism periodic-y none", test::box_mesh(ElementKind::prism, {false, true, false}, 0.1, Ordering::none),
       Stencil::face},
      {"gmsh hybrid", read_gmsh(test::source_path("mesh/hybrid_channel.msh")), Stencil::face},
      {"tet periodic-x vertex stencil", test::box_mesh(ElementKind::tet, {true, false, false}, 0.15, Ordering::hilbert),
       Stencil::vertex},
      // Mirror patches on every side: the corner cells' entries summed by the pre-pass (stencil_sums.hpp)
      // in the paired pass; the second set's reference walks them (an unlimited gradient operator).
      {"tet mirrors corners stencil", test::box_mesh(ElementKind::tet, {false, false, false}, 0.15, Ordering::zorder),
       Stencil::corners}};
  for (const Case& c : cases) {
    const bool mirrors = c.stencil == Stencil::corners;
    const test::FieldSetup a = test::field_setup(c.mesh, 5, kFirst, c.stencil, mirrors);
    const test::FieldSetup b = test::field_setup(c.mesh, 4, kSecond, c.stencil, mirrors);
    // The flow models' layout with MUSCL on (rho, u, p): the second set's velocity in the cell rows is
    // the first set's (its boundary rows differ).
    View2<real> b_shared("fvproxy::test::u2_shared", b.mesh.n_cells, 4);
    Kokkos::deep_copy(b_shared, b.u);
    Kokkos::deep_copy(Kokkos::subview(b_shared, Kokkos::ALL, Kokkos::make_pair(0, 3)),
                      Kokkos::subview(a.u, Kokkos::ALL, Kokkos::make_pair(1, 4)));
    const Mesh& m = a.mesh;
    const LimiterScale scale = scalar_limiter_scale(a.u, a.ub);
    for (Gradient method : {Gradient::least_squares, Gradient::green_gauss})
      for (Limiter limiter : {Limiter::none, Limiter::venkatakrishnan, Limiter::barth_jespersen})
        for (const auto& [policy, shared] :
             {std::pair{Policy::range, false}, std::pair{Policy::team, false}, std::pair{Policy::range, true}}) {
          if (c.stencil != Stencil::face && method == Gradient::green_gauss) continue; // refused: faces only
          SCOPED_TRACE(c.name + ", " + to_string(method) + ", " + to_string(limiter) + ", " + to_string(policy) +
                       (shared ? ", shared velocity" : ""));
          const View2<real> u2 = shared ? b_shared : b.u;
          MusclConfig cfg;
          cfg.gradient = method, cfg.limiter = limiter, cfg.policy = policy, cfg.team_size = 64;
          cfg.stencil = c.stencil;
          const bool limited = limiter != Limiter::none;
          const LimiterScale s = limited ? scale : LimiterScale{};
          View2<real> g1 = poisoned("fvproxy::test::grad1", m.n_cells, 15),
                      l = poisoned("fvproxy::test::lim", m.n_cells, 5),
                      g2 = poisoned("fvproxy::test::grad2", m.n_cells, 12);
          const auto paired = make_paired_muscl(m, a.geom, cfg, s, shared, FlowPositivityCheck{});
          ASSERT_EQ(paired->limits(), limited);
          ASSERT_EQ(paired->description().find("shared velocity") != std::string::npos, shared);
          ASSERT_EQ(paired->description().find("summed by a team") != std::string::npos, mirrors);
          paired->compute(a.u, a.ub, u2, b.ub, g1, l, g2, Part::all);
          View2<real> r1 = poisoned("fvproxy::test::ref1", m.n_cells, 15),
                      rl = poisoned("fvproxy::test::ref_lim", m.n_cells, 5),
                      r2 = poisoned("fvproxy::test::ref2", m.n_cells, 12);
          make_muscl(m, a.geom, cfg, 5, false, s)->compute(a.u, a.ub, r1, rl);
          MusclConfig unlimited = cfg;
          unlimited.limiter = Limiter::none;
          make_muscl(m, b.geom, unlimited, 4, false, {})->compute(u2, b.ub, r2, View2<real>());
          const auto [d1, s1] = compare(test::host_copy(g1), test::host_copy(r1));
          const auto [d2, s2] = compare(test::host_copy(g2), test::host_copy(r2));
          ASSERT_GT(s1, 0.1);
          ASSERT_GT(s2, 0.1);
          EXPECT_LE(d1, test::tol(1e-13) * s1) << paired->description();
          EXPECT_LE(d2, test::tol(1e-13) * s2) << paired->description();
          if (!limited) continue;
          const HostOut hl = test::host_copy(l), hr = test::host_copy(rl);
          const auto [dl, sl] = compare(hl, hr);
          EXPECT_LE(dl, test::tol(1e-13)) << paired->description();
          bool acts = false;
          for (index_t i = 0; i < m.n_cells; ++i)
            for (int k = 0; k < 5; ++k) acts = acts || hr(i, k) < 0.99;
          EXPECT_TRUE(acts) << "the field must make the limiter act somewhere";
        }
  }
}

TEST(MusclPaired, AppliesToTheFusedOptimizedGather) {
  MusclConfig cfg;
  EXPECT_TRUE(fuses_passes(cfg, false)); // the defaults: optimized, gather, fused
  cfg.fused = false;
  EXPECT_FALSE(fuses_passes(cfg, false));
  cfg = MusclConfig{};
  cfg.variant = Variant::naive;
  EXPECT_FALSE(fuses_passes(cfg, true));
  cfg = MusclConfig{};
  cfg.scatter = Scatter::atomic;
  EXPECT_FALSE(fuses_passes(cfg, false));
  EXPECT_TRUE(fuses_passes(cfg, true)); // deterministic: every operator gathers
}

} // namespace
} // namespace fvproxy
