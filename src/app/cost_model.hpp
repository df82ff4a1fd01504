#pragma once
// Minimal-bytes and flop models of the operators (docs/performance.md), shared by `fvproxy bench`
// and `fvproxy perf`: every distinct array element an operator must read or write counted once
// (sizeof(real) per value, 4 bytes per index, 1 per orientation sign; arrays read and written —
// the rate — twice), so that effective bandwidths cannot be inflated by the model. Flops count the
// useful arithmetic of the optimized algorithm once per face or cell (a fused multiply-add is 2),
// not the duplicate face work of a gather.
#include "mesh/mesh.hpp"
#include "solver/case_config.hpp"

namespace fvproxy {

struct OperatorCost {
  double bytes = 0, flops = 0;
};

struct CostModel {
  OperatorCost muscl, convection, diffusion;
  OperatorCost step; ///< one time step of the case's integrator: every stage's rate and update
  /// The same step in the fewest passes per stage (muscl fused, fluxes fused with the update): the
  /// "fused minimal-bytes model" (docs/performance.md#method).
  OperatorCost step_fused;
};

/// The models for `cfg`'s operators and component count on `m`.
CostModel cost_model(const Mesh& m, const CaseConfig& cfg);

} // namespace fvproxy
