#pragma once
// The solver state on the device: cell values and the per-operator work arrays.
#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "physics/scalar_profile.hpp"

namespace fvproxy {

/// u(c, k) = the case's profile at the cell centroid at time t (labelled kernel).
void fill_from_profile(const Mesh& m, const ScalarSolution& s, real t, View2<real> u);

} // namespace fvproxy
