#pragma once
// The positivity of the flow models' MUSCL reconstruction (docs/physics.md#positivity) as one check
// per cell: whether every face state base + phi_k (g_k . (x_f - x_c)) has a positive density and
// pressure. flow_positivity_limit's kernel (flow_convection.cpp) runs it after the muscl operator,
// reading the gradient and limiter values back; FlowPositivity runs it inside the fused muscl
// kernels (muscl_fused.hpp, muscl_paired.hpp: their bound), on the values still in registers. The
// same arithmetic either way.
#include "core/types.hpp"
#include "operators/flow/flow_convection.hpp"
#include "operators/muscl/gradient_optimized.hpp"
#include "physics/flow.hpp"

namespace fvproxy {

/// Whether cell c's face states are physical: base = W_c (R primitive: rho and p of the state) or U_c
/// (conservative: through flow::to_primitive), gr and phi its gradients and limiter values.
template <FlowVariables R> KOKKOS_INLINE_FUNCTION bool physical_face_states(const optimized::GradientGeometry& g,
                                                                            const flow::IdealGas& eos, index_t c,
                                                                            const real (&base)[flow::kVariables],
                                                                            const real (&gr)[flow::kVariables][3],
                                                                            const real (&phi)[flow::kVariables]) {
  constexpr int NV = flow::kVariables;
  const auto physical_at = [&](const real(&rc)[3]) {
    real X[NV];
    for (int k = 0; k < NV; ++k) X[k] = base[k] + phi[k] * (gr[k][0] * rc[0] + gr[k][1] * rc[1] + gr[k][2] * rc[2]);
    if constexpr (R == FlowVariables::primitive) return X[0] > 0 && X[4] > 0;
    const flow::Primitive w = flow::to_primitive(flow::Conserved{X[0], {X[1], X[2], X[3]}, X[4]}, eos);
    return w.rho > 0 && w.p > 0;
  };
  const index_t bb = g.cell_boundary_begin(c);
  for (index_t q = g.cell_face_off(c); q < bb; ++q) { // interior faces: r, or r - d on the neighbour side
    const index_t f = g.cell_faces(q);
    const real m = g.sign(q) > 0 ? real(0) : real(1);
    const real rc[3] = {g.r(f, 0) - m * g.d(f, 0), g.r(f, 1) - m * g.d(f, 1), g.r(f, 2) - m * g.d(f, 2)};
    if (!physical_at(rc)) return false;
  }
  for (index_t q = bb; q < g.cell_face_off(c + 1); ++q) { // boundary faces (d is not set there)
    const index_t f = g.cell_faces(q);
    const real rc[3] = {g.r(f, 0), g.r(f, 1), g.r(f, 2)};
    if (!physical_at(rc)) return false;
  }
  return true;
}

/// The fused muscl kernels' bound (limiter_optimized.hpp's NoBound contract): phi = 0, first order
/// on every face, where a face state is not physical. uc is the kernel's input: W_c (primitive) or U_c.
template <FlowVariables R> struct FlowPositivity {
  flow::IdealGas eos;
  template <int N> KOKKOS_INLINE_FUNCTION void operator()(const optimized::GradientGeometry& g, index_t c,
                                                          const real (&uc)[N], const real (&gr)[N][3],
                                                          real (&phi)[N]) const {
    static_assert(N == flow::kVariables, "the flow models' reconstructed variables");
    if (!physical_face_states<R>(g, eos, c, uc, gr, phi))
      for (int k = 0; k < N; ++k) phi[k] = 0;
  }
};

} // namespace fvproxy
