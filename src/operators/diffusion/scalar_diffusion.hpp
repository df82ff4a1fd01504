#pragma once
// The scalar diffusion as a diffusion model (diffusion_kernels.hpp's contract): the optimized
// diffusion operator (diffusion.cpp) and the fused face pass (face_pass/face_pass.cpp) share it.
#include <vector>

#include "operators/boundary_patches.hpp"
#include "operators/diffusion/diffusion_kernels.hpp"
#include "operators/launch.hpp"
#include "operators/part.hpp"

namespace fvproxy {

/// N components, F_k = alpha_f (u_N - u_P) + k_f . (g_P + g_N) / 2 per face (the corrected face
/// gradient with the precomputed OperatorGeometry::diff_alpha and diff_k), scaled by the
/// diffusivity kappa_k. Separable: the gather keeps its cell's values and gradients in registers.
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

/// The diffusion model of `u` and `grad` (the views the kernels read change every call).
template <int N> ScalarDiffusion<N> scalar_diffusion_model(ConstView1<real> alpha, ConstVec3View<real> kv,
                                                           const real (&kappa)[N], ConstView2<real> u,
                                                           ConstView2<real> grad) {
  ScalarDiffusion<N> m{alpha, kv, u, grad, {}};
  for (int q = 0; q < N; ++q) m.kappa[q] = kappa[q];
  return m;
}

/// The patches with a diffusive flux (Dirichlet and inflow: outflow patches carry none).
inline std::vector<PatchRuns> scalar_diffusion_patch_runs(const Mesh& m, const std::vector<BoundaryType>& types) {
  std::vector<PatchRuns> out;
  for (auto& p : patch_owner_runs(m, types, "fvproxy::diffusion::patch_runs"))
    if (p.type != BoundaryType::outflow) out.push_back(p);
  return out;
}

/// rhs += the diffusive fluxes of the boundary faces of `part` (`patches`: those of
/// scalar_diffusion_patch_runs): the runs of the part's cells (gather, after their interior faces)
/// or the patches' faces (atomic scatter, with the inner part).
template <int N, class Cells> void scalar_diffusion_patches(const ScalarDiffusion<N>& m, const Cells& cells,
                                                            const std::vector<PatchRuns>& patches, index_t n_interior,
                                                            const LaunchOptions& opt, bool gather, ConstView2<real> ub,
                                                            View2<real> rhs, Part part) {
  using Model = ScalarDiffusion<N>;
  using BC = ScalarDiffusionValue;
  const BC value{m.u, ub, m.grad, n_interior};
  if (gather) {
    for (const auto& p : patches) // the runs of the part's own cells, after their interior faces
      launch("fvproxy::diffusion::gather_patch", p.runs_of(part), opt,
             DiffusionGatherPatch<Model, BC>{m, value, cells, rhs, p.runs});
    return;
  }
  // Boundary faces belong to owned cells: their scatter kernels run with the inner part (or all).
  if (!PartRanges::has_boundary(part)) return;
  for (const auto& p : patches)
    Kokkos::parallel_for("fvproxy::diffusion::scatter_patch", Kokkos::RangePolicy<ExecSpace>(p.begin, p.end),
                         DiffusionScatterPatch<Model, BC>{m, value, cells, rhs});
}

} // namespace fvproxy
