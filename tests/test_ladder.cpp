// The ablation ladder (operators/ladder/ladder.hpp): every step of every operator agrees with the
// naive variant (step 0) to round-off, on a jittered hex box in Z-order and a jittered tet box,
// periodic in x, in random order, with value and outflow patches, for 1 and 5 components; other
// counts and steps are refused.
#include <cmath>
#include <string>

#include "operator_fixture.hpp"
#include "operators/face_flux.hpp"
#include "operators/ladder/ladder.hpp"
#include "test_helpers.hpp"

namespace fvproxy {
namespace {

using test::HostView2;

const test::Field kBump = [](int k, const double* x) {
  const double r2 = (x[0] - 0.5) * (x[0] - 0.5) + (x[1] - 0.45) * (x[1] - 0.45) + (x[2] - 0.4) * (x[2] - 0.4);
  return (1 + 0.3 * k) * std::exp(-r2 / 0.05) + (r2 < 0.06 ? 0.5 : 0.0) + 0.1 * k * x[1];
};

struct Case {
  std::string name;
  HostMesh mesh;
};

std::vector<Case> meshes() {
  return {{"hex jitter zorder", test::box_mesh(ElementKind::hex, {false, false, false}, 0.25, Ordering::zorder)},
          {"tet periodic-x random", test::box_mesh(ElementKind::tet, {true, false, false}, 0.2, Ordering::random)}};
}

/// Patch types cycling through inflow, outflow and Dirichlet (value and outflow patches both present).
std::vector<BoundaryType> patch_types(const HostMesh& h) {
  const BoundaryType cycle[3] = {BoundaryType::inflow, BoundaryType::outflow, BoundaryType::dirichlet};
  std::vector<BoundaryType> t(h.patches.size());
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = cycle[i % 3];
  return t;
}

HostView2 host(const View2<real>& v) {
  return Kokkos::create_mirror_view_and_copy(HostSpace(), v);
}

/// max |a - b| <= 1e-12 max |ref|, with a message naming the step.
void expect_agrees(const HostView2& got, const HostView2& ref, const std::string& what) {
  const double scale = test::max_abs(ref);
  ASSERT_GT(scale, 0) << what;
  EXPECT_LE(test::max_abs_diff(got, ref), test::tol(1e-12) * scale) << what;
}

TEST(Ladder, MusclStepsAgreeWithNaive) {
  for (const auto& [name, h] : meshes())
    for (int n : {1, 5})
      for (auto [method, limiter] : {std::pair{Gradient::green_gauss, Limiter::venkatakrishnan},
                                     std::pair{Gradient::least_squares, Limiter::barth_jespersen},
                                     std::pair{Gradient::least_squares, Limiter::none}}) {
        const test::FieldSetup s = test::field_setup(h, n, kBump);
        MusclConfig cfg;
        cfg.gradient = method, cfg.limiter = limiter;
        const LimiterScale range = scalar_limiter_scale(s.u, s.ub);
        HostView2 ref_g, ref_l;
        for (int step = 0; step < kLadderSteps; ++step) {
          const std::string what = name + ", N " + std::to_string(n) + ", " + to_string(method) + ", " +
                                   to_string(limiter) + ", step " + std::to_string(step);
          const LadderMuscl op = make_ladder_muscl(step, s.mesh, s.geom, cfg, n, range);
          View2<real> grad("fvproxy::test::grad", s.mesh.n_cells, 3 * n), lim("fvproxy::test::lim", s.mesh.n_cells, n);
          Kokkos::deep_copy(grad, real(7)); // whatever was there before is overwritten
          op.gradient->compute(s.u, s.ub, grad);
          // every step's limiter on the naive gradients: each kernel is compared on its own
          const View2<real> gin = step == 0 ? grad : View2<real>("fvproxy::test::grad0", s.mesh.n_cells, 3 * n);
          if (step > 0) {
            auto hg = Kokkos::create_mirror_view(gin);
            Kokkos::deep_copy(hg, ref_g);
            Kokkos::deep_copy(gin, hg);
          }
          op.limiter->compute(s.u, s.ub, gin, lim);
          if (step == 0) {
            ref_g = host(grad), ref_l = host(lim);
            continue;
          }
          expect_agrees(host(grad), ref_g, what + " gradient (" + op.gradient->description() + ")");
          if (limiter != Limiter::none)
            expect_agrees(host(lim), ref_l, what + " limiter (" + op.limiter->description() + ")");
          else
            EXPECT_EQ(test::max_abs_diff(host(lim), ref_l), 0) << what;
        }
      }
}

TEST(Ladder, ConvectionStepsAgreeWithNaive) {
  for (const auto& [name, h] : meshes())
    for (int n : {1, 5}) {
      const test::FieldSetup s = test::field_setup(h, n, kBump);
      VelocityConfig vel;
      vel.type = VelocityType::rotation, vel.axis = {0.2, 0.1, 1}, vel.center = {0.5, 0.5, 0.5}, vel.omega = 2;
      const View1<real> phi = face_volume_flux(s.mesh, vel);
      const std::vector<BoundaryType> types = patch_types(h);
      View2<real> grad("fvproxy::test::grad", s.mesh.n_cells, 3 * n), lim("fvproxy::test::lim", s.mesh.n_cells, n);
      const LadderMuscl m = make_ladder_muscl(0, s.mesh, s.geom, MusclConfig{}, n, scalar_limiter_scale(s.u, s.ub));
      m.gradient->compute(s.u, s.ub, grad);
      m.limiter->compute(s.u, s.ub, grad, lim);
      for (int order : {1, 2}) {
        ConvectionConfig cfg;
        cfg.order = order;
        HostView2 ref;
        for (int step = 0; step < kLadderSteps; ++step) {
          const auto op = make_ladder_convection(step, s.mesh, s.geom, cfg, phi, n, types);
          const HostView2 r =
              test::added_rate(s.mesh, n, [&](View2<real> rhs) { op->apply(s.u, s.ub, grad, lim, rhs); });
          if (step == 0) {
            ref = r;
            continue;
          }
          expect_agrees(r, ref,
                        name + ", N " + std::to_string(n) + ", order " + std::to_string(order) + ", " +
                            op->description());
        }
      }
    }
}

TEST(Ladder, DiffusionStepsAgreeWithNaive) {
  for (const auto& [name, h] : meshes())
    for (int n : {1, 5}) {
      const test::FieldSetup s = test::field_setup(h, n, kBump);
      const std::vector<BoundaryType> types = patch_types(h);
      std::vector<double> kappa(n);
      for (int k = 0; k < n; ++k) kappa[k] = 0.01 * (k + 1);
      View2<real> grad("fvproxy::test::grad", s.mesh.n_cells, 3 * n);
      make_ladder_muscl(0, s.mesh, s.geom, MusclConfig{}, n, scalar_limiter_scale(s.u, s.ub))
          .gradient->compute(s.u, s.ub, grad);
      HostView2 ref;
      for (int step = 0; step < kLadderSteps; ++step) {
        const auto op = make_ladder_diffusion(step, s.mesh, s.geom, DiffusionConfig{}, kappa, types);
        const HostView2 r = test::added_rate(s.mesh, n, [&](View2<real> rhs) { op->apply(s.u, s.ub, grad, rhs); });
        if (step == 0) {
          ref = r;
          continue;
        }
        expect_agrees(r, ref, name + ", N " + std::to_string(n) + ", " + op->description());
      }
    }
}

TEST(Ladder, OtherCountsAndStepsAreRefused) {
  const HostMesh h = test::box_mesh(ElementKind::hex, {false, false, false}, 0.0, Ordering::none, {3, 3, 3});
  const test::FieldSetup s = test::field_setup(h, 3, kBump);
  const std::vector<BoundaryType> types = patch_types(h);
  for (int step : {0, 3, 6}) {
    test::expect_input_error(
        [&] { make_ladder_muscl(step, s.mesh, s.geom, MusclConfig{}, 3, LimiterScale::absolute(3)); },
        {"physics.components", "3 components: the ablation ladder is built for 1 and 5 only"});
    test::expect_input_error(
        [&] {
          make_ladder_convection(step, s.mesh, s.geom, ConvectionConfig{}, View1<real>("fvproxy::test::phi", 1), 3,
                                 types);
        },
        {"the ablation ladder is built for 1 and 5 only"});
    test::expect_input_error(
        [&] {
          make_ladder_diffusion(step, s.mesh, s.geom, DiffusionConfig{}, {1, 1, 1}, types);
        },
        {"the ablation ladder is built for 1 and 5 only"});
  }
  test::expect_input_error([&] { make_ladder_diffusion(7, s.mesh, s.geom, DiffusionConfig{}, {1}, types); },
                           {"ladder step 7 out of range"});
  // The ladder's operators cover every owned cell and face at once (the benchmark paths' calls).
  const test::FieldSetup s1 = test::field_setup(h, 1, kBump);
  View2<real> rhs("fvproxy::test::rhs", s1.mesh.n_cells, 1), grad("fvproxy::test::grad", s1.mesh.n_cells, 3);
  EXPECT_THROW(make_ladder_diffusion(2, s1.mesh, s1.geom, DiffusionConfig{}, {1}, types)
                   ->apply(s1.u, s1.ub, grad, rhs, Part::inner),
               std::logic_error);
}

} // namespace
} // namespace fvproxy
