#include "operators/face_flux.hpp"

#include "physics/velocity.hpp"

namespace fvproxy {

namespace {
template <class Velocity> struct FaceVolumeFlux {
  Velocity velocity;
  ConstVec3View<real> F, S;
  View1<real> phi;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const real x[3] = {F(f, 0), F(f, 1), F(f, 2)};
    real v[3];
    velocity(x, v);
    phi(f) = v[0] * S(f, 0) + v[1] * S(f, 1) + v[2] * S(f, 2);
  }
};
template <class Velocity> View1<real> compute(const Mesh& m, const Velocity& vel) {
  View1<real> phi(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fvproxy::operators::face_volume_flux"),
                  m.n_all_faces); // the first ghost layer's faces too: inflow conditions read it
  Kokkos::parallel_for("fvproxy::operators::face_volume_flux", Kokkos::RangePolicy<ExecSpace>(0, m.n_all_faces),
                       FaceVolumeFlux<Velocity>{vel, m.face_centroid, m.face_area, phi});
  return phi;
}
} // namespace

View1<real> face_volume_flux(const Mesh& m, const VelocityConfig& v) {
  auto r = [](double x) { return static_cast<real>(x); };
  if (v.type == VelocityType::uniform)
    return compute(m, UniformVelocity{{r(v.value[0]), r(v.value[1]), r(v.value[2])}});
  return compute(m, RotationVelocity{{r(v.axis[0]), r(v.axis[1]), r(v.axis[2])},
                                     {r(v.center[0]), r(v.center[1]), r(v.center[2])},
                                     r(v.omega)});
}

} // namespace fvproxy
