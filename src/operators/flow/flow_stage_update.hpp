#pragma once
// The flow models' stage update fused with the next stage's cell fields (issue 39: one cell pass per
// stage where the bytes allow): per owned cell
//   u = a u^n + (1 - a)(u + dt rhs)   (a = 0, the first stage: u^n = u saved first)
//   rhs = 0                           (the next stage's face fluxes accumulate into it)
//   w = (rho, u, v, w, p)(u)          (MUSCL on the primitive variables: flow_primitive_state's cells)
//   wv = (u, v, w, T)(u)              (navier-stokes: flow_primitive_fields' cells)
// in one kernel instead of the update, the zero fill and the two derived-field passes, each of which
// reads or writes the state again. The arithmetic is stage_update's (solver/time_step.hpp) and
// flow::to_primitive's, so the values are the same. The boundary rows (and a decomposed mesh's ghost
// rows, after the state's exchange) are still derived by the solver each stage.
#include "core/types.hpp"
#include "physics/flow.hpp"

namespace fvproxy {

/// The update of the owned rows [0, rows) and their fields; w, wv: empty views when not needed.
void flow_stage_update(const flow::IdealGas& gas, View2<real> un, View2<real> u, View2<real> rhs, real a, real dt,
                       View2<real> w, View2<real> wv, index_t rows);

} // namespace fvproxy
