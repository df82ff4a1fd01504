#include "core/config.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include <yaml-cpp/anchor.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include "core/config_reader.hpp"
#include "core/error.hpp"

namespace fvproxy {

void add_solver_sections(const CaseConfig& c, YAML::Node& n); // case_config.cpp
using detail::Reader;
namespace fs = std::filesystem;

const char* to_string(ElementKind e) {
  switch (e) {
  case ElementKind::hex: return "hex";
  case ElementKind::tet: return "tet";
  case ElementKind::prism: return "prism";
  }
  return "?";
}

const char* to_string(Ordering o) {
  switch (o) {
  case Ordering::none: return "none";
  case Ordering::zorder: return "zorder";
  case Ordering::hilbert: return "hilbert";
  case Ordering::rcm: return "rcm";
  case Ordering::random: return "random";
  }
  return "?";
}

const std::vector<Ordering>& all_orderings() {
  static const std::vector<Ordering> all{Ordering::none, Ordering::zorder, Ordering::hilbert, Ordering::rcm,
                                         Ordering::random};
  return all;
}

const char* to_string(PartitionMethod m) {
  switch (m) {
  case PartitionMethod::metis: return "metis";
  case PartitionMethod::hilbert: return "hilbert";
  case PartitionMethod::zorder: return "zorder";
  case PartitionMethod::blocks: return "blocks";
  case PartitionMethod::ptscotch: return "ptscotch";
  }
  return "?";
}

const std::vector<PartitionMethod>& all_partition_methods() {
  static const std::vector<PartitionMethod> all{PartitionMethod::metis, PartitionMethod::hilbert,
                                                PartitionMethod::zorder, PartitionMethod::blocks,
                                                PartitionMethod::ptscotch};
  return all;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  // Optimal string alignment: insertions, deletions, substitutions and adjacent transpositions.
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

std::string closest_key(const std::string& key, const std::vector<std::string>& candidates) {
  // A candidate the key is a prefix of ("gen" for "generate") wins; otherwise the nearest by edit
  // distance, if within a third of the longer word.
  if (!key.empty())
    for (const auto& c : candidates)
      if (c.rfind(key, 0) == 0) return c;
  std::string best;
  std::size_t best_d = std::numeric_limits<std::size_t>::max();
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(key, c);
    if (d < best_d) best_d = d, best = c;
  }
  const std::size_t limit = std::max<std::size_t>(1, std::max(key.size(), best.size()) / 3);
  return best_d <= limit ? best : std::string{};
}

// ---------------------------------------------------------------------------------------------
// ConfigSource

namespace {
std::string mark_string(const std::string& file, const YAML::Mark& m) {
  if (m.is_null()) return file;
  return file + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

/// What yaml-cpp accepts silently is refused here, in one pass over the parser's events (no alias
/// expansion, so linear in the text): a key given twice in one mapping (YAML::Load keeps both
/// pairs and lookups see only the first), a key that is not a plain scalar (a list or mapping as
/// key), and a second document (YAML::Load reads the first only; a syntax error in the second
/// would go unseen too). `where(mark)` names a position, `prefix` is the key path of the text's
/// root ("" for a case file, the KEY of --set KEY=VALUE).
class StructureCheck final : public YAML::EventHandler {
public:
  using Where = std::function<std::string(const YAML::Mark&)>;
  StructureCheck(Where where, std::string prefix, bool set_value)
      : where_(std::move(where)), prefix_(std::move(prefix)), set_value_(set_value) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { leaf(m, nullptr); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t a) override {
    const auto it = anchored_scalars_.find(a);
    leaf(m, it == anchored_scalars_.end() ? nullptr : &it->second);
  }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t a, const std::string& value) override {
    if (a != YAML::NullAnchor) anchored_scalars_[a] = value;
    leaf(m, &value);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    open(m, false);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    open(m, true);
  }
  void OnMapEnd() override { close(); }

private:
  struct Frame {
    bool map = false;
    bool expect_key = true; ///< map: the next node is a key
    std::string path;       ///< key path of this collection
    std::size_t index = 0;  ///< sequence: the next item's index
    std::string key;        ///< map: the current key
    std::map<std::string, YAML::Mark> keys;
  };
  Where where_;
  std::string prefix_;
  bool set_value_;
  std::vector<Frame> stack_;
  std::map<YAML::anchor_t, std::string> anchored_scalars_;

  std::string path_of_next() const {
    if (stack_.empty()) return prefix_;
    const Frame& f = stack_.back();
    if (f.map) return f.path.empty() ? f.key : f.path + "." + f.key;
    return f.path + "[" + std::to_string(f.index) + "]";
  }
  /// A node ends: the enclosing collection moves on.
  void advance() {
    if (stack_.empty()) return;
    Frame& f = stack_.back();
    if (f.map)
      f.expect_key = !f.expect_key;
    else
      ++f.index;
  }
  bool at_key() const { return !stack_.empty() && stack_.back().map && stack_.back().expect_key; }
  void complex_key(const YAML::Mark& m) const {
    const std::string p = stack_.back().path;
    throw InputError(where_(m),
                     "a key of " + (p.empty() ? std::string("the top level") : "'" + p + "'") +
                         " is not a plain name (a list, mapping or empty key)",
                     "keys are names such as 'mesh' or 'cells'");
  }
  void leaf(const YAML::Mark& m, const std::string* scalar) {
    if (at_key()) {
      if (!scalar) complex_key(m);
      Frame& f = stack_.back();
      f.key = *scalar;
      const auto [it, fresh] = f.keys.emplace(*scalar, m);
      if (!fresh) {
        const std::string path = f.path.empty() ? *scalar : f.path + "." + *scalar;
        if (set_value_)
          throw InputError(where_(m),
                           "key '" + path + "' given twice in VALUE (columns " + std::to_string(it->second.column + 1) +
                               " and " + std::to_string(m.column + 1) + ")",
                           "YAML would silently keep only one of them: remove one");
        throw InputError(where_(m), "key '" + path + "' given twice: here and at " + where_(it->second),
                         "YAML would silently keep only one of them: remove one");
      }
    }
    advance();
  }
  void open(const YAML::Mark& m, bool map) {
    if (at_key()) complex_key(m);
    Frame f;
    f.map = map;
    f.path = path_of_next();
    stack_.push_back(std::move(f));
  }
  void close() {
    stack_.pop_back();
    advance();
  }
};

/// yaml-cpp's words for an error, with its nesting limit (reported as "bad file") said plainly.
std::string yaml_message(const YAML::ParserException& e) {
  if (dynamic_cast<const YAML::DeepRecursion*>(&e))
    return "lists or mappings nested deeper than the YAML reader allows (hundreds of levels: a damaged or "
           "generated file?)";
  return e.msg;
}

/// Runs StructureCheck over `text` and refuses a second document; YAML syntax errors become
/// InputErrors at their position (`syntax` prefixes their message).
void check_structure(const std::string& text, const StructureCheck::Where& where, const std::string& prefix,
                     bool set_value, const std::string& syntax) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  try {
    StructureCheck first(where, prefix, set_value);
    parser.HandleNextDocument(first);
    struct SecondDocument final : YAML::EventHandler {
      std::optional<YAML::Mark> start;
      void OnDocumentStart(const YAML::Mark& m) override {
        if (!start) start = m;
      }
      void OnDocumentEnd() override {}
      void OnNull(const YAML::Mark& m, YAML::anchor_t) override { note(m); }
      void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { note(m); }
      void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string&) override { note(m); }
      void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                           YAML::EmitterStyle::value) override {
        note(m);
      }
      void OnSequenceEnd() override {}
      void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
        note(m);
      }
      void OnMapEnd() override {}
      void note(const YAML::Mark& m) {
        if (!start) start = m;
      }
    } second;
    if (parser.HandleNextDocument(second)) {
      const YAML::Mark m = second.start ? *second.start : YAML::Mark::null_mark();
      if (set_value)
        throw InputError(where(m), "VALUE holds a second YAML document ('---')", "give one value per --set");
      throw InputError(where(m), "a second YAML document in the case file ('---' starts one)",
                       "a case file is one document: remove the second, or merge it into the first");
    }
  } catch (const YAML::ParserException& e) {
    throw InputError(where(e.mark), syntax + yaml_message(e));
  }
}

std::vector<std::string> split_path(const std::string& key, const std::string& assignment) {
  std::vector<std::string> parts;
  std::stringstream ss(key);
  std::string p;
  while (std::getline(ss, p, '.')) {
    if (p.empty()) throw InputError("--set " + assignment, "empty component in key path '" + key + "'");
    parts.push_back(p);
  }
  if (parts.empty()) throw InputError("--set " + assignment, "missing key before '='");
  if (key.back() == '.') // getline drops a trailing empty component ("mesh." read as "mesh")
    throw InputError("--set " + assignment, "empty component in key path '" + key + "'");
  return parts;
}
} // namespace

ConfigSource ConfigSource::from_file(const std::string& path) {
  // Refused at once: a folder, a device or FIFO (/dev/zero read until memory runs out), or a file
  // far larger than any case file.
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!ec && fs::is_directory(st)) throw InputError(path, "is a folder, not a case file");
  if (!ec && fs::exists(st) && !fs::is_regular_file(st))
    throw InputError(path, "is not a regular file (a device, FIFO or socket): give a YAML case file");
  if (!ec && fs::is_regular_file(st) && fs::file_size(path, ec) > kMaxCaseFileBytes && !ec)
    throw InputError(path, "is " + std::to_string(fs::file_size(path)) + " bytes: not a case file",
                     "(case files are YAML text of at most " + std::to_string(kMaxCaseFileBytes >> 20) + " MiB)");
  std::ifstream in(path);
  if (!in) throw InputError(path, "cannot open the case file", "(does it exist and is it readable?)");
  std::stringstream text;
  text << in.rdbuf();
  ConfigSource s = from_string(text.str(), path);
  const fs::path p(path);
  s.base_dir_ = p.parent_path().empty() ? std::string(".") : p.parent_path().string();
  s.stem_ = p.stem().string();
  return s;
}

ConfigSource ConfigSource::from_string(const std::string& text, const std::string& name) {
  ConfigSource s;
  s.file_ = name;
  s.base_dir_ = ".";
  s.stem_ = fs::path(name).stem().string();
  if (const std::size_t nul = text.find('\0'); nul != std::string::npos) { // yaml-cpp misreports it
    const std::size_t line_start = text.rfind('\n', nul);
    const std::size_t line = static_cast<std::size_t>(std::count(text.begin(), text.begin() + nul, '\n')) + 1;
    const std::size_t col = nul - (line_start == std::string::npos ? 0 : line_start + 1) + 1;
    throw InputError(name + ":" + std::to_string(line) + ":" + std::to_string(col),
                     "a NUL byte: a case file is YAML text");
  }
  try {
    s.root_ = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw InputError(mark_string(name, e.mark), "YAML syntax error: " + yaml_message(e));
  }
  // after Load, so that a syntax error in the first document is reported as yaml-cpp words it
  check_structure(
      text, [&name](const YAML::Mark& m) { return mark_string(name, m); }, "", false, "YAML syntax error: ");
  if (s.root_.IsNull()) s.root_ = YAML::Node(YAML::NodeType::Map);
  if (!s.root_.IsMap())
    throw InputError(mark_string(name, s.root_.Mark()), "the case file must be a YAML mapping of sections",
                     "(found a " + std::string(s.root_.IsSequence() ? "list" : "scalar") + ")");
  return s;
}

void ConfigSource::apply_set(const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos)
    throw InputError("--set " + assignment, "expected KEY=VALUE (for example mesh.generate.cells=[32,32,32])");
  const std::string key = assignment.substr(0, eq);
  const std::string value = assignment.substr(eq + 1);
  const auto parts = split_path(key, assignment);
  YAML::Node v;
  try {
    v = YAML::Load(value);
  } catch (const YAML::ParserException& e) {
    throw InputError("--set " + assignment, "VALUE is not valid YAML: " + yaml_message(e));
  }
  check_structure(
      value, [&assignment](const YAML::Mark&) { return "--set " + assignment; }, key, true,
      "VALUE is not valid YAML: ");
  // Walk down, creating mappings as needed; a scalar in the way is replaced by a mapping.
  std::vector<YAML::Node> chain{root_};
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node next = chain.back()[parts[i]];
    if (!next.IsMap()) {
      chain.back()[parts[i]] = YAML::Node(YAML::NodeType::Map);
      next = chain.back()[parts[i]];
    }
    chain.push_back(next);
  }
  chain.back()[parts.back()] = v;
  sets_.emplace_back(key, assignment);
}

std::string ConfigSource::locate(const YAML::Node& node, const std::string& key_path) const {
  // The latest --set whose key is this path or a prefix of it gave the value.
  for (auto it = sets_.rbegin(); it != sets_.rend(); ++it) {
    const std::string& k = it->first;
    if (key_path == k || (key_path.size() > k.size() && key_path.compare(0, k.size(), k) == 0 &&
                          (key_path[k.size()] == '.' || key_path[k.size()] == '[')))
      return "--set " + it->second;
  }
  // A key that is absent (a default, such as the case name taken from the file stem) has no mark.
  const std::string in_file = node.IsDefined() ? mark_string(file_, node.Mark()) : file_;
  // A mapping that --set changed inside (or created: it has no mark): the file and the --sets.
  std::string with;
  for (const auto& [k, assignment] : sets_)
    if (!key_path.empty() && k.size() > key_path.size() && k.compare(0, key_path.size(), key_path) == 0 &&
        k[key_path.size()] == '.')
      with += (with.empty() ? " (with --set " : ", --set ") + assignment;
  return with.empty() ? in_file : in_file + with + ")";
}

// ---------------------------------------------------------------------------------------------
// Validation helpers

namespace {

const std::vector<std::string> kTopLevel{"case",     "mesh", "physics", "initial",    "boundary", "operators",
                                         "parallel", "time", "output",  "checkpoint", "run"};

BoxConfig parse_generate(const Reader& r, const YAML::Node& g, const std::string& path) {
  r.check_keys(g, path, {"shape", "cells", "element", "lengths", "origin", "perturb", "periodic", "seed"});
  BoxConfig b;
  if (g["shape"]) {
    const std::string shape = r.string_value(g["shape"], path + ".shape");
    if (shape != "box") r.fail(g["shape"], path + ".shape", "invalid value '" + shape + "'", "valid values: box");
  }
  const YAML::Node cells = g["cells"];
  if (!cells) r.fail(g, path + ".cells", "required key missing", "give the cell counts, e.g. cells: [16, 16, 16]");
  if (!cells.IsSequence() || cells.size() != 3)
    r.fail(cells, path + ".cells", "expected a list of 3 integers [nx, ny, nz]", "got " + Reader::describe(cells));
  for (std::size_t i = 0; i < 3; ++i) {
    const std::string p = path + ".cells[" + std::to_string(i) + "]";
    const long long v = r.int_value(cells[i], p);
    if (v < 1 || v > (1 << 20))
      r.fail(cells[i], p, "value " + std::to_string(v) + " out of range: must be 1 to 1048576");
    b.cells[i] = static_cast<int>(v);
  }
  if (g["element"])
    b.element = r.enum_value(g["element"], path + ".element",
                             std::vector<ElementKind>{ElementKind::hex, ElementKind::tet, ElementKind::prism});
  const double per_hex = b.element == ElementKind::tet ? 6.0 : b.element == ElementKind::prism ? 2.0 : 1.0;
  // Cell rows and node ids of the whole box are 32-bit (index_t); what one rank holds is checked
  // against the local limits with the rank count (app/memory_check.cpp).
  const double total = per_hex * double(b.cells[0]) * b.cells[1] * b.cells[2];
  const double nodes = double(b.cells[0] + 1) * (b.cells[1] + 1) * (b.cells[2] + 1);
  if (std::max(total, nodes) > double(std::numeric_limits<std::int32_t>::max()))
    r.fail(cells, path + ".cells", "too many cells for 32-bit local indices",
           "(" + std::to_string(static_cast<long long>(total)) + " cells, " +
               std::to_string(static_cast<long long>(nodes)) + " nodes; at most 2147483647 of each in the whole box)");
  if (g["lengths"]) {
    b.lengths = r.vec3(g["lengths"], path + ".lengths");
    for (std::size_t i = 0; i < 3; ++i)
      if (!(b.lengths[i] > 0)) r.fail(g["lengths"][i], path + ".lengths[" + std::to_string(i) + "]", "must be > 0");
  }
  if (g["origin"]) b.origin = r.vec3(g["origin"], path + ".origin");
  if (g["perturb"]) {
    b.perturb = r.real_value(g["perturb"], path + ".perturb");
    r.range(g["perturb"], path + ".perturb", b.perturb, 0.0, 0.3,
            "0 <= perturb <= 0.3 (fraction of the local spacing)");
  }
  if (g["periodic"]) {
    const YAML::Node p = g["periodic"];
    if (!p.IsSequence())
      r.fail(p, path + ".periodic", "expected a list of axes, a subset of [x, y, z]", "got " + Reader::describe(p));
    for (std::size_t i = 0; i < p.size(); ++i) {
      const std::string pp = path + ".periodic[" + std::to_string(i) + "]";
      const std::string axis = r.string_value(p[i], pp);
      const int a = axis == "x" ? 0 : axis == "y" ? 1 : axis == "z" ? 2 : -1;
      if (a < 0) r.fail(p[i], pp, "invalid axis '" + axis + "'", "valid axes: x, y, z");
      if (b.periodic[a]) r.fail(p[i], pp, "axis '" + axis + "' listed twice");
      b.periodic[a] = true;
      if (b.cells[a] < 3)
        r.fail(p[i], pp, "a periodic axis needs at least 3 cells",
               "(with 1 a cell is its own periodic neighbour, with 2 the faces of the two layers have the same "
               "nodes); " +
                   r.given_at(cells[a], path + ".cells[" + std::to_string(a) + "]", std::to_string(b.cells[a])));
    }
  }
  if (g["seed"]) {
    const long long s = r.int_value(g["seed"], path + ".seed");
    if (s < 0) r.fail(g["seed"], path + ".seed", "must be >= 0");
    b.seed = static_cast<std::uint64_t>(s);
  }
  return b;
}

MeshConfig parse_mesh(const Reader& r, const YAML::Node& root) {
  const YAML::Node m = root["mesh"];
  if (!m)
    r.fail(root, "mesh", "required section missing", "give mesh.generate (a box) or mesh.file (a Gmsh .msh file)");
  r.check_keys(m, "mesh", {"generate", "file", "reorder", "reorder_seed", "partition"});
  MeshConfig mc;
  const bool has_gen = bool(m["generate"]), has_file = bool(m["file"]);
  if (has_gen == has_file)
    r.fail(m, "mesh",
           has_gen ? "give exactly one of 'generate' and 'file', not both" : "one of 'generate' or 'file' is required");
  if (has_gen) {
    mc.generate = parse_generate(r, m["generate"], "mesh.generate");
  } else {
    mc.file_as_written = r.string_value(m["file"], "mesh.file");
    if (mc.file_as_written.empty()) r.fail(m["file"], "mesh.file", "empty path");
    const fs::path p(mc.file_as_written);
    mc.file = p.is_absolute() ? p.string() : (fs::path(r.src().base_dir()) / p).lexically_normal().string();
    if (fs::is_directory(mc.file))
      r.fail(m["file"], "mesh.file", "'" + mc.file_as_written + "' is a folder, not a mesh file",
             "(resolved relative to the case file's folder: " + mc.file + ")");
    if (!fs::is_regular_file(mc.file))
      r.fail(m["file"], "mesh.file", "mesh file '" + mc.file_as_written + "' not found",
             "(resolved relative to the case file's folder: " + mc.file + ")");
  }
  if (m["reorder"]) mc.reorder = r.enum_value(m["reorder"], "mesh.reorder", all_orderings());
  if (m["reorder_seed"]) {
    const long long s = r.int_value(m["reorder_seed"], "mesh.reorder_seed");
    if (s < 0) r.fail(m["reorder_seed"], "mesh.reorder_seed", "must be >= 0");
    mc.reorder_seed = static_cast<std::uint64_t>(s);
  }
  mc.partition_where = r.src().locate(m["partition"], "mesh.partition");
  if (m["partition"]) {
    mc.partition = r.enum_value(m["partition"], "mesh.partition", all_partition_methods());
    if (mc.partition == PartitionMethod::blocks && !mc.generate)
      r.fail(m["partition"], "mesh.partition",
             "'blocks' divides a generated box into px x py x pz boxes; this mesh is read from a file",
             "use metis, hilbert or zorder for a mesh read from a file");
  }
  return mc;
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
  c.mesh = parse_mesh(r, root);
  return c;
}

YAML::Node CaseConfig::resolved() const {
  YAML::Node n;
  n["case"] = name;
  YAML::Node m;
  if (mesh.generate) {
    const BoxConfig& b = *mesh.generate;
    YAML::Node g;
    g["shape"] = "box";
    g["cells"] = std::vector<int>(b.cells.begin(), b.cells.end());
    g["cells"].SetStyle(YAML::EmitterStyle::Flow);
    g["element"] = to_string(b.element);
    g["lengths"] = std::vector<double>(b.lengths.begin(), b.lengths.end());
    g["lengths"].SetStyle(YAML::EmitterStyle::Flow);
    g["origin"] = std::vector<double>(b.origin.begin(), b.origin.end());
    g["origin"].SetStyle(YAML::EmitterStyle::Flow);
    g["perturb"] = b.perturb;
    std::vector<std::string> per;
    for (int a = 0; a < 3; ++a)
      if (b.periodic[a]) per.emplace_back(std::string(1, char('x' + a)));
    g["periodic"] = per;
    g["periodic"].SetStyle(YAML::EmitterStyle::Flow);
    g["seed"] = b.seed;
    m["generate"] = g;
  } else {
    m["file"] = mesh.file;
  }
  m["reorder"] = to_string(mesh.reorder);
  m["reorder_seed"] = mesh.reorder_seed;
  m["partition"] = to_string(mesh.partition);
  n["mesh"] = m;
  if (has_solver) add_solver_sections(*this, n);
  return n;
}

} // namespace fvproxy
