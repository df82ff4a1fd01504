// The muscl limiter and the convection operator: naive and optimized variants agree to round-off;
// Barth-Jespersen keeps reconstructed states within the neighbours' range; convection conserves,
// leaves a constant field alone and is exact (second order, no limiter) on linear fields.
#include <cmath>
#include <functional>

#include "mesh/box_generator.hpp"
#include "mesh/gmsh_reader.hpp"
#include "mesh/reorder.hpp"
#include "operator_fixture.hpp"
#include "operators/convection/convection.hpp"
#include "operators/face_flux.hpp"
#include "operators/muscl/gradient.hpp"
#include "operators/muscl/limiter.hpp"
#include "test_helpers.hpp"

namespace fvproxy {
namespace {

using test::Field;
using test::HostView2;
using test::max_abs;

struct Problem : test::FieldSetup {
  View2<real> grad, lim;
  View1<real> phi;
  std::vector<BoundaryType> types;
};

Problem problem(const HostMesh& h, int n, const Field& field, const VelocityConfig& vel, BoundaryType type,
                Limiter limiter) {
  Problem p{test::field_setup(h, n, field), {}, {}, {}, std::vector<BoundaryType>(h.patches.size(), type)};
  for (std::size_t i = 0; i < p.types.size(); ++i)
    if (type == BoundaryType::inflow && i % 2 == 1) p.types[i] = BoundaryType::outflow;
  p.phi = face_volume_flux(p.mesh, vel);
  p.grad = View2<real>("fvproxy::test::grad", p.mesh.n_cells, 3 * n);
  p.lim = View2<real>("fvproxy::test::lim", p.mesh.n_cells, n);
  make_gradient(p.mesh, p.geom, MusclConfig{}, n, true)->compute(p.u, p.ub, p.grad);
  MusclConfig mc;
  mc.limiter = limiter;
  make_limiter(p.mesh, p.geom, mc, scalar_limiter_scale(p.u, p.ub))->compute(p.u, p.ub, p.grad, p.lim);
  return p;
}

HostView2 rate(const Problem& p, const ConvectionConfig& cfg, bool det) {
  const auto op = make_convection(p.mesh, p.geom, cfg, p.phi, p.n, p.types, det);
  return test::added_rate(p.mesh, p.n, [&](View2<real> rhs) { op->apply(p.u, p.ub, p.grad, p.lim, rhs); });
}

std::vector<std::pair<ConvectionConfig, bool>> variants(int order) {
  auto make = [&](Variant v, Scatter s, Policy pol) {
    ConvectionConfig c;
    c.order = order, c.variant = v, c.scatter = s, c.policy = pol, c.team_size = 96;
    return c;
  };
  return {{make(Variant::optimized, Scatter::gather, Policy::range), true},
          {make(Variant::naive, Scatter::atomic, Policy::range), false},
          {make(Variant::naive, Scatter::atomic, Policy::range), true},
          {make(Variant::optimized, Scatter::gather, Policy::team), false},
          {make(Variant::optimized, Scatter::atomic, Policy::range), false},
          {make(Variant::optimized, Scatter::atomic, Policy::team), false}};
}

HostMesh box(ElementKind e, std::array<bool, 3> periodic, double perturb, Ordering o) {
  return test::box_mesh(e, periodic, perturb, o);
}

VelocityConfig uniform(double x, double y, double z) {
  VelocityConfig v;
  v.value = {x, y, z};
  return v;
}
VelocityConfig rotation() {
  VelocityConfig v;
  v.type = VelocityType::rotation;
  v.axis = {0, 0, 1};
  v.center = {0.5, 0.5, 0.5};
  v.omega = 2;
  return v;
}

const Field kBump = [](int k, const double* x) {
  const double r2 = (x[0] - 0.5) * (x[0] - 0.5) + (x[1] - 0.5) * (x[1] - 0.5) + (x[2] - 0.4) * (x[2] - 0.4);
  return std::exp(-r2 / 0.05) + (r2 < 0.06 ? 0.5 : 0.0) + 0.1 * k; // smooth bump plus a step
};

TEST(Limiter, VariantsAgreeAndBarthJespersenBounds) {
  const HostMesh h = box(ElementKind::tet, {true, false, false}, 0.2, Ordering::zorder);
  for (Limiter l : {Limiter::barth_jespersen, Limiter::venkatakrishnan, Limiter::none}) {
    SCOPED_TRACE(to_string(l));
    const Problem p = problem(h, 2, kBump, uniform(1, 0, 0), BoundaryType::inflow, l);
    MusclConfig naive;
    naive.variant = Variant::naive;
    naive.limiter = l;
    View2<real> ln("fvproxy::test::lim_naive", p.mesh.n_cells, 2);
    make_limiter(p.mesh, p.geom, naive, scalar_limiter_scale(p.u, p.ub))->compute(p.u, p.ub, p.grad, ln);
    auto a = Kokkos::create_mirror_view_and_copy(HostSpace(), ln);
    auto b = Kokkos::create_mirror_view_and_copy(HostSpace(), p.lim);
    bool limited = false;
    for (index_t c = 0; c < p.mesh.n_cells; ++c)
      for (int k = 0; k < 2; ++k) {
        ASSERT_NEAR(a(c, k), b(c, k), test::tol(1e-12)) << "cell " << c;
        ASSERT_GE(b(c, k), 0);
        ASSERT_LE(b(c, k), 1);
        limited = limited || b(c, k) < 0.99;
      }
    EXPECT_EQ(limited, l != Limiter::none);
    if (l != Limiter::barth_jespersen) continue;
    // Reconstructed face states stay within the range of the cell and its neighbours.
    auto u = Kokkos::create_mirror_view_and_copy(HostSpace(), p.u);
    auto ub = Kokkos::create_mirror_view_and_copy(HostSpace(), p.ub);
    auto g = Kokkos::create_mirror_view_and_copy(HostSpace(), p.grad);
    auto r = Kokkos::create_mirror_view_and_copy(HostSpace(), p.geom.r);
    auto d = Kokkos::create_mirror_view_and_copy(HostSpace(), p.geom.d);
    for (index_t c = 0; c < h.n_cells(); ++c)
      for (int k = 0; k < 2; ++k) {
        double lo = u(c, k), hi = u(c, k);
        for (index_t q = h.cell_face_off[c]; q < h.cell_face_off[c + 1]; ++q) {
          const index_t f = h.cell_faces[q];
          const double v = f >= h.n_interior ? ub(f - h.n_interior, k)
                                             : u(h.cell_face_sign[q] > 0 ? h.face_neighbour[f] : h.face_owner[f], k);
          lo = std::min(lo, v), hi = std::max(hi, v);
        }
        for (index_t q = h.cell_face_off[c]; q < h.cell_face_off[c + 1]; ++q) {
          const index_t f = h.cell_faces[q];
          double val = u(c, k);
          for (int i = 0; i < 3; ++i) {
            const double rc = r(f, i) - (f < h.n_interior && h.cell_face_sign[q] < 0 ? d(f, i) : 0.0);
            val += b(c, k) * g(c, 3 * k + i) * rc;
          }
          ASSERT_GE(val, lo - test::tol(1e-12));
          ASSERT_LE(val, hi + test::tol(1e-12));
        }
      }
  }
}

TEST(Convection, VariantsAgree) {
  const std::vector<std::pair<std::string, HostMesh>> meshes{
      {"hex jitter zorder", box(ElementKind::hex, {false, false, false}, 0.25, Ordering::zorder)},
      {"tet periodic random", box(ElementKind::tet, {true, true, true}, 0.15, Ordering::random)},
      {"gmsh hybrid", read_gmsh(test::source_path("mesh/hybrid_channel.msh"))}};
  for (const auto& [name, h] : meshes)
    for (int order : {1, 2})
      for (Limiter l : {Limiter::venkatakrishnan, Limiter::barth_jespersen, Limiter::none}) {
        if (order == 1 && l != Limiter::none) continue;
        for (int n : {1, 3}) {
          SCOPED_TRACE(name + ", order " + std::to_string(order) + ", " + to_string(l) + ", N " + std::to_string(n));
          const Problem p =
              problem(h, n, kBump, name == "gmsh hybrid" ? uniform(1, 0.2, 0) : rotation(), BoundaryType::inflow, l);
          const auto vs = variants(order);
          const HostView2 ref = rate(p, vs[0].first, vs[0].second);
          const double scale = max_abs(ref);
          ASSERT_GT(scale, 0);
          for (std::size_t v = 1; v < vs.size(); ++v) {
            const double diff = test::max_abs_diff(rate(p, vs[v].first, vs[v].second), ref);
            EXPECT_LE(diff, test::tol(1e-12) * scale)
                << make_convection(p.mesh, p.geom, vs[v].first, p.phi, n, p.types, vs[v].second)->description();
          }
        }
      }
}

TEST(Convection, ConservesAndKeepsConstants) {
  const HostMesh periodic = box(ElementKind::tet, {true, true, true}, 0.2, Ordering::hilbert);
  const Problem p = problem(periodic, 2, kBump, uniform(1, -0.5, 0.3), BoundaryType::outflow, Limiter::venkatakrishnan);
  auto V = Kokkos::create_mirror_view_and_copy(HostSpace(), p.mesh.volume);
  for (int order : {1, 2})
    for (const auto& [cfg, det] : variants(order)) {
      const HostView2 r = rate(p, cfg, det);
      for (int k = 0; k < 2; ++k) {
        double total = 0, scale = 0;
        for (index_t c = 0; c < p.mesh.n_cells; ++c) total += V(c) * r(c, k), scale += V(c) * std::abs(r(c, k));
        EXPECT_LT(std::abs(total), test::tol(1e-13) * scale);
      }
    }
  const Problem flat = problem(
      box(ElementKind::tet, {false, false, false}, 0.2, Ordering::zorder), 1, [](int, const double*) { return 2.5; },
      rotation(), BoundaryType::dirichlet, Limiter::barth_jespersen);
  // Relative to the operator's own scale, |u| max_c sum_f |phi_f| / V_c (round-off of the flux sum).
  auto phi = Kokkos::create_mirror_view_and_copy(HostSpace(), flat.phi);
  auto V2 = Kokkos::create_mirror_view_and_copy(HostSpace(), flat.mesh.volume);
  auto off = Kokkos::create_mirror_view_and_copy(HostSpace(), flat.mesh.cell_face_off);
  auto cf = Kokkos::create_mirror_view_and_copy(HostSpace(), flat.mesh.cell_faces);
  double scale = 0;
  for (index_t c = 0; c < flat.mesh.n_cells; ++c) {
    double s = 0;
    for (index_t q = off(c); q < off(c + 1); ++q) s += std::abs(phi(cf(q)));
    scale = std::max(scale, 2.5 * s / V2(c));
  }
  for (int order : {1, 2})
    for (const auto& [cfg, det] : variants(order)) EXPECT_LT(max_abs(rate(flat, cfg, det)), test::tol(1e-13) * scale);
}

TEST(Convection, SecondOrderIsExactOnLinearFields) {
  // Planar (tet) faces, uniform velocity, no limiter: the reconstructed states are the exact face
  // values, so the rate is -v . grad u in every cell.
  const double a[3] = {0.7, -1.1, 0.4};
  const Field linear = [&](int, const double* x) { return a[0] * x[0] + a[1] * x[1] + a[2] * x[2] + 2; };
  const VelocityConfig v = uniform(0.3, 0.5, -0.8);
  const Problem p = problem(box(ElementKind::tet, {false, false, false}, 0.25, Ordering::zorder), 1, linear, v,
                            BoundaryType::dirichlet, Limiter::none);
  const double want = -(0.3 * a[0] + 0.5 * a[1] - 0.8 * a[2]);
  for (const auto& [cfg, det] : variants(2)) {
    const HostView2 r = rate(p, cfg, det);
    for (index_t c = 0; c < p.mesh.n_cells; ++c) ASSERT_NEAR(r(c, 0), want, test::tol(1e-10)) << "cell " << c;
  }
}

} // namespace
} // namespace fvproxy
