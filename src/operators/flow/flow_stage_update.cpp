// The flow models' fused stage update (flow_stage_update.hpp).
#include "operators/flow/flow_stage_update.hpp"

#include "operators/launch.hpp"

namespace fvproxy {

namespace {

/// Blend: a stage after the first (u^n read); W, WV: which fields are written.
template <bool Blend, bool W, bool WV> struct FlowStageUpdate {
  flow::IdealGas eos;
  View2<real> un, u, rhs, w, wv;
  real a, b, dt;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    real U[flow::kVariables];
    for (int k = 0; k < flow::kVariables; ++k) {
      const real old = u(c, k);
      real v = old + dt * rhs(c, k);
      if constexpr (Blend)
        v = a * un(c, k) + b * v;
      else
        un(c, k) = old;
      u(c, k) = v;
      rhs(c, k) = 0;
      U[k] = v;
    }
    if constexpr (W || WV) {
      const flow::Primitive p = flow::to_primitive(flow::Conserved{U[0], {U[1], U[2], U[3]}, U[4]}, eos);
      if constexpr (W) w(c, 0) = p.rho, w(c, 1) = p.u[0], w(c, 2) = p.u[1], w(c, 3) = p.u[2], w(c, 4) = p.p;
      if constexpr (WV) wv(c, 0) = p.u[0], wv(c, 1) = p.u[1], wv(c, 2) = p.u[2], wv(c, 3) = eos.temperature(p.rho, p.p);
    }
  }
};

template <bool Blend, bool W, bool WV> void launch_update(const flow::IdealGas& gas, View2<real> un, View2<real> u,
                                                          View2<real> rhs, real a, real dt, View2<real> w,
                                                          View2<real> wv, index_t rows) {
  Kokkos::parallel_for("fvproxy::flow::stage_update", Kokkos::RangePolicy<ExecSpace>(0, rows),
                       FlowStageUpdate<Blend, W, WV>{gas, un, u, rhs, w, wv, a, 1 - a, dt});
}

template <bool Blend> void with_fields(const flow::IdealGas& gas, View2<real> un, View2<real> u, View2<real> rhs,
                                       real a, real dt, View2<real> w, View2<real> wv, index_t rows) {
  const bool W = w.data() != nullptr, WV = wv.data() != nullptr;
  if (W && WV)
    launch_update<Blend, true, true>(gas, un, u, rhs, a, dt, w, wv, rows);
  else if (W)
    launch_update<Blend, true, false>(gas, un, u, rhs, a, dt, w, wv, rows);
  else if (WV)
    launch_update<Blend, false, true>(gas, un, u, rhs, a, dt, w, wv, rows);
  else
    launch_update<Blend, false, false>(gas, un, u, rhs, a, dt, w, wv, rows);
}

} // namespace

void flow_stage_update(const flow::IdealGas& gas, View2<real> un, View2<real> u, View2<real> rhs, real a, real dt,
                       View2<real> w, View2<real> wv, index_t rows) {
  if (a == 0)
    with_fields<false>(gas, un, u, rhs, a, dt, w, wv, rows);
  else
    with_fields<true>(gas, un, u, rhs, a, dt, w, wv, rows);
}

} // namespace fvproxy
