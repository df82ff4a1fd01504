#pragma once
// The compressible model's convection operator (docs/operators/flow.md#the-convection-operator):
//   rhs(c, :) -= (1/V_c) sum_f s_f F(U_L, U_R, n_f) A_f
// with a numerical flux F of riemann_fluxes.hpp (operators.convection.flux), the face states
//   order 1: U_L = U_P, U_R = U_N;
//   order 2 (MUSCL on the conserved variables): U_L = U_P + lim_P g_P . (x_f - x_P), likewise U_R
//           (g, lim: the muscl operator's gradients and limiter values of the 5 conserved variables),
//           or, with FlowVariables::primitive, the same on W = (rho, u, v, w, p) (g, lim: those of
//           W, flow_primitive_state);
// and on a boundary face U_R = the patch's boundary state of U_L (physics/flow_boundary.hpp).
// Like the scalar convection it comes in two variants with the same mathematics:
//   naive      MDRange over (face | cell, variable): every variable recomputes both face states and
//              the whole flux to keep one component of it; the variable count, the flux type and
//              the boundary type are run-time values branched on in the kernel; states in
//              run-time-indexed local arrays; the unit normal and area recomputed from the area
//              vector, divisions by the volume, one atomic per (face side, variable)
//   optimized  the shared convection kernels (operators/convection/convection_kernels.hpp) on the
//              model FlowUpwind<EulerModel<Flux>> (5 variables, the flux at compile time),
//              one thread per face (atomic scatter) or per cell (gather), states in registers,
//              precomputed unit normals, areas, r, d and 1/V, one kernel per boundary patch
//              templated on its boundary condition
#include <memory>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "operators/muscl/limiter.hpp"
#include "operators/operator_geometry.hpp"
#include "operators/operator_options.hpp"
#include "operators/part.hpp"
#include "physics/euler_model.hpp"
#include "physics/flow_boundary.hpp"
#include "physics/physics_options.hpp" // FlowBoundaryKind: boundary.PATCH.type, also per face in the kernels

namespace fvproxy {

/// One mesh patch's condition (flow::FlowCondition, resolved from the case by flow::flow_condition)
/// and, on a non-reflecting subsonic inflow or outflow, where its faces' incoming characteristics
/// are: row f - incoming_first of boundary face f (the solver owns and relaxes them:
/// flow_relax_incoming).
struct FlowPatchBC : flow::FlowCondition {
  ConstView1<real> incoming, impedance; ///< per face: its incoming characteristic, its reference rho c
  index_t incoming_first = 0;
};

/// The patches whose boundary values are mirror ghosts (make_operator_geometry's mirror_patches).
std::vector<bool> mirror_patches(const std::vector<FlowPatchBC>& patches);

/// The case's convection options (flux, variables, entropy_fix, ...) resolved for the kernels:
/// `reconstruction` what MUSCL extrapolates (conservative at first order, whatever `variables`
/// says), `gas` the equation of state.
struct FlowConvectionConfig : ConvectionConfig {
  FlowVariables reconstruction = FlowVariables::conservative;
  flow::IdealGas gas;
};

class FlowConvectionOperator {
public:
  virtual ~FlowConvectionOperator() = default;
  /// rhs -= the convective fluxes of the owned cells and faces of `part` (operators/part.hpp).
  /// u, grad, lim: (cells, 5), (cells, 15), (cells, 5); grad and lim are read at order 2 only.
  virtual void apply(ConstView2<real> u, ConstView2<real> grad, ConstView2<real> lim, View2<real> rhs,
                     Part part = Part::all) const = 0;
  /// out(i, :) = the flux F A (out of the owner, as apply subtracts it) of face
  /// mesh.patches[patch].begin + i, for every face of that patch: the wall forces, from the fluxes
  /// apply uses (the same face states, boundary state or wall flux).
  virtual void patch_fluxes(ConstView2<real> u, ConstView2<real> grad, ConstView2<real> lim, std::size_t patch,
                            View2<real> out) const = 0;
  virtual std::string description() const = 0;
};

std::unique_ptr<FlowConvectionOperator> make_flow_convection(const Mesh& mesh, const OperatorGeometry& geom,
                                                             const FlowConvectionConfig& cfg,
                                                             const std::vector<FlowPatchBC>& patches,
                                                             bool deterministic);

/// ub(f - n_interior, :) = the conserved boundary state of each boundary face from its owner's
/// state (the values the gradients take on boundary faces); one kernel per patch: the owned cells'
/// faces (all, owned, owned_boundary) and the first ghost layer's (all, ghosts; two ghost layers).
void flow_boundary_values(const Mesh& mesh, const flow::IdealGas& gas, const std::vector<FlowPatchBC>& patches,
                          ConstView2<real> u, View2<real> ub, Rows rows = Rows::all);

/// What flow_relax_incoming does to the non-reflecting faces' incoming characteristics w: set them
/// (and their reference impedances z, the owner cell's rho c) to the fixed condition's (start: a
/// fresh run) or to the owner cell's own (from_cells: a restart, so that the boundary continues from
/// the state), or advance them by one Shu-Osher stage of
/// d w / dt = flow::incoming_rate, w = a w_n + (1 - a) (w + dt dw/dt), w_n = w first when a = 0.
enum class IncomingStep { start, from_cells, stage };

/// The incoming characteristics (FlowPatchBC::incoming, row f - incoming_first) of every non-reflecting
/// patch's faces, the owned cells' and the first ghost layer's, from the cells' conserved state u
/// (its ghost rows exchanged: each rank computes a face it shares from the same values);
/// docs/physics.md#non-reflecting-subsonic-boundaries.
void flow_relax_incoming(const Mesh& mesh, const flow::IdealGas& gas, const std::vector<FlowPatchBC>& patches,
                         ConstView2<real> u, View1<real> w, View1<real> w_n, View1<real> z, IncomingStep what,
                         real a = 0, real dt = 0);

/// Each non-reflecting face's slot among its owner cell's faces on non-reflecting patches (row
/// f - incoming_first; -1 for the other boundary faces), the owned cells' faces and the first ghost
/// layer's: by patch, then by centroid, so that every rank holding a cell numbers its faces alike.
/// `most`: the largest number of such faces of one cell on this rank.
View1<int> boundary_slots(const Mesh& mesh, const std::vector<FlowPatchBC>& patches, int& most);

/// A checkpoint's columns of the non-reflecting faces (checkpoint_field_layout): ck(c, first + s)
/// and ck(c, first + kBoundarySlots + s) = the characteristic w and impedance z of the owned cell c's
/// face in slot s (0 where it has none).
void pack_boundary_slots(const Mesh& mesh, const std::vector<FlowPatchBC>& patches, ConstView1<int> slot,
                         ConstView1<real> w, ConstView1<real> z, View2<real> ck, int first);
/// The reverse, for every non-reflecting face (the first ghost layer's too: `slots` has its ghost
/// rows), from slots(c, s) and slots(c, kBoundarySlots + s).
void unpack_boundary_slots(const Mesh& mesh, const std::vector<FlowPatchBC>& patches, ConstView1<int> slot,
                           ConstView2<real> slots, View1<real> w, View1<real> z);

/// What a field of the flow models' gradients holds, for its mirror images.
enum class ImageVariables {
  conserved,           ///< (rho, rho u, rho v, rho w, E): ub of flow_boundary_values
  primitive,           ///< (rho, u, v, w, p): wb of flow_primitive_state
  velocity_temperature ///< (u, v, w, T): the viscous gradients' (flow_viscous.hpp's flow_primitive_fields)
};

/// The vertex stencil's mirror images (OperatorGeometry::stencil; none with the face stencil): rows
/// first_row + e of vb, cell image_cell(e)'s values v mirrored about each of its planes by the
/// patch's ghost rule (a slip wall or symmetry plane reverses the normal velocity; a no-slip wall
/// gives 2 u_wall - u and, isothermal, 2 T_wall - T; density and pressure kept), the same rule as
/// the boundary values of the patch's faces. `rows`: the images of owned cells (owned,
/// owned_boundary), of ghosts (ghosts: after the state's exchange) or all.
void flow_image_values(const OperatorGeometry& og, const flow::IdealGas& gas, ConstView2<real> rules,
                       ImageVariables what, ConstView2<real> v, View2<real> vb, Rows rows = Rows::all);

/// The patches' ghost rules as flow_image_values reads them, one row per patch (made once, before
/// the time loop): no-slip (1) or slip (0), the wall's velocity, its temperature (<= 0: adiabatic).
View2<real> flow_mirror_rules(const std::vector<FlowPatchBC>& patches);

/// W = (rho, u, v, w, p) per cell (the `rows`: owned and ghost rows, or either; none for
/// Rows::owned_boundary, whose cell rows the fused stage update wrote) and wb its primitive boundary
/// states (patch_faces' faces of the rows): the field whose gradients and limiter values the
/// primitive MUSCL (FlowVariables::primitive) takes.
void flow_primitive_state(const Mesh& mesh, const flow::IdealGas& gas, const std::vector<FlowPatchBC>& patches,
                          ConstView2<real> u, View2<real> w, View2<real> wb, Rows rows = Rows::all);

/// Venkatakrishnan's scale of the five reconstructed variables, conservative (rho, rho u, rho v,
/// rho w, E) or primitive (rho, u, v, w, p) alike: each measured from 0, the three of the velocity
/// (or momentum) as one vector (one scale, invariant to the frame's rotation); docs/physics.md.
LimiterScale flow_limiter_scale();

/// Positivity of the MUSCL reconstruction (docs/physics.md#positivity), after the limiter: each cell
/// of `part` one of whose reconstructed face states (U_c + lim g . (x_f - x_c), or the same on W)
/// has a non-positive density or pressure gets lim(c, :) = 0, first order on every face, so that
/// its mean stays the mean of its face states (a fallback per face breaks that, and with it the
/// positivity of the update). Run after a limiter (with `limiter: none`, meant for smooth flows, the
/// face states' own fallback is the only guard: no extra kernel, no limiter exchange). u: the
/// conserved state; grad, lim: of U, or of W with FlowVariables::primitive. Reads the cell's
/// own values only (no neighbour): any part, the first ghost layer's included.
void flow_positivity_limit(const Mesh& mesh, const OperatorGeometry& og, FlowVariables rec, const flow::IdealGas& gas,
                           ConstView2<real> u, ConstView2<real> grad, View2<real> lim, Part part);

/// Where the flow enters through a face of an extrapolating patch (supersonic-outflow used as a
/// transmissive end: m_c . S_f < 0 with the owner's momentum), the owner's gradient row is set to
/// zero, for the cells of `part` (owned, or the first ghost layer's with Part::layer1): its face
/// states are its own state, first order (docs/physics.md#boundary-conditions). Nothing upstream
/// holds such a cell; a gradient from its downstream neighbours, reconstructed onto its faces, fed
/// back into it, and second-order MUSCL on tets grew from round-off to O(1) there. Run after the
/// gradients (and the limiter) of `part`; u: the conserved state.
void flow_entering_first_order(const Mesh& mesh, const std::vector<FlowPatchBC>& patches, ConstView2<real> u,
                               View2<real> grad, Part part);

/// The cells a step taken again (time.retries) computes at first order, docs/physics.md#positivity:
/// every cell with marked(c) != 0 (one value per local row: the owned rows' from the failed step's
/// state, the ghost rows' exchanged from their owners) and every face neighbour of one, among the
/// cells whose gradients this rank computes (the owned ones and the first ghost layer's). Their
/// rows, ascending. A first-order cell's update is a convex combination of first-order updates
/// against its neighbours' face states, which the face fallback keeps positive: under the CFL
/// step it stays positive whatever its neighbours reconstruct.
View1<index_t> flow_first_order_neighbourhood(const Mesh& mesh, ConstView1<real> marked);

/// The gradient rows of `cells` (flow_first_order_neighbourhood's) that lie in `part` set to zero:
/// their face states are their own state. Run after the gradients and the limiter of `part`.
void flow_first_order_cells(const Mesh& mesh, ConstView1<index_t> cells, View2<real> grad, Part part);

/// max over the owned cells of lambda_c = 1/2 sum over the cell's faces of (|u_c . n_f| + c_c) A_f / V_c
/// (the flow solver's convective rate, solver/flow_solver.hpp): the CFL step is cfl / it.
double flow_max_rate(const Mesh& mesh, const flow::IdealGas& gas, ConstView2<real> u);

} // namespace fvproxy
