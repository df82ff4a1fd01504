#pragma once
// The flow solver's cell kernels (src/solver/flow_solver.cpp launches them): the initial state from
// a pointwise profile (physics/flow_profiles.hpp), the error terms against an exact solution, the
// output fields, the physical and start-range checks, the residual sum, the kinetic energy and the
// stable rate lambda_c (solver/flow_solver.hpp; docs/physics.md#time-step-of-the-flow-models), with
// max_rate its reduction.
#include <limits>

#include "core/kokkos_compat.hpp"
#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "physics/flow.hpp"
#include "physics/viscous.hpp"

namespace fvproxy {

template <class P> struct FillState {
  P profile;
  flow::IdealGas eos;
  ConstVec3View<real> centroid;
  View2<real> u;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    const real x[3] = {centroid(c, 0), centroid(c, 1), centroid(c, 2)};
    const flow::Conserved U = flow::to_conserved(profile(x, 0), eos);
    u(c, 0) = U.rho, u(c, 1) = U.m[0], u(c, 2) = U.m[1], u(c, 3) = U.m[2], u(c, 4) = U.E;
  }
};

/// Per cell: |rho - rho_e|, |u - u_e| (Euclidean), |p - p_e|.
template <class P> struct ErrorTerms {
  P exact;
  flow::IdealGas eos;
  ConstVec3View<real> centroid;
  ConstView2<real> u;
  View2<double> err;
  real t;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    const real x[3] = {centroid(c, 0), centroid(c, 1), centroid(c, 2)};
    const flow::Primitive e = exact(x, t);
    const flow::Primitive w = flow::to_primitive(flow::Conserved{u(c, 0), {u(c, 1), u(c, 2), u(c, 3)}, u(c, 4)}, eos);
    double du = 0;
    for (int i = 0; i < 3; ++i) du += double(w.u[i] - e.u[i]) * double(w.u[i] - e.u[i]);
    err(c, 0) = kc::fabs(double(w.rho) - double(e.rho));
    err(c, 1) = kc::sqrt(du);
    err(c, 2) = kc::fabs(double(w.p) - double(e.p));
  }
};

/// out(c, 0..n) = u(c, 0..n): the state's columns of a wider array.
struct CopyColumns {
  ConstView2<real> u;
  View2<real> out;
  int n;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    for (int k = 0; k < n; ++k) out(c, k) = u(c, k);
  }
};

/// The fields of output_field_layout: U (5), velocity (3), pressure, temperature.
struct DerivedFields {
  flow::IdealGas eos;
  ConstView2<real> u;
  View2<real> out;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    const flow::Conserved U{u(c, 0), {u(c, 1), u(c, 2), u(c, 3)}, u(c, 4)};
    const flow::Primitive w = flow::to_primitive(U, eos);
    for (int k = 0; k < flow::kVariables; ++k) out(c, k) = u(c, k);
    for (int i = 0; i < 3; ++i) out(c, 5 + i) = w.u[i];
    out(c, 8) = w.p;
    out(c, 9) = eos.temperature(w.rho, w.p);
  }
};

/// What makes a state non-physical, PhysicalCheck's key column: -1 none; 0..4 the first non-finite
/// value's column; 5 density <= 0; 6 pressure <= 0 (or not finite).
KOKKOS_INLINE_FUNCTION int state_fault(const flow::IdealGas& eos, const real (&U)[flow::kVariables]) {
  for (int k = 0; k < flow::kVariables; ++k)
    if (!kc::isfinite(U[k])) return k;
  if (!(U[0] > 0)) return 5;
  const real p = eos.pressure(U[0], U[4] - real(0.5) * (U[1] * U[1] + U[2] * U[2] + U[3] * U[3]) / U[0]);
  return !(p > 0) || !kc::isfinite(p) ? 6 : -1;
}

/// After a step: the first density or pressure <= 0 (keys(1)) or non-finite value (keys(0)) per
/// (step, cell, column), StateCheck's key layout (time_step.hpp).
struct PhysicalCheck {
  flow::IdealGas eos;
  ConstView2<real> u;
  Kokkos::View<unsigned long long[2], MemSpace> keys;
  unsigned long long step_key;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    const real U[flow::kVariables] = {u(c, 0), u(c, 1), u(c, 2), u(c, 3), u(c, 4)};
    const auto cell = static_cast<unsigned long long>(c) << 3;
    const int fault = state_fault(eos, U);
    if (fault >= 0 && fault < flow::kVariables)
      Kokkos::atomic_fetch_min(&keys(0), step_key | cell | static_cast<unsigned long long>(fault));
    else if (fault == 5)
      Kokkos::atomic_fetch_min(&keys(1), step_key | cell);
    else if (fault == 6)
      Kokkos::atomic_fetch_min(&keys(1), step_key | cell | 4ULL);
  }
};

/// After a failed step (time.retries): marked(c) = 1 where PhysicalCheck reports cell c, else 0.
struct MarkNonPhysical {
  flow::IdealGas eos;
  ConstView2<real> u;
  View1<real> marked;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    const real U[flow::kVariables] = {u(c, 0), u(c, 1), u(c, 2), u(c, 3), u(c, 4)};
    marked(c) = state_fault(eos, U) >= 0 ? real(1) : real(0);
  }
};

/// marked(rows(i)) = 1 for the rows below `end` (the owned ones).
struct MarkRows {
  ConstView1<index_t> rows;
  index_t end;
  View1<real> marked;
  KOKKOS_FUNCTION void operator()(const index_t i) const {
    if (rows(i) < end) marked(rows(i)) = 1;
  }
};

/// The start state (initial or a checkpoint's) within the range the model computes in, as the case
/// reader checks the initial condition's parameters (physics/physics_options.hpp, kStateMin and
/// kStateMax): density and pressure in range, and the kinetic energy, sound speed squared and
/// total energy below its top. Records the first cell out of range in keys(1), component 0
/// density, 1 kinetic energy, 2 sound speed squared, 3 total energy, 4 pressure.
struct StartRangeCheck {
  flow::IdealGas eos;
  ConstView2<real> u;
  Kokkos::View<unsigned long long[2], MemSpace> keys;
  double lo, hi;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    const double rho = u(c, 0), m2 = double(u(c, 1)) * u(c, 1) + double(u(c, 2)) * u(c, 2) + double(u(c, 3)) * u(c, 3);
    const double kinetic = 0.5 * m2 / rho, E = u(c, 4);
    const double p = double(eos.gamma - 1) * (E - kinetic);
    int bad = -1;
    if (!(rho >= lo && rho <= hi))
      bad = 0;
    else if (!(p >= lo && p <= hi))
      bad = 4;
    else if (!(kinetic <= hi))
      bad = 1;
    else if (!(double(eos.gamma) * p / rho <= hi))
      bad = 2;
    else if (!(E <= hi))
      bad = 3;
    if (bad >= 0)
      Kokkos::atomic_fetch_min(&keys(1),
                               (static_cast<unsigned long long>(c) << 3) | static_cast<unsigned long long>(bad));
  }
};

/// Sum over the cells of V ((u - un) / dt)^2 over the variables [first, last) (a residual's sum).
struct ResidualSum {
  ConstView2<real> u, un;
  ConstView1<real> volume;
  real inv_dt;
  int first, last;
  KOKKOS_FUNCTION void operator()(const index_t c, double& s) const {
    double a = 0;
    for (int k = first; k < last; ++k) {
      const double d = double(u(c, k) - un(c, k)) * double(inv_dt);
      a += d * d;
    }
    s += double(volume(c)) * a;
  }
};

/// |m|^2 / (2 rho) per cell (column 0 of `e`).
struct KineticEnergy {
  ConstView2<real> u;
  View2<real> e;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    e(c, 0) = real(0.5) * (u(c, 1) * u(c, 1) + u(c, 2) * u(c, 2) + u(c, 3) * u(c, 3)) / u(c, 0);
  }
};

/// lambda_c of flow_solver.hpp; the viscosity law a template parameter (ConstantViscosity{0}: euler).
template <class Visc> struct StableRate {
  flow::IdealGas eos;
  Visc mu;
  real prandtl;
  ConstView1<index_t> off, faces;
  ConstVec3View<real> S;
  ConstView1<real> inv_volume;
  ConstView2<real> u;
  KOKKOS_FUNCTION void operator()(const index_t c, Kokkos::ValLocScalar<real, index_t>& best) const {
    const flow::Primitive w = flow::to_primitive(flow::Conserved{u(c, 0), {u(c, 1), u(c, 2), u(c, 3)}, u(c, 4)}, eos);
    const real cs = eos.sound_speed(w.rho, w.p), iv = inv_volume(c);
    const real m = mu(eos.temperature(w.rho, w.p));
    real conv = 0, visc = 0;
    for (index_t q = off(c); q < off(c + 1); ++q) {
      const index_t f = faces(q);
      const real a2 = S(f, 0) * S(f, 0) + S(f, 1) * S(f, 1) + S(f, 2) * S(f, 2);
      conv += kc::fabs(w.u[0] * S(f, 0) + w.u[1] * S(f, 1) + w.u[2] * S(f, 2)) + cs * kc::sqrt(a2);
      visc += flow::viscous_rate(m, w.rho, eos, prandtl, a2 * iv);
    }
    const real lam = real(0.5) * conv * iv + visc * iv; // the standard 1/2 sum_f (|u.S| + c|S|) / V
    if (lam > best.val || best.loc < 0 || !(lam == lam)) {
      best.val = lam == lam ? lam : std::numeric_limits<real>::infinity();
      best.loc = c;
    }
  }
};

template <class Visc> Kokkos::ValLocScalar<real, index_t> max_rate(const Mesh& m, const flow::IdealGas& gas,
                                                                   const Visc& mu, real prandtl, ConstView2<real> u) {
  Kokkos::ValLocScalar<real, index_t> best{0, -1};
  Kokkos::parallel_reduce(
      "fvproxy::flow::stable_rate", Kokkos::RangePolicy<ExecSpace>(0, m.n_cells),
      StableRate<Visc>{gas, mu, prandtl, m.cell_face_off, m.cell_faces, m.face_area, m.inv_volume, u},
      Kokkos::MaxLoc<real, index_t>(best));
  return best;
}

} // namespace fvproxy
