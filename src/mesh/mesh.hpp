#pragma once
// The mesh on the device: connectivity copied from a HostMesh, geometry computed there.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "mesh/host_mesh.hpp"

namespace fvproxy {

struct Mesh {
  /// n_cells: the cells this rank owns and computes, [0, n_cells): the bound of every cell loop.
  /// A decomposed mesh (docs/decomposition.md#the-local-mesh) follows them with n_ghosts ghost cells:
  /// per-cell arrays that neighbours read (the state, gradients, limiter values, volume, centroid,
  /// cell_gid, ...) have n_local() rows. One rank: n_ghosts = 0.
  index_t n_cells = 0, n_faces = 0, n_interior = 0, n_nodes = 0;
  index_t n_ghosts = 0;
  /// Owned cells with no ghost neighbour come first, [0, n_inner) ("inner"), then the owned cells
  /// next to a ghost, [n_inner, n_cells) ("frontier"); interior faces between two owned cells come
  /// first, [0, n_owned_faces), then the faces between an owned cell and a ghost,
  /// [n_owned_faces, n_interior) (operators/part.hpp). One rank: n_inner = n_cells,
  /// n_owned_faces = n_interior.
  index_t n_inner = 0, n_owned_faces = 0;
  /// A second ghost layer (parallel.halo.layers: 2, docs/halo.md#two-ghost-layers): the first
  /// n_layer1 ghosts, [n_cells, n_cells + n_layer1), have every face here, so their gradients and
  /// limiter values are computed on this rank (Part::layer1) from the second layer's state. Their
  /// faces follow the owned cells' n_faces faces: their boundary faces, [n_faces, outer_begin), by
  /// patch (layer1_patches), then the interior faces between two ghosts, [outer_begin, n_all_faces).
  /// One ghost layer: n_layer1 = 0, outer_begin = n_all_faces = n_faces.
  index_t n_layer1 = 0, outer_begin = 0, n_all_faces = 0;
  std::vector<Patch> layer1_patches; ///< the first ghost layer's boundary faces per patch (as `patches`)
  gid_t n_global_cells = 0;          ///< cells over every rank (= n_cells on one rank)
  double global_volume = 0; ///< volume of the whole domain: the exact sum over every rank's owned cells, rounded once
  int dim = 3;              ///< spatial dimension (HostMesh::dim)
  /// The ghost layers hold every vertex neighbour (LocalMesh::vertex: the vertex stencil's layers).
  bool vertex_layers = false;
  /// ... at the corners stencil's cells only (LocalMesh::corners_only): the vertex stencil cannot use them.
  bool corner_layers_only = false;
  /// HostMesh::node_key on the host (periodic partners share a key; null or empty: none), for the
  /// vertex stencil's builder (shared: copies of the Mesh do not copy it).
  std::shared_ptr<const std::vector<index_t>> node_key;
  index_t n_local() const { return n_cells + n_ghosts; }
  /// Cells whose gradients this rank computes: the owned ones and the first ghost layer's (two layers).
  index_t n_gradient_cells() const { return n_cells + n_layer1; }
  /// Rows of a boundary-value array (row f - n_interior): the owned cells' boundary faces, then the
  /// first ghost layer's (two layers).
  index_t n_boundary_rows() const { return outer_begin - n_interior; }

  Vec3View<real> node_x;
  View1<gid_t> node_gid;

  View1<std::uint8_t> cell_type; ///< CellType
  View1<gid_t> cell_gid;
  View1<index_t> cell_node_off, cell_nodes;
  View1<index_t> cell_face_off, cell_faces;
  View1<std::int8_t> cell_face_sign;

  View1<index_t> face_node_off, face_nodes;
  View1<index_t> face_owner, face_neighbour; ///< neighbour -1 on boundary faces
  View1<std::uint8_t> face_shift;            ///< periodic translation index (0 = none)
  Vec3View<real> shifts;                     ///< translation table
  std::vector<Patch> patches;                ///< boundary face ranges (host)

  // Geometry (computed on the device by compute_geometry)
  View1<real> volume, inv_volume;
  Vec3View<real> centroid;
  Vec3View<real> face_area; ///< area vector, out of the owner (face arrays: n_all_faces rows)
  Vec3View<real> face_centroid;

  /// Bytes held by the views above.
  std::size_t memory_bytes() const;
};

/// Copies the connectivity to the device and computes the geometry there. `n_owned` (< 0: all)
/// marks the first n_owned cells as owned, the rest as ghosts (a local mesh): the geometry of the
/// ghosts is then left to the caller (their faces are not all present: the halo exchange brings
/// their owners' values), and n_global_cells, global_volume are this rank's until the caller
/// sums them over ranks.
Mesh upload(const HostMesh& h, index_t n_owned = -1);

/// What upload gives of the cells' centroids, and no more: the connectivity the cell geometry
/// reads, then volume, inv_volume and centroid (the same bits as upload's); no face geometry, no
/// ids, owners or neighbours. For the curve keys of a mesh that is then reordered and dropped.
Mesh upload_centroids(const HostMesh& h);

/// Face area vectors and centroids (fan triangles around the node average, so non-planar
/// quadrilaterals are handled exactly), then cell volumes and centroids by the divergence theorem
/// on the same triangles, for the owned cells (arrays of n_local() rows), and global_volume.
void compute_geometry(Mesh& m);

struct GeometryChecks {
  double min_volume = 0;
  gid_t min_volume_cell = -1;
  double max_closure = 0; ///< max over cells of |sum of outward area vectors| / V^(2/3)
  gid_t max_closure_cell = -1;
  double total_volume = 0;
};

GeometryChecks check_geometry(const Mesh& m);

/// Throws InputError naming the worst cell when a volume is not positive or a cell is not closed.
void validate_geometry(const Mesh& m, const std::string& source);
/// The same from checks already made (check_geometry of `m`).
void validate_geometry(const Mesh& m, const GeometryChecks& g, const std::string& source);

} // namespace fvproxy
