#include "app/perf_spec.hpp"

#include <algorithm>

#include "core/config_reader.hpp"
#include "operators/ladder/ladder.hpp"

namespace fvproxy {

namespace {

namespace fs = std::filesystem;

// parse_perf_spec's state: the spec file, its reader (located errors) and the spec read so far.
struct SpecParser {
  explicit SpecParser(const std::string& path) : src(ConfigSource::from_file(path)), r(src), root(src.root()) {}

  const ConfigSource src;
  detail::Reader r;
  const YAML::Node& root;
  PerfSpec s;

  PerfSpec parse();
  YAML::Node list(const char* key) const;
  void base_case();
  void meshes();
  MeshEntry mesh_entry(const YAML::Node& meshes, std::size_t i) const;
  MeshEntry file_entry(const YAML::Node& meshes, std::size_t i, const std::string& p) const;
  MeshEntry box_entry(const YAML::Node& meshes, std::size_t i, const std::string& p) const;
  void orderings();
  YAML::Node components();
  YAML::Node operators();
  void fluxes();
  void variants();
  VariantSpec variant(const YAML::Node& vars, std::size_t i) const;
  void fused(const YAML::Node& vars, std::size_t i, const std::string& p, VariantSpec& v) const;
  void case_defaults(const YAML::Node& vars, std::size_t i, const std::string& p, VariantSpec& v) const;
  void ladder(const YAML::Node& vars, std::size_t i, const std::string& p, VariantSpec& v) const;
  void check_ladder(const YAML::Node& comp, const YAML::Node& ops) const;
  void scalars();
};

PerfSpec SpecParser::parse() {
  r.check_keys(root, "",
               {"case", "meshes", "orderings", "components", "operators", "fluxes", "variants", "repeat", "l2_bytes",
                "copy_bytes"});
  for (const char* k : {"case", "meshes", "orderings", "components", "operators", "variants"})
    if (!root[k]) r.fail(root, k, "required key missing");
  base_case();
  meshes();
  orderings();
  const YAML::Node comp = components();
  const YAML::Node ops = operators();
  fluxes();
  variants();
  check_ladder(comp, ops);
  scalars();
  return s;
}

YAML::Node SpecParser::list(const char* key) const {
  const YAML::Node n = root[key];
  if (!n.IsSequence() || n.size() == 0) r.fail(n, key, "expected a non-empty list", "got " + r.describe(n));
  return n;
}

void SpecParser::base_case() {
  const std::string case_path = (fs::path(src.base_dir()) / r.string_value(root["case"], "case")).string();
  if (!fs::exists(case_path)) r.fail(root["case"], "case", "case file '" + case_path + "' not found");
  s.base = parse_case(ConfigSource::from_file(case_path));
}

void SpecParser::meshes() {
  const YAML::Node meshes = list("meshes");
  for (std::size_t i = 0; i < meshes.size(); ++i) s.meshes.push_back(mesh_entry(meshes, i));
}

MeshEntry SpecParser::mesh_entry(const YAML::Node& meshes, std::size_t i) const {
  const std::string p = "meshes[" + std::to_string(i) + "]";
  r.check_keys(meshes[i], p, {"element", "cells", "file"});
  return meshes[i]["file"] ? file_entry(meshes, i, p) : box_entry(meshes, i, p);
}

MeshEntry SpecParser::file_entry(const YAML::Node& meshes, std::size_t i, const std::string& p) const {
  MeshEntry e;
  for (const char* k : {"element", "cells"})
    if (meshes[i][k])
      r.fail(meshes[i][k], p + "." + k, "a mesh file brings its own elements and cells",
             "give either {file: PATH} or {element: E, cells: N}");
  e.file_as_written = r.string_value(meshes[i]["file"], p + ".file");
  if (e.file_as_written.empty()) r.fail(meshes[i]["file"], p + ".file", "empty path");
  const fs::path f(e.file_as_written);
  e.file = f.is_absolute() ? f.string() : (fs::path(src.base_dir()) / f).lexically_normal().string();
  if (!fs::is_regular_file(e.file))
    r.fail(meshes[i]["file"], p + ".file", "mesh file '" + e.file_as_written + "' not found",
           "(resolved relative to the spec's folder: " + e.file + ")");
  return e;
}

MeshEntry SpecParser::box_entry(const YAML::Node& meshes, std::size_t i, const std::string& p) const {
  MeshEntry e;
  for (const char* k : {"element", "cells"})
    if (!meshes[i][k]) r.fail(meshes[i], p + "." + k, "required key missing", "or give {file: PATH}");
  if (!s.base.mesh.generate)
    r.fail(meshes[i], p, "a generated box needs a case that generates its mesh (mesh.generate)",
           "the case reads '" + s.base.mesh.file_as_written + "'; give {file: PATH} entries, or a generating case");
  e.element = r.enum_value(meshes[i]["element"], p + ".element",
                           std::vector<ElementKind>{ElementKind::hex, ElementKind::tet, ElementKind::prism});
  const long long n = r.int_value(meshes[i]["cells"], p + ".cells");
  if (n < 3 || n > 1024) r.fail(meshes[i]["cells"], p + ".cells", "cells per side: 3 to 1024");
  e.cells = static_cast<int>(n);
  return e;
}

void SpecParser::orderings() {
  const YAML::Node ord = list("orderings");
  for (std::size_t i = 0; i < ord.size(); ++i)
    s.orderings.push_back(r.enum_value(ord[i], "orderings[" + std::to_string(i) + "]", all_orderings()));
}

/// Returns the list's node (check_ladder locates its errors in it).
YAML::Node SpecParser::components() {
  const YAML::Node comp = list("components");
  for (std::size_t i = 0; i < comp.size(); ++i) {
    const long long c = r.int_value(comp[i], "components[" + std::to_string(i) + "]");
    const auto& ok = component_list();
    if (std::find(ok.begin(), ok.end(), c) == ok.end())
      r.fail(comp[i], "components[" + std::to_string(i) + "]", "not among this build's component counts");
    s.components.push_back(static_cast<int>(c));
  }
  return comp;
}

/// Returns the list's node (check_ladder locates its errors in it).
YAML::Node SpecParser::operators() {
  const YAML::Node ops = list("operators");
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const std::string o = r.string_value(ops[i], "operators[" + std::to_string(i) + "]");
    if (o != "muscl" && o != "convection" && o != "diffusion" && o != "step" && o != "flow-convection" &&
        o != "flow-viscous" && o != "flow-euler-step" && o != "flow-ns-step")
      r.fail(ops[i], "operators[" + std::to_string(i) + "]", "unknown operator '" + o + "'",
             "valid: muscl, convection, diffusion, step, flow-convection, flow-viscous, flow-euler-step, flow-ns-step");
    if (o.rfind("flow-", 0) == 0 && std::find(s.components.begin(), s.components.end(), 5) == s.components.end())
      r.fail(ops[i], "operators[" + std::to_string(i) + "]",
             "the compressible model's operators (" + o + ") carry 5 variables", "list 5 among the components");
    s.operators.push_back(o);
  }
  return ops;
}

void SpecParser::fluxes() {
  if (root["fluxes"]) {
    const YAML::Node fl = list("fluxes");
    s.fluxes.clear();
    for (std::size_t i = 0; i < fl.size(); ++i)
      s.fluxes.push_back(r.enum_value(
          fl[i], "fluxes[" + std::to_string(i) + "]",
          std::vector<flow::FluxType>{flow::FluxType::rusanov, flow::FluxType::hllc, flow::FluxType::roe}));
  }
}

void SpecParser::variants() {
  const YAML::Node vars = list("variants");
  for (std::size_t i = 0; i < vars.size(); ++i) s.variants.push_back(variant(vars, i));
}

VariantSpec SpecParser::variant(const YAML::Node& vars, std::size_t i) const {
  const std::string p = "variants[" + std::to_string(i) + "]";
  r.check_keys(vars[i], p,
               {"name", "variant", "scatter", "policy", "team_size", "fused", "step", "defaults", "ladder"});
  if (!vars[i]["name"]) r.fail(vars[i], p + ".name", "required key missing");
  VariantSpec v;
  v.name = r.string_value(vars[i]["name"], p + ".name");
  if (vars[i]["variant"])
    v.options.variant =
        r.enum_value(vars[i]["variant"], p + ".variant", std::vector<Variant>{Variant::naive, Variant::optimized});
  v.scatter_given = bool(vars[i]["scatter"]);
  if (vars[i]["scatter"])
    v.options.scatter = r.enum_value(vars[i]["scatter"], p + ".scatter",
                                     std::vector<Scatter>{Scatter::atomic, Scatter::gather, Scatter::stored});
  if (vars[i]["policy"])
    v.options.policy = r.enum_value(vars[i]["policy"], p + ".policy", std::vector<Policy>{Policy::range, Policy::team});
  if (vars[i]["team_size"]) v.options.team_size = static_cast<int>(r.int_value(vars[i]["team_size"], p + ".team_size"));
  fused(vars, i, p, v);
  if (vars[i]["step"]) {
    v.step =
        r.enum_value(vars[i]["step"], p + ".step", std::vector<StepPasses>{StepPasses::separate, StepPasses::fused});
    v.step_given = true;
    if (v.step == StepPasses::fused && v.options.variant == Variant::naive)
      r.fail(vars[i]["step"], p + ".step", "step: fused is an option of the optimized variant",
             "remove 'variant: naive' (the face pass fuses the optimized kernels)");
  }
  case_defaults(vars, i, p, v);
  ladder(vars, i, p, v);
  return v;
}

void SpecParser::fused(const YAML::Node& vars, std::size_t i, const std::string& p, VariantSpec& v) const {
  if (vars[i]["fused"]) {
    v.fused = r.bool_value(vars[i]["fused"], p + ".fused");
    v.fused_given = true;
    if (v.fused && (v.options.variant == Variant::naive || v.options.scatter == Scatter::atomic))
      r.fail(vars[i]["fused"], p + ".fused", "fused: true is an option of the optimized variant's gather",
             "use variant: optimized and scatter: gather (the defaults) with it");
  }
}

void SpecParser::case_defaults(const YAML::Node& vars, std::size_t i, const std::string& p, VariantSpec& v) const {
  if (vars[i]["defaults"]) {
    v.case_options = r.bool_value(vars[i]["defaults"], p + ".defaults");
    for (const char* k : {"variant", "policy", "team_size"}) // scatter: the face operators' over the case's
      if (v.case_options && vars[i][k])
        r.fail(vars[i][k], p + "." + k, "'defaults: true' takes the case's options; remove this key");
  }
}

void SpecParser::ladder(const YAML::Node& vars, std::size_t i, const std::string& p, VariantSpec& v) const {
  if (vars[i]["ladder"]) { // the ablation ladder: the step decides every option
    const long long k = r.int_value(vars[i]["ladder"], p + ".ladder");
    if (k < 0 || k >= kLadderSteps)
      r.fail(vars[i]["ladder"], p + ".ladder", "ladder step " + std::to_string(k) + " out of range",
             "0 (naive) to " + std::to_string(kLadderSteps - 1) + " (precomputed)");
    v.ladder = static_cast<int>(k);
    for (const char* k2 : {"variant", "scatter", "policy", "team_size", "fused", "step", "defaults"})
      if (vars[i][k2]) r.fail(vars[i][k2], p + "." + k2, "a ladder step decides its options; remove this key");
  }
}

/// With ladder variants: the components and operators the ladder can time.
void SpecParser::check_ladder(const YAML::Node& comp, const YAML::Node& ops) const {
  if (std::any_of(s.variants.begin(), s.variants.end(), [](const VariantSpec& v) { return v.ladder >= 0; })) {
    for (std::size_t i = 0; i < s.components.size(); ++i)
      if (s.components[i] != 1 && s.components[i] != 5)
        r.fail(comp[i], "components[" + std::to_string(i) + "]",
               "the ablation ladder is built for 1 and 5 components only");
    for (std::size_t i = 0; i < s.operators.size(); ++i)
      if (s.operators[i] == "step")
        r.fail(ops[i], "operators[" + std::to_string(i) + "]", "ladder variants time the operators alone",
               "remove 'step' (or the ladder variants)");
  }
}

/// repeat, l2_bytes and copy_bytes, where given.
void SpecParser::scalars() {
  if (root["repeat"]) {
    s.repeat = static_cast<int>(r.int_value(root["repeat"], "repeat"));
    if (s.repeat < 1) r.fail(root["repeat"], "repeat", "must be >= 1");
  }
  if (root["l2_bytes"]) s.l2_bytes = r.positive(root["l2_bytes"], "l2_bytes");
  if (root["copy_bytes"]) s.copy_bytes = r.positive(root["copy_bytes"], "copy_bytes");
}

} // namespace

PerfSpec parse_perf_spec(const std::string& path) {
  return SpecParser(path).parse();
}

} // namespace fvproxy
