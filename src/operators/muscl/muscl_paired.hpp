#pragma once
// One cell pass for two gradient sets (docs/operators/muscl.md#paired): the navier-stokes step's
// MUSCL gradients and limiter of its N1 reconstructed variables and the unlimited gradients of the
// viscous fluxes' N2 variables (u, v, w, T) in one gather per cell. The two sets share the stencil:
// each face's connectivity and geometry, the cell's least-squares or Green-Gauss matrix and the
// launch are read once instead of once per set. Each component's sums are the same arithmetic, in
// the same order, as FusedMuscl (or GradientGather) on its own set: the same bits.
#include <memory>
#include <string>
#include <type_traits>

#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "operators/muscl/gradient_optimized.hpp"
#include "operators/muscl/limiter.hpp"
#include "operators/muscl/limiter_optimized.hpp"
#include "operators/operator_geometry.hpp"
#include "operators/operator_options.hpp"
#include "operators/part.hpp"

namespace fvproxy {

namespace optimized {

/// The two sets' gradients (grad1: N1 x 3, grad2: N2 x 3) and the first set's limiter values, one
/// cell per work item. L: the limiter functor, or void (unlimited: no extremes, no limiter write).
template <int N1, int N2, GradientMethod M, class L> struct PairedMuscl {
  static constexpr int N = N1 + N2;
  GradientGeometry g;
  PairedValues<N1> v;
  View2<real> grad1, limiter, grad2;
  VenkatScale<N1> scale; ///< Venkatakrishnan's threshold of the first set (limiter.hpp's venkat_scale)
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    real uc[N], acc[N][3];
    for (int k = 0; k < N; ++k) uc[k] = v.cell(c, k);
    Extremes<N1> e;
    e.reset();
    gather_sums<N, M>(g, v, c, uc, acc, [&](int k, real x) {
      if constexpr (!std::is_void_v<L>)
        if (k < N1) e.add(k, x - uc[k]);
    });
    real gr[N][3];
    solve<N, M>(g, c, acc, gr);
    for (int k = 0; k < N1; ++k)
      for (int i = 0; i < 3; ++i) grad1(c, 3 * k + i) = gr[k][i];
    for (int k = 0; k < N2; ++k)
      for (int i = 0; i < 3; ++i) grad2(c, 3 * k + i) = gr[N1 + k][i];
    if constexpr (!std::is_void_v<L>) {
      real u1[N1], g1[N1][3], phi[N1];
      for (int k = 0; k < N1; ++k) {
        u1[k] = uc[k];
        for (int i = 0; i < 3; ++i) g1[k][i] = gr[k][i];
      }
      limit<N1, L>(g, c, u1, g1, e, scale, phi);
      for (int k = 0; k < N1; ++k) limiter(c, k) = phi[k];
    }
  }
};

} // namespace optimized

/// The navier-stokes cell pass: MUSCL's gradients (and limiter values) of u1 and the viscous
/// gradients of u2 in one launch per part.
class PairedMusclOperator {
public:
  virtual ~PairedMusclOperator() = default;
  /// grad1 and, if limits(), limiter of the cells of `part` from (u1, ub1); grad2 from (u2, ub2).
  virtual void compute(ConstView2<real> u1, ConstView2<real> ub1, ConstView2<real> u2, ConstView2<real> ub2,
                       View2<real> grad1, View2<real> limiter, View2<real> grad2, Part part) const = 0;
  virtual bool limits() const = 0;
  /// What runs, for reports.
  virtual std::string description() const = 0;
};

/// Whether the paired pass applies to `cfg`: the optimized variant gathering (any stencil and
/// gradient method), fused (operators.muscl.fused); `deterministic` gathers too.
bool pairs_gradients(const MusclConfig& cfg, bool deterministic);

/// The pass for 5 reconstructed and 4 viscous components (the flow models'); `scale` empty: unlimited.
std::unique_ptr<PairedMusclOperator> make_paired_muscl(const Mesh& mesh, const OperatorGeometry& geom,
                                                       const MusclConfig& cfg, const LimiterScale& scale);

} // namespace fvproxy
