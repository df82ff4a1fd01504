#pragma once
// The fused face pass's kernels (issue 39; docs/operators/face-pass.md): one pass over the interior
// faces that evaluates a convection model CM's flux (convection_kernels.hpp's contract) and a
// diffusion model DM's flux (diffusion_kernels.hpp's contract) of each face together and adds both
// to the rate once, instead of two operators each reading the state, the gradients and the
// geometry and each adding to the rate:
//
//   FacePassGatherInterior<CM, R, DM>           one thread per cell: its interior faces, one update
//   FacePassScatterInterior<CM, R, DM, Cross>   one thread per face, one atomic per side and variable
//   FacePassStoreInterior<CM, R, DM>            one thread per face, its net flux stored; then
//                                               StoredFluxSum (stored_fluxes.hpp) per cell
//
//   FacePassInteriorKernels<CM, R, DM>          the three as a FaceLaunch family (face_launch.hpp):
//                                               the scalar and the navier-stokes face pass launch it
//
// Each model's own arithmetic is unchanged (the same calls as its own kernels, summed in the same
// order into its own accumulator): the gather's rate of a cell with no boundary face is bitwise
// the separate operators' (rhs - conv/V, then + kappa diff/V); the scatter adds the two terms of a
// face before its atomic (round-off apart, and atomics are unordered anyway). Boundary faces keep
// each operator's patch kernels.
#include "operators/convection/convection_kernels.hpp"
#include "operators/diffusion/diffusion_kernels.hpp"

namespace fvproxy {

namespace detail {
template <class CM, class DM> constexpr bool face_pass_models() {
  return fvproxy::is_convection_model<CM> && fvproxy::is_diffusion_model<DM> && CM::n_vars == DM::n_vars &&
         fvproxy::is_separable_convection<CM> == fvproxy::is_separable_diffusion<DM>;
}
} // namespace detail

template <class CM, Reconstruction R, class DM> struct FacePassGatherInterior {
  static_assert(detail::face_pass_models<CM, DM>(),
                "the face pass takes a convection and a diffusion model of the same variables, both separable or "
                "neither");
  static constexpr int N = CM::n_vars, K0 = DM::first;
  CM cm;
  DM dm;
  ConvectionGeometry g;
  ConstView2<real> u, grad, lim;
  View2<real> rhs;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    real ac[N], ad[N];
    for (int k = 0; k < N; ++k) ac[k] = 0, ad[k] = 0;
    if constexpr (is_separable_convection<CM>) {
      const typename DM::Cell cell = dm.cell(c);
      for (index_t q = g.off(c); q < g.bbegin(c); ++q) {
        const index_t f = g.faces(q), o = g.owner(f), n = g.neighbour(f);
        const real s = g.sign(q);
        const real ro[3] = {g.r(f, 0), g.r(f, 1), g.r(f, 2)};
        const real rn[3] = {ro[0] - g.d(f, 0), ro[1] - g.d(f, 1), ro[2] - g.d(f, 2)};
        const typename CM::Face face = cm.face(f);
        const typename DM::Face dface = dm.face(f);
        const index_t other = s > 0 ? n : o;
        for (int k = 0; k < N; ++k) {
          ac[k] += s * cm.flux(face, cm.template value<R>(u, grad, lim, o, k, ro),
                               cm.template value<R>(u, grad, lim, n, k, rn));
          if (k >= K0) ad[k] += dm.gather(cell, dface, other, s, k);
        }
      }
    } else {
      for (index_t q = g.off(c); q < g.bbegin(c); ++q) {
        const index_t f = g.faces(q);
        const real s = g.sign(q);
        real F[N];
        interior_flux<CM, R>(cm, g, u, grad, lim, f, F);
        for (int k = 0; k < N; ++k) ac[k] += s * F[k];
        dm.interior(f, F);
        for (int k = K0; k < N; ++k) ad[k] += s * F[k];
      }
    }
    const real iv = g.inv_volume(c);
    for (int k = 0; k < N; ++k) {
      real r = rhs(c, k) - ac[k] * iv;
      if (k >= K0) r += dm.scale(k) * ad[k] * iv;
      rhs(c, k) = r;
    }
  }
};

template <class CM, Reconstruction R, class DM, bool Cross = false> struct FacePassScatterInterior {
  static_assert(detail::face_pass_models<CM, DM>(),
                "the face pass takes a convection and a diffusion model of the same variables, both separable or "
                "neither");
  static constexpr int N = CM::n_vars, K0 = DM::first;
  CM cm;
  DM dm;
  ConvectionGeometry g;
  ConstView2<real> u, grad, lim;
  View2<real> rhs;
  index_t n_owned; ///< cells below it are owned (Cross)
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const index_t o = g.owner(f), n = g.neighbour(f);
    const bool to_o = !Cross || o < n_owned, to_n = !Cross || n < n_owned;
    const real io = g.inv_volume(o), in = g.inv_volume(n);
    if constexpr (is_separable_convection<CM>) {
      const real ro[3] = {g.r(f, 0), g.r(f, 1), g.r(f, 2)};
      const real rn[3] = {ro[0] - g.d(f, 0), ro[1] - g.d(f, 1), ro[2] - g.d(f, 2)};
      const typename CM::Face face = cm.face(f);
      const typename DM::Face dface = dm.face(f);
      for (int k = 0; k < N; ++k) {
        // the face's net flux out of its owner: convective minus diffusive
        real fl =
            cm.flux(face, cm.template value<R>(u, grad, lim, o, k, ro), cm.template value<R>(u, grad, lim, n, k, rn));
        if (k >= K0) fl -= dm.scale(k) * dm.interior(dface, o, n, k);
        if (to_o) Kokkos::atomic_add(&rhs(o, k), -fl * io);
        if (to_n) Kokkos::atomic_add(&rhs(n, k), fl * in);
      }
    } else {
      real F[N], D[N];
      interior_flux<CM, R>(cm, g, u, grad, lim, f, F);
      dm.interior(f, D);
      for (int k = K0; k < N; ++k) F[k] -= dm.scale(k) * D[k];
      if (to_o)
        for (int k = 0; k < N; ++k) Kokkos::atomic_add(&rhs(o, k), -F[k] * io);
      if (to_n)
        for (int k = 0; k < N; ++k) Kokkos::atomic_add(&rhs(n, k), F[k] * in);
    }
  }
};

/// flux(f, :) = interior face f's net flux out of its owner, convective minus kappa diffusive (the
/// scatter's), each face once (scatter: stored).
template <class CM, Reconstruction R, class DM> struct FacePassStoreInterior {
  static_assert(detail::face_pass_models<CM, DM>(),
                "the face pass takes a convection and a diffusion model of the same variables, both separable or "
                "neither");
  static constexpr int N = CM::n_vars, K0 = DM::first;
  CM cm;
  DM dm;
  ConvectionGeometry g;
  ConstView2<real> u, grad, lim;
  FaceFluxes flux;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    if constexpr (is_separable_convection<CM>) {
      const index_t o = g.owner(f), n = g.neighbour(f);
      const real ro[3] = {g.r(f, 0), g.r(f, 1), g.r(f, 2)};
      const real rn[3] = {ro[0] - g.d(f, 0), ro[1] - g.d(f, 1), ro[2] - g.d(f, 2)};
      const typename CM::Face face = cm.face(f);
      const typename DM::Face dface = dm.face(f);
      for (int k = 0; k < N; ++k) {
        real fl =
            cm.flux(face, cm.template value<R>(u, grad, lim, o, k, ro), cm.template value<R>(u, grad, lim, n, k, rn));
        if (k >= K0) fl -= dm.scale(k) * dm.interior(dface, o, n, k);
        flux(f, k) = fl;
      }
    } else {
      real F[N], D[N];
      interior_flux<CM, R>(cm, g, u, grad, lim, f, F);
      dm.interior(f, D);
      for (int k = K0; k < N; ++k) F[k] -= dm.scale(k) * D[k];
      for (int k = 0; k < N; ++k) flux(f, k) = F[k];
    }
  }
};

/// The kernels above as a FaceLaunch family (operators/face_launch.hpp): the interior faces of a part
/// in one pass, per cell (gather), per face with atomics, or per face into stored fluxes.
template <class CM, Reconstruction R, class DM> struct FacePassInteriorKernels {
  static constexpr bool can_store = true;
  CM cm;
  DM dm;
  ConvectionGeometry g;
  ConstView2<real> u, grad, lim;
  FacePassGatherInterior<CM, R, DM> gather(View2<real> rhs) const { return {cm, dm, g, u, grad, lim, rhs}; }
  template <bool Cross> FacePassScatterInterior<CM, R, DM, Cross> scatter(View2<real> rhs, index_t n_owned) const {
    return {cm, dm, g, u, grad, lim, rhs, n_owned};
  }
  FacePassStoreInterior<CM, R, DM> store(FaceFluxes flux) const { return {cm, dm, g, u, grad, lim, flux}; }
  const ConvectionGeometry& cells() const { return g; }
};

} // namespace fvproxy
