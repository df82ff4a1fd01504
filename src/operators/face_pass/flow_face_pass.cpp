// The navier-stokes face pass's factory (flow_face_pass.hpp).
#include "operators/face_pass/flow_face_pass.hpp"

#include <stdexcept>

#include "core/error.hpp"
#include "operators/face_pass/flow_face_pass_impl.hpp"

namespace fvproxy {

std::unique_ptr<FlowFacePassOperator> make_flow_face_pass(const Mesh& mesh, const OperatorGeometry& geom,
                                                          const FlowConvectionConfig& conv,
                                                          const FlowViscousConfig& visc,
                                                          const std::vector<FlowPatchBC>& patches, bool deterministic) {
  if (patches.size() != mesh.patches.size())
    throw std::logic_error("make_flow_face_pass: " + std::to_string(patches.size()) + " boundary conditions for " +
                           std::to_string(mesh.patches.size()) + " patches");
  // read_operator_options refuses these in a case file; a benchmark's variants come here directly
  OperatorsConfig ops;
  static_cast<OperatorOptions&>(ops.convection) = conv;
  static_cast<OperatorOptions&>(ops.diffusion) = visc;
  if (!fusable_face_operators(ops))
    throw InputError("operators.step", "step: fused needs the optimized convection and diffusion with one scatter, "
                                       "launch policy and team size");
  const Scatter scatter = resolved_scatter(conv.scatter, deterministic);
  switch (conv.flux) {
  case flow::FluxType::rusanov: return flow_detail::make_face_pass_rusanov(mesh, geom, conv, visc, patches, scatter);
  case flow::FluxType::hllc: return flow_detail::make_face_pass_hllc(mesh, geom, conv, visc, patches, scatter);
  case flow::FluxType::roe: break;
  }
  return flow_detail::make_face_pass_roe(mesh, geom, conv, visc, patches, scatter);
}

} // namespace fvproxy
