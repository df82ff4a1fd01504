#include "app/run_summary.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "app/info.hpp"
#include "app/rank_report.hpp"

namespace fvproxy {

namespace {

namespace fs = std::filesystem;

/// The name of state column k in messages (u<k>; density, momentum[i], total_energy).
std::string column_name(const RunSummary& r, int k) {
  return k < int(r.conserved_names.size()) ? r.conserved_names[k] : "u" + std::to_string(k);
}

/// A flow failure's field: density or pressure (non-physical), else the column.
std::string failure_field(const RunSummary& r, const StateFailure& f) {
  if (f.kind == StateFailure::Kind::non_physical) return f.component == 0 ? "density" : "pressure";
  return column_name(r, f.component);
}

/// The conservation totals by field: a vector's components (name[i]) gathered into one list.
nlohmann::json conservation_json(const RunSummary& r) {
  nlohmann::json out = nlohmann::json::object();
  for (std::size_t k = 0; k < r.conservation_initial.size(); ++k) {
    const std::string name = column_name(r, int(k));
    const auto bracket = name.find('[');
    const double fin = k < r.conservation_final.size() ? r.conservation_final[k] : 0.0;
    const bool has_final = k < r.conservation_final.size();
    if (bracket == std::string::npos) {
      out[name] = {{"initial", r.conservation_initial[k]},
                   {"final", has_final ? nlohmann::json(fin) : nlohmann::json(nullptr)}};
      continue;
    }
    nlohmann::json& v = out[name.substr(0, bracket)];
    v["initial"].push_back(r.conservation_initial[k]);
    v["final"].push_back(has_final ? nlohmann::json(fin) : nlohmann::json(nullptr));
  }
  return out;
}

/// "status": how the run ended.
const char* status_of(const RunSummary& r) {
  if (r.failure) {
    if (r.failure->kind == StateFailure::Kind::out_of_bounds) return "out-of-bounds";
    return r.failure->kind == StateFailure::Kind::non_physical ? "non-physical" : "non-finite";
  }
  if (!r.stopped.empty()) return "stopped";
  return r.converged ? "converged" : "completed";
}

/// Error norms against the exact solution, or why there are none.
void add_errors(nlohmann::json& j, const RunSummary& r) {
  j["errors"] = nlohmann::json::object();
  if (r.errors)
    for (std::size_t k = 0; k < r.errors->size(); ++k)
      j["errors"][r.error_names[k]] = {
          {"l1", (*r.errors)[k].l1}, {"l2", (*r.errors)[k].l2}, {"linf", (*r.errors)[k].linf}};
  else
    j["no_exact_solution"] = r.no_exact_solution;
}

/// RMS of (u^{n+1} - u^n) / dt per field: the first step's, the last computed, and their ratio.
void add_residuals(nlohmann::json& j, const RunSummary& r, const CaseConfig& cfg) {
  if (r.residual_names.empty()) return;
  nlohmann::json res = nlohmann::json::object();
  for (std::size_t k = 0; k < r.residual_names.size(); ++k) {
    const double first = k < r.residual_reference.size() ? r.residual_reference[k] : 0.0;
    const double last = k < r.residual_last.size() ? r.residual_last[k] : 0.0;
    res[r.residual_names[k]] = {{"first", first}, {"last", last}, {"relative", first > 0 ? last / first : 0.0}};
  }
  j["residuals"] = res;
  j["converged"] = r.converged;
  if (cfg.time.residual_tolerance) j["residual_tolerance"] = *cfg.time.residual_tolerance;
}

/// The failing value: where, which field, the cell's state (non-finite values as null).
void add_failure(nlohmann::json& j, const RunSummary& r) {
  if (!r.failure) return;
  const auto& f = *r.failure;
  const bool oob = f.kind == StateFailure::Kind::out_of_bounds;
  nlohmann::json e = {{"step", f.step},
                      {"field", failure_field(r, f)},
                      {"cell_global_id", f.cell_gid},
                      {"position", {f.x[0], f.x[1], f.x[2]}}};
  if (oob) e["admissible"] = {f.admissible[0], f.admissible[1]};
  nlohmann::json st = nlohmann::json::object();
  for (std::size_t k = 0; k < f.state.size(); ++k)
    st[column_name(r, int(k))] = std::isfinite(f.state[k]) ? nlohmann::json(f.state[k]) : nlohmann::json(nullptr);
  e["state"] = st;
  if (!r.last_good_file.empty()) e["last_good_state"] = fs::path(r.last_good_file).filename().string();
  j[oob ? "out_of_bounds" : f.kind == StateFailure::Kind::non_physical ? "non_physical" : "non_finite"] = e;
}

/// The max-principle monitor: the data's range, the admissible interval, and (completed runs) the
/// final range, per field; +-inf (monitor off) is written as null. Then the walls' forces.
void add_bounds_and_forces(nlohmann::json& j, const RunSummary& r) {
  j["bounds"] = nlohmann::json::object();
  auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
  for (std::size_t k = 0; k < r.bounds.lo.size(); ++k) {
    nlohmann::json b = {{"initial", {r.bounds.lo[k], r.bounds.hi[k]}},
                        {"admissible", {num(r.bounds.admissible_lo[k]), num(r.bounds.admissible_hi[k])}}};
    if (k < r.final_min.size()) b["final"] = {r.final_min[k], r.final_max[k]};
    j["bounds"]["u" + std::to_string(k)] = b;
  }
  if (r.forces.empty()) return;
  // the flow's force on each wall patch (coefficients: perf/cylinder_drag.py)
  nlohmann::json f = nlohmann::json::object();
  for (const WallForce& w : r.forces)
    f[w.patch] = {{"pressure", {w.pressure[0], w.pressure[1], w.pressure[2]}},
                  {"viscous", {w.viscous[0], w.viscous[1], w.viscous[2]}},
                  {"total", {w.total(0), w.total(1), w.total(2)}}};
  j["forces"] = f;
}

} // namespace

nlohmann::json summary_json(const RunSummary& r, const CaseConfig& cfg, const nlohmann::json& report) {
  nlohmann::json j;
  j["case"] = r.case_name;
  j["model"] = to_string(cfg.physics.model);
  j["status"] = status_of(r);
  if (!r.stopped.empty()) j["stopped"] = r.stopped;
  j["steps"] = r.steps;
  j["total_steps"] = r.total_steps;
  j["first_step"] = r.first_step;
  j["io_seconds"] = r.io_seconds;
  j["files"] = {{"fields", nlohmann::json::array()}, {"checkpoints", nlohmann::json::array()}};
  for (const auto& f : r.fields_files) j["files"]["fields"].push_back(fs::path(f).filename().string());
  for (const auto& f : r.checkpoint_files) j["files"]["checkpoints"].push_back(fs::path(f).filename().string());
  j["time"] = r.time;
  j["dt"] = r.dt;
  j["time_step"] = {{"variable", r.variable_dt}, {"min", r.dt_min}, {"max", r.dt_max}, {"retried", r.retried_steps}};
  j["cells"] = r.cells;
  j["wall_seconds"] = r.wall_seconds;
  j["setup_seconds"] = r.setup_seconds;
  j["cell_updates_per_second"] = r.cell_updates_per_second;
  add_errors(j, r);
  j["conservation"] = conservation_json(r);
  add_residuals(j, r, cfg);
  // Per rank, and min / mean / max over ranks (rank_report.hpp); "seconds" of a timer is its max.
  for (const char* k : {"timers", "halo", "phases", "slowest_rank", "ranks", "memory"}) j[k] = report[k];
  j["memory_bytes"] = r.memory_bytes;
  for (const auto& [op, what] : r.operators) j["operators"][op] = what;
  j["cfl"] = {{"max_rate", r.cfl.max_rate}, {"limiting_cell", r.cfl.limiting_cell}, {"dt", r.cfl.dt}};
  add_failure(j, r);
  add_bounds_and_forces(j, r);
  j["config"] = to_json(cfg.resolved());
  j["build"] = info_json();
  return j;
}

nlohmann::json to_json(const YAML::Node& n) {
  switch (n.Type()) {
  case YAML::NodeType::Map: {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& kv : n) j[kv.first.as<std::string>()] = to_json(kv.second);
    return j;
  }
  case YAML::NodeType::Sequence: {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& e : n) j.push_back(to_json(e));
    return j;
  }
  case YAML::NodeType::Scalar: {
    const std::string s = n.Scalar();
    if (s == "true") return true;
    if (s == "false") return false;
    char* end = nullptr;
    errno = 0;
    const long long i = std::strtoll(s.c_str(), &end, 10);
    if (!s.empty() && *end == '\0' && errno == 0) return i;
    const double d = std::strtod(s.c_str(), &end);
    if (!s.empty() && *end == '\0') return d;
    return s;
  }
  default: return nullptr;
  }
}

std::string duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  const long long t = static_cast<long long>(s + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", t / 3600, t / 60 % 60, t % 60);
  return buf;
}

void print_summary(const RunSummary& r, const CaseConfig& cfg, const std::string& summary_path,
                   const nlohmann::json& report) {
  std::printf("done: %lld steps to t = %.6g in %.3f s (wall, set-up %.2f s, output %.2f s), %.3e cell-updates/s\n",
              r.steps - r.first_step + 1, r.time, r.wall_seconds, r.setup_seconds, r.io_seconds,
              r.cell_updates_per_second);
  if (r.first_step > 1) std::printf("  restarted at step %lld; now at step %lld\n", r.first_step - 1, r.steps);
  if (!r.fields_files.empty())
    std::printf("  fields: %zu files, last %s\n", r.fields_files.size(), r.fields_files.back().c_str());
  if (r.variable_dt)
    std::printf("  time step: variable, %.4g to %.4g%s\n", r.dt_min, r.dt_max,
                r.converged ? " (stopped: residuals below time.residual_tolerance)" : "");
  if (r.retried_steps > 0)
    std::printf("  %lld %s taken again: half the step, first order where it failed (time.retries)%s\n", r.retried_steps,
                r.retried_steps == 1 ? "failing step was" : "failing steps were",
                10 * r.retried_steps > r.steps
                    ? "; more than 1 in 10 steps: the scheme fails where the retries patch it "
                      "(a limiter or a smaller time.cfl)"
                    : "");
  if (r.errors) {
    std::printf("  error vs exact solution at t = %.6g (volume-weighted):\n", r.time);
    std::printf("    %-12s %14s %14s %14s\n", "field", "L1", "L2", "Linf");
    for (std::size_t k = 0; k < r.errors->size(); ++k)
      std::printf("    %-12s %14.6e %14.6e %14.6e\n", r.error_names[k].c_str(), (*r.errors)[k].l1, (*r.errors)[k].l2,
                  (*r.errors)[k].linf);
  } else {
    std::printf("  no error norms: %s\n", r.no_exact_solution.c_str());
  }
  std::printf("  conservation (sum u V; constant in a periodic box, else changed by the boundary fluxes):\n"
              "    %-12s %22s %22s %12s\n",
              "field", "initial", "final", "change");
  for (std::size_t k = 0; k < r.conservation_final.size(); ++k) {
    const double a = r.conservation_initial[k], b = r.conservation_final[k];
    std::printf("    %-12s %22.15e %22.15e %12.3e\n", column_name(r, int(k)).c_str(), a, b, b - a);
  }
  for (const WallForce& w : r.forces) {
    std::printf("  force on %s: (%.6g, %.6g, %.6g) = pressure (%.6g, %.6g, %.6g) + viscous (%.6g, %.6g, %.6g)",
                w.patch.c_str(), w.total(0), w.total(1), w.total(2), w.pressure[0], w.pressure[1], w.pressure[2],
                w.viscous[0], w.viscous[1], w.viscous[2]);
    std::printf("\n");
  }
  if (!r.residual_last.empty()) {
    std::printf("  residuals (RMS of du/dt, last step / first step):");
    for (std::size_t k = 0; k < r.residual_names.size() && k < r.residual_last.size(); ++k)
      std::printf(" %s %.3e / %.3e;", r.residual_names[k].c_str(), r.residual_last[k],
                  k < r.residual_reference.size() ? r.residual_reference[k] : 0.0);
    std::printf("\n");
  }
  print_run_report(report, cfg.run.profile);
  std::printf("  summary: %s\n", summary_path.c_str());
  (void)cfg;
}

std::string failure_message(const RunSummary& r, const CaseConfig& cfg, const std::string& summary_path) {
  const auto& f = *r.failure;
  std::ostringstream s;
  s.precision(6);
  if (f.kind == StateFailure::Kind::non_finite)
    s << "fvproxy run: error: non-finite value of " << failure_field(r, f);
  else if (f.kind == StateFailure::Kind::non_physical)
    s << "fvproxy run: error: non-positive " << failure_field(r, f);
  else
    s << "fvproxy run: error: u" << f.component << " left the admissible interval [" << f.admissible[0] << ", "
      << f.admissible[1] << "]";
  s << " at step " << f.step << " (t = " << r.time << "): cell " << f.cell_gid << " (global id) at (" << f.x[0] << ", "
    << f.x[1] << ", " << f.x[2] << ")\n";
  if (!f.state.empty()) {
    s << "  its state:";
    for (std::size_t k = 0; k < f.state.size(); ++k) s << " " << column_name(r, int(k)) << " = " << f.state[k];
    s << "\n";
  }
  if (!r.last_good_file.empty())
    s << "  the last good state (step " << f.step - 1 << ") is in " << r.last_good_file << "\n";
  if (f.kind == StateFailure::Kind::out_of_bounds)
    s << "the scalar model keeps u within the range of its initial and boundary values [" << r.bounds.lo[f.component]
      << ", " << r.bounds.hi[f.component] << "]; the interval widens it by run.bound_tolerance = "
      << (cfg.run.bound_tolerance ? *cfg.run.bound_tolerance : 0.0) << " of its width on each side\n";
  s << "the run is unstable: reduce time.cfl or time.dt, or use a limiter (operators.muscl.limiter"
    << (cfg.physics.is_flow() ? ": barth-jespersen is the most robust" : "") << ")";
  if (cfg.physics.is_flow())
    s << "; near vacuum or strong expansions, operators.convection.flux: hllc or rusanov and "
         "reconstruction: primitive are the most robust (docs/physics.md#positivity)";
  s << "; summary in " << summary_path;
  return s.str();
}

} // namespace fvproxy
