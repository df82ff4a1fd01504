// The solver sections of a case file (physics, initial, boundary, operators, time, output, run):
// what `fvproxy run` reads. The contract is docs/inputs.md, which documents each key.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <sstream>
#include <type_traits>

#include "core/config.hpp"
#include "core/config_reader.hpp"
#include "core/types.hpp"

#ifndef FVPROXY_COMPONENT_LIST
#define FVPROXY_COMPONENT_LIST 1, 2, 3, 4, 5, 8
#endif

namespace fvproxy {

using detail::Reader;

namespace {
std::string format_number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}
} // namespace

const char* to_string(HaloVariant v) {
  return v == HaloVariant::naive ? "naive" : "optimized";
}

const char* to_string(HaloTransport t) {
  switch (t) {
  case HaloTransport::automatic: return "auto";
  case HaloTransport::ipc: return "ipc";
  case HaloTransport::mpi: return "mpi";
  case HaloTransport::staged: return "staged";
  }
  return "?";
}
const char* to_string(Variant v) {
  return v == Variant::naive ? "naive" : "optimized";
}
const char* to_string(Gradient g) {
  return g == Gradient::green_gauss ? "green-gauss" : "least-squares";
}
const char* to_string(Limiter l) {
  return l == Limiter::none ? "none" : l == Limiter::barth_jespersen ? "barth-jespersen" : "venkatakrishnan";
}
const char* to_string(Scatter s) {
  return s == Scatter::atomic ? "atomic" : "gather";
}
const char* to_string(Policy p) {
  return p == Policy::range ? "range" : "team";
}
const char* to_string(Integrator i) {
  return i == Integrator::euler ? "euler" : i == Integrator::ssprk2 ? "ssprk2" : "ssprk3";
}
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
  }
  return "?";
}
const char* to_string(FlowFlux f) {
  return f == FlowFlux::rusanov ? "rusanov" : f == FlowFlux::hllc ? "hllc" : "roe";
}
const char* to_string(FlowVariables v) {
  return v == FlowVariables::conservative ? "conservative" : "primitive";
}

std::vector<FieldLayout> output_field_layout(const PhysicsConfig& p) {
  if (p.is_flow())
    return {{"density", 0, 1},  {"momentum", 1, 3}, {"total_energy", 4, 1},
            {"velocity", 5, 3}, {"pressure", 8, 1}, {"temperature", 9, 1}};
  std::vector<FieldLayout> l;
  for (int k = 0; k < p.components; ++k) l.push_back({"u" + std::to_string(k), k, 1});
  return l;
}

std::vector<FieldLayout> checkpoint_field_layout(const PhysicsConfig& p) {
  if (p.is_flow()) return {{"density", 0, 1}, {"momentum", 1, 3}, {"total_energy", 4, 1}};
  return output_field_layout(p);
}

const std::vector<int>& component_list() {
  static const std::vector<int> list{FVPROXY_COMPONENT_LIST};
  return list;
}

namespace {

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
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
  if (n["gas_constant"]) f.gas_constant = r.positive(n["gas_constant"], "physics.gas_constant");
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

/// The range a flow state's values may take: each value and what the fluxes compute from it (the
/// total energy, rho |u|^2, the sound speed squared, the energy flux) within the build's `real`, with
/// a margin of 1 / epsilon for the arithmetic around them (double: about 1e-292 to 8e291).
constexpr double kStateMin = double(std::numeric_limits<real>::min()) / std::numeric_limits<real>::epsilon();
constexpr double kStateMax = double(std::numeric_limits<real>::max()) * std::numeric_limits<real>::epsilon();

std::string g(double v) {
  std::ostringstream o;
  o.precision(6);
  o << v;
  return o.str();
}

/// Extreme but finite values of a flow state `n` (density, velocity, pressure at path) are refused
/// naming the key that takes the state out of the range the solver computes in.
void check_flow_state_range(const Reader& r, const YAML::Node& n, const std::string& path, const FlowStateConfig& s,
                            double gamma) {
  const std::string range = "(" + g(kStateMin) + " to " + g(kStateMax) + " in this build's " +
                            (sizeof(real) == 8 ? "double" : "float") + " arithmetic)";
  for (const auto& [key, v] :
       std::array<std::pair<const char*, double>, 2>{{{"density", s.density}, {"pressure", s.pressure}}})
    if (!(v >= kStateMin && v <= kStateMax))
      r.fail(n[key], path + "." + key, g(v) + " is outside the range a state's values may take", range);
  const double uu = s.velocity[0] * s.velocity[0] + s.velocity[1] * s.velocity[1] + s.velocity[2] * s.velocity[2];
  const double speed = std::hypot(std::hypot(s.velocity[0], s.velocity[1]), s.velocity[2]);
  const double kinetic = 0.5 * s.density * uu, internal = s.pressure / (gamma - 1);
  const double c2 = gamma * s.pressure / s.density;
  const double energy_flux = (kinetic + internal + s.pressure) * std::sqrt(uu);
  if (!(kinetic <= kStateMax && s.density * uu <= kStateMax && energy_flux <= kStateMax && uu <= kStateMax))
    r.fail(n["velocity"], path + ".velocity",
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

/// Sutherland's viscosity at the initial temperatures (T = p / (rho R)): a reference temperature
/// or viscosity far out of scale makes mu overflow (named: t_ref or mu_ref).
void check_sutherland_at_initial(const Reader& r, const FlowInitialConfig& ic, const FlowPhysicsConfig& f,
                                 const YAML::Node& viscosity) {
  if (!viscosity || f.viscosity != FlowPhysicsConfig::Viscosity::sutherland) return;
  std::vector<double> temperatures;
  auto add = [&](double p, double rho) { temperatures.push_back(p / (rho * f.gas_constant)); };
  switch (ic.type) {
  case FlowInitialType::uniform: add(ic.state.pressure, ic.state.density); break;
  case FlowInitialType::riemann:
    add(ic.left.pressure, ic.left.density), add(ic.right.pressure, ic.right.density);
    break;
  case FlowInitialType::taylor_green: add(ic.pressure, ic.density); break;
  case FlowInitialType::isentropic_vortex: add(1, 1); break;
  }
  for (double T : temperatures) {
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
                        const FlowPhysicsConfig& f, const YAML::Node& viscosity) {
  const YAML::Node e = init.IsSequence() && init.size() == 1 ? init[0] : init;
  const std::string path = init.IsSequence() ? "initial[0]" : "initial";
  const double gamma = f.gamma;
  check_sutherland_at_initial(r, ic, f, viscosity);
  switch (ic.type) {
  case FlowInitialType::uniform: check_flow_state_range(r, e, path, ic.state, gamma); break;
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
    // p = p0 + rho0 V0^2 / 16 (cos 2x + cos 2y)(cos 2z + 2): at its lowest p0 - 3 rho0 V0^2 / 8.
    const double lowest = ic.pressure - 0.375 * ic.density * ic.speed * ic.speed;
    if (!(lowest > 0)) {
      const YAML::Node p = e["pressure"] ? e["pressure"] : e;
      r.fail(p, path + ".pressure",
             "the vortex's pressure p0 - 3 rho0 V0^2 / 8 = " + g(lowest) + " is not positive where it is lowest",
             "p0 must exceed " + g(0.375 * ic.density * ic.speed * ic.speed) + " (rho0 = " + g(ic.density) +
                 ", V0 = " + g(ic.speed) + "; the benchmark's Mach 0.1 is p0 = rho0 V0^2 / (gamma 0.01))");
    }
    FlowStateConfig peak{ic.density, {ic.speed, ic.speed, 0.0}, ic.pressure};
    check_flow_state_range(r, e, path, peak, gamma);
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

FlowInitialConfig parse_flow_initial(const Reader& r, const YAML::Node& init, bool box) {
  // One mapping (a list of one entry is accepted too).
  const YAML::Node e = init.IsSequence() && init.size() == 1 ? init[0] : init;
  const std::string path = init.IsSequence() ? "initial[0]" : "initial";
  if (!e.IsMap())
    r.fail(init, "initial", "expected one mapping for the flow models",
           "{type: uniform | riemann | isentropic-vortex | taylor-green, ...}");
  FlowInitialConfig ic;
  if (!e["type"])
    r.fail(e, path + ".type", "required key missing", "uniform | riemann | isentropic-vortex | taylor-green");
  ic.type =
      r.enum_value(e["type"], path + ".type",
                   std::vector<FlowInitialType>{FlowInitialType::uniform, FlowInitialType::riemann,
                                                FlowInitialType::isentropic_vortex, FlowInitialType::taylor_green});
  auto need = [&](const char* k) {
    if (!e[k]) r.fail(e, path + "." + k, "required key missing", std::string("for type: ") + to_string(ic.type));
    return e[k];
  };
  switch (ic.type) {
  case FlowInitialType::uniform: {
    r.check_keys(e, path, {"type", "density", "velocity", "pressure"});
    for (const char* k : {"density", "velocity", "pressure"}) need(k);
    ic.state.density = r.positive(e["density"], path + ".density");
    ic.state.velocity = r.vec3(e["velocity"], path + ".velocity");
    ic.state.pressure = r.positive(e["pressure"], path + ".pressure");
    break;
  }
  case FlowInitialType::riemann: {
    r.check_keys(e, path, {"type", "normal", "position", "left", "right"});
    auto a = r.vec3(need("normal"), path + ".normal");
    const double norm = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    if (!(norm > 0)) r.fail(e["normal"], path + ".normal", "the plane's normal must not be zero");
    for (double& x : a) x /= norm;
    ic.normal = a;
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

FlowBoundaryConfig parse_flow_boundary(const Reader& r, const YAML::Node& e, const std::string& path,
                                       PhysicsModel model, double gamma) {
  FlowBoundaryConfig bc;
  if (!e["type"])
    r.fail(e, path + ".type", "required key missing",
           "slip-wall | no-slip-wall | supersonic-inflow | supersonic-outflow | subsonic-inflow | subsonic-outflow | "
           "farfield | symmetry");
  bc.kind =
      r.enum_value(e["type"], path + ".type",
                   std::vector<FlowBoundaryKind>{
                       FlowBoundaryKind::slip_wall, FlowBoundaryKind::no_slip_wall, FlowBoundaryKind::supersonic_inflow,
                       FlowBoundaryKind::supersonic_outflow, FlowBoundaryKind::subsonic_inflow,
                       FlowBoundaryKind::subsonic_outflow, FlowBoundaryKind::farfield, FlowBoundaryKind::symmetry});
  switch (bc.kind) {
  case FlowBoundaryKind::subsonic_inflow: {
    r.check_keys(e, path, {"type", "total_pressure", "total_temperature", "direction"});
    for (const char* k : {"total_pressure", "total_temperature"})
      if (!e[k])
        r.fail(e, path + "." + k, "required key missing",
               "type: subsonic-inflow takes {total_pressure, total_temperature, direction (optional: normal to the "
               "face)}");
    bc.total_pressure = r.positive(e["total_pressure"], path + ".total_pressure");
    bc.total_temperature = r.positive(e["total_temperature"], path + ".total_temperature");
    if (e["direction"]) {
      std::array<double, 3> d = r.vec3(e["direction"], path + ".direction");
      const double len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      if (!(len > 0) || !std::isfinite(len))
        r.fail(e["direction"], path + ".direction", "must be a non-zero vector",
               "the flow's direction into the domain");
      for (double& x : d) x /= len;
      bc.direction = d;
    }
    break;
  }
  case FlowBoundaryKind::subsonic_outflow:
    r.check_keys(e, path, {"type", "pressure"});
    if (!e["pressure"])
      r.fail(e, path + ".pressure", "required key missing", "type: subsonic-outflow takes the static pressure");
    bc.pressure = r.positive(e["pressure"], path + ".pressure");
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
  case FlowBoundaryKind::no_slip_wall:
    if (model != PhysicsModel::navier_stokes)
      r.fail(e["type"], path + ".type", "a no-slip wall needs a viscous model",
             "use slip-wall with model: euler, or model: navier-stokes");
    r.check_keys(e, path, {"type", "velocity", "temperature"});
    if (e["velocity"]) {
      bc.wall_velocity = r.vec3(e["velocity"], path + ".velocity");
      bc.velocity_where = r.src().locate(e["velocity"], path + ".velocity");
    }
    if (e["temperature"]) bc.wall_temperature = r.positive(e["temperature"], path + ".temperature");
    break;
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
             std::to_string(c) + " is not among this build's component counts {" + join(names) + "}",
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
      auto a = r.vec3(v["axis"], path + ".axis");
      const double norm = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
      if (!(norm > 0)) r.fail(v["axis"], path + ".axis", "the rotation axis must not be zero");
      for (double& x : a) x /= norm;
      p.velocity.axis = a;
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

void parse_options(const Reader& r, const YAML::Node& n, const std::string& path, OperatorOptions& o,
                   bool deterministic, const YAML::Node& det_node) {
  if (n["variant"])
    o.variant = r.enum_value(n["variant"], path + ".variant", std::vector<Variant>{Variant::naive, Variant::optimized});
  for (const char* k : {"scatter", "policy", "team_size"})
    if (n[k] && o.variant == Variant::naive)
      r.fail(n[k], path + "." + k, std::string("'") + k + "' is an option of the optimized variant",
             "the naive variant always scatters with atomics and launches an MDRangePolicy; remove it or use variant: "
             "optimized");
  if (n["scatter"]) {
    o.scatter = r.enum_value(n["scatter"], path + ".scatter", std::vector<Scatter>{Scatter::atomic, Scatter::gather});
    if (deterministic && o.scatter == Scatter::atomic)
      r.fail(n["scatter"], path + ".scatter", "scatter: atomic contradicts run.deterministic: true",
             "deterministic runs gather (no atomics); " + r.src().locate(det_node, "run.deterministic") + " sets it");
  }
  if (n["policy"])
    o.policy = r.enum_value(n["policy"], path + ".policy", std::vector<Policy>{Policy::range, Policy::team});
  if (n["team_size"]) {
    const long long t = r.int_value(n["team_size"], path + ".team_size");
    if (t < 32 || t > 1024 || t % 32 != 0)
      r.fail(n["team_size"], path + ".team_size",
             "value " + std::to_string(t) + " out of range: a multiple of 32 from 32 to 1024");
    o.team_size = static_cast<int>(t);
  }
}

/// The default scatter of the convection and diffusion face loops, from the benchmark harness
/// (docs/performance.md). On CUDA the atomic face scatter beat the per-cell gather in every
/// configuration measured (1.4-4.6x; the gather evaluates each interior face twice and is
/// L2-bound). On the OpenMP backend the gather is faster on locality-preserving numberings (median
/// 1.2x convection, 1.6x diffusion) and the atomic scatter only under random numberings. The
/// gradients gather everywhere; deterministic runs always gather.
Scatter default_face_scatter(bool deterministic) {
  if (deterministic) return Scatter::gather;
#if defined(KOKKOS_ENABLE_CUDA)
  if (std::is_same<Kokkos::DefaultExecutionSpace, Kokkos::Cuda>::value) return Scatter::atomic;
#endif
  return Scatter::gather;
}

OperatorsConfig parse_operators(const Reader& r, const YAML::Node& root, bool deterministic, PhysicsModel model) {
  OperatorsConfig ops;
  ops.convection.scatter = ops.diffusion.scatter = default_face_scatter(deterministic);
  const YAML::Node n = root["operators"];
  if (!n) return ops;
  r.check_keys(n, "operators", {"muscl", "convection", "diffusion"});
  const YAML::Node det = root["run"] ? root["run"]["deterministic"] : YAML::Node();
  if (const YAML::Node m = n["muscl"]) {
    r.check_keys(m, "operators.muscl",
                 {"variant", "gradient", "limiter", "venkatakrishnan_k", "fused", "scatter", "policy", "team_size"});
    parse_options(r, m, "operators.muscl", ops.muscl, deterministic, det);
    if (m["gradient"])
      ops.muscl.gradient = r.enum_value(m["gradient"], "operators.muscl.gradient",
                                        std::vector<Gradient>{Gradient::green_gauss, Gradient::least_squares});
    if (m["limiter"])
      ops.muscl.limiter =
          r.enum_value(m["limiter"], "operators.muscl.limiter",
                       std::vector<Limiter>{Limiter::none, Limiter::barth_jespersen, Limiter::venkatakrishnan});
    if (m["venkatakrishnan_k"])
      ops.muscl.venkatakrishnan_k = r.positive(m["venkatakrishnan_k"], "operators.muscl.venkatakrishnan_k");
    if (m["fused"]) {
      ops.muscl.fused = r.bool_value(m["fused"], "operators.muscl.fused");
      if (ops.muscl.fused && ops.muscl.variant == Variant::naive)
        r.fail(m["fused"], "operators.muscl.fused", "'fused' is an option of the optimized variant",
               "the naive variant runs the gradient and the limiter as separate kernels; remove it or use variant: "
               "optimized");
      if (ops.muscl.fused && ops.muscl.scatter == Scatter::atomic)
        r.fail(m["fused"], "operators.muscl.fused", "fused: true needs scatter: gather",
               "the fused kernel gathers each cell's faces; an atomic scatter completes a cell's sums only after "
               "every face, so there is nothing to fuse");
    } else {
      // the default: fused wherever it applies (docs/operators/muscl.md#fused)
      ops.muscl.fused = ops.muscl.variant == Variant::optimized && ops.muscl.scatter == Scatter::gather;
    }
  }
  if (const YAML::Node c = n["convection"]) {
    std::vector<std::string> keys{"variant", "order", "scatter", "policy", "team_size"};
    if (model != PhysicsModel::scalar) {
      keys.insert(keys.end(), {"flux", "reconstruction", "entropy_fix"});
    } else {
      for (const char* k : {"flux", "reconstruction", "entropy_fix"})
        if (c[k])
          r.fail(c[k], std::string("operators.convection.") + k,
                 std::string("'") + k + "' is an option of the flow models", "physics.model: euler | navier-stokes");
    }
    r.check_keys(c, "operators.convection", keys);
    parse_options(r, c, "operators.convection", ops.convection, deterministic, det);
    if (c["flux"])
      ops.convection.flux = r.enum_value(c["flux"], "operators.convection.flux",
                                         std::vector<FlowFlux>{FlowFlux::rusanov, FlowFlux::hllc, FlowFlux::roe});
    if (c["reconstruction"])
      ops.convection.variables =
          r.enum_value(c["reconstruction"], "operators.convection.reconstruction",
                       std::vector<FlowVariables>{FlowVariables::conservative, FlowVariables::primitive});
    if (c["entropy_fix"]) {
      ops.convection.entropy_fix = r.bool_value(c["entropy_fix"], "operators.convection.entropy_fix");
      if (ops.convection.flux != FlowFlux::roe)
        r.fail(c["entropy_fix"], "operators.convection.entropy_fix", "an option of flux: roe",
               std::string("the ") + to_string(ops.convection.flux) + " flux needs no entropy fix");
    }
    if (c["order"]) {
      const long long o = r.int_value(c["order"], "operators.convection.order");
      if (o != 1 && o != 2) r.fail(c["order"], "operators.convection.order", "must be 1 (upwind) or 2 (MUSCL)");
      ops.convection.order = static_cast<int>(o);
    }
  }
  if (const YAML::Node d = n["diffusion"]) {
    r.check_keys(d, "operators.diffusion", {"variant", "scatter", "policy", "team_size"});
    parse_options(r, d, "operators.diffusion", ops.diffusion, deterministic, det);
  }
  return ops;
}

TimeConfig parse_time(const Reader& r, const YAML::Node& root, bool flow) {
  TimeConfig t;
  const YAML::Node n = root["time"];
  if (!n) r.fail(root, "time", "required section missing", "give time.end_time or time.steps");
  r.check_keys(n, "time", {"integrator", "cfl", "dt", "end_time", "steps", "residual_tolerance"});
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

EveryConfig parse_every(const Reader& r, const YAML::Node& n, const std::string& path, bool wall) {
  const std::vector<std::string> keys =
      wall ? std::vector<std::string>{"steps", "time", "wall_seconds"} : std::vector<std::string>{"steps", "time"};
  r.check_keys(n, path, keys);
  if (n.size() != 1) r.fail(n, path, "give exactly one of " + join(keys), "got " + std::to_string(n.size()) + " keys");
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

} // namespace

CaseConfig parse_case(const ConfigSource& src) {
  CaseConfig c = parse_case_mesh(src);
  Reader r(src);
  const YAML::Node& root = src.root();
  c.has_solver = true;
  // run first: deterministic changes what the operator options may say.
  if (const YAML::Node n = root["run"]) {
    r.check_keys(n, "run", {"progress_interval", "wall_limit", "profile", "deterministic", "bound_tolerance"});
    if (n["progress_interval"]) c.run.progress_interval = r.positive(n["progress_interval"], "run.progress_interval");
    if (n["wall_limit"]) c.run.wall_limit = r.positive(n["wall_limit"], "run.wall_limit");
    if (n["profile"]) c.run.profile = r.bool_value(n["profile"], "run.profile");
    if (n["deterministic"]) c.run.deterministic = r.bool_value(n["deterministic"], "run.deterministic");
    if (const YAML::Node b = n["bound_tolerance"]) {
      if (b.IsScalar() && b.Scalar() == "none")
        c.run.bound_tolerance.reset();
      else
        c.run.bound_tolerance = r.positive(b, "run.bound_tolerance", true);
    }
  }
  c.physics = parse_physics(r, root);
  if (c.physics.is_flow()) {
    const YAML::Node b = root["run"] ? root["run"]["bound_tolerance"] : YAML::Node(YAML::NodeType::Undefined);
    if (b)
      r.fail(b, "run.bound_tolerance", "an option of the scalar model (its max-principle monitor)",
             "the flow models stop on a negative density or pressure instead");
    c.run.bound_tolerance.reset();
  }
  const int nc = c.physics.components;
  const std::string components_at =
      r.given_at(root["physics"] ? root["physics"]["components"] : YAML::Node(YAML::NodeType::Undefined),
                 "physics.components", std::to_string(nc));
  const YAML::Node init = root["initial"];
  if (!init) r.fail(root, "initial", "required section missing", "give one initial condition, or one per component");
  const bool flow_model = c.physics.is_flow();
  if (flow_model) {
    c.flow_initial = parse_flow_initial(r, init, bool(c.mesh.generate));
    const YAML::Node physics = root["physics"];
    check_flow_initial(r, init, c.flow_initial, c.physics.flow,
                       physics && physics.IsMap() ? physics["viscosity"] : YAML::Node(YAML::NodeType::Undefined));
  }
  if (!flow_model && (!init.IsSequence() || (int(init.size()) != 1 && int(init.size()) != nc)))
    r.fail(init, "initial",
           nc == 1 ? std::string("expected a list of 1 entry")
                   : "expected a list of 1 or " + std::to_string(nc) + " entries (one for all components, or one each)",
           "got " + Reader::describe(init) + (init.IsSequence() ? " of " + std::to_string(init.size()) : "") + "; " +
               components_at);
  for (int k = 0; k < nc && !flow_model; ++k) {
    const int e = int(init.size()) == 1 ? 0 : k;
    if (int(c.initial.size()) <= k)
      c.initial.push_back(parse_initial_entry(r, init[e], "initial[" + std::to_string(e) + "]", bool(c.mesh.generate)));
  }
  c.boundary_where = src.locate(root["boundary"], "boundary");
  c.initial_where = src.locate(init, "initial");
  if (const YAML::Node b = root["boundary"]) {
    r.require_map(b, "boundary");
    for (const auto& kv : b) {
      const std::string name = kv.first.as<std::string>();
      const std::string path = "boundary." + name;
      const YAML::Node& e = kv.second;
      BoundaryConfig bc;
      bc.where = src.locate(kv.first, path);
      r.require_map(e, path);
      if (flow_model) {
        c.flow_boundary.push_back(parse_flow_boundary(r, e, path, c.physics.model, c.physics.flow.gamma));
        c.boundary.emplace_back(name, bc);
        continue;
      }
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
      c.boundary.emplace_back(name, bc);
    }
  }
  c.operators = parse_operators(r, root, c.run.deterministic, c.physics.model);
  // Ghost layers by default: the flow models' halo is their gradients (20 or 32 values per ghost
  // against 5), so two layers send a third of the bytes (measured: as fast over NVLink, 13 % shorter steps
  // staged through the host); the scalar model's is small either way (docs/parallel.md#two-ghost-layers).
  c.parallel.halo.layers = flow_model ? 2 : 1;
  if (const YAML::Node p = root["parallel"]) {
    r.check_keys(p, "parallel", {"halo"});
    if (const YAML::Node h = p["halo"]) {
      r.check_keys(h, "parallel.halo", {"variant", "transport", "layers"});
      if (h["variant"])
        c.parallel.halo.variant = r.enum_value(h["variant"], "parallel.halo.variant",
                                               std::vector<HaloVariant>{HaloVariant::naive, HaloVariant::optimized});
      if (h["transport"])
        c.parallel.halo.transport =
            r.enum_value(h["transport"], "parallel.halo.transport",
                         std::vector<HaloTransport>{HaloTransport::automatic, HaloTransport::ipc, HaloTransport::mpi,
                                                    HaloTransport::staged});
      if (h["layers"]) {
        const long long v = r.int_value(h["layers"], "parallel.halo.layers");
        if (v != 1 && v != 2)
          r.fail(h["layers"], "parallel.halo.layers", "must be 1 or 2, not " + std::to_string(v),
                 "1: the gradients and limiter values exchanged after the state; 2: the state of two ghost layers, "
                 "the first layer's gradients computed locally (docs/parallel.md#two-ghost-layers)");
        c.parallel.halo.layers = static_cast<int>(v);
      }
    }
  }
  c.time = parse_time(r, root, flow_model);
  if (c.time.integrator == Integrator::euler && c.operators.convection.order == 2 &&
      c.operators.muscl.limiter == Limiter::none) {
    const YAML::Node n = root["time"]["integrator"] ? root["time"]["integrator"] : root["time"];
    r.fail(n, "time.integrator",
           "forward Euler with unlimited second-order convection is unstable (its amplification factor exceeds 1 for "
           "every dt)",
           "use integrator: ssprk2 or ssprk3, a limiter (operators.muscl.limiter), or operators.convection.order: 1");
  }
  c.output_dir = "out/" + c.name;
  if (const YAML::Node o = root["output"]) {
    r.check_keys(o, "output", {"dir", "every", "fields", "integrals"});
    if (o["dir"]) c.output_dir = r.string_value(o["dir"], "output.dir");
    if (c.output_dir.empty()) r.fail(o["dir"], "output.dir", "empty path");
    if (o["every"]) c.output.every = parse_every(r, o["every"], "output.every", false);
    if (o["integrals"]) {
      if (!flow_model)
        r.fail(o["integrals"], "output.integrals", "an option of the flow models",
               "integrals.csv holds the flow's kinetic energy and its dissipation rate");
      c.output.integrals = parse_every(r, o["integrals"], "output.integrals", false);
    }
    if (const YAML::Node f = o["fields"]) {
      if (!f.IsSequence() || f.size() == 0)
        r.fail(f, "output.fields", "expected a non-empty list of field names", "got " + Reader::describe(f));
      for (std::size_t i = 0; i < f.size(); ++i) {
        const std::string path = "output.fields[" + std::to_string(i) + "]";
        const std::string name = r.string_value(f[i], path);
        std::vector<std::string> valid;
        for (const FieldLayout& l : output_field_layout(c.physics)) valid.push_back(l.name);
        valid.push_back(kRankField); // the owning MPI rank of each cell
        if (std::find(valid.begin(), valid.end(), name) == valid.end()) {
          const std::string best = closest_key(name, valid);
          r.fail(f[i], path, "unknown field '" + name + "'" + (best.empty() ? "" : "; did you mean '" + best + "'?"),
                 "fields of this case: " + join(valid));
        }
        if (std::find(c.output.fields.begin(), c.output.fields.end(), name) != c.output.fields.end())
          r.fail(f[i], path, "field '" + name + "' is listed twice");
        c.output.fields.push_back(name);
      }
    }
  }
  if (const YAML::Node k = root["checkpoint"]) {
    r.check_keys(k, "checkpoint", {"every", "keep"});
    if (k["every"]) c.checkpoint.every = parse_every(r, k["every"], "checkpoint.every", true);
    if (k["keep"]) {
      const long long keep = r.int_value(k["keep"], "checkpoint.keep");
      if (keep < 1 || keep > 1000) r.fail(k["keep"], "checkpoint.keep", "must be between 1 and 1000");
      c.checkpoint.keep = static_cast<int>(keep);
    }
  }
  return c;
}

namespace {
template <class A> YAML::Node flow(const A& a) {
  YAML::Node n;
  for (const auto& x : a) n.push_back(x);
  n.SetStyle(YAML::EmitterStyle::Flow);
  return n;
}
void emit_options(YAML::Node n, const OperatorOptions& o) { // Node is a handle: writes go to the tree
  n["variant"] = to_string(o.variant);
  if (o.variant == Variant::optimized) {
    n["scatter"] = to_string(o.scatter);
    n["policy"] = to_string(o.policy);
    n["team_size"] = o.team_size;
  }
}
} // namespace

namespace {
YAML::Node emit_state(const FlowStateConfig& s) {
  YAML::Node e;
  e["density"] = s.density;
  e["velocity"] = flow(s.velocity);
  e["pressure"] = s.pressure;
  return e;
}

/// physics, initial and boundary of the flow models.
void add_flow_sections(const CaseConfig& c, YAML::Node& n) {
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
    e["density"] = ic.state.density, e["velocity"] = flow(ic.state.velocity), e["pressure"] = ic.state.pressure;
    break;
  case FlowInitialType::riemann:
    e["normal"] = flow(ic.normal), e["position"] = ic.position, e["left"] = emit_state(ic.left),
    e["right"] = emit_state(ic.right);
    break;
  case FlowInitialType::isentropic_vortex:
    e["center"] = flow(ic.center), e["beta"] = ic.beta, e["velocity"] = flow(ic.velocity);
    break;
  case FlowInitialType::taylor_green:
    e["length"] = ic.length, e["speed"] = ic.speed, e["density"] = ic.density, e["pressure"] = ic.pressure;
    break;
  }
  n["initial"] = e;
  for (std::size_t i = 0; i < c.boundary.size(); ++i) {
    const FlowBoundaryConfig& b = c.flow_boundary[i];
    YAML::Node x;
    x["type"] = to_string(b.kind);
    if (b.kind == FlowBoundaryKind::supersonic_inflow || b.kind == FlowBoundaryKind::farfield) {
      x["density"] = b.state.density, x["velocity"] = flow(b.state.velocity), x["pressure"] = b.state.pressure;
    } else if (b.kind == FlowBoundaryKind::no_slip_wall) {
      x["velocity"] = flow(b.wall_velocity);
      if (b.wall_temperature) x["temperature"] = *b.wall_temperature; // none: adiabatic
    } else if (b.kind == FlowBoundaryKind::subsonic_inflow) {
      x["total_pressure"] = b.total_pressure, x["total_temperature"] = b.total_temperature;
      if (b.direction) x["direction"] = flow(*b.direction); // none: normal to each face
    } else if (b.kind == FlowBoundaryKind::subsonic_outflow) {
      x["pressure"] = b.pressure;
    }
    n["boundary"][c.boundary[i].first] = x;
  }
}
} // namespace

void add_solver_sections(const CaseConfig& c, YAML::Node& n) {
  if (c.physics.is_flow()) add_flow_sections(c, n);
  YAML::Node p;
  p["model"] = "scalar";
  p["components"] = c.physics.components;
  YAML::Node v;
  v["type"] = to_string(c.physics.velocity.type);
  if (c.physics.velocity.type == VelocityType::uniform) {
    v["value"] = flow(c.physics.velocity.value);
  } else {
    v["axis"] = flow(c.physics.velocity.axis);
    v["center"] = flow(c.physics.velocity.center);
    v["omega"] = c.physics.velocity.omega;
  }
  p["velocity"] = v;
  p["diffusivity"] = flow(c.physics.diffusivity);
  if (!c.physics.is_flow()) n["physics"] = p;
  for (const auto& ic : c.initial) {
    YAML::Node e;
    e["type"] = to_string(ic.type);
    switch (ic.type) {
    case InitialType::constant: e["value"] = ic.value; break;
    case InitialType::gaussian:
      e["center"] = flow(ic.center), e["width"] = ic.width, e["amplitude"] = ic.amplitude,
      e["background"] = ic.background;
      break;
    case InitialType::sine:
      e["wavenumber"] = flow(ic.wavenumber), e["amplitude"] = ic.amplitude, e["phase"] = ic.phase;
      break;
    case InitialType::sphere:
      e["center"] = flow(ic.center), e["radius"] = ic.radius, e["inside"] = ic.inside, e["outside"] = ic.outside;
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
      e["value"] = flow(bc.value);
    n["boundary"][name] = e;
  }
  YAML::Node ops;
  emit_options(ops["muscl"], c.operators.muscl);
  ops["muscl"]["gradient"] = to_string(c.operators.muscl.gradient);
  ops["muscl"]["limiter"] = to_string(c.operators.muscl.limiter);
  ops["muscl"]["venkatakrishnan_k"] = c.operators.muscl.venkatakrishnan_k;
  if (c.operators.muscl.variant == Variant::optimized)
    ops["muscl"]["fused"] = c.operators.muscl.fused && c.operators.muscl.scatter == Scatter::gather;
  emit_options(ops["convection"], c.operators.convection);
  ops["convection"]["order"] = c.operators.convection.order;
  if (c.physics.is_flow()) {
    ops["convection"]["flux"] = to_string(c.operators.convection.flux);
    ops["convection"]["reconstruction"] = to_string(c.operators.convection.variables);
    if (c.operators.convection.flux == FlowFlux::roe)
      ops["convection"]["entropy_fix"] = c.operators.convection.entropy_fix;
  }
  emit_options(ops["diffusion"], c.operators.diffusion);
  n["operators"] = ops;
  n["parallel"]["halo"]["variant"] = to_string(c.parallel.halo.variant);
  n["parallel"]["halo"]["transport"] = to_string(c.parallel.halo.transport);
  n["parallel"]["halo"]["layers"] = c.parallel.halo.layers;
  YAML::Node t;
  t["integrator"] = to_string(c.time.integrator);
  if (c.time.dt)
    t["dt"] = *c.time.dt;
  else
    t["cfl"] = c.time.cfl;
  if (c.time.end_time) t["end_time"] = *c.time.end_time;
  if (c.time.steps) t["steps"] = *c.time.steps;
  if (c.time.residual_tolerance) t["residual_tolerance"] = *c.time.residual_tolerance;
  n["time"] = t;
  n["output"]["dir"] = c.output_dir;
  auto every = [](const EveryConfig& e) {
    YAML::Node m;
    if (e.kind == EveryConfig::Kind::steps) m["steps"] = static_cast<long long>(e.value);
    if (e.kind == EveryConfig::Kind::time) m["time"] = e.value;
    if (e.kind == EveryConfig::Kind::wall_seconds) m["wall_seconds"] = e.value;
    return m;
  };
  if (c.output.every.kind != EveryConfig::Kind::none) n["output"]["every"] = every(c.output.every);
  if (c.output.integrals.kind != EveryConfig::Kind::none) n["output"]["integrals"] = every(c.output.integrals);
  for (const auto& f : c.output.fields) n["output"]["fields"].push_back(f);
  if (c.checkpoint.every.kind != EveryConfig::Kind::none) n["checkpoint"]["every"] = every(c.checkpoint.every);
  n["checkpoint"]["keep"] = c.checkpoint.keep;
  if (c.run.wall_limit) n["run"]["wall_limit"] = *c.run.wall_limit;
  n["run"]["progress_interval"] = c.run.progress_interval;
  n["run"]["profile"] = c.run.profile;
  n["run"]["deterministic"] = c.run.deterministic;
  if (c.run.bound_tolerance)
    n["run"]["bound_tolerance"] = *c.run.bound_tolerance;
  else if (!c.physics.is_flow())
    n["run"]["bound_tolerance"] = "none";
}

void check_boundaries(const CaseConfig& c, const std::vector<std::string>& mesh_patches) {
  for (const auto& [name, bc] : c.boundary)
    if (std::find(mesh_patches.begin(), mesh_patches.end(), name) == mesh_patches.end()) {
      const std::string best = closest_key(name, mesh_patches);
      throw InputError(bc.where,
                       "boundary." + name + ": the mesh has no patch '" + name + "'" +
                           (best.empty() ? "" : "; did you mean '" + best + "'?"),
                       "the mesh's patches: " +
                           (mesh_patches.empty() ? std::string("none (fully periodic)") : join(mesh_patches)));
    }
  std::vector<std::string> missing;
  for (const auto& p : mesh_patches)
    if (std::none_of(c.boundary.begin(), c.boundary.end(), [&](const auto& e) { return e.first == p; }))
      missing.push_back(p);
  if (!missing.empty())
    throw InputError(c.boundary_where.empty() ? c.source_file : c.boundary_where,
                     "boundary: no condition for patch" + std::string(missing.size() > 1 ? "es " : " ") + join(missing),
                     c.physics.is_flow()
                         ? "every non-periodic patch must be named in the boundary section (slip-wall | "
                           "symmetry | no-slip-wall | supersonic-inflow | supersonic-outflow | farfield | "
                           "subsonic-inflow | subsonic-outflow)"
                         : "every non-periodic patch must be named in the boundary section (dirichlet | "
                           "outflow | inflow)");
}

} // namespace fvproxy
