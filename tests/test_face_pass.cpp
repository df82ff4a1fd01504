// The fused face pass (operators.step: fused; docs/operators/face-pass.md): convection and diffusion
// of the scalar model in one pass over the interior faces equal the two operators applied one after
// the other, for each accumulation, launch policy, order, limiter, boundary mix, mesh kind and
// numbering; a gather's rate is bitwise the separate one in every cell without a boundary face.
#include <cmath>
#include <string>

#include "mesh/gmsh_reader.hpp"
#include "mesh/reorder.hpp"
#include "operator_fixture.hpp"
#include "operators/convection/convection.hpp"
#include "operators/diffusion/diffusion.hpp"
#include "operators/face_flux.hpp"
#include "operators/face_pass/face_pass.hpp"
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
  std::vector<double> kappa;
};

/// A field with a smooth bump and a step, its gradients and limiter values; patch types
/// `types` repeated over the patches; kappa_k = 0.02 (1 + k).
Problem problem(const HostMesh& h, int n, std::vector<BoundaryType> types, Limiter limiter) {
  const Field bump = [](int k, const double* x) {
    const double r2 = (x[0] - 0.5) * (x[0] - 0.5) + (x[1] - 0.45) * (x[1] - 0.45) + (x[2] - 0.4) * (x[2] - 0.4);
    return std::exp(-r2 / 0.05) + (r2 < 0.06 ? 0.5 : 0.0) + 0.1 * k + 0.3 * x[0] * x[1];
  };
  Problem p{test::field_setup(h, n, bump), {}, {}, {}, {}, {}};
  for (std::size_t i = 0; i < h.patches.size(); ++i) p.types.push_back(types[i % types.size()]);
  for (int k = 0; k < n; ++k) p.kappa.push_back(0.02 * (1 + k));
  VelocityConfig v;
  v.type = VelocityType::rotation;
  v.axis = {0.2, 0.1, 1};
  v.center = {0.5, 0.5, 0.5};
  v.omega = 2;
  p.phi = face_volume_flux(p.mesh, v);
  p.grad = View2<real>("fvproxy::test::grad", p.mesh.n_cells, 3 * n);
  p.lim = View2<real>("fvproxy::test::lim", p.mesh.n_cells, n);
  make_gradient(p.mesh, p.geom, MusclConfig{}, n, true)->compute(p.u, p.ub, p.grad);
  MusclConfig mc;
  mc.limiter = limiter;
  make_limiter(p.mesh, p.geom, mc, scalar_limiter_scale(p.u, p.ub))->compute(p.u, p.ub, p.grad, p.lim);
  return p;
}

OperatorsConfig options(int order, Scatter s, Policy pol) {
  OperatorsConfig o;
  o.convection.order = order;
  for (OperatorOptions* x : {static_cast<OperatorOptions*>(&o.convection), static_cast<OperatorOptions*>(&o.diffusion)})
    x->scatter = s, x->policy = pol, x->team_size = 64;
  o.step = StepPasses::fused;
  return o;
}

HostView2 separate(const Problem& p, const OperatorsConfig& o, bool det, bool conv = true, bool diff = true) {
  const auto c = make_convection(p.mesh, p.geom, o.convection, p.phi, p.n, p.types, det);
  const auto d = make_diffusion(p.mesh, p.geom, o.diffusion, p.kappa, p.types, det);
  return test::added_rate(p.mesh, p.n, [&](View2<real> rhs) {
    if (conv) c->apply(p.u, p.ub, p.grad, p.lim, rhs);
    if (diff) d->apply(p.u, p.ub, p.grad, rhs);
  });
}

HostView2 fused(const Problem& p, const OperatorsConfig& o, bool det) {
  const auto f = make_scalar_face_pass(p.mesh, p.geom, o, p.phi, p.kappa, p.types, det);
  return test::added_rate(p.mesh, p.n, [&](View2<real> rhs) { f->apply(p.u, p.ub, p.grad, p.lim, rhs); });
}

TEST(FacePass, EqualsConvectionThenDiffusion) {
  const std::vector<std::pair<std::string, HostMesh>> meshes{
      {"hex jitter zorder", test::box_mesh(ElementKind::hex, {false, false, false}, 0.25, Ordering::zorder)},
      {"tet jitter random", test::box_mesh(ElementKind::tet, {false, false, false}, 0.15, Ordering::random)},
      {"prism periodic x hilbert", test::box_mesh(ElementKind::prism, {true, false, false}, 0.2, Ordering::hilbert)},
      {"gmsh hybrid", read_gmsh(test::source_path("mesh/hybrid_channel.msh"))}};
  const std::vector<std::vector<BoundaryType>> mixes{
      {BoundaryType::inflow, BoundaryType::outflow, BoundaryType::dirichlet}, {BoundaryType::dirichlet}};
  for (const auto& [name, h] : meshes)
    for (std::size_t mix = 0; mix < mixes.size(); ++mix)
      for (int order : {1, 2})
        for (Limiter l : {Limiter::venkatakrishnan, Limiter::none}) {
          if (order == 1 && l != Limiter::none) continue;
          for (int n : {1, 5}) {
            const Problem p = problem(h, n, mixes[mix], l);
            // Both terms matter: a pass that dropped either would differ by far more than round-off.
            const OperatorsConfig g = options(order, Scatter::gather, Policy::range);
            const double conv = max_abs(separate(p, g, true, true, false));
            const double diff = max_abs(separate(p, g, true, false, true));
            ASSERT_GT(diff, 1e-3 * conv) << name;
            for (const auto& [s, pol, det] :
                 {std::tuple{Scatter::gather, Policy::range, true}, std::tuple{Scatter::gather, Policy::team, false},
                  std::tuple{Scatter::atomic, Policy::range, false}, std::tuple{Scatter::atomic, Policy::team, false},
                  std::tuple{Scatter::stored, Policy::range, false}, std::tuple{Scatter::stored, Policy::team, true}}) {
              const OperatorsConfig o = options(order, s, pol);

              const std::string what = name + ", boundary mix " + std::to_string(mix) + ", order " +
                                       std::to_string(order) + ", " + to_string(l) + ", N " + std::to_string(n) + ", " +
                                       to_string(s) + "/" + to_string(pol);
              SCOPED_TRACE(what);
              const HostView2 ref = separate(p, o, det), got = fused(p, o, det);
              const double scale = max_abs(ref);
              EXPECT_LE(test::max_abs_diff(got, ref), test::tol(1e-13) * scale);
              if (s == Scatter::stored) {
                // the separate convection stores each face's own flux and sums it in the gather's
                // order: the gather's rate bitwise; the diffusion scales per face: round-off
                const OperatorsConfig go = options(order, Scatter::gather, pol);
                EXPECT_EQ(test::max_abs_diff(separate(p, o, det, true, false), separate(p, go, det, true, false)), 0.0);
                EXPECT_LE(test::max_abs_diff(separate(p, o, det, false, true), separate(p, go, det, false, true)),
                          test::tol(1e-13) * scale);
              }
              if (s != Scatter::gather || !det) continue;
              // The gather adds the same terms in the same order: bitwise away from the boundary.
              auto bb = Kokkos::create_mirror_view_and_copy(HostSpace(), p.geom.cell_boundary_begin);
              auto off = Kokkos::create_mirror_view_and_copy(HostSpace(), p.mesh.cell_face_off);
              index_t checked = 0;
              for (index_t c = 0; c < p.mesh.n_cells; ++c) {
                if (bb(c) != off(c + 1)) continue; // a boundary face: the patches add in another order
                ++checked;
                for (int k = 0; k < n; ++k) ASSERT_EQ(got(c, k), ref(c, k)) << "cell " << c << ", component " << k;
              }
              EXPECT_GT(checked, 0);
            }
          }
        }
}

TEST(FacePass, RefusesMismatchedOperators) {
  const Problem p = problem(test::box_mesh(ElementKind::hex, {false, false, false}, 0, Ordering::none), 1,
                            {BoundaryType::dirichlet}, Limiter::none);
  OperatorsConfig o = options(2, Scatter::gather, Policy::range);
  o.diffusion.scatter = Scatter::atomic;
  EXPECT_THROW(make_scalar_face_pass(p.mesh, p.geom, o, p.phi, p.kappa, p.types, false), InputError);
  o = options(2, Scatter::gather, Policy::range);
  o.convection.variant = Variant::naive;
  EXPECT_THROW(make_scalar_face_pass(p.mesh, p.geom, o, p.phi, p.kappa, p.types, false), InputError);
  // stored fluxes: the face pass and the separate operators; the gradients refuse them, naming the key
  o = options(2, Scatter::stored, Policy::range);
  EXPECT_NO_THROW(make_scalar_face_pass(p.mesh, p.geom, o, p.phi, p.kappa, p.types, false));
  EXPECT_NO_THROW(make_convection(p.mesh, p.geom, o.convection, p.phi, 1, p.types, false));
  EXPECT_NO_THROW(make_diffusion(p.mesh, p.geom, o.diffusion, p.kappa, p.types, false));
  MusclConfig mc;
  mc.scatter = Scatter::stored;
  EXPECT_THROW(make_gradient(p.mesh, p.geom, mc, 1, false), InputError);
}

} // namespace
} // namespace fvproxy
