#pragma once
// The optimized diffusion kernels, written once for every model (docs/operators/flow.md#the-model-contract).
// The scalar diffusion (operators/diffusion/diffusion.cpp, ScalarDiffusion<N>) and the compressible
// viscous terms (operators/flow/flow_viscous.cpp, FlowViscous<Law>) instantiate the same four kernels:
//
//   DiffusionGatherInterior<M>         one thread per cell: its interior faces, one update per cell
//   DiffusionGatherPatch<M, BC>        one thread per run of a patch's faces with the same owner
//   DiffusionScatterInterior<M, X>     one thread per face, atomics to both sides (X: the faces
//                                      between an owned cell and a ghost, to the owned side only)
//   DiffusionScatterPatch<M, BC>       one thread per boundary face, an atomic to its owner
//   DiffusionStoreInterior<M>          one thread per face: its flux stored (scatter: stored), then
//                                      StoredFluxSum (stored_fluxes.hpp) per cell
//
// rhs(c, k) += scale_k / V_c sum_f s_f F_k(f): F(f) is the diffusive flux through face f out of
// its owner (times the area, or in the model's own units that scale_k turns into a flux). A
// diffusion model M is a small value type copied into every thread, holding its parameters and the
// views its flux reads (is_diffusion_model checks it at compile time):
//
//   static constexpr int first, n_vars   the equations [first, n_vars) it writes (the flow's mass
//                                        equation has no diffusive term: first = 1)
//   void interior(f, F[n_vars])          F for interior face f, from both cells (the corrected face
//                                        gradient, operators/diffusion/diffusion.hpp)
//   real scale(k)                        the factor of equation k applied to the sum (scalar: its
//                                        diffusivity; flow: 1, the viscosity is inside F)
//
// and a boundary condition BC, one instantiation per patch type that carries a diffusive flux:
//
//   void operator()(f, F[n_vars])        F for boundary face f.
//
// A *separable* model (each variable's flux depends on that variable alone: the scalar diffusion)
// may declare `static constexpr bool separable = true` and supply, instead of interior(f, F):
//
//   using Face; Face face(f)                 what it reads of a face, loaded once per face
//   real interior(face, o, n, k)             F_k of an interior face
//   using Cell; Cell cell(c)                 the gathering cell's own values, loaded once per cell
//   real gather(cell, face, other, s, k)     s F_k seen from that cell (other: the cell across)
//
// with boundary conditions `real value(face, c, f, k)`. The kernels then keep the gathering cell's
// values in registers and loop over the variables one after another, the order the scalar kernels
// always had: written as whole flux vectors, the same arithmetic ran 4 % (atomic) to 37 % (gather)
// slower at 5 components on an H100 (perf/results/2026-11-25-h100-model-contract).
//
// Every kernel adds the same terms in the same order as each model's kernels did before they
// shared them, so results are bitwise unchanged.
#include <type_traits>

#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "operators/operator_geometry.hpp"
#include "operators/stored_fluxes.hpp"

namespace fvproxy {

/// What the kernels themselves read: the faces of each cell (interior faces first, then
/// cell_boundary_begin), their owner, neighbour and sign, and 1/V.
struct DiffusionCells {
  ConstView1<index_t> owner, neighbour, off, bbegin, faces;
  ConstView1<std::int8_t> sign;
  ConstView1<real> inv_volume;
};

/// The diffusion kernels' face lists of a mesh (views shared with the mesh and its OperatorGeometry).
inline DiffusionCells diffusion_cells(const Mesh& m, const OperatorGeometry& og) {
  return {m.face_owner, m.face_neighbour, m.cell_face_off, og.cell_boundary_begin,
          m.cell_faces, m.cell_face_sign, m.inv_volume};
}

namespace detail {
template <class M, class = void> struct is_diffusion_model : std::false_type {};
template <class M> struct is_diffusion_model<
    M, std::void_t<decltype(M::first), decltype(M::n_vars),
                   decltype(std::declval<const M&>().interior(index_t{}, std::declval<real (&)[M::n_vars]>())),
                   decltype(real(std::declval<const M&>().scale(0)))>>
    : std::bool_constant<(0 <= M::first && M::first < M::n_vars)> {};
} // namespace detail

namespace detail {
template <class M, class = void> struct is_separable_diffusion_model : std::false_type {};
template <class M> struct is_separable_diffusion_model<
    M,
    std::void_t<decltype(M::first), decltype(M::n_vars), decltype(M::separable), typename M::Face, typename M::Cell,
                decltype(std::declval<const M&>().face(index_t{})), decltype(std::declval<const M&>().cell(index_t{})),
                decltype(real(std::declval<const M&>().interior(std::declval<const typename M::Face&>(), index_t{},
                                                                index_t{}, 0))),
                decltype(real(std::declval<const M&>().gather(std::declval<const typename M::Cell&>(),
                                                              std::declval<const typename M::Face&>(), index_t{},
                                                              real{}, 0))),
                decltype(real(std::declval<const M&>().scale(0)))>> : std::bool_constant < M::separable &&
    0 <= M::first&& M::first<M::n_vars> {};
} // namespace detail

/// True when M is a separable diffusion model (above).
template <class M> inline constexpr bool is_separable_diffusion = detail::is_separable_diffusion_model<M>::value;

/// True when M fulfils the diffusion model contract above (flux vectors, or separable).
template <class M> inline constexpr bool is_diffusion_model =
    detail::is_diffusion_model<M>::value || is_separable_diffusion<M>;

template <class M> struct DiffusionGatherInterior {
  static_assert(is_diffusion_model<M>, "M does not fulfil the diffusion model contract");
  static constexpr int K0 = M::first, N = M::n_vars;
  M m;
  DiffusionCells g;
  View2<real> rhs;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    real acc[N];
    for (int k = K0; k < N; ++k) acc[k] = 0;
    if constexpr (is_separable_diffusion<M>) {
      const typename M::Cell cell = m.cell(c);
      for (index_t q = g.off(c); q < g.bbegin(c); ++q) {
        const index_t f = g.faces(q);
        const real s = g.sign(q);
        const index_t other = s > 0 ? g.neighbour(f) : g.owner(f);
        const typename M::Face face = m.face(f);
        for (int k = K0; k < N; ++k) acc[k] += m.gather(cell, face, other, s, k);
      }
    } else {
      for (index_t q = g.off(c); q < g.bbegin(c); ++q) {
        real F[N];
        m.interior(g.faces(q), F);
        const real s = g.sign(q);
        for (int k = K0; k < N; ++k) acc[k] += s * F[k];
      }
    }
    const real iv = g.inv_volume(c);
    for (int k = K0; k < N; ++k) rhs(c, k) += m.scale(k) * acc[k] * iv;
  }
};

template <class M, class BC> struct DiffusionGatherPatch {
  static_assert(is_diffusion_model<M>, "M does not fulfil the diffusion model contract");
  static constexpr int K0 = M::first, N = M::n_vars;
  M m;
  BC bc;
  DiffusionCells g;
  View2<real> rhs;
  ConstView2<index_t> runs; ///< PatchRuns::runs
  KOKKOS_FUNCTION void operator()(const index_t run) const {
    const index_t first = runs(run, 0), last = runs(run, 1), c = g.owner(first);
    real acc[N];
    for (int k = K0; k < N; ++k) acc[k] = 0;
    for (index_t f = first; f < last; ++f) {
      if constexpr (is_separable_diffusion<M>) {
        const typename M::Face face = m.face(f);
        for (int k = K0; k < N; ++k) acc[k] += bc.value(face, c, f, k);
      } else {
        real F[N];
        bc(f, F);
        for (int k = K0; k < N; ++k) acc[k] += F[k];
      }
    }
    const real iv = g.inv_volume(c);
    for (int k = K0; k < N; ++k) rhs(c, k) += m.scale(k) * acc[k] * iv;
  }
};

template <class M, bool Cross = false> struct DiffusionScatterInterior {
  static_assert(is_diffusion_model<M>, "M does not fulfil the diffusion model contract");
  static constexpr int K0 = M::first, N = M::n_vars;
  M m;
  DiffusionCells g;
  View2<real> rhs;
  index_t n_owned; ///< cells below it are owned (Cross)
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const index_t o = g.owner(f), n = g.neighbour(f);
    const bool to_o = !Cross || o < n_owned, to_n = !Cross || n < n_owned;
    if constexpr (is_separable_diffusion<M>) {
      const typename M::Face face = m.face(f);
      const real io = g.inv_volume(o), in = g.inv_volume(n);
      for (int k = K0; k < N; ++k) {
        const real fl = m.scale(k) * m.interior(face, o, n, k);
        if (to_o) Kokkos::atomic_add(&rhs(o, k), fl * io);
        if (to_n) Kokkos::atomic_add(&rhs(n, k), -fl * in);
      }
    } else {
      real F[N];
      m.interior(f, F);
      if (to_o) {
        const real io = g.inv_volume(o);
        for (int k = K0; k < N; ++k) Kokkos::atomic_add(&rhs(o, k), m.scale(k) * F[k] * io);
      }
      if (to_n) {
        const real in = g.inv_volume(n);
        for (int k = K0; k < N; ++k) Kokkos::atomic_add(&rhs(n, k), -(m.scale(k) * F[k]) * in);
      }
    }
  }
};

/// flux(f, k) = minus interior face f's scaled diffusive flux out of its owner, -scale_k F_k (0 for
/// k < first), each face once (scatter: stored; StoredFluxSum subtracts the sum, so the rate gains
/// +scale_k F_k / V as the other kernels add it).
template <class M> struct DiffusionStoreInterior {
  static_assert(is_diffusion_model<M>, "M does not fulfil the diffusion model contract");
  static constexpr int K0 = M::first, N = M::n_vars;
  M m;
  DiffusionCells g;
  FaceFluxes flux;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    for (int k = 0; k < K0; ++k) flux(f, k) = 0;
    if constexpr (is_separable_diffusion<M>) {
      const typename M::Face face = m.face(f);
      const index_t o = g.owner(f), n = g.neighbour(f);
      for (int k = K0; k < N; ++k) flux(f, k) = -(m.scale(k) * m.interior(face, o, n, k));
    } else {
      real F[N];
      m.interior(f, F);
      for (int k = K0; k < N; ++k) flux(f, k) = -(m.scale(k) * F[k]);
    }
  }
};

/// The interior kernels above on model M as a FaceLaunch family (operators/face_launch.hpp); the
/// flow viscous operator has no stored fluxes (Store false: its stored path is the face pass's).
template <class M, bool Store = true> struct DiffusionInteriorKernels {
  static constexpr bool can_store = Store;
  M m;
  DiffusionCells g;
  DiffusionGatherInterior<M> gather(View2<real> rhs) const { return {m, g, rhs}; }
  template <bool Cross> DiffusionScatterInterior<M, Cross> scatter(View2<real> rhs, index_t n_owned) const {
    return {m, g, rhs, n_owned};
  }
  DiffusionStoreInterior<M> store(FaceFluxes flux) const { return {m, g, flux}; }
  const DiffusionCells& cells() const { return g; }
};

template <class M, class BC> struct DiffusionScatterPatch {
  static_assert(is_diffusion_model<M>, "M does not fulfil the diffusion model contract");
  static constexpr int K0 = M::first, N = M::n_vars;
  M m;
  BC bc;
  DiffusionCells g;
  View2<real> rhs;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const index_t o = g.owner(f);
    const real io = g.inv_volume(o);
    if constexpr (is_separable_diffusion<M>) {
      const typename M::Face face = m.face(f);
      for (int k = K0; k < N; ++k) Kokkos::atomic_add(&rhs(o, k), m.scale(k) * bc.value(face, o, f, k) * io);
    } else {
      real F[N];
      bc(f, F);
      for (int k = K0; k < N; ++k) Kokkos::atomic_add(&rhs(o, k), m.scale(k) * F[k] * io);
    }
  }
};

} // namespace fvproxy
