#pragma once
// The navier-stokes face pass (issue 39, `operators.step: fused`; docs/operators/face-pass.md): the
// convective (Riemann) and the viscous flux of each interior face in one pass,
//   rhs(c, :) += (1/V_c) sum_f s_f (-F^conv(f) + F^visc(f)),
// from one read of the face's two cells (state, MUSCL gradients and limiter, W = (u, v, w, T) and
// its gradients) and its geometry, added to the rate once; the boundary faces keep each operator's
// patch kernels (the convection's conditions, the viscous walls). The same mathematics as the
// optimized convection followed by the optimized viscous operator: the rates agree to round-off.
// Euler has one face operator, so nothing to fuse.
#include <memory>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "operators/flow/flow_convection.hpp"
#include "operators/flow/flow_viscous.hpp"
#include "operators/operator_geometry.hpp"
#include "operators/part.hpp"

namespace fvproxy {

class FlowFacePassOperator {
public:
  virtual ~FlowFacePassOperator() = default;
  /// rhs -= the convective and += the viscous fluxes of the owned cells and faces of `part`
  /// (operators/part.hpp). u, grad, lim: as FlowConvectionOperator::apply's; w, wb, gw: as
  /// FlowViscousOperator::apply's.
  virtual void apply(ConstView2<real> u, ConstView2<real> grad, ConstView2<real> lim, ConstView2<real> w,
                     ConstView2<real> wb, ConstView2<real> gw, View2<real> rhs, Part part = Part::all) const = 0;
  /// The convective and the viscous flux of each face of patch `patch` (the wall forces), as
  /// FlowConvectionOperator::patch_fluxes and FlowViscousOperator::patch_fluxes give them: with one
  /// face pass the solver holds no separate convection or viscous operator (nor their face geometry).
  virtual void convection_patch_fluxes(ConstView2<real> u, ConstView2<real> grad, ConstView2<real> lim,
                                       std::size_t patch, View2<real> out) const = 0;
  virtual void viscous_patch_fluxes(ConstView2<real> w, ConstView2<real> wb, ConstView2<real> gw, std::size_t patch,
                                    View2<real> out) const = 0;
  virtual std::string description() const = 0;
};

/// The face pass of the convection `conv` and the viscous operator `visc` configure. Both must be
/// optimized with one scatter, launch policy and team size (read_operator_options checks
/// `operators.step`; InputError here for a benchmark's variant that is not).
std::unique_ptr<FlowFacePassOperator> make_flow_face_pass(const Mesh& mesh, const OperatorGeometry& geom,
                                                          const FlowConvectionConfig& conv,
                                                          const FlowViscousConfig& visc,
                                                          const std::vector<FlowPatchBC>& patches, bool deterministic);

} // namespace fvproxy
