// The fused face pass of the scalar model: the factory and its instantiations.
#include "operators/face_pass/face_pass.hpp"

#include "core/error.hpp"
#include "operators/component_dispatch.hpp"
#include "operators/convection/scalar_convection.hpp"
#include "operators/diffusion/scalar_diffusion.hpp"
#include "operators/face_launch.hpp"
#include "operators/face_pass/face_pass_kernels.hpp"

namespace fvproxy {

namespace {

template <int N, Reconstruction R> class ScalarFacePass final : public FacePassOperator {
public:
  ScalarFacePass(const Mesh& m, const OperatorGeometry& og, const OperatorsConfig& ops, View1<real> phi,
                 const std::vector<double>& kappa, const std::vector<BoundaryType>& types, Scatter scatter)
      : conv_{phi}, g_(convection_geometry(m, og)), cells_(diffusion_cells(m, og)), alpha_(og.diff_alpha),
        k_(og.diff_k), faces_(m, {ops.convection.policy, ops.convection.team_size}, scatter, N, "fvproxy::face_pass::"),
        conv_patches_(patch_owner_runs(m, types, "fvproxy::face_pass::convection_patch_runs")),
        diff_patches_(scalar_diffusion_patch_runs(m, types)) {
    for (int q = 0; q < N; ++q) kappa_[q] = static_cast<real>(kappa[q]);
  }
  void apply(ConstView2<real> u, ConstView2<real> ub, ConstView2<real> grad, ConstView2<real> lim, View2<real> rhs,
             Part part) const override {
    using CM = ScalarUpwind<N>;
    using DM = ScalarDiffusion<N>;
    const DM dm = scalar_diffusion_model<N>(alpha_, k_, kappa_, u, grad);
    faces_.interior<N>(FacePassInteriorKernels<CM, R, DM>{conv_, dm, g_, u, grad, lim}, rhs, part);
    // the patches gather per cell unless the interior faces scatter (no atomics with stored fluxes)
    const index_t n_interior = faces_.parts.n_interior;
    const bool gather = faces_.gather_patches();
    scalar_convection_patches<N, R>(conv_, g_, conv_patches_, n_interior, faces_.launch, gather, u, ub, grad, lim, rhs,
                                    part);
    scalar_diffusion_patches<N>(dm, cells_, diff_patches_, n_interior, faces_.launch, gather, ub, rhs, part);
  }
  std::string description() const override { return faces_.description("fused"); }

private:
  ScalarUpwind<N> conv_;
  ConvectionGeometry g_;
  DiffusionCells cells_;
  ConstView1<real> alpha_;
  ConstVec3View<real> k_;
  FaceLaunch faces_; ///< the interior faces' launch and accumulation (one pass for both fluxes)
  std::vector<PatchRuns> conv_patches_, diff_patches_;
  real kappa_[N];
};

template <int N> struct MakeScalarFacePass {
  static std::unique_ptr<FacePassOperator> make(const Mesh& m, const OperatorGeometry& og, const OperatorsConfig& ops,
                                                View1<real> phi, const std::vector<double>& kappa,
                                                const std::vector<BoundaryType>& types, Scatter scatter) {
    if (ops.convection.order == 1)
      return std::make_unique<ScalarFacePass<N, Reconstruction::first_order>>(m, og, ops, phi, kappa, types, scatter);
    return std::make_unique<ScalarFacePass<N, Reconstruction::conservative>>(m, og, ops, phi, kappa, types, scatter);
  }
};

} // namespace

std::unique_ptr<FacePassOperator> make_scalar_face_pass(const Mesh& mesh, const OperatorGeometry& geom,
                                                        const OperatorsConfig& ops, View1<real> phi,
                                                        const std::vector<double>& kappa,
                                                        const std::vector<BoundaryType>& patch_types,
                                                        bool deterministic) {
  // read_operator_options refuses these in a case file; a benchmark's variants come here directly
  if (!fusable_face_operators(ops))
    throw InputError("operators.step", "step: fused needs the optimized convection and diffusion with one scatter, "
                                       "launch policy and team size");
  const Scatter scatter = resolved_scatter(ops.convection.scatter, deterministic);
  return dispatch_components<MakeScalarFacePass>(int(kappa.size()), mesh, geom, ops, phi, kappa, patch_types, scatter);
}

} // namespace fvproxy
