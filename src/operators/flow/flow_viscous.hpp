#pragma once
// The compressible model's diffusion operator, the viscous terms (docs/operators/flow.md#the-viscous-operator):
//   rhs(c, :) += (1/V_c) sum_f s_f F_v(f) A_f,   F_v . n = (0, tau n, (tau u) . n + k grad T . n)
// (physics/viscous.hpp) from the face gradients of W = (u, v, w, T), corrected along the centroid
// line as the scalar diffusion's are:
//   G_f = (G_P + G_N) / 2 + (W_N - W_P - (G_P + G_N) / 2 . d) d / |d|^2
// (G: the cell gradients of W, which the caller computes with the gradient operator on W and its
// boundary values, flow_primitive_fields), the face values W_f = (W_P + G_P . r_P + W_N + G_N . r_N) / 2,
// mu = mu(T_f) (constant or Sutherland) and k = mu c_p / Pr. Boundary faces: a no-slip wall gives
// its viscous flux from the one-sided gradient G_P + (W_b - W_P - G_P . r) r / |r|^2 with W_b = (u_wall,
// T_wall) (T_b = T_P, no heat flux, when adiabatic); a slip wall or symmetry plane the flux of the
// face between the cell and its mirror image (flow::mirror_face_gradient: the normal stress, no
// tangential stress, no heat flux); the other boundary types carry none.
// Both variants have the same mathematics:
//   naive      MDRange over (face | cell, variable): every variable recomputes the face gradients
//              and the whole viscous flux to keep one component; the viscosity law and the boundary
//              type are run-time branches; divisions by |d|^2, the area and the volume
//   optimized  the shared diffusion kernels (operators/diffusion/diffusion_kernels.hpp) on the
//              model FlowViscous<ViscousModel<Law>>, the viscosity law at compile time; one thread
//              per face (atomics) or per cell (gather), everything in registers, 1/|d|^2, unit
//              normals, areas and 1/V precomputed
#include <memory>
#include <string>
#include <vector>

#include "mesh/mesh.hpp"
#include "operators/flow/flow_convection.hpp"
#include "operators/operator_geometry.hpp"
#include "operators/operator_options.hpp"
#include "operators/part.hpp"
#include "physics/viscous.hpp"

namespace fvproxy {

struct FlowViscosity {
  enum class Law { constant, sutherland } law = Law::constant;
  flow::ConstantViscosity constant;
  flow::Sutherland sutherland;
};

struct FlowViscousConfig : OperatorOptions {
  flow::IdealGas gas;
  FlowViscosity viscosity;
  real prandtl = real(0.72);
};

class FlowViscousOperator {
public:
  virtual ~FlowViscousOperator() = default;
  /// rhs += the viscous fluxes of the owned cells and faces of `part`. w: (cells, 4) = (u, v, w, T),
  /// gw: (cells, 12) its gradients (d W_q / d x_i at 3 q + i), wb: (boundary faces, 4) its boundary values.
  virtual void apply(ConstView2<real> w, ConstView2<real> wb, ConstView2<real> gw, View2<real> rhs,
                     Part part = Part::all) const = 0;
  /// out(i, :) = the viscous flux F_v . n A (out of the owner, as apply adds it) of face
  /// patches[patch].begin + i, for every face of that patch (0 where the patch carries none): the
  /// wall forces' viscous part, from the fluxes apply uses.
  virtual void patch_fluxes(ConstView2<real> w, ConstView2<real> wb, ConstView2<real> gw, std::size_t patch,
                            View2<real> out) const = 0;
  virtual std::string description() const = 0;
};

std::unique_ptr<FlowViscousOperator> make_flow_viscous(const Mesh& mesh, const OperatorGeometry& geom,
                                                       const FlowViscousConfig& cfg,
                                                       const std::vector<FlowPatchBC>& patches, bool deterministic);

/// W = (u, v, w, T) per cell (owned and ghost rows: the ghosts' u must be exchanged) from the
/// conserved state u, and its boundary values wb (OperatorGeometry::ghost): on no-slip walls the
/// mirror ghost (2 u_wall - u_P, 2 T_wall - T_P or T_P when adiabatic), on slip walls and symmetry
/// planes the mirror image (u_P mirrored about the face, T_P), on every other type the owner's W
/// as the face value (zero normal gradient). `rows` as flow_primitive_state's (Rows::owned_boundary:
/// the owned cells' boundary faces alone).
void flow_primitive_fields(const Mesh& mesh, const flow::IdealGas& gas, const std::vector<FlowPatchBC>& patches,
                           ConstView2<real> u, View2<real> w, View2<real> wb, Rows rows = Rows::all);

} // namespace fvproxy
