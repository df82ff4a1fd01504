#pragma once
// The optimized convection kernels, written once for every model (docs/operators/flow.md#the-model-contract).
// The scalar transport (operators/convection/convection.cpp, ScalarUpwind<N>) and the compressible
// flow (operators/flow/flow_convection.cpp, FlowUpwind<EulerModel<Flux>>) instantiate the same four kernels:
//
//   ConvectionGatherInterior<M, R>      one thread per cell: its interior faces, one update per cell
//   ConvectionGatherPatch<M, R, BC>     one thread per run of a patch's faces with the same owner
//   ConvectionScatterInterior<M, R, X>  one thread per face, atomics to both sides (X: the faces
//                                       between an owned cell and a ghost, to the owned side only)
//   ConvectionScatterPatch<M, R, BC>    one thread per boundary face, an atomic to its owner
//   ConvectionStoreInterior<M, R>       one thread per face: its flux stored (scatter: stored),
//                                       then StoredFluxSum (stored_fluxes.hpp) per cell
//
// A convection model M is a small value type copied into every thread: its physical parameters and
// the per-face data its flux reads (is_convection_model checks it at compile time, C++17 detection
// traits):
//
//   static constexpr int n_vars        the number of transported variables (fixed: registers)
//   using State                        a face state (a trivially copyable value: registers)
//   using Face                         what the numerical flux reads of a face
//   Face face(f)                       loads it (scalar: the face volume flux; flow: unit normal, area)
//   template <Reconstruction R>
//   State state(u, grad, lim, c, rc)   cell c's state at the face, rc = x_f - x_c
//   void flux(face, L, R, F[n_vars])   the numerical flux through the face times its area, L on the
//                                      side the face's normal points away from
//
// and a boundary condition BC, one instantiation per patch type, is
//
//   State operator()(f, face, L)       the state outside boundary face f given the inside one,
//
// or, for a boundary with a flux of its own (the flow's no-slip wall), also has
//
//   void flux(m, face, L, F[n_vars])   the face's flux times its area, used instead of m.flux.
//
// A *separable* model, whose flux acts on each variable alone (the scalar transport), may declare
// `static constexpr bool separable = true` and supply per variable k instead of State/state/flux:
//
//   template <Reconstruction R>
//   real value(u, grad, lim, c, k, rc) cell c's variable k at the face
//   real flux(face, l, r)              the flux of one variable
//
// with boundary conditions `real value(f, k, l)`. The kernels then loop over the variables
// outermost (reconstruct, flux, accumulate or scatter one variable after another), the order the
// scalar kernels always had: written as whole states first, the same arithmetic ran 7-12 % slower
// at 5 components on an H100 (perf/results/2026-11-25-h100-model-contract).
//
// Accumulators are `real acc[M::n_vars]` (registers, no local memory on CUDA). Every kernel adds
// the same terms in the same order as the scalar kernels did before the models shared them, so the
// scalar results are bitwise unchanged.
#include <string>
#include <type_traits>

#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "operators/operator_geometry.hpp"
#include "operators/stored_fluxes.hpp"

namespace fvproxy {

/// How the face states are formed (a template parameter: no run-time branch in the kernels).
enum class Reconstruction {
  first_order,  ///< the cell's own state
  conservative, ///< MUSCL on the transported variables: u + lim grad . rc
  primitive     ///< MUSCL on the model's primitive variables (flow: rho, u, v, w, p)
};

/// The geometry every model's kernels read (operators/operator_geometry.hpp): faces, their owner
/// and neighbour, the cells' face lists (interior faces first), r = x_f - x_owner,
/// d = x_neighbour - x_owner and 1/V.
struct ConvectionGeometry {
  ConstView1<index_t> owner, neighbour, off, bbegin, faces;
  ConstView1<std::int8_t> sign;
  ConstVec3View<real> d, r;
  ConstView1<real> inv_volume;
};

/// The convection kernels' geometry of a mesh (views shared with the mesh and its OperatorGeometry).
inline ConvectionGeometry convection_geometry(const Mesh& m, const OperatorGeometry& og) {
  return {m.face_owner, m.face_neighbour, m.cell_face_off, og.cell_boundary_begin, m.cell_faces, m.cell_face_sign, og.d,
          og.r,         m.inv_volume};
}

namespace detail {
template <class M, class = void> struct is_convection_model : std::false_type {};
template <class M> struct is_convection_model<
    M, std::void_t<decltype(M::n_vars), typename M::State, typename M::Face,
                   decltype(std::declval<const M&>().face(index_t{})),
                   decltype(std::declval<const M&>().template state<Reconstruction::first_order>(
                       std::declval<const ConstView2<real>&>(), std::declval<const ConstView2<real>&>(),
                       std::declval<const ConstView2<real>&>(), index_t{}, std::declval<const real (&)[3]>())),
                   decltype(std::declval<const M&>().flux(
                       std::declval<const typename M::Face&>(), std::declval<const typename M::State&>(),
                       std::declval<const typename M::State&>(), std::declval<real (&)[M::n_vars]>()))>>
    : std::bool_constant<std::is_trivially_copyable_v<typename M::State> &&
                         std::is_same_v<decltype(std::declval<const M&>().face(index_t{})), typename M::Face>> {};
template <class M, class = void> struct is_separable_convection_model : std::false_type {};
template <class M> struct is_separable_convection_model<
    M,
    std::void_t<decltype(M::n_vars), decltype(M::separable), typename M::Face,
                decltype(std::declval<const M&>().face(index_t{})),
                decltype(real(std::declval<const M&>().template value<Reconstruction::first_order>(
                    std::declval<const ConstView2<real>&>(), std::declval<const ConstView2<real>&>(),
                    std::declval<const ConstView2<real>&>(), index_t{}, 0, std::declval<const real (&)[3]>()))),
                decltype(real(std::declval<const M&>().flux(std::declval<const typename M::Face&>(), real{}, real{})))>>
    : std::bool_constant<M::separable &&
                         std::is_same_v<decltype(std::declval<const M&>().face(index_t{})), typename M::Face>> {};
} // namespace detail

/// True when M is a separable convection model (above).
template <class M> inline constexpr bool is_separable_convection = detail::is_separable_convection_model<M>::value;

/// True when M fulfils the convection model contract above (whole states, or separable).
template <class M> inline constexpr bool is_convection_model =
    detail::is_convection_model<M>::value || is_separable_convection<M>;

/// The flux through interior face f (owner side left) times its area.
template <class M, Reconstruction R>
KOKKOS_INLINE_FUNCTION void interior_flux(const M& m, const ConvectionGeometry& g, const ConstView2<real>& u,
                                          const ConstView2<real>& grad, const ConstView2<real>& lim, index_t f,
                                          real (&F)[M::n_vars]) {
  const real ro[3] = {g.r(f, 0), g.r(f, 1), g.r(f, 2)};
  const real rn[3] = {ro[0] - g.d(f, 0), ro[1] - g.d(f, 1), ro[2] - g.d(f, 2)};
  // The face before the states, the owner's side's atomics before the neighbour's (the scatter):
  // the order of the flow operator's own kernels, for which ptxas allocated fewer registers and the
  // H100 ran up to 32 % faster than other orders (perf/results/2026-11-25-h100-model-contract).
  const typename M::Face face = m.face(f);
  const typename M::State L = m.template state<R>(u, grad, lim, g.owner(f), ro);
  const typename M::State Rs = m.template state<R>(u, grad, lim, g.neighbour(f), rn);
  m.flux(face, L, Rs, F);
}

namespace detail {
template <class BC, class M, class = void> struct has_boundary_flux : std::false_type {};
template <class BC, class M>
struct has_boundary_flux<BC, M,
                         std::void_t<decltype(std::declval<const BC&>().flux(
                             std::declval<const M&>(), std::declval<const typename M::Face&>(),
                             std::declval<const typename M::State&>(), std::declval<real (&)[M::n_vars]>()))>>
    : std::true_type {};
} // namespace detail

/// The flux through boundary face f: the owner's state and the boundary condition's state outside
/// through the model's numerical flux, or, for a boundary condition with a flux of its own
/// (`void flux(m, face, L, F)`: a no-slip wall's), that flux.
template <class M, Reconstruction R, class BC>
KOKKOS_INLINE_FUNCTION void boundary_flux(const M& m, const BC& bc, const ConvectionGeometry& g,
                                          const ConstView2<real>& u, const ConstView2<real>& grad,
                                          const ConstView2<real>& lim, index_t f, real (&F)[M::n_vars]) {
  const real ro[3] = {g.r(f, 0), g.r(f, 1), g.r(f, 2)};
  const typename M::Face face = m.face(f);
  const typename M::State L = m.template state<R>(u, grad, lim, g.owner(f), ro);
  if constexpr (detail::has_boundary_flux<BC, M>::value)
    bc.flux(m, face, L, F);
  else
    m.flux(face, L, bc(f, face, L), F);
}

/// One boundary patch's flux per face into out(i, :), i = f - first (the wall forces: patch_fluxes).
template <class M, Reconstruction R, class BC> struct ConvectionPatchFlux {
  static_assert(is_convection_model<M>, "M does not fulfil the convection model contract");
  M m;
  BC bc;
  ConvectionGeometry g;
  ConstView2<real> u, grad, lim;
  View2<real> out;
  index_t first;
  KOKKOS_FUNCTION void operator()(const index_t i) const {
    real F[M::n_vars];
    boundary_flux<M, R>(m, bc, g, u, grad, lim, first + i, F);
    for (int k = 0; k < M::n_vars; ++k) out(i, k) = F[k];
  }
};

template <class M, Reconstruction R> struct ConvectionGatherInterior {
  static_assert(is_convection_model<M>, "M does not fulfil the convection model contract");
  static constexpr int N = M::n_vars;
  M m;
  ConvectionGeometry g;
  ConstView2<real> u, grad, lim;
  View2<real> rhs;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    real acc[N];
    for (int k = 0; k < N; ++k) acc[k] = 0;
    for (index_t q = g.off(c); q < g.bbegin(c); ++q) {
      const real s = g.sign(q);
      if constexpr (is_separable_convection<M>) {
        const index_t f = g.faces(q), o = g.owner(f), n = g.neighbour(f);
        const real ro[3] = {g.r(f, 0), g.r(f, 1), g.r(f, 2)};
        const real rn[3] = {ro[0] - g.d(f, 0), ro[1] - g.d(f, 1), ro[2] - g.d(f, 2)};
        const typename M::Face face = m.face(f);
        for (int k = 0; k < N; ++k)
          acc[k] += s * m.flux(face, m.template value<R>(u, grad, lim, o, k, ro),
                               m.template value<R>(u, grad, lim, n, k, rn));
      } else {
        real F[N];
        interior_flux<M, R>(m, g, u, grad, lim, g.faces(q), F);
        for (int k = 0; k < N; ++k) acc[k] += s * F[k];
      }
    }
    const real iv = g.inv_volume(c);
    for (int k = 0; k < N; ++k) rhs(c, k) -= acc[k] * iv;
  }
};

template <class M, Reconstruction R, class BC> struct ConvectionGatherPatch {
  static_assert(is_convection_model<M>, "M does not fulfil the convection model contract");
  static constexpr int N = M::n_vars;
  M m;
  BC bc;
  ConvectionGeometry g;
  ConstView2<real> u, grad, lim;
  View2<real> rhs;
  ConstView2<index_t> runs; ///< PatchRuns::runs
  KOKKOS_FUNCTION void operator()(const index_t run) const {
    const index_t first = runs(run, 0), last = runs(run, 1);
    const index_t c = g.owner(first);
    real acc[N];
    for (int k = 0; k < N; ++k) acc[k] = 0;
    for (index_t f = first; f < last; ++f) {
      if constexpr (is_separable_convection<M>) {
        const real ro[3] = {g.r(f, 0), g.r(f, 1), g.r(f, 2)};
        const typename M::Face face = m.face(f);
        for (int k = 0; k < N; ++k) {
          const real l = m.template value<R>(u, grad, lim, c, k, ro);
          acc[k] += m.flux(face, l, bc.value(f, k, l));
        }
      } else {
        real F[N];
        boundary_flux<M, R>(m, bc, g, u, grad, lim, f, F);
        for (int k = 0; k < N; ++k) acc[k] += F[k];
      }
    }
    const real iv = g.inv_volume(c);
    for (int k = 0; k < N; ++k) rhs(c, k) -= acc[k] * iv;
  }
};

template <class M, Reconstruction R, bool Cross = false> struct ConvectionScatterInterior {
  static_assert(is_convection_model<M>, "M does not fulfil the convection model contract");
  static constexpr int N = M::n_vars;
  M m;
  ConvectionGeometry g;
  ConstView2<real> u, grad, lim;
  View2<real> rhs;
  index_t n_owned; ///< cells below it are owned (Cross)
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const index_t o = g.owner(f), n = g.neighbour(f);
    const bool to_o = !Cross || o < n_owned, to_n = !Cross || n < n_owned;
    if constexpr (is_separable_convection<M>) {
      const real ro[3] = {g.r(f, 0), g.r(f, 1), g.r(f, 2)};
      const real rn[3] = {ro[0] - g.d(f, 0), ro[1] - g.d(f, 1), ro[2] - g.d(f, 2)};
      const real io = g.inv_volume(o), in = g.inv_volume(n);
      const typename M::Face face = m.face(f);
      for (int k = 0; k < N; ++k) {
        const real fl =
            m.flux(face, m.template value<R>(u, grad, lim, o, k, ro), m.template value<R>(u, grad, lim, n, k, rn));
        if (to_o) Kokkos::atomic_add(&rhs(o, k), -fl * io);
        if (to_n) Kokkos::atomic_add(&rhs(n, k), fl * in);
      }
    } else {
      real F[N];
      interior_flux<M, R>(m, g, u, grad, lim, f, F);
      if (to_o) {
        const real io = g.inv_volume(o);
        for (int k = 0; k < N; ++k) Kokkos::atomic_add(&rhs(o, k), -F[k] * io);
      }
      if (to_n) {
        const real in = g.inv_volume(n);
        for (int k = 0; k < N; ++k) Kokkos::atomic_add(&rhs(n, k), F[k] * in);
      }
    }
  }
};

/// flux(f, :) = interior face f's flux times its area (owner side left), each face once.
template <class M, Reconstruction R> struct ConvectionStoreInterior {
  static_assert(is_convection_model<M>, "M does not fulfil the convection model contract");
  static constexpr int N = M::n_vars;
  M m;
  ConvectionGeometry g;
  ConstView2<real> u, grad, lim;
  FaceFluxes flux;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    if constexpr (is_separable_convection<M>) {
      const index_t o = g.owner(f), n = g.neighbour(f);
      const real ro[3] = {g.r(f, 0), g.r(f, 1), g.r(f, 2)};
      const real rn[3] = {ro[0] - g.d(f, 0), ro[1] - g.d(f, 1), ro[2] - g.d(f, 2)};
      const typename M::Face face = m.face(f);
      for (int k = 0; k < N; ++k)
        flux(f, k) =
            m.flux(face, m.template value<R>(u, grad, lim, o, k, ro), m.template value<R>(u, grad, lim, n, k, rn));
    } else {
      real F[N];
      interior_flux<M, R>(m, g, u, grad, lim, f, F);
      for (int k = 0; k < N; ++k) flux(f, k) = F[k];
    }
  }
};

/// The interior kernels above on model M as a FaceLaunch family (operators/face_launch.hpp).
template <class M, Reconstruction R> struct ConvectionInteriorKernels {
  static constexpr bool can_store = true;
  M m;
  ConvectionGeometry g;
  ConstView2<real> u, grad, lim;
  ConvectionGatherInterior<M, R> gather(View2<real> rhs) const { return {m, g, u, grad, lim, rhs}; }
  template <bool Cross> ConvectionScatterInterior<M, R, Cross> scatter(View2<real> rhs, index_t n_owned) const {
    return {m, g, u, grad, lim, rhs, n_owned};
  }
  ConvectionStoreInterior<M, R> store(FaceFluxes flux) const { return {m, g, u, grad, lim, flux}; }
  const ConvectionGeometry& cells() const { return g; }
};

template <class M, Reconstruction R, class BC> struct ConvectionScatterPatch {
  static_assert(is_convection_model<M>, "M does not fulfil the convection model contract");
  static constexpr int N = M::n_vars;
  M m;
  BC bc;
  ConvectionGeometry g;
  ConstView2<real> u, grad, lim;
  View2<real> rhs;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const index_t o = g.owner(f);
    if constexpr (is_separable_convection<M>) {
      const real ro[3] = {g.r(f, 0), g.r(f, 1), g.r(f, 2)};
      const typename M::Face face = m.face(f);
      for (int k = 0; k < N; ++k) {
        const real l = m.template value<R>(u, grad, lim, o, k, ro);
        Kokkos::atomic_add(&rhs(o, k), -m.flux(face, l, bc.value(f, k, l)) * g.inv_volume(o));
      }
    } else {
      real F[N];
      boundary_flux<M, R>(m, bc, g, u, grad, lim, f, F);
      const real io = g.inv_volume(o);
      for (int k = 0; k < N; ++k) Kokkos::atomic_add(&rhs(o, k), -F[k] * io);
    }
  }
};

} // namespace fvproxy
