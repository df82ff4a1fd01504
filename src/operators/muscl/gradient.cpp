// The gradient factory: configuration -> naive or optimized instantiation (component count as a
// template parameter through dispatch_components).
#include "operators/muscl/gradient.hpp"

#include "core/kokkos_compat.hpp"
#include "operators/component_dispatch.hpp"
#include "operators/launch.hpp"
#include "operators/muscl/gradient_naive.hpp"
#include "operators/muscl/gradient_optimized.hpp"

namespace fvproxy {

namespace {

class NaiveGradient final : public GradientOperator {
public:
  NaiveGradient(const Mesh& m, int components, Gradient method, bool gather)
      : g_{m.centroid,       m.face_centroid, m.face_area,  m.shifts,         m.face_owner,
           m.face_neighbour, m.cell_face_off, m.cell_faces, m.cell_face_sign, m.face_shift,
           m.volume,         m.n_interior,    m.dim},
        n_cells_(m.n_cells), n_faces_(m.n_faces), components_(components),
        method_(method == Gradient::green_gauss ? 0 : 1), gather_(gather) {}

  void compute(ConstView2<real> u, ConstView2<real> ub, View2<real> grad) const override {
    using MD = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>;
    if (gather_) {
      Kokkos::parallel_for("fvproxy::muscl::naive_gradient_gather", MD({0, 0}, {n_cells_, components_}),
                           naive::GradientGather{g_, u, ub, grad, method_});
    } else {
      Kokkos::deep_copy(grad, real(0));
      Kokkos::parallel_for("fvproxy::muscl::naive_gradient_scatter", MD({0, 0}, {n_faces_, components_}),
                           naive::GradientScatter{g_, u, ub, grad, method_});
    }
    Kokkos::parallel_for("fvproxy::muscl::naive_gradient_finalize", MD({0, 0}, {n_cells_, components_}),
                         naive::GradientFinalize{g_, grad, method_});
  }
  std::string description() const override { return gather_ ? "naive/gather" : "naive/atomic"; }

private:
  naive::NaiveGeometry g_;
  index_t n_cells_, n_faces_;
  int components_, method_;
  bool gather_;
};

template <int N, optimized::GradientMethod M> class OptimizedGradient final : public GradientOperator {
public:
  OptimizedGradient(const Mesh& m, const OperatorGeometry& og, const MusclConfig& cfg, bool gather)
      : g_{m.face_owner, m.face_neighbour, m.cell_face_off, og.cell_boundary_begin,
           m.cell_faces, m.cell_face_sign, m.face_area,     og.d,
           og.r,         og.gg_weight,     og.gg_inverse,   og.lsq_inverse,
           m.n_interior},
        n_cells_(m.n_cells), n_interior_(m.n_interior),
        n_boundary_(m.n_faces - m.n_interior), launch_{cfg.policy, cfg.team_size}, gather_(gather) {}

  void compute(ConstView2<real> u, ConstView2<real> ub, View2<real> grad) const override {
    if (gather_) {
      launch("fvproxy::muscl::gradient_gather", n_cells_, launch_, optimized::GradientGather<N, M>{g_, u, ub, grad});
      return;
    }
    fill("fvproxy::muscl::gradient_zero", grad, real(0));
    launch("fvproxy::muscl::gradient_scatter_interior", n_interior_, launch_,
           optimized::GradientScatterInterior<N, M>{g_, u, grad});
    launch("fvproxy::muscl::gradient_scatter_boundary", n_boundary_, launch_,
           optimized::GradientScatterBoundary<N, M>{g_, u, ub, grad});
    launch("fvproxy::muscl::gradient_finish", n_cells_, launch_, optimized::GradientFinish<N, M>{g_, grad});
  }
  std::string description() const override {
    return std::string("optimized/") + (gather_ ? "gather/" : "atomic/") + to_string(launch_.policy) +
           (launch_.policy == Policy::team ? "/" + std::to_string(launch_.team_size) : "");
  }

private:
  optimized::GradientGeometry g_;
  index_t n_cells_, n_interior_, n_boundary_;
  LaunchOptions launch_;
  bool gather_;
};

template <int N> struct MakeOptimizedGradient {
  static std::unique_ptr<GradientOperator> make(const Mesh& m, const OperatorGeometry& og, const MusclConfig& cfg,
                                                bool gather) {
    if (cfg.gradient == Gradient::green_gauss)
      return std::make_unique<OptimizedGradient<N, optimized::GradientMethod::green_gauss>>(m, og, cfg, gather);
    return std::make_unique<OptimizedGradient<N, optimized::GradientMethod::least_squares>>(m, og, cfg, gather);
  }
};

} // namespace

std::unique_ptr<GradientOperator> make_gradient(const Mesh& mesh, const OperatorGeometry& geom, const MusclConfig& cfg,
                                                int components, bool deterministic) {
  if (cfg.variant == Variant::naive)
    return std::make_unique<NaiveGradient>(mesh, components, cfg.gradient, deterministic);
  const bool gather = deterministic || cfg.scatter == Scatter::gather;
  return dispatch_components<MakeOptimizedGradient>(components, mesh, geom, cfg, gather);
}

} // namespace fvproxy
