// Run-level tests of the flow solver (solver/flow_solver.hpp) through run_simulation, on the cases of
// inputs/: Sod's shock tube against the exact Riemann solution with L1 bounds that tell second order
// from first (hex and tet), plane Couette flow to its exact steady profile (velocity and viscous
// heating) under the residual stop, the variable time step landing on output times, and the stop
// on a non-physical state with the last good state handed to the output.
#include <cmath>
#include <fstream>
#include <map>

#include "core/config.hpp"
#include "mesh/build.hpp"
#include "physics/flow_solutions.hpp"
#include "solver/simulation.hpp"
#include "test_helpers.hpp"

namespace fvproxy {
namespace {

CaseConfig input_case(const std::string& name, const std::vector<std::string>& sets = {}) {
  ConfigSource src = ConfigSource::from_file(test::source_path("inputs/" + name + ".yaml"));
  for (const auto& s : sets) src.apply_set(s);
  return parse_case(src);
}

struct FlowRun {
  RunSummary summary;
  BuiltMesh mesh;
};

FlowRun run(const CaseConfig& cfg, const RunHooks& hooks = {}) {
  FlowRun r;
  r.mesh = build_mesh(cfg.mesh);
  r.summary = run_simulation(cfg, r.mesh.device, hooks, true);
  return r;
}

double l1(const RunSummary& s, const std::string& field) {
  EXPECT_TRUE(s.errors.has_value()) << s.no_exact_solution;
  if (!s.errors) return 1e300;
  for (std::size_t k = 0; k < s.error_names.size(); ++k)
    if (s.error_names[k] == field) return (*s.errors)[k].l1;
  ADD_FAILURE() << "no error norms of " << field;
  return 1e300;
}

TEST(FlowSolver, SodL1BoundsTellSecondOrderFromFirst) {
  // inputs/sod.yaml and sod_tet.yaml (HLLC, least squares + Barth-Jespersen on the primitive
  // variables, SSP-RK3, CFL 0.5, 160 cells across, t = 0.2). Measured (double, OpenMP): hex second
  // order L1 density 3.05e-3, pressure 2.02e-3; first order 1.55e-2, 1.35e-2. Tets: 3.37e-3,
  // 2.44e-3; first order 8.8e-3, 7.3e-3 (docs/physics.md#sod).
  const double bound_density = 4.5e-3, bound_pressure = 3.5e-3;
  for (const char* name : {"sod", "sod_tet"}) {
    SCOPED_TRACE(name);
    const FlowRun two = run(input_case(name));
    ASSERT_FALSE(two.summary.failure);
    EXPECT_EQ(two.summary.time, 0.2);
    EXPECT_TRUE(two.summary.variable_dt);
    std::printf("[sod] %s second order: L1 density %.3e pressure %.3e velocity %.3e (%lld steps)\n", name,
                l1(two.summary, "density"), l1(two.summary, "pressure"), l1(two.summary, "velocity"),
                two.summary.steps);
    EXPECT_LT(l1(two.summary, "density"), bound_density);
    EXPECT_LT(l1(two.summary, "pressure"), bound_pressure);
    const FlowRun one = run(input_case(name, {"operators.convection.order=1"}));
    std::printf("[sod] %s first order: L1 density %.3e pressure %.3e\n", name, l1(one.summary, "density"),
                l1(one.summary, "pressure"));
    EXPECT_GT(l1(one.summary, "density"), bound_density);
    EXPECT_GT(l1(one.summary, "pressure"), bound_pressure);
    // mass and energy are conserved between slip walls; x-momentum grows by (p_left - p_right) A t
    const auto& a = two.summary.conservation_initial;
    const auto& b = two.summary.conservation_final;
    ASSERT_EQ(a.size(), 5u);
    const double run_tol =
        sizeof(real) == sizeof(double) ? 1e-13 : 1e-4; // a run's round-off (docs/output.md#tolerances)
    EXPECT_NEAR(b[0], a[0], run_tol * a[0]);
    EXPECT_NEAR(b[4], a[4], run_tol * a[4]);
    const double impulse = (1 - 0.1) * 0.0125 * 0.0125 * 0.2;
    EXPECT_NEAR(b[1] - a[1], impulse, 100 * run_tol * impulse);
  }
}

TEST(FlowSolver, CouetteReachesTheExactSteadyProfile) {
  // inputs/couette.yaml: walls at rest (y = 0) and sliding at U = 0.5 (y = 1), both at T = 1,
  // mu = 0.05, Pr = 0.72, R = 1: the steady state has u = U y and T = 1 + Pr U^2 / (2 c_p) y (1 - y)
  // (the viscous heating's bump is 0.0064 at mid-channel, c_p = 3.5).
  const CaseConfig cfg = input_case("couette");
  const FlowRun r = run(cfg);
  ASSERT_FALSE(r.summary.failure);
  EXPECT_TRUE(r.summary.converged) << "stopped at t = " << r.summary.time;
  ASSERT_EQ(r.summary.residual_last.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) EXPECT_LT(r.summary.residual_last[k], 1e-6 * r.summary.residual_reference[k]);
  flow::Couette exact;
  exact.h = 1, exact.U = 0.5, exact.T0 = exact.T1 = 1, exact.prandtl = real(0.72), exact.cp = real(1.4 / 0.4);
  double eu = 0, eT = 0, bump = 0;
  const auto& s = r.summary.final_state;
  const auto x = Kokkos::create_mirror_view_and_copy(HostSpace(), r.mesh.device.centroid);
  for (index_t c = 0; c < r.mesh.device.n_cells; ++c) {
    const double y = x(c, 1);
    const double rho = s[0][c], u = s[1][c] / rho, v = s[2][c] / rho, w = s[3][c] / rho;
    const double p = 0.4 * (s[4][c] - 0.5 * rho * (u * u + v * v + w * w));
    const double T = p / rho; // R = 1
    eu = std::max(eu, std::abs(u - exact.velocity(real(y))));
    eT = std::max(eT, std::abs(T - exact.temperature(real(y))));
    bump = std::max(bump, double(exact.temperature(real(y))) - 1);
    EXPECT_LT(std::abs(v) + std::abs(w), 1e-4 * 0.5); // what is left of the start's acoustic waves
  }
  std::printf("[couette] steady at t = %.4g (%lld steps): max |u - U y| = %.3e, max |T - T_exact| = %.3e "
              "(heating bump %.3e)\n",
              r.summary.time, r.summary.steps, eu, eT, bump);
  // measured 8.6e-6 and 2.5e-5: the linear velocity is reproduced up to the residual, the quadratic
  // heating profile to 0.4 % of its height (dropping the viscous work from the energy flux fails)
  EXPECT_LT(eu, 2e-4 * 0.5);
  EXPECT_LT(eT, 0.02 * bump);
  // The walls' forces (the flow's on each wall, WallForce): the shear mu U / h A along x, dragging
  // the wall at rest forward and holding the sliding one back, and the pressure p A pushing each
  // wall out of the channel. A = 0.1875^2 (the periodic x-z section).
  const double A = 0.1875 * 0.1875, shear = 0.05 * 0.5 / 1.0 * A;
  ASSERT_EQ(r.summary.forces.size(), 2u);
  for (const WallForce& w : r.summary.forces) {
    const double sign = w.patch == "ymin" ? 1.0 : -1.0;
    std::printf("[couette] force on %s: (%.6e, %.6e, %.6e): viscous x %.6e, pressure y %.6e\n", w.patch.c_str(),
                w.total(0), w.total(1), w.total(2), w.viscous[0], w.pressure[1]);
    EXPECT_NEAR(w.viscous[0], sign * shear, 1e-3 * shear) << w.patch;
    EXPECT_NEAR(w.pressure[0], 0.0, 1e-12) << w.patch;
    EXPECT_NEAR(w.pressure[1], -sign * A, 0.01 * A) << w.patch; // p = 1 to the heating's 0.4 %
    EXPECT_NEAR(w.viscous[1], 0.0, 5e-3 * shear) << w.patch;    // the normal stress of what is left of v: 1e-3
  }
}

TEST(FlowSolver, VariableStepLandsOnOutputTimesAndTheEnd) {
  // Output every 0.05 of simulated time: the fields are written exactly there, the last step lands
  // on end_time, and no step is shorter than half a stable step's worth (no sliver).
  const CaseConfig cfg = input_case("sod", {"mesh.generate.cells=[40,2,2]", "mesh.generate.lengths=[1,0.05,0.05]"});
  std::vector<double> times;
  RunHooks hooks;
  hooks.write_fields = [&](long long, double t, ConstView2<real> u) {
    EXPECT_EQ(u.extent(1), 10u); // the output fields' columns
    times.push_back(t);
    return std::string("fields");
  };
  const FlowRun r = run(cfg, hooks);
  ASSERT_FALSE(r.summary.failure);
  ASSERT_EQ(times.size(), 5u);
  for (int k = 0; k < 5; ++k) EXPECT_DOUBLE_EQ(times[k], 0.05 * k);
  EXPECT_EQ(times.back(), 0.2);
  EXPECT_EQ(r.summary.time, 0.2);
  EXPECT_GT(r.summary.dt_min, 0.3 * r.summary.dt_max);
}

TEST(FlowSolver, NonPhysicalStateStopsWithTheLastGoodState) {
  // Unlimited MUSCL at CFL 1.9 blows up Sod's shock tube in its first steps: the run stops at the
  // failing step with the cell and its state, and hands the state before it to the output; with
  // the variable step and with a fixed one (the flow models check every step either way).
  for (const char* time : {"time.cfl=1.9", "time={end_time: 0.2, dt: 0.01}"}) {
    SCOPED_TRACE(time);
    const CaseConfig cfg = input_case("sod", {"mesh.generate.cells=[40,2,2]", "mesh.generate.lengths=[1,0.05,0.05]",
                                              time, "operators.muscl.limiter=none", "output.every={steps: 1000}"});
    long long last_step = -1;
    RunHooks hooks;
    hooks.write_fields = [&](long long step, double, ConstView2<real> u) {
      last_step = step;
      auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), u);
      for (index_t c = 0; c < index_t(u.extent(0)); ++c) {
        EXPECT_GT(h(c, 0), 0); // density of the last good state
        EXPECT_GT(h(c, 8), 0); // pressure
      }
      return std::string("fields");
    };
    const FlowRun r = run(cfg, hooks);
    ASSERT_TRUE(r.summary.failure);
    const StateFailure& f = *r.summary.failure;
    EXPECT_TRUE(f.kind == StateFailure::Kind::non_physical || f.kind == StateFailure::Kind::non_finite);
    EXPECT_GE(f.step, 1);
    EXPECT_EQ(last_step, f.step - 1);
    EXPECT_EQ(r.summary.steps, f.step);
    EXPECT_EQ(r.summary.last_good_file, "fields");
    EXPECT_EQ(f.state.size(), 5u);
    EXPECT_GE(f.cell_gid, 0);
    EXPECT_GT(f.x[0], 0.0);
  }
}

} // namespace
} // namespace fvproxy
