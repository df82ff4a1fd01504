#include "physics/exact_riemann.hpp"

#include <cmath>
#include <string>

#include "core/error.hpp"

namespace fvproxy::flow {

namespace {

/// Toro's f_K(p) and its derivative for one side (shock above p_K, rarefaction below).
struct PressureFunction {
  double rho, p, c, gamma;
  void operator()(double ps, double& f, double& df) const {
    if (ps > p) {
      const double A = 2 / ((gamma + 1) * rho), B = (gamma - 1) / (gamma + 1) * p;
      const double q = std::sqrt(A / (ps + B));
      f = (ps - p) * q;
      df = q * (1 - (ps - p) / (2 * (B + ps)));
    } else {
      const double r = ps / p;
      f = 2 * c / (gamma - 1) * (std::pow(r, (gamma - 1) / (2 * gamma)) - 1);
      df = 1 / (rho * c) * std::pow(r, -(gamma + 1) / (2 * gamma));
    }
  }
};

} // namespace

ExactRiemann ExactRiemann::solve(const Primitive& left, const Primitive& right, const real (&n)[3], double gamma,
                                 const char* where) {
  for (const auto& [w, side] : {std::pair{&left, "left"}, std::pair{&right, "right"}})
    if (!(w->rho > 0) || !(w->p > 0))
      throw InputError(std::string(where) + "." + side, "density and pressure must be > 0");
  const double nl = std::sqrt(double(n[0]) * n[0] + double(n[1]) * n[1] + double(n[2]) * n[2]);
  if (!(nl > 0)) throw InputError(std::string(where) + ".normal", "must not be zero");
  ExactRiemann r{left, right, {real(n[0] / nl), real(n[1] / nl), real(n[2] / nl)}, real(gamma), 0, 0};
  const double ul = dot(left.u, r.n), ur = dot(right.u, r.n);
  const PressureFunction fl{left.rho, left.p, std::sqrt(gamma * left.p / left.rho), gamma};
  const PressureFunction fr{right.rho, right.p, std::sqrt(gamma * right.p / right.rho), gamma};
  const double du = ur - ul;
  if (2 / (gamma - 1) * (fl.c + fr.c) <= du)
    throw InputError(where, "the two states separate into a vacuum (2 (c_L + c_R) / (gamma - 1) <= u_R - u_L)",
                     "the exact solution has no star region; bring the states closer");
  // Initial guess: the two-rarefaction pressure (exact when both waves are rarefactions).
  const double z = (gamma - 1) / (2 * gamma);
  double p = std::pow(
      (fl.c + fr.c - 0.5 * (gamma - 1) * du) / (fl.c / std::pow(left.p, z) + fr.c / std::pow(right.p, z)), 1 / z);
  p = std::max(p, 1e-12 * std::min(double(left.p), double(right.p)));
  for (int it = 0; it < 100; ++it) {
    double a, da, b, db;
    fl(p, a, da), fr(p, b, db);
    const double next = std::max(p - (a + b + du) / (da + db), 1e-3 * p); // Newton, kept positive
    const double change = 2 * std::fabs(next - p) / (next + p);
    p = next;
    if (change < 1e-15) break;
  }
  double a, da, b, db;
  fl(p, a, da), fr(p, b, db);
  r.p_star = real(p);
  r.u_star = real(0.5 * (ul + ur) + 0.5 * (b - a));
  return r;
}

} // namespace fvproxy::flow
