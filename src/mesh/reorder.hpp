#pragma once
// Cell orderings (mesh.reorder). Each returns one permutation new -> old of the cells, computed in
// O(n log n) and deterministic (ties broken by global id); permute_cells applies it, renumbering
// faces to follow their cells and nodes by first use. Global ids are kept.
#include <vector>

#include "mesh/host_mesh.hpp"
#include "mesh/mesh.hpp"
#include "mesh/mesh_options.hpp"

namespace fvproxy {

/// new -> old permutation for `ordering`. `mesh` supplies centroids (zorder, hilbert) and must be
/// the device copy of `host`.
std::vector<index_t> ordering_permutation(const HostMesh& host, const Mesh& mesh, Ordering ordering,
                                          std::uint64_t seed);

/// Space-filling-curve keys of the cell centroids (labelled kernel on the device), on the cube
/// grid spanned by the centroids' bounding box.
std::vector<std::uint64_t> curve_keys(const Mesh& mesh, Ordering curve);

/// The grid of the curve keys: corner and cells per unit length (2^21 - 1 over the largest extent).
struct CurveFrame {
  real lo[3] = {0, 0, 0};
  real scale = 0;
};
/// The frame of centroids bounded by [lo, hi] (per axis, as min and max of the centroids).
CurveFrame curve_frame(const real lo[3], const real hi[3]);
/// The keys of the owned cells of `mesh` on a given frame (a part of a mesh: the whole mesh's
/// frame gives the whole mesh's keys, bitwise).
std::vector<std::uint64_t> curve_keys(const Mesh& mesh, Ordering curve, const CurveFrame& frame);

/// Reverse Cuthill-McKee on the cell adjacency graph (pseudo-peripheral start per component).
std::vector<index_t> rcm_permutation(const HostMesh& host);

/// Seeded shuffle that mimics a legacy numbering with no locality.
std::vector<index_t> random_permutation(index_t n, std::uint64_t seed);

/// Applies a new -> old cell permutation.
HostMesh permute_cells(const HostMesh& m, const std::vector<index_t>& new_to_old);

/// True when `p` is a permutation of 0..n-1.
bool is_permutation(const std::vector<index_t>& p, index_t n);

} // namespace fvproxy
