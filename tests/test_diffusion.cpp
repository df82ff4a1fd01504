// The diffusion operator: naive and optimized variants agree to round-off; it conserves in a
// periodic box, vanishes on linear fields on any mesh, and gives kappa lap(x^2) = 2 kappa.
#include <cmath>
#include <functional>

#include "mesh/box_generator.hpp"
#include "mesh/gmsh_reader.hpp"
#include "mesh/reorder.hpp"
#include "operator_fixture.hpp"
#include "operators/diffusion/diffusion.hpp"
#include "operators/muscl/gradient.hpp"
#include "test_helpers.hpp"

namespace fvproxy {
namespace {

using test::Field;
using test::HostView2;
using test::max_abs;

struct Problem : test::FieldSetup {
  View2<real> grad;
  std::vector<BoundaryType> types;
  std::vector<double> kappa;
};

Problem problem(const HostMesh& h, int n, const Field& field, BoundaryType type) {
  Problem p{test::field_setup(h, n, field), {}, std::vector<BoundaryType>(h.patches.size(), type), {}};
  for (std::size_t i = 0; i < p.types.size(); ++i)
    if (type == BoundaryType::inflow && i % 2 == 1) p.types[i] = BoundaryType::outflow; // a mix
  for (int k = 0; k < n; ++k) p.kappa.push_back(0.1 + 0.05 * k);
  p.grad = View2<real>("fvproxy::test::grad", p.mesh.n_cells, 3 * n);
  make_gradient(p.mesh, p.geom, MusclConfig{}, n, true)->compute(p.u, p.ub, p.grad);
  return p;
}

HostView2 rate(const Problem& p, const DiffusionConfig& cfg, bool deterministic) {
  const auto op = make_diffusion(p.mesh, p.geom, cfg, p.kappa, p.types, deterministic);
  return test::added_rate(p.mesh, p.n, [&](View2<real> rhs) { op->apply(p.u, p.ub, p.grad, rhs); });
}

std::vector<std::pair<DiffusionConfig, bool>> variants() {
  auto make = [](Variant v, Scatter s, Policy p) {
    DiffusionConfig c;
    c.variant = v, c.scatter = s, c.policy = p, c.team_size = 64;
    return c;
  };
  return {{make(Variant::optimized, Scatter::gather, Policy::range), true},
          {make(Variant::naive, Scatter::atomic, Policy::range), false},
          {make(Variant::naive, Scatter::atomic, Policy::range), true},
          {make(Variant::optimized, Scatter::gather, Policy::team), false},
          {make(Variant::optimized, Scatter::atomic, Policy::range), false},
          {make(Variant::optimized, Scatter::atomic, Policy::team), false}};
}

HostMesh box(ElementKind e, std::array<bool, 3> periodic, double perturb, Ordering o,
             std::array<int, 3> n = {6, 5, 4}) {
  return test::box_mesh(e, periodic, perturb, o, n);
}

const Field kSmooth = [](int k, const double* x) {
  return std::sin(2 * M_PI * (x[0] + 0.2 * k)) * std::cos(2 * M_PI * x[1]) + std::sin(2 * M_PI * x[2]);
};

TEST(Diffusion, VariantsAgree) {
  const std::vector<std::pair<std::string, HostMesh>> meshes{
      {"hex jitter zorder", box(ElementKind::hex, {false, false, false}, 0.25, Ordering::zorder)},
      {"tet periodic random", box(ElementKind::tet, {true, true, true}, 0.15, Ordering::random)},
      {"prism rcm", box(ElementKind::prism, {false, true, false}, 0.1, Ordering::rcm)},
      {"gmsh hybrid", read_gmsh(test::source_path("mesh/hybrid_channel.msh"))}};
  for (const auto& [name, h] : meshes)
    for (int n : {1, 3}) {
      SCOPED_TRACE(name + ", " + std::to_string(n) + " components");
      const Problem p = problem(h, n, kSmooth, BoundaryType::inflow); // inflow/outflow mix
      const auto vs = variants();
      const HostView2 ref = rate(p, vs[0].first, vs[0].second);
      const double scale = max_abs(ref);
      ASSERT_GT(scale, 0);
      for (std::size_t v = 1; v < vs.size(); ++v) {
        const double diff = test::max_abs_diff(rate(p, vs[v].first, vs[v].second), ref);
        EXPECT_LE(diff, test::tol(1e-12) * scale)
            << make_diffusion(p.mesh, p.geom, vs[v].first, p.kappa, p.types, vs[v].second)->description();
      }
    }
}

TEST(Diffusion, ConservesInAPeriodicBox) {
  const Problem p =
      problem(box(ElementKind::tet, {true, true, true}, 0.2, Ordering::zorder), 2, kSmooth, BoundaryType::outflow);
  auto V = Kokkos::create_mirror_view_and_copy(HostSpace(), p.mesh.volume);
  for (const auto& [cfg, det] : variants()) {
    const HostView2 r = rate(p, cfg, det);
    for (int k = 0; k < 2; ++k) {
      double total = 0, scale = 0;
      for (index_t c = 0; c < p.mesh.n_cells; ++c) total += V(c) * r(c, k), scale += V(c) * std::abs(r(c, k));
      EXPECT_LT(std::abs(total), test::tol(1e-13) * scale);
    }
  }
}

TEST(Diffusion, ZeroOnLinearFieldsOnAnyMesh) {
  const Field linear = [](int k, const double* x) { return (1 + k) * x[0] - 2 * x[1] + 0.5 * x[2] + 3; };
  for (const auto& h : {box(ElementKind::hex, {false, false, false}, 0.3, Ordering::zorder),
                        box(ElementKind::tet, {false, false, false}, 0.25, Ordering::none)}) {
    const Problem p = problem(h, 2, linear, BoundaryType::dirichlet);
    for (const auto& [cfg, det] : variants()) {
      const HostView2 r = rate(p, cfg, det);
      EXPECT_LT(max_abs(r), test::tol(1e-10))
          << make_diffusion(p.mesh, p.geom, cfg, p.kappa, p.types, det)->description();
    }
  }
}

TEST(Diffusion, LaplacianOfASquare) {
  // u = x^2 on a uniform hex mesh: kappa lap u = 2 kappa in every cell away from the boundary.
  const HostMesh h = box(ElementKind::hex, {false, false, false}, 0.0, Ordering::zorder, {8, 6, 5});
  const Problem p = problem(
      h, 1, [](int, const double* x) { return x[0] * x[0]; }, BoundaryType::dirichlet);
  std::vector<char> at_boundary(h.n_cells(), 0);
  for (index_t f = h.n_interior; f < h.n_faces(); ++f) at_boundary[h.face_owner[f]] = 1;
  for (const auto& [cfg, det] : variants()) {
    const HostView2 r = rate(p, cfg, det);
    int checked = 0;
    for (index_t c = 0; c < h.n_cells(); ++c)
      if (!at_boundary[c]) {
        ASSERT_NEAR(r(c, 0), 2 * p.kappa[0], test::tol(1e-9)) << "cell " << c;
        ++checked;
      }
    EXPECT_GT(checked, 0);
  }
}

} // namespace
} // namespace fvproxy
