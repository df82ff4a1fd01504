#pragma once
// Explicit time integration: the strong-stability-preserving Runge-Kutta schemes in Shu-Osher
// form, and the CFL time step.
//
// Shu-Osher stages, u^(0) = u^n, L the rate (operators' sum), stage i evaluated at t + c_i dt:
//   u^(i) = a_i u^n + (1 - a_i) (u^(i-1) + dt L(u^(i-1), t + c_i dt)),  u^{n+1} = u^(s)
//   euler   (a; c) = (0; 0)
//   ssprk2  (a; c) = (0, 1/2; 0, 1)
//   ssprk3  (a; c) = (0, 3/4, 1/3; 0, 1, 1/2)
// Each stage is one pass over the state (StageUpdate) after the rate.
//
// CFL time step (one device reduction over cells; the velocity and diffusivities are steady, so it
// is computed once per run):
//   lambda_c = (1/V_c) [ sum_f max(s_f phi_f, 0) + kappa_max sum_f alpha_f ]
//   dt = CFL / max_c lambda_c
// with phi_f the face volume flux out of the owner (s_f = +1 for the owner, -1 for the neighbour),
// so the first sum is the volume leaving the cell per unit time, and alpha_f = S.d / |d|^2 the
// two-point diffusion coefficient of every face of the cell (boundary faces included, which bounds
// the rate from above on outflow patches). For first-order upwind convection with forward Euler,
// lambda_c dt <= 1 is exactly the condition for the update to be a convex combination (no new
// extrema); the diffusive term is the same bound for the two-point flux (on a cube of side h:
// dt <= h^2 / (6 kappa)). The SSP schemes keep that bound per stage (SSP coefficient 1), and the
// MUSCL reconstruction halves it in theory, hence the default CFL 0.5.
#include <vector>

#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "operators/operator_geometry.hpp"
#include "solver/run_options.hpp"

namespace fvproxy {

struct ShuOsherStage {
  double a; ///< weight of u^n (double: exact in every build; the kernels round it to real)
  double c; ///< stage time fraction: the rate is evaluated at t + c dt
};

/// The stages of an integrator (see above).
std::vector<ShuOsherStage> shu_osher_stages(Integrator i);

struct StableStep {
  double dt = 0;            ///< CFL / max lambda (0 when nothing limits it)
  double max_rate = 0;      ///< max_c lambda_c
  gid_t limiting_cell = -1; ///< global id of the cell where lambda is largest
};

/// The CFL time step (labelled reduction "fvproxy::solver::cfl_rate").
StableStep cfl_time_step(const Mesh& m, const OperatorGeometry& g, ConstView1<real> phi, double kappa_max, double cfl);

inline constexpr unsigned long long kNoBadValue = ~0ULL;

/// What a checked stage update looks for, and where it records it: keys
/// (step << 35 | cell << 3 | component), the smallest over the run = the earliest step, then the
/// lowest cell and component (deterministic), with no extra pass over the state.
///   keys(0): the first non-finite value;
///   keys(1): the first finite value outside [lo(k), hi(k)] (the max-principle monitor; -inf and
///            +inf when it is off).
struct StateCheck {
  Kokkos::View<unsigned long long[2], MemSpace> keys;
  View1<real> lo, hi;
  /// Keys cleared, bounds from `lo`/`hi` (one per component).
  StateCheck(const std::vector<real>& lo, const std::vector<real>& hi);
  StateCheck() = default;
};

/// One Shu-Osher stage on every value (the state as one contiguous array, LayoutLeft):
///   u = a un + (1 - a) (u + dt rhs)
/// The first stage (a = 0) also saves u^n into `un` when `un` is allocated (multi-stage schemes).
/// With `check`, the first non-finite or out-of-bounds result is recorded in `sc` (StateCheck).
/// `rows` (< 0: all) updates only the first rows of each column (a rank's owned cells; the ghost
/// rows after them are the halo exchange's). `zero_rate` (the rate itself, or none) is set to zero
/// as it is read, in the same pass: the next stage's operators add to it without a zero fill.
void stage_update(View2<real> un, View2<real> u, ConstView2<real> rhs, real a, real dt, bool check, long long step,
                  const StateCheck& sc, index_t rows = -1, View2<real> zero_rate = {});

} // namespace fvproxy
