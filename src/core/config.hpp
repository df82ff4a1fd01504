#pragma once
// The case file (YAML) as typed, validated structs. docs/inputs.md is the contract; every key is
// documented there. Errors name the file:line (or the `--set` that gave the value)
// and the key path, and suggest the closest valid key for unknown ones.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace fvproxy {

enum class ElementKind { hex, tet, prism };
enum class Ordering { none, zorder, hilbert, rcm, random };
/// How the cells are divided between MPI ranks (mesh.partition).
enum class PartitionMethod { metis, hilbert, zorder, blocks, ptscotch };

const char* to_string(ElementKind e);
const char* to_string(Ordering o);
/// Every ordering, in the order reports list them.
const std::vector<Ordering>& all_orderings();
const char* to_string(PartitionMethod m);
/// Every partition method, in the order reports list them.
const std::vector<PartitionMethod>& all_partition_methods();

struct BoxConfig {
  std::array<int, 3> cells{0, 0, 0};
  ElementKind element = ElementKind::hex;
  std::array<double, 3> lengths{1.0, 1.0, 1.0};
  std::array<double, 3> origin{0.0, 0.0, 0.0};
  double perturb = 0.0; ///< node jitter, fraction of local spacing
  std::array<bool, 3> periodic{false, false, false};
  std::uint64_t seed = 1;
};

struct MeshConfig {
  std::optional<BoxConfig> generate; ///< exactly one of generate | file
  std::string file;                  ///< resolved path (relative to the case file's folder)
  std::string file_as_written;       ///< as written in the case file
  Ordering reorder = Ordering::zorder;
  std::uint64_t reorder_seed = 1;
  PartitionMethod partition = PartitionMethod::metis; ///< ignored on one rank
  std::string partition_where;                        ///< where mesh.partition was given (for errors about the method)
};

/// The parsed YAML tree of one case plus where each part came from (file or --set).
class ConfigSource {
public:
  /// Reads `path` (InputError naming file:line on a YAML syntax error or unreadable file).
  static ConfigSource from_file(const std::string& path);
  /// Parses YAML text given inline; `name` stands in for the file name in messages.
  static ConfigSource from_string(const std::string& text, const std::string& name);

  /// Applies `KEY=VALUE` (VALUE parsed as YAML). InputError on a malformed assignment.
  void apply_set(const std::string& assignment);

  const YAML::Node& root() const { return root_; }
  const std::string& file() const { return file_; }
  /// Folder relative paths in the case are resolved against.
  const std::string& base_dir() const { return base_dir_; }
  /// File stem of the case file (the default case name).
  const std::string& stem() const { return stem_; }
  /// "case.yaml:12:5" for a node read from the file, "--set a.b=V" for one given on the CLI.
  std::string locate(const YAML::Node& node, const std::string& key_path) const;

private:
  std::string file_, base_dir_, stem_;
  YAML::Node root_;
  std::vector<std::pair<std::string, std::string>> sets_; // key path, original assignment
};

// --- solver sections (fvproxy run; docs/inputs.md#solver-sections) ------------------------------

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

/// The flow models' initial condition (`initial:` one mapping).
enum class FlowInitialType { uniform, riemann, isentropic_vortex, taylor_green };
const char* to_string(FlowInitialType t);
struct FlowInitialConfig {
  FlowInitialType type = FlowInitialType::uniform;
  FlowStateConfig state;                                   ///< uniform
  FlowStateConfig left, right;                             ///< riemann: n.x < position is left
  std::array<double, 3> normal{1.0, 0.0, 0.0};             ///< riemann (normalized when parsed)
  double position = 0;                                     ///< riemann
  double beta = 5;                                         ///< isentropic-vortex: strength
  std::array<double, 3> center{0.0, 0.0, 0.0};             ///< isentropic-vortex: (x, y) at t = 0
  std::array<double, 3> velocity{1.0, 1.0, 0.0};           ///< isentropic-vortex: the stream
  double length = 1, speed = 1, density = 1, pressure = 1; ///< taylor-green: L, V0, rho0, p0
};

/// boundary.PATCH of the flow models.
enum class FlowBoundaryKind {
  slip_wall,
  symmetry,
  supersonic_inflow,
  supersonic_outflow,
  farfield,
  no_slip_wall,
  subsonic_inflow,
  subsonic_outflow
};
const char* to_string(FlowBoundaryKind k);
struct FlowBoundaryConfig {
  FlowBoundaryKind kind = FlowBoundaryKind::slip_wall;
  FlowStateConfig state;                              ///< supersonic-inflow, farfield
  std::array<double, 3> wall_velocity{0.0, 0.0, 0.0}; ///< no-slip-wall (tangential: a moving wall)
  std::optional<double> wall_temperature;             ///< no-slip-wall: isothermal; none: adiabatic
  std::string velocity_where;                         ///< no-slip-wall: where `velocity` was given
  double total_pressure = 1, total_temperature = 1;   ///< subsonic-inflow
  std::optional<std::array<double, 3>> direction;     ///< subsonic-inflow (normalized); none: along -n
  double pressure = 1;                                ///< subsonic-outflow: the static pressure
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

enum class Variant { naive, optimized };
enum class Gradient { green_gauss, least_squares };
enum class Limiter { none, barth_jespersen, venkatakrishnan };
enum class Scatter { atomic, gather };
enum class Policy { range, team };
const char* to_string(Variant v);
const char* to_string(Gradient g);
const char* to_string(Limiter l);
const char* to_string(Scatter s);
const char* to_string(Policy p);

/// Options every operator has; scatter/policy/team_size belong to the optimized variant.
struct OperatorOptions {
  Variant variant = Variant::optimized;
  Scatter scatter = Scatter::gather;
  Policy policy = Policy::range;
  int team_size = 128;
};
struct MusclConfig : OperatorOptions {
  Gradient gradient = Gradient::least_squares;
  Limiter limiter = Limiter::venkatakrishnan;
  double venkatakrishnan_k = 5.0;
  /// Gradient and limiter in one kernel (optimized variant, gather; docs/operators/muscl.md#fused).
  /// The default since it was measured faster everywhere (1.3-1.6x on an H100, 1.0-1.3x on CPU);
  /// where it does not apply (naive variant, atomic scatter, no limiter) the two passes run.
  bool fused = true;
};
/// operators.convection.flux of the flow models (physics/euler_model.hpp's FluxType by name).
enum class FlowFlux { rusanov, hllc, roe };
/// operators.muscl.variables of the flow models: what MUSCL extrapolates to the faces.
enum class FlowVariables { conservative, primitive };
const char* to_string(FlowFlux f);
const char* to_string(FlowVariables v);
struct ConvectionConfig : OperatorOptions {
  int order = 2;
  FlowFlux flux = FlowFlux::hllc;                     ///< flow models
  FlowVariables variables = FlowVariables::primitive; ///< flow models (docs/physics.md#the-flow-defaults)
  bool entropy_fix = true;                            ///< flow models, flux: roe
};
struct DiffusionConfig : OperatorOptions {};
struct OperatorsConfig {
  MusclConfig muscl;
  ConvectionConfig convection;
  DiffusionConfig diffusion;
};

/// The halo exchange's variant (parallel.halo.variant, docs/parallel.md#halo-exchange): naive =
/// whole arrays through the host, blocking, no overlap; optimized = device pack/unpack, non-blocking
/// messages, inner cells computed while they fly.
enum class HaloVariant { naive, optimized };
const char* to_string(HaloVariant v);
/// How the optimized halo's packed rows travel between ranks (parallel.halo.transport,
/// docs/parallel.md#transports): `automatic` ("auto") picks the fastest this build, MPI library and
/// placement allow (CUDA IPC, else MPI on the packed buffers where it can read them, else staged);
/// `ipc`: device to device through CUDA IPC (ranks of one node that see each other's GPUs);
/// `mpi`: MPI on the packed buffers (host backends; a CUDA-aware MPI); `staged`: through pinned host
/// memory. A transport that cannot be had falls back (with a message) to the best that can.
enum class HaloTransport { automatic, ipc, mpi, staged };
const char* to_string(HaloTransport t);
/// parallel.halo: the variant, for the optimized one the transport, and the ghost layers (1: the
/// gradients and limiter values exchanged after the state; 2: the state of two layers exchanged
/// once, the first layer's gradients computed here; docs/parallel.md#two-ghost-layers).
struct HaloSettings {
  HaloVariant variant = HaloVariant::optimized;
  HaloTransport transport = HaloTransport::automatic;
  int layers = 1; ///< a case's default: 1 for the scalar model, 2 for the flow models (parse_case)
  HaloSettings() = default;
  HaloSettings(HaloVariant v, HaloTransport t = HaloTransport::automatic, int l = 1) // NOLINT
      : variant(v), transport(t), layers(l) {}
};
struct ParallelConfig {
  HaloSettings halo;
};

enum class Integrator { euler, ssprk2, ssprk3 };
/// The integrator's stable CFL limit in fvproxy's definition of the CFL number (solver/time_step.hpp:
/// lambda dt <= 1 keeps a first-order forward Euler update a convex combination): the scheme's SSP
/// coefficient, 1 for all three. A larger time.cfl is warned about, more than twice it refused.
inline double cfl_limit(Integrator) {
  return 1.0;
}
/// time.cfl's default: 0.5 for the scalar model (its MUSCL halves the first-order bound in theory);
/// for the flow models, whose rate is the standard spectral radius (solver/flow_solver.hpp), the
/// largest CFL of 0.8, 0.9, 1.0 (1: the integrators' limit, above which a run warns) at which every
/// case of docs/physics.md#the-flow-defaults stays stable and positive with that integrator
/// (measured: perf/toro.py cfl).
inline double default_cfl(bool flow, Integrator i) {
  if (!flow) return 0.5;
  return i == Integrator::euler ? 0.8 : 1.0; // ssprk2, ssprk3: every case stable up to their limit, 1
}
/// The longest case name (`case`, or the case file's stem): it names the output files.
inline constexpr std::size_t kMaxCaseName = 200;
/// The largest case file read (a YAML case is a few kB; anything this large is not one).
inline constexpr std::uintmax_t kMaxCaseFileBytes = std::uintmax_t(16) << 20;
/// The most steps a run may have (the non-finite and bound checks key the step in 28 bits).
inline constexpr long long kMaxSteps = (1LL << 28) - 1;
const char* to_string(Integrator i);
const char* to_string(VelocityType v);
const char* to_string(InitialType t);
const char* to_string(BoundaryType t);
struct TimeConfig {
  Integrator integrator = Integrator::ssprk3;
  double cfl = 0.5;               ///< used when dt is not given (default_cfl when not given)
  std::optional<double> dt;       ///< fixed time step
  std::optional<double> end_time; ///< exactly one of end_time | steps
  std::optional<long long> steps;
  /// Flow models: stop once every field's residual (docs/physics.md#residuals) is below this.
  std::optional<double> residual_tolerance;
};

/// When something happens during a run: every N steps, every T of simulated time, or (checkpoints)
/// every S wall-clock seconds.
struct EveryConfig {
  enum class Kind { none, steps, time, wall_seconds } kind = Kind::none;
  double value = 0; ///< N (steps), T or S
};

/// The cell field `output.fields` may add to the components: the MPI rank that owns each cell
/// (the partition, for ParaView; 0 on one rank).
inline constexpr const char* kRankField = "rank";

struct OutputConfig {
  EveryConfig every;               ///< none: the final state only
  EveryConfig integrals;           ///< flow models: integrals.csv rows (kinetic energy, ...); none: off
  std::vector<std::string> fields; ///< empty: every component (u0, u1, ...); may list kRankField
};

struct CheckpointConfig {
  EveryConfig every; ///< none: only at run.wall_limit, SIGTERM or SIGINT
  int keep = 2;      ///< the newest `keep` checkpoints are kept, older ones removed
};

struct RunConfig {
  double progress_interval = 2.0;
  std::optional<double> wall_limit;
  bool profile = false;
  bool deterministic = false;
  /// Max-principle monitor: the run stops (exit 1) when a value leaves [lo - t (hi - lo),
  /// hi + t (hi - lo)], [lo, hi] the range of the initial field and the boundary values; empty = off.
  std::optional<double> bound_tolerance = 1.0;
};

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
/// The fields of a checkpoint (the state itself: scalar u0...; flow density, momentum, total_energy).
std::vector<FieldLayout> checkpoint_field_layout(const PhysicsConfig& p);

/// The component counts this build instantiates (CMake FVPROXY_COMPONENTS).
const std::vector<int>& component_list();

/// The validated configuration.
struct CaseConfig {
  std::string name;
  std::string source_file;
  MeshConfig mesh;
  // Solver sections: filled by parse_case (not by parse_case_mesh).
  PhysicsConfig physics;
  std::vector<InitialConfig> initial;                           ///< one per component (scalar model)
  FlowInitialConfig flow_initial;                               ///< the flow models'
  std::vector<std::pair<std::string, BoundaryConfig>> boundary; ///< patch name, in file order
  std::vector<FlowBoundaryConfig> flow_boundary;                ///< the flow models': one per boundary entry
  std::string boundary_where; ///< where the boundary section is (file:line, or the --set that gave it)
  std::string initial_where;  ///< where the initial section is (file:line, or the --set that gave it)
  OperatorsConfig operators;
  ParallelConfig parallel;
  TimeConfig time;
  std::string output_dir; ///< output.dir [out/<case>]
  OutputConfig output;
  CheckpointConfig checkpoint;
  RunConfig run;
  bool has_solver = false; ///< parse_case (not parse_case_mesh) filled the solver sections

  /// The resolved configuration of the validated sections (defaults filled in) as YAML.
  YAML::Node resolved() const;
};

/// Validates `case` and `mesh` (what `fvproxy mesh` reads) and the top-level key names.
CaseConfig parse_case_mesh(const ConfigSource& src);

/// Validates every section (what `fvproxy run` reads). Boundary patch names are checked against
/// the mesh later (check_boundaries), once it is built.
CaseConfig parse_case(const ConfigSource& src);

/// Every non-periodic patch of the mesh must have a boundary entry, and every entry a patch.
void check_boundaries(const CaseConfig& c, const std::vector<std::string>& mesh_patches);

/// Levenshtein distance (for "did you mean" suggestions).
std::size_t edit_distance(const std::string& a, const std::string& b);
/// The candidate closest to `key`, or "" when none is reasonably close.
std::string closest_key(const std::string& key, const std::vector<std::string>& candidates);

} // namespace fvproxy
