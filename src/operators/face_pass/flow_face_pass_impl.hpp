#pragma once
// The navier-stokes face pass's operator (flow_face_pass.hpp), one class template per (flow model,
// reconstruction, viscosity law); each numerical flux is instantiated in its own translation unit
// (flow_face_pass_<flux>.cpp), as the convection's are. Internal to the face pass.
#include <memory>
#include <string>
#include <vector>

#include "operators/face_launch.hpp"
#include "operators/face_pass/face_pass_kernels.hpp"
#include "operators/face_pass/flow_face_pass.hpp"
#include "operators/flow/flow_convection_optimized.hpp"
#include "operators/flow/flow_viscous_kernels.hpp"

namespace fvproxy::flow_detail {

template <class Model, Reconstruction R, class VM> class OptimizedFlowFacePass final : public FlowFacePassOperator {
  using Flow = FlowUpwind<Model>;
  using Visc = FlowViscous<VM>;

public:
  OptimizedFlowFacePass(const Mesh& m, const OperatorGeometry& og, const Model& model, const VM& vm,
                        const FlowConvectionConfig& cfg, const std::vector<FlowPatchBC>& patches, Scatter scatter)
      : g_(convection_geometry(m, og)), vg_(viscous_geometry(m, og)), cells_(diffusion_cells(m, og)),
        faces_(m, {cfg.policy, cfg.team_size}, scatter, kNV, "fvproxy::face_pass::flow_"), vm_(vm),
        conv_patches_(m, cfg, patches), walls_(m, patches) {
    model_ = Flow{model, vg_.normal, vg_.area}; // the viscous geometry's unit normals and areas: one copy
  }
  void apply(ConstView2<real> u, ConstView2<real> grad, ConstView2<real> lim, ConstView2<real> w, ConstView2<real> wb,
             ConstView2<real> gw, View2<real> rhs, Part part) const override {
    const Visc visc{vm_, vg_, w, gw};
    faces_.interior<kNV>(FacePassInteriorKernels<Flow, R, Visc>{model_, visc, g_, u, grad, lim}, rhs, part);
    // the patches gather per cell unless the interior faces scatter (no atomics with stored fluxes)
    conv_patches_.apply<R>(model_, g_, faces_.launch, faces_.gather_patches(), u, grad, lim, rhs, part);
    walls_.apply(visc, cells_, faces_.launch, faces_.gather_patches(), wb, rhs, part);
  }
  void convection_patch_fluxes(ConstView2<real> u, ConstView2<real> grad, ConstView2<real> lim, std::size_t patch,
                               View2<real> out) const override {
    conv_patches_.patch_fluxes<R>(model_, g_, u, grad, lim, patch, out);
  }
  void viscous_patch_fluxes(ConstView2<real> w, ConstView2<real> wb, ConstView2<real> gw, std::size_t patch,
                            View2<real> out) const override {
    if (!walls_.patch_fluxes(Visc{vm_, vg_, w, gw}, wb, patch, out))
      fill("fvproxy::face_pass::viscous_patch_fluxes_zero", out, real(0)); // no viscous flux on this patch
  }
  std::string description() const override { return faces_.description("fused"); }

private:
  Flow model_;
  ConvectionGeometry g_;
  ViscousGeometry vg_;
  DiffusionCells cells_;
  FaceLaunch faces_; ///< the interior faces' launch and accumulation (one pass for both fluxes)
  VM vm_;
  FlowConvectionPatches conv_patches_;
  ViscousWalls<VM> walls_;
};

/// The face pass for numerical flux `flux`: the reconstruction and the viscosity law as template
/// parameters.
template <class NumFlux>
std::unique_ptr<FlowFacePassOperator> make_face_pass(const Mesh& m, const OperatorGeometry& og, NumFlux flux,
                                                     const FlowConvectionConfig& cfg, const FlowViscousConfig& visc,
                                                     const std::vector<FlowPatchBC>& patches, Scatter scatter) {
  using Model = flow::EulerModel<NumFlux>;
  const Model model{cfg.gas, flux};
  const auto with_law = [&](auto vm) -> std::unique_ptr<FlowFacePassOperator> {
    using VM = decltype(vm);
    if (cfg.order == 1)
      return std::make_unique<OptimizedFlowFacePass<Model, Reconstruction::first_order, VM>>(m, og, model, vm, cfg,
                                                                                             patches, scatter);
    if (cfg.reconstruction == FlowVariables::primitive)
      return std::make_unique<OptimizedFlowFacePass<Model, Reconstruction::primitive, VM>>(m, og, model, vm, cfg,
                                                                                           patches, scatter);
    return std::make_unique<OptimizedFlowFacePass<Model, Reconstruction::conservative, VM>>(m, og, model, vm, cfg,
                                                                                            patches, scatter);
  };
  if (visc.viscosity.law == FlowViscosity::Law::sutherland)
    return with_law(ViscousModel<flow::Sutherland>{visc.viscosity.sutherland, visc.gas, visc.prandtl});
  return with_law(ViscousModel<flow::ConstantViscosity>{visc.viscosity.constant, visc.gas, visc.prandtl});
}

std::unique_ptr<FlowFacePassOperator> make_face_pass_rusanov(const Mesh& m, const OperatorGeometry& og,
                                                             const FlowConvectionConfig& cfg,
                                                             const FlowViscousConfig& visc,
                                                             const std::vector<FlowPatchBC>& patches, Scatter scatter);
std::unique_ptr<FlowFacePassOperator> make_face_pass_hllc(const Mesh& m, const OperatorGeometry& og,
                                                          const FlowConvectionConfig& cfg,
                                                          const FlowViscousConfig& visc,
                                                          const std::vector<FlowPatchBC>& patches, Scatter scatter);
std::unique_ptr<FlowFacePassOperator> make_face_pass_roe(const Mesh& m, const OperatorGeometry& og,
                                                         const FlowConvectionConfig& cfg, const FlowViscousConfig& visc,
                                                         const std::vector<FlowPatchBC>& patches, Scatter scatter);

} // namespace fvproxy::flow_detail
