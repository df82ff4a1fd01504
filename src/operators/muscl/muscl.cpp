// The muscl factory: two passes (gradient.hpp, limiter.hpp) or the fused kernel (muscl_fused.hpp).
#include "operators/muscl/muscl.hpp"

#include <stdexcept>

#include "operators/component_dispatch.hpp"
#include "operators/launch.hpp"
#include "operators/muscl/gradient.hpp"
#include "operators/muscl/limiter.hpp"
#include "operators/muscl/muscl_fused.hpp"
#include "physics/limiters.hpp"

namespace fvproxy {

namespace {

class TwoPassMuscl final : public MusclOperator {
public:
  TwoPassMuscl(std::unique_ptr<GradientOperator> g, std::unique_ptr<LimiterOperator> l)
      : gradient_(std::move(g)), limiter_(std::move(l)) {}
  void compute(ConstView2<real> u, ConstView2<real> ub, View2<real> grad, View2<real> limiter,
               Part part) const override {
    gradient_->compute(u, ub, grad, part);
    if (limiter_) limiter_->compute(u, ub, grad, limiter, part);
  }
  bool limits() const override { return limiter_ != nullptr; }
  std::string gradient_description() const override { return gradient_->description(); }
  std::string limiter_description() const override { return limiter_ ? limiter_->description() : "off"; }

private:
  std::unique_ptr<GradientOperator> gradient_;
  std::unique_ptr<LimiterOperator> limiter_;
};

template <int N> struct MakeFused {
  template <optimized::GradientMethod M> static std::unique_ptr<MusclOperator>
  with(const Mesh& m, const OperatorGeometry& g, const MusclConfig& cfg, const LimiterScale& scale) {
    if (cfg.limiter == Limiter::barth_jespersen)
      return std::make_unique<FusedMusclOperator<N, M, BarthJespersen>>(m, g, cfg, scale);
    return std::make_unique<FusedMusclOperator<N, M, Venkatakrishnan>>(m, g, cfg, scale);
  }
  static std::unique_ptr<MusclOperator> make(const Mesh& m, const OperatorGeometry& g, const MusclConfig& cfg,
                                             const LimiterScale& scale) {
    if (cfg.gradient == Gradient::green_gauss) return with<optimized::GradientMethod::green_gauss>(m, g, cfg, scale);
    return with<optimized::GradientMethod::least_squares>(m, g, cfg, scale);
  }
};

} // namespace

std::unique_ptr<MusclOperator> make_muscl(const Mesh& mesh, const OperatorGeometry& geom, const MusclConfig& cfg,
                                          int components, bool deterministic, const LimiterScale& scale) {
  const bool limited = !scale.empty() && cfg.limiter != Limiter::none;
  if (!scale.empty() && scale.components() != components)
    throw std::logic_error("make_muscl: a limiter scale of " + std::to_string(scale.components()) + " components for " +
                           std::to_string(components));
  if (limited && fuses_passes(cfg, deterministic))
    return dispatch_components<MakeFused>(components, mesh, geom, cfg, scale);
  return std::make_unique<TwoPassMuscl>(make_gradient(mesh, geom, cfg, components, deterministic),
                                        limited ? make_limiter(mesh, geom, cfg, scale) : nullptr);
}

bool fuses_passes(const MusclConfig& cfg, bool deterministic) {
  return cfg.fused && cfg.variant == Variant::optimized && (deterministic || cfg.scatter == Scatter::gather);
}

std::unique_ptr<MusclOperator> make_two_pass_muscl(std::unique_ptr<GradientOperator> gradient,
                                                   std::unique_ptr<LimiterOperator> limiter) {
  return std::make_unique<TwoPassMuscl>(std::move(gradient), std::move(limiter));
}

} // namespace fvproxy
