// The navier-stokes face pass with the roe flux (flow_face_pass_impl.hpp).
#include "operators/face_pass/flow_face_pass_impl.hpp"

namespace fvproxy::flow_detail {

std::unique_ptr<FlowFacePassOperator> make_face_pass_roe(const Mesh& m, const OperatorGeometry& og,
                                                         const FlowConvectionConfig& cfg, const FlowViscousConfig& visc,
                                                         const std::vector<FlowPatchBC>& patches, Scatter scatter) {
  return make_face_pass(m, og, flow::Roe{cfg.entropy_fix, cfg.rotation(), cfg.shear()}, cfg, visc, patches, scatter);
}

} // namespace fvproxy::flow_detail
