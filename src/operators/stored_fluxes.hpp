#pragma once
// Stored face fluxes (operators.<op>.scatter: stored; docs/operators/face-pass.md#accumulation):
// a face operator's kernel stores each interior face's flux once (one thread per face, no
// atomics), then StoredFluxSum adds each cell's faces' fluxes to its rate in the cell's face order
// (one thread per cell): deterministic, each face evaluated once. The store kernels are the
// operators' own (ConvectionStoreInterior, DiffusionStoreInterior, FacePassStoreInterior).
#include <string>

#include "core/types.hpp"
#include "operators/launch.hpp"
#include "operators/part.hpp"

namespace fvproxy {

/// The stored face fluxes of `scatter: stored` (docs/operators/face-pass.md#accumulation): one row
/// per interior face, a face's variables side by side (one or two 32-byte sectors per face read).
using FaceFluxes = Kokkos::View<real**, Kokkos::LayoutRight, MemSpace>;
using ConstFaceFluxes = Kokkos::View<const real**, Kokkos::LayoutRight, MemSpace>;

/// rhs(c, :) -= the sum over cell c's interior faces of sign x the stored flux, over V: the terms
/// and the order of the gather kernels (ConvectionGatherInterior), so the same bits when the
/// fluxes are the same. G: any geometry with the cells' face lists (off, bbegin, faces, sign,
/// inv_volume: ConvectionGeometry, DiffusionCells).
template <int N, class G> struct StoredFluxSum {
  G g;
  ConstFaceFluxes flux;
  View2<real> rhs;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    real acc[N];
    for (int k = 0; k < N; ++k) acc[k] = 0;
    for (index_t q = g.off(c); q < g.bbegin(c); ++q) {
      const index_t f = g.faces(q);
      const real s = g.sign(q);
      for (int k = 0; k < N; ++k) acc[k] += s * flux(f, k);
    }
    const real iv = g.inv_volume(c);
    for (int k = 0; k < N; ++k) rhs(c, k) -= acc[k] * iv;
  }
};

/// `scatter: stored` over `part`: its interior faces' fluxes by `store` (a functor over faces that
/// fills `flux`; labels "<label>store_interior", "..._cross"), then its owned cells sum them
/// ("<label>sum_stored"). The inner part stores every face between two owned cells, so a frontier
/// cell's sum (after the halo) finds its faces to other owned cells stored already.
template <int N, class Store, class G> void launch_stored(const std::string& label, const PartRanges& parts,
                                                          const LaunchOptions& lo, const Store& store, const G& g,
                                                          ConstFaceFluxes flux, View2<real> rhs, Part part) {
  if (part == Part::all) {
    launch(label + "store_interior", IndexRange{0, parts.n_interior}, lo, store);
  } else {
    launch(label + "store_interior", parts.owned_faces(part), lo, store);
    launch(label + "store_cross", parts.cross_faces(part), lo, store);
  }
  launch(label + "sum_stored", parts.cells(part), lo, StoredFluxSum<N, G>{g, flux, rhs});
}

} // namespace fvproxy
