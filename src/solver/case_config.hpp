#pragma once
// A case file (YAML) as typed, validated structs: the sections of each layer (mesh/mesh_options.hpp,
// physics/physics_options.hpp, operators/operator_options.hpp, parallel/parallel_options.hpp,
// solver/run_options.hpp) assembled. docs/inputs.md is the contract; every key is documented
// there. Errors name the file:line (or the `--set` that gave the value) and the key path, and
// suggest the closest valid key for unknown ones (core/config_reader.hpp).
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/config.hpp"
#include "mesh/mesh_options.hpp"
#include "operators/operator_options.hpp"
#include "parallel/parallel_options.hpp"
#include "physics/physics_options.hpp"
#include "solver/run_options.hpp"

namespace fvproxy {

/// The validated configuration. The model's sections (physics, initial, boundary) come from
/// ModelOptions.
struct CaseConfig : ModelOptions {
  std::string name;
  std::string source_file;
  MeshConfig mesh;
  // Solver sections: filled by parse_case (not by parse_case_mesh).
  OperatorsConfig operators;
  ParallelConfig parallel;
  TimeConfig time;
  std::string output_dir; ///< output.dir [out/<case>]
  OutputConfig output;
  CheckpointConfig checkpoint;
  RunConfig run;
  bool has_solver = false; ///< parse_case (not parse_case_mesh) filled the solver sections

  /// The resolved configuration of the validated sections (defaults filled in) as YAML.
  YAML::Node resolved() const;
};

/// Validates `case` and `mesh` (what `fvproxy mesh` reads) and the top-level key names.
CaseConfig parse_case_mesh(const ConfigSource& src);

/// Validates every section (what `fvproxy run` reads). Boundary patch names are checked against
/// the mesh later (check_boundaries), once it is built.
CaseConfig parse_case(const ConfigSource& src);

/// Every non-periodic patch of the mesh must have a boundary entry, and every entry a patch.
void check_boundaries(const CaseConfig& c, const std::vector<std::string>& mesh_patches);

/// The boundary section resolved on a mesh's patches (resolve_boundary): once per run, by
/// `fvproxy run` before anything is written or else by run_simulation; the solvers take it.
struct BoundaryOnMesh {
  /// entry[p]: the index in CaseConfig::boundary (and, for the flow models, flow_boundary) of the
  /// entry that names the mesh's patch p, in the mesh's patch order.
  std::vector<std::size_t> entry;
};

/// check_boundaries' refusals (an entry naming no patch, a patch without an entry: the entry's or
/// the section's line:col), then each patch's entry.
BoundaryOnMesh resolve_boundary(const CaseConfig& c, const std::vector<std::string>& mesh_patches);

} // namespace fvproxy
