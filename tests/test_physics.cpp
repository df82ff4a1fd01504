// Pointwise physics on the host: fluxes, limiters, velocity fields, and the exact solutions
// (checked against the PDE itself by finite differences, not against stored numbers).
#include <cmath>
#include <random>

#include "physics/fluxes.hpp"
#include "physics/limiters.hpp"
#include "physics/velocity.hpp"
#include "solver/scalar_solution.hpp"
#include "test_helpers.hpp"

namespace fvproxy {
namespace {

TEST(Physics, UpwindPicksTheUpwindState) {
  const UpwindFlux f;
  EXPECT_EQ(f(2.0, 3.0, 5.0), 6.0);
  EXPECT_EQ(f(-2.0, 3.0, 5.0), -10.0);
  EXPECT_EQ(f(0.0, 3.0, 5.0), 0.0);
}

TEST(Physics, DiffusionFluxIsExactOnLinearFields) {
  std::mt19937 g(3);
  std::uniform_real_distribution<double> U(-1, 1);
  const DiffusionFlux flux;
  for (int it = 0; it < 100; ++it) {
    const real a[3] = {real(U(g)), real(U(g)), real(U(g))}; // u = a . x + 2
    const real S[3] = {real(U(g)), real(U(g)), real(U(g))};
    real d[3] = {real(U(g)), real(U(g)), real(U(g))};
    if (S[0] * d[0] + S[1] * d[1] + S[2] * d[2] < 0.1) d[0] += 3 * S[0], d[1] += 3 * S[1], d[2] += 3 * S[2];
    const real xP[3] = {real(U(g)), real(U(g)), real(U(g))};
    const real uP = a[0] * xP[0] + a[1] * xP[1] + a[2] * xP[2] + 2;
    const real uN = uP + a[0] * d[0] + a[1] * d[1] + a[2] * d[2];
    const auto c = DiffusionCoefficients::from(S, d);
    const double exact = 0.7 * (a[0] * S[0] + a[1] * S[1] + a[2] * S[2]);
    EXPECT_NEAR(flux(real(0.7), c, uP, uN, a), exact, test::tol(1e-12)) << "iteration " << it;
  }
  // Orthogonal face: no correction.
  const real S[3] = {0, 0, 2}, d[3] = {0, 0, 0.5};
  const auto c = DiffusionCoefficients::from(S, d);
  EXPECT_EQ(c.k[0], 0);
  EXPECT_EQ(c.k[1], 0);
  EXPECT_EQ(c.k[2], 0);
  EXPECT_EQ(c.alpha, 4);
}

TEST(Physics, LimitersBoundTheReconstruction) {
  std::mt19937 g(5);
  std::uniform_real_distribution<double> U(-1, 1);
  const BarthJespersen bj;
  const Venkatakrishnan vk;
  for (int it = 0; it < 2000; ++it) {
    const real dmax = real(std::abs(U(g))), dmin = -real(std::abs(U(g))), delta = real(2 * U(g));
    const real p = bj(delta, dmax, dmin, 0);
    ASSERT_GE(p, 0);
    ASSERT_LE(p, 1);
    ASSERT_LE(p * delta, dmax + test::tol(1e-15));
    ASSERT_GE(p * delta, dmin - test::tol(1e-15));
    const real q = vk(delta, dmax, dmin, real(1e-4));
    ASSERT_GE(q, 0);
    ASSERT_LE(q, 1);
  }
  EXPECT_EQ(bj(0.5, 1.0, -1.0, 0), 1);        // within bounds: unlimited
  EXPECT_EQ(bj(2.0, 1.0, -1.0, 0), 0.5);      // overshoot: clipped to the maximum
  EXPECT_EQ(bj(-4.0, 1.0, -1.0, 0), 0.25);    // undershoot: clipped to the minimum
  EXPECT_EQ(bj(1.0, 0.0, -1.0, 0), 0);        // local maximum: first order
  EXPECT_NEAR(vk(1e-3, 0, 0, 1.0), 1, 1e-5);  // small oscillation below eps: passes
  EXPECT_LT(vk(1.0, 0.0, -1.0, 1e-12), 1e-6); // local maximum, eps -> 0: like Barth-Jespersen
  EXPECT_EQ(NoLimiter{}(5, 0, 0, 0), 1);
}

// Venkatakrishnan's phi = ((dp^2 + eps^2) d + 2 d^2 dp) / ((dp^2 + 2 d^2 + dp d + eps^2) d), capped at 1,
// at values worked out by hand; homogeneous of degree 0 in (delta, dmax, dmin, eps): only ratios
// matter, which is what makes the limiter invariant to the scale of u once eps scales with it.
TEST(Physics, VenkatakrishnanValues) {
  const Venkatakrishnan vk;
  EXPECT_NEAR(vk(2, 1, -1, 0), real(10.0 / 22.0), test::tol(1e-15));       // overshoot 2x: 0.4545
  EXPECT_NEAR(vk(1, 1, -1, 0), real(0.75), test::tol(1e-15));              // delta = dmax: 0.75 (BJ: 1)
  EXPECT_NEAR(vk(1, 2, -1, 0), real(1), test::tol(1e-15));                 // delta = dmax / 2: 1
  EXPECT_NEAR(vk(-0.5, 1, -0.25, 0), real(10.0 / 22.0), test::tol(1e-15)); // undershoot, same ratio
  EXPECT_NEAR(vk(1, 1, -1, 1), real(0.8), test::tol(1e-15));               // eps^2 = dmax^2 relaxes it
  EXPECT_EQ(vk(0, 1, -1, 0), 1);                                           // no increment
  for (const real s : {real(1e-3), real(100), real(1e4)})
    EXPECT_NEAR(vk(real(0.7) * s, real(0.4) * s, real(-0.2) * s, real(0.01) * s * s),
                vk(real(0.7), real(0.4), real(-0.2), real(0.01)), test::tol(1e-14));
}

TEST(Physics, RotationVelocityIsRigid) {
  const RotationVelocity rot{{0, 0, 1}, {0.5, 0.5, 0}, 2};
  const real x[3] = {1.5, 0.5, 7};
  real v[3];
  rot(x, v);
  EXPECT_NEAR(v[0], 0, 1e-15);
  EXPECT_NEAR(v[1], 2, 1e-15); // omega |r|, counterclockwise about +z
  EXPECT_NEAR(v[2], 0, 1e-15);
}

CaseConfig parse(const std::string& yaml) {
  return parse_case(ConfigSource::from_string(yaml, "case.yaml"));
}

/// max over points and times of |du/dt + v . grad u - kappa lap u|: 200 random points, or
/// `at` (a point) at `t_at`.
double pde_residual(const CaseConfig& c, int comp, const real* at = nullptr, real t_at = 0) {
  const ScalarSolution s = make_scalar_solution(c);
  std::mt19937 g(11);
  std::uniform_real_distribution<double> U(0.1, 0.9);
  const double h = 1e-4, ht = 1e-5;
  double worst = 0;
  for (int it = 0; it < (at ? 1 : 200); ++it) {
    real x[3] = {real(U(g)), real(U(g)), real(U(g))};
    real t = real(0.2 * U(g));
    if (at) x[0] = at[0], x[1] = at[1], x[2] = at[2], t = t_at;
    real v[3];
    if (s.rotation)
      RotationVelocity{{s.axis[0], s.axis[1], s.axis[2]}, {s.rot_center[0], s.rot_center[1], s.rot_center[2]}, s.omega}(
          x, v);
    else
      UniformVelocity{{s.u[0], s.u[1], s.u[2]}}(x, v);
    const double u0 = s(comp, x, t);
    const double dt = (s(comp, x, t + ht) - s(comp, x, t - ht)) / (2 * ht);
    double adv = 0, lap = 0;
    for (int d = 0; d < 3; ++d) {
      real xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
      xp[d] += h, xm[d] -= h;
      const double up = s(comp, xp, t), um = s(comp, xm, t);
      adv += v[d] * (up - um) / (2 * h);
      lap += (up - 2 * u0 + um) / (h * h);
    }
    worst = std::max(worst, std::abs(dt + adv - s.kappa[comp] * lap));
  }
  return worst;
}

TEST(Physics, ExactSolutionsSolveAdvectionDiffusion) {
  if (sizeof(real) != sizeof(double)) GTEST_SKIP() << "finite-difference check needs double precision";
  const std::string box = "mesh: {generate: {cells: [3, 3, 3], periodic: [x, y, z]}}\ntime: {steps: 1}\n";
  const CaseConfig periodic = parse(box + R"(physics:
  components: 2
  velocity: {type: uniform, value: [1, -0.5, 0.25]}
  diffusivity: [0.01, 0.05]
initial:
  - {type: gaussian, center: [0.5, 0.5, 0.5], width: 0.3, amplitude: 1, background: 0.2}
  - {type: sine, wavenumber: [1, 2, 1], amplitude: 1, phase: 0.3}
)");
  EXPECT_EQ(exact_solution_unavailable(periodic), "");
  // Residual of a second-order difference of a function of size ~1 with h = 1e-4: ~1e-6.
  EXPECT_LT(pde_residual(periodic, 0), 1e-5);
  EXPECT_LT(pde_residual(periodic, 1), 1e-4); // |k|^2 ~ 240: larger derivatives
  // On the plane half a period from the (transported) peak, where the nearest periodic image
  // changes: smooth only if the images are summed.
  const real t = 0.1;
  const real wrap_plane[3] = {real(0.5 + 0.5 + 1.0 * t), real(0.5 - 0.5 * t), real(0.5 + 0.25 * t)};
  EXPECT_LT(pde_residual(periodic, 0, wrap_plane, t), 1e-5);

  const CaseConfig rotating = parse(R"(mesh: {generate: {cells: [2, 2, 2]}}
time: {steps: 1}
physics:
  velocity: {type: rotation, axis: [1, 1, 1], center: [0.5, 0.5, 0.5], omega: 3}
  diffusivity: 0.02
initial: [{type: gaussian, center: [0.7, 0.5, 0.4], width: 0.2, amplitude: 1}]
boundary:
  xmin: {type: dirichlet, value: exact}
  xmax: {type: dirichlet, value: exact}
  ymin: {type: dirichlet, value: exact}
  ymax: {type: dirichlet, value: exact}
  zmin: {type: dirichlet, value: exact}
  zmax: {type: dirichlet, value: exact}
)");
  EXPECT_EQ(exact_solution_unavailable(rotating), "");
  EXPECT_LT(pde_residual(rotating, 0), 1e-5);
}

TEST(Physics, ExactSolutionProperties) {
  const CaseConfig c = parse(R"(mesh: {generate: {cells: [3, 3, 3], lengths: [2, 1, 1], periodic: [x]}}
time: {steps: 1}
physics: {velocity: {type: uniform, value: [0.5, 0, 0]}}
initial: [{type: gaussian, center: [1, 0.5, 0.5], width: 0.1, amplitude: 3, background: 1}]
boundary: {ymin: {type: outflow}, ymax: {type: outflow}, zmin: {type: outflow}, zmax: {type: outflow}}
)");
  const ScalarSolution s = make_scalar_solution(c);
  const real centre[3] = {1, 0.5, 0.5};
  EXPECT_NEAR(s(0, centre, 0), 4.0, 1e-12); // background + amplitude (other images negligible)
  // Transported without diffusion: after t = 1 the peak is at x = 1.5; periodic in x.
  const real moved[3] = {1.5, 0.5, 0.5}, image[3] = {-0.5, 0.5, 0.5};
  EXPECT_NEAR(s(0, moved, 1), 4.0, 1e-12);
  EXPECT_NEAR(s(0, image, 1), 4.0, 1e-12);
  // The outflow patches make it inexact as the solution of the bounded problem.
  EXPECT_NE(exact_solution_unavailable(c).find("patch 'ymin' is outflow"), std::string::npos);

  const CaseConfig sphere = parse(R"(mesh: {generate: {cells: [2, 2, 2]}}
time: {steps: 1}
physics: {velocity: {type: rotation, axis: [0, 0, 1], center: [0.5, 0.5, 0.5], omega: 1.5707963267948966}}
initial: [{type: sphere, center: [0.8, 0.5, 0.5], radius: 0.1, inside: 1, outside: 0}]
)");
  const ScalarSolution r = make_scalar_solution(sphere);
  const real quarter[3] = {0.5, 0.8, 0.5}, start[3] = {0.8, 0.5, 0.5};
  EXPECT_EQ(r(0, start, 0), 1);
  EXPECT_EQ(r(0, quarter, 0), 0);
  EXPECT_EQ(r(0, quarter, 1), 1); // a quarter turn later
  EXPECT_EQ(r(0, start, 1), 0);

  const CaseConfig diffusing_step = parse(R"(mesh: {generate: {cells: [3, 3, 3], periodic: [x, y, z]}}
time: {steps: 1}
physics: {diffusivity: 0.1}
initial: [{type: sphere, center: [0.5, 0.5, 0.5], radius: 0.1, inside: 1, outside: 0}]
)");
  EXPECT_NE(exact_solution_unavailable(diffusing_step).find("diffusing step"), std::string::npos);
  const CaseConfig rotating_sine = parse(R"(mesh: {generate: {cells: [3, 3, 3], periodic: [x, y, z]}}
time: {steps: 1}
physics: {velocity: {type: rotation, axis: [0, 0, 1], center: [0.5, 0.5, 0.5], omega: 1}}
initial: [{type: sine, wavenumber: [1, 0, 0], amplitude: 1}]
)");
  EXPECT_NE(exact_solution_unavailable(rotating_sine).find("not transported exactly by a rotation"), std::string::npos);
}

} // namespace
} // namespace fvproxy
