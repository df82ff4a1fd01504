#pragma once
// The fused face pass (issue 39, `operators.step: fused`; docs/operators/face-pass.md): convection
// and diffusion of the same model in one pass over the interior faces,
//   rhs(c, k) += (1/V_c) sum_f s_f (-F^conv_k(f) + kappa_k F^diff_k(f)),
// each face's two fluxes evaluated from one read of its cells' state, gradients and geometry and
// added to the rate once (the separate operators each read and add). The boundary faces keep each
// operator's patch kernels. Same mathematics as convection then diffusion: the rates agree to
// round-off (bitwise, on the host, for the cells without boundary faces of a gather).
#include <memory>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "operators/operator_geometry.hpp"
#include "operators/operator_options.hpp"
#include "operators/part.hpp"

namespace fvproxy {

class FacePassOperator {
public:
  virtual ~FacePassOperator() = default;
  /// rhs -= the convective and += the diffusive fluxes of the owned cells and faces of `part`
  /// (operators/part.hpp): inner reads no ghost row; frontier reads the ghosts' u, grad and limiter.
  virtual void apply(ConstView2<real> u, ConstView2<real> ub, ConstView2<real> grad, ConstView2<real> limiter,
                     View2<real> rhs, Part part = Part::all) const = 0;
  virtual std::string description() const = 0;
};

/// The scalar model's face pass: upwind convection by the face volume flux `phi` (order and
/// options of ops.convection) and diffusion with `kappa` per component (ops.diffusion). Both
/// operators must be optimized with one scatter (read_operator_options checks `operators.step`).
std::unique_ptr<FacePassOperator> make_scalar_face_pass(const Mesh& mesh, const OperatorGeometry& geom,
                                                        const OperatorsConfig& ops, View1<real> phi,
                                                        const std::vector<double>& kappa,
                                                        const std::vector<BoundaryType>& patch_types,
                                                        bool deterministic);

} // namespace fvproxy
