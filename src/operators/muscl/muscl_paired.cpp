// The navier-stokes cell pass (muscl_paired.hpp): one instantiation per gradient method, limiter and
// velocity sharing.
#include "operators/muscl/muscl_paired.hpp"

#include <stdexcept>

#include "operators/launch.hpp"
#include "operators/vertex_stencil.hpp"
#include "physics/limiters.hpp"

namespace fvproxy {

namespace {

constexpr int kReconstructed = 5, kViscous = 4; // (rho, u, v, w, p) or U; (u, v, w, T)

template <optimized::GradientMethod M, class L, bool Shared> class PairedPass final : public PairedMusclOperator {
public:
  PairedPass(const Mesh& m, const OperatorGeometry& og, const MusclConfig& cfg, const LimiterScale& scale)
      : g_(optimized::gradient_geometry(m, og)), parts_(PartRanges::of(m)), launch_{cfg.policy, cfg.team_size},
        note_(stencil_note(og.stencil, m.n_gradient_cells())) {
    if constexpr (!std::is_void_v<L>) scale_ = venkat_scale<kReconstructed>(scale, cfg.venkatakrishnan_threshold);
  }
  void compute(ConstView2<real> u1, ConstView2<real> ub1, ConstView2<real> u2, ConstView2<real> ub2, View2<real> grad1,
               View2<real> limiter, View2<real> grad2, Part part) const override {
    using Kernel = optimized::PairedMuscl<kReconstructed, kViscous, M, L, Shared>;
    launch("fvproxy::muscl::paired", parts_.cells(part), launch_,
           Kernel{g_, {u1, ub1, u2, ub2}, grad1, limiter, grad2, scale_});
  }
  bool limits() const override { return !std::is_void_v<L>; }
  std::string description() const override {
    return std::string("optimized/paired/") + (Shared ? "shared velocity/" : "") + to_string(launch_.policy) +
           (launch_.policy == Policy::team ? "/" + std::to_string(launch_.team_size) : "") + note_;
  }

private:
  optimized::GradientGeometry g_;
  PartRanges parts_;
  LaunchOptions launch_;
  VenkatScale<kReconstructed> scale_{};
  std::string note_;
};

template <optimized::GradientMethod M, bool Shared> std::unique_ptr<PairedMusclOperator>
with_limiter(const Mesh& m, const OperatorGeometry& og, const MusclConfig& cfg, const LimiterScale& scale) {
  if (scale.empty() || cfg.limiter == Limiter::none)
    return std::make_unique<PairedPass<M, void, Shared>>(m, og, cfg, scale);
  if (cfg.limiter == Limiter::barth_jespersen)
    return std::make_unique<PairedPass<M, BarthJespersen, Shared>>(m, og, cfg, scale);
  return std::make_unique<PairedPass<M, Venkatakrishnan, Shared>>(m, og, cfg, scale);
}

template <optimized::GradientMethod M>
std::unique_ptr<PairedMusclOperator> with_method(const Mesh& m, const OperatorGeometry& og, const MusclConfig& cfg,
                                                 const LimiterScale& scale, bool shared_velocity) {
  if (shared_velocity) return with_limiter<M, true>(m, og, cfg, scale);
  return with_limiter<M, false>(m, og, cfg, scale);
}

} // namespace

bool pairs_gradients(const MusclConfig& cfg, bool deterministic) {
  return cfg.fused && cfg.variant == Variant::optimized && (deterministic || cfg.scatter == Scatter::gather);
}

std::unique_ptr<PairedMusclOperator> make_paired_muscl(const Mesh& mesh, const OperatorGeometry& geom,
                                                       const MusclConfig& cfg, const LimiterScale& scale,
                                                       bool shared_velocity) {
  if (!scale.empty() && scale.components() != kReconstructed)
    throw std::logic_error("make_paired_muscl: a limiter scale of " + std::to_string(scale.components()) +
                           " components for " + std::to_string(kReconstructed));
  if (cfg.gradient == Gradient::green_gauss)
    return with_method<optimized::GradientMethod::green_gauss>(mesh, geom, cfg, scale, shared_velocity);
  return with_method<optimized::GradientMethod::least_squares>(mesh, geom, cfg, scale, shared_velocity);
}

} // namespace fvproxy
