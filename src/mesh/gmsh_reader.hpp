#pragma once
// Gmsh reader: MSH 4.1 (ASCII and binary) and MSH 2.2 (ASCII). Linear 3D elements (tet, hex,
// prism, pyramid) become cells; triangles and quadrilaterals in surface physical groups name the
// boundary patches. Global ids: a node's and a cell's position in the file (0-based; nodes count
// every node, cells count only 3D elements).
#include <string>

#include "mesh/host_mesh.hpp"

namespace fvproxy {

/// Reads `path`. InputError naming file:line (ASCII) or file:byte offset (binary) on malformed or
/// truncated files and unsupported elements; build_faces' errors for faces shared by more than two
/// cells and boundary faces outside every patch.
HostMesh read_gmsh(const std::string& path);

/// Same from text already in memory (tests); `name` stands for the file name in messages.
HostMesh read_gmsh_text(const std::string& data, const std::string& name);

} // namespace fvproxy
