#pragma once
// The vertex-neighbour stencil of the least-squares gradient and of the limiter's extremes
// (operators.muscl.stencil: vertex; docs/operators/muscl.md#stencil, docs/physics.md): besides a
// cell's face neighbours and its boundary faces' values (the face stencil), every cell that shares
// a vertex with it, and, across the walls and symmetry planes through its vertices, their mirror
// images — the stencil the whole mirrored mesh would give, so a half mesh with a symmetry plane
// still equals the mirrored whole mesh. Periodic boundaries: the cells sharing a vertex through
// them, translated next to the cell.
//
// Per cell c the extra entries are [off(c), off(c + 1)): first the plain ones,
// [off(c), image_begin(c)), whose value is u(index(q)) at centroid(index(q)) + shifts(shift(q)),
// then the images, [image_begin(c), off(c + 1)), whose value is the boundary-value row index(q)
// (rows first_row, first_row + 1, ... of ub: the operators' boundary-value arrays gain n_images
// rows, filled by the models' image kernels) at image_x(index(q) - first_row). An image e is cell
// image_cell(e) mirrored about the planes image_patch(e, 0..2) (-1: none) with unit normals
// image_normal(e, 3 i ..), in that order (image_x is the mirrored centroid; the image kernels take
// the normals for the velocity).
//
// The face stencil has the same views with no entries (off all 0), so the optimized kernels loop
// over an empty range instead of branching; the corners stencil has entries for the cells at a node
// where two mirror planes meet only.
#include <string>
#include <vector>

#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "operators/operator_options.hpp"

namespace fvproxy {

struct VertexStencil {
  View1<index_t> off, image_begin, index;
  View1<std::uint8_t> shift;
  Vec3View<real> shifts;
  Vec3View<real> image_x;
  View1<index_t> image_cell;
  View2<index_t> image_patch;
  View2<real> image_normal;
  index_t n_images = 0;
  index_t n_owned_images = 0; ///< images [0, n_owned_images) are of owned cells, the rest of ghosts
  index_t first_row = 0;
  index_t n_entries = 0;
  bool vertex = false;         ///< false: the face stencil (no entries)
  bool corners = false;        ///< the corners stencil: entries for the cells at a node on two mirror planes only
  index_t n_stencil_cells = 0; ///< gradient cells with entries
  /// The corners stencil's cells with entries, ascending (`cells`, and `host_cells` on the host), and
  /// each gradient cell's position in them (`row`; -1: none): the rows of the pre-pass that sums
  /// their entries (operators/muscl/stencil_sums.hpp). Empty for the face and vertex stencils.
  View1<index_t> cells, row;
  std::vector<index_t> host_cells;

  std::size_t memory_bytes() const;
};

/// For the operators' descriptions: "" for the face stencil, " + vertex stencil (E entries per
/// cell, I mirror images)" for the vertex stencil of `cells` cells, " + corners stencil (E entries at
/// C of `cells` cells, I mirror images)" for the corners stencil.
std::string stencil_note(const VertexStencil& s, index_t cells);

/// An estimate of the vertex stencil's bytes (no mirror image counted) for a mesh of `cells` cells
/// and `faces` faces (faces per cell tell the element: about 2 for tets, 66 entries per cell; 2.5
/// for prisms, 33; 3 for hexes, 20: measured on generated boxes); 0 for the face stencil.
double stencil_memory_estimate(Stencil s, double cells, double faces);

/// The face stencil's empty views for the n_gradient_cells() of `m`.
VertexStencil face_stencil(const Mesh& m);

/// The vertex stencil of the gradient cells of `m` (built on the host from the device mesh's
/// connectivity). `mirror_patches[p]`: patch p's boundary values are mirror images (walls,
/// symmetry planes). A decomposed mesh needs two ghost layers by vertex adjacency
/// (Mesh::vertex_layers: every vertex neighbour of a gradient cell is then here, and every face of a
/// mirror patch at its nodes); the entries of a cell are ordered by global id, so the sums are the
/// same on any rank count. InputError naming operators.muscl.stencil otherwise. `corners_only`
/// (operators.muscl.stencil: corners): entries only for the cells with a node on two or more mirror
/// patches (where their planes meet: the face stencil's least-squares fit has no redundancy there on
/// tets); every other cell keeps the face stencil (no entries).
VertexStencil make_vertex_stencil(const Mesh& m, const std::vector<bool>& mirror_patches, bool corners_only = false);

} // namespace fvproxy
