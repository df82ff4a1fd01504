// The muscl operator as one piece (operators/muscl/muscl.hpp): the fused gradient + limiter kernel
// gives the two passes' gradients and limiter values to round-off on several meshes, element
// types, orderings, component counts, gradient methods and limiters, and every entry is written.
#include <cmath>

#include "mesh/gmsh_reader.hpp"
#include "mesh/reorder.hpp"
#include "operator_fixture.hpp"
#include "operators/muscl/limiter.hpp"
#include "operators/muscl/muscl.hpp"
#include "test_helpers.hpp"

namespace fvproxy {
namespace {

using test::Field;
using HostOut = Kokkos::View<real**, Kokkos::LayoutLeft, HostSpace>;

/// A smooth field with a jump, so that the limiters act on some cells and not on others.
const Field kBumpWithStep = [](int k, const double* x) {
  const double r2 = (x[0] - 0.5) * (x[0] - 0.5) + (x[1] - 0.45) * (x[1] - 0.45) + (x[2] - 0.4) * (x[2] - 0.4);
  return std::exp(-r2 / 0.05) + (r2 < 0.06 ? 0.5 : 0.0) + std::sin(3 * x[2] + k) + 0.1 * k;
};

struct MusclOut {
  HostOut grad, lim;
  std::string what;
};

/// The muscl operator of `cfg` on `s`, outputs poisoned before: every entry must be written.
MusclOut muscl(const test::FieldSetup& s, const MusclConfig& cfg) {
  View2<real> g("fvproxy::test::grad", s.mesh.n_cells, 3 * s.n), l("fvproxy::test::lim", s.mesh.n_cells, s.n);
  Kokkos::deep_copy(g, std::nan(""));
  Kokkos::deep_copy(l, std::nan(""));
  const auto op = make_muscl(s.mesh, s.geom, cfg, s.n, false, solution_range(s.u, s.ub));
  op->compute(s.u, s.ub, g, l);
  return {Kokkos::create_mirror_view_and_copy(HostSpace(), g), Kokkos::create_mirror_view_and_copy(HostSpace(), l),
          op->description()};
}

TEST(MusclFused, AgreesWithTwoPassesOnEveryMesh) {
  const std::vector<std::pair<std::string, HostMesh>> meshes{
      {"hex jitter zorder", test::box_mesh(ElementKind::hex, {false, false, false}, 0.25, Ordering::zorder)},
      {"tet periodic-x random", test::box_mesh(ElementKind::tet, {true, false, false}, 0.15, Ordering::random)},
      {"prism none", test::box_mesh(ElementKind::prism, {false, true, false}, 0.1, Ordering::none)},
      {"gmsh sphere rcm", [] {
         HostMesh h = read_gmsh(test::source_path("mesh/sphere_in_box.msh"));
         const Mesh m = upload(h);
         return permute_cells(h, ordering_permutation(h, m, Ordering::rcm, 1));
       }()}};
  for (const auto& [name, h] : meshes)
    for (int n : {1, 5}) {
      const test::FieldSetup s = test::field_setup(h, n, kBumpWithStep);
      for (Gradient method : {Gradient::green_gauss, Gradient::least_squares})
        for (Limiter limiter : {Limiter::barth_jespersen, Limiter::venkatakrishnan})
          for (Policy policy : {Policy::range, Policy::team}) {
            SCOPED_TRACE(name + ", " + std::to_string(n) + " components, " + to_string(method) + ", " +
                         to_string(limiter) + ", " + to_string(policy));
            MusclConfig cfg;
            cfg.gradient = method, cfg.limiter = limiter, cfg.policy = policy, cfg.team_size = 64;
            cfg.fused = false;
            const MusclOut two = muscl(s, cfg);
            cfg.fused = true;
            const MusclOut one = muscl(s, cfg);
            ASSERT_NE(one.what.find("fused"), std::string::npos) << one.what;
            ASSERT_EQ(two.what.find("fused"), std::string::npos) << two.what;
            double scale = 0, diff = 0, lim_diff = 0;
            bool limited = false;
            for (index_t c = 0; c < s.mesh.n_cells; ++c) {
              for (int j = 0; j < 3 * n; ++j) {
                ASSERT_TRUE(std::isfinite(double(one.grad(c, j)))) << "gradient of cell " << c << " not written";
                scale = std::max(scale, double(std::abs(two.grad(c, j))));
                diff = std::max(diff, double(std::abs(one.grad(c, j) - two.grad(c, j))));
              }
              for (int k = 0; k < n; ++k) {
                ASSERT_TRUE(std::isfinite(double(one.lim(c, k)))) << "limiter of cell " << c << " not written";
                lim_diff = std::max(lim_diff, double(std::abs(one.lim(c, k) - two.lim(c, k))));
                limited = limited || two.lim(c, k) < 0.99;
              }
            }
            ASSERT_GT(scale, 0);
            EXPECT_TRUE(limited) << "the field must make the limiter act somewhere";
            EXPECT_LE(diff, test::tol(1e-12) * scale) << one.what << " vs " << two.what;
            EXPECT_LE(lim_diff, test::tol(1e-12)) << one.what << " vs " << two.what;
          }
    }
}

TEST(MusclFused, OnlyWhereThereAreTwoPassesToFuse) {
  const test::FieldSetup s =
      test::field_setup(test::box_mesh(ElementKind::hex, {false, false, false}, 0.1, Ordering::none), 1, kBumpWithStep);
  MusclConfig cfg;
  cfg.fused = true;
  const auto range = solution_range(s.u, s.ub);
  EXPECT_EQ(make_muscl(s.mesh, s.geom, cfg, 1, false, range)->description(),
            "optimized/fused/range + fused (in the gradient kernel)");
  // No limiter (gradients for diffusion only, or `limiter: none`): the gradient alone.
  EXPECT_EQ(make_muscl(s.mesh, s.geom, cfg, 1, false, {})->description(), "optimized/gather/range");
  cfg.limiter = Limiter::none;
  EXPECT_FALSE(make_muscl(s.mesh, s.geom, cfg, 1, false, range)->limits());
  // The naive variant and the atomic scatter keep their two passes (the case file refuses both
  // with fused: true; test_case_config.cpp).
  cfg.limiter = Limiter::venkatakrishnan;
  cfg.variant = Variant::naive;
  EXPECT_EQ(make_muscl(s.mesh, s.geom, cfg, 1, false, range)->description(), "naive/atomic + naive");
}

} // namespace
} // namespace fvproxy
