#pragma once
// Numerical fluxes of the compressible model (operators.convection.flux, docs/physics.md#fluxes):
// each maps the left (owner-side) and right states of a face and its unit normal n (pointing from
// left to right) to the flux per unit area, F(L, R, n). All three are consistent
// (F(U, U, n) = F(U) . n) and conservative (F(L, R, n) = -F(R, L, -n)).
//   Rusanov: central flux plus the largest wave speed's dissipation; positivity-preserving.
//   HLLC:    Toro's three-wave solver with Einfeldt's (Roe-averaged) outer wave speeds; exact on
//            isolated contacts and shear waves.
//   Roe:     the linearised solver of the Roe-averaged Jacobian, exact on any isolated
//            discontinuity; an entropy fix on the acoustic waves (|lambda| < delta smoothed to
//            (lambda^2 + delta^2) / (2 delta), Harten, with Harten and Hyman's delta: nonzero only
//            where the wave's characteristic speeds spread across it), without which a transonic
//            rarefaction stays an expansion shock. Ideal gas only (c~ from gamma). Where the
//            linearisation's intermediate states (either side of the contact) have a non-positive
//            density or pressure, or c~^2 <= 0 (strong expansions: Toro's 123 problem), the face
//            takes Einfeldt's HLLE flux instead, which keeps them positive (Einfeldt et al. 1991;
//            docs/physics.md#positivity).
// HLLC and Roe take a rotation threshold (operators.convection.rotated): where the face states'
// velocity jump has a part along the face, the flux is their rotated form (rotated() below), and a
// floor under the shear waves' dissipation (operators.convection.shear_dissipation, shear_floor()).
#include "physics/flow.hpp"

namespace fvproxy::flow {

struct Rusanov {
  template <class EoS> KOKKOS_INLINE_FUNCTION Flux operator()(const Primitive& L, const Primitive& R,
                                                              const real (&n)[3], const EoS& eos) const {
    const Flux FL = normal_flux(L, n, eos), FR = normal_flux(R, n, eos);
    const Conserved UL = to_conserved(L, eos), UR = to_conserved(R, eos);
    const real sl = wave_speed(L, n, eos), sr = wave_speed(R, n, eos);
    const real s = sl > sr ? sl : sr;
    Flux F;
    F.rho = real(0.5) * (FL.rho + FR.rho - s * (UR.rho - UL.rho));
    for (int i = 0; i < 3; ++i) F.m[i] = real(0.5) * (FL.m[i] + FR.m[i] - s * (UR.m[i] - UL.m[i]));
    F.E = real(0.5) * (FL.E + FR.E - s * (UR.E - UL.E));
    return F;
  }
};

/// Roe averages of two states (ideal gas): velocity, enthalpy, sound speed, density.
struct RoeAverage {
  real u[3], H, c, rho;
  template <class EoS>
  KOKKOS_INLINE_FUNCTION static RoeAverage of(const Primitive& L, const Primitive& R, const EoS& eos) {
    const real rl = kc::sqrt(L.rho), rr = kc::sqrt(R.rho), inv = 1 / (rl + rr);
    RoeAverage a;
    for (int i = 0; i < 3; ++i) a.u[i] = (rl * L.u[i] + rr * R.u[i]) * inv;
    a.H = (rl * enthalpy(L, eos) + rr * enthalpy(R, eos)) * inv;
    const real c2 = (eos.gamma - 1) * (a.H - real(0.5) * dot(a.u, a.u));
    a.c = kc::sqrt(c2 > 0 ? c2 : real(0));
    a.rho = rl * rr;
    return a;
  }
};

/// The default rotation thresholds of HLLC and Roe (operators.convection.rotated: true): the velocity
/// jump's part along the face, relative to the states' speeds, and the pressure jump, relative to
/// the smaller pressure, above which rotated() turns the flux (fully at twice each).
inline constexpr double kRotationThreshold = 1e-3;
inline constexpr double kRotationPressureJump = 0.1;
/// The default floor under the shear waves' dissipation (shear_floor(), operators.convection.
/// shear_dissipation), a fraction of the face's mean speed (docs/physics.md#fluxes).
inline constexpr double kShearDissipation = 0.1;
/// The part of the velocity jump along n, relative to the jump, below which rotated() turns less,
/// to F(n) where it changes sign (continuity there).
inline constexpr double kRotationNormalPart = 0.1;

/// Nishikawa and Kitamura's rotated form of a face-normal flux F (J. Comput. Phys. 227, 2008;
/// docs/physics.md#shocks-on-tets): the flux across n as a1 F(n1) + a2 F(n2), n1 along the face
/// states' velocity jump d = u_R - u_L, n2 perpendicular to n1 in the plane of n and n1, a1 = n . n1
/// >= 0, a2 = n . n2 >= 0 (n = a1 n1 + a2 n2): the 1-D problems along the jump and across it, instead
/// of the one along a normal oblique to a shock.
/// Only at a shock: where the pressure jump |p_R - p_L| / min(p_L, p_R) =: q is above
/// kRotationPressureJump =: q0 and the jump's part along the face, t = d - (d . n) n, above
/// `threshold` (|u_L| + |u_R| + c_L + c_R) =: t0. Elsewhere F(n), bit for bit: a shear layer keeps
/// the flux that resolves it (rotated, it would be damped at the acoustic rate rho c, which ruins a
/// low-Mach viscous flow), and a grid-aligned flow's round-off never turns it. Between t0 and 2 t0
/// and between q0 and 2 q0, n1 turns from n to the jump's direction along
/// m = (1 - s) n + s h d^ (d^ = d / |d|) with s = s_t s_q, s_t = |t| / t0 - 1 and s_q = q / q0 - 1
/// (each at most 1), and h = c / c0 clamped to [-1, 1], c = d^ . n, c0 = kRotationNormalPart: so
/// the flux is continuous in the states and well conditioned where d . n is round-off (a shear with
/// a pressure jump): s -> 0 gives n1 -> n, a2 -> 0; where d . n changes sign (the jump along the
/// face) m -> (1 - s) n, and at s = 1, where m is along +-d^, the weight of F(n1) is |c| -> 0.
/// (With h = sign(c), turned along +-d^ for any c, n1 jumped from one side of n to the other there
/// unless s = 1: a kink in the flux that a GPU's round-off and a CPU's crossed differently,
/// perf/results/2026-12-07-rotated-flux.) With a = (1 - s) + s h c, b = s h |t| / |d|,
/// r = (a^2 + b^2)^(1/2) and e = t / |t|:
/// n1 = (a n + b e) / r, n2 = (|b| n - sign(b) a e) / r, a1 = a / r, a2 = |b| / r.
/// Consistent (d = 0: F(n)) and conservative (L, R, -n turn d, t, n1 and n2 over) as F is;
/// threshold <= 0: F(n) everywhere.
template <class Normal, class EoS> KOKKOS_INLINE_FUNCTION Flux rotated(const Normal& flux, const Primitive& L,
                                                                       const Primitive& R, const real (&n)[3],
                                                                       const EoS& eos, real threshold) {
  const real q0 = real(kRotationPressureJump), q = kc::fabs(R.p - L.p) / (L.p < R.p ? L.p : R.p);
  if (!(threshold > 0) || !(q > q0)) return flux.normal(L, R, n, eos);
  const real d[3] = {R.u[0] - L.u[0], R.u[1] - L.u[1], R.u[2] - L.u[2]};
  const real dn = dot(d, n);
  const real t[3] = {d[0] - dn * n[0], d[1] - dn * n[1], d[2] - dn * n[2]};
  const real tm = kc::sqrt(dot(t, t));
  const real t0 = threshold * (kc::sqrt(dot(L.u, L.u)) + kc::sqrt(dot(R.u, R.u)) + eos.sound_speed(L.rho, L.p) +
                               eos.sound_speed(R.rho, R.p));
  if (!(tm > t0)) return flux.normal(L, R, n, eos);
  if (!(dn != 0)) return flux.normal(L, R, n, eos); // the limit of the turned flux as d . n -> 0, for any s
  const real s = (tm < 2 * t0 ? tm / t0 - 1 : real(1)) * (q < 2 * q0 ? q / q0 - 1 : real(1));
  const real inv_dm = 1 / kc::sqrt(dn * dn + tm * tm), c = dn * inv_dm, c0 = real(kRotationNormalPart);
  const real h = c > c0 ? real(1) : c < -c0 ? real(-1) : c / c0;
  const real a = (1 - s) + s * h * c, b = s * h * tm * inv_dm, inv = 1 / kc::sqrt(a * a + b * b);
  const real a1 = a * inv, sb = b * inv, a2 = kc::fabs(sb), sa = b < 0 ? -a1 : a1;
  real n1[3], n2[3];
  for (int i = 0; i < 3; ++i) {
    const real e = t[i] / tm;
    n1[i] = a1 * n[i] + sb * e;
    n2[i] = a2 * n[i] - sa * e;
  }
  const Flux F1 = flux.normal(L, R, n1, eos), F2 = flux.normal(L, R, n2, eos);
  Flux F;
  F.rho = a1 * F1.rho + a2 * F2.rho;
  for (int i = 0; i < 3; ++i) F.m[i] = a1 * F1.m[i] + a2 * F2.m[i];
  F.E = a1 * F1.E + a2 * F2.E;
  return F;
}

/// A floor under the shear waves' dissipation (operators.convection.shear_dissipation = eps;
/// docs/physics.md#fluxes, #the-shear-floor): HLLC and Roe dissipate the face states' velocity jump along the
/// face, t = d - (d . n) n, at the speed of the flow through the face, |u_n| (Roe: |u~ . n| rho~ t /
/// 2), which is ~0 on faces parallel to the flow: a grid-scale shear there (what a shock leaves
/// behind it in regular tets) is never damped. As Harten's entropy fix puts a floor under the
/// acoustic waves' speeds, this puts one, delta = eps |u^| (u^ = (u_L + u_R) / 2), under the shear
/// waves': where |u^ . n| < delta the flux takes -(delta - |u^ . n|) rho^ (0, t, u^ . t) / 2 more
/// (rho^ = (rho_L + rho_R) / 2). Consistent (t = 0), conservative (t and n change sign together),
/// continuous, zero on a grid-aligned flow's faces (no jump along them) and at a no-slip wall
/// (u^ = 0 there); O(h^2) on smooth fields, where t is the reconstructed states' jump. The price:
/// a shear wave that crosses the face slower than delta is no longer resolved exactly.
/// eps <= 0: F unchanged.
KOKKOS_INLINE_FUNCTION void shear_floor(Flux& F, const Primitive& L, const Primitive& R, const real (&n)[3], real eps) {
  if (!(eps > 0)) return;
  real ub[3], d[3];
  for (int i = 0; i < 3; ++i) ub[i] = real(0.5) * (L.u[i] + R.u[i]), d[i] = R.u[i] - L.u[i];
  const real delta = eps * kc::sqrt(dot(ub, ub)) - kc::fabs(dot(ub, n));
  if (!(delta > 0)) return;
  const real dn = dot(d, n), w = real(0.25) * delta * (L.rho + R.rho);
  real ut = 0;
  for (int i = 0; i < 3; ++i) {
    const real t = d[i] - dn * n[i];
    F.m[i] -= w * t;
    ut += ub[i] * t;
  }
  F.E -= w * ut;
}

struct Hllc {
  real rotation = 0; ///< the rotation threshold (rotated()); 0: the face-normal flux everywhere
  real shear = 0;    ///< the shear waves' dissipation floor (shear_floor()); 0: none
  template <class EoS> KOKKOS_INLINE_FUNCTION Flux operator()(const Primitive& L, const Primitive& R,
                                                              const real (&n)[3], const EoS& eos) const {
    Flux F = rotated(*this, L, R, n, eos, rotation);
    shear_floor(F, L, R, n, shear);
    return F;
  }
  /// HLLC across n.
  template <class EoS>
  KOKKOS_INLINE_FUNCTION Flux normal(const Primitive& L, const Primitive& R, const real (&n)[3], const EoS& eos) const {
    const real unl = dot(L.u, n), unr = dot(R.u, n);
    const real cl = eos.sound_speed(L.rho, L.p), cr = eos.sound_speed(R.rho, R.p);
    const RoeAverage a = RoeAverage::of(L, R, eos);
    const real una = dot(a.u, n);
    const real sl = kc::fmin(unl - cl, una - a.c), sr = kc::fmax(unr + cr, una + a.c);
    if (sl >= 0) return normal_flux(L, n, eos);
    if (sr <= 0) return normal_flux(R, n, eos);
    const real ml = L.rho * (sl - unl), mr = R.rho * (sr - unr); // mass fluxes through the outer waves
    const real ss = (R.p - L.p + ml * unl - mr * unr) / (ml - mr);
    // The star state on the side of the contact that holds x/t = 0, and its flux F + S (U* - U).
    const bool left = ss >= 0;
    // selected value by value: a reference to either argument would put both in local memory on CUDA
    Primitive w;
    w.rho = left ? L.rho : R.rho, w.p = left ? L.p : R.p;
    for (int i = 0; i < 3; ++i) w.u[i] = left ? L.u[i] : R.u[i];
    const real s = left ? sl : sr, un = left ? unl : unr;
    const Flux Fw = normal_flux(w, n, eos);
    const Conserved Uw = to_conserved(w, eos);
    const real f = w.rho * (s - un) / (s - ss);
    Conserved Us;
    Us.rho = f;
    for (int i = 0; i < 3; ++i) Us.m[i] = f * (w.u[i] + (ss - un) * n[i]);
    Us.E = f * (Uw.E / w.rho + (ss - un) * (ss + w.p / (w.rho * (s - un))));
    Flux F;
    F.rho = Fw.rho + s * (Us.rho - Uw.rho);
    for (int i = 0; i < 3; ++i) F.m[i] = Fw.m[i] + s * (Us.m[i] - Uw.m[i]);
    F.E = Fw.E + s * (Us.E - Uw.E);
    return F;
  }
};

struct Roe {
  bool entropy_fix = true; ///< false: Roe's flux as he wrote it (a transonic expansion shock stays)
  real rotation = 0;       ///< the rotation threshold (rotated()); 0: the face-normal flux everywhere
  real shear = 0;          ///< the shear waves' dissipation floor (shear_floor()); 0: none
  /// |lambda| smoothed to (lambda^2 + delta^2) / (2 delta) where |lambda| < delta (Harten).
  KOKKOS_INLINE_FUNCTION static real fixed(real lambda, real delta) {
    const real a = kc::fabs(lambda);
    return a < delta ? (lambda * lambda + delta * delta) / (2 * delta) : a;
  }
  /// Harten and Hyman's width for one acoustic wave: how far the wave's speed on either side
  /// reaches across the averaged one, max(0, lambda~ - lambda_L, lambda_R - lambda~): positive only
  /// where the characteristics spread (a transonic rarefaction), zero through a shock.
  KOKKOS_INLINE_FUNCTION static real width(real lambda, real lambda_l, real lambda_r) {
    const real a = lambda - lambda_l, b = lambda_r - lambda;
    const real m = a > b ? a : b;
    return m > 0 ? m : real(0);
  }
  /// Whether the state U + s (v, m, e) (one of Roe's intermediate states: U, plus or minus a wave's
  /// strength times its eigenvector (1, m, e)) has a positive density and pressure.
  template <class EoS> KOKKOS_INLINE_FUNCTION static bool physical_star(const Primitive& w, real s, const real (&m)[3],
                                                                        real e, const EoS& eos) {
    const Conserved U = to_conserved(w, eos);
    const real rho = U.rho + s, mx = U.m[0] + s * m[0], my = U.m[1] + s * m[1], mz = U.m[2] + s * m[2];
    const real p = eos.pressure(rho, U.E + s * e - real(0.5) * (mx * mx + my * my + mz * mz) / rho);
    return rho > 0 && p > 0;
  }
  /// Einfeldt's HLLE flux with the outer wave speeds HLLC uses (Roe's fallback).
  template <class EoS> KOKKOS_INLINE_FUNCTION static Flux hlle(const Primitive& L, const Primitive& R, const Flux& FL,
                                                               const Flux& FR, real sl, real sr, const EoS& eos) {
    if (sl >= 0) return FL;
    if (sr <= 0) return FR;
    const Conserved UL = to_conserved(L, eos), UR = to_conserved(R, eos);
    const real inv = 1 / (sr - sl), k = sl * sr;
    Flux F;
    F.rho = (sr * FL.rho - sl * FR.rho + k * (UR.rho - UL.rho)) * inv;
    for (int i = 0; i < 3; ++i) F.m[i] = (sr * FL.m[i] - sl * FR.m[i] + k * (UR.m[i] - UL.m[i])) * inv;
    F.E = (sr * FL.E - sl * FR.E + k * (UR.E - UL.E)) * inv;
    return F;
  }
  template <class EoS> KOKKOS_INLINE_FUNCTION Flux operator()(const Primitive& L, const Primitive& R,
                                                              const real (&n)[3], const EoS& eos) const {
    Flux F = rotated(*this, L, R, n, eos, rotation);
    shear_floor(F, L, R, n, shear);
    return F;
  }
  /// Roe's flux across n.
  template <class EoS>
  KOKKOS_INLINE_FUNCTION Flux normal(const Primitive& L, const Primitive& R, const real (&n)[3], const EoS& eos) const {
    const Flux FL = normal_flux(L, n, eos), FR = normal_flux(R, n, eos);
    const RoeAverage a = RoeAverage::of(L, R, eos);
    const real un = dot(a.u, n), unl = dot(L.u, n), unr = dot(R.u, n);
    const real cl = eos.sound_speed(L.rho, L.p), cr = eos.sound_speed(R.rho, R.p);
    {
      // positivity: Roe's states either side of the contact, U_L + s1 r1 and U_R - s5 r5
      const real c2 = a.c * a.c, du[3] = {R.u[0] - L.u[0], R.u[1] - L.u[1], R.u[2] - L.u[2]};
      const real dun = dot(du, n), dp = R.p - L.p;
      const real s1 = (dp - a.rho * a.c * dun) / (2 * c2), s5 = (dp + a.rho * a.c * dun) / (2 * c2);
      const real m1[3] = {a.u[0] - a.c * n[0], a.u[1] - a.c * n[1], a.u[2] - a.c * n[2]};
      const real m5[3] = {a.u[0] + a.c * n[0], a.u[1] + a.c * n[1], a.u[2] + a.c * n[2]};
      if (!(c2 > 0) || !physical_star(L, s1, m1, a.H - a.c * un, eos) ||
          !physical_star(R, -s5, m5, a.H + a.c * un, eos))
        return hlle(L, R, FL, FR, kc::fmin(unl - cl, un - a.c), kc::fmax(unr + cr, un + a.c), eos);
    }
    const real d1 = entropy_fix ? width(un - a.c, unl - cl, unr - cr) : real(0);
    const real d5 = entropy_fix ? width(un + a.c, unl + cl, unr + cr) : real(0);
    const real l1 = fixed(un - a.c, d1), l5 = fixed(un + a.c, d5), l2 = kc::fabs(un);
    const real dp = R.p - L.p, drho = R.rho - L.rho;
    const real du[3] = {R.u[0] - L.u[0], R.u[1] - L.u[1], R.u[2] - L.u[2]};
    const real dun = dot(du, n);
    const real c2 = a.c * a.c;
    const real a1 = l1 * (dp - a.rho * a.c * dun) / (2 * c2); // acoustic waves' strengths x |lambda|
    const real a5 = l5 * (dp + a.rho * a.c * dun) / (2 * c2);
    const real a2 = l2 * (drho - dp / c2); // entropy wave
    // |A| dU = a1 r1 + a5 r5 + a2 r_entropy + |un| rho~ (shear: du - dun n)
    real d[5];
    d[0] = a1 + a5 + a2;
    for (int i = 0; i < 3; ++i)
      d[1 + i] =
          a1 * (a.u[i] - a.c * n[i]) + a5 * (a.u[i] + a.c * n[i]) + a2 * a.u[i] + l2 * a.rho * (du[i] - dun * n[i]);
    d[4] = a1 * (a.H - a.c * un) + a5 * (a.H + a.c * un) + a2 * real(0.5) * dot(a.u, a.u) +
           l2 * a.rho * (dot(a.u, du) - un * dun);
    Flux F;
    F.rho = real(0.5) * (FL.rho + FR.rho - d[0]);
    for (int i = 0; i < 3; ++i) F.m[i] = real(0.5) * (FL.m[i] + FR.m[i] - d[1 + i]);
    F.E = real(0.5) * (FL.E + FR.E - d[4]);
    return F;
  }
};

} // namespace fvproxy::flow
