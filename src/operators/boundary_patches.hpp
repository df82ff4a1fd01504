#pragma once
// Boundary-patch data the operators share: for the optimized gathers, each patch's runs of faces
// with the same owner (a patch's faces are sorted by owner, so one thread per run touches one
// cell and patches launched one after another need no atomics); for the naive kernels, a per-face
// flag they branch on, and their launches (the face loop of a part, each patch's fluxes).
#include <string>
#include <utility>
#include <vector>

#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "operators/part.hpp"
#include "physics/physics_options.hpp"

namespace fvproxy {

struct PatchRuns {
  index_t begin = 0, end = 0; ///< the patch's face range
  BoundaryType type = BoundaryType::outflow;
  /// Run r is the faces [runs(r, 0), runs(r, 1)), all of one owner: the runs of inner cells first,
  /// [0, n_inner_runs), then those of frontier cells (operators/part.hpp), so that each cell's
  /// boundary fluxes are added in the part that adds its interior ones, in the same order as on
  /// one rank (bitwise results under run.deterministic, whatever the rank count).
  View2<index_t> runs;
  index_t n_inner_runs = 0;
  std::size_t patch = 0; ///< which patch: the index into Mesh::patches (empty patches have no entry)
  index_t n_runs() const { return static_cast<index_t>(runs.extent(0)); }
  IndexRange runs_of(Part p) const {
    if (p == Part::inner) return {0, n_inner_runs};
    if (p == Part::frontier) return {n_inner_runs, n_runs()};
    return {0, n_runs()};
  }
};

/// One entry per non-empty patch, in patch order. `types`: the boundary type of each patch.
std::vector<PatchRuns> patch_owner_runs(const Mesh& m, const std::vector<BoundaryType>& types, const char* label);

/// Per boundary face (index f - n_interior): 1 on outflow patches, 0 elsewhere.
View1<std::int8_t> outflow_face_flags(const Mesh& m, const std::vector<BoundaryType>& types, const char* label);

/// out(i, k) = kernel.flux(first + i, k) for the faces of one patch: the naive operators'
/// patch_fluxes (their kernel recomputes a face's whole flux per component, k < n).
template <class K> struct NaivePatchFluxes {
  K kernel;
  View2<real> out;
  index_t first;
  KOKKOS_FUNCTION void operator()(const index_t i, const int k) const { out(i, k) = kernel.flux(first + i, k); }
};
template <class K> void naive_patch_fluxes(const std::string& label, const Mesh& m, std::size_t patch, int n,
                                           const K& kernel, View2<real> out) {
  const index_t first = m.patches.at(patch).begin, nf = m.patches[patch].end - first;
  if (nf > 0)
    Kokkos::parallel_for(label, Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>({0, 0}, {nf, n}),
                         NaivePatchFluxes<K>{kernel, out, first});
}

/// The naive flow operators' launch over `part` (the honest first port: an MDRange of (cell or face,
/// variable) pairs): with `gather`, one thread per owned cell of the part and variable summing its
/// faces (Gather{kernel}); else one per face of the part and variable adding to both cells with
/// atomics (Scatter{kernel}). Kernels "<prefix>::naive_gather" and "<prefix>::naive_scatter".
template <class Gather, class Scatter, class K>
void naive_face_launch(const std::string& prefix, const Mesh& m, Part part, bool gather, int nv, const K& kernel) {
  using MD = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>;
  const PartRanges parts = PartRanges::of(m);
  if (gather) {
    const IndexRange cells = parts.cells(part);
    if (cells.size() > 0)
      Kokkos::parallel_for(prefix + "::naive_gather", MD({cells.begin, 0}, {cells.end, nv}), Gather{kernel});
    return;
  }
  for (const IndexRange r : parts.faces(part))
    if (r.size() > 0) Kokkos::parallel_for(prefix + "::naive_scatter", MD({r.begin, 0}, {r.end, nv}), Scatter{kernel});
}

/// The naive flow operators' interface around their kernel (Derived::kernel(a, b, c, rhs): the
/// kernel of one launch on the operator's three input arrays): apply is naive_face_launch and
/// patch_fluxes naive_patch_fluxes over `nv` variables, labelled "<prefix>::naive_...".
template <class Derived, class Interface, class Gather, class Scatter> class NaiveFaceOperator : public Interface {
public:
  NaiveFaceOperator(const Mesh& m, bool gather, std::string prefix, int nv)
      : m_(m), gather_(gather), prefix_(std::move(prefix)), nv_(nv) {}
  void apply(ConstView2<real> a, ConstView2<real> b, ConstView2<real> c, View2<real> rhs, Part part) const override {
    naive_face_launch<Gather, Scatter>(prefix_, m_, part, gather_, nv_, self().kernel(a, b, c, rhs));
  }
  void patch_fluxes(ConstView2<real> a, ConstView2<real> b, ConstView2<real> c, std::size_t patch,
                    View2<real> out) const override {
    naive_patch_fluxes(prefix_ + "::naive_patch_fluxes", m_, patch, nv_, self().kernel(a, b, c, {}), out);
  }
  std::string description() const override { return gather_ ? "naive/gather" : "naive/atomic"; }

protected:
  const Derived& self() const { return static_cast<const Derived&>(*this); }
  Mesh m_;
  bool gather_;
  std::string prefix_;
  int nv_;
};

} // namespace fvproxy
