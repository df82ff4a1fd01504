#pragma once
#include "mesh/host_mesh.hpp"
#include "mesh/mesh_options.hpp"

namespace fvproxy {

/// How a box's faces are made: enumerated per hex from the split's table of what lies across each
/// cell face (mesh/box_faces.hpp; the default), or matched by node keys like any mesh's
/// (build_faces: the reference the tests hold the enumeration to). The same faces either way.
enum class BoxFaces { enumerate, match };

/// Generates the box mesh of `mesh.generate`: hexes, tets (each hex split into 6 around its main
/// diagonal, so face diagonals match between neighbours) or prisms (each hex split into 2 along
/// one xy diagonal). Global ids are closed-form: node (i,j,k) -> i + (nx+1)(j + (ny+1)k); hex
/// cell (i,j,k) -> h = i + nx(j + ny k), tet h*6 + s, prism h*2 + s. Node jitter moves interior
/// nodes; boundary nodes move only tangentially, identically on periodic partners. Patches are
/// xmin, xmax, ymin, ymax, zmin, zmax on the non-periodic axes.
HostMesh generate_box(const BoxConfig& cfg, BoxFaces faces = BoxFaces::enumerate);

/// The name of the last patch of a box piece: the faces on no box side (the piece's outer faces).
inline constexpr const char* kBoxCutPatch = "(piece boundary)";

/// The cells of the hexes `hexes` (ascending hex ids h = i + nx (j + ny k)) of the box of
/// `mesh.generate`, as generate_box makes them (bitwise the same coordinates, cell node orders and
/// global ids), their nodes numbered in ascending global id with their periodic partners, faces
/// built: the faces between two of its cells are the whole box's faces (same owner, node order
/// and translation) as long as the cells are in the same order; faces on no box side form a last
/// patch named kBoxCutPatch. For building a rank's part without the whole mesh (parallel/parts.hpp).
HostMesh generate_box_piece(const BoxConfig& cfg, const std::vector<gid_t>& hexes,
                            BoxFaces faces = BoxFaces::enumerate);

/// The patch names of a generated box, in patch order.
std::vector<std::string> box_patch_names(const BoxConfig& cfg);

} // namespace fvproxy
