#pragma once
// The scalar model's initial condition / exact solution built from a case (host side).
#include <string>

#include "physics/scalar_profile.hpp"
#include "solver/case_config.hpp"

namespace fvproxy {

/// The profiles, diffusivities, velocity and box of a parsed case (parse_case).
ScalarSolution make_scalar_solution(const CaseConfig& c);

/// Empty when ScalarSolution is the exact solution of the case for all t; otherwise the reason
/// it is not (for the run summary: errors are reported only where an exact solution exists).
std::string exact_solution_unavailable(const CaseConfig& c);

} // namespace fvproxy
