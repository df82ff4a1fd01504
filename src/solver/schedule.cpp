#include "solver/schedule.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/error.hpp"

namespace fvproxy {

namespace {

/// ceil(T / dt) steps, refused beyond kMaxSteps (also when T / dt overflows a long long).
long long count_steps(double T, double step, const std::string& key, const std::string& source_file) {
  const double n = std::ceil(T / step * (1 - 1e-12));
  if (!(n <= double(kMaxSteps)))
    throw InputError(source_file,
                     key + ": end_time / dt = " + std::to_string(T / step) + " steps, more than the " +
                         std::to_string(kMaxSteps) + " a run may have",
                     "dt = " + std::to_string(step) + "; use a larger time step or a shorter time.end_time");
  return std::max(1LL, static_cast<long long>(n));
}

[[noreturn]] void nothing_left(const std::string& file, const std::string& what, const std::string& hint = "") {
  throw InputError(file, what + ": nothing is left to run", hint);
}

void check_end_time_ahead(const TimeConfig& time, const RestartPoint& rp) {
  if (time.end_time && !(*time.end_time > rp.time))
    nothing_left(rp.file, "the checkpoint is at t = " + std::to_string(rp.time) +
                              ", not before time.end_time = " + std::to_string(*time.end_time));
}

void check_steps_ahead(const RestartPoint& rp, long long total_steps) {
  if (total_steps <= rp.step)
    nothing_left(rp.file, "the checkpoint is at step " + std::to_string(rp.step) +
                              ", the case's time.steps = " + std::to_string(total_steps));
}

/// A fixed schedule continued from a checkpoint: with the checkpoint's own steps when the case
/// still gives them (bitwise the same run), else the rest of the way to end_time split again.
void continue_fixed(Schedule& s, const TimeConfig& time, double cfl_dt, const RestartPoint& rp,
                    const std::string& source_file, const std::function<void(const std::string&)>& log) {
  const long long s0 = rp.step;
  if (rp.dt == s.dt && rp.total_steps == s.total_steps) {
    if (s0 >= s.total_steps)
      nothing_left(rp.file,
                   "the checkpoint is at step " + std::to_string(s0) + ", the case's last step (" +
                       std::to_string(s.total_steps) + ")",
                   "give a later time.end_time or more time.steps to continue");
  } else if (time.end_time) {
    const double T = *time.end_time;
    check_end_time_ahead(time, rp);
    const double step_limit = time.dt ? *time.dt : cfl_dt; // fixed or CFL step
    const long long n = count_steps(T - rp.time, step_limit, time.dt ? "time.dt" : "time.cfl", source_file);
    s.dt = (T - rp.time) / double(n);
    s.base_step = s0, s.base_time = rp.time, s.total_steps = s0 + n;
    if (log)
      log("restart: the case's time step differs from the checkpoint's (" + std::to_string(rp.dt) +
          "): the remaining time is split into " + std::to_string(n) + " new steps");
  } else {
    check_steps_ahead(rp, s.total_steps);
    s.base_step = s0, s.base_time = rp.time;
  }
}

/// k * T as the double nearest its 15-digit decimal (3 * 0.05 = 0.15000000000000002 becomes 0.15):
/// the output times a user wrote, not their round-off.
double decimal(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", x);
  const double d = std::strtod(buf, nullptr);
  return std::fabs(d - x) <= 1e-14 * std::fabs(x) ? d : x;
}

} // namespace

Schedule make_schedule(const TimeConfig& time, bool variable, double dt, double cfl_dt, const RestartPoint* restart,
                       const std::string& source_file, const std::function<void(const std::string&)>& log) {
  Schedule s;
  s.variable = variable;
  s.dt = dt;
  if (variable) {
    s.total_steps = time.steps ? *time.steps : 0; // toward an end_time: not known in advance
  } else if (time.end_time) {
    const double T = *time.end_time;
    s.total_steps = count_steps(T, dt, time.dt ? "time.dt" : "time.cfl", source_file);
    s.dt = T / double(s.total_steps);
  } else {
    s.total_steps = *time.steps;
  }
  if (!restart) return s;
  if (variable) {
    check_end_time_ahead(time, *restart);
    if (time.steps) check_steps_ahead(*restart, s.total_steps);
    s.base_step = restart->step, s.base_time = restart->time;
  } else {
    continue_fixed(s, time, cfl_dt, *restart, source_file, log);
  }
  s.first_step = restart->step + 1;
  return s;
}

bool crosses(const EveryConfig& e, long long s, double t0, double t1) {
  if (e.kind == EveryConfig::Kind::steps) return s % static_cast<long long>(e.value) == 0;
  if (e.kind == EveryConfig::Kind::time) return std::floor(t1 / e.value + 1e-9) > std::floor(t0 / e.value + 1e-9);
  return false;
}

double span_end(double t0, double stable_dt, std::initializer_list<const EveryConfig*> every,
                const std::optional<double>& end_time, bool& reaches_end) {
  double t1 = t0 + stable_dt;
  auto land = [&](double target) {
    const double gap = target - t0;
    if (!(gap > 0)) return false;
    if (gap <= stable_dt * (1 + 1e-12)) {
      t1 = std::min(t1, target);
      return t1 == target;
    }
    if (gap < 2 * stable_dt) t1 = std::min(t1, t0 + gap / 2);
    return false;
  };
  for (const EveryConfig* e : every)
    if (e->kind == EveryConfig::Kind::time) land(decimal((std::floor(t0 / e->value + 1e-9) + 1) * e->value));
  reaches_end = end_time && land(*end_time);
  return t1;
}

} // namespace fvproxy
