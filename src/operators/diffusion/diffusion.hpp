#pragma once
// The diffusion operator: adds kappa_k div(grad u_k) to the rate, per cell,
//   rhs(c, k) += (1/V_c) sum_f s_f kappa_k grad_f u_k . S_f,
// with the corrected face gradient of DiffusionFlux (physics/fluxes.hpp):
//   interior faces  grad_f . S = alpha (u_N - u_P) + k . (g_P + g_N)/2   (d: owner to neighbour)
//   dirichlet and inflow patches: alpha_b (u_b - u_P) + k_b . g_P          (d: owner to face centroid)
//   outflow patches: zero normal gradient, no flux.
// g: the unlimited cell gradients of the muscl operator. Both variants add to rhs; the optimized one
// is the shared diffusion kernels (diffusion_kernels.hpp) on the separable model ScalarDiffusion<N>.
#include <memory>
#include <string>

#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "operators/operator_geometry.hpp"
#include "operators/operator_options.hpp"
#include "operators/part.hpp"
#include "physics/physics_options.hpp"

namespace fvproxy {

class DiffusionOperator {
public:
  virtual ~DiffusionOperator() = default;
  /// rhs += the diffusive fluxes of the owned cells and faces of `part` (operators/part.hpp): inner
  /// reads no ghost row; frontier reads the ghosts' u and grad.
  virtual void apply(ConstView2<real> u, ConstView2<real> ub, ConstView2<real> grad, View2<real> rhs,
                     Part part = Part::all) const = 0;
  virtual std::string description() const = 0;
};

/// `patch_types`: the boundary type of each mesh patch, in patch order. `kappa`: per component.
std::unique_ptr<DiffusionOperator> make_diffusion(const Mesh& mesh, const OperatorGeometry& geom,
                                                  const DiffusionConfig& cfg, const std::vector<double>& kappa,
                                                  const std::vector<BoundaryType>& patch_types, bool deterministic);

} // namespace fvproxy
