// The diffusion factory: configuration -> naive or optimized instantiation.
#include "operators/diffusion/diffusion.hpp"

#include "operators/boundary_patches.hpp"
#include "operators/component_dispatch.hpp"
#include "operators/diffusion/diffusion_naive.hpp"
#include "operators/diffusion/scalar_diffusion.hpp"
#include "operators/face_launch.hpp"
#include "operators/launch.hpp"

namespace fvproxy {

namespace {

View1<real> kappa_view(const std::vector<double>& kappa) {
  View1<real> v("fvproxy::diffusion::kappa", kappa.size());
  auto h = Kokkos::create_mirror_view(v);
  for (std::size_t k = 0; k < kappa.size(); ++k) h(k) = static_cast<real>(kappa[k]);
  Kokkos::deep_copy(v, h);
  return v;
}

class NaiveDiffusion final : public DiffusionOperator {
public:
  NaiveDiffusion(const Mesh& m, const std::vector<double>& kappa, const std::vector<BoundaryType>& types, bool gather)
      : parts_(PartRanges::of(m)), components_(int(kappa.size())), gather_(gather) {
    const naive::NaiveGeometry geo{naive::naive_geometry(m)};
    d_ = naive::DiffusionData{geo, outflow_face_flags(m, types, "fvproxy::diffusion::naive_outflow_flags"),
                              kappa_view(kappa)};
  }
  void apply(ConstView2<real> u, ConstView2<real> ub, ConstView2<real> grad, View2<real> rhs,
             Part part) const override {
    using MD = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>;
    if (gather_) {
      const IndexRange cells = parts_.cells(part);
      if (cells.size() > 0)
        Kokkos::parallel_for("fvproxy::diffusion::naive_gather", MD({cells.begin, 0}, {cells.end, components_}),
                             naive::DiffusionGather{d_, u, ub, grad, rhs});
      return;
    }
    for (const IndexRange r : parts_.faces(part)) // Part::all: every face in one launch
      if (r.size() > 0)
        Kokkos::parallel_for("fvproxy::diffusion::naive_scatter", MD({r.begin, 0}, {r.end, components_}),
                             naive::DiffusionScatter{d_, u, ub, grad, rhs});
  }
  std::string description() const override { return gather_ ? "naive/gather" : "naive/atomic"; }

private:
  naive::DiffusionData d_;
  PartRanges parts_;
  int components_;
  bool gather_;
};

// --- optimized: the shared kernels of diffusion_kernels.hpp on the scalar model. ---------------

template <int N> class OptimizedDiffusion final : public DiffusionOperator {
public:
  OptimizedDiffusion(const Mesh& m, const OperatorGeometry& og, const DiffusionConfig& cfg,
                     const std::vector<double>& kappa, const std::vector<BoundaryType>& types, Scatter scatter)
      : cells_(diffusion_cells(m, og)), alpha_(og.diff_alpha), k_(og.diff_k),
        faces_(m, {cfg.policy, cfg.team_size}, scatter, N, "fvproxy::diffusion::"),
        patches_(scalar_diffusion_patch_runs(m, types)) {
    for (int q = 0; q < N; ++q) kappa_[q] = static_cast<real>(kappa[q]);
  }
  void apply(ConstView2<real> u, ConstView2<real> ub, ConstView2<real> grad, View2<real> rhs,
             Part part) const override {
    using Model = ScalarDiffusion<N>;
    const Model m = scalar_diffusion_model<N>(alpha_, k_, kappa_, u, grad);
    faces_.interior<N>(DiffusionInteriorKernels<Model>{m, cells_}, rhs, part);
    scalar_diffusion_patches<N>(m, cells_, patches_, faces_.parts.n_interior, faces_.launch, faces_.gather_patches(),
                                ub, rhs, part);
  }
  std::string description() const override { return faces_.description("optimized"); }

private:
  DiffusionCells cells_;
  ConstView1<real> alpha_;
  ConstVec3View<real> k_;
  FaceLaunch faces_; ///< the interior faces' launch and accumulation
  real kappa_[N];
  std::vector<PatchRuns> patches_;
};

template <int N> struct MakeOptimizedDiffusion {
  static std::unique_ptr<DiffusionOperator> make(const Mesh& m, const OperatorGeometry& og, const DiffusionConfig& cfg,
                                                 const std::vector<double>& kappa,
                                                 const std::vector<BoundaryType>& types, Scatter scatter) {
    return std::make_unique<OptimizedDiffusion<N>>(m, og, cfg, kappa, types, scatter);
  }
};

} // namespace

std::unique_ptr<DiffusionOperator> make_diffusion(const Mesh& mesh, const OperatorGeometry& geom,
                                                  const DiffusionConfig& cfg, const std::vector<double>& kappa,
                                                  const std::vector<BoundaryType>& patch_types, bool deterministic) {
  if (cfg.variant == Variant::naive) return std::make_unique<NaiveDiffusion>(mesh, kappa, patch_types, deterministic);
  return dispatch_components<MakeOptimizedDiffusion>(int(kappa.size()), mesh, geom, cfg, kappa, patch_types,
                                                     resolved_scatter(cfg.scatter, deterministic));
}

} // namespace fvproxy
