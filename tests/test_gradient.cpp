// The muscl operator's gradients: naive and optimized variants (every scatter, policy and team
// size) agree to round-off on several meshes, element types and orderings; both least squares and
// the corrected Green-Gauss are exact on linear fields on every mesh.
#include <cmath>
#include <functional>

#include "mesh/box_generator.hpp"
#include "mesh/gmsh_reader.hpp"
#include "mesh/reorder.hpp"
#include "operator_fixture.hpp"
#include "operators/muscl/gradient.hpp"
#include "test_helpers.hpp"

namespace fvproxy {
namespace {

using test::Field;
using GradientSetup = test::FieldSetup;

GradientSetup setup(const HostMesh& h, int n, const Field& field, Stencil stencil = Stencil::face) {
  return test::field_setup(h, n, field, stencil);
}

/// The gradient of `cfg` on `s`, on the host. The output starts poisoned: every entry must be written.
Kokkos::View<real**, Kokkos::LayoutLeft, HostSpace> gradient(const GradientSetup& s, const MusclConfig& cfg,
                                                             bool deterministic) {
  View2<real> g("fvproxy::test::grad", s.mesh.n_cells, 3 * s.n);
  Kokkos::deep_copy(g, std::nan(""));
  auto op = make_gradient(s.mesh, s.geom, cfg, s.n, deterministic);
  op->compute(s.u, s.ub, g);
  return Kokkos::create_mirror_view_and_copy(HostSpace(), g);
}

/// The methods and stencils: Green-Gauss and least squares on the face stencil, least squares on
/// the vertex stencil (operators/vertex_stencil.hpp).
const std::vector<std::pair<Gradient, Stencil>> kMethods{{Gradient::green_gauss, Stencil::face},
                                                         {Gradient::least_squares, Stencil::face},
                                                         {Gradient::least_squares, Stencil::vertex}};

std::string name_of(Gradient g, Stencil s) {
  return std::string(to_string(g)) + "/" + to_string(s);
}

std::vector<std::pair<MusclConfig, bool>> variants(Gradient method) {
  std::vector<std::pair<MusclConfig, bool>> v;
  auto make = [&](Variant var, Scatter sc, Policy p, int ts) {
    MusclConfig c;
    c.gradient = method;
    c.variant = var;
    c.scatter = sc;
    c.policy = p;
    c.team_size = ts;
    return c;
  };
  v.push_back({make(Variant::optimized, Scatter::gather, Policy::range, 128), true}); // reference (deterministic)
  v.push_back({make(Variant::naive, Scatter::atomic, Policy::range, 128), false});
  v.push_back({make(Variant::naive, Scatter::atomic, Policy::range, 128), true}); // naive gathers
  v.push_back({make(Variant::optimized, Scatter::gather, Policy::team, 64), false});
  v.push_back({make(Variant::optimized, Scatter::atomic, Policy::range, 128), false});
  v.push_back({make(Variant::optimized, Scatter::atomic, Policy::team, 256), false});
  return v;
}

HostMesh box(ElementKind e, std::array<bool, 3> periodic, double perturb, Ordering o) {
  return test::box_mesh(e, periodic, perturb, o);
}

const Field kSmooth = [](int k, const double* x) {
  return std::sin(2 * M_PI * (x[0] + 0.3 * k)) * std::cos(2 * M_PI * x[1]) + 0.5 * std::sin(2 * M_PI * x[2]) + k;
};

TEST(Gradient, VariantsAgreeOnEveryMesh) {
  const std::vector<std::pair<std::string, HostMesh>> meshes{
      {"hex jitter zorder", box(ElementKind::hex, {false, false, false}, 0.25, Ordering::zorder)},
      {"tet periodic random", box(ElementKind::tet, {true, true, true}, 0.15, Ordering::random)},
      {"prism periodic-y none", box(ElementKind::prism, {false, true, false}, 0.1, Ordering::none)},
      {"gmsh sphere rcm",
       [] {
         HostMesh h = read_gmsh(test::source_path("mesh/sphere_in_box.msh"));
         const Mesh m = upload(h);
         return permute_cells(h, ordering_permutation(h, m, Ordering::rcm, 1));
       }()},
      {"gmsh hybrid", read_gmsh(test::source_path("mesh/hybrid_channel.msh"))}};
  for (const auto& [name, h] : meshes)
    for (int n : {1, 3})
      for (const auto& [method, stencil] : kMethods) {
        SCOPED_TRACE(name + ", " + std::to_string(n) + " components, " + name_of(method, stencil));
        const GradientSetup s = setup(h, n, kSmooth, stencil);
        const auto vs = variants(method);
        const auto ref = gradient(s, vs[0].first, vs[0].second);
        double scale = 0;
        for (index_t c = 0; c < s.mesh.n_cells; ++c)
          for (int j = 0; j < 3 * n; ++j) scale = std::max(scale, double(std::abs(ref(c, j))));
        ASSERT_GT(scale, 0);
        for (std::size_t v = 1; v < vs.size(); ++v) {
          const auto g = gradient(s, vs[v].first, vs[v].second);
          const std::string what = make_gradient(s.mesh, s.geom, vs[v].first, n, vs[v].second)->description();
          double diff = 0;
          for (index_t c = 0; c < s.mesh.n_cells; ++c)
            for (int j = 0; j < 3 * n; ++j) {
              ASSERT_TRUE(std::isfinite(double(g(c, j)))) << what << ": cell " << c << " entry " << j << " not written";
              diff = std::max(diff, double(std::abs(g(c, j) - ref(c, j))));
            }
          EXPECT_LE(diff, test::tol(1e-12) * scale) << what; // docs/output.md#tolerances: variants agree
        }
      }
}

TEST(Gradient, ExactOnLinearFields) {
  // Both methods, on every mesh: least squares by construction, Green-Gauss through its
  // correction matrix (without it, Green-Gauss is exact on the uniform hex mesh only).
  const double a[2][3] = {{0.5, -2.0, 1.25}, {-1.0, 0.25, 3.0}};
  const Field linear = [&](int k, const double* x) { return a[k][0] * x[0] + a[k][1] * x[1] + a[k][2] * x[2] + 1.5; };
  const std::vector<std::pair<std::string, HostMesh>> cases{
      {"hex uniform", box(ElementKind::hex, {false, false, false}, 0.0, Ordering::zorder)},
      {"hex jitter", box(ElementKind::hex, {false, false, false}, 0.3, Ordering::none)},
      {"tet jitter", box(ElementKind::tet, {false, false, false}, 0.2, Ordering::hilbert)},
      {"prism jitter", box(ElementKind::prism, {false, false, false}, 0.25, Ordering::random)},
      {"gmsh sphere", read_gmsh(test::source_path("mesh/sphere_in_box.msh"))}};
  for (const auto& [name, h] : cases)
    for (const auto& [method, stencil] : kMethods) {
      const GradientSetup s = setup(h, 2, linear, stencil);
      for (const auto& [cfg, det] : variants(method)) {
        SCOPED_TRACE(name + ", " + name_of(method, stencil) + ", " +
                     make_gradient(s.mesh, s.geom, cfg, 2, det)->description());
        const auto g = gradient(s, cfg, det);
        for (index_t c = 0; c < s.mesh.n_cells; ++c)
          for (int k = 0; k < 2; ++k)
            for (int i = 0; i < 3; ++i) ASSERT_NEAR(g(c, 3 * k + i), a[k][i], test::tol(1e-10)) << "cell " << c;
      }
    }
}

TEST(Gradient, UnlistedComponentCountIsRefused) {
  const GradientSetup s = setup(box(ElementKind::hex, {false, false, false}, 0.0, Ordering::none), 1, kSmooth);
  test::expect_input_error([&] { make_gradient(s.mesh, s.geom, MusclConfig{}, 7, false); },
                           {"7 is not among this build's component counts"});
  // The naive variant takes any count at run time (its mistake), so it is not refused.
  MusclConfig naive;
  naive.variant = Variant::naive;
  EXPECT_NO_THROW(make_gradient(s.mesh, s.geom, naive, 7, false));
}

} // namespace
} // namespace fvproxy
