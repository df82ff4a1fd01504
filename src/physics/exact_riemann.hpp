#pragma once
// The exact solution of the Riemann problem of the Euler equations for an ideal gas (Toro, Riemann
// Solvers and Numerical Methods for Fluid Dynamics, 3rd ed., ch. 4): a plane discontinuity at
// n . x = x0 between a left state (n . x < x0) and a right state. The star-region pressure and
// normal velocity are found once on the host (solve: Newton iteration on Toro's pressure function);
// sample() is the self-similar solution at xi = (n . x - x0) / t, cheap enough for every cell on the
// device (initial conditions, error norms). Velocities tangential to n are carried by the contact.
#include "physics/flow.hpp"

namespace fvproxy::flow {

struct ExactRiemann {
  Primitive left, right;
  real n[3];           ///< unit normal of the discontinuity's plane
  real gamma;          ///< ratio of specific heats
  real p_star, u_star; ///< star-region pressure and normal velocity

  /// p_star and u_star for the two states; InputError (naming `where`) when they would create a
  /// vacuum or are not physical (a density or pressure <= 0).
  static ExactRiemann solve(const Primitive& left, const Primitive& right, const real (&n)[3], double gamma,
                            const char* where = "initial.riemann");

  /// The state at xi = (n . x - x0) / t (xi -> -inf: left, +inf: right).
  KOKKOS_INLINE_FUNCTION Primitive sample(real xi) const {
    const real g = gamma;
    const real g1 = (g - 1) / (2 * g), g3 = 2 * g / (g - 1), g4 = 2 / (g - 1), g5 = 2 / (g + 1), g6 = (g - 1) / (g + 1),
               g7 = (g - 1) / 2;
    const bool on_left = xi <= u_star;
    const Primitive& w = on_left ? left : right;
    const real un = dot(w.u, n);
    const real c = kc::sqrt(g * w.p / w.rho);
    // side = -1 on the left, +1 on the right: the right's formulas are the left's mirrored.
    const real side = on_left ? real(-1) : real(1);
    real rho = w.rho, u = un, p = w.p;
    if (p_star > w.p) { // a shock
      const real ratio = p_star / w.p;
      const real s = un + side * c * kc::sqrt((g + 1) / (2 * g) * ratio + g1);
      if (side * (xi - s) < 0) { // behind it: the star state
        rho = w.rho * (ratio + g6) / (g6 * ratio + 1);
        u = u_star, p = p_star;
      }
    } else { // a rarefaction
      const real head = un + side * c;
      const real c_star = c * kc::pow(p_star / w.p, g1);
      const real tail = u_star + side * c_star;
      if (side * (xi - tail) < 0) { // between the tail and the contact: the star state
        rho = w.rho * kc::pow(p_star / w.p, 1 / g);
        u = u_star, p = p_star;
      } else if (side * (xi - head) < 0) { // inside the fan
        const real cf = g5 * (c - side * g7 * (un - xi));
        u = g5 * (-side * c + g7 * un + xi);
        rho = w.rho * kc::pow(cf / c, g4);
        p = w.p * kc::pow(cf / c, g3);
      }
    }
    Primitive out;
    out.rho = rho, out.p = p;
    for (int i = 0; i < 3; ++i) out.u[i] = w.u[i] + (u - un) * n[i]; // the side's tangential velocity kept
    return out;
  }
};

} // namespace fvproxy::flow
