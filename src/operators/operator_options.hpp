#pragma once
// The case file's `operators` section (docs/inputs.md#operators): each operator's variant and the
// optimized variant's options. The case assembles the sections (solver/case_config.hpp).
#include <string>

#include <yaml-cpp/yaml.h>

#include "physics/euler_model.hpp" // flow::FluxType: operators.convection.flux
#include "physics/physics_options.hpp"

namespace fvproxy {

enum class Variant { naive, optimized };
enum class Gradient { green_gauss, least_squares };
enum class Limiter { none, barth_jespersen, venkatakrishnan };
/// How a face operator adds its faces' fluxes to the cells' rates: one atomic per face side and
/// variable, one thread per cell over its faces (each face evaluated twice), or the fluxes stored
/// per face and then summed per cell (each face evaluated once, no atomics: issue 39,
/// docs/operators/face-pass.md#accumulation). The gradients always gather.
enum class Scatter { atomic, gather, stored };
enum class Policy { range, team };
/// How a stage's face fluxes are computed: each operator its own pass, or convection and diffusion
/// in one pass (issue 39; operators/face_pass/face_pass.hpp).
enum class StepPasses { separate, fused };
/// operators.muscl.stencil: the cells the least-squares gradient and the limiter's extremes take
/// (operators/vertex_stencil.hpp; docs/operators/muscl.md#stencil): the face neighbours; every
/// vertex neighbour; every vertex neighbour for the cells at a node where two mirror planes meet,
/// the face neighbours elsewhere.
enum class Stencil { face, vertex, corners };
const char* to_string(Variant v);
const char* to_string(Gradient g);
const char* to_string(Limiter l);
const char* to_string(Scatter s);
const char* to_string(Policy p);
const char* to_string(StepPasses s);
const char* to_string(Stencil s);

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
  /// Venkatakrishnan's kappa: eps = kappa x the local size of each variable (physics/limiters.hpp's
  /// VenkatScale; docs/operators/convection.md#limiter).
  double venkatakrishnan_threshold = 0.015;
  Stencil stencil = Stencil::face;
  /// Gradient and limiter in one kernel (optimized variant, gather; docs/operators/muscl.md#fused).
  /// The default since it was measured faster everywhere (1.3-1.6x on an H100, 1.0-1.3x on CPU);
  /// where it does not apply (naive variant, atomic scatter, no limiter) the two passes run.
  bool fused = true;
};
/// operators.muscl.variables of the flow models: what MUSCL extrapolates to the faces.
enum class FlowVariables { conservative, primitive };
const char* to_string(FlowVariables v);
struct ConvectionConfig : OperatorOptions {
  int order = 2;
  flow::FluxType flux = flow::FluxType::hllc;         ///< flow models (physics/euler_model.hpp)
  FlowVariables variables = FlowVariables::primitive; ///< flow models (docs/physics.md#the-flow-defaults)
  bool entropy_fix = true;                            ///< flow models, flux: roe
  bool rotated = true;                                ///< flow models, flux: hllc | roe (flow::rotated)
  /// The flux's rotation threshold (flow::rotated): flow::kRotationThreshold where rotated, else 0.
  real rotation() const { return rotated ? real(flow::kRotationThreshold) : real(0); }
  /// flow models, flux: hllc | roe: the shear waves' dissipation floor (flow::shear_floor), a
  /// fraction of the face's mean speed; 0: none
  double shear_dissipation = flow::kShearDissipation;
  real shear() const { return real(shear_dissipation); }
};
struct DiffusionConfig : OperatorOptions {};
struct OperatorsConfig {
  MusclConfig muscl;
  ConvectionConfig convection;
  DiffusionConfig diffusion;
  /// `operators.step` (docs/operators/face-pass.md): fused needs both face operators optimized with
  /// one scatter, policy and team size.
  StepPasses step = StepPasses::separate;
};

namespace detail {
class Reader;
}

/// Whether convection and diffusion can share one face pass (operators.step: fused): both
/// optimized, with one scatter, launch policy and team size.
bool fusable_face_operators(const OperatorsConfig& ops);
/// operators.step's default: fused for the scalar and navier-stokes models where their face operators are fusable.
StepPasses default_step(const OperatorsConfig& ops, PhysicsModel model);

/// The scatter an operator runs: `run.deterministic` turns atomic into gather (stored and gather are
/// deterministic already).
inline Scatter resolved_scatter(Scatter s, bool deterministic) {
  return deterministic && s == Scatter::atomic ? Scatter::gather : s;
}
/// Throws InputError naming `key` where `s` is stored: the operator `what` (the gradients,
/// navier-stokes' separate viscous operator) has no stored accumulation (a benchmark's variants
/// reach the factories without read_operator_options, which refuses it in a case file).
void refuse_stored(Scatter s, const std::string& key, const std::string& what);

/// `operators` of the case root; `deterministic` (run.deterministic) forbids atomic scatters.
OperatorsConfig read_operator_options(const detail::Reader& r, const YAML::Node& root, bool deterministic,
                                      PhysicsModel model);
/// The section as resolved (the flow models' convection keys only for them).
YAML::Node operator_options_yaml(const OperatorsConfig& o, bool flow);

} // namespace fvproxy
