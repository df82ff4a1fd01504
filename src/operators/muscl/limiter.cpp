#include "operators/muscl/limiter.hpp"

#include <stdexcept>

#include "core/kokkos_compat.hpp"
#include "operators/component_dispatch.hpp"
#include "operators/launch.hpp"
#include "operators/muscl/limiter_optimized.hpp"
#include "operators/naive_geometry.hpp"
#include "physics/limiters.hpp"

namespace fvproxy {

namespace {

// --- naive: MDRange (cell, component), run-time limiter branch, geometry and eps recomputed ----
struct NaiveLimiter {
  naive::NaiveGeometry g; ///< with the stencil's extra entries (naive::with_stencil)
  ConstView1<real> reference;
  ConstView1<int> group;
  ConstView2<real> u, ub, grad;
  View2<real> limiter;
  int type;   // 0 none, 1 Barth-Jespersen, 2 Venkatakrishnan (a run-time branch, on purpose)
  int n;      ///< components
  real kappa; ///< operators.muscl.venkatakrishnan_threshold
  KOKKOS_FUNCTION real other_value(index_t c, index_t f, int k) const {
    if (!g.interior(f)) return ub(f - g.n_interior, k);
    return g.owner(f) == c ? u(g.neighbour(f), k) : u(g.owner(f), k);
  }
  KOKKOS_FUNCTION void bounds(index_t c, int k, real& umax, real& umin) const {
    umax = u(c, k), umin = u(c, k);
    for (index_t q = g.off(c); q < g.off(c + 1); ++q) {
      const real v = other_value(c, g.faces(q), k);
      umax = v > umax ? v : umax;
      umin = v < umin ? v : umin;
    }
    for (index_t q = g.s_off(c); q < g.s_off(c + 1); ++q) { // a vertex neighbour's u or a mirror image's ub
      const real v = g.stencil_value(c, q, u, ub, k);
      umax = v > umax ? v : umax;
      umin = v < umin ? v : umin;
    }
  }
  KOKKOS_FUNCTION void operator()(const index_t c, const int k) const {
    real umax, umin;
    bounds(c, k, umax, umin);
    // eps^2 of VenkatScale, each group member's neighbours read again by every thread of the cell
    const real eps2 =
        group_eps2(kappa * kappa, n, k, group, reference, [&](int j, real& hi, real& lo) { bounds(c, j, hi, lo); });
    real phi = 1;
    for (index_t q = g.off(c); q < g.off(c + 1); ++q) {
      const index_t f = g.faces(q);
      real delta = 0;
      for (int i = 0; i < 3; ++i) {
        // the cell's centroid, as the owner sees it (periodic neighbours are shifted back)
        const real xc = (g.interior(f) && g.owner(f) != c) ? g.C(c, i) + g.T(g.shift(f), i) : g.C(c, i);
        delta += grad(c, 3 * k + i) * (g.F(f, i) - xc);
      }
      real p = 1;
      if (type == 1)
        p = BarthJespersen{}(delta, umax - u(c, k), umin - u(c, k), eps2);
      else if (type == 2)
        p = Venkatakrishnan{}(delta, umax - u(c, k), umin - u(c, k), eps2);
      phi = p < phi ? p : phi;
    }
    limiter(c, k) = phi;
  }
};

class NaiveLimiterOperator final : public LimiterOperator {
public:
  NaiveLimiterOperator(const Mesh& m, const OperatorGeometry& g, const MusclConfig& cfg, const LimiterScale& scale)
      : m_(m), g_(naive::with_stencil(naive::naive_geometry(m), g.stencil)), n_(scale.components()),
        type_(cfg.limiter == Limiter::none              ? 0
              : cfg.limiter == Limiter::barth_jespersen ? 1
                                                        : 2),
        kappa_(static_cast<real>(cfg.venkatakrishnan_threshold)), scale_(device_views(scale, "naive_limiter")) {}
  void compute(ConstView2<real> u, ConstView2<real> ub, ConstView2<real> grad, View2<real> limiter,
               Part part) const override {
    using MD = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>;
    const IndexRange cells = PartRanges::of(m_).cells(part);
    if (cells.size() == 0) return;
    Kokkos::parallel_for("fvproxy::muscl::naive_limiter", MD({cells.begin, 0}, {cells.end, n_}),
                         NaiveLimiter{g_, scale_.reference, scale_.group, u, ub, grad, limiter, type_, n_, kappa_});
  }
  std::string description() const override { return "naive"; }

private:
  Mesh m_;
  naive::NaiveGeometry g_;
  int n_, type_;
  real kappa_;
  LimiterScaleViews scale_;
};

// --- optimized: template on N and the limiter functor (limiter_optimized.hpp) ---------------
template <int N, class L> class OptimizedLimiterOperator final : public LimiterOperator {
public:
  OptimizedLimiterOperator(const Mesh& m, const OperatorGeometry& g, const MusclConfig& cfg, const LimiterScale& scale)
      : m_(m), g_(optimized::gradient_geometry(m, g)), launch_{cfg.policy, cfg.team_size},
        scale_(venkat_scale<N>(scale, cfg.venkatakrishnan_threshold)) {}
  void compute(ConstView2<real> u, ConstView2<real> ub, ConstView2<real> grad, View2<real> limiter,
               Part part) const override {
    const optimized::LimiterGather<N, L> f{g_, u, ub, grad, limiter, scale_};
    launch("fvproxy::muscl::limiter", PartRanges::of(m_).cells(part), launch_, f);
  }
  std::string description() const override { return std::string("optimized/") + to_string(launch_.policy); }

private:
  Mesh m_;
  optimized::GradientGeometry g_;
  LaunchOptions launch_;
  VenkatScale<N> scale_;
};

template <int N> struct MakeLimiter {
  static std::unique_ptr<LimiterOperator> make(const Mesh& m, const OperatorGeometry& g, const MusclConfig& cfg,
                                               const LimiterScale& scale) {
    switch (cfg.limiter) {
    case Limiter::none: return std::make_unique<OptimizedLimiterOperator<N, NoLimiter>>(m, g, cfg, scale);
    case Limiter::barth_jespersen:
      return std::make_unique<OptimizedLimiterOperator<N, BarthJespersen>>(m, g, cfg, scale);
    case Limiter::venkatakrishnan:
      return std::make_unique<OptimizedLimiterOperator<N, Venkatakrishnan>>(m, g, cfg, scale);
    }
    return nullptr;
  }
};

} // namespace

std::unique_ptr<LimiterOperator> make_limiter(const Mesh& mesh, const OperatorGeometry& geom, const MusclConfig& cfg,
                                              const LimiterScale& scale) {
  if (scale.reference.size() != scale.group.size() || scale.empty())
    throw std::logic_error("make_limiter: " + std::to_string(scale.reference.size()) + " reference values for " +
                           std::to_string(scale.group.size()) + " components");
  if (cfg.variant == Variant::naive) return std::make_unique<NaiveLimiterOperator>(mesh, geom, cfg, scale);
  return dispatch_components<MakeLimiter>(scale.components(), mesh, geom, cfg, scale);
}

LimiterScaleViews device_views(const LimiterScale& scale, const std::string& what) {
  const int n = scale.components();
  LimiterScaleViews v{View1<real>("fvproxy::muscl::" + what + "_reference", n),
                      View1<int>("fvproxy::muscl::" + what + "_group", n)};
  auto r = Kokkos::create_mirror_view(v.reference);
  auto g = Kokkos::create_mirror_view(v.group);
  for (int k = 0; k < n; ++k) r(k) = scale.reference[k], g(k) = scale.group[k];
  Kokkos::deep_copy(v.reference, r);
  Kokkos::deep_copy(v.group, g);
  return v;
}

LimiterScale LimiterScale::absolute(int n) {
  LimiterScale s;
  for (int k = 0; k < n; ++k) s.reference.push_back(0), s.group.push_back(k);
  return s;
}

LimiterScale scalar_limiter_scale(const std::vector<real>& lo, const std::vector<real>& hi) {
  LimiterScale s = LimiterScale::absolute(static_cast<int>(lo.size()));
  for (std::size_t k = 0; k < lo.size(); ++k) s.reference[k] = lo[k] + (hi[k] - lo[k]) / 2;
  return s;
}

LimiterScale scalar_limiter_scale(ConstView2<real> u, ConstView2<real> ub) {
  const auto [lo, hi] = value_bounds(u, ub);
  return scalar_limiter_scale(lo, hi);
}

std::pair<std::vector<real>, std::vector<real>> value_bounds(ConstView2<real> u, ConstView2<real> ub, index_t rows) {
  const int n = static_cast<int>(u.extent(1));
  std::vector<real> lo(n, real(0)), hi(n, real(0));
  using MinMax = Kokkos::MinMax<real>;
  for (int k = 0; k < n; ++k) {
    bool any = false;
    for (int part = 0; part < 2; ++part) {
      const ConstView2<real> v = part == 0 ? u : ub; // a copy: the device lambda captures it by value
      const index_t n_rows = part == 0 && rows >= 0 ? rows : index_t(v.extent(0));
      if (n_rows == 0) continue;
      typename MinMax::value_type m;
      Kokkos::parallel_reduce(
          "fvproxy::muscl::value_bounds", Kokkos::RangePolicy<ExecSpace>(0, n_rows),
          KOKKOS_LAMBDA(const index_t c, typename MinMax::value_type& b) {
            const real x = v(c, k);
            if (x < b.min_val) b.min_val = x;
            if (x > b.max_val) b.max_val = x;
          },
          MinMax(m));
      lo[k] = any && lo[k] < m.min_val ? lo[k] : m.min_val;
      hi[k] = any && hi[k] > m.max_val ? hi[k] : m.max_val;
      any = true;
    }
  }
  return {lo, hi};
}

} // namespace fvproxy
