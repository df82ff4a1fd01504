#pragma once
// How an optimized face operator launches the interior faces of a part, whatever its accumulation
// (operators.<op>.scatter; docs/operators/face-pass.md#accumulation):
//   gather   one thread per owned cell over its interior faces (each face evaluated twice);
//   atomic   one thread per face with atomics to both sides: the faces between two owned cells,
//            then those to a ghost (to the owned side only);
//   stored   one thread per face into stored fluxes, then one per cell summing them (launch_stored).
// The scalar and flow convection, the diffusion and viscous operators and both face passes keep this
// state (FaceLaunch) and give their kernels as a family, a small value type with
//
//   static constexpr bool can_store                 whether the family has store() (scatter: stored)
//   Gather gather(View2<real> rhs)                  a functor over cells
//   template <bool Cross>
//   Scatter scatter(View2<real> rhs, index_t n_owned)  a functor over faces (Cross: to the owned side)
//   Store store(FaceFluxes flux)                     a functor over faces (when can_store)
//   const G& cells()                                 the face lists StoredFluxSum reads (when can_store)
//
// Kernel labels: <label>gather_interior, <label>scatter_interior, <label>scatter_cross and, stored,
// <label>store_interior, <label>store_cross, <label>sum_stored, with label "fvproxy::<component>::".
#include <stdexcept>
#include <string>
#include <utility>

#include "mesh/mesh.hpp"
#include "operators/launch.hpp"
#include "operators/operator_options.hpp"
#include "operators/part.hpp"
#include "operators/stored_fluxes.hpp"

namespace fvproxy {

struct FaceLaunch {
  PartRanges parts;
  LaunchOptions launch;
  Scatter scatter = Scatter::atomic;
  std::string label; ///< the kernels' prefix, "fvproxy::<component>::"
  FaceFluxes flux;   ///< the interior faces' fluxes (scatter: stored; "<label>face_flux"), else empty

  FaceLaunch() = default;
  /// `n_vars` variables per stored face flux.
  FaceLaunch(const Mesh& m, LaunchOptions lo, Scatter s, int n_vars, std::string prefix)
      : parts(PartRanges::of(m)), launch(lo), scatter(s), label(std::move(prefix)) {
    if (scatter == Scatter::stored) flux = FaceFluxes(label + "face_flux", m.n_interior, n_vars);
  }

  /// The boundary patches' accumulation: per cell unless the interior faces scatter with atomics
  /// (no atomics at all with stored fluxes).
  bool gather_patches() const { return scatter != Scatter::atomic; }

  /// "<kind>/<scatter>/<policy>": an operator's description().
  std::string description(const char* kind) const {
    return std::string(kind) + "/" + to_string(scatter) + "/" + to_string(launch.policy);
  }

  /// The interior faces of `part` into rhs with the kernels of family `k` (N: variables per face).
  template <int N, class Family> void interior(const Family& k, View2<real> rhs, Part part) const {
    if (scatter == Scatter::stored) {
      if constexpr (Family::can_store)
        launch_stored<N>(label, parts, launch, k.store(flux), k.cells(), flux, rhs, part);
      else
        throw std::logic_error(label + ": this operator has no stored face fluxes");
      return;
    }
    if (scatter == Scatter::gather) {
      fvproxy::launch(label + "gather_interior", parts.cells(part), launch, k.gather(rhs));
      return;
    }
    fvproxy::launch(label + "scatter_interior", parts.owned_faces(part), launch,
                    k.template scatter<false>(rhs, parts.n_cells));
    fvproxy::launch(label + "scatter_cross", parts.cross_faces(part), launch,
                    k.template scatter<true>(rhs, parts.n_cells));
  }
};

} // namespace fvproxy
