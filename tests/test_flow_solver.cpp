// Run-level tests of the flow solver (solver/flow_solver.hpp) through run_simulation, on the cases of
// inputs/: Sod's shock tube against the exact Riemann solution with L1 bounds that tell second order
// from first (hex and tet), plane Couette flow to its exact steady profile (velocity and viscous
// heating) under the residual stop, the variable time step landing on output times, and the stop
// on a non-physical state with the last good state handed to the output.
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "mesh/box_generator.hpp"
#include "mesh/build.hpp"
#include "physics/exact_riemann.hpp"
#include "physics/flow_solutions.hpp"
#include "solver/case_config.hpp"
#include "solver/flow_solver.hpp"
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

/// Sod's shock tube on `mesh` (inputs/<mesh>.yaml) with each flux against its L1 bounds.
void sod_bounds(const std::string& mesh) {
  // inputs/sod.yaml and sod_tet.yaml (least squares + Barth-Jespersen on the primitive variables,
  // SSP-RK3 at the default CFL 1, 160 cells across, t = 0.2) with each flux: absolute L1 bounds 1.1x the errors
  // measured (double, OpenMP, 2026-11-26; tets 2026-11-30 with the corners stencil, the default, and
  // HLLC and Roe 2026-12-07 rotated at shocks with the shear floor, the defaults: docs/flow-cases.md#sod),
  // tight enough that a flux a little wrong fails them (without the floor the tets' velocity errors
  // are 6.9e-3 and 7.4e-3). First order (HLLC) is above the second-order bounds.
  struct Bound {
    const char* mesh;
    const char* flux;
    double density, pressure, velocity;
  };
  const std::vector<Bound> bounds{
      {"sod", "hllc", 3.056e-3, 2.028e-3, 5.621e-3},    {"sod", "roe", 2.801e-3, 1.830e-3, 5.276e-3},
      {"sod", "rusanov", 4.265e-3, 2.848e-3, 6.958e-3}, {"sod_tet", "hllc", 2.652e-3, 1.431e-3, 4.101e-3},
      {"sod_tet", "roe", 2.663e-3, 1.449e-3, 4.100e-3}, {"sod_tet", "rusanov", 2.684e-3, 1.821e-3, 4.485e-3}};
  for (const Bound& x : bounds) {
    if (x.mesh != mesh) continue;
    const char* name = x.mesh;
    SCOPED_TRACE(std::string(name) + ", " + x.flux);
    const FlowRun two = run(input_case(name, {std::string("operators.convection.flux=") + x.flux}));
    ASSERT_FALSE(two.summary.failure);
    EXPECT_EQ(two.summary.time, 0.2);
    EXPECT_TRUE(two.summary.variable_dt);
    std::printf("[sod] %s %s second order: L1 density %.4e pressure %.4e velocity %.4e (%lld steps)\n", name, x.flux,
                l1(two.summary, "density"), l1(two.summary, "pressure"), l1(two.summary, "velocity"),
                two.summary.steps);
    EXPECT_LT(l1(two.summary, "density"), 1.1 * x.density);
    EXPECT_LT(l1(two.summary, "pressure"), 1.1 * x.pressure);
    EXPECT_LT(l1(two.summary, "velocity"), 1.1 * x.velocity);
    const double bound_density = 1.1 * x.density, bound_pressure = 1.1 * x.pressure;
    if (std::string(x.flux) != "hllc") continue;
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

TEST(FlowSolver, SodL1BoundsTellSecondOrderFromFirstOnHexes) {
  sod_bounds("sod");
}

TEST(FlowSolver, SodL1BoundsTellSecondOrderFromFirstOnTets) {
  sod_bounds("sod_tet");
}

/// A plane Riemann problem of inputs/sod.yaml along `axis` (0, 1, 2): `cells` along it, 2 x 2 across
/// (lengths 1 and `width`), the ends of type `ends`, symmetry planes on the sides, the flow defaults
/// (operators: {}, time: {end_time}) unless `extra` says otherwise.
std::vector<std::string> plane_riemann(int axis, int cells, double width, const std::array<double, 3>& left,
                                       const std::array<double, 3>& right, double position, double end_time,
                                       const std::string& ends, const std::vector<std::string>& extra = {}) {
  auto vec = [&](double along, double across) {
    std::string s = "[";
    for (int i = 0; i < 3; ++i) s += (i ? ", " : "") + test::num(i == axis ? along : across);
    return s + "]";
  };
  auto state = [&](const std::array<double, 3>& w) {
    return "{density: " + test::num(w[0]) + ", velocity: " + vec(w[1], 0) + ", pressure: " + test::num(w[2]) + "}";
  };
  std::string b = "boundary={";
  const char* names[3][2] = {{"xmin", "xmax"}, {"ymin", "ymax"}, {"zmin", "zmax"}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j)
      b += std::string(i + j ? ", " : "") + names[i][j] + ": {type: " + (i == axis ? ends : "symmetry") + "}";
  std::vector<std::string> sets{"mesh.generate.cells=" + vec(cells, 2),
                                "mesh.generate.lengths=" + vec(1, width),
                                "initial.normal=" + vec(1, 0),
                                "initial.position=" + test::num(position),
                                "initial.left=" + state(left),
                                "initial.right=" + state(right),
                                b + "}",
                                "operators={}",
                                "time={end_time: " + test::num(end_time) + "}",
                                "output.every={time: 1}"};
  sets.insert(sets.end(), extra.begin(), extra.end());
  return sets;
}

TEST(FlowSolver, SodWithTheDefaultLimiterStaysInTheExactRangeAlongEachAxis) {
  // Sod's shock tube (160 cells, 2 x 2 across, t = 0.2) with the flow defaults (HLLC, conservative
  // MUSCL, Venkatakrishnan) along x, y and z: no cell's density, velocity along the tube or pressure
  // leaves the exact solution's range by more than 1 % of it (issue 26: with eps one global value,
  // (K h / L)^3 = K^3 / n_cells, the limiter was effectively off on this thin mesh and the pressure
  // undershot by 7 %; eps per cell with L the domain's extent keeps it on). Measured overshoots are
  // printed.
  const double lo[3] = {0.125, 0.0, 0.1}, hi[3] = {1.0, 0.927453, 1.0}; // density, velocity, pressure
  for (int axis = 0; axis < 3; ++axis) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    const CaseConfig cfg =
        input_case("sod", plane_riemann(axis, 160, 0.0125, {1, 0, 1}, {0.125, 0, 0.1}, 0.5, 0.2, "slip-wall"));
    std::array<double, 3> mn{1e300, 1e300, 1e300}, mx{-1e300, -1e300, -1e300};
    RunHooks hooks;
    hooks.write_fields = [&](long long, double t, ConstView2<real> u) {
      if (t < 0.2) return std::string("fields");
      auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), u);
      for (index_t c = 0; c < index_t(h.extent(0)); ++c) {
        const double v[3] = {double(h(c, 0)), double(h(c, 5 + axis)), double(h(c, 8))};
        for (int k = 0; k < 3; ++k) mn[k] = std::min(mn[k], v[k]), mx[k] = std::max(mx[k], v[k]);
      }
      return std::string("fields");
    };
    const FlowRun r = run(cfg, hooks);
    ASSERT_FALSE(r.summary.failure);
    const char* names[3] = {"density", "velocity", "pressure"};
    for (int k = 0; k < 3; ++k) {
      const double range = hi[k] - lo[k], under = (lo[k] - mn[k]) / range, over = (mx[k] - hi[k]) / range;
      std::printf("[sod-range] axis %d %s: min %.5f (%+.2f %%), max %.5f (%+.2f %%)\n", axis, names[k], mn[k],
                  -100 * under, mx[k], 100 * over);
      EXPECT_LE(under, 0.01) << names[k];
      EXPECT_LE(over, 0.01) << names[k];
    }
  }
}

TEST(FlowSolver, RotatedFluxHalvesSodsOvershootOnTetsAndLeavesHexesAlone) {
  // Sod along x, 100 cells, 2 x 2 across (cubic cells), transmissive ends, the flow defaults
  // (perf/shocks.py's set-up). On tets the face-normal Riemann problems across faces oblique to the
  // shock make a shear behind it; the rotated HLLC (the default) solves them along the velocity jump
  // at the shock (docs/physics.md#shocks-on-tets). Without the shear floor (shear_dissipation: 0,
  // which takes both below: ShearFloorLetsSodConvergeOnRegularTets). Measured (double, OpenMP): the
  // velocity's overshoot over the exact 0.927 rotated 5.5 %, `rotated: false` 10.4 %; on hexes the
  // same bits either way.
  auto overshoot = [](const FlowRun& r) {
    const auto& s = r.summary.final_state;
    double mx = -1e300;
    for (index_t c = 0; c < r.mesh.device.n_cells; ++c) mx = std::max(mx, double(s[1][c] / s[0][c]));
    return (mx - 0.927453) / 0.927453;
  };
  auto sod = [](const char* mesh, bool rotated) {
    return run(
        input_case(mesh, plane_riemann(0, 100, 0.02, {1, 0, 1}, {0.125, 0, 0.1}, 0.5, 0.2, "supersonic-outflow",
                                       {std::string("operators.convection.rotated=") + (rotated ? "true" : "false"),
                                        "operators.convection.shear_dissipation=0"})));
  };
  const FlowRun tet = sod("sod_tet", true), tet_normal = sod("sod_tet", false);
  ASSERT_FALSE(tet.summary.failure);
  ASSERT_FALSE(tet_normal.summary.failure);
  std::printf("[sod-rotated] tets: velocity overshoot %.2f %% rotated, %.2f %% face-normal\n", 100 * overshoot(tet),
              100 * overshoot(tet_normal));
  EXPECT_LT(overshoot(tet), 0.07);
  EXPECT_GT(overshoot(tet_normal), 0.09);
  const FlowRun hex = sod("sod", true), hex_normal = sod("sod", false);
  ASSERT_EQ(hex.summary.steps, hex_normal.summary.steps);
  for (int k = 0; k < 5; ++k)
    for (index_t c = 0; c < hex.mesh.device.n_cells; ++c)
      ASSERT_EQ(hex.summary.final_state[k][c], hex_normal.summary.final_state[k][c])
          << "variable " << k << " cell " << c;
}

TEST(FlowSolver, ShearFloorLetsSodConvergeOnRegularTets) {
  // Sod along x on regular tets, 100 and 200 cells (2 x 2 across, cubic cells), transmissive ends,
  // the flow defaults; the volume-weighted L1 error of u against the exact solution at the centroids.
  // The shock leaves a grid-scale shear in the tets of one slab (std ~2 % of u on the plateau at any
  // h) that HLLC dissipates at the speed through the face, ~0 on the faces along the flow: without the
  // floor under the shear waves' dissipation (shear_dissipation: 0) it stays and L1(u) converges at
  // order 0.56; with the default floor at 0.92 (docs/physics.md#shocks-on-tets). Measured (double,
  // OpenMP): see the printed line.
  auto l1 = [](int cells, double eps) {
    const FlowRun r = run(input_case(
        "sod_tet", plane_riemann(0, cells, 2.0 / cells, {1, 0, 1}, {0.125, 0, 0.1}, 0.5, 0.2, "supersonic-outflow",
                                 {"operators.convection.shear_dissipation=" + test::num(eps)})));
    EXPECT_FALSE(r.summary.failure);
    flow::Primitive left, right;
    left.rho = 1, left.p = 1, right.rho = 0.125, right.p = 0.1;
    for (int i = 0; i < 3; ++i) left.u[i] = right.u[i] = 0;
    const real n[3] = {1, 0, 0};
    const flow::ExactRiemann exact = flow::ExactRiemann::solve(left, right, n, 1.4);
    const auto x = Kokkos::create_mirror_view_and_copy(HostSpace(), r.mesh.device.centroid);
    const auto vol = Kokkos::create_mirror_view_and_copy(HostSpace(), r.mesh.device.volume);
    const auto& s = r.summary.final_state;
    double e = 0, v = 0;
    for (index_t c = 0; c < r.mesh.device.n_cells; ++c) {
      e += vol(c) * std::abs(s[1][c] / s[0][c] - exact.sample(real((x(c, 0) - 0.5) / 0.2)).u[0]);
      v += vol(c);
    }
    return e / v;
  };
  const double floor100 = l1(100, 0.1), floor200 = l1(200, 0.1), none100 = l1(100, 0), none200 = l1(200, 0);
  const double order = std::log2(floor100 / floor200), order_none = std::log2(none100 / none200);
  std::printf("[sod-shear] regular tets, L1(u) at 100 / 200 cells: floor 0.1 %.5f / %.5f (order %.2f), none %.5f / "
              "%.5f (order %.2f)\n",
              floor100, floor200, order, none100, none200, order_none);
  EXPECT_GT(order, 0.8);
  EXPECT_LT(order_none, 0.65);
  EXPECT_LT(floor200, 0.8 * none200);
}

TEST(FlowSolver, StableStepIsTheStandardSpectralRadius) {
  // A uniform state (rho, u, p) = (1, (0.3, 0, 0), 1) on 10 x 2 x 2 hexes of 0.1 x 0.05 x 0.025: the
  // flow's stable rate is the standard 1/2 sum_f (|u . S_f| + c |S_f|) / V = (|u| + c) / hx + c / hy
  // + c / hz (issue 26: it was twice that), so dt = CFL / rate.
  const double c = std::sqrt(1.4), rate = (0.3 + c) / 0.1 + c / 0.05 + c / 0.025;
  for (const char* integrator : {"euler", "ssprk2", "ssprk3"}) {
    SCOPED_TRACE(integrator);
    const CaseConfig cfg = input_case("sod", {"mesh.generate.cells=[10,2,2]", "mesh.generate.lengths=[1,0.1,0.05]",
                                              "initial.left={density: 1, velocity: [0.3, 0, 0], pressure: 1}",
                                              "initial.right={density: 1, velocity: [0.3, 0, 0], pressure: 1}",
                                              std::string("time={integrator: ") + integrator + ", cfl: 0.7, steps: 1}",
                                              "output.every={steps: 10}"});
    const FlowRun r = run(cfg);
    ASSERT_FALSE(r.summary.failure);
    EXPECT_NEAR(r.summary.dt, 0.7 / rate, test::tol(1e-12) * 0.7 / rate);
  }
  // Navier-Stokes adds the viscous rate sum_f max(4/3, gamma/Pr) nu |S_f|^2 / V^2 = max(4/3,
  // gamma/Pr) nu 2 (1/hx^2 + 1/hy^2 + 1/hz^2) (issue 38, item 8: every stored reference fixes dt,
  // so only this formula sees a viscous rate off by a factor).
  const double nu = 0.01, k = std::max(4.0 / 3, 1.4 / 0.72);
  const double visc = k * nu * 2 * (1 / 0.01 + 1 / 0.0025 + 1 / 0.000625);
  const CaseConfig ns = input_case(
      "sod", {"mesh.generate.cells=[10,2,2]", "mesh.generate.lengths=[1,0.1,0.05]",
              "physics={model: navier-stokes, gamma: 1.4, gas_constant: 1, viscosity: {type: constant, value: 0.01}, "
              "prandtl: 0.72}",
              "initial.left={density: 1, velocity: [0.3, 0, 0], pressure: 1}",
              "initial.right={density: 1, velocity: [0.3, 0, 0], pressure: 1}", "time={cfl: 0.7, steps: 1}",
              "output.every={steps: 10}"});
  const FlowRun r = run(ns);
  ASSERT_FALSE(r.summary.failure);
  EXPECT_NEAR(r.summary.dt, 0.7 / (rate + visc), test::tol(1e-12) * 0.7 / (rate + visc));
}

/// Toro's five Riemann problems (Toro 2009, table 10.1; perf/toro.py has the same table): left and
/// right (rho, u, p), the discontinuity's position, the end time.
struct ToroProblem {
  const char* name;
  std::array<double, 3> left, right;
  double position, end_time;
};
const ToroProblem kToro[] = {
    {"toro1", {1.0, 0.75, 1.0}, {0.125, 0.0, 0.1}, 0.3, 0.2},                         // sonic rarefaction, shock
    {"toro2", {1.0, -2.0, 0.4}, {1.0, 2.0, 0.4}, 0.5, 0.15},                          // the 123 problem: near vacuum
    {"toro3", {1.0, 0.0, 1000.0}, {1.0, 0.0, 0.01}, 0.5, 0.012},                      // left half of the blast wave
    {"toro4", {5.99924, 19.5975, 460.894}, {5.99242, -6.19633, 46.0950}, 0.4, 0.035}, // two shocks collide
    {"toro5", {1.0, -19.59745, 1000.0}, {1.0, -19.59745, 0.01}, 0.8, 0.012}};         // a stationary contact

/// L1 errors measured with the flow defaults (HLLC, primitive MUSCL, Venkatakrishnan, SSP-RK3 at the
/// default CFL) otherwise, 100 cells along the axis: per problem, mesh, flux and order the largest
/// over the x, y and z axes (perf/toro.py matrix, then perf/toro.py bounds; double, OpenMP).
struct ToroErrors {
  const char* problem;
  const char* mesh; ///< inputs/<mesh>.yaml: sod (hexes) or sod_tet
  const char* flux;
  int order;
  double density, velocity, pressure;
};
const ToroErrors kToroErrors[] = {
#include "toro_errors.inc"
};

/// Runs the Toro problems along `axes` on `meshes` with `fluxes` at `orders`: each completes (positive
/// density and pressure throughout) and its L1 errors stay below 1.1x the measured ones.
/// `only`: that problem of kToro alone (-1: all five).
void toro_runs(const std::vector<int>& axes, const std::vector<std::string>& meshes,
               const std::vector<std::string>& fluxes, const std::vector<int>& orders, int only = -1) {
  for (const ToroProblem& p : kToro)
    for (const std::string& mesh : meshes)
      if (only < 0 || &p == &kToro[only])
        for (const std::string& flux : fluxes)
          for (int order : orders) {
            const ToroErrors* e = nullptr;
            for (const ToroErrors& x : kToroErrors)
              if (p.name == std::string(x.problem) && mesh == x.mesh && flux == x.flux && order == x.order) e = &x;
            ASSERT_NE(e, nullptr) << p.name << " " << mesh << " " << flux << " " << order;
            for (int axis : axes) {
              const std::string name = std::string(p.name) + " " + mesh + " " + flux + " order " +
                                       std::to_string(order) + " axis " + "xyz"[axis];
              SCOPED_TRACE(name);
              const CaseConfig cfg = input_case(
                  mesh,
                  plane_riemann(axis, 100, 0.02, p.left, p.right, p.position, p.end_time, "supersonic-outflow",
                                {"operators.convection={flux: " + flux + ", order: " + std::to_string(order) + "}"}));
              const FlowRun r = run(cfg);
              ASSERT_FALSE(r.summary.failure) << "stopped at step " << r.summary.failure->step;
              EXPECT_EQ(r.summary.time, p.end_time);
              std::printf("[toro] %s: L1 density %.4e velocity %.4e pressure %.4e (%lld steps)\n", name.c_str(),
                          l1(r.summary, "density"), l1(r.summary, "velocity"), l1(r.summary, "pressure"),
                          r.summary.steps);
              EXPECT_LT(l1(r.summary, "density"), 1.1 * e->density);
              EXPECT_LT(l1(r.summary, "velocity"), 1.1 * e->velocity);
              EXPECT_LT(l1(r.summary, "pressure"), 1.1 * e->pressure);
            }
          }
}

TEST(FlowSolver, ToroSecondOrderBeatsFirstOrderOnTetsWithTheDefaults) {
  // Issue 38 item 4: second order is never worse than first. kToroErrors holds what the defaults
  // measure (the ToroMatrix tests keep every run within 1.1x of it): on tets each problem's and
  // flux's second-order density error, 1.1x, stays below the first order's. With the face stencil
  // (the default before 2026-11-30) Toro 4 gave 4.70 against 0.93 at first order, Toro 5 0.213
  // against 0.128 (HLLC): the mode where the tube's mirror planes meet; with corners 0.414 and 0.101.
  // The rotated flux (the default since 2026-12-07) improves first order more than second on Toro 5
  // (density, first / second order: HLLC 0.0757 / 0.0695, Roe 0.0858 / 0.0934; velocity and pressure
  // 31-35 % lower at second order; docs/physics.md#the-rotated-flux-and-todays-figures), and with the
  // shear floor (the default since 2026-12-07) HLLC 0.0700 / 0.0630, Roe 0.0754 / 0.0883, velocity and
  // pressure 29-36 % lower at second order: Toro 5 on tets is held to second < first in velocity and
  // pressure, and in density for HLLC; with Roe second order's density error is 17 % above first
  // order's. Every other pair: 1.1x second < first in density.
  for (const ToroErrors& two : kToroErrors) {
    if (two.order != 2) continue;
    for (const ToroErrors& one : kToroErrors) {
      if (one.order != 1 || std::string(one.problem) != two.problem || std::string(one.mesh) != two.mesh ||
          std::string(one.flux) != two.flux)
        continue;
      const std::string what = std::string(two.problem) + " " + two.mesh + " " + two.flux;
      if (std::string(two.problem) == "toro5" && std::string(two.mesh) == "sod_tet" &&
          std::string(two.flux) != "rusanov") {
        EXPECT_LT(two.velocity, one.velocity) << what;
        EXPECT_LT(two.pressure, one.pressure) << what;
        if (std::string(two.flux) == "hllc") {
          EXPECT_LT(two.density, one.density) << what;
        }
        continue;
      }
      EXPECT_LT(1.1 * two.density, one.density) << two.problem << " " << two.mesh << " " << two.flux;
    }
  }
}

TEST(FlowSolver, UnlimitedMusclOnToro2IsKeptPositiveByTheFaceFallbackAlone) {
  // Toro's 123 problem (two rarefactions leaving a near vacuum, p* = 0.0019) with `limiter: none`:
  // no limiter, so no cell-wise positivity limit runs (docs/physics.md#positivity), and the face
  // states' own fallback (a reconstructed state with rho or p <= 0 replaced by the cell's) is the
  // only guard. On 100 hexes along x, with both variants, conservative MUSCL with HLLC and Rusanov
  // reaches t = 0.15 with positive density and pressure everywhere; without the fallback (face_state
  // returning the reconstructed state as it is) both stop at step 1 (checked, issue 38 item 8). The fallback is not a
  // positivity guarantee (it breaks the cell's mean of its face states): conservative Roe and
  // primitive Rusanov, and every combination on tets, complete only by taking failing steps again
  // at first order where they failed (time.retries, 4-87 steps of 67-232; without it they stop
  // within 7 steps); docs/physics.md#positivity.
  const ToroProblem& toro2 = kToro[1];
  // (primitive HLLC and Roe complete too, but without ever needing the fallback: not run here)
  const std::pair<const char*, const char*> completing[] = {{"conservative", "hllc"}, {"conservative", "rusanov"}};
  for (const auto& [rec, flux] : completing)
    for (const char* variant : {"optimized", "naive"}) {
      const std::string what = std::string(rec) + " " + variant + " " + flux;
      SCOPED_TRACE(what);
      const FlowRun r = run(input_case(
          "sod",
          plane_riemann(0, 100, 0.02, toro2.left, toro2.right, toro2.position, toro2.end_time, "supersonic-outflow",
                        {"operators={muscl: {limiter: none}, convection: {order: 2, flux: " + std::string(flux) +
                         ", reconstruction: " + rec + ", variant: " + variant + "}}"})));
      ASSERT_FALSE(r.summary.failure) << "stopped at step " << r.summary.failure->step;
      EXPECT_EQ(r.summary.time, toro2.end_time);
      double rho_min = 1e300, p_min = 1e300;
      const auto& st = r.summary.final_state;
      for (std::size_t c = 0; c < st[0].size(); ++c) {
        const double d = st[0][c], m2 = st[1][c] * st[1][c] + st[2][c] * st[2][c] + st[3][c] * st[3][c];
        rho_min = std::min(rho_min, d), p_min = std::min(p_min, 0.4 * (st[4][c] - 0.5 * m2 / d));
      }
      EXPECT_GT(rho_min, 0);
      EXPECT_GT(p_min, 0);
    }
}

TEST(FlowSolver, ToroProblemsWithEachFlux) {
  // Issue 26: the five problems, each flux at order 2 (and the defaults at order 1) along x on hexes.
  // Before the positivity safeguards, problem 2 stopped with a non-physical state with every flux
  // and problem 5 at the first step (docs/physics.md#positivity). The whole matrix: FlowSolver/ToroMatrix.*.
  toro_runs({0}, {"sod"}, {"hllc", "roe", "rusanov"}, {2});
  toro_runs({0}, {"sod"}, {"hllc"}, {1});
}

/// The whole matrix (label long), one test per mesh kind and problem, so that ctest runs them side by
/// side (on tets the five took 142 s in one test on the 2-core CI machine).
class ToroMatrix : public ::testing::TestWithParam<std::tuple<const char*, int>> {};

TEST_P(ToroMatrix, EveryFluxOrderAndAxis) {
  const auto [mesh, problem] = GetParam();
  toro_runs({0, 1, 2}, {mesh}, {"hllc", "roe", "rusanov"}, {1, 2}, problem);
}

INSTANTIATE_TEST_SUITE_P(FlowSolver, ToroMatrix,
                         ::testing::Combine(::testing::Values("sod", "sod_tet"), ::testing::Range(0, 5)),
                         [](const ::testing::TestParamInfo<ToroMatrix::ParamType>& info) {
                           return std::string(std::get<0>(info.param)) + "_" + kToro[std::get<1>(info.param)].name;
                         });

TEST(FlowSolver, AFailingStepIsTakenAgainWithHalfTheStep) {
  // time.retries (docs/physics.md#positivity): Toro 5 on jittered tets at 200 cells with the defaults
  // gets a negative pressure at step 572 (t = 0.0060; its ragged initial interface, a pressure 5e-5
  // of the kinetic energy ahead of the shock). With retries the failing steps are taken again from
  // their start state with half the step and the run completes, physical; with the start state not
  // put back, or the step not halved, it stops as without them. (With Barth-Jespersen a smaller step
  // alone does not help: AStepTakenAgainIsFirstOrderWhereItFailed.)
  const ToroProblem& t5 = kToro[4];
  auto toro5 = [&](int retries) {
    return run(input_case(
        "sod_tet",
        plane_riemann(0, 200, 0.01, t5.left, t5.right, t5.position, 0.0065, "supersonic-outflow",
                      {"mesh.generate.perturb=0.15", "mesh.generate.seed=1", "time.retries=" + std::to_string(retries),
                       // the face stencil's run fails; the corners stencil's (the
                       // default since 2026-11-30) gets through without retries, and so
                       // do the rotated flux's and the shear floor's (the defaults since
                       // 2026-12-07)
                       "operators.muscl.stencil=face", "operators.convection.rotated=false",
                       "operators.convection.shear_dissipation=0"})));
  };
  const FlowRun stops = toro5(0);
  ASSERT_TRUE(stops.summary.failure) << "the case no longer fails without retries: it guards nothing";
  EXPECT_EQ(stops.summary.retried_steps, 0);
  const FlowRun r = toro5(3);
  ASSERT_FALSE(r.summary.failure) << "stopped at step " << r.summary.failure->step;
  EXPECT_GT(r.summary.retried_steps, 0);
  EXPECT_EQ(r.summary.time, 0.0065);
  std::printf("[retries] stopped at step %lld without; %lld steps taken again with half the step, %lld steps\n",
              stops.summary.failure->step, r.summary.retried_steps, r.summary.steps);
  const auto& st = r.summary.final_state;
  for (std::size_t c = 0; c < st[0].size(); ++c) {
    const double d = st[0][c], m2 = st[1][c] * st[1][c] + st[2][c] * st[2][c] + st[3][c] * st[3][c];
    ASSERT_GT(d, 0) << "cell " << c;
    ASSERT_GT(0.4 * (st[4][c] - 0.5 * m2 / d), 0) << "cell " << c;
  }
}

TEST(FlowSolver, AStepTakenAgainIsFirstOrderWhereItFailed) {
  // time.retries with Barth-Jespersen on the primitive variables (docs/physics.md#positivity): Toro 5
  // on jittered tets stops ahead of the standing shock whatever the step (the face states' conserved
  // values do not average to the cell's, so no step keeps p > 0 where p is 5e-5 of the kinetic
  // energy). A step taken again computes the failed cells and their face neighbours at first order
  // (an update positive under the CFL step): the run completes, physical, and more accurate than
  // first order everywhere. Checked to stop at the first failing step with the first-order cells
  // not applied (halving alone).
  const ToroProblem& t5 = kToro[4];
  auto toro5 = [&](std::vector<std::string> sets) {
    for (const char* s : {"mesh.generate.perturb=0.15", "mesh.generate.seed=1"}) sets.push_back(s);
    return run(input_case("sod_tet", plane_riemann(0, 100, 0.02, t5.left, t5.right, t5.position, t5.end_time,
                                                   "supersonic-outflow", sets)));
  };
  const FlowRun stops = toro5({"operators.muscl.limiter=barth-jespersen", "time.retries=0"});
  ASSERT_TRUE(stops.summary.failure) << "the case no longer fails without retries: it guards nothing";
  const FlowRun r = toro5({"operators.muscl.limiter=barth-jespersen"});
  ASSERT_FALSE(r.summary.failure) << "stopped at step " << r.summary.failure->step;
  EXPECT_EQ(r.summary.time, t5.end_time);
  EXPECT_GT(r.summary.retried_steps, 0);
  const FlowRun first = toro5({"operators.convection.order=1"});
  ASSERT_FALSE(first.summary.failure);
  std::printf("[first-order retries] stopped at step %lld without; %lld of %lld steps taken again; L1 density %.4e "
              "(first order %.4e)\n",
              stops.summary.failure->step, r.summary.retried_steps, r.summary.steps, l1(r.summary, "density"),
              l1(first.summary, "density"));
  EXPECT_LT(l1(r.summary, "density"), 0.9 * l1(first.summary, "density")); // 0.0913 against 0.1203
  const auto& st = r.summary.final_state;
  for (std::size_t c = 0; c < st[0].size(); ++c) {
    const double d = st[0][c], m2 = st[1][c] * st[1][c] + st[2][c] * st[2][c] + st[3][c] * st[3][c];
    ASSERT_GT(d, 0) << "cell " << c;
    ASSERT_GT(0.4 * (st[4][c] - 0.5 * m2 / d), 0) << "cell " << c;
  }
}

TEST(FlowSolver, RetryStepPutsBackTheStepsStartState) {
  // What time.retries takes again from: after a failing step, retry_step() gives back the state the
  // step started from, bitwise, clears the failure and marks the cells the step taken again computes
  // at first order; at first order everywhere (no gradients to mark) the step taken again equals the
  // same step of a solver that never failed (the cell fields the fused stage update keeps, here the
  // viscous operator's, are derived again). (AFailingStepIsTakenAgainWithHalfTheStep does not see a
  // missing put-back: there a half step from the failed state passed too.)
  const std::pair<const char*, std::vector<std::string>> cases[] = {
      {"sod_tet", {"mesh.generate.cells=[20,2,2]"}},
      {"couette", {"mesh.generate.element=tet", "operators.convection.order=1"}}};
  for (const auto& [name, sets] : cases) {
    SCOPED_TRACE(name);
    const CaseConfig cfg = input_case(name, sets);
    const bool second_order = cfg.operators.convection.order == 2;
    const BuiltMesh b = build_mesh(cfg.mesh);
    const std::unique_ptr<Solver> s =
        make_solver(b.device, cfg, resolve_boundary(cfg, b.device), Communicator::self(), nullptr);
    s->initialize();
    auto state = [](const Solver& solver) {
      const auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), solver.state());
      std::vector<double> v;
      for (std::size_t c = 0; c < h.extent(0); ++c)
        for (std::size_t k = 0; k < h.extent(1); ++k) v.push_back(double(h(c, k)));
      return v;
    };
    const std::vector<double> start = state(*s);
    const real dt = real(s->stable_step(0.8).dt);
    s->step(0, 100 * dt, 1, true);
    ASSERT_TRUE(s->first_failure()) << "a step 100 times the stable one no longer fails: the test sees nothing";
    ASSERT_TRUE(s->retry_step());
    EXPECT_FALSE(s->first_failure());
    EXPECT_EQ(state(*s), start);
    if (second_order) {
      EXPECT_GT(s->retry_first_order_cells(), 0);
    }
    s->step(0, dt, 1, true);
    EXPECT_FALSE(s->first_failure());
    if (second_order) continue;
    const std::unique_ptr<Solver> fresh =
        make_solver(b.device, cfg, resolve_boundary(cfg, b.device), Communicator::self(), nullptr);
    fresh->initialize();
    fresh->step(0, dt, 1, true);
    EXPECT_EQ(state(*s), state(*fresh));
  }
}

TEST(FlowSolver, PositivityFallbackKeepsUnlimitedToroPhysical) {
  // Without a limiter the per-face positivity fallback (a reconstructed face state with rho <= 0 or
  // p <= 0 replaced by the cell's own: flow_convection_optimized.hpp face_state) is the only guard:
  // Toro's 123 problem (near vacuum) unlimited, both reconstructions, must complete: with conservative
  // MUSCL the fallback is what keeps it physical (checked to stop at a non-physical state without it;
  // with primitive MUSCL, reconstructing rho and p directly, this problem does not reach it: issue 38).
  // Test 5 unlimited needs more: the face states stay positive, the second-order update does not; it
  // completes only by taking nearly every step again at first order where it failed (time.retries).
  for (const ToroProblem* q : {&kToro[1]})
    for (const char* rec : {"primitive", "conservative"}) {
      const ToroProblem& p = *q;
      SCOPED_TRACE(std::string(p.name) + ", unlimited, " + rec + " reconstruction");
      const CaseConfig cfg = input_case(
          "sod", plane_riemann(0, 100, 0.02, p.left, p.right, p.position, p.end_time, "supersonic-outflow",
                               {"operators.convection={flux: hllc, order: 2, reconstruction: " + std::string(rec) + "}",
                                "operators.muscl={limiter: none}"}));
      const FlowRun r = run(cfg);
      ASSERT_FALSE(r.summary.failure) << "stopped at step " << r.summary.failure->step;
      EXPECT_EQ(r.summary.time, p.end_time);
    }
}

TEST(FlowSolver, RoeEntropyFixOnToroTransonicRarefaction) {
  // Toro's test 1 (rho, u, p = 1, 0.75, 1 | 0.125, 0, 0.1 at x = 0.3, t = 0.2, 100 cells, transmissive
  // ends): its rarefaction is transonic. At first order Roe without the entropy fix keeps an expansion
  // shock at the sonic point: the L1 errors grow (measured, double: pressure 1.321e-2 with the fix,
  // 1.678e-2 without; density 1.816e-2, 2.085e-2). Bounds 1.1x the fixed flux's errors.
  const std::vector<std::string> toro{"mesh.generate.cells=[100,2,2]",
                                      "mesh.generate.lengths=[1,0.01,0.01]",
                                      "initial.left={density: 1, velocity: [0.75, 0, 0], pressure: 1}",
                                      "initial.right={density: 0.125, velocity: [0, 0, 0], pressure: 0.1}",
                                      "initial.position=0.3",
                                      "boundary.xmin={type: supersonic-outflow}",
                                      "boundary.xmax={type: supersonic-outflow}",
                                      "time.end_time=0.2",
                                      "output.every={time: 1}",
                                      "operators.convection.flux=roe",
                                      "operators.convection.order=1"};
  const double bound_density = 1.1 * 1.816e-2, bound_pressure = 1.1 * 1.321e-2;
  for (const char* fix : {"true", "false"}) {
    SCOPED_TRACE(std::string("entropy_fix ") + fix);
    std::vector<std::string> sets = toro;
    sets.push_back(std::string("operators.convection.entropy_fix=") + fix);
    const FlowRun r = run(input_case("sod", sets));
    ASSERT_FALSE(r.summary.failure);
    std::printf("[toro1] roe, first order, entropy fix %s: L1 density %.4e pressure %.4e\n", fix,
                l1(r.summary, "density"), l1(r.summary, "pressure"));
    if (std::string(fix) == "true") {
      EXPECT_LT(l1(r.summary, "density"), bound_density);
      EXPECT_LT(l1(r.summary, "pressure"), bound_pressure);
    } else { // the bounds see the expansion shock
      EXPECT_GT(l1(r.summary, "density"), bound_density);
      EXPECT_GT(l1(r.summary, "pressure"), bound_pressure);
    }
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

TEST(FlowSolver, CouetteWallShearIsExactForEveryFluxAndReconstruction) {
  // No-slip walls take the wall's own flux (no Riemann solve against the mirror state: no numerical
  // shear along the wall). With MUSCL on the primitive variables the velocity profile is linear, so
  // the reconstructed states agree on every interior face (no numerical dissipation there either)
  // and the steady wall shear is the exact mu U / h for every flux, to the residual tolerance
  // (measured 2e-7 .. 2.7e-6 relative). MUSCL on the conserved variables reconstructs rho u, which
  // is not linear (the density follows the viscous heating): interior faces keep an O(h^2) jump,
  // and the wall shear is within 2.7e-4 (Rusanov) and 2e-5 (HLLC, Roe) at 8 cells (Rusanov: 5.0e-5
  // at 16 cells, perf/boundary_consistency.py). Before (main 3d85888, the Riemann flux against the mirror state at the
  // walls) Rusanov's wall shear was 11 % high at 16 cells. A small channel: 3 x 8 x 3 cubes.
  const double A = 0.375 * 0.375, shear = 0.05 * 0.5 / 1.0 * A;
  const bool single = sizeof(real) == sizeof(float); // float: the residual stalls at round-off (looser bounds)
  for (const char* flux : {"rusanov", "hllc", "roe"})
    for (const char* rec : {"conservative", "primitive"}) {
      const std::string what = std::string(flux) + ", " + rec;
      SCOPED_TRACE(what);
      const FlowRun r =
          run(input_case("couette", {"mesh.generate={shape: box, cells: [3, 8, 3], element: hex, lengths: [0.375, 1, "
                                     "0.375], periodic: [x, z]}",
                                     std::string("operators.convection.flux=") + flux,
                                     std::string("operators.convection.reconstruction=") + rec}));
      ASSERT_FALSE(r.summary.failure);
      EXPECT_TRUE(r.summary.converged);
      ASSERT_EQ(r.summary.forces.size(), 2u);
      double eu = 0;
      const auto& s = r.summary.final_state;
      const auto x = Kokkos::create_mirror_view_and_copy(HostSpace(), r.mesh.device.centroid);
      for (index_t c = 0; c < r.mesh.device.n_cells; ++c)
        eu = std::max(eu, std::abs(s[1][c] / s[0][c] - 0.5 * x(c, 1)));
      for (const WallForce& w : r.summary.forces) {
        const double sign = w.patch == "ymin" ? 1.0 : -1.0;
        std::printf("[couette] %s: wall shear on %s %.8e (exact %.8e, relative error %.2e), max |u - U y| %.2e\n",
                    what.c_str(), w.patch.c_str(), w.viscous[0], sign * shear, w.viscous[0] / (sign * shear) - 1, eu);
        const bool primitive = std::string(rec) == "primitive";
        EXPECT_NEAR(w.viscous[0], sign * shear, (single ? 2e-3 : primitive ? 1e-5 : 5e-4) * shear) << w.patch;
        EXPECT_NEAR(w.pressure[0], 0.0, single ? 1e-9 : 1e-12) << w.patch; // the wall's own flux has no shear
      }
      // primitive: what is left is the residual tolerance's (1e-6): 1.5e-6 relative at CFL 1 (issue 26)
      EXPECT_LT(eu, (single ? 1e-3 : std::string(rec) == "primitive" ? 3e-6 : 2e-4) * 0.5);
    }
}

TEST(FlowSolver, SubsonicChannelRecoversTheImposedStates) {
  // inputs/subsonic_channel.yaml: total pressure 1, total temperature 1 and the direction
  // (1, 0.25, 0) at the inflow, static pressure 0.9 at the outflow. The steady state is uniform:
  // p = 0.9, p0 / p = (1 + (gamma - 1) / 2 M^2)^(gamma / (gamma - 1)), T = T0 (p / p0)^((gamma - 1) / gamma),
  // |u| = M c along the direction (R = 1). Every flux, first and second order. Measured (double,
  // OpenMP): every value within 5e-8 of the exact state at the residual tolerance 1e-8.
  const double g = 1.4, p = 0.9, p0 = 1, T0 = 1;
  const double T = T0 * std::pow(p / p0, (g - 1) / g), M = std::sqrt(2 / (g - 1) * (T0 / T - 1));
  const double speed = M * std::sqrt(g * T), rho = p / T, len = std::sqrt(1 + 0.25 * 0.25);
  const double u[3] = {speed / len, 0.25 * speed / len, 0};
  for (const auto& [flux, order] :
       std::vector<std::pair<const char*, const char*>>{{"hllc", "2"}, {"roe", "1"}, {"rusanov", "2"}}) {
    const std::string what = std::string(flux) + ", order " + order;
    SCOPED_TRACE(what);
    const bool single = sizeof(real) == sizeof(float); // float: a residual of 1e-8 is below its round-off
    const FlowRun r =
        run(input_case("subsonic_channel", {std::string("operators.convection.flux=") + flux,
                                            std::string("operators.convection.order=") + order,
                                            single ? "time.residual_tolerance=1e-4" : "time.residual_tolerance=1e-8"}));
    ASSERT_FALSE(r.summary.failure);
    EXPECT_TRUE(r.summary.converged) << "stopped at t = " << r.summary.time;
    const auto& s = r.summary.final_state;
    double err[3] = {0, 0, 0}; // density, velocity, pressure (relative)
    for (index_t c = 0; c < r.mesh.device.n_cells; ++c) {
      const double d = s[0][c], v[3] = {s[1][c] / d, s[2][c] / d, s[3][c] / d};
      const double pc = (g - 1) * (s[4][c] - 0.5 * d * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
      err[0] = std::max(err[0], std::abs(d / rho - 1));
      for (int i = 0; i < 3; ++i) err[1] = std::max(err[1], std::abs(v[i] - u[i]) / speed);
      err[2] = std::max(err[2], std::abs(pc / p - 1));
    }
    std::printf("[subsonic channel] %s: Mach %.4f exact; max relative error density %.2e velocity %.2e pressure "
                "%.2e (t = %.3g, %lld steps)\n",
                what.c_str(), M, err[0], err[1], err[2], r.summary.time, r.summary.steps);
    for (double e : err) EXPECT_LT(e, single ? 1e-3 : 1e-6);
  }
}

TEST(FlowSolver, InletsRecoverTheirImposedStates) {
  // inputs/subsonic_channel.yaml with its inflow replaced by a velocity inlet (velocity (0.3, 0.05, 0),
  // T = 0.8) or a mass-flow inlet (mass flow 0.05 through the patch of area 1/16, T = 0.8, along x
  // or along (1, 0.25, 0)), the outflow at p = 0.9, on hexes and (the mass-flow inlet; the velocity
  // inlet on tets: ParabolicVelocityInletGivesPoiseuilleFlow) on tets: the steady state is
  // uniform, p = 0.9, rho = p / T, and u the inlet's velocity or G / rho along the direction (the mass
  // flux G = 0.8 through the face: rho u_x = G). Measured (double, OpenMP): every value within 1e-7.
  const double p = 0.9, T = 0.8, rho = p / T, G = 0.05 / 0.0625;
  const bool single = sizeof(real) == sizeof(float);
  struct Inlet {
    const char* what;
    std::string bc;
    std::array<double, 3> u;
    const char* order;
  };
  // The velocity inlet at first order: it reflects acoustic waves as a wall does (R = +1), the outflow
  // nearly so (R = -0.915), and second order's dissipation leaves the channel's acoustic mode ringing
  // for t > 1000 (docs/physics.md#velocity-and-mass-flow-inlets); first order damps it by t = 154.
  const std::vector<Inlet> inlets{
      {"velocity inlet", "{type: velocity-inlet, velocity: [0.3, 0.05, 0], temperature: 0.8}", {0.3, 0.05, 0}, "1"},
      {"mass-flow inlet", "{type: mass-flow-inlet, mass_flow: 0.05, temperature: 0.8}", {G / rho, 0, 0}, "2"},
      {"mass-flow inlet along (1, 0.25, 0)",
       "{type: mass-flow-inlet, mass_flow: 0.05, temperature: 0.8, direction: [1, 0.25, 0]}",
       {G / rho, 0.25 * G / rho, 0},
       "2"}};
  for (const char* element : {"hex", "tet"})
    for (const Inlet& in : inlets) {
      if (std::string(element) == "tet" && in.order == std::string("1"))
        continue; // t = 315 on tets: the Poiseuille test's
      const std::string what = in.what + std::string(" on ") + element + "s";
      SCOPED_TRACE(what);
      const FlowRun r = run(
          input_case("subsonic_channel", {"boundary.xmin=" + in.bc, std::string("mesh.generate.element=") + element,
                                          std::string("operators.convection.order=") + in.order, "time.end_time=400",
                                          "initial={type: uniform, density: 1.125, velocity: [0, 0, 0], pressure: 0.9}",
                                          single ? "time.residual_tolerance=1e-4" : "time.residual_tolerance=1e-8"}));
      ASSERT_FALSE(r.summary.failure);
      EXPECT_TRUE(r.summary.converged) << "stopped at t = " << r.summary.time;
      const auto& s = r.summary.final_state;
      const double speed = std::hypot(in.u[0], in.u[1]);
      double err[3] = {0, 0, 0}; // density, velocity, pressure (relative)
      for (index_t c = 0; c < r.mesh.device.n_cells; ++c) {
        const double d = s[0][c], v[3] = {s[1][c] / d, s[2][c] / d, s[3][c] / d};
        const double pc = 0.4 * (s[4][c] - 0.5 * d * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
        err[0] = std::max(err[0], std::abs(d / rho - 1));
        for (int i = 0; i < 3; ++i) err[1] = std::max(err[1], std::abs(v[i] - in.u[i]) / speed);
        err[2] = std::max(err[2], std::abs(pc / p - 1));
      }
      std::printf("[inlets] %s: max relative error density %.2e velocity %.2e pressure %.2e (t = %.3g, %lld steps)\n",
                  what.c_str(), err[0], err[1], err[2], r.summary.time, r.summary.steps);
      for (double e : err) EXPECT_LT(e, single ? 1e-3 : 1e-6);
    }
}

TEST(FlowSolver, ParabolicVelocityInletGivesPoiseuilleFlow) {
  // inputs/poiseuille_channel.yaml: a parabolic velocity inlet (centre line U_in = 0.1) into a
  // channel of height H = 1 between isothermal no-slip walls, mu = 0.01, on hexes and on tets. At
  // the steady state every column of cells across the channel carries the inlet's mass flow
  // (2/3 rho_in U_in H, rho_in = p_in / T from the pressure extrapolated to the inlet), with the
  // parabola's cell averages 4 U (s(1 - s) - h^2 / 12) (U from the column's mean velocity) and the
  // pressure gradient -8 mu U / H^2 (from the columns' mean pressures) away from the inlet and the
  // outlet. Measured (double, OpenMP): see the printed line; a uniform inlet instead of the
  // parabola (mass flow x 1.5) or a velocity the inlet does not impose fails it.
  const double mu = 0.01, U_in = 0.1, H = 1;
  for (const char* element : {"hex", "tet"}) {
    SCOPED_TRACE(element);
    const bool tet = std::string(element) == "tet"; // 8 x 6 x 3 x 6 tets, 1/4 x 1/6 x 1/6
    const FlowRun r = run(
        input_case("poiseuille_channel",
                   tet ? std::vector<std::string>{"mesh.generate.element=tet", "mesh.generate.cells=[8, 6, 3]",
                                                  "mesh.generate.lengths=[2, 1, 0.5]", "time.residual_tolerance=1e-5"}
                       : std::vector<std::string>{}));
    ASSERT_FALSE(r.summary.failure);
    EXPECT_TRUE(r.summary.converged) << "stopped at t = " << r.summary.time;
    const auto& s = r.summary.final_state;
    const auto x = Kokkos::create_mirror_view_and_copy(HostSpace(), r.mesh.device.centroid);
    const auto vol = Kokkos::create_mirror_view_and_copy(HostSpace(), r.mesh.device.volume);
    // Per slab of x (one per cell layer: 16 of width 1/8 on hexes, 8 of 1/4 on tets, by the cells'
    // centroids): volume-weighted means of rho u, u, p; the profile's error on the middle slab's cells
    // (the slab's own U from its mean u = 2/3 U).
    const int nx = tet ? 8 : 16;
    const double w = 2.0 / nx;
    std::vector<double> V(nx), mass(nx), um(nx), pm(nx), vmax(nx);
    for (index_t c = 0; c < r.mesh.device.n_cells; ++c) {
      const int i = std::min(nx - 1, int(x(c, 0) / w));
      const double d = s[0][c], u = s[1][c] / d, v = s[2][c] / d;
      const double pc = 0.4 * (s[4][c] - 0.5 * (s[1][c] * s[1][c] + s[2][c] * s[2][c] + s[3][c] * s[3][c]) / d);
      V[i] += vol(c), mass[i] += vol(c) * s[1][c], um[i] += vol(c) * u, pm[i] += vol(c) * pc;
      vmax[i] = std::max(vmax[i], std::abs(v));
    }
    for (int i = 0; i < nx; ++i) mass[i] /= V[i], um[i] /= V[i], pm[i] /= V[i];
    // The inlet's pressure: the slabs' mean pressures extrapolated linearly to x = 0.
    const double dpdx = pm[3 * nx / 4] - pm[nx / 4]; // slabs 1 apart, centred at 0.5 + w / 2 and 1.5 + w / 2
    const double p_in = pm[0] - dpdx * w / 2, rho_in = p_in / 1.0;
    const double mass_in = 2.0 / 3.0 * rho_in * U_in * H; // per unit depth, over H: the mean rho u
    double mass_err = 0, profile_err = 0, v_max = 0;
    for (int i = 2; i < nx - 2; ++i) mass_err = std::max(mass_err, std::abs(mass[i] / mass_in - 1));
    for (int i = 2; i < nx - 2; ++i) v_max = std::max(v_max, vmax[i] / U_in);
    const int mid = nx / 2; // x from 1 to 1 + w
    const double U = 1.5 * um[mid];
    for (index_t c = 0; c < r.mesh.device.n_cells; ++c) {
      if (std::min(nx - 1, int(x(c, 0) / w)) != mid) continue;
      const double y = x(c, 1) / H, u = s[1][c] / s[0][c];
      // hexes: the cell average of the parabola over its height h = 1/12; tets: the parabola at the centroid
      const double h = tet ? 0 : 1.0 / 12;
      profile_err = std::max(profile_err, std::abs(u - 4 * U * (y * (1 - y) - h * h / 12)) / U);
    }
    const double grad_err = std::abs(dpdx / (-8 * mu * U / (H * H)) - 1);
    std::printf("[poiseuille] %ss: mass flow within %.2e of the inlet's, profile within %.2e of U, dp/dx %.4g "
                "(exact %.4g, %.2e), |v| / U_in <= %.2e (t = %.3g, %lld steps)\n",
                element, mass_err, profile_err, dpdx, -8 * mu * U / (H * H), grad_err, v_max, r.summary.time,
                r.summary.steps);
    EXPECT_LT(mass_err, 0.01);
    EXPECT_LT(profile_err, 0.03);
    EXPECT_LT(grad_err, 0.05);
    EXPECT_LT(v_max, 0.02);
  }
}

/// The largest difference of the five conserved variables between `part`'s cells and the cells of
/// `whole` at the same centroids (matched at 1/`per_unit` of the length unit), relative to each
/// variable's largest magnitude in `whole` (the mirror identity tests).
double mirror_difference(const FlowRun& whole, const FlowRun& part, double per_unit) {
  EXPECT_FALSE(whole.summary.failure);
  EXPECT_FALSE(part.summary.failure);
  EXPECT_EQ(whole.summary.steps, part.summary.steps);
  std::map<std::array<long, 3>, index_t> at;
  auto key = [per_unit](double x, double y, double z) {
    return std::array<long, 3>{std::lround(x * per_unit), std::lround(y * per_unit), std::lround(z * per_unit)};
  };
  const auto xa = Kokkos::create_mirror_view_and_copy(HostSpace(), whole.mesh.device.centroid);
  for (index_t c = 0; c < whole.mesh.device.n_cells; ++c) at[key(xa(c, 0), xa(c, 1), xa(c, 2))] = c;
  const auto xb = Kokkos::create_mirror_view_and_copy(HostSpace(), part.mesh.device.centroid);
  double worst = 0;
  for (int k = 0; k < 5; ++k) {
    double scale = 0, diff = 0;
    for (real v : whole.summary.final_state[k]) scale = std::max(scale, std::abs(double(v)));
    for (index_t c = 0; c < part.mesh.device.n_cells; ++c) {
      const auto it = at.find(key(xb(c, 0), xb(c, 1), xb(c, 2)));
      if (it == at.end()) {
        ADD_FAILURE() << "no cell of the whole mesh at the part's cell " << c;
        return 1e300;
      }
      diff = std::max(
          diff, std::abs(double(part.summary.final_state[k][c]) - double(whole.summary.final_state[k][it->second])));
    }
    worst = std::max(worst, diff / scale);
  }
  return worst;
}

/// The Taylor-Green vortex on [-pi, pi)^3 (N^3 hexes, periodic) and on its eighth [0, pi]^3 ((N/2)^3
/// hexes, six symmetry planes): the flow is mirror-symmetric about every plane x, y, z = 0 and pi, so
/// the eighth must equal the box's cells in [0, pi]^3 (docs/physics.md#boundary-values-for-gradients).
/// Returns the largest difference of the five conserved variables over those cells, relative to each
/// variable's largest magnitude.
double symmetry_experiment(int n, const std::vector<std::string>& sets) {
  const std::string base = R"(
case: tg_symmetry
physics: {model: navier-stokes, gamma: 1.4, gas_constant: 1, viscosity: {type: constant, value: 0.01}, prandtl: 0.71}
initial: {type: taylor-green, length: 1, speed: 1, density: 1, pressure: 2.857142857142857}
operators:
  muscl: {gradient: least-squares, limiter: none}
  convection: {order: 2, flux: hllc}
time: {integrator: ssprk3, dt: 0.02, steps: 25}
)";
  const std::string pi = "3.141592653589793";
  const std::string two_pi = "6.283185307179586";
  std::vector<std::string> full = sets, eighth = sets;
  full.insert(full.begin(), "mesh.generate={shape: box, cells: [" + std::to_string(n) + ", " + std::to_string(n) +
                                ", " + std::to_string(n) + "], element: hex, lengths: [" + two_pi + ", " + two_pi +
                                ", " + two_pi + "], origin: [-" + pi + ", -" + pi + ", -" + pi +
                                "], periodic: [x, y, z]}");
  const std::string h = std::to_string(n / 2);
  eighth.insert(eighth.begin(), "mesh.generate={shape: box, cells: [" + h + ", " + h + ", " + h +
                                    "], element: hex, lengths: [" + pi + ", " + pi + ", " + pi + "]}");
  eighth.insert(eighth.begin() + 1,
                "boundary={xmin: {type: symmetry}, xmax: {type: symmetry}, ymin: {type: "
                "symmetry}, ymax: {type: symmetry}, zmin: {type: symmetry}, zmax: {type: symmetry}}");
  return mirror_difference(run(test::case_from(base, full)), run(test::case_from(base, eighth)),
                           1e3); // cells 0.4 apart
}

TEST(FlowSolver, SymmetryPlanesEqualTheMirroredPeriodicBox) {
  // The boundary values of the gradients (mirror ghosts at the mirrored centroids, their face values
  // in Green-Gauss), the limiter's extremes and the viscous fluxes at symmetry planes (the normal
  // stress of u_n = 0 at the face) are those of the interior face to the mirror image, so the eighth
  // equals the box to round-off: euler and navier-stokes, least squares and Green-Gauss, conservative
  // and primitive MUSCL, Barth-Jespersen, both variants (measured 9e-15 .. 1.8e-14). With the mirror
  // state taken as the face value (main 3d85888) 0.26 .. 1.06; without the viscous flux at symmetry
  // planes 0.02 .. 0.026 (navier-stokes cases). The face stencil (and the vertex stencil, whose images
  // are the box's vertex neighbours); the corners stencil, the flow models' default, gives the
  // eighth's edge cells vertex entries the box has not: 0.3 .. 0.5 here (docs/operators/muscl.md#stencil).
  const double tol = test::tol(1e-11);
  struct Case {
    const char* what;
    std::vector<std::string> sets;
  };
  const std::vector<Case> cases{
      {"navier-stokes, least squares", {}},
      {"euler, least squares", {"physics={model: euler, gamma: 1.4, gas_constant: 1}"}},
      {"navier-stokes, Green-Gauss, primitive MUSCL",
       {"operators.muscl.gradient=green-gauss", "operators.convection.reconstruction=primitive"}},
      {"navier-stokes, Barth-Jespersen, Roe",
       {"operators.muscl.limiter=barth-jespersen", "operators.convection.flux=roe"}},
      {"navier-stokes, naive operators, Rusanov",
       {"operators.muscl.variant=naive", "operators.convection.variant=naive", "operators.diffusion.variant=naive",
        "operators.convection.flux=rusanov"}},
      {"navier-stokes, least squares, vertex stencil", {"operators.muscl.stencil=vertex"}},
  };
  for (const Case& c : cases) {
    std::vector<std::string> sets{"operators.muscl.stencil=face"};
    sets.insert(sets.end(), c.sets.begin(), c.sets.end());
    const double d = symmetry_experiment(8, sets);
    std::printf("[symmetry] %s: max |eighth - box| / max |box| = %.3e\n", c.what, d);
    EXPECT_LE(d, tol) << c.what;
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

/// A half box of jittered tets x in [0, pi/2], y, z in [0, pi] with a symmetry plane at x = 0
/// ("sym", the rest "outer"), and the whole box x in [-pi/2, pi/2] made of it and its mirror image
/// (each tet mirrored, node order flipped): MSH 2.2 texts (half, whole), written to `dir`.
std::array<std::string, 2> mirrored_tet_meshes(const std::string& dir, int n, double perturb) {
  BoxConfig b;
  b.cells = {n / 2, n, n};
  b.element = ElementKind::tet;
  const double pi = 3.141592653589793;
  b.lengths = {pi / 2, pi, pi};
  b.perturb = perturb;
  b.seed = 7;
  const HostMesh h = generate_box(b);
  const index_t N = h.n_nodes();
  std::vector<index_t> mirror(std::size_t(N), -1); // the mirrored node's 1-based tag in the whole mesh
  index_t next = N + 1, on_plane = 0;
  for (index_t v = 0; v < N; ++v) {
    const bool plane = h.x[3 * std::size_t(v)] == 0.0;
    on_plane += plane;
    mirror[std::size_t(v)] = plane ? v + 1 : next++;
  }
  EXPECT_GT(on_plane, 0) << "no node exactly on the plane x = 0";
  auto coords = [](double x, double y, double z) {
    char buf[96];
    std::snprintf(buf, sizeof buf, " %.17g %.17g %.17g\n", x, y, z);
    return std::string(buf);
  };
  std::array<std::string, 2> path{dir + "/half.msh", dir + "/whole.msh"};
  for (int whole = 0; whole < 2; ++whole) {
    std::ostringstream nodes, el;
    index_t n_nodes = 0, n_el = 0;
    for (index_t v = 0; v < N; ++v, ++n_nodes) {
      const double* x = &h.x[3 * std::size_t(v)];
      nodes << v + 1 << coords(x[0], x[1], x[2]);
    }
    if (whole)
      for (index_t v = 0; v < N; ++v)
        if (mirror[std::size_t(v)] > N) {
          const double* x = &h.x[3 * std::size_t(v)];
          nodes << mirror[std::size_t(v)] << coords(-x[0], x[1], x[2]);
          ++n_nodes;
        }
    for (std::size_t p = 0; p < h.patches.size(); ++p) {
      const bool sym = h.patches[p].name == "xmin";
      if (sym && whole) continue; // inside the whole box
      for (index_t f = h.patches[p].begin; f < h.patches[p].end; ++f)
        for (int side = 0; side < 1 + whole; ++side) {
          el << ++n_el << " 2 2 " << (sym ? 1 : 2) << ' ' << (sym ? 1 : 2);
          for (index_t k = h.face_node_off[f]; k < h.face_node_off[f + 1]; ++k) {
            const index_t v = h.face_nodes[k];
            el << ' ' << (side ? mirror[std::size_t(v)] : v + 1);
          }
          el << '\n';
        }
    }
    for (index_t c = 0; c < h.n_cells(); ++c)
      for (int side = 0; side < 1 + whole; ++side) {
        const index_t* q = &h.cell_nodes[std::size_t(h.cell_node_off[c])];
        el << ++n_el << " 4 2 3 3";
        if (side) // mirrored: two nodes swapped keep the volume positive
          el << ' ' << mirror[std::size_t(q[0])] << ' ' << mirror[std::size_t(q[2])] << ' ' << mirror[std::size_t(q[1])]
             << ' ' << mirror[std::size_t(q[3])] << '\n';
        else
          el << ' ' << q[0] + 1 << ' ' << q[1] + 1 << ' ' << q[2] + 1 << ' ' << q[3] + 1 << '\n';
      }
    std::ofstream out(path[whole]);
    out << "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n3\n2 1 \"sym\"\n2 2 \"outer\"\n3 3 \"fluid\"\n"
        << "$EndPhysicalNames\n$Nodes\n"
        << n_nodes << '\n'
        << nodes.str() << "$EndNodes\n$Elements\n"
        << n_el << '\n'
        << el.str() << "$EndElements\n";
  }
  return path;
}

/// The mirror identity on jittered tets: the Taylor-Green flow (mirror-symmetric about x = 0) on the
/// half box with its symmetry plane and on the whole box (mirrored_tet_meshes); the largest
/// difference of the conserved variables over the half's cells, relative to each one's largest
/// magnitude.
double tet_mirror_experiment(const std::vector<std::string>& sets) {
  const std::string dir = test::temp_dir("tet_mirror");
  const auto path = mirrored_tet_meshes(dir, 8, 0.25);
  const std::string base = R"(
case: tet_mirror
physics: {model: euler, gamma: 1.4, gas_constant: 1}
initial: {type: taylor-green, length: 1, speed: 1, density: 1, pressure: 2.857142857142857}
operators:
  convection: {order: 2, flux: hllc}
time: {integrator: ssprk3, dt: 0.01, steps: 20}
)";
  std::vector<std::string> half = sets, whole = sets;
  half.insert(half.begin(),
              {"mesh={file: " + path[0] + "}", "boundary={sym: {type: symmetry}, outer: {type: supersonic-outflow}}"});
  whole.insert(whole.begin(), {"mesh={file: " + path[1] + "}", "boundary={outer: {type: supersonic-outflow}}"});
  const FlowRun a = run(test::case_from(base, whole)), b = run(test::case_from(base, half));
  std::filesystem::remove_all(dir);
  // tet centroids at least ~0.05 apart; float centroids differ in their last bits between the meshes
  return mirror_difference(a, b, 200);
}

TEST(FlowSolver, SymmetryPlaneOnJitteredTetsEqualsTheMirroredBox) {
  // Green-Gauss places a mirror face's value (u_P + ub) / 2 half way to the mirrored centroid, as on
  // the interior face to the cell's mirror image, and its correction matrix takes it there
  // (OperatorGeometry::gg_inverse): the half box equals the whole to round-off on non-orthogonal
  // tets, as least squares does (issue 38): 2e-14. With the mirror face's value taken at the face
  // centroid (before) the half differed by 0.38 (optimized, unlimited) and 0.24 (naive, Barth-Jespersen).
  const double tol = test::tol(1e-10); // float: 1e-3 (20 steps of single-precision round-off: 1e-4 measured)
  struct Case {
    const char* what;
    std::vector<std::string> sets;
  };
  const std::vector<Case> cases{
      {"Green-Gauss, unlimited", {"operators.muscl={gradient: green-gauss, limiter: none}"}},
      {"Green-Gauss, Barth-Jespersen, naive",
       {"operators.muscl={gradient: green-gauss, limiter: barth-jespersen, variant: naive}"}},
      {"least squares, unlimited, primitive",
       {"operators.muscl={gradient: least-squares, limiter: none}", "operators.convection.reconstruction=primitive"}},
      // Venkatakrishnan's eps from the domain's extent and initial ranges (before issue 38) differed
      // between the half and the whole box: 2.5e-4; the local eps (VenkatScale) is the same on both.
      {"the defaults (least squares, Venkatakrishnan, primitive)", {}},
      {"Venkatakrishnan, conservative, naive",
       {"operators.muscl={variant: naive, limiter: venkatakrishnan}",
        "operators.convection.reconstruction=conservative"}},
      // The vertex stencil (operators/vertex_stencil.hpp): the half box's vertex neighbours and their
      // mirror images are the whole box's vertex neighbours.
      {"vertex stencil, unlimited, conservative",
       {"operators.muscl={stencil: vertex, limiter: none}", "operators.convection.reconstruction=conservative"}},
      {"vertex stencil, the defaults", {"operators.muscl.stencil=vertex"}},
      {"vertex stencil, Barth-Jespersen, naive",
       {"operators.muscl={stencil: vertex, limiter: barth-jespersen, variant: naive}"}},
      {"vertex stencil, Venkatakrishnan, atomic scatter", {"operators.muscl={stencil: vertex, scatter: atomic}"}},
  };
  for (const Case& c : cases) {
    const double d = tet_mirror_experiment(c.sets);
    std::printf("[tet mirror] %s: max |half - whole| / max |whole| = %.3e\n", c.what, d);
    EXPECT_LE(d, tol) << c.what;
  }
}

/// A closed box of jittered tets (4 x 4 x 4 x 6), six slip walls, at rest, unlimited MUSCL, to t = 2:
/// the largest departure of a conserved component from the state at rest.
double closed_tet_box_departure(const std::vector<std::string>& sets) {
  std::vector<std::string> all{"operators.muscl.limiter=none"};
  all.insert(all.end(), sets.begin(), sets.end());
  const FlowRun r = run(test::case_from(R"(
case: closed_tet_box
mesh: {generate: {cells: [4, 4, 4], element: tet, perturb: 0.2, seed: 3}}
physics: {model: euler, gamma: 1.4, gas_constant: 1}
initial: {type: uniform, density: 1, velocity: [0, 0, 0], pressure: 2.857142857142857}
boundary: {xmin: {type: slip-wall}, xmax: {type: slip-wall}, ymin: {type: slip-wall}, ymax: {type: slip-wall},
           zmin: {type: symmetry}, zmax: {type: slip-wall}}
time: {integrator: ssprk3, cfl: 0.8, end_time: 2}
)",
                                        all));
  EXPECT_FALSE(r.summary.failure);
  const double rest[5] = {1, 0, 0, 0, 2.857142857142857 / 0.4};
  double d = 0;
  for (int k = 0; k < 5; ++k)
    for (real v : r.summary.final_state.at(k)) d = std::max(d, std::abs(double(v) - rest[k]));
  return d;
}

TEST(FlowSolver, ClosedTetBoxStaysAtRestWithTheVertexStencil) {
  // Issue 38 item 2: unlimited MUSCL on tets grows a mode from round-off where two or three mirror
  // planes meet (perf/results/2026-11-28-tet-corner-stability: Re lambda +7.85 on this mesh with the
  // face stencil); with the vertex stencil and its mirror images it stays at round-off, with every
  // flux, both reconstructions, both flow models, naive and optimized; so it does with the vertex
  // stencil at the cells with a node on two mirror planes alone (stencil: corners).
  const double face = closed_tet_box_departure({"operators.muscl.stencil=face"});
  std::printf("[closed tet box] face stencil: max departure %.3e at t = 2\n", face);
  EXPECT_GT(face, 1e-6) << "the case no longer shows the face stencil's growing mode: it guards nothing";
  const std::vector<std::vector<std::string>> cases{
      {"operators.muscl.stencil=vertex"},
      {"operators.muscl.stencil=vertex", "operators.convection.flux=roe",
       "operators.convection.reconstruction=conservative"},
      {"operators.muscl.stencil=vertex", "operators.convection.flux=rusanov"},
      {"operators.muscl={stencil: vertex, limiter: none, variant: naive}"},
      {"operators.muscl.stencil=vertex", "physics.model=navier-stokes",
       "physics.viscosity={type: constant, value: 0.01}"},
      // the vertex stencil only at the cells where two mirror planes meet: the same at round-off
      {"operators.muscl.stencil=corners"},
      {"operators.muscl={stencil: corners, limiter: none, variant: naive}"},
      {"operators.muscl={stencil: corners, limiter: barth-jespersen}", "operators.convection.flux=roe"},
      {"time.cfl=0.8"}, // the flow models' default stencil: corners
  };
  for (const auto& c : cases) {
    const double d = closed_tet_box_departure(c);
    std::printf("[closed tet box] %s ...: max departure %.3e\n", c.back().c_str(), d);
    // float (label long, outside CI's float step): round-off 2.5e-6 to 3.5e-5; the face stencil 48
    EXPECT_LE(d, sizeof(real) == sizeof(double) ? 1e-12 : 2e-4) << c.back();
  }
}

/// A uniform flow (1, 0, 0) along a jittered tet channel periodic in x, slip walls on y and z (its
/// four edges where two of them meet), to t = 2: the largest departure from the uniform state.
double corner_channel_departure(const std::vector<std::string>& sets) {
  const FlowRun r = run(test::case_from(R"(
case: corner_channel
mesh: {generate: {cells: [6, 6, 6], element: tet, perturb: 0.2, periodic: [x], seed: 3}}
physics: {model: euler, gamma: 1.4, gas_constant: 1}
initial: {type: uniform, density: 1, velocity: [1, 0, 0], pressure: 2.857142857142857}
boundary: {ymin: {type: slip-wall}, ymax: {type: slip-wall}, zmin: {type: slip-wall}, zmax: {type: slip-wall}}
time: {integrator: ssprk3, cfl: 0.8, end_time: 2}
)",
                                        sets));
  if (r.summary.failure) return std::numeric_limits<double>::infinity();
  const double uniform[5] = {1, 1, 0, 0, 2.857142857142857 / 0.4 + 0.5};
  double d = 0;
  for (int k = 0; k < 5; ++k)
    for (real v : r.summary.final_state.at(k)) d = std::max(d, std::abs(double(v) - uniform[k]));
  return d;
}

TEST(FlowSolver, UniformFlowAlongSlipWallCornersStaysUniform) {
  // Issue 38 items 2 and 7: a uniform flow through a tet channel with slip walls on two axes. With the
  // face stencil it departs (unlimited: O(1); Venkatakrishnan: bounded near 1e-3); with the vertex
  // entries at the cells with a node where two walls meet (stencil: corners; 108 of these 1296 cells)
  // it stays at round-off with every limiter; so it does with the defaults (the flow models' default
  // stencil is corners).
  const double face = corner_channel_departure({"operators.muscl.stencil=face", "operators.muscl.limiter=none"});
  const double face_venkatakrishnan = corner_channel_departure({"operators.muscl.stencil=face"});
  std::printf("[corner channel] face stencil: unlimited %.3e, venkatakrishnan %.3e\n", face, face_venkatakrishnan);
  EXPECT_GT(face, 1e-6) << "the face stencil no longer departs: the test guards nothing";
  for (const char* limiter : {"none", "venkatakrishnan", "barth-jespersen"}) {
    const double d = corner_channel_departure(
        {"operators.muscl.stencil=corners", std::string("operators.muscl.limiter=") + limiter});
    std::printf("[corner channel] corners stencil, limiter %s: %.3e\n", limiter, d);
    // float: round-off too (6.7e-5: about 70 eps of the energy, as 1.2e-13 is in double); the face
    // stencil reaches 47 unlimited, 5.1e-3 with Venkatakrishnan there
    EXPECT_LE(d, sizeof(real) == sizeof(double) ? 1e-12 : 5e-4) << limiter;
  }
  const double defaults = corner_channel_departure({});
  std::printf("[corner channel] the defaults: %.3e\n", defaults);
  EXPECT_LE(defaults, sizeof(real) == sizeof(double) ? 1e-12 : 5e-4) << "the defaults";
}

TEST(FlowSolver, NavierStokesCellPassEqualsTheSeparateGradients) {
  // operators.muscl.fused (the default) gives navier-stokes one cell pass for the MUSCL and the viscous
  // gradients (operators/muscl/muscl_paired.hpp); `fused: false` runs the muscl operator's two passes
  // and the viscous gradient operator. A Taylor-Green state on jittered tets between a no-slip wall,
  // a sliding isothermal one, a symmetry plane, a far field and a subsonic outflow (whose viscous
  // boundary values differ from the MUSCL ones), with each limiter and reconstruction, and the vertex
  // stencil's mirror images: the same state after 8 steps.
  const std::string yaml = R"(
case: cell_pass
mesh: {generate: {cells: [6, 5, 4], lengths: [1, 1, 1], element: tet, perturb: 0.15}}
physics: {model: navier-stokes, gamma: 1.4, gas_constant: 1, viscosity: {type: constant, value: 0.01}}
initial: {type: taylor-green, length: 0.2, speed: 1, density: 1, pressure: 5}
boundary: {xmin: {type: no-slip-wall}, xmax: {type: subsonic-outflow, pressure: 5},
           ymin: {type: symmetry}, ymax: {type: no-slip-wall, velocity: [0.5, 0, 0], temperature: 5.2},
           zmin: {type: farfield, density: 1, velocity: [0.2, 0, 0], pressure: 5}, zmax: {type: slip-wall}}
time: {integrator: ssprk3, dt: 0.002, end_time: 0.016}
)";
  const std::vector<std::vector<std::string>> cases{
      {},
      {"operators.muscl.limiter=barth-jespersen", "operators.convection.reconstruction=conservative"},
      {"operators.muscl.limiter=none", "operators.muscl.gradient=green-gauss"},
      {"operators.muscl.stencil=vertex", "operators.convection.flux=roe"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.empty() ? std::string("defaults") : c.front());
    std::vector<std::string> separate = c;
    separate.push_back("operators.muscl.fused=false");
    const FlowRun one = run(test::case_from(yaml, c)), two = run(test::case_from(yaml, separate));
    ASSERT_FALSE(one.summary.failure);
    ASSERT_FALSE(two.summary.failure);
    ASSERT_EQ(one.summary.steps, 8);
    const auto described = [](const RunSummary& s) {
      for (const auto& [key, value] : s.operators)
        if (key == "muscl.gradient") return value;
      return std::string();
    };
    EXPECT_NE(described(one.summary).find("paired"), std::string::npos) << described(one.summary);
    EXPECT_EQ(described(two.summary).find("paired"), std::string::npos) << described(two.summary);
    double diff = 0, scale = 0;
    for (int k = 0; k < 5; ++k)
      for (std::size_t i = 0; i < one.summary.final_state.at(k).size(); ++i) {
        diff = std::max(diff, std::abs(double(one.summary.final_state[k][i]) - double(two.summary.final_state[k][i])));
        scale = std::max(scale, std::abs(double(two.summary.final_state[k][i])));
      }
    EXPECT_LE(diff, test::tol(1e-13) * scale);
  }
}

/// A uniform supersonic flow along -x through a tet channel (20 x 2 x 2 x 6, symmetry planes on the
/// sides) whose ends both extrapolate (supersonic-outflow): it enters through xmax. Unlimited MUSCL to
/// t = 1 (about 100 steps); the largest departure of a conserved component from the uniform state.
double entering_flow_departure(const std::vector<std::string>& sets) {
  std::vector<std::string> all{"operators.muscl.limiter=none"};
  all.insert(all.end(), sets.begin(), sets.end());
  const FlowRun r = run(test::case_from(R"(
case: entering_flow
mesh: {generate: {cells: [20, 2, 2], lengths: [1, 0.1, 0.1], element: tet}}
physics: {model: euler, gamma: 1.4, gas_constant: 1}
initial: {type: uniform, density: 1, velocity: [-2, 0, 0], pressure: 0.1}
boundary: {xmin: {type: supersonic-outflow}, xmax: {type: supersonic-outflow}, ymin: {type: symmetry},
           ymax: {type: symmetry}, zmin: {type: symmetry}, zmax: {type: symmetry}}
time: {integrator: ssprk3, cfl: 0.8, end_time: 1}
)",
                                        all));
  if (r.summary.failure) return std::numeric_limits<double>::infinity();
  const double uniform[5] = {1, -2, 0, 0, 0.1 / 0.4 + 2};
  double d = 0;
  for (int k = 0; k < 5; ++k)
    for (real v : r.summary.final_state.at(k)) d = std::max(d, std::abs(double(v) - uniform[k]));
  return d;
}

TEST(FlowSolver, FlowEnteringThroughAnExtrapolatingBoundaryStaysUniform) {
  // Where the flow enters through a supersonic-outflow (a shock tube's transmissive end), the owner
  // cell is first order (flow_entering_first_order): its gradient, made from its downstream
  // neighbours and reconstructed onto its faces, fed back into it, and second-order MUSCL on tets
  // grew from round-off to O(1) in 40 steps (Toro 5 on tets at 200 cells stopped with a negative
  // pressure at its inflow end; hexes stayed uniform). Without it every case here stops with a
  // negative pressure; with the cell's own state on the entering faces only, the departure still
  // grew 1.04x per step (1e-10 at t = 1).
  const std::vector<std::vector<std::string>> cases{
      {"operators.convection.reconstruction=primitive"},
      {"operators.convection.reconstruction=conservative", "operators.convection.flux=roe"},
      {"operators.convection.variant=naive"},
      {"physics.model=navier-stokes", "physics.viscosity={type: constant, value: 0.001}"},
  };
  for (const auto& c : cases) {
    const double d = entering_flow_departure(c);
    std::printf("[entering flow] %s ...: max departure %.3e\n", c.front().c_str(), d);
    // float: round-off, bounded (5.5e-5 at t = 1, 1.3e-4 in density at t = 10); the instability reaches O(1)
    EXPECT_LE(d, sizeof(real) == sizeof(double) ? 1e-12 : 1e-3) << c.front();
  }
}

/// The Taylor-Green flow on a jittered tet box (a quarter period across) with the defaults, in units
/// scaled by `length`, `speed` and `density` and moved by whole periods (`shift` x 2 pi length in x):
/// the final state.
FlowRun scaled_taylor_green(double length, double speed, double density, int shift,
                            const std::vector<std::string>& sets) {
  const double pi = 3.141592653589793, L = length, U = speed;
  char mesh[320], initial[200], time[96];
  std::snprintf(mesh, sizeof mesh,
                "mesh.generate={shape: box, cells: [4, 8, 8], element: tet, lengths: [%.17g, %.17g, %.17g], origin: "
                "[%.17g, 0, 0], perturb: 0.15, seed: 3}",
                pi / 2 * L, pi * L, pi * L, 2 * pi * L * shift);
  std::snprintf(initial, sizeof initial,
                "initial={type: taylor-green, length: %.17g, speed: %.17g, density: %.17g, pressure: %.17g}", L, U,
                density, 2.857142857142857 * density * U * U);
  std::snprintf(time, sizeof time, "time={integrator: ssprk3, dt: %.17g, steps: 20}", 0.01 * L / U);
  std::vector<std::string> all{mesh, initial, time};
  all.insert(all.end(), sets.begin(), sets.end());
  return run(test::case_from(R"(
case: tg_units
physics: {model: euler, gamma: 1.4, gas_constant: 1}
boundary: {xmin: {type: symmetry}, xmax: {type: supersonic-outflow}, ymin: {type: symmetry},
           ymax: {type: symmetry}, zmin: {type: slip-wall}, zmax: {type: supersonic-outflow}}
)",
                             all));
}

TEST(FlowSolver, DefaultLimiterIsInvariantToUnitsAndPlace) {
  // Venkatakrishnan's eps is local (VenkatScale: kappa times each variable's size around the cell),
  // so a flow in other units (lengths x10, velocities x100, density x2: pressures x2e4, times x0.1)
  // and moved by a period along x gives the same state in those units to round-off, cell by cell
  // (issue 38): 7e-14. With eps not scaling with the variables (S fixed at 1: checked by putting it
  // in) 0.64 and 0.48 apart; the old eps^2 = (K h / L)^3 range^2 gave the zero initial w the range 1
  // whatever the units.
  for (const char* rec : {"primitive", "conservative"}) {
    SCOPED_TRACE(rec);
    const std::vector<std::string> sets{std::string("operators.convection.reconstruction=") + rec};
    const FlowRun a = scaled_taylor_green(1, 1, 1, 0, sets);
    const FlowRun b = scaled_taylor_green(10, 100, 2, 1, sets);
    ASSERT_FALSE(a.summary.failure);
    ASSERT_FALSE(b.summary.failure);
    const double unit[5] = {2, 200, 200, 200, 2e4}; // rho, rho u, E
    double worst = 0;
    for (int k = 0; k < 5; ++k) {
      double scale = 0, diff = 0;
      for (std::size_t c = 0; c < a.summary.final_state[k].size(); ++c) {
        scale = std::max(scale, std::abs(double(a.summary.final_state[k][c])));
        diff = std::max(diff,
                        std::abs(double(b.summary.final_state[k][c]) / unit[k] - double(a.summary.final_state[k][c])));
      }
      worst = std::max(worst, diff / scale);
    }
    std::printf("[limiter units] %s: max |scaled - unit| / max |unit| = %.3e\n", rec, worst);
    EXPECT_LE(worst, test::tol(1e-10));
    // The limiter is active: Barth-Jespersen gives another state.
    std::vector<std::string> bj = sets;
    bj.push_back("operators.muscl.limiter=barth-jespersen");
    const FlowRun c = scaled_taylor_green(1, 1, 1, 0, bj);
    double d = 0;
    for (std::size_t i = 0; i < a.summary.final_state[0].size(); ++i)
      d = std::max(d, std::abs(double(c.summary.final_state[0][i]) - double(a.summary.final_state[0][i])));
    EXPECT_GT(d, 1e-6);
  }
}

/// A plane acoustic pulse (initial: acoustic-pulse, amplitude A) in a uniform flow at Mach 0.3 along
/// a quasi-1-D channel of 200 hexes with a subsonic inflow (xmin) and outflow (xmax), run until the
/// pulse has met the boundary ahead of it and its reflection is back inside: the reflected pressure
/// wave's signed extreme over A (the reflection coefficient R; the pulse runs along `normal`). `nr`:
/// both boundaries non-reflecting with it (e.g. "{length: 1}", docs/physics.md#non-reflecting-subsonic-boundaries).
double acoustic_reflection(double normal, double end_time, const std::string& nr = "") {
  const double g = 1.4, p = 1 / g, M = 0.3, T = p, f = 1 + 0.5 * (g - 1) * M * M;
  char ic[320], bc[400], t[64];
  std::snprintf(ic, sizeof ic,
                "initial={type: acoustic-pulse, density: 1, velocity: [%.17g, 0, 0], pressure: %.17g, normal: [%g, 0, "
                "0], position: %g, width: 0.05, amplitude: 0.001}",
                M, p, normal, 0.5 * normal); // centred at x = 0.5 (position: along the normal)
  const std::string x = nr.empty() ? "" : ", non_reflecting: " + nr;
  std::snprintf(bc, sizeof bc,
                "boundary={xmin: {type: subsonic-inflow, total_pressure: %.17g, total_temperature: %.17g%s}, xmax: "
                "{type: subsonic-outflow, pressure: %.17g%s}, ymin: {type: symmetry}, ymax: {type: symmetry}, zmin: "
                "{type: symmetry}, zmax: {type: symmetry}}",
                p * std::pow(f, g / (g - 1)), T * f, x.c_str(), p, x.c_str());
  std::snprintf(t, sizeof t, "time={integrator: ssprk3, end_time: %g, cfl: 0.5}", end_time);
  const FlowRun r = run(test::case_from(R"(
case: acoustic_reflection
mesh: {generate: {shape: box, cells: [200, 1, 1], element: hex, lengths: [1, 0.005, 0.005]}}
physics: {model: euler, gamma: 1.4, gas_constant: 1}
operators: {muscl: {limiter: none}}
)",
                                        {ic, bc, t}));
  EXPECT_FALSE(r.summary.failure);
  const auto& s = r.summary.final_state;
  double extreme = 0;
  for (std::size_t c = 0; c < s[0].size(); ++c) {
    const double d = s[0][c], m2 = s[1][c] * s[1][c] + s[2][c] * s[2][c] + s[3][c] * s[3][c];
    const double dp = (g - 1) * (s[4][c] - 0.5 * m2 / d) - p;
    if (std::abs(dp) > std::abs(extreme)) extreme = dp;
  }
  return extreme / (1e-3 * p);
}

TEST(FlowSolver, SubsonicBoundariesReflectAnAcousticPulseAsTheirCharacteristicsSay) {
  // The subsonic outflow imposes the static pressure: an outgoing acoustic wave comes back inverted
  // whole, R = -1; the subsonic inflow imposes p0 and T0 with the outgoing invariant from the
  // interior: R = -(1 - M) / (1 + M) = -0.538 at Mach 0.3 (issue 38's review measured both). Each
  // pulse, through 0.5 of the channel before and 0.2-0.3 after, loses a few % to the scheme
  // (measured -0.915 and -0.531). An outflow without its characteristic correction (density and
  // velocity extrapolated, p imposed) reflects this resolved pulse nearly the same (-0.929,
  // measured by putting it back): pinning p decides R for waves longer than a cell, so this test
  // does not see that change either (issue 38, item 8, left open).
  const double out = acoustic_reflection(1, 0.8), in = acoustic_reflection(-1, 0.9);
  std::printf("[acoustic reflection] outflow R = %.4f, inflow R = %.4f (exact -1, %.4f)\n", out, in,
              -(1 - 0.3) / (1 + 0.3));
  EXPECT_LT(out, -0.85);
  EXPECT_GT(out, -1.02);
  EXPECT_NEAR(in, -(1 - 0.3) / (1 + 0.3), 0.05);
}

TEST(FlowSolver, NonReflectingSubsonicBoundariesLetAnAcousticPulseOut) {
  // non_reflecting {length: 1} on both boundaries (issue 38 item 5: |R| <= 0.05 at normal incidence):
  // the pulse (width 0.05, frequencies ~ c / 0.05) is far faster than the relaxation rate K = sigma c
  // (1 - M^2) / L = 0.23, and leaves. With the incoming invariant blended with the boundary cell's
  // instead of carried by the face (tried first), R was -0.80 at the outflow.
  const double out = acoustic_reflection(1, 0.8, "{length: 1}"), in = acoustic_reflection(-1, 0.9, "{length: 1}");
  std::printf("[acoustic reflection, non-reflecting] outflow R = %.4f, inflow R = %.4f\n", out, in);
  EXPECT_LT(std::abs(out), 0.05);
  EXPECT_LT(std::abs(in), 0.05);
}

/// A quasi-1-D channel of 50 hexes from rest (p = 1 / gamma, rho = 1: c = 1) with a velocity inlet
/// at u = 0.1 (Mach 0.1) and T = p and a subsonic outflow at p, `nr`
/// (docs/physics.md#non-reflecting-subsonic-boundaries) or fixed (""), second order, run to t = 30 (15 acoustic round
/// trips): the largest |u - 0.1| over the cells, relative to 0.1.
double channel_from_rest(const std::string& nr) {
  const std::string bc = "boundary={xmin: {type: velocity-inlet, velocity: [0.1, 0, 0], temperature: "
                         "0.7142857142857143}, xmax: {type: subsonic-outflow, pressure: 0.7142857142857143" +
                         (nr.empty() ? "" : ", non_reflecting: " + nr) +
                         "}, ymin: {type: symmetry}, ymax: {type: symmetry}, zmin: {type: symmetry}, zmax: "
                         "{type: symmetry}}";
  const FlowRun r = run(test::case_from(R"(
case: channel_from_rest
mesh: {generate: {shape: box, cells: [50, 1, 1], element: hex, lengths: [1, 0.02, 0.02]}}
physics: {model: euler, gamma: 1.4, gas_constant: 1}
initial: {type: uniform, density: 1, velocity: [0, 0, 0], pressure: 0.7142857142857143}
time: {integrator: ssprk3, end_time: 30, cfl: 0.8}
)",
                                        {bc}));
  EXPECT_FALSE(r.summary.failure);
  const auto& s = r.summary.final_state;
  double worst = 0;
  for (std::size_t c = 0; c < s[0].size(); ++c) worst = std::max(worst, std::abs(s[1][c] / s[0][c] - 0.1));
  return worst / 0.1;
}

TEST(FlowSolver, NonReflectingOutflowLetsALowMachChannelSettle) {
  // Issue 38: a channel started from rest by a velocity inlet (which reflects as a wall: R = +1) and
  // a fixed-pressure outflow (R = -1) rings with no loss but the scheme's (docs/physics.md: still at
  // t = 1000 at second order); with the outflow non-reflecting the start-up wave leaves and the
  // channel settles (measured: 10x per 5 time units, round-off by t = 60).
  const double fixed = channel_from_rest(""), relaxed = channel_from_rest("{length: 1}");
  std::printf("[channel from rest at Mach 0.1, t = 30] max |u - U| / U: fixed outflow %.3g, non-reflecting %.3g\n",
              fixed, relaxed);
  EXPECT_LT(relaxed, 1e-4);
  EXPECT_GT(fixed, 0.1);
}

TEST(FlowSolver, NoSlipWallVelocityMustLieInTheWall) {
  // Couette's sliding wall (y = 1): along x is accepted, with a normal component is refused naming
  // the key and where it was given; the tolerance (1 degree) lets a velocity 0.5 degree off pass.
  auto check = [](const std::string& velocity) {
    const CaseConfig cfg = input_case("couette", {"boundary.ymax.velocity=" + velocity});
    const BuiltMesh b = build_mesh(cfg.mesh);
    check_boundary_directions(cfg, b.device, Communicator::world());
  };
  EXPECT_NO_THROW(check("[0.5, 0, 0.2]"));
  EXPECT_NO_THROW(check("[1, 0.0087, 0]")); // 0.5 degree
  test::expect_input_error([&] { check("[1, 0.0175, 0]"); },
                           {"--set boundary.ymax.velocity=[1, 0.0175, 0]", "boundary.ymax.velocity",
                            "normal component of 1.74973 %", "unit normal (0, 1, 0)"});
  // A curved patch (the cylinder of mesh/cylinder.msh, axis z): a velocity along the axis is
  // tangent to every face; across it, it is refused.
  auto cylinder = [](const std::string& velocity) {
    const CaseConfig cfg =
        input_case("cylinder", {"boundary.cylinder={type: no-slip-wall, velocity: " + velocity + "}"});
    const BuiltMesh b = build_mesh(cfg.mesh);
    check_boundary_directions(cfg, b.device, Communicator::world());
  };
  EXPECT_NO_THROW(cylinder("[0, 0, 0.3]"));
  test::expect_input_error([&] { cylinder("[0.3, 0, 0]"); },
                           {"boundary.cylinder.velocity", "normal component of 99.5185 %"});
}

TEST(FlowSolver, AnInitialStateTheModelCannotStartFromIsRefusedBeforeAnythingIsWritten) {
  // The parse-time checks (tests/data/bad/MANIFEST) refuse the known formulas' bad parameters; the
  // state itself is checked on every cell too, before the mesh hook writes anything: here a
  // Taylor-Green pressure below its dip set past the parser.
  CaseConfig cfg = input_case("taylor_green", {"mesh.generate.cells=[8,8,8]", "time={steps: 1}"});
  cfg.flow_initial.pressure = 0.1; // p0 - 3 rho0 V0^2 / 8 < 0 where the vortex's pressure is lowest
  bool wrote = false;
  RunHooks hooks;
  hooks.write_mesh = [&] { wrote = true; };
  hooks.write_fields = [&](long long, double, ConstView2<real>) {
    wrote = true;
    return std::string("fields");
  };
  test::expect_input_error(
      [&] { run(cfg, hooks); },
      {cfg.initial_where, "initial: the initial state is non-physical: density <= 0 at cell", ": density = -"});
  EXPECT_FALSE(wrote);
  cfg.flow_initial.pressure = 71.4;
  EXPECT_NO_THROW(run(cfg, hooks));
  EXPECT_TRUE(wrote);
}

TEST(FlowSolver, NonPhysicalStateStopsWithTheLastGoodState) {
  // A run that goes non-physical stops at the failing step with the cell and its state, and hands
  // the state before it to the output; with the variable step and with a fixed one (the flow models
  // check every step either way). Fixed: unlimited MUSCL with a step of about twice the stable one.
  // Variable: forward Euler at CFL 1 on Toro's 123 problem on tets, beyond what the positivity
  // safeguards promise (docs/physics.md#time-step-of-the-flow-models: euler's default is 0.8), with
  // time.retries: 0 (with the default 3 its failing steps are taken again with half the step and
  // it completes).
  const ToroProblem& toro2 = kToro[1];
  const std::vector<std::string> variable =
      plane_riemann(0, 100, 0.02, toro2.left, toro2.right, toro2.position, toro2.end_time, "supersonic-outflow",
                    {"time={integrator: euler, cfl: 1.0, end_time: 0.15, retries: 0}",
                     "operators.muscl.stencil=face"}); // corners (the default) gets through it
  for (const char* time : {"variable", "time={end_time: 0.2, dt: 0.03}"}) {
    SCOPED_TRACE(time);
    const bool fixed = std::string(time) != "variable";
    const CaseConfig cfg =
        fixed ? input_case("sod", {"mesh.generate.cells=[40,2,2]", "mesh.generate.lengths=[1,0.05,0.05]", time,
                                   "output.every={steps: 1000}", "operators.muscl.limiter=none"})
              : input_case("sod_tet", variable);
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
