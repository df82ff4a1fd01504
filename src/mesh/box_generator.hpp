#pragma once
#include "core/config.hpp"
#include "mesh/host_mesh.hpp"

namespace fvproxy {

/// Generates the box mesh of `mesh.generate`: hexes, tets (each hex split into 6 around its main
/// diagonal, so face diagonals match between neighbours) or prisms (each hex split into 2 along
/// one xy diagonal). Global ids are closed-form: node (i,j,k) -> i + (nx+1)(j + (ny+1)k); hex
/// cell (i,j,k) -> h = i + nx(j + ny k), tet h*6 + s, prism h*2 + s. Node jitter moves interior
/// nodes; boundary nodes move only tangentially, identically on periodic partners. Patches are
/// xmin, xmax, ymin, ymax, zmin, zmax on the non-periodic axes.
HostMesh generate_box(const BoxConfig& cfg);

/// The patch names of a generated box, in patch order.
std::vector<std::string> box_patch_names(const BoxConfig& cfg);

} // namespace fvproxy
