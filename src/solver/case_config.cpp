// A case: the sections of each layer read in the order their checks depend on, and written back
// resolved (docs/inputs.md).
#include "solver/case_config.hpp"

#include <algorithm>
#include <cctype>

#include "core/config_reader.hpp"
#include "core/error.hpp"
#include "solver/scalar_solver.hpp"

namespace fvproxy {

using detail::join_list;
using detail::Reader;

namespace {

const std::vector<std::string> kTopLevel{"case",     "mesh", "physics", "initial",    "boundary", "operators",
                                         "parallel", "time", "output",  "checkpoint", "run"};

/// parallel.halo.layers when the case does not say (docs/halo.md#two-ghost-layers): 2 wherever one
/// layer would exchange twice per stage (the gradients and limiter values after the state), so that
/// a stage has one exchange: the flow models (whose gradients are 4-6x the state's bytes) and a
/// scalar case that reconstructs (second-order convection or diffusion; on two H200s its step is 45 %
/// shorter at 0.2M tets, 11 % at 1.1M, 2 % longer at 16.9M: perf/results/2026-11-29-h200x2-fixed-cost);
/// 1 where the state is all a stage exchanges (first-order convection alone).
int default_halo_layers(const CaseConfig& c) {
  return c.physics.is_flow() || ScalarSolver::reads_gradients(c) || c.operators.muscl.stencil != Stencil::face ? 2 : 1;
}

/// operators.muscl.stencil when the case does not give it (docs/operators/muscl.md#stencil): corners
/// for the flow models (face with Green-Gauss, which sums over faces, or one ghost layer, which the
/// extra entries cannot use), face for the scalar model (no mirror patches). Where no two mirror
/// patches meet, corners has no entries and runs the face stencil's kernels.
void default_stencil(const YAML::Node& root, CaseConfig& c) {
  const YAML::Node ops = root["operators"];
  if (ops && ops["muscl"] && ops["muscl"]["stencil"]) return;
  if (c.physics.is_flow() && c.operators.muscl.gradient == Gradient::least_squares && c.parallel.halo.layers == 2)
    c.operators.muscl.stencil = Stencil::corners;
}

/// The vertex (and corners) stencil's ghost layers (docs/operators/muscl.md#stencil): every vertex
/// neighbour, two layers (its first layer's gradients computed here: one layer would need every
/// vertex neighbour's gradients exchanged, and its mirror planes at the first layer's nodes the
/// second layer's faces); the corners stencil's at the cells where its mirror patches (the walls and
/// symmetry planes of the boundary section) meet only.
void set_vertex_layers(const Reader& r, const YAML::Node& root, CaseConfig& c) {
  if (c.operators.muscl.stencil == Stencil::face) return;
  if (c.operators.muscl.stencil == Stencil::corners && !c.physics.is_flow()) {
    const YAML::Node s = root["operators"]["muscl"]["stencil"];
    r.fail(s, "operators.muscl.stencil",
           "stencil: corners extends the stencil where two walls or symmetry planes meet; the scalar model has none",
           "use stencil: face (or vertex)");
  }
  c.parallel.halo.adjacency.vertex = true;
  c.parallel.halo.adjacency.corners = c.operators.muscl.stencil == Stencil::corners;
  if (c.parallel.halo.adjacency.corners)
    for (std::size_t k = 0; k < c.flow_boundary.size(); ++k)
      if (is_mirror(c.flow_boundary[k].kind)) c.parallel.halo.adjacency.corner_patches.push_back(c.boundary[k].first);
  if (c.parallel.halo.layers != 2) {
    const YAML::Node p = root["parallel"];
    r.fail(p && p["halo"] && p["halo"]["layers"] ? p["halo"]["layers"] : root["parallel"], "parallel.halo.layers",
           std::string("operators.muscl.stencil: ") + to_string(c.operators.muscl.stencil) +
               " needs two ghost layers, not " + std::to_string(c.parallel.halo.layers),
           "(its ghost layers hold every vertex neighbour; docs/operators/muscl.md#stencil)");
  }
}

/// Forward Euler with unlimited second-order convection amplifies every mode: refused.
void check_euler_stability(const Reader& r, const YAML::Node& root, const CaseConfig& c) {
  if (c.time.integrator == Integrator::euler && c.operators.convection.order == 2 &&
      c.operators.muscl.limiter == Limiter::none) {
    const YAML::Node n = root["time"]["integrator"] ? root["time"]["integrator"] : root["time"];
    r.fail(n, "time.integrator",
           "forward Euler with unlimited second-order convection is unstable (its amplification factor exceeds 1 for "
           "every dt)",
           "use integrator: ssprk2 or ssprk3, a limiter (operators.muscl.limiter), or operators.convection.order: 1");
  }
}

} // namespace

CaseConfig parse_case_mesh(const ConfigSource& src) {
  Reader r(src);
  const YAML::Node& root = src.root();
  r.check_keys(root, "", kTopLevel);
  CaseConfig c;
  c.source_file = src.file();
  c.name = src.stem();
  if (root["case"]) c.name = r.string_value(root["case"], "case");
  if (c.name.empty()) r.fail(root["case"], "case", "empty case name");
  for (char ch : c.name)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.'))
      r.fail(root["case"], "case", "invalid case name '" + c.name + "'",
             "(it names output files: use letters, digits, '_', '-' and '.')");
  // The longest file name it makes is <case>.integrals.xdmf-like: keep well below NAME_MAX (255).
  if (c.name.size() > kMaxCaseName)
    r.fail(root["case"], "case",
           "case name of " + std::to_string(c.name.size()) + " characters is too long for the output files' names",
           "(at most " + std::to_string(kMaxCaseName) + " characters)");
  c.mesh = read_mesh_options(r, root);
  return c;
}

CaseConfig parse_case(const ConfigSource& src) {
  CaseConfig c = parse_case_mesh(src);
  Reader r(src);
  const YAML::Node& root = src.root();
  c.has_solver = true;
  // run first: deterministic changes what the operator options may say.
  c.run = read_run_options(r, root);
  c.physics = read_physics_options(r, root);
  if (c.physics.is_flow()) {
    const YAML::Node b = root["run"] ? root["run"]["bound_tolerance"] : YAML::Node(YAML::NodeType::Undefined);
    if (b)
      r.fail(b, "run.bound_tolerance", "an option of the scalar model (its max-principle monitor)",
             "the flow models stop on a negative density or pressure instead");
    c.run.bound_tolerance.reset();
  }
  read_initial_options(r, root, bool(c.mesh.generate), c);
  read_boundary_options(r, root, c);
  c.operators = read_operator_options(r, root, c.run.deterministic, c.physics.model);
  c.parallel = read_parallel_options(r, root, default_halo_layers(c));
  default_stencil(root, c);
  set_vertex_layers(r, root, c);
  c.time = read_time_options(r, root, c.physics.is_flow());
  check_euler_stability(r, root, c);
  c.output_dir = "out/" + c.name;
  read_output_options(r, root, c.physics, c.output_dir, c.output);
  c.checkpoint = read_checkpoint_options(r, root);
  return c;
}

YAML::Node CaseConfig::resolved() const {
  YAML::Node n;
  n["case"] = name;
  n["mesh"] = mesh_options_yaml(mesh);
  if (!has_solver) return n;
  add_model_options_yaml(*this, n);
  n["operators"] = operator_options_yaml(operators, physics.is_flow());
  n["parallel"] = parallel_options_yaml(parallel);
  add_run_options_yaml(time, output_dir, output, checkpoint, run, physics.is_flow(), n);
  return n;
}

void check_boundaries(const CaseConfig& c, const std::vector<std::string>& mesh_patches) {
  for (const auto& [name, bc] : c.boundary)
    if (std::find(mesh_patches.begin(), mesh_patches.end(), name) == mesh_patches.end()) {
      const std::string best = closest_key(name, mesh_patches);
      throw InputError(bc.where,
                       "boundary." + name + ": the mesh has no patch '" + name + "'" +
                           (best.empty() ? "" : "; did you mean '" + best + "'?"),
                       "the mesh's patches: " +
                           (mesh_patches.empty() ? std::string("none (fully periodic)") : join_list(mesh_patches)));
    }
  std::vector<std::string> missing;
  for (const auto& p : mesh_patches)
    if (std::none_of(c.boundary.begin(), c.boundary.end(), [&](const auto& e) { return e.first == p; }))
      missing.push_back(p);
  if (!missing.empty())
    throw InputError(
        c.boundary_where.empty() ? c.source_file : c.boundary_where,
        "boundary: no condition for patch" + std::string(missing.size() > 1 ? "es " : " ") + join_list(missing),
        c.physics.is_flow() ? "every non-periodic patch must be named in the boundary section (slip-wall | "
                              "symmetry | no-slip-wall | supersonic-inflow | supersonic-outflow | farfield | "
                              "subsonic-inflow | subsonic-outflow | velocity-inlet | mass-flow-inlet)"
                            : "every non-periodic patch must be named in the boundary section (dirichlet | "
                              "outflow | inflow)");
}

BoundaryOnMesh resolve_boundary(const CaseConfig& c, const std::vector<std::string>& mesh_patches) {
  check_boundaries(c, mesh_patches);
  if (c.physics.is_flow() && c.flow_boundary.size() != c.boundary.size())
    throw std::logic_error("resolve_boundary: the flow conditions do not match the boundary section's entries");
  BoundaryOnMesh r;
  for (const std::string& p : mesh_patches) {
    const auto it = std::find_if(c.boundary.begin(), c.boundary.end(), [&](const auto& e) { return e.first == p; });
    r.entry.push_back(static_cast<std::size_t>(it - c.boundary.begin())); // found: check_boundaries
  }
  return r;
}

} // namespace fvproxy
