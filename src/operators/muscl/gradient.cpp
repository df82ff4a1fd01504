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
  NaiveGradient(const Mesh& m, const OperatorGeometry& og, int components, Gradient method, bool gather)
      : g_(naive::with_stencil(naive::naive_geometry(m, og.mirror), og.stencil)), parts_(PartRanges::of(m)),
        components_(components), method_(method == Gradient::green_gauss ? 0 : 1), gather_(gather),
        note_(stencil_note(og.stencil, m.n_gradient_cells())) {}

  void compute(ConstView2<real> u, ConstView2<real> ub, View2<real> grad, Part part) const override {
    using MD = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>;
    const IndexRange cells = parts_.cells(part);
    if (gather_ || part == Part::layer1) { // the first ghost layer's cells: always a gather
      if (cells.size() > 0)
        Kokkos::parallel_for("fvproxy::muscl::naive_gradient_gather", MD({cells.begin, 0}, {cells.end, components_}),
                             naive::GradientGather{g_, u, ub, grad, method_});
    } else {
      if (part != Part::frontier) Kokkos::deep_copy(grad, real(0)); // the frontier adds to the inner part's sums
      for (const IndexRange r : parts_.faces(part))                 // Part::all: every face in one launch
        if (r.size() > 0)
          Kokkos::parallel_for("fvproxy::muscl::naive_gradient_scatter", MD({r.begin, 0}, {r.end, components_}),
                               naive::GradientScatter{g_, u, ub, grad, method_});
    }
    if (cells.size() > 0)
      Kokkos::parallel_for("fvproxy::muscl::naive_gradient_finalize", MD({cells.begin, 0}, {cells.end, components_}),
                           naive::GradientFinalize{g_, grad, method_, u, ub});
  }
  std::string description() const override { return (gather_ ? "naive/gather" : "naive/atomic") + note_; }

private:
  naive::NaiveGeometry g_;
  PartRanges parts_;
  int components_, method_;
  bool gather_;
  std::string note_;
};

template <int N, optimized::GradientMethod M> class OptimizedGradient final : public GradientOperator {
public:
  OptimizedGradient(const Mesh& m, const OperatorGeometry& og, const MusclConfig& cfg, bool gather)
      : g_(optimized::gradient_geometry(m, og)), parts_(PartRanges::of(m)), launch_{cfg.policy, cfg.team_size},
        gather_(gather), note_(stencil_note(og.stencil, m.n_gradient_cells())) {}

  void compute(ConstView2<real> u, ConstView2<real> ub, View2<real> grad, Part part) const override {
    const IndexRange cells = parts_.cells(part);
    if (gather_ || part == Part::layer1) { // the first ghost layer's cells: always a gather
      launch("fvproxy::muscl::gradient_gather", cells, launch_, optimized::GradientGather<N, M>{g_, u, ub, grad});
      return;
    }
    // Scatter: the sums of a cell are complete once its faces are in, so inner cells finish in the
    // inner part (they have no face to a ghost) and frontier cells after their faces to ghosts.
    const index_t n_owned = parts_.n_cells;
    if (part != Part::frontier) fill("fvproxy::muscl::gradient_zero", grad, real(0));
    launch("fvproxy::muscl::gradient_scatter_interior", parts_.owned_faces(part), launch_,
           optimized::GradientScatterInterior<N, M>{g_, u, grad, n_owned});
    const IndexRange b = parts_.boundary_faces(part);
    launch("fvproxy::muscl::gradient_scatter_boundary", IndexRange{0, b.size()}, launch_,
           optimized::GradientScatterBoundary<N, M>{g_, u, ub, grad});
    launch("fvproxy::muscl::gradient_scatter_cross", parts_.cross_faces(part), launch_,
           optimized::GradientScatterInterior<N, M, true>{g_, u, grad, n_owned});
    launch("fvproxy::muscl::gradient_finish", cells, launch_, optimized::GradientFinish<N, M>{g_, u, ub, grad});
  }
  std::string description() const override {
    return std::string("optimized/") + (gather_ ? "gather/" : "atomic/") + to_string(launch_.policy) +
           (launch_.policy == Policy::team ? "/" + std::to_string(launch_.team_size) : "") + note_;
  }

private:
  optimized::GradientGeometry g_;
  PartRanges parts_;
  LaunchOptions launch_;
  bool gather_;
  std::string note_;
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
    return std::make_unique<NaiveGradient>(mesh, geom, components, cfg.gradient, deterministic);
  refuse_stored(cfg.scatter, "operators.muscl.scatter", "the gradient");
  const bool gather = deterministic || cfg.scatter == Scatter::gather;
  return dispatch_components<MakeOptimizedGradient>(components, mesh, geom, cfg, gather);
}

} // namespace fvproxy
