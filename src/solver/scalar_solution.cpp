#include "solver/scalar_solution.hpp"

#include <cmath>

#include "core/error.hpp"

namespace fvproxy {

ScalarSolution make_scalar_solution(const CaseConfig& c) {
  if (!c.has_solver) throw std::logic_error("make_scalar_solution needs parse_case");
  ScalarSolution s;
  s.components = c.physics.components;
  if (s.components > kMaxComponents) throw InputError("physics.components", "at most 8 components");
  if (c.mesh.generate) {
    for (int d = 0; d < 3; ++d) {
      s.periodic[d] = c.mesh.generate->periodic[d];
      s.lo[d] = static_cast<real>(c.mesh.generate->origin[d]);
      s.length[d] = static_cast<real>(c.mesh.generate->lengths[d]);
    }
  }
  const VelocityConfig& v = c.physics.velocity;
  s.rotation = v.type == VelocityType::rotation;
  for (int d = 0; d < 3; ++d) {
    s.u[d] = static_cast<real>(v.value[d]);
    s.axis[d] = static_cast<real>(v.axis[d]);
    s.rot_center[d] = static_cast<real>(v.center[d]);
  }
  s.omega = static_cast<real>(v.omega);
  for (int k = 0; k < s.components; ++k) {
    const InitialConfig& ic = c.initial[k];
    Profile& p = s.profile[k];
    s.kappa[k] = static_cast<real>(c.physics.diffusivity[k]);
    p.type = static_cast<ProfileType>(static_cast<int>(ic.type));
    p.value = ic.value, p.amplitude = ic.amplitude, p.background = ic.background, p.width = ic.width;
    p.phase = ic.phase, p.radius = ic.radius, p.inside = ic.inside, p.outside = ic.outside;
    for (int d = 0; d < 3; ++d) {
      p.center[d] = static_cast<real>(ic.center[d]);
      p.k[d] = static_cast<real>(2 * M_PI * ic.wavenumber[d] / s.length[d]);
    }
  }
  return s;
}

std::string exact_solution_unavailable(const CaseConfig& c) {
  const bool rotation = c.physics.velocity.type == VelocityType::rotation;
  // A rotation commutes with the periodization along axis d only when it turns about that axis
  // (the coordinate along it is then unchanged): any other periodic axis breaks the exact solution.
  bool rotation_breaks_periodicity = false;
  if (rotation && c.mesh.generate)
    for (int d = 0; d < 3; ++d) {
      const auto& a = c.physics.velocity.axis;
      const bool along_d = std::fabs(std::fabs(a[d]) - 1.0) < 1e-12;
      if (c.mesh.generate->periodic[d] && !along_d) rotation_breaks_periodicity = true;
    }
  for (int k = 0; k < c.physics.components; ++k) {
    const InitialConfig& ic = c.initial[k];
    const std::string which = "component " + std::to_string(k) + " (" + to_string(ic.type) + ")";
    if (ic.type == InitialType::sphere && c.physics.diffusivity[k] > 0)
      return which + ": a diffusing step has no closed-form solution here";
    if (rotation && ic.type == InitialType::sine)
      return which + ": a sine mode is not transported exactly by a rotation";
    if (rotation_breaks_periodicity && ic.type != InitialType::constant)
      return which + ": the rotation is not about the periodic axis, so the rotated profile does not solve the "
                     "periodic problem";
  }
  for (const auto& [name, bc] : c.boundary)
    if (!(bc.type == BoundaryType::dirichlet && bc.exact))
      return "patch '" + name + "' is " + to_string(bc.type) +
             ": the exact solution is known only with periodic or 'dirichlet: exact' boundaries";
  return {};
}

} // namespace fvproxy
