#pragma once
// What a case's mesh will cost before it is built: its entity counts from the generator's closed
// forms (or a Gmsh file's declared counts) and the bytes that build_mesh and a run hold on the
// host and the device. Lets the commands refuse a case that cannot fit within seconds, instead
// of building for half a minute and failing in an allocation.
#include <string>

#include "mesh/mesh_options.hpp"

namespace fvproxy {

/// Entity counts of a mesh (doubles: exact up to 2^53, and no overflow for absurd requests).
struct MeshCounts {
  double cells = 0, nodes = 0, faces = 0, interior_faces = 0;
  double cell_nodes = 0;  ///< entries of the cell -> node lists
  double face_nodes = 0;  ///< entries of the face -> node lists
  bool node_keys = false; ///< generated boxes keep a node key per node (periodic matching)
  double file_bytes = 0;  ///< Gmsh: the file's size (its text is held in memory while it is read)
  bool exact = false;     ///< generated box: exact; Gmsh: estimated from the declared counts
  bool known = false;     ///< false: a Gmsh file whose counts could not be read (no estimate)
  std::string what;       ///< "262144000 hex cells, 263374721 nodes, 787968000 faces"

  /// Entries of the cell -> face lists (each interior face twice, each boundary face once).
  double cell_faces() const { return 2 * interior_faces + (faces - interior_faces); }
};

/// The counts of the mesh `cfg` describes, without building it: exact for a generated box; for a
/// Gmsh file, its declared node and element counts, read from the section headers only (every
/// element costed as a tetrahedron, surface elements included: an estimate). known = false when
/// a file's counts cannot be read this way or cannot be right (the reader then names the line).
MeshCounts mesh_counts(const MeshConfig& cfg);

/// Bytes of a HostMesh and of a device Mesh (Mesh::memory_bytes()) with these counts.
double host_mesh_bytes(const MeshCounts& c);
double device_mesh_bytes(const MeshCounts& c);

/// Bytes of the mesh file (mesh.h5's datasets) of these counts.
double mesh_file_bytes(const MeshCounts& c);

/// Peak bytes of building the mesh (reading, face matching, reordering: two host meshes at once,
/// then two device meshes while the reordered one is uploaded; `keep_unordered` for
/// --compare-orderings) and then holding it beside `work_device` bytes of device arrays (the
/// solver) and `work_host` bytes of host buffers (output): on the host, on the device, and
/// `combined`, the largest sum of the two over these phases (for backends whose device memory is
/// the host's).
struct MemoryNeed {
  double host = 0, device = 0, combined = 0;
};
MemoryNeed case_memory(const MeshCounts& c, const MeshConfig& cfg, bool keep_unordered, double work_device,
                       double work_host);

/// "1.5 GiB", "320.0 MiB", "12.3 KiB".
std::string bytes_text(double bytes);

} // namespace fvproxy
