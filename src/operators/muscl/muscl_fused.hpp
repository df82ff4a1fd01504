#pragma once
// The fused MUSCL kernel (operators.muscl.fused: true; docs/operators/muscl.md#fused): the optimized
// gradient gather and the limiter in one pass per cell. The neighbour values the gradient sums read
// give the limiter's extremes as they go by, and the gradient stays in registers for the limiter's
// face loop, so each cell reads its neighbours' u, its faces' connectivity and u_c once (the two
// passes read them twice) and never reads back the gradient it wrote. The same arithmetic, in the
// same order, as GradientGather followed by LimiterGather.
#include <string>
#include <type_traits>

#include "mesh/mesh.hpp"
#include "operators/launch.hpp"
#include "operators/muscl/gradient_optimized.hpp"
#include "operators/muscl/limiter.hpp"
#include "operators/muscl/limiter_optimized.hpp"
#include "operators/muscl/muscl.hpp"
#include "operators/muscl/stencil_sums.hpp"
#include "operators/part.hpp"
#include "operators/vertex_stencil.hpp"

namespace fvproxy::optimized {

/// B: the bound applied to the limiter values after the limiter (NoBound, or the flow models'
/// positivity: flow_positivity_limit's check in the same pass).
template <int N, GradientMethod M, class L, class B = NoBound> struct FusedMuscl {
  GradientGeometry g;
  ConstView2<real> u, ub;
  View2<real> grad, limiter;
  VenkatScale<N> scale; ///< Venkatakrishnan's threshold (limiter.hpp's venkat_scale)
  B bound{};
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    real uc[N], acc[N][3];
    for (int k = 0; k < N; ++k) uc[k] = u(c, k);
    Extremes<N> e;
    e.reset();
    gather_sums<N, M>(g, Values{u, ub}, c, uc, acc, [&](int k, real v) { e.add(k, v - uc[k]); });
    real gr[N][3], phi[N];
    solve<N, M>(g, c, acc, gr);
    for (int k = 0; k < N; ++k)
      for (int i = 0; i < 3; ++i) grad(c, 3 * k + i) = gr[k][i];
    limit<N, L>(g, c, uc, gr, e, scale, phi);
    bound(g, c, uc, gr, phi);
    for (int k = 0; k < N; ++k) limiter(c, k) = phi[k];
  }
};

} // namespace fvproxy::optimized

namespace fvproxy {

/// The fused kernel as the muscl operator (make_muscl's, with NoBound; the flow models' with their
/// positivity bound: operators/flow/flow_muscl.hpp).
template <int N, optimized::GradientMethod M, class L, class B = optimized::NoBound> class FusedMusclOperator final
    : public MusclOperator {
public:
  FusedMusclOperator(const Mesh& m, const OperatorGeometry& og, const MusclConfig& cfg, const LimiterScale& scale,
                     const B& bound = {})
      : g_(optimized::gradient_geometry(m, og)), parts_(PartRanges::of(m)), launch_{cfg.policy, cfg.team_size},
        scale_(venkat_scale<N>(scale, cfg.venkatakrishnan_threshold)), bound_(bound),
        prepass_(M == optimized::GradientMethod::least_squares ? StencilPrepass<N>(og.stencil, parts_)
                                                               : StencilPrepass<N>()),
        note_(stencil_note(og.stencil, m.n_gradient_cells()) + prepass_.note()) {}
  void compute(ConstView2<real> u, ConstView2<real> ub, View2<real> grad, View2<real> limiter,
               Part part) const override {
    prepass_.run(g_, optimized::Values{u, ub}, part);
    const optimized::FusedMuscl<N, M, L, B> f{prepass_.reading(g_), u, ub, grad, limiter, scale_, bound_};
    launch("fvproxy::muscl::fused", parts_.cells(part), launch_, f);
  }
  bool limits() const override { return true; }
  std::string gradient_description() const override {
    return std::string("optimized/fused/") + to_string(launch_.policy) +
           (launch_.policy == Policy::team ? "/" + std::to_string(launch_.team_size) : "") + note_;
  }
  std::string limiter_description() const override {
    return std::is_same_v<B, optimized::NoBound> ? "fused (in the gradient kernel)"
                                                 : "fused (in the gradient kernel, with the positivity check)";
  }

private:
  optimized::GradientGeometry g_;
  PartRanges parts_;
  LaunchOptions launch_;
  VenkatScale<N> scale_;
  B bound_;
  StencilPrepass<N> prepass_; ///< the corners stencil's entries summed first (least squares)
  std::string note_;
};

} // namespace fvproxy
