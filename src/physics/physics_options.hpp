#pragma once
// The case file's `physics`, `initial` and `boundary` sections (docs/inputs.md#solver-sections,
// docs/physics.md): the model, its properties, its initial condition and its boundary conditions.
// The case assembles the sections (solver/case_config.hpp).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <limits>

#include <yaml-cpp/yaml.h>

#include "core/types.hpp"

namespace fvproxy {

/// The range a flow state's values may take: each value and what the fluxes compute from it (the
/// total energy, rho |u|^2, the sound speed squared, the energy flux) within the build's `real`, with
/// a margin of 1 / epsilon for the arithmetic around them (double: about 1e-292 to 4e292). The case's
/// states and boundary values are checked against it when read, a start state (a checkpoint's) by
/// the flow solver.
inline constexpr double kStateMin = double(std::numeric_limits<real>::min()) / std::numeric_limits<real>::epsilon();
inline constexpr double kStateMax = double(std::numeric_limits<real>::max()) * std::numeric_limits<real>::epsilon();

enum class VelocityType { uniform, rotation };
struct VelocityConfig {
  VelocityType type = VelocityType::uniform;
  std::array<double, 3> value{0.0, 0.0, 0.0}; ///< uniform
  std::array<double, 3> axis{0.0, 0.0, 1.0};  ///< rotation (normalized when parsed)
  std::array<double, 3> center{0.0, 0.0, 0.0};
  double omega = 0.0; ///< angular velocity (rad per unit time, right-handed about axis)
};

/// physics.model: the scalar transport model, or the compressible flow models (docs/physics.md).
enum class PhysicsModel { scalar, euler, navier_stokes };
const char* to_string(PhysicsModel m);

/// The compressible models' gas and transport properties (physics.gamma, ...).
struct FlowPhysicsConfig {
  double gamma = 1.4;
  double gas_constant = 287.05; ///< J / (kg K)
  enum class Viscosity { constant, sutherland } viscosity = Viscosity::constant;
  double mu = 0;                                       ///< constant viscosity (navier-stokes: required)
  double mu_ref = 1.716e-5, t_ref = 273.15, s = 110.4; ///< Sutherland's law
  double prandtl = 0.72;
};

struct PhysicsConfig {
  PhysicsModel model = PhysicsModel::scalar;
  int components = 1; ///< the scalar model's; 5 for the flow models
  VelocityConfig velocity;
  std::vector<double> diffusivity; ///< one per component (scalar model)
  FlowPhysicsConfig flow;          ///< euler | navier-stokes
  bool is_flow() const { return model != PhysicsModel::scalar; }
};

/// A primitive state of the flow models' inputs (initial conditions, inflow and far-field states).
struct FlowStateConfig {
  double density = 1;
  std::array<double, 3> velocity{0.0, 0.0, 0.0};
  double pressure = 1;
};

/// A velocity profile (a velocity inlet's, a uniform initial state's): the velocity everywhere
/// (uniform), or a plane channel's parabola, the velocity times 4 s (1 - s) with
/// s = (x . normal - from) / (to - from) the position across the channel (parabolic).
struct VelocityProfileConfig {
  bool parabolic = false;
  std::array<double, 3> normal{0.0, 1.0, 0.0}; ///< parabolic: across the channel (normalized)
  double from = 0, to = 1;                     ///< parabolic: the walls at x . normal = from, to
  std::string where;                           ///< where the profile was given (none: uniform by default)
};

/// The flow models' initial condition (`initial:` one mapping).
enum class FlowInitialType { uniform, riemann, isentropic_vortex, taylor_green, acoustic_pulse };
const char* to_string(FlowInitialType t);
struct FlowInitialConfig {
  FlowInitialType type = FlowInitialType::uniform;
  FlowStateConfig state;                                   ///< uniform; acoustic-pulse: the mean state
  FlowStateConfig left, right;                             ///< riemann: n.x < position is left
  std::array<double, 3> normal{1.0, 0.0, 0.0};             ///< riemann, acoustic-pulse (normalized when parsed)
  double position = 0;                                     ///< riemann, acoustic-pulse (the pulse's centre)
  double width = 0.1, amplitude = 1e-3;                    ///< acoustic-pulse: p' = amplitude p exp(-(s/width)^2)
  double beta = 5;                                         ///< isentropic-vortex: strength
  std::array<double, 3> center{0.0, 0.0, 0.0};             ///< isentropic-vortex: (x, y) at t = 0
  std::array<double, 3> velocity{1.0, 1.0, 0.0};           ///< isentropic-vortex: the stream
  double length = 1, speed = 1, density = 1, pressure = 1; ///< taylor-green: L, V0, rho0, p0
  VelocityProfileConfig profile;                           ///< uniform: the velocity's profile
};

/// boundary.PATCH of the flow models; the one enum from the case to the kernels (the flow operators
/// store it per boundary face as std::int8_t).
enum class FlowBoundaryKind : std::int8_t {
  slip_wall,
  symmetry,
  supersonic_inflow,
  supersonic_outflow,
  farfield,
  no_slip_wall,
  subsonic_inflow,
  subsonic_outflow,
  velocity_inlet,
  mass_flow_inlet
};
/// The number of kinds (the kinds are 0 .. kFlowBoundaryKinds - 1; physics/flow_boundary.hpp maps each to its functor).
inline constexpr int kFlowBoundaryKinds = static_cast<int>(FlowBoundaryKind::mass_flow_inlet) + 1;
const char* to_string(FlowBoundaryKind k);
/// Walls and symmetry planes: the gradients' boundary values there are mirror images of the cell's
/// (docs/operators/muscl.md#stencil).
constexpr bool is_mirror(FlowBoundaryKind k) {
  return k == FlowBoundaryKind::slip_wall || k == FlowBoundaryKind::symmetry || k == FlowBoundaryKind::no_slip_wall;
}
struct FlowBoundaryConfig {
  FlowBoundaryKind kind = FlowBoundaryKind::slip_wall;
  FlowStateConfig state;                              ///< supersonic-inflow, farfield
  std::array<double, 3> wall_velocity{0.0, 0.0, 0.0}; ///< no-slip-wall (tangential: a moving wall)
  std::optional<double> wall_temperature;             ///< no-slip-wall: isothermal; none: adiabatic
  std::string velocity_where;                         ///< no-slip-wall, velocity-inlet: where `velocity` was given
  double total_pressure = 1, total_temperature = 1;   ///< subsonic-inflow
  std::optional<std::array<double, 3>> direction;     ///< subsonic-inflow, mass-flow-inlet (normalized); none: along -n
  std::string direction_where;                        ///< subsonic-inflow, mass-flow-inlet: where `direction` was
  double pressure = 1;                                ///< subsonic-outflow: the static pressure
  bool non_reflecting = false;           ///< subsonic-inflow, -outflow: non_reflecting given (docs/physics.md)
  double nr_length = 1, nr_sigma = 0.25; ///< its length L and sigma
  double temperature = 1;                ///< velocity-inlet, mass-flow-inlet: the static one
  std::array<double, 3> inlet_velocity{0.0, 0.0, 0.0}; ///< velocity-inlet (parabolic: the centre line's)
  VelocityProfileConfig profile;                       ///< velocity-inlet
  double mass_flow = 1;                                ///< mass-flow-inlet: through the whole patch
};

enum class InitialType { constant, gaussian, sine, sphere };
struct InitialConfig {
  InitialType type = InitialType::constant;
  double value = 0.0;                                    ///< constant
  std::array<double, 3> center{0.0, 0.0, 0.0};           ///< gaussian, sphere
  double width = 0.0, amplitude = 0.0, background = 0.0; ///< gaussian: A exp(-|x-c|^2 / w^2) + B
  std::array<int, 3> wavenumber{0, 0, 0};                ///< sine: A sin(2 pi k.(x - origin)/L + phase)
  double phase = 0.0;
  double radius = 0.0, inside = 0.0, outside = 0.0; ///< sphere
};

enum class BoundaryType { dirichlet, outflow, inflow };
struct BoundaryConfig {
  BoundaryType type = BoundaryType::outflow;
  bool exact = false;        ///< dirichlet: the exact solution
  std::vector<double> value; ///< one per component (dirichlet, inflow)
  std::string where;         ///< file:line of the entry (for checks against the mesh's patches)
};
const char* to_string(VelocityType v);
const char* to_string(InitialType t);
const char* to_string(BoundaryType t);

/// A cell field of the output files: `width` (1, or 3 for a vector) columns of a state array from
/// `column` on.
struct FieldLayout {
  std::string name;
  int column = 0, width = 1;
};
/// The fields `fvproxy run` can write for a model (output.fields), over the columns of the array the
/// solver hands to the output (scalar: u0, u1, ...; flow: density, momentum, total_energy, velocity,
/// pressure, temperature over 10 columns). kRankField is not among them.
std::vector<FieldLayout> output_field_layout(const PhysicsConfig& p);
/// The cells' slots for the state of their faces on non-reflecting patches in a checkpoint: a cell
/// has at most this many such faces (the flow solver refuses a mesh with more at set-up); each slot
/// holds a face's incoming characteristic and its reference impedance
/// (docs/physics.md#non-reflecting-subsonic-boundaries).
constexpr int kBoundarySlots = 3;
/// The fields of a checkpoint: the state itself (scalar u0...; flow density, momentum,
/// total_energy), and with `non_reflecting` boundaries the cells' slots after the state's columns:
/// w_nonreflecting_k, then z_nonreflecting_k (a face's characteristic and impedance in slot k).
std::vector<FieldLayout> checkpoint_field_layout(const PhysicsConfig& p, bool non_reflecting = false);

/// The sections as read: `initial` one per component (scalar model) or the flow models' one, and
/// `boundary` in file order (a flow model's conditions in flow_boundary, one per entry).
/// Whether a flow boundary of the case is non-reflecting (its checkpoints then hold the faces' state).
bool any_non_reflecting(const std::vector<FlowBoundaryConfig>& boundaries);

struct ModelOptions {
  PhysicsConfig physics;
  std::vector<InitialConfig> initial;                           ///< one per component (scalar model)
  FlowInitialConfig flow_initial;                               ///< the flow models'
  std::vector<std::pair<std::string, BoundaryConfig>> boundary; ///< patch name, in file order
  std::vector<FlowBoundaryConfig> flow_boundary;                ///< the flow models': one per boundary entry
  std::string boundary_where; ///< where the boundary section is (file:line, or the --set that gave it)
  std::string initial_where;  ///< where the initial section is (file:line, or the --set that gave it)
};

namespace detail {
class Reader;
}

/// `physics` of the case root (default: the scalar model without velocity or diffusion).
PhysicsConfig read_physics_options(const detail::Reader& r, const YAML::Node& root);
/// `initial` of the case root (required) for the model in m.physics; `box`: the mesh is a generated
/// box (some initial conditions need one).
void read_initial_options(const detail::Reader& r, const YAML::Node& root, bool box, ModelOptions& m);
/// `boundary` of the case root. Names are checked against the mesh's patches later
/// (solver/case_config.hpp: check_boundaries).
void read_boundary_options(const detail::Reader& r, const YAML::Node& root, ModelOptions& m);
/// The sections as resolved, added to `n` in the order the case file documents them.
void add_model_options_yaml(const ModelOptions& m, YAML::Node& n);

} // namespace fvproxy
