#pragma once
// Command-line parsing shared by the fvproxy subcommands (grammar: docs/running.md#commands).
#include <optional>
#include <string>
#include <vector>

namespace fvproxy {

/// The most runs `fvproxy bench --repeat` may time per row: each run's time is kept for the median.
constexpr int kMaxRepeat = 1000000;

struct CliArgs {
  std::string command; ///< info | mesh | run | bench
  std::vector<std::string> positional;
  std::vector<std::string> sets; ///< --set KEY=VALUE, in order
  bool json = false, compare_orderings = false, compare_partitions = false, print_config = false, help = false;
  bool in_parts = false;               ///< mesh --in-parts
  std::string operators, variants;     ///< bench: comma-separated lists
  int repeat = 20;                     ///< bench
  std::string output_dir, restart;     ///< run
  std::string write;                   ///< mesh --write FILE.h5
  int partition = 0;                   ///< mesh --partition N (0: none)
  double rtol = 1e-10, atol = 0;       ///< compare
  std::string fields;                  ///< compare: comma-separated
  std::optional<double> time;          ///< compare --time
  bool quiet = false, profile = false; ///< run
};

/// Parses argv (Kokkos' --kokkos-* arguments already removed). InputError on a usage error.
CliArgs parse_cli(const std::vector<std::string>& args);

/// The usage text.
std::string usage();

/// The entries of a comma-separated option value (--operators, --variants, --fields), empty entries
/// dropped.
std::vector<std::string> split_list(const std::string& list);

/// Splits argv into (fvproxy arguments, Kokkos arguments: argv[0] and every --kokkos-*).
void split_kokkos_args(int argc, char** argv, std::vector<std::string>& ours, std::vector<std::string>& kokkos);

/// Checks the --kokkos-* arguments (kokkos[0] is argv[0], kept) before they reach
/// Kokkos::initialize, which throws or aborts on a malformed value: InputError naming the argument
/// for a malformed value, a value out of range, or an option the linked Kokkos does not have.
/// Returns them in the spelling the linked Kokkos reads (--kokkos-threads / --kokkos-num-threads,
/// --kokkos-tools-library / --kokkos-tools-libs are synonyms here).
std::vector<std::string> check_kokkos_args(const std::vector<std::string>& kokkos);

} // namespace fvproxy
