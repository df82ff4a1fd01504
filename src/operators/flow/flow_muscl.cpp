// The flow models' MUSCL passes (flow_muscl.hpp): the fused kernels with the positivity check, and
// the navier-stokes paired pass; one instantiation per gradient method, limiter, velocity sharing and
// check.
#include "operators/flow/flow_muscl.hpp"

#include <stdexcept>
#include <string>
#include <type_traits>

#include "operators/flow/flow_positivity.hpp"
#include "operators/launch.hpp"
#include "operators/muscl/muscl_fused.hpp"
#include "operators/muscl/stencil_sums.hpp"
#include "operators/vertex_stencil.hpp"
#include "physics/limiters.hpp"

namespace fvproxy {

namespace {

constexpr int kReconstructed = flow::kVariables, kViscous = 4; // (rho, u, v, w, p) or U; (u, v, w, T)
constexpr int kPaired = kReconstructed + kViscous;
using optimized::GradientMethod;
using optimized::NoBound;

template <GradientMethod M, class L, bool Shared, class B> class PairedPass final : public PairedMusclOperator {
public:
  PairedPass(const Mesh& m, const OperatorGeometry& og, const MusclConfig& cfg, const LimiterScale& scale,
             const B& bound)
      : g_(optimized::gradient_geometry(m, og)), parts_(PartRanges::of(m)), launch_{cfg.policy, cfg.team_size},
        bound_(bound), prepass_(M == GradientMethod::least_squares ? StencilPrepass<kPaired>(og.stencil, parts_)
                                                                   : StencilPrepass<kPaired>()),
        note_(stencil_note(og.stencil, m.n_gradient_cells()) + prepass_.note()) {
    if constexpr (!std::is_void_v<L>) scale_ = venkat_scale<kReconstructed>(scale, cfg.venkatakrishnan_threshold);
  }
  void compute(ConstView2<real> u1, ConstView2<real> ub1, ConstView2<real> u2, ConstView2<real> ub2, View2<real> grad1,
               View2<real> limiter, View2<real> grad2, Part part) const override {
    using Kernel = optimized::PairedMuscl<kReconstructed, kViscous, M, L, Shared, B>;
    const optimized::PairedValues<kReconstructed> values{u1, ub1, u2, ub2};
    prepass_.run(g_, values, part);
    launch("fvproxy::muscl::paired", parts_.cells(part), launch_,
           Kernel{prepass_.reading(g_), values, grad1, limiter, grad2, scale_, bound_});
  }
  bool limits() const override { return !std::is_void_v<L>; }
  std::string description() const override {
    return std::string("optimized/paired/") + (Shared ? "shared velocity/" : "") + to_string(launch_.policy) +
           (launch_.policy == Policy::team ? "/" + std::to_string(launch_.team_size) : "") +
           (std::is_same_v<B, NoBound> ? "" : " with the positivity check") + note_;
  }

private:
  optimized::GradientGeometry g_;
  PartRanges parts_;
  LaunchOptions launch_;
  VenkatScale<kReconstructed> scale_{};
  B bound_;
  StencilPrepass<kPaired> prepass_; ///< the corners stencil's entries summed first (least squares)
  std::string note_;
};

/// The check's functor for the paired pass: MUSCL on W with a shared velocity, else on U.
template <bool Shared> using PairedPositivity =
    FlowPositivity<Shared ? FlowVariables::primitive : FlowVariables::conservative>;

template <GradientMethod M, class L, bool Shared>
std::unique_ptr<PairedMusclOperator> with_check(const Mesh& m, const OperatorGeometry& og, const MusclConfig& cfg,
                                                const LimiterScale& scale, const FlowPositivityCheck& positivity) {
  if (!positivity.on) return std::make_unique<PairedPass<M, L, Shared, NoBound>>(m, og, cfg, scale, NoBound{});
  const FlowVariables expected = Shared ? FlowVariables::primitive : FlowVariables::conservative;
  if (positivity.reconstruction != expected)
    throw std::logic_error("make_paired_muscl: the positivity check of MUSCL on W needs the shared velocity");
  using B = PairedPositivity<Shared>;
  return std::make_unique<PairedPass<M, L, Shared, B>>(m, og, cfg, scale, B{positivity.gas});
}

template <GradientMethod M, bool Shared>
std::unique_ptr<PairedMusclOperator> paired_with_limiter(const Mesh& m, const OperatorGeometry& og,
                                                         const MusclConfig& cfg, const LimiterScale& scale,
                                                         const FlowPositivityCheck& positivity) {
  if (scale.empty() || cfg.limiter == Limiter::none) // unlimited: no check (flow_positivity_limit's rule)
    return std::make_unique<PairedPass<M, void, Shared, NoBound>>(m, og, cfg, scale, NoBound{});
  if (cfg.limiter == Limiter::barth_jespersen)
    return with_check<M, BarthJespersen, Shared>(m, og, cfg, scale, positivity);
  return with_check<M, Venkatakrishnan, Shared>(m, og, cfg, scale, positivity);
}

template <GradientMethod M>
std::unique_ptr<PairedMusclOperator> paired_with_method(const Mesh& m, const OperatorGeometry& og,
                                                        const MusclConfig& cfg, const LimiterScale& scale,
                                                        bool shared_velocity, const FlowPositivityCheck& positivity) {
  if (shared_velocity) return paired_with_limiter<M, true>(m, og, cfg, scale, positivity);
  return paired_with_limiter<M, false>(m, og, cfg, scale, positivity);
}

template <GradientMethod M, class L>
std::unique_ptr<MusclOperator> fused_with_check(const Mesh& m, const OperatorGeometry& og, const MusclConfig& cfg,
                                                const LimiterScale& scale, const FlowPositivityCheck& positivity) {
  if (positivity.reconstruction == FlowVariables::primitive) {
    using B = FlowPositivity<FlowVariables::primitive>;
    return std::make_unique<FusedMusclOperator<kReconstructed, M, L, B>>(m, og, cfg, scale, B{positivity.gas});
  }
  using B = FlowPositivity<FlowVariables::conservative>;
  return std::make_unique<FusedMusclOperator<kReconstructed, M, L, B>>(m, og, cfg, scale, B{positivity.gas});
}

template <GradientMethod M>
std::unique_ptr<MusclOperator> fused_with_method(const Mesh& m, const OperatorGeometry& og, const MusclConfig& cfg,
                                                 const LimiterScale& scale, const FlowPositivityCheck& positivity) {
  if (cfg.limiter == Limiter::barth_jespersen)
    return fused_with_check<M, BarthJespersen>(m, og, cfg, scale, positivity);
  return fused_with_check<M, Venkatakrishnan>(m, og, cfg, scale, positivity);
}

void check_scale(const LimiterScale& scale, const char* who) {
  if (!scale.empty() && scale.components() != kReconstructed)
    throw std::logic_error(std::string(who) + ": a limiter scale of " + std::to_string(scale.components()) +
                           " components for " + std::to_string(kReconstructed));
}

} // namespace

std::unique_ptr<PairedMusclOperator> make_paired_muscl(const Mesh& mesh, const OperatorGeometry& geom,
                                                       const MusclConfig& cfg, const LimiterScale& scale,
                                                       bool shared_velocity, const FlowPositivityCheck& positivity) {
  check_scale(scale, "make_paired_muscl");
  if (cfg.gradient == Gradient::green_gauss)
    return paired_with_method<GradientMethod::green_gauss>(mesh, geom, cfg, scale, shared_velocity, positivity);
  return paired_with_method<GradientMethod::least_squares>(mesh, geom, cfg, scale, shared_velocity, positivity);
}

FlowMuscl make_flow_muscl(const Mesh& mesh, const OperatorGeometry& geom, const MusclConfig& cfg, bool deterministic,
                          const LimiterScale& scale, const FlowPositivityCheck& positivity) {
  check_scale(scale, "make_flow_muscl");
  const bool limited = !scale.empty() && cfg.limiter != Limiter::none;
  if (!(positivity.on && limited && fuses_passes(cfg, deterministic))) // where make_muscl would not fuse
    return {make_muscl(mesh, geom, cfg, kReconstructed, deterministic, scale), false};
  if (cfg.gradient == Gradient::green_gauss)
    return {fused_with_method<GradientMethod::green_gauss>(mesh, geom, cfg, scale, positivity), true};
  return {fused_with_method<GradientMethod::least_squares>(mesh, geom, cfg, scale, positivity), true};
}

} // namespace fvproxy
