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

using detail::Reader;
namespace fs = std::filesystem;

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

#ifndef FVPROXY_COMPONENT_LIST
#define FVPROXY_COMPONENT_LIST 1, 2, 3, 4, 5, 8
#endif

const std::vector<int>& component_list() {
  static const std::vector<int> list{FVPROXY_COMPONENT_LIST};
  return list;
}

} // namespace fvproxy
