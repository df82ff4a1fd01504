#pragma once
// The generic case-file reader: a case's YAML tree and where each part of it came from (the file's
// line and column, or the `--set` that gave it), and the "did you mean" suggestions. Each layer
// owns its section's structs and reader (mesh/mesh_options.hpp, physics/physics_options.hpp,
// operators/operator_options.hpp, parallel/parallel_options.hpp, solver/run_options.hpp, all
// through core/config_reader.hpp); solver/case_config.hpp assembles them into a case.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace fvproxy {

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

/// The longest case name (`case`, or the case file's stem): it names the output files.
inline constexpr std::size_t kMaxCaseName = 200;
/// The largest case file read (a YAML case is a few kB; anything this large is not one).
inline constexpr std::uintmax_t kMaxCaseFileBytes = std::uintmax_t(16) << 20;

/// The component counts this build instantiates (CMake FVPROXY_COMPONENTS).
const std::vector<int>& component_list();

/// Levenshtein distance (for "did you mean" suggestions).
std::size_t edit_distance(const std::string& a, const std::string& b);
/// The candidate closest to `key`, or "" when none is reasonably close.
std::string closest_key(const std::string& key, const std::vector<std::string>& candidates);

} // namespace fvproxy
