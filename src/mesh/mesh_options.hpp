#pragma once
// The case file's `mesh` section (docs/inputs.md#mesh): what to build, how to number it, how to
// divide it between ranks. Read by read_mesh_options; the case assembles the sections
// (solver/case_config.hpp).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace fvproxy {

enum class ElementKind { hex, tet, prism };
enum class Ordering { none, zorder, hilbert, rcm, random };
/// How the cells are divided between MPI ranks (mesh.partition).
enum class PartitionMethod { metis, hilbert, zorder, blocks, ptscotch };

const char* to_string(ElementKind e);
const char* to_string(Ordering o);
/// Every ordering, in the order reports list them.
const std::vector<Ordering>& all_orderings();
const char* to_string(PartitionMethod m);
/// Every partition method, in the order reports list them.
const std::vector<PartitionMethod>& all_partition_methods();

struct BoxConfig {
  std::array<int, 3> cells{0, 0, 0};
  ElementKind element = ElementKind::hex;
  std::array<double, 3> lengths{1.0, 1.0, 1.0};
  std::array<double, 3> origin{0.0, 0.0, 0.0};
  double perturb = 0.0; ///< node jitter, fraction of local spacing
  std::array<bool, 3> periodic{false, false, false};
  std::uint64_t seed = 1;
};

/// The cells per hex of a generated box (1 hex, 2 prisms, 6 tets): cell g lies in hex g / per.
inline int box_cells_per_hex(const BoxConfig& b) {
  return b.element == ElementKind::tet ? 6 : b.element == ElementKind::prism ? 2 : 1;
}

struct MeshConfig {
  std::optional<BoxConfig> generate; ///< exactly one of generate | file
  std::string file;                  ///< resolved path (relative to the case file's folder)
  std::string file_as_written;       ///< as written in the case file
  Ordering reorder = Ordering::zorder;
  std::uint64_t reorder_seed = 1;
  /// Ignored on one rank. Unset in the case: ptscotch for a generated box (built in parts), metis
  /// for a mesh file (read_mesh_options).
  PartitionMethod partition = PartitionMethod::metis;
  std::string partition_where; ///< where mesh.partition was given (for errors about the method)
};

namespace detail {
class Reader;
}

/// The `mesh` section of the case root (required), validated; names the key on an error.
MeshConfig read_mesh_options(const detail::Reader& r, const YAML::Node& root);
/// The section as resolved (defaults filled in), for the output files and summary.json.
YAML::Node mesh_options_yaml(const MeshConfig& m);

} // namespace fvproxy
