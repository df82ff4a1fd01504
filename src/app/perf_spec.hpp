#pragma once
// fvproxy perf's spec (perf/README.md): the benchmark matrix's case, meshes, orderings, component
// counts, operators, numerical fluxes and variants, read and checked before anything runs.
#include <filesystem>
#include <string>
#include <vector>

#include "physics/euler_model.hpp"
#include "solver/case_config.hpp"

namespace fvproxy {

/// One entry of `variants`: the operators' options a row is timed with (given, the case's, or a
/// ladder step's).
struct VariantSpec {
  std::string name;
  OperatorOptions options;
  bool case_options = false; ///< `defaults: true`: every operator as the case resolves it (mixed options)
  bool fused = false;        ///< muscl: gradient and limiter in one kernel (operators.muscl.fused; with defaults too)
  bool fused_given = false;  ///< `fused` was in the spec: with defaults it overrides the case's (default) choice
  int ladder = -1;           ///< `ladder: k`: step k of the ablation ladder (operators/ladder/ladder.hpp)
  /// `step: separate | fused` (operators.step): the face fluxes in one pass; with defaults too
  StepPasses step = StepPasses::separate;
  bool step_given = false;
  /// `scatter` with `defaults: true`: the face operators' (convection, diffusion) accumulation over
  /// the case's; without defaults every operator's, the gradients gathering where it is `stored`
  bool scatter_given = false;
};

/// One entry of `meshes`: a generated box (`{element, cells}`, the case's generate section with
/// this element and size) or a Gmsh file (`{file: PATH}`, relative to the spec's folder; the case's
/// boundary section names its patches), read in the file's own numbering.
struct MeshEntry {
  ElementKind element = ElementKind::hex;
  int cells = 0;                     ///< cells per side of a generated box; 0 for a file
  std::string file, file_as_written; ///< the resolved path and the spec's text, for a file
  /// The results' `element` column: the element kind, or the file's name without its extension.
  std::string name() const { return file.empty() ? to_string(element) : std::filesystem::path(file).stem().string(); }
  /// "tet 24^3" or the path as written (messages).
  std::string label() const {
    return file.empty() ? std::string(to_string(element)) + " " + std::to_string(cells) + "^3" : file_as_written;
  }
  /// The case's mesh section with this mesh in the file's or the generator's order.
  MeshConfig apply(MeshConfig m) const {
    if (file.empty()) {
      m.generate->element = element;
      m.generate->cells = {cells, cells, cells};
    } else {
      m.generate.reset();
      m.file = file, m.file_as_written = file_as_written;
    }
    m.reorder = Ordering::none;
    return m;
  }
};

struct PerfSpec {
  CaseConfig base; ///< physics, initial state, operator options (the spec's `case`)
  std::vector<MeshEntry> meshes;
  std::vector<Ordering> orderings;
  std::vector<int> components;
  std::vector<std::string> operators;
  std::vector<flow::FluxType> fluxes{flow::FluxType::hllc}; ///< the flow convection's numerical fluxes
  std::vector<VariantSpec> variants;
  int repeat = 10;
  double l2_bytes = 60e6;
  double copy_bytes = 512e6;
};

/// Reads SPEC.yaml and the case it names. InputError, located in the file, for a missing or
/// unknown key, a bad value, a mesh file or case that is not there, or a combination the
/// harness cannot time (flow operators without 5 components, ladder variants with other counts or
/// with `step`).
PerfSpec parse_perf_spec(const std::string& path);

} // namespace fvproxy
