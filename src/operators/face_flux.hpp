#pragma once
// The steady face volume flux phi_f = u(x_f) . S_f of the prescribed velocity (out of the owner),
// computed once: convection's upwinding and the inflow boundary condition read it.
#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "physics/physics_options.hpp"

namespace fvproxy {

/// Labelled kernel "fvproxy::operators::face_volume_flux", templated on the velocity functor.
View1<real> face_volume_flux(const Mesh& m, const VelocityConfig& v);

} // namespace fvproxy
