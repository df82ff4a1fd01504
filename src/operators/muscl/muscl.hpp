#pragma once
// The muscl operator as the solver, `bench` and `perf` run it: the cell gradients (gradient.hpp) and,
// when the reconstruction is limited, the limiter values (limiter.hpp), either in two passes (a
// gradient kernel, then a limiter kernel) or, under `operators.muscl.fused: true`, in one fused
// kernel per cell (muscl_fused.hpp; docs/operators/muscl.md#fused). Both give the same values.
#include <memory>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "operators/muscl/limiter.hpp"
#include "operators/operator_geometry.hpp"
#include "operators/operator_options.hpp"
#include "operators/part.hpp"

namespace fvproxy {

class MusclOperator {
public:
  virtual ~MusclOperator() = default;
  /// grad of the owned cells of `part` (operators/part.hpp) and, if limits(), their limiter values.
  /// Part::inner reads no ghost row of u; Part::frontier needs them; a scatter's inner part comes first.
  virtual void compute(ConstView2<real> u, ConstView2<real> ub, View2<real> grad, View2<real> limiter,
                       Part part = Part::all) const = 0;
  /// Whether compute() writes the limiter.
  virtual bool limits() const = 0;
  /// What runs for the gradient and for the limiter ("off" when it does not limit), for reports.
  virtual std::string gradient_description() const = 0;
  virtual std::string limiter_description() const = 0;
  /// Both, in one line.
  std::string description() const {
    return limits() ? gradient_description() + " + " + limiter_description() : gradient_description();
  }
};

/// The operator `cfg` selects for `components` components. `scale` (the components' reference
/// values and groups: LimiterScale, limiter.hpp) switches the limiter on; empty: gradients only. Under
/// `deterministic` every kernel gathers. cfg.fused fuses the two passes where there are two to
/// fuse (a limiter other than none).
std::unique_ptr<MusclOperator> make_muscl(const Mesh& mesh, const OperatorGeometry& geom, const MusclConfig& cfg,
                                          int components, bool deterministic, const LimiterScale& scale);

/// Whether `cfg` runs the fused cell kernels (operators.muscl.fused with the optimized variant's
/// gather; `deterministic` gathers too): make_muscl's fused gradient + limiter where there is a
/// limiter, and the flow models' paired pass and positivity check in the pass (operators/flow/flow_muscl.hpp).
bool fuses_passes(const MusclConfig& cfg, bool deterministic);

class GradientOperator;
/// Two given passes as one operator (the ablation ladder's steps: operators/ladder/ladder.hpp);
/// `limiter` null: gradients only.
std::unique_ptr<MusclOperator> make_two_pass_muscl(std::unique_ptr<GradientOperator> gradient,
                                                   std::unique_ptr<LimiterOperator> limiter);

} // namespace fvproxy
