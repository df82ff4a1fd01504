#pragma once
// Boundary conditions of the compressible model, pointwise (docs/physics.md#boundary-conditions):
// each maps the interior state next to a boundary face and the face's outward unit normal n to the
// outside state the face's Riemann flux takes as its right state (the interior state is the left
// one). One functor per type, so that an optimized operator launches one kernel per patch.
//
// The same outside state is the boundary value the gradients take (OperatorGeometry::ghost): on
// walls and symmetry planes it is the ghost cell's, the owner's mirror image (at the owner's
// mirrored centroid); on the other types it is the face's value. A no-slip wall's face flux is not a
// Riemann flux against its mirror image but the wall's own (NoSlipWall::flux).
//
// A case's boundary entry becomes a FlowCondition once (flow_condition); condition_functor maps its
// kind to the functor, the one place that does, and with_condition / with_condition_in_kernel call
// a function with it (the optimized operators launch a kernel per functor; the naive ones branch per
// face). A new condition: its kind, name, keys and checks (physics_options.hpp and .cpp), its
// functor, parameters and line in condition_functor here (docs/development.md#code-style).
#include <type_traits>
#include <utility>

#include "physics/flow.hpp"
#include "physics/physics_options.hpp" // FlowBoundaryKind, FlowBoundaryConfig

namespace fvproxy::flow {

/// v mirrored about the plane of unit normal n: v - 2 (v . n) n.
KOKKOS_INLINE_FUNCTION void mirror(const real (&v)[3], const real (&n)[3], real (&out)[3]) {
  const real vn = dot(v, n);
  for (int i = 0; i < 3; ++i) out[i] = v[i] - 2 * vn * n[i];
}

/// The pressure at a wall that the state `in` moves toward with normal speed un (the relative
/// velocity's, positive into the wall): the exact solution of the Riemann problem between `in` and
/// its mirror image, a shock (un > 0) or a rarefaction (un < 0; 0 at vacuum), ideal gas.
KOKKOS_INLINE_FUNCTION real wall_pressure(const Primitive& in, real un, real gamma) {
  if (un > 0) { // shock: un = (p* - p) sqrt(A / (p* + B)), solved for p* - p (Toro, 4.21)
    const real A = 2 / ((gamma + 1) * in.rho), B = (gamma - 1) / (gamma + 1) * in.p, u2 = un * un;
    return in.p + (u2 + kc::sqrt(u2 * u2 + 4 * A * u2 * (in.p + B))) / (2 * A);
  }
  const real c = kc::sqrt(gamma * in.p / in.rho);
  const real b =
      1 + real(0.5) * (gamma - 1) * un / c; // rarefaction: p* = p (1 + (gamma - 1) un / 2c)^(2 gamma / (gamma - 1))
  return b > 0 ? in.p * kc::pow(b, 2 * gamma / (gamma - 1)) : real(0);
}

/// Inviscid wall and symmetry plane: the mirror image (normal velocity reversed, density and
/// pressure kept). With HLLC or Roe the face's mass and energy fluxes vanish and the momentum flux
/// is a pressure along n.
struct SlipWall {
  KOKKOS_INLINE_FUNCTION Primitive operator()(const Primitive& in, const real (&n)[3]) const {
    Primitive out = in;
    const real un = dot(in.u, n);
    for (int i = 0; i < 3; ++i) out.u[i] = in.u[i] - 2 * un * n[i];
    return out;
  }
};
using Symmetry = SlipWall;

/// Viscous wall, at rest or sliding in its plane with `velocity`; adiabatic or at a wall
/// temperature, which the viscous flux takes at the face (wall_temperature <= 0: adiabatic, no heat
/// flux through the wall). The ghost state (the gradients' boundary value): the velocity mirrored
/// about the wall's, u_out = 2 u_wall - u_in (the face's velocity is the wall's), density and
/// pressure kept. The face flux is the wall's own (flux): no mass through the wall, the wall
/// pressure p_w (wall_pressure of the face state moving toward the wall) on the momentum, and its
/// work p_w u_wall . n on the energy; no Riemann flux, so no numerical shear along the wall.
struct NoSlipWall {
  real wall_temperature = 0;
  real velocity[3] = {0, 0, 0};
  KOKKOS_INLINE_FUNCTION Primitive operator()(const Primitive& in, const real (&/*n*/)[3]) const {
    Primitive out = in;
    for (int i = 0; i < 3; ++i) out.u[i] = 2 * velocity[i] - in.u[i];
    return out;
  }
  template <class EoS> KOKKOS_INLINE_FUNCTION Flux flux(const Primitive& in, const real (&n)[3], const EoS& eos) const {
    const real un = dot(in.u, n) - dot(velocity, n);
    const real pw = wall_pressure(in, un, eos.gamma);
    Flux F;
    F.rho = 0;
    for (int i = 0; i < 3; ++i) F.m[i] = pw * n[i];
    F.E = pw * dot(velocity, n);
    return F;
  }
};

/// Every characteristic enters: the prescribed state.
struct SupersonicInflow {
  Primitive state;
  KOKKOS_INLINE_FUNCTION Primitive operator()(const Primitive& /*in*/, const real (&/*n*/)[3]) const { return state; }
};

/// Every characteristic leaves: the interior state.
struct SupersonicOutflow {
  KOKKOS_INLINE_FUNCTION Primitive operator()(const Primitive& in, const real (&/*n*/)[3]) const { return in; }
};

/// Far field (characteristic, ideal gas): the Riemann invariants along n, the outgoing
/// R+ = u_n + 2c/(gamma - 1) from the interior and the incoming R- = u_n - 2c/(gamma - 1) from the
/// free stream, give the face's normal velocity and sound speed; entropy p / rho^gamma and the
/// tangential velocity come from the interior where the flow leaves, from the free stream where it
/// enters. Supersonic faces take the free stream (inflow) or the interior (outflow) whole.
struct Farfield {
  Primitive free;
  real gamma = real(1.4);
  KOKKOS_INLINE_FUNCTION Primitive operator()(const Primitive& in, const real (&n)[3]) const {
    const real g1 = gamma - 1;
    const real ci = kc::sqrt(gamma * in.p / in.rho), cf = kc::sqrt(gamma * free.p / free.rho);
    const real uni = dot(in.u, n), unf = dot(free.u, n);
    if (uni <= -ci) return free; // supersonic inflow
    if (uni >= ci) return in;    // supersonic outflow
    const real rp = uni + 2 * ci / g1, rm = unf - 2 * cf / g1;
    const real un = real(0.5) * (rp + rm), c = real(0.25) * g1 * (rp - rm);
    // the side the entropy and tangential velocity come from, selected by value (a reference to either
    // would put both states in local memory on CUDA)
    const bool leaving = un > 0;
    Primitive up;
    up.rho = leaving ? in.rho : free.rho, up.p = leaving ? in.p : free.p;
    for (int i = 0; i < 3; ++i) up.u[i] = leaving ? in.u[i] : free.u[i];
    const real s = up.p / kc::pow(up.rho, gamma);
    Primitive out;
    out.rho = kc::pow(c * c / (gamma * s), 1 / g1);
    out.p = out.rho * c * c / gamma;
    const real unu = dot(up.u, n);
    for (int i = 0; i < 3; ++i) out.u[i] = up.u[i] + (un - unu) * n[i];
    return out;
  }
};

/// Subsonic inflow (characteristic, ideal gas): total pressure p0, total temperature T0 and the
/// flow's direction (a unit vector into the domain, or normal to each face) imposed; the outgoing Riemann invariant
/// R+ = u_i . n + 2 c_i / (gamma - 1) comes from the interior. With u = V dir and
/// c^2 = (gamma - 1) (c_p T0 - V^2 / 2), R+ = V dir . n + 2 c / (gamma - 1) is a quadratic in c (the
/// larger root: the subsonic branch); then T = c^2 / (gamma R), p = p0 (T / T0)^(gamma / (gamma - 1)).
struct SubsonicInflow {
  real p0 = 1, t0 = 1, direction[3] = {0, 0, 0}; ///< direction (0, 0, 0): along -n, normal to each face
  real gamma = real(1.4), gas_constant = real(287.05);
  KOKKOS_INLINE_FUNCTION Primitive operator()(const Primitive& in, const real (&n)[3]) const {
    const bool normal = direction[0] == 0 && direction[1] == 0 && direction[2] == 0;
    real dir[3];
    for (int i = 0; i < 3; ++i) dir[i] = normal ? -n[i] : direction[i];
    const real g1 = gamma - 1;
    const real c0sq = gamma * gas_constant * t0; // the stagnation sound speed squared, (gamma - 1) H0
    const real rp = dot(in.u, n) + 2 * kc::sqrt(gamma * in.p / in.rho) / g1;
    const real a = dot(dir, n); // < 0: into the domain
    const real A = a * a + 2 / g1, C = real(0.5) * g1 * rp * rp - c0sq * a * a;
    const real disc = rp * rp - A * C;
    const real c = (rp + kc::sqrt(disc > 0 ? disc : real(0))) / A;
    real V = a < 0 ? (rp - 2 * c / g1) / a : real(0);
    if (!(V > 0)) V = 0;                               // flow leaving through an inflow: stagnation
    const real vmax2 = 2 * c0sq / g1 * real(0.999999); // keep T > 0
    if (V * V > vmax2) V = kc::sqrt(vmax2);
    const real T = (c0sq - real(0.5) * g1 * V * V) / (gamma * gas_constant);
    Primitive out;
    out.p = p0 * kc::pow(T / t0, gamma / g1);
    out.rho = out.p / (gas_constant * T);
    for (int i = 0; i < 3; ++i) out.u[i] = V * dir[i];
    return out;
  }
};

/// Subsonic outflow (characteristic, ideal gas): the static pressure p imposed; entropy, the
/// tangential velocity and the outgoing invariant R+ = u_n + 2 c / (gamma - 1) from the interior:
/// rho_b = rho_i (p / p_i)^(1/gamma), c_b = sqrt(gamma p / rho_b), u_n,b = u_n,i + 2 (c_i - c_b) / (gamma - 1).
/// Supersonic outflow (u_n,i >= c_i) takes the interior state whole.
struct SubsonicOutflow {
  real p = 1;
  real gamma = real(1.4);
  KOKKOS_INLINE_FUNCTION Primitive operator()(const Primitive& in, const real (&n)[3]) const {
    const real ci = kc::sqrt(gamma * in.p / in.rho), uni = dot(in.u, n);
    if (uni >= ci) return in;
    Primitive out;
    out.p = p;
    out.rho = in.rho * kc::pow(p / in.p, 1 / gamma);
    const real cb = kc::sqrt(gamma * p / out.rho);
    const real unb = uni + 2 * (ci - cb) / (gamma - 1);
    for (int i = 0; i < 3; ++i) out.u[i] = in.u[i] + (unb - uni) * n[i];
    return out;
  }
};

/// The incoming acoustic characteristic w = p - z u_n of a state w along the outward normal n, z the
/// face's reference impedance rho c (docs/physics.md#non-reflecting-subsonic-boundaries).
KOKKOS_INLINE_FUNCTION real incoming_characteristic(const Primitive& w, const real (&n)[3], real z) {
  return w.p - z * dot(w.u, n);
}

/// A non-reflecting subsonic boundary's outside state (docs/physics.md#non-reflecting-subsonic-boundaries):
/// the pressure and normal velocity from the interior's outgoing acoustic characteristic
/// p_i + z u_n,i and the face's own incoming one `w`, p = (p_i + z u_n,i + w) / 2,
/// u_n = (p_i + z u_n,i - w) / 2z, with the face's reference impedance z (rho c where its
/// characteristic was started: a fixed z, so that neither the wave itself nor an entropy wave, which
/// changes rho c at the same p and u, moves the face's pressure); the entropy and the tangential
/// velocity of the fixed condition's state `bc` (SubsonicOutflow's or SubsonicInflow's). w does not
/// follow the interior (it changes only by incoming_rate, slowly), so an outgoing wave meets a constant
/// incoming characteristic and leaves. Where the interior leaves supersonically, or w leaves no
/// positive pressure: bc.
KOKKOS_INLINE_FUNCTION Primitive with_incoming(const Primitive& bc, const Primitive& in, const real (&n)[3], real gamma,
                                               real w, real z) {
  const real uni = dot(in.u, n);
  if (uni * uni * in.rho >= gamma * in.p && uni > 0) return bc; // u_n >= c
  const real wo = in.p + z * uni;
  Primitive out;
  out.p = real(0.5) * (wo + w);
  if (!(out.p > 0)) return bc;
  const real un = real(0.5) * (wo - w) / z, unb = dot(bc.u, n);
  out.rho = bc.rho * kc::pow(out.p / bc.p, 1 / gamma); // bc's entropy
  for (int i = 0; i < 3; ++i) out.u[i] = bc.u[i] + (un - unb) * n[i];
  return out;
}

/// d w / dt of a non-reflecting face: the relaxation of its incoming characteristic w toward `target`,
/// the fixed condition's (incoming_characteristic of bc), at the rate K = sigma c (1 - M^2) / L of
/// Rudy & Strikwerda (1980) and Poinsot & Lele (1992), c and the normal Mach number M < 1 of the
/// face's outside state `ghost`, L the case's length: waves slower than about K reflect (the mean
/// state is imposed), faster ones leave.
KOKKOS_INLINE_FUNCTION real incoming_rate(real w, real target, const Primitive& ghost, const real (&n)[3], real gamma,
                                          real sigma, real length) {
  const real c = kc::sqrt(gamma * ghost.p / ghost.rho), m = kc::fabs(dot(ghost.u, n)) / c;
  const real m2 = m < 1 ? m * m : real(1);
  return sigma * c * (1 - m2) / length * (target - w);
}

/// The velocity a velocity inlet prescribes at a point x: `velocity` everywhere (uniform), or the
/// plane channel's parabola velocity * 4 s (1 - s) with s = (x . normal - from) / (to - from), the
/// position across the channel between its walls at x . normal = from and to (parabolic: `velocity`
/// is the centre line's; the mean over the channel is 2/3 of it).
struct InletProfile {
  real velocity[3] = {0, 0, 0};
  bool parabolic = false;
  real normal[3] = {0, 1, 0};
  real from = 0, to = 1;
  KOKKOS_INLINE_FUNCTION real shape(const real (&x)[3]) const {
    if (!parabolic) return 1;
    const real s = (dot(x, normal) - from) / (to - from);
    return s > 0 && s < 1 ? 4 * s * (1 - s) : real(0);
  }
};

/// Subsonic velocity inlet (ideal gas): the velocity ub and the static temperature T imposed; the
/// pressure from the outgoing acoustic characteristic (u_n + c, leaving through the face),
/// p + rho c u_n carried from the interior: p_b = p_i + rho_i c_i (u_n,i - u_n,b); rho_b = p_b / (R T).
struct VelocityInlet {
  real temperature = 1;
  real gamma = real(1.4), gas_constant = real(287.05);
  KOKKOS_INLINE_FUNCTION Primitive operator()(const Primitive& in, const real (&n)[3], const real (&ub)[3]) const {
    const real z = kc::sqrt(gamma * in.p * in.rho); // rho c
    Primitive out;
    out.p = in.p + z * (dot(in.u, n) - dot(ub, n));
    if (!(out.p > 0)) out.p = in.p * real(1e-3); // a wave pulling the inlet toward vacuum: keep p > 0
    out.rho = out.p / (gas_constant * temperature);
    for (int i = 0; i < 3; ++i) out.u[i] = ub[i];
    return out;
  }
};

/// A velocity inlet with its profile: the face's velocity from its centroid x, then VelocityInlet.
struct ProfiledVelocityInlet {
  VelocityInlet inlet;
  InletProfile profile;
  KOKKOS_INLINE_FUNCTION Primitive operator()(const Primitive& in, const real (&n)[3], const real (&x)[3]) const {
    const real s = profile.shape(x);
    const real ub[3] = {s * profile.velocity[0], s * profile.velocity[1], s * profile.velocity[2]};
    return inlet(in, n, ub);
  }
};

/// Subsonic mass-flow inlet (ideal gas): the mass flux G = rho_b u_b . (-n) through each face (the
/// patch's mass flow over its area), the static temperature T and the flow's direction (unit, into
/// the domain; 0: along -n) imposed; the pressure from the outgoing characteristic as the velocity
/// inlet's, p_b = p_i + rho_i c_i (u_n,i - u_n,b) with u_n,b = -G R T / p_b: the positive root of
/// p_b^2 - q p_b - rho_i c_i G R T = 0, q = p_i + rho_i c_i u_n,i.
struct MassFlowInlet {
  real mass_flux = 1, temperature = 1, direction[3] = {0, 0, 0};
  real gamma = real(1.4), gas_constant = real(287.05);
  KOKKOS_INLINE_FUNCTION Primitive operator()(const Primitive& in, const real (&n)[3]) const {
    const bool normal = direction[0] == 0 && direction[1] == 0 && direction[2] == 0;
    real dir[3];
    for (int i = 0; i < 3; ++i) dir[i] = normal ? -n[i] : direction[i];
    const real z = kc::sqrt(gamma * in.p * in.rho), rt = gas_constant * temperature;
    const real q = in.p + z * dot(in.u, n);
    Primitive out;
    out.p = real(0.5) * (q + kc::sqrt(q * q + 4 * z * mass_flux * rt));
    out.rho = out.p / rt;
    const real a = -dot(dir, n); // > 0: into the domain
    const real V = mass_flux / (out.rho * a);
    for (int i = 0; i < 3; ++i) out.u[i] = V * dir[i];
    return out;
  }
};

/// One patch's condition as the operators take it, resolved from the case once (flow_condition):
/// its kind and the parameters of every kind (only its own are read; condition_functor).
struct FlowCondition {
  FlowBoundaryKind type = FlowBoundaryKind::slip_wall;
  Primitive state{real(1), {0, 0, 0}, real(1)}; ///< supersonic-inflow's state, farfield's free stream
  real wall_temperature = 0;                    ///< no-slip-wall (<= 0: adiabatic)
  real wall_velocity[3] = {0, 0, 0};            ///< no-slip-wall (tangential: a sliding wall)
  real total_pressure = 1, total_temperature = 1, direction[3] = {0, 0, 0}; ///< subsonic-inflow (direction 0: normal)
  real pressure = 1;                                                        ///< subsonic-outflow
  real temperature = 1;                      ///< velocity-inlet, mass-flow-inlet: the static temperature
  InletProfile profile;                      ///< velocity-inlet
  real mass_flux = 0;                        ///< mass-flow-inlet: its mass flow over the patch's area
  bool non_reflecting = false;               ///< subsonic-inflow, -outflow (docs/physics.md)
  real nr_sigma = real(0.25), nr_length = 1; ///< incoming_rate's sigma and L
  /// Walls and symmetry planes: the gradients' boundary values are mirror images.
  bool mirror() const { return is_mirror(type); }
};

/// The functor of kind K with c's parameters: the one map from a boundary kind to its physics.
template <FlowBoundaryKind K>
KOKKOS_INLINE_FUNCTION auto condition_functor(const FlowCondition& c, const IdealGas& gas) {
  using Kind = FlowBoundaryKind;
  const real(&d)[3] = c.direction;
  if constexpr (K == Kind::slip_wall || K == Kind::symmetry)
    return SlipWall{};
  else if constexpr (K == Kind::supersonic_inflow)
    return SupersonicInflow{c.state};
  else if constexpr (K == Kind::supersonic_outflow)
    return SupersonicOutflow{};
  else if constexpr (K == Kind::farfield)
    return Farfield{c.state, gas.gamma};
  else if constexpr (K == Kind::no_slip_wall)
    return NoSlipWall{c.wall_temperature, {c.wall_velocity[0], c.wall_velocity[1], c.wall_velocity[2]}};
  else if constexpr (K == Kind::subsonic_inflow)
    return SubsonicInflow{c.total_pressure, c.total_temperature, {d[0], d[1], d[2]}, gas.gamma, gas.gas_constant};
  else if constexpr (K == Kind::subsonic_outflow)
    return SubsonicOutflow{c.pressure, gas.gamma};
  else if constexpr (K == Kind::velocity_inlet)
    return ProfiledVelocityInlet{VelocityInlet{c.temperature, gas.gamma, gas.gas_constant}, c.profile};
  else {
    static_assert(K == Kind::mass_flow_inlet, "a boundary kind without its functor in condition_functor");
    return MassFlowInlet{c.mass_flux, c.temperature, {d[0], d[1], d[2]}, gas.gamma, gas.gas_constant};
  }
}

/// Whether condition B can be non-reflecting (with_incoming on its state): the subsonic inflow and outflow.
template <class B> inline constexpr bool can_be_non_reflecting_v =
    std::is_same_v<B, SubsonicInflow> || std::is_same_v<B, SubsonicOutflow>;
/// Whether condition B varies along its patch: its state takes the face's centroid x too.
template <class B> inline constexpr bool varies_along_patch_v =
    std::is_invocable_v<const B&, const Primitive&, const real (&)[3], const real (&)[3]>;
/// Whether condition B gives the face's flux itself (NoSlipWall::flux) rather than a Riemann flux's right state.
template <class B, class = void> struct has_own_flux : std::false_type {};
template <class B> struct has_own_flux<
    B, std::void_t<decltype(std::declval<const B&>().flux(
           std::declval<const Primitive&>(), std::declval<const real (&)[3]>(), std::declval<const IdealGas&>()))>>
    : std::true_type {};
template <class B> inline constexpr bool has_own_flux_v = has_own_flux<B>::value;

// f(integral_constant<kind>) for the kind k, over the kinds 0 .. kFlowBoundaryKinds - 1. Twice, as a
// host function and as a KOKKOS_INLINE_FUNCTION: a host and device function calling the host-only
// lambdas that launch kernels would be a wrong-sided call for nvcc.
namespace detail {
template <class F, int... K> void on_kind(FlowBoundaryKind k, F& f, std::integer_sequence<int, K...>) {
  (void)((static_cast<int>(k) == K && (f(std::integral_constant<FlowBoundaryKind, FlowBoundaryKind(K)>{}), true)) ||
         ...);
}
template <class F, int... K>
KOKKOS_INLINE_FUNCTION void on_kind_in_kernel(FlowBoundaryKind k, F& f, std::integer_sequence<int, K...>) {
  (void)((static_cast<int>(k) == K && (f(std::integral_constant<FlowBoundaryKind, FlowBoundaryKind(K)>{}), true)) ||
         ...);
}
} // namespace detail

/// f(b) with the functor b of c's kind (condition_functor), on the host: the optimized operators
/// launch one kernel per patch, instantiated on b's type.
template <class F> void with_condition(const FlowCondition& c, const IdealGas& gas, F&& f) {
  auto on = [&](auto kind) { f(condition_functor<decltype(kind)::value>(c, gas)); };
  detail::on_kind(c.type, on, std::make_integer_sequence<int, kFlowBoundaryKinds>{});
}
/// The same inside a kernel (the naive operators: a run-time branch over the kinds per face).
template <class F>
KOKKOS_INLINE_FUNCTION void with_condition_in_kernel(const FlowCondition& c, const IdealGas& gas, F&& f) {
  auto on = [&](auto kind) { f(condition_functor<decltype(kind)::value>(c, gas)); };
  detail::on_kind_in_kernel(c.type, on, std::make_integer_sequence<int, kFlowBoundaryKinds>{});
}

/// A case's state as the kernels take it.
inline Primitive primitive_of(const FlowStateConfig& s) {
  return Primitive{
      static_cast<real>(s.density),
      {static_cast<real>(s.velocity[0]), static_cast<real>(s.velocity[1]), static_cast<real>(s.velocity[2])},
      static_cast<real>(s.pressure)};
}

/// A velocity profile as the kernels take it (velocity: the uniform or the centre line's velocity).
inline InletProfile profile_of(const VelocityProfileConfig& c, const std::array<double, 3>& velocity) {
  InletProfile p;
  p.parabolic = c.parabolic;
  for (int i = 0; i < 3; ++i)
    p.velocity[i] = static_cast<real>(velocity[i]), p.normal[i] = static_cast<real>(c.normal[i]);
  p.from = static_cast<real>(c.from), p.to = static_cast<real>(c.to);
  return p;
}

/// A case's boundary entry resolved for the operators; `patch_area`: the patch's area summed over
/// every rank (a mass-flow inlet's mass flux is its mass flow over it).
inline FlowCondition flow_condition(const FlowBoundaryConfig& b, double patch_area) {
  FlowCondition c;
  c.type = b.kind;
  c.state = primitive_of(b.state);
  c.total_pressure = static_cast<real>(b.total_pressure);
  c.total_temperature = static_cast<real>(b.total_temperature);
  if (b.direction)
    for (int d = 0; d < 3; ++d) c.direction[d] = static_cast<real>((*b.direction)[d]);
  c.pressure = static_cast<real>(b.pressure);
  c.non_reflecting = b.non_reflecting;
  c.nr_length = static_cast<real>(b.nr_length), c.nr_sigma = static_cast<real>(b.nr_sigma);
  if (b.kind == FlowBoundaryKind::no_slip_wall) {
    for (int d = 0; d < 3; ++d) c.wall_velocity[d] = static_cast<real>(b.wall_velocity[d]);
    c.wall_temperature = b.wall_temperature ? static_cast<real>(*b.wall_temperature) : real(0);
  }
  c.temperature = static_cast<real>(b.temperature);
  c.profile = profile_of(b.profile, b.inlet_velocity);
  if (b.kind == FlowBoundaryKind::mass_flow_inlet && patch_area > 0)
    c.mass_flux = static_cast<real>(b.mass_flow / patch_area);
  return c;
}

} // namespace fvproxy::flow
