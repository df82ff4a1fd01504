#include "app/cost_model.hpp"

#include "solver/time_step.hpp"

namespace fvproxy {

CostModel cost_model(const Mesh& m, const CaseConfig& cfg) {
  const double R = sizeof(real), C = m.n_cells, Fi = m.n_interior, Fb = m.n_faces - m.n_interior, F = m.n_faces;
  const double N = cfg.physics.components;
  const double E = 2 * Fi + Fb;                    // cell-face entries
  const double idx = 4 * (2 * C + E + 2 * Fi) + E; // offsets, boundary starts, faces, owner/nb, signs
  const bool second = cfg.operators.convection.order == 2;
  const bool limited = second && cfg.operators.muscl.limiter != Limiter::none;
  const bool lsq = cfg.operators.muscl.gradient == Gradient::least_squares;
  CostModel c;
  // muscl, what each gradient reads: u, u_b and the gradients written, plus
  //   least squares: d (interior faces), the ghost vectors (boundary faces), inverses (6C);
  //   Green-Gauss: area vectors (3F), interpolation weights (interior faces) and the boundary
  //   faces' ghost weights, correction inverses (9C);
  // limited: the limiter also reads d and r on every face (what the gradient did not) and writes
  // the limiter (Venkatakrishnan's eps comes from the values read: no more bytes).
  const double gradient_geometry = lsq ? 3 * Fi + 3 * Fb + 6 * C : 3 * F + Fi + Fb + 9 * C;
  const double limiter_geometry = limited ? (lsq ? 3 * Fi + 3 * Fb : 3 * Fi + 3 * F) : 0;
  c.muscl.bytes = R * (C * N + Fb * N + gradient_geometry + limiter_geometry + 3 * C * N + (limited ? C * N : 0)) + idx;
  c.muscl.flops = E * N * 8 + C * N * 15 + (limited ? E * N * 18 + C * N * 2 : 0);
  // convection: u, u_b, phi, 1/V, rate (read + write); order 2: gradients + limiter, r, d.
  c.convection.bytes = R * (C * N + Fb * N + (second ? 4 * C * N + 3 * F + 3 * Fi : 0) + F + C + 2 * C * N) + idx;
  c.convection.flops = (second ? Fi * N * 17 + Fb * N * 10 : F * N * 3) + C * N * 2;
  // diffusion: u, u_b, gradients, alpha and k (4F), 1/V, rate (read + write).
  c.diffusion.bytes = R * (C * N + Fb * N + 3 * C * N + 4 * F + C + 2 * C * N) + idx;
  c.diffusion.flops = F * N * 14 + C * N * 2;
  // One step: per stage the boundary values (owner index, u read, u_b written), the rate zeroed,
  // the three operators, and the stage update (u, rhs and u^n read or written: 4CN values).
  const double stages = static_cast<double>(shu_osher_stages(cfg.time.integrator).size());
  const double stage_bytes =
      R * (2 * Fb * N + C * N + 4 * C * N) + 4 * Fb + c.muscl.bytes + c.convection.bytes + c.diffusion.bytes;
  const double stage_flops = 3 * C * N + c.muscl.flops + c.convection.flops + c.diffusion.flops;
  c.step = {stages * stage_bytes, stages * stage_flops};
  // The same step with each stage in the fewest passes its data flow allows: the boundary values,
  // muscl in one pass (its model above), then one pass for both fluxes and the stage update, which
  // reads u, u_b, the gradients (+ limiter), the face geometry of both operators, 1/V and u^n and
  // writes the new u: no rate array, no second read of u or of the connectivity per operator.
  const double multi = stages > 1 ? 1 : 0;
  const double flux_pass = R * (C * N + Fb * N + (second ? 4 : 3) * C * N + F + (second ? 3 * F + 3 * Fi : 0) + 4 * F +
                                C + multi * C * N + C * N) +
                           idx;
  c.step_fused = {stages * (R * 2 * Fb * N + 4 * Fb + c.muscl.bytes + flux_pass), c.step.flops};
  return c;
}

} // namespace fvproxy
