#pragma once
// The flow models' MUSCL passes: the muscl operator's fused kernels with the positivity check of the
// reconstruction in the same pass (flow_positivity.hpp; flow_positivity_limit as a kernel of its own
// otherwise), and for navier-stokes the MUSCL and viscous gradients in one cell pass
// (operators/muscl/muscl_paired.hpp).
#include <memory>

#include "mesh/mesh.hpp"
#include "operators/flow/flow_convection.hpp"
#include "operators/muscl/limiter.hpp"
#include "operators/muscl/muscl.hpp"
#include "operators/muscl/muscl_paired.hpp"
#include "operators/operator_geometry.hpp"
#include "operators/operator_options.hpp"
#include "physics/flow.hpp"

namespace fvproxy {

/// The positivity check of a fused pass: off, or on the reconstructed variables' kind with the gas.
struct FlowPositivityCheck {
  bool on = false;
  FlowVariables reconstruction = FlowVariables::primitive;
  flow::IdealGas gas;
};

/// The paired pass for 5 reconstructed and 4 viscous components; `scale` empty: unlimited (no check).
/// `shared_velocity`: the caller guarantees that columns 0..2 of u2 equal columns 1..3 of u1 in every
/// cell row (MUSCL on (rho, u, p); not the boundary rows), which the pass then reads once.
/// `positivity.on` (a limited pass only): the check in the pass, on `positivity.reconstruction`'s
/// variables (primitive with a shared velocity, else conservative).
std::unique_ptr<PairedMusclOperator> make_paired_muscl(const Mesh& mesh, const OperatorGeometry& geom,
                                                       const MusclConfig& cfg, const LimiterScale& scale,
                                                       bool shared_velocity, const FlowPositivityCheck& positivity);

/// The muscl operator of the flow models' 5 reconstructed variables: the fused kernel with the
/// positivity check where make_muscl would fuse (then positivity_checked() is true), else make_muscl's.
struct FlowMuscl {
  std::unique_ptr<MusclOperator> muscl;
  bool positivity_checked = false; ///< the pass checks positivity: no flow_positivity_limit after it
};
FlowMuscl make_flow_muscl(const Mesh& mesh, const OperatorGeometry& geom, const MusclConfig& cfg, bool deterministic,
                          const LimiterScale& scale, const FlowPositivityCheck& positivity);

} // namespace fvproxy
