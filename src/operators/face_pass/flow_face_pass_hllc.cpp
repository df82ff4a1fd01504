// The navier-stokes face pass with the hllc flux (flow_face_pass_impl.hpp).
#include "operators/face_pass/flow_face_pass_impl.hpp"

namespace fvproxy::flow_detail {

std::unique_ptr<FlowFacePassOperator> make_face_pass_hllc(const Mesh& m, const OperatorGeometry& og,
                                                          const FlowConvectionConfig& cfg,
                                                          const FlowViscousConfig& visc,
                                                          const std::vector<FlowPatchBC>& patches, Scatter scatter) {
  return make_face_pass(m, og, flow::Hllc{cfg.rotation(), cfg.shear()}, cfg, visc, patches, scatter);
}

} // namespace fvproxy::flow_detail
