#pragma once
// Boundary-patch data the operators share: for the optimized gathers, each patch's runs of faces
// with the same owner (a patch's faces are sorted by owner, so one thread per run touches one
// cell and patches launched one after another need no atomics); for the naive kernels, a per-face
// flag they branch on.
#include <vector>

#include "core/config.hpp"
#include "core/types.hpp"
#include "mesh/mesh.hpp"

namespace fvproxy {

struct PatchRuns {
  index_t begin = 0, end = 0; ///< the patch's face range
  BoundaryType type = BoundaryType::outflow;
  View1<index_t> runs; ///< face where each run starts, then `end`: runs.extent(0) - 1 runs
  index_t n_runs() const { return static_cast<index_t>(runs.extent(0)) - 1; }
};

/// One entry per non-empty patch, in patch order. `types`: the boundary type of each patch.
std::vector<PatchRuns> patch_owner_runs(const Mesh& m, const std::vector<BoundaryType>& types, const char* label);

/// Per boundary face (index f - n_interior): 1 on outflow patches, 0 elsewhere.
View1<std::int8_t> outflow_face_flags(const Mesh& m, const std::vector<BoundaryType>& types, const char* label);

} // namespace fvproxy
