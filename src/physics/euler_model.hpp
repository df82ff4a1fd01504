#pragma once
// The compressible model as the operators see it (docs/operators/flow.md#the-model-contract-as-built): a model is
// a small value type, copied into the kernels, that the flow operators are templated on. It fixes
// the number of variables at compile time and supplies, pointwise,
//   N                          the number of conserved variables (5)
//   primitive(U)               conserved -> primitive (rho, u, p), the numerical flux's input
//   conserved(W)               primitive -> conserved (boundary states as values for the gradients)
//   face_flux(L, R, n, area)   the numerical flux through a face of unit normal n (L on the side n
//                              points away from) times its area, per conserved variable
//   wave_speed(W, n)           |u . n| + c, the CFL's speed
// EulerModel<Flux, EoS> instantiates it for a numerical flux of riemann_fluxes.hpp (Rusanov, Hllc,
// Roe) and an equation of state (IdealGas). The shared optimized kernels (operators/convection/
// convection_kernels.hpp) run it through FlowUpwind, as they run the scalar model (ScalarUpwind<N>).
#include "physics/flow.hpp"
#include "physics/riemann_fluxes.hpp"

namespace fvproxy::flow {

/// operators.convection.flux
enum class FluxType { rusanov, hllc, roe };
inline const char* to_string(FluxType f) {
  return f == FluxType::rusanov ? "rusanov" : f == FluxType::hllc ? "hllc" : "roe";
}

template <class NumFlux, class EoS = IdealGas> struct EulerModel {
  static constexpr int N = kVariables;
  EoS eos;
  NumFlux flux;

  KOKKOS_INLINE_FUNCTION Primitive primitive(const real (&U)[N]) const {
    const Conserved c{U[0], {U[1], U[2], U[3]}, U[4]};
    return to_primitive(c, eos);
  }
  KOKKOS_INLINE_FUNCTION void conserved(const Primitive& w, real (&U)[N]) const {
    const Conserved c = to_conserved(w, eos);
    U[0] = c.rho, U[1] = c.m[0], U[2] = c.m[1], U[3] = c.m[2], U[4] = c.E;
  }
  KOKKOS_INLINE_FUNCTION void face_flux(const Primitive& L, const Primitive& R, const real (&n)[3], real area,
                                        real (&F)[N]) const {
    const Flux f = flux(L, R, n, eos);
    F[0] = f.rho * area, F[1] = f.m[0] * area, F[2] = f.m[1] * area, F[3] = f.m[2] * area, F[4] = f.E * area;
  }
  KOKKOS_INLINE_FUNCTION real wave_speed(const Primitive& w, const real (&n)[3]) const {
    return flow::wave_speed(w, n, eos);
  }
};

} // namespace fvproxy::flow
