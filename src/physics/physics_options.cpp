// The `physics`, `initial` and `boundary` sections: what the model is, where it starts, what its
// boundaries do (docs/inputs.md, docs/physics.md).
#include "physics/physics_options.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/config.hpp"
#include "core/config_reader.hpp"
#include "core/types.hpp"

namespace fvproxy {

using detail::flow_style;
using detail::join_list;
using detail::Reader;

const char* to_string(VelocityType v) {
  return v == VelocityType::uniform ? "uniform" : "rotation";
}
const char* to_string(InitialType t) {
  switch (t) {
  case InitialType::constant: return "constant";
  case InitialType::gaussian: return "gaussian";
  case InitialType::sine: return "sine";
  case InitialType::sphere: return "sphere";
  }
  return "?";
}
const char* to_string(BoundaryType t) {
  return t == BoundaryType::dirichlet ? "dirichlet" : t == BoundaryType::outflow ? "outflow" : "inflow";
}
const char* to_string(PhysicsModel m) {
  return m == PhysicsModel::scalar ? "scalar" : m == PhysicsModel::euler ? "euler" : "navier-stokes";
}
const char* to_string(FlowInitialType t) {
  switch (t) {
  case FlowInitialType::uniform: return "uniform";
  case FlowInitialType::riemann: return "riemann";
  case FlowInitialType::isentropic_vortex: return "isentropic-vortex";
  case FlowInitialType::taylor_green: return "taylor-green";
  case FlowInitialType::acoustic_pulse: return "acoustic-pulse";
  }
  return "?";
}
const char* to_string(FlowBoundaryKind k) {
  switch (k) {
  case FlowBoundaryKind::slip_wall: return "slip-wall";
  case FlowBoundaryKind::symmetry: return "symmetry";
  case FlowBoundaryKind::supersonic_inflow: return "supersonic-inflow";
  case FlowBoundaryKind::supersonic_outflow: return "supersonic-outflow";
  case FlowBoundaryKind::farfield: return "farfield";
  case FlowBoundaryKind::no_slip_wall: return "no-slip-wall";
  case FlowBoundaryKind::subsonic_inflow: return "subsonic-inflow";
  case FlowBoundaryKind::subsonic_outflow: return "subsonic-outflow";
  case FlowBoundaryKind::velocity_inlet: return "velocity-inlet";
  case FlowBoundaryKind::mass_flow_inlet: return "mass-flow-inlet";
  }
  return "?";
}

std::vector<FieldLayout> output_field_layout(const PhysicsConfig& p) {
  if (p.is_flow())
    return {{"density", 0, 1},  {"momentum", 1, 3}, {"total_energy", 4, 1},
            {"velocity", 5, 3}, {"pressure", 8, 1}, {"temperature", 9, 1}};
  std::vector<FieldLayout> l;
  for (int k = 0; k < p.components; ++k) l.push_back({"u" + std::to_string(k), k, 1});
  return l;
}

std::vector<FieldLayout> checkpoint_field_layout(const PhysicsConfig& p, bool non_reflecting) {
  if (!p.is_flow()) return output_field_layout(p);
  std::vector<FieldLayout> l{{"density", 0, 1}, {"momentum", 1, 3}, {"total_energy", 4, 1}};
  // Scalars (field files hold widths 1 and 3), named so that they sort after the state's: a file's
  // fields are read back in name order.
  for (int k = 0; non_reflecting && k < kBoundarySlots; ++k)
    l.push_back({"w_nonreflecting_" + std::to_string(k), 5 + k, 1});
  for (int k = 0; non_reflecting && k < kBoundarySlots; ++k)
    l.push_back({"z_nonreflecting_" + std::to_string(k), 5 + kBoundarySlots + k, 1});
  return l;
}

bool any_non_reflecting(const std::vector<FlowBoundaryConfig>& boundaries) {
  for (const FlowBoundaryConfig& b : boundaries)
    if (b.non_reflecting) return true;
  return false;
}

namespace {

std::string g(double v) {
  std::ostringstream o;
  o.precision(6);
  o << v;
  return o.str();
}

/// The range of kStateMin..kStateMax in words, for messages.
std::string state_range_text() {
  return "(" + g(kStateMin) + " to " + g(kStateMax) + " in this build's " + (sizeof(real) == 8 ? "double" : "float") +
         " arithmetic)";
}

/// A positive value of a state (a density, pressure, temperature, the gas constant) at `n` within
/// kStateMin..kStateMax; else refused naming `path`.
void check_value_range(const Reader& r, const YAML::Node& n, const std::string& path, double v) {
  if (!(v >= kStateMin && v <= kStateMax))
    r.fail(n, path, g(v) + " is outside the range a state's values may take", state_range_text());
}

/// A quantity `what` = `v` computed from the value at `n` (path) within kStateMin..kStateMax; else
/// refused naming `path` and the formula.
void check_derived_range(const Reader& r, const YAML::Node& n, const std::string& path, const std::string& what,
                         double v) {
  if (!(v >= kStateMin && v <= kStateMax))
    r.fail(n, path, what + " = " + g(v) + " is outside the range a state's values may take", state_range_text());
}

/// physics.gamma, gas_constant (both flow models), viscosity and prandtl (navier-stokes).
void parse_flow_physics(const Reader& r, const YAML::Node& n, PhysicsConfig& p) {
  const bool ns = p.model == PhysicsModel::navier_stokes;
  std::vector<std::string> keys{"model", "gamma", "gas_constant"};
  if (ns) keys.insert(keys.end(), {"viscosity", "prandtl"});
  for (const char* k : {"components", "velocity", "diffusivity"})
    if (n[k])
      r.fail(n[k], std::string("physics.") + k, std::string("'") + k + "' is a key of the scalar model",
             std::string("the ") + to_string(p.model) + " model carries density, momentum and total energy " +
                 "(physics.gamma, gas_constant" + (ns ? ", viscosity, prandtl" : "") + ")");
  if (!ns)
    for (const char* k : {"viscosity", "prandtl"})
      if (n[k])
        r.fail(n[k], std::string("physics.") + k, std::string("'") + k + "' is a key of the navier-stokes model",
               "the euler model is inviscid; use model: navier-stokes");
  r.check_keys(n, "physics", keys);
  p.components = 5;
  FlowPhysicsConfig& f = p.flow;
  if (n["gamma"]) {
    f.gamma = r.positive(n["gamma"], "physics.gamma");
    if (!(f.gamma > 1)) r.fail(n["gamma"], "physics.gamma", "must be > 1 (the ratio of specific heats)");
  }
  if (n["gas_constant"]) {
    f.gas_constant = r.positive(n["gas_constant"], "physics.gas_constant");
    check_value_range(r, n["gas_constant"], "physics.gas_constant", f.gas_constant);
  }
  if (!ns) return;
  if (n["prandtl"]) f.prandtl = r.positive(n["prandtl"], "physics.prandtl");
  const YAML::Node v = n["viscosity"];
  if (!v)
    r.fail(n, "physics.viscosity", "required key missing for model: navier-stokes",
           "{type: constant, value: MU} or {type: sutherland, mu_ref: .., t_ref: .., s: ..}");
  r.require_map(v, "physics.viscosity");
  if (!v["type"]) r.fail(v, "physics.viscosity.type", "required key missing", "constant | sutherland");
  const std::string t = r.string_value(v["type"], "physics.viscosity.type");
  if (t == "constant") {
    r.check_keys(v, "physics.viscosity", {"type", "value"});
    if (!v["value"]) r.fail(v, "physics.viscosity.value", "required key missing", "the dynamic viscosity mu");
    f.viscosity = FlowPhysicsConfig::Viscosity::constant;
    f.mu = r.positive(v["value"], "physics.viscosity.value");
  } else if (t == "sutherland") {
    r.check_keys(v, "physics.viscosity", {"type", "mu_ref", "t_ref", "s"});
    f.viscosity = FlowPhysicsConfig::Viscosity::sutherland;
    if (v["mu_ref"]) f.mu_ref = r.positive(v["mu_ref"], "physics.viscosity.mu_ref");
    if (v["t_ref"]) f.t_ref = r.positive(v["t_ref"], "physics.viscosity.t_ref");
    if (v["s"]) f.s = r.positive(v["s"], "physics.viscosity.s", true);
  } else {
    const std::string best = closest_key(t, {"constant", "sutherland"});
    r.fail(v["type"], "physics.viscosity.type",
           "invalid value '" + t + "'" + (best.empty() ? "" : "; did you mean '" + best + "'?"),
           "valid values: constant | sutherland");
  }
}

/// The vector at `n` scaled to unit length: any finite non-zero vector, however small or large its
/// components (scaled by the largest first, so that the length neither underflows nor overflows).
std::array<double, 3> unit_vector(const Reader& r, const YAML::Node& n, const std::string& path, const char* what) {
  std::array<double, 3> v = r.vec3(n, path);
  const double m = std::max({std::abs(v[0]), std::abs(v[1]), std::abs(v[2])});
  if (!(m > 0)) r.fail(n, path, "must not be the zero vector", std::string("it gives ") + what);
  for (double& x : v) x /= m;
  const double len = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  for (double& x : v) x /= len;
  return v;
}

FlowStateConfig parse_flow_state(const Reader& r, const YAML::Node& n, const std::string& path) {
  r.check_keys(n, path, {"density", "velocity", "pressure"});
  for (const char* k : {"density", "velocity", "pressure"})
    if (!n[k]) r.fail(n, path + "." + k, "required key missing", "a state is {density, velocity: [u, v, w], pressure}");
  FlowStateConfig s;
  s.density = r.positive(n["density"], path + ".density");
  s.velocity = r.vec3(n["velocity"], path + ".velocity");
  s.pressure = r.positive(n["pressure"], path + ".pressure");
  return s;
}

/// Extreme but finite values of a flow state `n` (density, velocity, pressure at path) are refused
/// naming the key that takes the state out of the range the solver computes in (`velocity_key`:
/// the key the velocity comes from, e.g. a Taylor-Green vortex's `speed`).
void check_flow_state_range(const Reader& r, const YAML::Node& n, const std::string& path, const FlowStateConfig& s,
                            double gamma, const char* velocity_key = "velocity") {
  const std::string range = state_range_text();
  check_value_range(r, n["density"], path + ".density", s.density);
  check_value_range(r, n["pressure"], path + ".pressure", s.pressure);
  const double uu = s.velocity[0] * s.velocity[0] + s.velocity[1] * s.velocity[1] + s.velocity[2] * s.velocity[2];
  const double speed = std::hypot(std::hypot(s.velocity[0], s.velocity[1]), s.velocity[2]);
  const double kinetic = 0.5 * s.density * uu, internal = s.pressure / (gamma - 1);
  const double c2 = gamma * s.pressure / s.density;
  const double energy_flux = (kinetic + internal + s.pressure) * std::sqrt(uu);
  if (!(kinetic <= kStateMax && s.density * uu <= kStateMax && energy_flux <= kStateMax && uu <= kStateMax))
    r.fail(n[velocity_key], path + "." + velocity_key,
           "|u| = " + g(speed) + " gives a kinetic energy or energy flux outside the range a state may take",
           "rho |u|^2 / 2 = " + g(kinetic) + " " + range);
  if (!(internal + kinetic <= kStateMax))
    r.fail(n["pressure"], path + ".pressure",
           "the total energy p / (gamma - 1) + rho |u|^2 / 2 = " + g(internal + kinetic) + " is outside the range",
           range);
  if (!(c2 <= kStateMax))
    r.fail(n["density"], path + ".density",
           "the sound speed squared gamma p / rho = " + g(c2) +
               " is outside the range: the density is too small "
               "for the pressure " +
               g(s.pressure),
           range);
}

/// The temperatures T = p / (rho R) of the initial condition's states (its reference states).
std::vector<double> initial_temperatures(const FlowInitialConfig& ic, const FlowPhysicsConfig& f) {
  std::vector<double> temperatures;
  auto add = [&](double p, double rho) { temperatures.push_back(p / rho / f.gas_constant); };
  switch (ic.type) {
  case FlowInitialType::uniform:
  case FlowInitialType::acoustic_pulse: add(ic.state.pressure, ic.state.density); break;
  case FlowInitialType::riemann:
    add(ic.left.pressure, ic.left.density), add(ic.right.pressure, ic.right.density);
    break;
  case FlowInitialType::taylor_green: add(ic.pressure, ic.density); break;
  case FlowInitialType::isentropic_vortex: add(1, 1); break;
  }
  return temperatures;
}

/// Sutherland's viscosity at the initial temperatures (T = p / (rho R)): a reference temperature
/// or viscosity far out of scale makes mu overflow (named: t_ref or mu_ref).
void check_sutherland_at_initial(const Reader& r, const FlowInitialConfig& ic, const FlowPhysicsConfig& f,
                                 const YAML::Node& viscosity) {
  if (!viscosity || f.viscosity != FlowPhysicsConfig::Viscosity::sutherland) return;
  for (double T : initial_temperatures(ic, f)) {
    const double ratio = std::pow(T / f.t_ref, 1.5), mu = f.mu_ref * ratio * (f.t_ref + f.s) / (T + f.s);
    if (mu > 0 && mu <= kStateMax) continue;
    const bool t_ref = !(ratio > kStateMin && ratio < kStateMax);
    const char* key = t_ref ? "t_ref" : "mu_ref";
    r.fail(viscosity[key] ? viscosity[key] : viscosity, std::string("physics.viscosity.") + key,
           "Sutherland's law gives mu = " + g(mu) + " at the initial temperature T = " + g(T) +
               " (mu_ref (T / t_ref)^1.5 (t_ref + s) / (T + s), t_ref = " + g(f.t_ref) + ", mu_ref = " + g(f.mu_ref) +
               ")",
           "the solver's viscous step needs a finite mu: give t_ref and mu_ref on the scale of the flow's "
           "temperatures (air: t_ref 273.15 K, mu_ref 1.716e-5 Pa s)");
  }
}

/// What the initial condition's formulas make of its parameters, checked before the mesh is built:
/// a Riemann pair that opens a vacuum, a Taylor-Green pressure or an isentropic vortex strength
/// that makes the pressure or temperature negative somewhere, states out of range.
void check_flow_initial(const Reader& r, const YAML::Node& init, const FlowInitialConfig& ic,
                        const FlowPhysicsConfig& f, const YAML::Node& physics) {
  const YAML::Node e = init.IsSequence() && init.size() == 1 ? init[0] : init;
  const std::string path = init.IsSequence() ? "initial[0]" : "initial";
  const double gamma = f.gamma;
  const YAML::Node none(YAML::NodeType::Undefined);
  check_sutherland_at_initial(r, ic, f, physics ? physics["viscosity"] : none);
  switch (ic.type) {
  case FlowInitialType::uniform:
  case FlowInitialType::acoustic_pulse: check_flow_state_range(r, e, path, ic.state, gamma); break;
  case FlowInitialType::riemann: {
    check_flow_state_range(r, e["left"], path + ".left", ic.left, gamma);
    check_flow_state_range(r, e["right"], path + ".right", ic.right, gamma);
    // Two rarefactions that open a vacuum: the exact solution has no star region (Toro, 4.6).
    auto un = [&](const FlowStateConfig& s) {
      return s.velocity[0] * ic.normal[0] + s.velocity[1] * ic.normal[1] + s.velocity[2] * ic.normal[2];
    };
    const double cl = std::sqrt(gamma * ic.left.pressure / ic.left.density);
    const double cr = std::sqrt(gamma * ic.right.pressure / ic.right.density);
    const double du = un(ic.right) - un(ic.left);
    if (2 / (gamma - 1) * (cl + cr) <= du)
      throw InputError(
          r.src().locate(e["left"], path + ".left"),
          path + ".left, " + path + ".right: the two states separate into a vacuum: u_R - u_L = " + g(du) +
              " along the normal is at least 2 (c_L + c_R) / (gamma - 1) = " + g(2 / (gamma - 1) * (cl + cr)),
          path + ".right is at " + r.src().locate(e["right"], path + ".right") +
              "; the exact solution has no star region: bring the velocities closer or raise the "
              "pressures");
    break;
  }
  case FlowInitialType::taylor_green: {
    // The fastest point's state first: a speed out of range is the speed's fault, not the pressure's.
    FlowStateConfig peak{ic.density, {ic.speed, ic.speed, 0.0}, ic.pressure};
    check_flow_state_range(r, e, path, peak, gamma, "speed");
    // p = p0 + rho0 V0^2 / 16 (cos 2x + cos 2y)(cos 2z + 2): at its lowest p0 - 3 rho0 V0^2 / 8.
    const double lowest = ic.pressure - 0.375 * ic.density * ic.speed * ic.speed;
    if (!(lowest > 0)) {
      const YAML::Node p = e["pressure"] ? e["pressure"] : e;
      r.fail(p, path + ".pressure",
             "the vortex's pressure p0 - 3 rho0 V0^2 / 8 = " + g(lowest) + " is not positive where it is lowest",
             "p0 must exceed " + g(0.375 * ic.density * ic.speed * ic.speed) + " (rho0 = " + g(ic.density) +
                 ", V0 = " + g(ic.speed) + "; the benchmark's Mach 0.1 is p0 = rho0 V0^2 / (gamma 0.01))");
    }
    break;
  }
  case FlowInitialType::isentropic_vortex: {
    // T = 1 - (gamma - 1) beta^2 / (8 gamma pi^2) exp(1 - r^2), lowest at the centre (r = 0).
    const double pi = 3.14159265358979323846;
    const double centre = 1 - (gamma - 1) * ic.beta * ic.beta * std::exp(1.0) / (8 * gamma * pi * pi);
    if (!(centre > 0)) {
      const double largest = std::sqrt(8 * gamma * pi * pi / ((gamma - 1) * std::exp(1.0)));
      r.fail(e["beta"], path + ".beta",
             "the vortex's temperature at its centre, 1 - (gamma - 1) beta^2 e / (8 gamma pi^2) = " + g(centre) +
                 ", is not positive",
             "beta must be below " + g(largest) + " for gamma = " + g(gamma) + " (the usual strength is 5)");
    }
    FlowStateConfig stream{1, ic.velocity, 1};
    check_flow_state_range(r, e, path, stream, gamma);
    break;
  }
  }
}

/// The initial states' temperatures T = p / (rho R) within range (after the states' own checks): a
/// gas constant far out of scale makes them overflow or vanish. Named: physics.gas_constant where it
/// was given, else the initial condition.
void check_initial_temperatures(const Reader& r, const YAML::Node& init, const FlowInitialConfig& ic,
                                const FlowPhysicsConfig& f, const YAML::Node& physics) {
  const bool given = physics && physics["gas_constant"];
  for (double T : initial_temperatures(ic, f))
    check_derived_range(r, given ? physics["gas_constant"] : init, given ? "physics.gas_constant" : "initial",
                        "the initial temperature p / (rho R) with R = " + g(f.gas_constant), T);
}

VelocityProfileConfig parse_velocity_profile(const Reader& r, const YAML::Node& n, const std::string& path);

FlowInitialConfig parse_flow_initial(const Reader& r, const YAML::Node& init, bool box) {
  // One mapping (a list of one entry is accepted too).
  const YAML::Node e = init.IsSequence() && init.size() == 1 ? init[0] : init;
  const std::string path = init.IsSequence() ? "initial[0]" : "initial";
  if (!e.IsMap())
    r.fail(init, "initial", "expected one mapping for the flow models",
           "{type: uniform | riemann | isentropic-vortex | taylor-green | acoustic-pulse, ...}");
  FlowInitialConfig ic;
  if (!e["type"])
    r.fail(e, path + ".type", "required key missing",
           "uniform | riemann | isentropic-vortex | taylor-green | acoustic-pulse");
  ic.type = r.enum_value(e["type"], path + ".type",
                         std::vector<FlowInitialType>{FlowInitialType::uniform, FlowInitialType::riemann,
                                                      FlowInitialType::isentropic_vortex, FlowInitialType::taylor_green,
                                                      FlowInitialType::acoustic_pulse});
  auto need = [&](const char* k) {
    if (!e[k]) r.fail(e, path + "." + k, "required key missing", std::string("for type: ") + to_string(ic.type));
    return e[k];
  };
  switch (ic.type) {
  case FlowInitialType::uniform: {
    r.check_keys(e, path, {"type", "density", "velocity", "pressure", "profile"});
    for (const char* k : {"density", "velocity", "pressure"}) need(k);
    ic.state.density = r.positive(e["density"], path + ".density");
    ic.state.velocity = r.vec3(e["velocity"], path + ".velocity");
    ic.state.pressure = r.positive(e["pressure"], path + ".pressure");
    if (e["profile"]) ic.profile = parse_velocity_profile(r, e["profile"], path + ".profile");
    break;
  }
  case FlowInitialType::riemann: {
    r.check_keys(e, path, {"type", "normal", "position", "left", "right"});
    ic.normal = unit_vector(r, need("normal"), path + ".normal", "the normal of the plane between the states");
    ic.position = r.real_value(need("position"), path + ".position");
    ic.left = parse_flow_state(r, need("left"), path + ".left");
    ic.right = parse_flow_state(r, need("right"), path + ".right");
    break;
  }
  case FlowInitialType::isentropic_vortex:
    r.check_keys(e, path, {"type", "center", "beta", "velocity"});
    if (e["center"]) ic.center = r.vec3(e["center"], path + ".center");
    if (e["beta"]) ic.beta = r.positive(e["beta"], path + ".beta");
    if (e["velocity"]) ic.velocity = r.vec3(e["velocity"], path + ".velocity");
    if (!box)
      r.fail(e["type"], path + ".type", "the isentropic vortex needs a generated box (mesh.generate)",
             "its exact solution wraps around the box's periodic x and y");
    break;
  case FlowInitialType::acoustic_pulse: {
    r.check_keys(e, path, {"type", "density", "velocity", "pressure", "normal", "position", "width", "amplitude"});
    for (const char* k : {"density", "velocity", "pressure", "normal", "position", "width", "amplitude"}) need(k);
    ic.state.density = r.positive(e["density"], path + ".density");
    ic.state.velocity = r.vec3(e["velocity"], path + ".velocity");
    ic.state.pressure = r.positive(e["pressure"], path + ".pressure");
    ic.normal = unit_vector(r, e["normal"], path + ".normal", "the direction the pulse runs along");
    ic.position = r.real_value(e["position"], path + ".position");
    ic.width = r.positive(e["width"], path + ".width");
    ic.amplitude = r.real_value(e["amplitude"], path + ".amplitude");
    if (!(std::fabs(ic.amplitude) > 0 && std::fabs(ic.amplitude) <= 0.1))
      r.fail(e["amplitude"], path + ".amplitude", "must satisfy 0 < |amplitude| <= 0.1, not " + g(ic.amplitude),
             "the pulse is a linear acoustic wave: its pressure p' = amplitude p exp(-(s / width)^2), a small "
             "fraction of the mean pressure");
    break;
  }
  case FlowInitialType::taylor_green:
    r.check_keys(e, path, {"type", "length", "speed", "density", "pressure"});
    if (e["length"]) ic.length = r.positive(e["length"], path + ".length");
    if (e["speed"]) ic.speed = r.positive(e["speed"], path + ".speed");
    if (e["density"]) ic.density = r.positive(e["density"], path + ".density");
    if (e["pressure"]) ic.pressure = r.positive(e["pressure"], path + ".pressure");
    break;
  }
  return ic;
}

/// A boundary entry's keys: only `allowed`, each of `required` present (else refused with `takes`,
/// what the type takes).
void check_entry_keys(const Reader& r, const YAML::Node& e, const std::string& path,
                      const std::vector<std::string>& allowed, const std::vector<const char*>& required,
                      const std::string& takes) {
  r.check_keys(e, path, allowed);
  for (const char* k : required)
    if (!e[k]) r.fail(e, path + "." + k, "required key missing", takes);
}

/// boundary.NAME.non_reflecting of a subsonic inflow or outflow: {length, sigma (optional: 0.25)}
/// (docs/physics.md#non-reflecting-subsonic-boundaries).
void parse_non_reflecting(const Reader& r, const YAML::Node& e, const std::string& path, FlowBoundaryConfig& bc) {
  if (!e["non_reflecting"]) return;
  const YAML::Node n = e["non_reflecting"];
  const std::string at = path + ".non_reflecting";
  r.require_map(n, at);
  check_entry_keys(r, n, at, {"length", "sigma"}, {"length"},
                   "non_reflecting takes {length (the domain's length L in the relaxation rate sigma c (1 - M^2) / L), "
                   "sigma (optional: 0.25)}");
  bc.non_reflecting = true;
  bc.nr_length = r.positive(n["length"], at + ".length");
  check_value_range(r, n["length"], at + ".length", bc.nr_length);
  if (n["sigma"]) {
    bc.nr_sigma = r.real_value(n["sigma"], at + ".sigma");
    if (!(bc.nr_sigma > 0 && bc.nr_sigma <= 1))
      r.fail(n["sigma"], at + ".sigma", "must satisfy 0 < sigma <= 1, not " + g(bc.nr_sigma),
             "the relaxation toward the imposed values: 0.25 (the default) is Rudy and Strikwerda's near-optimal "
             "choice; at 0 nothing would be imposed and the mean state would drift");
  }
}

/// boundary.NAME of type subsonic-inflow: total pressure and temperature, optional direction.
void parse_subsonic_inflow(const Reader& r, const YAML::Node& e, const std::string& path, const FlowPhysicsConfig& f,
                           FlowBoundaryConfig& bc) {
  check_entry_keys(r, e, path, {"type", "total_pressure", "total_temperature", "direction", "non_reflecting"},
                   {"total_pressure", "total_temperature"},
                   "type: subsonic-inflow takes {total_pressure, total_temperature, direction (optional: normal to the "
                   "face), non_reflecting (optional)}");
  parse_non_reflecting(r, e, path, bc);
  bc.total_pressure = r.positive(e["total_pressure"], path + ".total_pressure");
  bc.total_temperature = r.positive(e["total_temperature"], path + ".total_temperature");
  check_value_range(r, e["total_pressure"], path + ".total_pressure", bc.total_pressure);
  check_value_range(r, e["total_temperature"], path + ".total_temperature", bc.total_temperature);
  // The stagnation sound speed squared and density the inflow computes with (physics.gas_constant R).
  check_derived_range(r, e["total_temperature"], path + ".total_temperature",
                      "the stagnation sound speed squared gamma R T0 (R = " + g(f.gas_constant) + ")",
                      f.gamma * f.gas_constant * bc.total_temperature);
  check_derived_range(r, e["total_pressure"], path + ".total_pressure",
                      "the stagnation density p0 / (R T0) (R = " + g(f.gas_constant) + ")",
                      bc.total_pressure / f.gas_constant / bc.total_temperature);
  if (e["direction"]) {
    bc.direction = unit_vector(r, e["direction"], path + ".direction", "the flow's direction into the domain");
    bc.direction_where = r.src().locate(e["direction"], path + ".direction");
  }
}

/// A velocity's `profile` at `n` (path): {type: uniform} or {type: parabolic, normal, from, to}.
VelocityProfileConfig parse_velocity_profile(const Reader& r, const YAML::Node& n, const std::string& path) {
  r.require_map(n, path);
  VelocityProfileConfig p;
  p.where = r.src().locate(n, path);
  if (!n["type"]) r.fail(n, path + ".type", "required key missing", "uniform | parabolic");
  const std::string t = r.string_value(n["type"], path + ".type");
  if (t == "uniform") {
    r.check_keys(n, path, {"type"});
    return p;
  }
  if (t != "parabolic") {
    const std::string best = closest_key(t, {"uniform", "parabolic"});
    r.fail(n["type"], path + ".type",
           "invalid value '" + t + "'" + (best.empty() ? "" : "; did you mean '" + best + "'?"),
           "valid values: uniform | parabolic");
  }
  r.check_keys(n, path, {"type", "normal", "from", "to"});
  for (const char* k : {"normal", "from", "to"})
    if (!n[k])
      r.fail(n, path + "." + k, "required key missing",
             "type: parabolic takes {normal, from, to}: the channel's walls at x . normal = from and to");
  p.parabolic = true;
  p.normal = unit_vector(r, n["normal"], path + ".normal", "the direction across the channel");
  p.from = r.real_value(n["from"], path + ".from");
  p.to = r.real_value(n["to"], path + ".to");
  if (!(std::isfinite(p.to - p.from) && std::abs(p.to - p.from) > 1e-12 * std::max(std::abs(p.from), std::abs(p.to))))
    r.fail(n["to"], path + ".to", "the channel from " + g(p.from) + " to " + g(p.to) + " has no width",
           "from and to are the positions of the channel's two walls along normal");
  return p;
}

/// A velocity vector at `n` (path) whose kinetic energy per unit density |v|^2 stays within range.
void check_speed_range(const Reader& r, const YAML::Node& n, const std::string& path, const std::array<double, 3>& v) {
  const double speed = std::hypot(std::hypot(v[0], v[1]), v[2]);
  if (!(speed * speed <= kStateMax))
    r.fail(n, path, "|v| = " + g(speed) + " gives a kinetic energy outside the range a state may take",
           "|v|^2 must stay below " + g(kStateMax) + " " + state_range_text());
}

/// A static temperature at `e[key]` (path) within range, with R T (the pressure per unit density).
double parse_temperature(const Reader& r, const YAML::Node& e, const std::string& path, const FlowPhysicsConfig& f) {
  const double t = r.positive(e["temperature"], path + ".temperature");
  check_value_range(r, e["temperature"], path + ".temperature", t);
  check_derived_range(r, e["temperature"], path + ".temperature",
                      "R T (the pressure per unit density, R = " + g(f.gas_constant) + ")", f.gas_constant * t);
  return t;
}

/// boundary.NAME of type velocity-inlet: velocity, temperature, optional profile.
void parse_velocity_inlet(const Reader& r, const YAML::Node& e, const std::string& path, const FlowPhysicsConfig& f,
                          FlowBoundaryConfig& bc) {
  check_entry_keys(r, e, path, {"type", "velocity", "temperature", "profile"}, {"velocity", "temperature"},
                   "type: velocity-inlet takes {velocity (into the domain; parabolic: the centre line's), temperature "
                   "(the static one), profile (optional: uniform)}");
  bc.inlet_velocity = r.vec3(e["velocity"], path + ".velocity");
  bc.velocity_where = r.src().locate(e["velocity"], path + ".velocity");
  const auto& v = bc.inlet_velocity;
  if (!(std::max({std::abs(v[0]), std::abs(v[1]), std::abs(v[2])}) > 0))
    r.fail(e["velocity"], path + ".velocity", "must not be the zero vector",
           "an inlet's velocity enters the domain (a boundary at rest is a wall: no-slip-wall or slip-wall)");
  check_speed_range(r, e["velocity"], path + ".velocity", v);
  bc.temperature = parse_temperature(r, e, path, f);
  if (e["profile"]) bc.profile = parse_velocity_profile(r, e["profile"], path + ".profile");
}

/// boundary.NAME of type mass-flow-inlet: mass_flow, temperature, optional direction.
void parse_mass_flow_inlet(const Reader& r, const YAML::Node& e, const std::string& path, const FlowPhysicsConfig& f,
                           FlowBoundaryConfig& bc) {
  check_entry_keys(r, e, path, {"type", "mass_flow", "temperature", "direction"}, {"mass_flow", "temperature"},
                   "type: mass-flow-inlet takes {mass_flow (through the whole patch, mass per time), temperature (the "
                   "static one), direction (optional: normal to the face)}");
  bc.mass_flow = r.positive(e["mass_flow"], path + ".mass_flow");
  check_value_range(r, e["mass_flow"], path + ".mass_flow", bc.mass_flow);
  bc.temperature = parse_temperature(r, e, path, f);
  if (e["direction"]) {
    bc.direction = unit_vector(r, e["direction"], path + ".direction", "the flow's direction into the domain");
    bc.direction_where = r.src().locate(e["direction"], path + ".direction");
  }
}

/// boundary.NAME of type no-slip-wall (navier-stokes only): optional velocity and temperature.
void parse_no_slip_wall(const Reader& r, const YAML::Node& e, const std::string& path, PhysicsModel model,
                        const FlowPhysicsConfig& f, FlowBoundaryConfig& bc) {
  if (model != PhysicsModel::navier_stokes)
    r.fail(e["type"], path + ".type", "a no-slip wall needs a viscous model",
           "use slip-wall with model: euler, or model: navier-stokes");
  r.check_keys(e, path, {"type", "velocity", "temperature"});
  if (e["velocity"]) {
    bc.wall_velocity = r.vec3(e["velocity"], path + ".velocity");
    bc.velocity_where = r.src().locate(e["velocity"], path + ".velocity");
    // |v|^2 (the wall's kinetic energy per unit density) within range, computed without overflow
    check_speed_range(r, e["velocity"], path + ".velocity", bc.wall_velocity);
  }
  if (e["temperature"]) bc.wall_temperature = parse_temperature(r, e, path, f);
}

FlowBoundaryConfig parse_flow_boundary(const Reader& r, const YAML::Node& e, const std::string& path,
                                       PhysicsModel model, const FlowPhysicsConfig& f) {
  const double gamma = f.gamma;
  FlowBoundaryConfig bc;
  if (!e["type"])
    r.fail(e, path + ".type", "required key missing",
           "slip-wall | no-slip-wall | supersonic-inflow | supersonic-outflow | subsonic-inflow | subsonic-outflow | "
           "velocity-inlet | mass-flow-inlet | farfield | symmetry");
  bc.kind =
      r.enum_value(e["type"], path + ".type",
                   std::vector<FlowBoundaryKind>{
                       FlowBoundaryKind::slip_wall, FlowBoundaryKind::no_slip_wall, FlowBoundaryKind::supersonic_inflow,
                       FlowBoundaryKind::supersonic_outflow, FlowBoundaryKind::subsonic_inflow,
                       FlowBoundaryKind::subsonic_outflow, FlowBoundaryKind::velocity_inlet,
                       FlowBoundaryKind::mass_flow_inlet, FlowBoundaryKind::farfield, FlowBoundaryKind::symmetry});
  switch (bc.kind) {
  case FlowBoundaryKind::subsonic_inflow: parse_subsonic_inflow(r, e, path, f, bc); break;
  case FlowBoundaryKind::velocity_inlet: parse_velocity_inlet(r, e, path, f, bc); break;
  case FlowBoundaryKind::mass_flow_inlet: parse_mass_flow_inlet(r, e, path, f, bc); break;
  case FlowBoundaryKind::subsonic_outflow:
    check_entry_keys(r, e, path, {"type", "pressure", "non_reflecting"}, {"pressure"},
                     "type: subsonic-outflow takes {pressure (the static pressure), non_reflecting (optional)}");
    parse_non_reflecting(r, e, path, bc);
    bc.pressure = r.positive(e["pressure"], path + ".pressure");
    check_value_range(r, e["pressure"], path + ".pressure", bc.pressure);
    break;
  case FlowBoundaryKind::supersonic_inflow:
  case FlowBoundaryKind::farfield: {
    r.check_keys(e, path, {"type", "density", "velocity", "pressure"});
    for (const char* k : {"density", "velocity", "pressure"})
      if (!e[k])
        r.fail(e, path + "." + k, "required key missing",
               std::string("type: ") + to_string(bc.kind) + " takes the outside state {density, velocity, pressure}");
    bc.state.density = r.positive(e["density"], path + ".density");
    bc.state.velocity = r.vec3(e["velocity"], path + ".velocity");
    bc.state.pressure = r.positive(e["pressure"], path + ".pressure");
    check_flow_state_range(r, e, path, bc.state, gamma);
    break;
  }
  case FlowBoundaryKind::no_slip_wall: parse_no_slip_wall(r, e, path, model, f, bc); break;
  default: r.check_keys(e, path, {"type"});
  }
  return bc;
}

PhysicsConfig parse_physics(const Reader& r, const YAML::Node& root) {
  PhysicsConfig p;
  const YAML::Node n = root["physics"];
  if (!n) {
    p.diffusivity.assign(1, 0.0);
    return p;
  }
  if (n["model"])
    p.model =
        r.enum_value(n["model"], "physics.model",
                     std::vector<PhysicsModel>{PhysicsModel::scalar, PhysicsModel::euler, PhysicsModel::navier_stokes});
  if (p.is_flow()) {
    parse_flow_physics(r, n, p);
    return p;
  }
  r.check_keys(n, "physics", {"model", "components", "velocity", "diffusivity"});
  if (n["components"]) {
    const long long c = r.int_value(n["components"], "physics.components");
    const auto& list = component_list();
    if (std::find(list.begin(), list.end(), c) == list.end()) {
      std::vector<std::string> names;
      for (int x : list) names.push_back(std::to_string(x));
      r.fail(n["components"], "physics.components",
             std::to_string(c) + " is not among this build's component counts {" + join_list(names) + "}",
             "(rebuild with -DFVPROXY_COMPONENTS=\"...;" + std::to_string(c) + "\" to add it)");
    }
    p.components = static_cast<int>(c);
  }
  if (const YAML::Node v = n["velocity"]) {
    const std::string path = "physics.velocity";
    r.require_map(v, path);
    if (!v["type"]) r.fail(v, path + ".type", "required key missing", "uniform | rotation");
    p.velocity.type = r.enum_value(v["type"], path + ".type",
                                   std::vector<VelocityType>{VelocityType::uniform, VelocityType::rotation});
    if (p.velocity.type == VelocityType::uniform) {
      r.check_keys(v, path, {"type", "value"});
      if (!v["value"]) r.fail(v, path + ".value", "required key missing", "the velocity vector [ux, uy, uz]");
      p.velocity.value = r.vec3(v["value"], path + ".value");
    } else {
      r.check_keys(v, path, {"type", "axis", "center", "omega"});
      for (const char* k : {"axis", "center", "omega"})
        if (!v[k]) r.fail(v, path + "." + k, "required key missing");
      p.velocity.axis = unit_vector(r, v["axis"], path + ".axis", "the rotation axis");
      p.velocity.center = r.vec3(v["center"], path + ".center");
      p.velocity.omega = r.real_value(v["omega"], path + ".omega");
    }
  }
  p.diffusivity.assign(p.components, 0.0);
  if (const YAML::Node d = n["diffusivity"]) {
    if (d.IsSequence()) {
      if (int(d.size()) != p.components)
        r.fail(d, "physics.diffusivity",
               "expected one value or " + std::to_string(p.components) + " (one per component), got " +
                   std::to_string(d.size()),
               r.given_at(n["components"], "physics.components", std::to_string(p.components)));
      for (int c = 0; c < p.components; ++c)
        p.diffusivity[c] = r.positive(d[c], "physics.diffusivity[" + std::to_string(c) + "]", true);
    } else {
      p.diffusivity.assign(p.components, r.positive(d, "physics.diffusivity", true));
    }
  }
  return p;
}

InitialConfig parse_initial_entry(const Reader& r, const YAML::Node& e, const std::string& path, bool box) {
  InitialConfig ic;
  r.require_map(e, path);
  if (!e["type"]) r.fail(e, path + ".type", "required key missing", "constant | gaussian | sine | sphere");
  ic.type = r.enum_value(
      e["type"], path + ".type",
      std::vector<InitialType>{InitialType::constant, InitialType::gaussian, InitialType::sine, InitialType::sphere});
  auto need = [&](const char* k) {
    if (!e[k]) r.fail(e, path + "." + k, "required key missing", std::string("for type: ") + to_string(ic.type));
    return e[k];
  };
  switch (ic.type) {
  case InitialType::constant:
    r.check_keys(e, path, {"type", "value"});
    ic.value = r.real_value(need("value"), path + ".value");
    break;
  case InitialType::gaussian:
    r.check_keys(e, path, {"type", "center", "width", "amplitude", "background"});
    ic.center = r.vec3(need("center"), path + ".center");
    ic.width = r.positive(need("width"), path + ".width");
    ic.amplitude = r.real_value(need("amplitude"), path + ".amplitude");
    if (e["background"]) ic.background = r.real_value(e["background"], path + ".background");
    break;
  case InitialType::sine: {
    r.check_keys(e, path, {"type", "wavenumber", "amplitude", "phase"});
    if (!box)
      r.fail(e["type"], path + ".type", "a sine initial condition needs a generated box (mesh.generate)",
             "its wavenumbers count whole periods of the box");
    const YAML::Node k = need("wavenumber");
    if (!k.IsSequence() || k.size() != 3)
      r.fail(k, path + ".wavenumber", "expected a list of 3 integers [kx, ky, kz] (whole periods of the box)");
    for (int i = 0; i < 3; ++i)
      ic.wavenumber[i] = static_cast<int>(r.int_value(k[i], path + ".wavenumber[" + std::to_string(i) + "]"));
    ic.amplitude = r.real_value(need("amplitude"), path + ".amplitude");
    if (e["phase"]) ic.phase = r.real_value(e["phase"], path + ".phase");
    break;
  }
  case InitialType::sphere:
    r.check_keys(e, path, {"type", "center", "radius", "inside", "outside"});
    ic.center = r.vec3(need("center"), path + ".center");
    ic.radius = r.positive(need("radius"), path + ".radius");
    ic.inside = r.real_value(need("inside"), path + ".inside");
    ic.outside = r.real_value(need("outside"), path + ".outside");
    break;
  }
  return ic;
}

std::vector<double> component_values(const Reader& r, const YAML::Node& v, const std::string& path, int n,
                                     const std::string& components_at) {
  if (v.IsSequence()) {
    if (int(v.size()) != n)
      r.fail(v, path,
             "expected one value or " + std::to_string(n) + " (one per component), got " + std::to_string(v.size()),
             components_at);
    std::vector<double> out(n);
    for (int c = 0; c < n; ++c) out[c] = r.real_value(v[c], path + "[" + std::to_string(c) + "]");
    return out;
  }
  return std::vector<double>(n, r.real_value(v, path));
}

YAML::Node emit_state(const FlowStateConfig& s) {
  YAML::Node e;
  e["density"] = s.density;
  e["velocity"] = flow_style(s.velocity);
  e["pressure"] = s.pressure;
  return e;
}

YAML::Node emit_profile(const VelocityProfileConfig& p) {
  YAML::Node e;
  e.SetStyle(YAML::EmitterStyle::Flow);
  e["type"] = p.parabolic ? "parabolic" : "uniform";
  if (p.parabolic) e["normal"] = flow_style(p.normal), e["from"] = p.from, e["to"] = p.to;
  return e;
}

/// physics, initial and boundary of the flow models.
void add_flow_sections(const ModelOptions& c, YAML::Node& n) {
  const FlowPhysicsConfig& f = c.physics.flow;
  YAML::Node p;
  p["model"] = to_string(c.physics.model);
  p["gamma"] = f.gamma;
  p["gas_constant"] = f.gas_constant;
  if (c.physics.model == PhysicsModel::navier_stokes) {
    if (f.viscosity == FlowPhysicsConfig::Viscosity::constant) {
      p["viscosity"]["type"] = "constant";
      p["viscosity"]["value"] = f.mu;
    } else {
      p["viscosity"]["type"] = "sutherland";
      p["viscosity"]["mu_ref"] = f.mu_ref;
      p["viscosity"]["t_ref"] = f.t_ref;
      p["viscosity"]["s"] = f.s;
    }
    p["prandtl"] = f.prandtl;
  }
  n["physics"] = p;
  const FlowInitialConfig& ic = c.flow_initial;
  YAML::Node e;
  e["type"] = to_string(ic.type);
  switch (ic.type) {
  case FlowInitialType::uniform:
    e["density"] = ic.state.density, e["velocity"] = flow_style(ic.state.velocity), e["pressure"] = ic.state.pressure;
    e["profile"] = emit_profile(ic.profile);
    break;
  case FlowInitialType::riemann:
    e["normal"] = flow_style(ic.normal), e["position"] = ic.position, e["left"] = emit_state(ic.left),
    e["right"] = emit_state(ic.right);
    break;
  case FlowInitialType::isentropic_vortex:
    e["center"] = flow_style(ic.center), e["beta"] = ic.beta, e["velocity"] = flow_style(ic.velocity);
    break;
  case FlowInitialType::taylor_green:
    e["length"] = ic.length, e["speed"] = ic.speed, e["density"] = ic.density, e["pressure"] = ic.pressure;
    break;
  case FlowInitialType::acoustic_pulse:
    e["density"] = ic.state.density, e["velocity"] = flow_style(ic.state.velocity), e["pressure"] = ic.state.pressure;
    e["normal"] = flow_style(ic.normal), e["position"] = ic.position, e["width"] = ic.width,
    e["amplitude"] = ic.amplitude;
    break;
  }
  n["initial"] = e;
  for (std::size_t i = 0; i < c.boundary.size(); ++i) {
    const FlowBoundaryConfig& b = c.flow_boundary[i];
    YAML::Node x;
    x["type"] = to_string(b.kind);
    if (b.kind == FlowBoundaryKind::supersonic_inflow || b.kind == FlowBoundaryKind::farfield) {
      x["density"] = b.state.density, x["velocity"] = flow_style(b.state.velocity), x["pressure"] = b.state.pressure;
    } else if (b.kind == FlowBoundaryKind::no_slip_wall) {
      x["velocity"] = flow_style(b.wall_velocity);
      if (b.wall_temperature) x["temperature"] = *b.wall_temperature; // none: adiabatic
    } else if (b.kind == FlowBoundaryKind::subsonic_inflow) {
      x["total_pressure"] = b.total_pressure, x["total_temperature"] = b.total_temperature;
      if (b.direction) x["direction"] = flow_style(*b.direction); // none: normal to each face
    } else if (b.kind == FlowBoundaryKind::subsonic_outflow) {
      x["pressure"] = b.pressure;
    } else if (b.kind == FlowBoundaryKind::velocity_inlet) {
      x["velocity"] = flow_style(b.inlet_velocity), x["temperature"] = b.temperature;
      x["profile"] = emit_profile(b.profile);
    } else if (b.kind == FlowBoundaryKind::mass_flow_inlet) {
      x["mass_flow"] = b.mass_flow, x["temperature"] = b.temperature;
      if (b.direction) x["direction"] = flow_style(*b.direction); // none: normal to each face
    }
    if (b.non_reflecting) { // none: the values imposed exactly
      YAML::Node nr;
      nr.SetStyle(YAML::EmitterStyle::Flow);
      nr["length"] = b.nr_length, nr["sigma"] = b.nr_sigma;
      x["non_reflecting"] = nr;
    }
    n["boundary"][c.boundary[i].first] = x;
  }
}

} // namespace

PhysicsConfig read_physics_options(const Reader& r, const YAML::Node& root) {
  return parse_physics(r, root);
}

namespace {

/// Where physics.components was given (or that it took its default), for messages about counts.
std::string components_given_at(const Reader& r, const YAML::Node& root, int nc) {
  return r.given_at(root["physics"] ? root["physics"]["components"] : YAML::Node(YAML::NodeType::Undefined),
                    "physics.components", std::to_string(nc));
}

} // namespace

void read_initial_options(const Reader& r, const YAML::Node& root, bool box, ModelOptions& c) {
  const int nc = c.physics.components;
  const std::string components_at = components_given_at(r, root, nc);
  const YAML::Node init = root["initial"];
  if (!init) r.fail(root, "initial", "required section missing", "give one initial condition, or one per component");
  c.initial_where = r.src().locate(init, "initial");
  const bool flow_model = c.physics.is_flow();
  if (flow_model) {
    c.flow_initial = parse_flow_initial(r, init, box);
    const YAML::Node physics = root["physics"];
    const YAML::Node physics_map = physics && physics.IsMap() ? physics : YAML::Node(YAML::NodeType::Undefined);
    check_flow_initial(r, init, c.flow_initial, c.physics.flow, physics_map);
    check_initial_temperatures(r, init, c.flow_initial, c.physics.flow, physics_map);
    return;
  }
  if (!init.IsSequence() || (int(init.size()) != 1 && int(init.size()) != nc))
    r.fail(init, "initial",
           nc == 1 ? std::string("expected a list of 1 entry")
                   : "expected a list of 1 or " + std::to_string(nc) + " entries (one for all components, or one each)",
           "got " + Reader::describe(init) + (init.IsSequence() ? " of " + std::to_string(init.size()) : "") + "; " +
               components_at);
  for (int k = 0; k < nc; ++k) {
    const int e = int(init.size()) == 1 ? 0 : k;
    if (int(c.initial.size()) <= k)
      c.initial.push_back(parse_initial_entry(r, init[e], "initial[" + std::to_string(e) + "]", box));
  }
}

namespace {

/// boundary.NAME of the scalar model: dirichlet (a value, or the exact solution), outflow, inflow.
BoundaryConfig parse_scalar_boundary(const Reader& r, const YAML::Node& e, const std::string& path, int nc,
                                     const std::string& components_at, BoundaryConfig bc) {
  if (!e["type"]) r.fail(e, path + ".type", "required key missing", "dirichlet | outflow | inflow");
  bc.type =
      r.enum_value(e["type"], path + ".type",
                   std::vector<BoundaryType>{BoundaryType::dirichlet, BoundaryType::outflow, BoundaryType::inflow});
  if (bc.type == BoundaryType::outflow) {
    r.check_keys(e, path, {"type"});
  } else {
    r.check_keys(e, path, {"type", "value"});
    if (!e["value"]) r.fail(e, path + ".value", "required key missing");
    if (bc.type == BoundaryType::dirichlet && e["value"].IsScalar() && e["value"].Scalar() == "exact")
      bc.exact = true;
    else
      bc.value = component_values(r, e["value"], path + ".value", nc, components_at);
  }
  return bc;
}

} // namespace

void read_boundary_options(const Reader& r, const YAML::Node& root, ModelOptions& c) {
  const int nc = c.physics.components;
  const std::string components_at = components_given_at(r, root, nc);
  c.boundary_where = r.src().locate(root["boundary"], "boundary");
  const YAML::Node b = root["boundary"];
  if (!b) return;
  r.require_map(b, "boundary");
  for (const auto& kv : b) {
    const std::string name = kv.first.as<std::string>();
    const std::string path = "boundary." + name;
    const YAML::Node& e = kv.second;
    BoundaryConfig bc;
    bc.where = r.src().locate(kv.first, path);
    r.require_map(e, path);
    if (c.physics.is_flow()) {
      c.flow_boundary.push_back(parse_flow_boundary(r, e, path, c.physics.model, c.physics.flow));
      c.boundary.emplace_back(name, bc);
      continue;
    }
    c.boundary.emplace_back(name, parse_scalar_boundary(r, e, path, nc, components_at, bc));
  }
}

void add_model_options_yaml(const ModelOptions& c, YAML::Node& n) {
  if (c.physics.is_flow()) add_flow_sections(c, n);
  YAML::Node p;
  p["model"] = "scalar";
  p["components"] = c.physics.components;
  YAML::Node v;
  v["type"] = to_string(c.physics.velocity.type);
  if (c.physics.velocity.type == VelocityType::uniform) {
    v["value"] = flow_style(c.physics.velocity.value);
  } else {
    v["axis"] = flow_style(c.physics.velocity.axis);
    v["center"] = flow_style(c.physics.velocity.center);
    v["omega"] = c.physics.velocity.omega;
  }
  p["velocity"] = v;
  p["diffusivity"] = flow_style(c.physics.diffusivity);
  if (!c.physics.is_flow()) n["physics"] = p;
  for (const auto& ic : c.initial) {
    YAML::Node e;
    e["type"] = to_string(ic.type);
    switch (ic.type) {
    case InitialType::constant: e["value"] = ic.value; break;
    case InitialType::gaussian:
      e["center"] = flow_style(ic.center), e["width"] = ic.width, e["amplitude"] = ic.amplitude,
      e["background"] = ic.background;
      break;
    case InitialType::sine:
      e["wavenumber"] = flow_style(ic.wavenumber), e["amplitude"] = ic.amplitude, e["phase"] = ic.phase;
      break;
    case InitialType::sphere:
      e["center"] = flow_style(ic.center), e["radius"] = ic.radius, e["inside"] = ic.inside, e["outside"] = ic.outside;
      break;
    }
    n["initial"].push_back(e);
  }
  for (const auto& [name, bc] : c.boundary) {
    if (c.physics.is_flow()) break;
    YAML::Node e;
    e["type"] = to_string(bc.type);
    if (bc.exact)
      e["value"] = "exact";
    else if (bc.type != BoundaryType::outflow)
      e["value"] = flow_style(bc.value);
    n["boundary"][name] = e;
  }
}

} // namespace fvproxy
