#pragma once
// The convection operator: rhs(c, k) -= (1/V_c) sum_f s_f F_f with the upwind flux
// F_f = UpwindFlux(phi_f, u_L, u_R) of the steady face volume flux phi_f (face_flux.hpp) and
//   order 1: u_L = u_P, u_R = u_N;
//   order 2 (MUSCL): u_L = u_P + lim_P g_P . (x_f - x_P), u_R = u_N + lim_N g_N . (x_f - x_N)
//                    (g, lim: the muscl operator's gradients and limiter);
// on Dirichlet and inflow patches u_R = u_b; on outflow patches u_R = u_L (the state leaves as it is).
// The optimized variant is the shared convection kernels (convection_kernels.hpp) on the separable
// model ScalarUpwind<N>.
#include <memory>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "operators/operator_geometry.hpp"
#include "operators/operator_options.hpp"
#include "operators/part.hpp"
#include "physics/physics_options.hpp"

namespace fvproxy {

class ConvectionOperator {
public:
  virtual ~ConvectionOperator() = default;
  /// rhs -= the convective fluxes of the owned cells and faces of `part` (operators/part.hpp):
  /// inner reads no ghost row; frontier reads the ghosts' u, grad and limiter values.
  virtual void apply(ConstView2<real> u, ConstView2<real> ub, ConstView2<real> grad, ConstView2<real> limiter,
                     View2<real> rhs, Part part = Part::all) const = 0;
  virtual std::string description() const = 0;
};

std::unique_ptr<ConvectionOperator> make_convection(const Mesh& mesh, const OperatorGeometry& geom,
                                                    const ConvectionConfig& cfg, View1<real> phi, int components,
                                                    const std::vector<BoundaryType>& patch_types, bool deterministic);

} // namespace fvproxy
