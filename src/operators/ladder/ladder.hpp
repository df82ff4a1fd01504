#pragma once
// The ablation ladder (docs/performance.md#the-ablation-ladder-what-each-advice-buys): for each
// operator, variants from the naive port to the optimized one with one porting mistake removed at
// a time, cumulatively:
//
//   0 naive        the naive variant as it is (MDRange over (entity, component), atomics)
//   1 range        MDRangePolicy -> RangePolicy over entities, the component loop inside
//   2 static       run-time sizes (component count, dimension) -> compile-time (template N, 3-D)
//   3 registers    repeated global reads/writes -> registers (each input read once, each output
//                  written once per entity)
//   4 branchless   run-time branches (method, limiter type, order, interior/boundary, boundary type)
//                  -> templates and separate loops
//   5 gather       per-component atomics -> one write per cell (a gather)
//   6 precomputed  recomputed geometry and divisions -> OperatorGeometry (precomputed vectors and
//                  inverses): the optimized variant's kernels, gather, RangePolicy
//
// then the optimized variant with its defaults (a perf spec's `defaults: true`). Every step computes
// the same mathematics (the physics functors of src/physics) and agrees with the naive variant to
// round-off (tests/test_ladder.cpp). Where a step does not apply to a kernel (the limiter is a
// gather from the start: step 5 leaves it as step 4 had it) that kernel stays as it was.
//
// Only for the benchmark paths (`fvproxy perf` specs' `ladder: k`, `fvproxy bench --variants
// ladder<k>`): `fvproxy run` cannot select a step. Instantiated for 1 and 5 components only (build
// time): other counts are refused with an InputError. The operators cover Part::all only (every
// owned cell and face of a rank; scatters add nothing to ghost rows).
#include <memory>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "operators/convection/convection.hpp"
#include "operators/diffusion/diffusion.hpp"
#include "operators/muscl/gradient.hpp"
#include "operators/muscl/limiter.hpp"
#include "operators/operator_geometry.hpp"
#include "operators/operator_options.hpp"
#include "physics/physics_options.hpp"

namespace fvproxy {

/// Steps 0 .. kLadderSteps - 1.
inline constexpr int kLadderSteps = 7;

/// "naive", "range", "static", "registers", "branchless", "gather", "precomputed".
const char* ladder_step_name(int step);

/// InputError naming `key` unless `components` is 1 or 5 (the counts the ladder is built for).
void check_ladder_components(int components, const std::string& key);

/// InputError naming `key` unless 0 <= step < kLadderSteps.
void check_ladder_step(long long step, const std::string& key);

struct LadderMuscl {
  std::unique_ptr<GradientOperator> gradient;
  std::unique_ptr<LimiterOperator> limiter;
};

/// The muscl operator's gradient and limiter at step `step`; `cfg` gives the gradient method, the
/// limiter and its threshold (its variant and launch options are ignored: the step decides them).
LadderMuscl make_ladder_muscl(int step, const Mesh& mesh, const OperatorGeometry& geom, const MusclConfig& cfg,
                              int components, const LimiterScale& scale);

std::unique_ptr<ConvectionOperator> make_ladder_convection(int step, const Mesh& mesh, const OperatorGeometry& geom,
                                                           const ConvectionConfig& cfg, View1<real> phi, int components,
                                                           const std::vector<BoundaryType>& patch_types);

std::unique_ptr<DiffusionOperator> make_ladder_diffusion(int step, const Mesh& mesh, const OperatorGeometry& geom,
                                                         const DiffusionConfig& cfg, const std::vector<double>& kappa,
                                                         const std::vector<BoundaryType>& patch_types);

} // namespace fvproxy
