// The diffusion factory: configuration -> naive or optimized instantiation.
#include "operators/diffusion/diffusion.hpp"

#include "operators/boundary_patches.hpp"
#include "operators/component_dispatch.hpp"
#include "operators/diffusion/diffusion_kernels.hpp"
#include "operators/diffusion/diffusion_naive.hpp"
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

/// The scalar diffusion as a diffusion model: N components, F_k = alpha_f (u_N - u_P) +
/// k_f . (g_P + g_N) / 2 per face (the corrected face gradient with the precomputed
/// OperatorGeometry::diff_alpha and diff_k), scaled by the diffusivity kappa_k. Separable: the
/// gather keeps its cell's values and gradients in registers.
template <int N> struct ScalarDiffusion {
  static constexpr int first = 0, n_vars = N;
  static constexpr bool separable = true;
  struct Face {
    real a, k[3];
  };
  struct Cell {
    real u[N], g[N][3];
  };
  ConstView1<real> alpha;
  ConstVec3View<real> kv;
  ConstView2<real> u, grad;
  real kappa[N];
  KOKKOS_INLINE_FUNCTION Face face(index_t f) const { return Face{alpha(f), {kv(f, 0), kv(f, 1), kv(f, 2)}}; }
  KOKKOS_INLINE_FUNCTION Cell cell(index_t c) const {
    Cell x;
    for (int q = 0; q < N; ++q) {
      x.u[q] = u(c, q);
      for (int i = 0; i < 3; ++i) x.g[q][i] = grad(c, 3 * q + i);
    }
    return x;
  }
  KOKKOS_INLINE_FUNCTION real interior(const Face& f, index_t o, index_t n, int q) const {
    real kg = 0;
    for (int i = 0; i < 3; ++i) kg += real(0.5) * f.k[i] * (grad(o, 3 * q + i) + grad(n, 3 * q + i));
    return f.a * (u(n, q) - u(o, q)) + kg;
  }
  /// s F_q from the gathering cell: the sign folded into the half-weights (exact: s = +-1).
  KOKKOS_INLINE_FUNCTION real gather(const Cell& c, const Face& f, index_t other, real s, int q) const {
    const real hk[3] = {real(0.5) * s * f.k[0], real(0.5) * s * f.k[1], real(0.5) * s * f.k[2]};
    real kg = 0;
    for (int i = 0; i < 3; ++i) kg += hk[i] * (c.g[q][i] + grad(other, 3 * q + i));
    return f.a * (u(other, q) - c.u[q]) + kg;
  }
  KOKKOS_INLINE_FUNCTION real scale(int q) const { return kappa[q]; }
};

/// Dirichlet and inflow patches: the one-sided flux to the boundary value u_b (outflow patches
/// carry no diffusive flux and launch nothing).
struct ScalarDiffusionValue {
  ConstView2<real> u, ub, grad;
  index_t n_interior;
  template <class Face> KOKKOS_INLINE_FUNCTION real value(const Face& f, index_t c, index_t face, int q) const {
    const real kg = f.k[0] * grad(c, 3 * q) + f.k[1] * grad(c, 3 * q + 1) + f.k[2] * grad(c, 3 * q + 2);
    return f.a * (ub(face - n_interior, q) - u(c, q)) + kg;
  }
};

template <int N> class OptimizedDiffusion final : public DiffusionOperator {
public:
  OptimizedDiffusion(const Mesh& m, const OperatorGeometry& og, const DiffusionConfig& cfg,
                     const std::vector<double>& kappa, const std::vector<BoundaryType>& types, bool gather)
      : cells_(diffusion_cells(m, og)), alpha_(og.diff_alpha), k_(og.diff_k), parts_(PartRanges::of(m)),
        n_interior_(m.n_interior), launch_{cfg.policy, cfg.team_size}, gather_(gather) {
    for (int q = 0; q < N; ++q) kappa_[q] = static_cast<real>(kappa[q]);
    // Outflow patches carry no diffusive flux: only Dirichlet and inflow patches are launched.
    for (auto& p : patch_owner_runs(m, types, "fvproxy::diffusion::patch_runs"))
      if (p.type != BoundaryType::outflow) patches_.push_back(p);
  }
  void apply(ConstView2<real> u, ConstView2<real> ub, ConstView2<real> grad, View2<real> rhs,
             Part part) const override {
    using Model = ScalarDiffusion<N>;
    using BC = ScalarDiffusionValue;
    Model m{alpha_, k_, u, grad, {}};
    for (int q = 0; q < N; ++q) m.kappa[q] = kappa_[q];
    const BC value{u, ub, grad, n_interior_};
    if (gather_) {
      launch("fvproxy::diffusion::gather_interior", parts_.cells(part), launch_,
             DiffusionGatherInterior<Model>{m, cells_, rhs});
      for (const auto& p : patches_) // the runs of the part's own cells, after their interior faces
        launch("fvproxy::diffusion::gather_patch", p.runs_of(part), launch_,
               DiffusionGatherPatch<Model, BC>{m, value, cells_, rhs, p.runs});
      return;
    }
    launch("fvproxy::diffusion::scatter_interior", parts_.owned_faces(part), launch_,
           DiffusionScatterInterior<Model>{m, cells_, rhs, parts_.n_cells});
    launch("fvproxy::diffusion::scatter_cross", parts_.cross_faces(part), launch_,
           DiffusionScatterInterior<Model, true>{m, cells_, rhs, parts_.n_cells});
    // Boundary faces belong to owned cells: their scatter kernels run with the inner part (or all).
    if (!PartRanges::has_boundary(part)) return;
    for (const auto& p : patches_)
      Kokkos::parallel_for("fvproxy::diffusion::scatter_patch", Kokkos::RangePolicy<ExecSpace>(p.begin, p.end),
                           DiffusionScatterPatch<Model, BC>{m, value, cells_, rhs});
  }
  std::string description() const override {
    return std::string("optimized/") + (gather_ ? "gather/" : "atomic/") + to_string(launch_.policy);
  }

private:
  DiffusionCells cells_;
  ConstView1<real> alpha_;
  ConstVec3View<real> k_;
  PartRanges parts_;
  index_t n_interior_;
  LaunchOptions launch_;
  bool gather_;
  real kappa_[N];
  std::vector<PatchRuns> patches_;
};

template <int N> struct MakeOptimizedDiffusion {
  static std::unique_ptr<DiffusionOperator> make(const Mesh& m, const OperatorGeometry& og, const DiffusionConfig& cfg,
                                                 const std::vector<double>& kappa,
                                                 const std::vector<BoundaryType>& types, bool gather) {
    return std::make_unique<OptimizedDiffusion<N>>(m, og, cfg, kappa, types, gather);
  }
};

} // namespace

std::unique_ptr<DiffusionOperator> make_diffusion(const Mesh& mesh, const OperatorGeometry& geom,
                                                  const DiffusionConfig& cfg, const std::vector<double>& kappa,
                                                  const std::vector<BoundaryType>& patch_types, bool deterministic) {
  if (cfg.variant == Variant::naive) return std::make_unique<NaiveDiffusion>(mesh, kappa, patch_types, deterministic);
  const bool gather = deterministic || cfg.scatter == Scatter::gather;
  return dispatch_components<MakeOptimizedDiffusion>(int(kappa.size()), mesh, geom, cfg, kappa, patch_types, gather);
}

} // namespace fvproxy
