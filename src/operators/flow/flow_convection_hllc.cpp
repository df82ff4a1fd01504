// The optimized compressible convection operator with the HLLC flux (flow_convection_optimized.hpp).
#include "operators/flow/flow_convection_optimized.hpp"

namespace fvproxy::flow_detail {

std::unique_ptr<FlowConvectionOperator> make_optimized_hllc(const Mesh& m, const OperatorGeometry& og,
                                                            const FlowConvectionConfig& cfg,
                                                            const std::vector<FlowPatchBC>& patches, Scatter scatter) {
  return make_optimized(m, og, flow::Hllc{cfg.rotation(), cfg.shear()}, cfg, patches, scatter);
}

} // namespace fvproxy::flow_detail
