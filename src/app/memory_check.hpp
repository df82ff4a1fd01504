#pragma once
// Refusing a case that cannot fit in memory before any of it is built (docs/inputs.md).
#include <string>

#include "solver/case_config.hpp"

namespace fvproxy {

/// What a command holds besides the mesh.
enum class MemoryUse {
  mesh,         ///< fvproxy mesh: the mesh alone
  mesh_compare, ///< fvproxy mesh --compare-orderings: the unordered mesh too
  mesh_write,   ///< fvproxy mesh --write: the mesh and its file's image
  bench,        ///< fvproxy bench: the operators' geometry and work arrays
  run           ///< fvproxy run: the solver, and the output files' images on the host
};

/// Estimates the memory `cfg` needs for `use` from the mesh's counts (mesh/memory_estimate.hpp)
/// and refuses it — InputError naming mesh.generate.cells or the mesh file, with the estimate and
/// the memory available — when it cannot fit, or when the mesh has more entities than 32-bit
/// local indices can number. Takes well under a second: nothing is allocated. Returns the
/// estimate as one line ("" when the mesh's counts are unknown). On `ranks` ranks a mesh built in
/// parts (parallel/parts.hpp) is estimated per rank: its share with the two-layer piece around it;
/// any other mesh is built whole on every rank.
std::string check_case_fits(const CaseConfig& cfg, MemoryUse use, int ranks = 1);

} // namespace fvproxy
