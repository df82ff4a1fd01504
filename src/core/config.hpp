#pragma once
// The case file (YAML) as typed, validated structs. INTERFACE.md is the contract; every key is
// documented in docs/inputs.md. Errors name the file:line (or the `--set` that gave the value)
// and the key path, and suggest the closest valid key for unknown ones.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace fvproxy {

enum class ElementKind { hex, tet, prism };
enum class Ordering { none, zorder, hilbert, rcm, random };

const char* to_string(ElementKind e);
const char* to_string(Ordering o);
/// Every ordering, in the order reports list them.
const std::vector<Ordering>& all_orderings();

struct BoxConfig {
  std::array<int, 3> cells{0, 0, 0};
  ElementKind element = ElementKind::hex;
  std::array<double, 3> lengths{1.0, 1.0, 1.0};
  std::array<double, 3> origin{0.0, 0.0, 0.0};
  double perturb = 0.0; ///< node jitter, fraction of local spacing
  std::array<bool, 3> periodic{false, false, false};
  std::uint64_t seed = 1;
};

struct MeshConfig {
  std::optional<BoxConfig> generate; ///< exactly one of generate | file
  std::string file;                  ///< resolved path (relative to the case file's folder)
  std::string file_as_written;       ///< as written in the case file
  Ordering reorder = Ordering::zorder;
  std::uint64_t reorder_seed = 1;
};

/// The parsed YAML tree of one case plus where each part came from (file or --set).
class ConfigSource {
public:
  /// Reads `path` (InputError naming file:line on a YAML syntax error or unreadable file).
  static ConfigSource from_file(const std::string& path);
  /// Parses YAML text given inline; `name` stands in for the file name in messages.
  static ConfigSource from_string(const std::string& text, const std::string& name);

  /// Applies `KEY=VALUE` (VALUE parsed as YAML). InputError on a malformed assignment.
  void apply_set(const std::string& assignment);

  const YAML::Node& root() const { return root_; }
  const std::string& file() const { return file_; }
  /// Folder relative paths in the case are resolved against.
  const std::string& base_dir() const { return base_dir_; }
  /// File stem of the case file (the default case name).
  const std::string& stem() const { return stem_; }
  /// "case.yaml:12:5" for a node read from the file, "--set a.b=V" for one given on the CLI.
  std::string locate(const YAML::Node& node, const std::string& key_path) const;

private:
  std::string file_, base_dir_, stem_;
  YAML::Node root_;
  std::vector<std::pair<std::string, std::string>> sets_; // key path, original assignment
};

/// The validated configuration. Sections later issues read are added here as they land.
struct CaseConfig {
  std::string name;
  std::string source_file;
  MeshConfig mesh;

  /// The resolved configuration of the validated sections (defaults filled in) as YAML.
  YAML::Node resolved() const;
};

/// Validates `case` and `mesh` (what `fvproxy mesh` reads) and the top-level key names.
CaseConfig parse_case_mesh(const ConfigSource& src);

/// Levenshtein distance (for "did you mean" suggestions).
std::size_t edit_distance(const std::string& a, const std::string& b);
/// The candidate closest to `key`, or "" when none is reasonably close.
std::string closest_key(const std::string& key, const std::vector<std::string>& candidates);

} // namespace fvproxy
