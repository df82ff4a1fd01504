// The `time`, `output`, `checkpoint` and `run` sections: the time loop's schedule, its output and
// its watch (docs/inputs.md#solver-sections).
#include "solver/run_options.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/config_reader.hpp"

namespace fvproxy {

using detail::flow_style;
using detail::format_number;
using detail::join_list;
using detail::Reader;

const char* to_string(Integrator i) {
  return i == Integrator::euler ? "euler" : i == Integrator::ssprk2 ? "ssprk2" : "ssprk3";
}

namespace {

EveryConfig parse_every(const Reader& r, const YAML::Node& n, const std::string& path, bool wall) {
  const std::vector<std::string> keys =
      wall ? std::vector<std::string>{"steps", "time", "wall_seconds"} : std::vector<std::string>{"steps", "time"};
  r.check_keys(n, path, keys);
  if (n.size() != 1)
    r.fail(n, path, "give exactly one of " + join_list(keys), "got " + std::to_string(n.size()) + " keys");
  EveryConfig e;
  if (n["steps"]) {
    const long long s = r.int_value(n["steps"], path + ".steps");
    if (s < 1) r.fail(n["steps"], path + ".steps", "must be >= 1");
    e.kind = EveryConfig::Kind::steps;
    e.value = double(s);
  } else if (n["time"]) {
    e.kind = EveryConfig::Kind::time;
    e.value = r.positive(n["time"], path + ".time");
  } else {
    e.kind = EveryConfig::Kind::wall_seconds;
    e.value = r.positive(n["wall_seconds"], path + ".wall_seconds");
  }
  return e;
}

YAML::Node every_yaml(const EveryConfig& e) {
  YAML::Node m;
  if (e.kind == EveryConfig::Kind::steps) m["steps"] = static_cast<long long>(e.value);
  if (e.kind == EveryConfig::Kind::time) m["time"] = e.value;
  if (e.kind == EveryConfig::Kind::wall_seconds) m["wall_seconds"] = e.value;
  return m;
}

/// output.fields: names of this model's fields (or the rank), each once.
std::vector<std::string> parse_fields(const Reader& r, const YAML::Node& f, const PhysicsConfig& physics) {
  if (!f.IsSequence() || f.size() == 0)
    r.fail(f, "output.fields", "expected a non-empty list of field names", "got " + Reader::describe(f));
  std::vector<std::string> fields;
  for (std::size_t i = 0; i < f.size(); ++i) {
    const std::string path = "output.fields[" + std::to_string(i) + "]";
    const std::string name = r.string_value(f[i], path);
    std::vector<std::string> valid;
    for (const FieldLayout& l : output_field_layout(physics)) valid.push_back(l.name);
    valid.push_back(kRankField); // the owning MPI rank of each cell
    if (std::find(valid.begin(), valid.end(), name) == valid.end()) {
      const std::string best = closest_key(name, valid);
      r.fail(f[i], path, "unknown field '" + name + "'" + (best.empty() ? "" : "; did you mean '" + best + "'?"),
             "fields of this case: " + join_list(valid));
    }
    if (std::find(fields.begin(), fields.end(), name) != fields.end())
      r.fail(f[i], path, "field '" + name + "' is listed twice");
    fields.push_back(name);
  }
  return fields;
}

} // namespace

TimeConfig read_time_options(const Reader& r, const YAML::Node& root, bool flow) {
  TimeConfig t;
  const YAML::Node n = root["time"];
  if (!n) r.fail(root, "time", "required section missing", "give time.end_time or time.steps");
  r.check_keys(n, "time", {"integrator", "cfl", "dt", "end_time", "steps", "residual_tolerance", "retries"});
  if (n["retries"]) {
    if (!flow)
      r.fail(n["retries"], "time.retries", "an option of the flow models",
             "a step whose density or pressure fails is taken again with a smaller step (physics.model: euler | "
             "navier-stokes)");
    if (n["dt"])
      r.fail(n["retries"], "time.retries", "an option of the CFL step, not of a fixed time.dt",
             "a fixed dt is taken as given; use time.cfl to let a failing step be taken again with half the step");
    const long long k = r.int_value(n["retries"], "time.retries");
    if (k < 0 || k > 10) r.fail(n["retries"], "time.retries", "must be 0 to 10 (each halves the step)");
    t.retries = static_cast<int>(k);
  }
  if (n["residual_tolerance"]) {
    if (!flow)
      r.fail(n["residual_tolerance"], "time.residual_tolerance", "an option of the flow models",
             "the residual monitor watches steady flows (physics.model: euler | navier-stokes)");
    t.residual_tolerance = r.positive(n["residual_tolerance"], "time.residual_tolerance");
  }
  if (n["integrator"])
    t.integrator = r.enum_value(n["integrator"], "time.integrator",
                                std::vector<Integrator>{Integrator::euler, Integrator::ssprk2, Integrator::ssprk3});
  if (n["cfl"] && n["dt"]) r.fail(n["dt"], "time.dt", "give either cfl or dt, not both");
  if (n["cfl"]) {
    t.cfl = r.positive(n["cfl"], "time.cfl");
    const double limit = cfl_limit(t.integrator);
    if (t.cfl > 2 * limit)
      r.fail(n["cfl"], "time.cfl",
             "CFL " + Reader::describe(n["cfl"]) + " is more than twice the stable limit " + format_number(limit) +
                 " of " + to_string(t.integrator),
             "the scheme is unstable there (a CFL above " + format_number(limit) +
                 " is allowed with a warning); docs/inputs.md, \"The time step\"");
  }
  if (!n["cfl"]) t.cfl = default_cfl(flow, t.integrator);
  if (n["dt"]) t.dt = r.positive(n["dt"], "time.dt");
  if (bool(n["end_time"]) == bool(n["steps"]))
    r.fail(n, "time",
           n["end_time"] ? "give exactly one of end_time and steps, not both" : "one of end_time or steps is required");
  if (n["end_time"]) t.end_time = r.positive(n["end_time"], "time.end_time");
  if (n["steps"]) {
    const long long s = r.int_value(n["steps"], "time.steps");
    if (s < 1) r.fail(n["steps"], "time.steps", "must be >= 1");
    if (s > kMaxSteps)
      r.fail(n["steps"], "time.steps", "more than the " + std::to_string(kMaxSteps) + " steps a run may have");
    t.steps = s;
  }
  if (t.dt && t.end_time && *t.end_time / *t.dt > double(kMaxSteps))
    r.fail(n["dt"], "time.dt",
           "end_time / dt = " + format_number(*t.end_time / *t.dt) + " steps, more than the " +
               std::to_string(kMaxSteps) + " a run may have");
  return t;
}

RunConfig read_run_options(const Reader& r, const YAML::Node& root) {
  RunConfig run;
  if (const YAML::Node n = root["run"]) {
    r.check_keys(n, "run", {"progress_interval", "wall_limit", "profile", "deterministic", "bound_tolerance"});
    if (n["progress_interval"]) run.progress_interval = r.positive(n["progress_interval"], "run.progress_interval");
    if (n["wall_limit"]) run.wall_limit = r.positive(n["wall_limit"], "run.wall_limit");
    if (n["profile"]) run.profile = r.bool_value(n["profile"], "run.profile");
    if (n["deterministic"]) run.deterministic = r.bool_value(n["deterministic"], "run.deterministic");
    if (const YAML::Node b = n["bound_tolerance"]) {
      if (b.IsScalar() && b.Scalar() == "none")
        run.bound_tolerance.reset();
      else
        run.bound_tolerance = r.positive(b, "run.bound_tolerance", true);
    }
  }
  return run;
}

void read_output_options(const Reader& r, const YAML::Node& root, const PhysicsConfig& physics, std::string& dir,
                         OutputConfig& output) {
  const YAML::Node o = root["output"];
  if (!o) return;
  r.check_keys(o, "output", {"dir", "every", "fields", "integrals"});
  if (o["dir"]) dir = r.string_value(o["dir"], "output.dir");
  if (dir.empty()) r.fail(o["dir"], "output.dir", "empty path");
  if (o["every"]) output.every = parse_every(r, o["every"], "output.every", false);
  if (o["integrals"]) {
    if (!physics.is_flow())
      r.fail(o["integrals"], "output.integrals", "an option of the flow models",
             "integrals.csv holds the flow's kinetic energy and its dissipation rate");
    output.integrals = parse_every(r, o["integrals"], "output.integrals", false);
  }
  if (const YAML::Node f = o["fields"]) output.fields = parse_fields(r, f, physics);
}

CheckpointConfig read_checkpoint_options(const Reader& r, const YAML::Node& root) {
  CheckpointConfig checkpoint;
  if (const YAML::Node k = root["checkpoint"]) {
    r.check_keys(k, "checkpoint", {"every", "keep"});
    if (k["every"]) checkpoint.every = parse_every(r, k["every"], "checkpoint.every", true);
    if (k["keep"]) {
      const long long keep = r.int_value(k["keep"], "checkpoint.keep");
      if (keep < 1 || keep > 1000) r.fail(k["keep"], "checkpoint.keep", "must be between 1 and 1000");
      checkpoint.keep = static_cast<int>(keep);
    }
  }
  return checkpoint;
}

void add_run_options_yaml(const TimeConfig& time, const std::string& output_dir, const OutputConfig& output,
                          const CheckpointConfig& checkpoint, const RunConfig& run, bool flow, YAML::Node& n) {
  YAML::Node t;
  t["integrator"] = to_string(time.integrator);
  if (time.dt)
    t["dt"] = *time.dt;
  else
    t["cfl"] = time.cfl;
  if (time.end_time) t["end_time"] = *time.end_time;
  if (time.steps) t["steps"] = *time.steps;
  if (time.residual_tolerance) t["residual_tolerance"] = *time.residual_tolerance;
  if (flow && !time.dt) t["retries"] = time.retries;
  n["time"] = t;
  n["output"]["dir"] = output_dir;
  if (output.every.kind != EveryConfig::Kind::none) n["output"]["every"] = every_yaml(output.every);
  if (output.integrals.kind != EveryConfig::Kind::none) n["output"]["integrals"] = every_yaml(output.integrals);
  for (const auto& f : output.fields) n["output"]["fields"].push_back(f);
  if (checkpoint.every.kind != EveryConfig::Kind::none) n["checkpoint"]["every"] = every_yaml(checkpoint.every);
  n["checkpoint"]["keep"] = checkpoint.keep;
  if (run.wall_limit) n["run"]["wall_limit"] = *run.wall_limit;
  n["run"]["progress_interval"] = run.progress_interval;
  n["run"]["profile"] = run.profile;
  n["run"]["deterministic"] = run.deterministic;
  if (run.bound_tolerance)
    n["run"]["bound_tolerance"] = *run.bound_tolerance;
  else if (!flow)
    n["run"]["bound_tolerance"] = "none";
}

} // namespace fvproxy
