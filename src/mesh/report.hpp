#pragma once
// What `fvproxy mesh` reports: counts, volumes, non-orthogonality and the locality of the cell
// numbering (docs/mesh.md explains what the locality metrics mean for coalescing).
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mesh/host_mesh.hpp"
#include "mesh/mesh.hpp"
#include "mesh/mesh_options.hpp"

namespace fvproxy {

struct Locality {
  double mean = 0, median = 0;
  index_t max = 0;
  index_t bandwidth = 0;     ///< sparse-matrix bandwidth max |i - j| of the cell adjacency
  double same_block_32 = 0;  ///< fraction of interior faces whose cells share a block of 32 (a warp)
  double same_block_128 = 0; ///< ... of 128 consecutive cells (a thread block)
};

/// Locality of the numbering in which cell c is numbered `new_of_old[c]` (identity when empty).
Locality locality(const HostMesh& m, const std::vector<index_t>& new_of_old = {});

struct MeshReport {
  index_t cells = 0, faces = 0, boundary_faces = 0, nodes = 0;
  std::map<std::string, index_t> elements;
  std::vector<std::pair<std::string, index_t>> patches; ///< name, faces
  double volume_min = 0, volume_max = 0, volume_total = 0;
  double nonorth_max = 0, nonorth_mean = 0; ///< degrees, over interior faces
  std::string ordering;
  Locality loc;
  std::vector<std::pair<std::string, Locality>> orderings; ///< with --compare-orderings
  std::size_t device_bytes = 0;
  double seconds_build = 0, seconds_reorder = 0;
};

MeshReport make_report(const HostMesh& host, const Mesh& mesh, Ordering ordering);

nlohmann::json to_json(const Locality& l);
nlohmann::json to_json(const MeshReport& r);
/// The human table.
std::string to_text(const MeshReport& r);

} // namespace fvproxy
