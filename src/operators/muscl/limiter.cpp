#include "operators/muscl/limiter.hpp"

#include <stdexcept>

#include "core/kokkos_compat.hpp"
#include "operators/component_dispatch.hpp"
#include "operators/launch.hpp"
#include "operators/muscl/limiter_optimized.hpp"
#include "physics/limiters.hpp"

namespace fvproxy {

namespace {

// --- naive: MDRange (cell, component), run-time limiter branch, geometry and eps recomputed ----
struct NaiveLimiter {
  ConstVec3View<real> C, F, T;
  ConstView1<index_t> owner, neighbour, off, faces;
  ConstView1<std::uint8_t> shift;
  ConstView1<real> range, volume;
  ConstView2<real> u, ub, grad;
  View2<real> limiter;
  index_t n_interior, outer_begin; ///< boundary faces: [n_interior, outer_begin)
  int type;                        // 0 none, 1 Barth-Jespersen, 2 Venkatakrishnan (a run-time branch, on purpose)
  real K, L;                       ///< L: the domain's largest extent (Mesh::extent)
  KOKKOS_FUNCTION real other_value(index_t c, index_t f, int k) const {
    if (f >= n_interior && f < outer_begin) return ub(f - n_interior, k);
    return owner(f) == c ? u(neighbour(f), k) : u(owner(f), k);
  }
  KOKKOS_FUNCTION void operator()(const index_t c, const int k) const {
    real umax = u(c, k), umin = u(c, k);
    for (index_t q = off(c); q < off(c + 1); ++q) {
      const real v = other_value(c, faces(q), k);
      umax = v > umax ? v : umax;
      umin = v < umin ? v : umin;
    }
    // eps^2 = (K h_c / L)^3 range^2, h_c recomputed by every thread (a cube root, a division)
    const real h = kc::cbrt(volume(c));
    const real x = K * h / L;
    const real eps2 = x * x * x * range(k) * range(k);
    real phi = 1;
    for (index_t q = off(c); q < off(c + 1); ++q) {
      const index_t f = faces(q);
      real delta = 0;
      for (int i = 0; i < 3; ++i) {
        // the cell's centroid, as the owner sees it (periodic neighbours are shifted back)
        const real xc = ((f < n_interior || f >= outer_begin) && owner(f) != c) ? C(c, i) + T(shift(f), i) : C(c, i);
        delta += grad(c, 3 * k + i) * (F(f, i) - xc);
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
  NaiveLimiterOperator(const Mesh& m, const MusclConfig& cfg, int n, const std::vector<real>& range)
      : m_(m), n_(n), type_(cfg.limiter == Limiter::none              ? 0
                            : cfg.limiter == Limiter::barth_jespersen ? 1
                                                                      : 2),
        K_(static_cast<real>(cfg.venkatakrishnan_k)), L_(static_cast<real>(venkatakrishnan_length(m))),
        range_("fvproxy::muscl::naive_limiter_range", n) {
    auto h = Kokkos::create_mirror_view(range_);
    for (int k = 0; k < n; ++k) h(k) = range[k];
    Kokkos::deep_copy(range_, h);
  }
  void compute(ConstView2<real> u, ConstView2<real> ub, ConstView2<real> grad, View2<real> limiter,
               Part part) const override {
    using MD = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>;
    const IndexRange cells = PartRanges::of(m_).cells(part);
    if (cells.size() == 0) return;
    Kokkos::parallel_for("fvproxy::muscl::naive_limiter", MD({cells.begin, 0}, {cells.end, n_}),
                         NaiveLimiter{m_.centroid, m_.face_centroid, m_.shifts, m_.face_owner, m_.face_neighbour,
                                      m_.cell_face_off, m_.cell_faces, m_.face_shift, range_, m_.volume, u, ub, grad,
                                      limiter, m_.n_interior, m_.outer_begin, type_, K_, L_});
  }
  std::string description() const override { return "naive"; }

private:
  Mesh m_;
  int n_, type_;
  real K_, L_;
  View1<real> range_;
};

// --- optimized: template on N and the limiter functor (limiter_optimized.hpp) ---------------
template <int N, class L> class OptimizedLimiterOperator final : public LimiterOperator {
public:
  OptimizedLimiterOperator(const Mesh& m, const OperatorGeometry& g, const MusclConfig& cfg,
                           const std::vector<real>& range)
      : m_(m), g_(optimized::gradient_geometry(m, g)), launch_{cfg.policy, cfg.team_size} {
    for (int k = 0; k < N; ++k) eps_scale_[k] = venkatakrishnan_scale(cfg.venkatakrishnan_k, range[k], m);
  }
  void compute(ConstView2<real> u, ConstView2<real> ub, ConstView2<real> grad, View2<real> limiter,
               Part part) const override {
    optimized::LimiterGather<N, L> f{g_, u, ub, grad, limiter, {}};
    for (int k = 0; k < N; ++k) f.eps_scale[k] = eps_scale_[k];
    launch("fvproxy::muscl::limiter", PartRanges::of(m_).cells(part), launch_, f);
  }
  std::string description() const override { return std::string("optimized/") + to_string(launch_.policy); }

private:
  Mesh m_;
  optimized::GradientGeometry g_;
  LaunchOptions launch_;
  real eps_scale_[N];
};

template <int N> struct MakeLimiter {
  static std::unique_ptr<LimiterOperator> make(const Mesh& m, const OperatorGeometry& g, const MusclConfig& cfg,
                                               const std::vector<real>& range) {
    switch (cfg.limiter) {
    case Limiter::none: return std::make_unique<OptimizedLimiterOperator<N, NoLimiter>>(m, g, cfg, range);
    case Limiter::barth_jespersen:
      return std::make_unique<OptimizedLimiterOperator<N, BarthJespersen>>(m, g, cfg, range);
    case Limiter::venkatakrishnan:
      return std::make_unique<OptimizedLimiterOperator<N, Venkatakrishnan>>(m, g, cfg, range);
    }
    return nullptr;
  }
};

} // namespace

std::unique_ptr<LimiterOperator> make_limiter(const Mesh& mesh, const OperatorGeometry& geom, const MusclConfig& cfg,
                                              int components, const std::vector<real>& range) {
  if (int(range.size()) != components)
    throw std::logic_error("make_limiter: " + std::to_string(range.size()) + " ranges for " +
                           std::to_string(components) + " components");
  if (cfg.variant == Variant::naive) return std::make_unique<NaiveLimiterOperator>(mesh, cfg, components, range);
  return dispatch_components<MakeLimiter>(components, mesh, geom, cfg, range);
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

std::vector<real> solution_range(ConstView2<real> u, ConstView2<real> ub) {
  const auto [lo, hi] = value_bounds(u, ub);
  std::vector<real> range(lo.size());
  for (std::size_t k = 0; k < lo.size(); ++k) range[k] = hi[k] - lo[k];
  return range;
}

} // namespace fvproxy
