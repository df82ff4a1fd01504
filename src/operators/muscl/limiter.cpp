#include "operators/muscl/limiter.hpp"

#include "core/kokkos_compat.hpp"
#include "operators/component_dispatch.hpp"
#include "operators/launch.hpp"
#include "physics/limiters.hpp"

namespace fvproxy {

namespace {

// --- naive: MDRange (cell, component), run-time limiter branch, geometry and eps recomputed ----
struct NaiveLimiter {
  ConstVec3View<real> C, F, T;
  ConstView1<index_t> owner, neighbour, off, faces;
  ConstView1<std::uint8_t> shift;
  ConstView1<real> volume;
  ConstView2<real> u, ub, grad;
  View2<real> limiter;
  index_t n_interior;
  int type; // 0 none, 1 Barth-Jespersen, 2 Venkatakrishnan (a run-time branch, on purpose)
  real K;
  KOKKOS_FUNCTION real other_value(index_t c, index_t f, int k) const {
    if (f >= n_interior) return ub(f - n_interior, k);
    return owner(f) == c ? u(neighbour(f), k) : u(owner(f), k);
  }
  KOKKOS_FUNCTION void operator()(const index_t c, const int k) const {
    real umax = u(c, k), umin = u(c, k);
    for (index_t q = off(c); q < off(c + 1); ++q) {
      const real v = other_value(c, faces(q), k);
      umax = v > umax ? v : umax;
      umin = v < umin ? v : umin;
    }
    const real h = kc::cbrt(volume(c));
    const real eps2 = (K * h) * (K * h) * (K * h);
    real phi = 1;
    for (index_t q = off(c); q < off(c + 1); ++q) {
      const index_t f = faces(q);
      real delta = 0;
      for (int i = 0; i < 3; ++i) {
        // the cell's centroid, as the owner sees it (periodic neighbours are shifted back)
        const real xc = (f < n_interior && owner(f) != c) ? C(c, i) + T(shift(f), i) : C(c, i);
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
  NaiveLimiterOperator(const Mesh& m, const MusclConfig& cfg, int n)
      : m_(m), n_(n), type_(cfg.limiter == Limiter::none              ? 0
                            : cfg.limiter == Limiter::barth_jespersen ? 1
                                                                      : 2),
        K_(static_cast<real>(cfg.venkatakrishnan_k)) {}
  void compute(ConstView2<real> u, ConstView2<real> ub, ConstView2<real> grad, View2<real> limiter) const override {
    using MD = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>;
    Kokkos::parallel_for("fvproxy::muscl::naive_limiter", MD({0, 0}, {m_.n_cells, n_}),
                         NaiveLimiter{m_.centroid, m_.face_centroid, m_.shifts, m_.face_owner, m_.face_neighbour,
                                      m_.cell_face_off, m_.cell_faces, m_.face_shift, m_.volume, u, ub, grad, limiter,
                                      m_.n_interior, type_, K_});
  }
  std::string description() const override { return "naive"; }

private:
  Mesh m_;
  int n_, type_;
  real K_;
};

// --- optimized: template on N and the limiter functor; precomputed r, d and eps^2 --------------
template <int N, class L> struct OptimizedLimiter {
  ConstView1<index_t> owner, neighbour, off, bbegin, faces;
  ConstView1<std::int8_t> sign;
  ConstVec3View<real> d, r;
  ConstView1<real> volume;
  ConstView2<real> u, ub, grad;
  View2<real> limiter;
  index_t n_interior;
  real K3; ///< K^3: eps^2 = K^3 V
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    real uc[N], dmax[N], dmin[N], phi[N];
    for (int k = 0; k < N; ++k) uc[k] = u(c, k), dmax[k] = 0, dmin[k] = 0, phi[k] = 1;
    const index_t bb = bbegin(c);
    for (index_t q = off(c); q < bb; ++q) {
      const index_t f = faces(q);
      const index_t o = sign(q) > 0 ? neighbour(f) : owner(f);
      for (int k = 0; k < N; ++k) {
        const real dv = u(o, k) - uc[k];
        dmax[k] = dv > dmax[k] ? dv : dmax[k];
        dmin[k] = dv < dmin[k] ? dv : dmin[k];
      }
    }
    for (index_t q = bb; q < off(c + 1); ++q)
      for (int k = 0; k < N; ++k) {
        const real dv = ub(faces(q) - n_interior, k) - uc[k];
        dmax[k] = dv > dmax[k] ? dv : dmax[k];
        dmin[k] = dv < dmin[k] ? dv : dmin[k];
      }
    const real eps2 = K3 * volume(c);
    for (index_t q = off(c); q < off(c + 1); ++q) {
      const index_t f = faces(q);
      // x_f - x_c: r on the owner side, r - d on the neighbour side (interior faces only)
      const real s = sign(q);
      const real m = s > 0 ? real(0) : real(1);
      real rc[3];
      for (int i = 0; i < 3; ++i) rc[i] = r(f, i) - (f < n_interior ? m * d(f, i) : real(0));
      for (int k = 0; k < N; ++k) {
        const real delta = grad(c, 3 * k) * rc[0] + grad(c, 3 * k + 1) * rc[1] + grad(c, 3 * k + 2) * rc[2];
        const real p = L{}(delta, dmax[k], dmin[k], eps2);
        phi[k] = p < phi[k] ? p : phi[k];
      }
    }
    for (int k = 0; k < N; ++k) limiter(c, k) = phi[k];
  }
};

template <int N, class L> class OptimizedLimiterOperator final : public LimiterOperator {
public:
  OptimizedLimiterOperator(const Mesh& m, const OperatorGeometry& g, const MusclConfig& cfg)
      : m_(m), g_(g), launch_{cfg.policy, cfg.team_size},
        K3_(static_cast<real>(cfg.venkatakrishnan_k * cfg.venkatakrishnan_k * cfg.venkatakrishnan_k)) {}
  void compute(ConstView2<real> u, ConstView2<real> ub, ConstView2<real> grad, View2<real> limiter) const override {
    launch("fvproxy::muscl::limiter", m_.n_cells, launch_,
           OptimizedLimiter<N, L>{m_.face_owner, m_.face_neighbour, m_.cell_face_off, g_.cell_boundary_begin,
                                  m_.cell_faces, m_.cell_face_sign, g_.d, g_.r, m_.volume, u, ub, grad, limiter,
                                  m_.n_interior, K3_});
  }
  std::string description() const override { return std::string("optimized/") + to_string(launch_.policy); }

private:
  Mesh m_;
  OperatorGeometry g_;
  LaunchOptions launch_;
  real K3_;
};

template <int N> struct MakeLimiter {
  static std::unique_ptr<LimiterOperator> make(const Mesh& m, const OperatorGeometry& g, const MusclConfig& cfg) {
    switch (cfg.limiter) {
    case Limiter::none: return std::make_unique<OptimizedLimiterOperator<N, NoLimiter>>(m, g, cfg);
    case Limiter::barth_jespersen: return std::make_unique<OptimizedLimiterOperator<N, BarthJespersen>>(m, g, cfg);
    case Limiter::venkatakrishnan: return std::make_unique<OptimizedLimiterOperator<N, Venkatakrishnan>>(m, g, cfg);
    }
    return nullptr;
  }
};

} // namespace

std::unique_ptr<LimiterOperator> make_limiter(const Mesh& mesh, const OperatorGeometry& geom, const MusclConfig& cfg,
                                              int components) {
  if (cfg.variant == Variant::naive) return std::make_unique<NaiveLimiterOperator>(mesh, cfg, components);
  return dispatch_components<MakeLimiter>(components, mesh, geom, cfg);
}

} // namespace fvproxy
