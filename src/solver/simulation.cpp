#include "solver/simulation.hpp"

#include <cmath>
#include <sstream>

#include "core/build_info.hpp"
#include "core/error.hpp"
#include "core/kokkos_compat.hpp"
#include "physics/scalar_solution.hpp"

namespace fvproxy {

namespace {

std::string mib(double bytes) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(1);
  s << bytes / (1024.0 * 1024.0) << " MiB";
  return s.str();
}

/// How often the loop reads the non-finite flag from the device (a synchronization), in steps,
/// besides every progress report and the end.
constexpr long long kCheckEvery = 16;

} // namespace

RunSummary run_simulation(const CaseConfig& cfg, const Mesh& mesh, const RunHooks& hooks, bool keep_final_state) {
  Kokkos::Timer setup;
  auto log = [&](const std::string& s) {
    if (hooks.log) hooks.log(s);
  };
  RunSummary r;
  r.case_name = cfg.name;
  r.cells = mesh.n_cells;
  r.components = cfg.physics.components;

  // Memory: the mesh is on the device already; refuse before allocating the solver.
  const std::size_t solver_bytes = ScalarSolver::memory_bytes(mesh, cfg);
  r.memory_bytes = mesh.memory_bytes() + solver_bytes;
  r.memory_available = available_memory_bytes();
  {
    std::ostringstream s;
    s << "memory: " << mib(double(r.memory_bytes)) << " on the device (" << r.memory_bytes / std::max(1, mesh.n_cells)
      << " bytes/cell x " << mesh.n_cells << " cells: mesh " << mib(double(mesh.memory_bytes())) << ", solver "
      << mib(double(solver_bytes)) << ")";
    if (r.memory_available) s << ", " << mib(double(r.memory_available)) << " free";
    log(s.str());
  }
  if (r.memory_available && solver_bytes > r.memory_available)
    throw RunError("fvproxy run: error: not enough memory for the solver: it needs " + mib(double(solver_bytes)) +
                   " beyond the mesh, and the device has " + mib(double(r.memory_available)) +
                   " free\nuse a coarser mesh (mesh.generate.cells) or fewer components");

  ScalarSolver solver(mesh, cfg);
  r.operators = solver.describe();
  r.cfl = solver.stable_step(cfg.time.cfl);
  double dt = 0;
  if (cfg.time.dt) {
    dt = *cfg.time.dt;
    if (r.cfl.dt > 0 && dt > r.cfl.dt)
      log("warning: time.dt = " + std::to_string(dt) + " exceeds the CFL-1 step estimate " +
          std::to_string(r.cfl.dt / cfg.time.cfl) + " (the run may be unstable)");
  } else {
    if (!(r.cfl.dt > 0))
      throw InputError(cfg.source_file, "time.cfl: nothing limits the time step (zero velocity and zero diffusivity)",
                       "give a fixed step with time.dt");
    dt = r.cfl.dt;
  }
  long long total_steps = 0;
  if (cfg.time.end_time) {
    const double T = *cfg.time.end_time;
    total_steps = std::max(1LL, static_cast<long long>(std::ceil(T / dt * (1 - 1e-12))));
    dt = T / double(total_steps);
  } else {
    total_steps = *cfg.time.steps;
  }
  r.dt = dt;
  {
    std::ostringstream s;
    s.precision(6);
    s << "time step: dt = " << dt
      << (cfg.time.dt ? " (fixed)" : " (CFL " + std::to_string(cfg.time.cfl).substr(0, 5) + ")") << ", " << total_steps
      << " steps of " << to_string(cfg.time.integrator) << " to t = " << dt * double(total_steps)
      << "; stable-step rate max " << r.cfl.max_rate << " at cell " << r.cfl.limiting_cell;
    log(s.str());
  }

  solver.initialize();
  r.conservation_initial = conserved_totals(mesh, solver.state());
  r.no_exact_solution = exact_solution_unavailable(cfg);
  kc::fence("fvproxy::solver::setup");
  r.setup_seconds = setup.seconds();

  ScopedKernelProfiler profiler(hooks.profile);
  Kokkos::Timer wall;
  double last_report = 0;
  long long step = 0;
  for (step = 1; step <= total_steps; ++step) {
    const double t = dt * double(step - 1);
    solver.step(static_cast<real>(t), static_cast<real>(dt), step, true);
    const double now = wall.seconds();
    const bool report = hooks.progress && now - last_report >= cfg.run.progress_interval && step < total_steps;
    if (report || step % kCheckEvery == 0 || step == total_steps) {
      if ((r.non_finite = solver.first_non_finite())) break;
    }
    if (report) {
      last_report = now;
      Progress p;
      p.step = step, p.total_steps = total_steps, p.time = dt * double(step), p.dt = dt;
      p.end_time = dt * double(total_steps), p.wall_seconds = now;
      p.eta_seconds = now / double(step) * double(total_steps - step);
      p.cell_updates_per_second = double(mesh.n_cells) * double(step) / now;
      hooks.progress(p);
    }
  }
  kc::fence("fvproxy::solver::end");
  r.wall_seconds = wall.seconds();
  if (hooks.profile) r.timers = KernelProfiler::table();
  r.steps = r.non_finite ? r.non_finite->step : total_steps;
  r.time = dt * double(r.steps);
  if (cfg.time.end_time && !r.non_finite) r.time = *cfg.time.end_time; // n * (T / n) may differ from T by an ulp
  r.cell_updates_per_second = r.wall_seconds > 0 ? double(mesh.n_cells) * double(r.steps) / r.wall_seconds : 0;
  if (r.non_finite) return r;

  r.conservation_final = conserved_totals(mesh, solver.state());
  if (r.no_exact_solution.empty())
    r.errors = error_norms(mesh, solver.state(), solver.solution(), static_cast<real>(r.time));
  if (keep_final_state) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), solver.state());
    r.final_state.assign(r.components, std::vector<real>(mesh.n_cells));
    for (int k = 0; k < r.components; ++k)
      for (index_t c = 0; c < mesh.n_cells; ++c) r.final_state[k][c] = h(c, k);
  }
  return r;
}

} // namespace fvproxy
