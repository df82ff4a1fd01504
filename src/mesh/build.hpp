#pragma once
// From the `mesh` section of a case to a checked, ordered mesh on the device.
#include <string>

#include "mesh/host_mesh.hpp"
#include "mesh/mesh.hpp"
#include "mesh/mesh_options.hpp"

namespace fvproxy {

struct BuiltMesh {
  HostMesh host; ///< in the final ordering
  Mesh device;
  std::string source;         ///< "generated hex box 16x16x16" or the file path
  double seconds_build = 0;   ///< generate/read + faces + geometry + checks
  double seconds_reorder = 0; ///< ordering permutation + renumbering + geometry again
};

/// The mesh before reordering, on the host and the device (for comparing orderings).
struct UnorderedMesh {
  HostMesh host;
  Mesh device;
};

/// Generates or reads the mesh, checks it (closed cells, positive volumes, total volume of a box),
/// then applies `cfg.reorder`. `unordered`, when given, receives the mesh before reordering.
BuiltMesh build_mesh(const MeshConfig& cfg, UnorderedMesh* unordered = nullptr);

/// A generated box's cells that jitter turned inside out: InputError naming mesh.generate.perturb
/// with the real reason when `min_volume` (of cell `cell`, a global id) is not positive and the box
/// is jittered (a tet of the hex's split is valid for every draw only below 1/6 of the spacing,
/// docs/mesh.md); nothing otherwise.
void check_jitter(const BoxConfig& box, double min_volume, gid_t cell);

} // namespace fvproxy
