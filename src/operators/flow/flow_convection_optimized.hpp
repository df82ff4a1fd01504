#pragma once
// The optimized compressible convection operator (flow_convection.hpp): the shared kernels of
// convection_kernels.hpp on the flow model, one class template per (model, reconstruction).
// Internal to the operator: each numerical flux is instantiated in its own translation unit
// (flow_convection_<flux>.cpp: 3 reconstructions x 10 boundary types x every kernel each), so that
// the CUDA build compiles them side by side rather than in one 8-minute file (docs/development.md).
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "operators/boundary_patches.hpp"
#include "operators/convection/convection_kernels.hpp"
#include "operators/face_launch.hpp"
#include "operators/flow/flow_convection.hpp"
#include "operators/launch.hpp"
#include "physics/flow_boundary.hpp"

namespace fvproxy::flow_detail {

using flow::Primitive;
constexpr int NV = flow::kVariables;

// --- optimized: the shared kernels of convection_kernels.hpp on the flow model. ----------------

/// Whether a face state is physical: positive density and pressure (false for NaN).
KOKKOS_INLINE_FUNCTION bool physical(const Primitive& w) {
  return w.rho > 0 && w.p > 0;
}

/// The first-order face state of cell c: its own state (positivity's fallback).
template <class Model>
KOKKOS_INLINE_FUNCTION Primitive cell_state(const Model& m, const ConstView2<real>& u, index_t c) {
  real U[NV];
  for (int k = 0; k < NV; ++k) U[k] = u(c, k);
  return m.primitive(U);
}

/// The face state of cell c at offset rc = x_f - x_c: first order (the cell's state), MUSCL on
/// the conserved variables (grad, lim: theirs), or MUSCL on the primitive ones (rho, u, v, w, p;
/// grad, lim: theirs, the caller's gradient operator having run on them). Positivity
/// (docs/physics.md#positivity): a reconstructed state with a non-positive density or pressure is
/// replaced by the cell's own (that side of the face falls back to first order).
template <Reconstruction R, class Model>
KOKKOS_INLINE_FUNCTION Primitive face_state(const Model& m, const ConstView2<real>& u, const ConstView2<real>& grad,
                                            const ConstView2<real>& lim, index_t c, const real (&rc)[3]) {
  real U[NV];
  for (int k = 0; k < NV; ++k) U[k] = u(c, k);
  if constexpr (R == Reconstruction::conservative)
    for (int k = 0; k < NV; ++k)
      U[k] += lim(c, k) * (grad(c, 3 * k) * rc[0] + grad(c, 3 * k + 1) * rc[1] + grad(c, 3 * k + 2) * rc[2]);
  const Primitive w = m.primitive(U);
  if constexpr (R == Reconstruction::first_order) {
    return w;
  } else if constexpr (R == Reconstruction::conservative) {
    return physical(w) ? w : cell_state(m, u, c); // the cell's state read again: no registers held for it
  } else {
    real W[NV] = {w.rho, w.u[0], w.u[1], w.u[2], w.p};
    for (int k = 0; k < NV; ++k)
      W[k] += lim(c, k) * (grad(c, 3 * k) * rc[0] + grad(c, 3 * k + 1) * rc[1] + grad(c, 3 * k + 2) * rc[2]);
    const Primitive r{W[0], {W[1], W[2], W[3]}, W[4]};
    return physical(r) ? r : w;
  }
}

/// The compressible flow as a convection model: EulerModel<Flux> (the numerical flux and the
/// equation of state) with the faces' precomputed unit normals and areas; face states are
/// primitive, from the conserved or the primitive MUSCL.
template <class Model> struct FlowUpwind {
  static constexpr int n_vars = Model::N;
  using State = Primitive;
  /// The unit normal, loaded with the face; the area is read when the flux is formed (the order
  /// of loads of the flow's own kernels, which ptxas allocates best: docs/operators/flow.md#the-model-contract).
  struct Face {
    real n[3];
    index_t f;
  };
  Model m;
  ConstVec3View<real> normal;
  ConstView1<real> area;
  KOKKOS_INLINE_FUNCTION Face face(index_t f) const { return Face{{normal(f, 0), normal(f, 1), normal(f, 2)}, f}; }
  template <Reconstruction R>
  KOKKOS_INLINE_FUNCTION State state(const ConstView2<real>& u, const ConstView2<real>& grad,
                                     const ConstView2<real>& lim, index_t c, const real (&rc)[3]) const {
    return face_state<R>(m, u, grad, lim, c, rc);
  }
  KOKKOS_INLINE_FUNCTION void flux(const Face& f, const State& L, const State& R, real (&F)[n_vars]) const {
    m.face_flux(L, R, f.n, area(f.f), F);
  }
};

/// A condition that varies along its patch (flow::varies_along_patch_v: a profiled velocity inlet)
/// as the kernels call it: with the face's centroid (xf: the mesh's face centroids).
template <class B> struct AtFaceCentroids {
  B b;
  ConstVec3View<real> xf;
  KOKKOS_INLINE_FUNCTION Primitive operator()(const Primitive& in, const real (&n)[3], index_t f) const {
    const real x[3] = {xf(f, 0), xf(f, 1), xf(f, 2)};
    return b(in, n, x);
  }
};

/// A subsonic inflow or outflow as the kernels call it: the fixed condition, or, on a
/// non-reflecting patch, its state with the face's own incoming characteristic (flow::with_incoming). One
/// type for both (the branch is the same for every face of a launch), so the option adds no kernel.
template <class Fixed> struct SubsonicFaces {
  Fixed fixed;
  ConstView1<real> incoming, impedance;
  index_t first = 0;
  bool non_reflecting = false;
  KOKKOS_INLINE_FUNCTION Primitive operator()(const Primitive& in, const real (&n)[3], index_t f) const {
    const Primitive b = fixed(in, n);
    return non_reflecting ? flow::with_incoming(b, in, n, fixed.gamma, incoming(f - first), impedance(f - first)) : b;
  }
};

/// The outside state of boundary condition b at face f: b(in, n), or b(in, n, f) for a condition
/// that varies along its patch or face by face (AtFaceCentroids, SubsonicFaces).
template <class B>
KOKKOS_INLINE_FUNCTION Primitive outside_state(const B& b, const Primitive& in, const real (&n)[3], index_t f) {
  if constexpr (std::is_invocable_v<const B&, const Primitive&, const real(&)[3], index_t>)
    return b(in, n, f);
  else
    return b(in, n);
}

/// A flow boundary condition of physics/flow_boundary.hpp (a function of the inside state and the
/// unit normal, and of the face for a profiled inlet) as the shared kernels call it; one with a flux
/// of its own (NoSlipWall::flux) gives the face's flux itself (convection_kernels.hpp: boundary_flux).
template <class Face, class B> struct FlowBoundary {
  B b;
  KOKKOS_INLINE_FUNCTION Primitive operator()(index_t, const Face& f, const Primitive& L) const {
    return outside_state(b, L, f.n, f.f);
  }
  template <class M, class BB = B> // BB: a dependent type, so that B without a flux drops this overload
  KOKKOS_INLINE_FUNCTION auto flux(const M& m, const Face& f, const Primitive& L, real (&F)[flow::kVariables]) const
      -> decltype(std::declval<const BB&>().flux(L, f.n, m.m.eos), void()) {
    const flow::Flux w = b.flux(L, f.n, m.m.eos);
    const real a = m.area(f.f);
    F[0] = w.rho * a, F[1] = w.m[0] * a, F[2] = w.m[1] * a, F[3] = w.m[2] * a, F[4] = w.E * a;
  }
};

/// Calls f(bc) with the boundary-condition functor of a patch (flow::with_condition), as the
/// kernels call it: a subsonic inflow or outflow through SubsonicFaces (its non-reflecting faces), a
/// condition that varies along its patch through AtFaceCentroids (xf: the mesh's face centroids).
template <class F> void with_bc(const FlowPatchBC& p, const flow::IdealGas& gas, const ConstVec3View<real>& xf, F&& f) {
  flow::with_condition(p, gas, [&](auto b) {
    using B = decltype(b);
    if constexpr (flow::can_be_non_reflecting_v<B>)
      f(SubsonicFaces<B>{b, p.incoming, p.impedance, p.incoming_first, p.non_reflecting});
    else if constexpr (flow::varies_along_patch_v<B>)
      f(AtFaceCentroids<B>{b, xf});
    else
      f(b);
  });
}

/// Unit normals and areas of the faces (the optimized kernels' precomputed geometry).
struct NormalsAndAreas {
  ConstVec3View<real> S;
  Vec3View<real> n;
  View1<real> a;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const real area = kc::sqrt(S(f, 0) * S(f, 0) + S(f, 1) * S(f, 1) + S(f, 2) * S(f, 2));
    const real inv = 1 / area;
    for (int i = 0; i < 3; ++i) n(f, i) = S(f, i) * inv;
    a(f) = area;
  }
};

/// The optimized flow convection's boundary patches, after the interior faces: per patch one gather
/// or scatter kernel with its condition (the operator's and the navier-stokes face pass's).
struct FlowConvectionPatches {
  std::vector<std::pair<PatchRuns, FlowPatchBC>> patches;
  flow::IdealGas gas;
  ConstVec3View<real> xf; ///< the face centroids (a profiled velocity inlet's)

  FlowConvectionPatches() = default;
  FlowConvectionPatches(const Mesh& m, const FlowConvectionConfig& cfg, const std::vector<FlowPatchBC>& bcs)
      : gas(cfg.gas), xf(m.face_centroid) {
    // patch_owner_runs needs a scalar type per patch: any value (only the runs are used here).
    const std::vector<BoundaryType> any(m.patches.size(), BoundaryType::outflow);
    for (const PatchRuns& r : patch_owner_runs(m, any, "fvproxy::flow_convection::patch_runs"))
      patches.push_back({r, bcs.at(r.patch)});
  }
  /// rhs -= the patches' fluxes of the owned cells of `part`.
  template <Reconstruction R, class Flow>
  void apply(const Flow& model, const ConvectionGeometry& g, const LaunchOptions& lo, bool gather, ConstView2<real> u,
             ConstView2<real> grad, ConstView2<real> lim, View2<real> rhs, Part part) const {
    using Face = typename Flow::Face;
    if (!gather && !PartRanges::has_boundary(part)) return;
    for (const auto& patch : patches) {    // the runs of the part's own cells, after their interior faces
      const PatchRuns& runs = patch.first; // (named: a structured binding cannot be captured in C++17)
      with_bc(patch.second, gas, xf, [&](auto b) {
        using BC = FlowBoundary<Face, decltype(b)>;
        if (gather)
          launch("fvproxy::flow_convection::gather_patch", runs.runs_of(part), lo,
                 ConvectionGatherPatch<Flow, R, BC>{model, BC{b}, g, u, grad, lim, rhs, runs.runs});
        else
          launch("fvproxy::flow_convection::scatter_patch", IndexRange{runs.begin, runs.end}, lo,
                 ConvectionScatterPatch<Flow, R, BC>{model, BC{b}, g, u, grad, lim, rhs});
      });
    }
  }
  /// out(i, :) = the flux of face patches[patch].begin + i (FlowConvectionOperator::patch_fluxes).
  template <Reconstruction R, class Flow>
  void patch_fluxes(const Flow& model, const ConvectionGeometry& g, ConstView2<real> u, ConstView2<real> grad,
                    ConstView2<real> lim, std::size_t patch, View2<real> out) const {
    using Face = typename Flow::Face;
    for (const auto& p : patches) {
      if (p.first.patch != patch) continue;
      const index_t first = p.first.begin;
      with_bc(p.second, gas, xf, [&](auto b) {
        using BC = FlowBoundary<Face, decltype(b)>;
        Kokkos::parallel_for("fvproxy::flow_convection::patch_fluxes",
                             Kokkos::RangePolicy<ExecSpace>(0, p.first.end - first),
                             ConvectionPatchFlux<Flow, R, BC>{model, BC{b}, g, u, grad, lim, out, first});
      });
      return;
    }
  }
};

template <class Model, Reconstruction R> class OptimizedFlowConvection final : public FlowConvectionOperator {
  using Flow = FlowUpwind<Model>;

public:
  OptimizedFlowConvection(const Mesh& m, const OperatorGeometry& og, const Model& model,
                          const FlowConvectionConfig& cfg, const std::vector<FlowPatchBC>& patches, Scatter scatter)
      : g_(convection_geometry(m, og)),
        faces_(m, {cfg.policy, cfg.team_size}, scatter, flow::kVariables, "fvproxy::flow_convection::"),
        patches_(m, cfg, patches) {
    Vec3View<real> normal("fvproxy::flow_convection::unit_normal", m.n_faces);
    View1<real> area("fvproxy::flow_convection::area", m.n_faces);
    Kokkos::parallel_for("fvproxy::flow_convection::normals", Kokkos::RangePolicy<ExecSpace>(0, m.n_faces),
                         NormalsAndAreas{m.face_area, normal, area});
    model_ = Flow{model, normal, area};
  }
  void apply(ConstView2<real> u, ConstView2<real> grad, ConstView2<real> lim, View2<real> rhs,
             Part part) const override {
    faces_.interior<Flow::n_vars>(ConvectionInteriorKernels<Flow, R>{model_, g_, u, grad, lim}, rhs, part);
    // the patches gather per cell unless the interior faces scatter (no atomics with stored fluxes)
    patches_.apply<R>(model_, g_, faces_.launch, faces_.gather_patches(), u, grad, lim, rhs, part);
  }
  void patch_fluxes(ConstView2<real> u, ConstView2<real> grad, ConstView2<real> lim, std::size_t patch,
                    View2<real> out) const override {
    patches_.patch_fluxes<R>(model_, g_, u, grad, lim, patch, out);
  }
  std::string description() const override { return faces_.description("optimized"); }

private:
  Flow model_;
  ConvectionGeometry g_;
  FaceLaunch faces_; ///< the interior faces' launch and accumulation
  FlowConvectionPatches patches_;
};

template <class NumFlux>
std::unique_ptr<FlowConvectionOperator> make_optimized(const Mesh& m, const OperatorGeometry& og, NumFlux flux,
                                                       const FlowConvectionConfig& cfg,
                                                       const std::vector<FlowPatchBC>& patches, Scatter scatter) {
  using Model = flow::EulerModel<NumFlux>;
  const Model model{cfg.gas, flux};
  if (cfg.order == 1)
    return std::make_unique<OptimizedFlowConvection<Model, Reconstruction::first_order>>(m, og, model, cfg, patches,
                                                                                         scatter);
  if (cfg.reconstruction == FlowVariables::primitive)
    return std::make_unique<OptimizedFlowConvection<Model, Reconstruction::primitive>>(m, og, model, cfg, patches,
                                                                                       scatter);
  return std::make_unique<OptimizedFlowConvection<Model, Reconstruction::conservative>>(m, og, model, cfg, patches,
                                                                                        scatter);
}

/// The optimized operator with each numerical flux (flow_convection_<flux>.cpp).
std::unique_ptr<FlowConvectionOperator> make_optimized_rusanov(const Mesh& m, const OperatorGeometry& og,
                                                               const FlowConvectionConfig& cfg,
                                                               const std::vector<FlowPatchBC>& patches,
                                                               Scatter scatter);
std::unique_ptr<FlowConvectionOperator> make_optimized_hllc(const Mesh& m, const OperatorGeometry& og,
                                                            const FlowConvectionConfig& cfg,
                                                            const std::vector<FlowPatchBC>& patches, Scatter scatter);
std::unique_ptr<FlowConvectionOperator> make_optimized_roe(const Mesh& m, const OperatorGeometry& og,
                                                           const FlowConvectionConfig& cfg,
                                                           const std::vector<FlowPatchBC>& patches, Scatter scatter);

} // namespace fvproxy::flow_detail
