#include "app/cli.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/kokkos_compat.hpp"

namespace fvproxy {

std::string usage() {
  return R"(usage:
  fvproxy info [--json]
      version, git revision, Kokkos version and backends, device, MPI and HDF5 versions
  fvproxy mesh CASE.yaml [--set KEY=VALUE]... [--json] [--compare-orderings] [--print-config] [--write FILE.h5]
                     [--partition N [--compare-partitions]] [--in-parts]
      build the case's mesh and print its report (counts, volumes, non-orthogonality, locality);
      --write saves it as HDF5 with an XDMF beside it (FILE.xdmf) for ParaView
  fvproxy run CASE.yaml [--set KEY=VALUE]... [--output-dir DIR] [--restart FILE.h5] [--quiet] [--profile]
      run the simulation: progress on stderr, at the end steps, time, wall time, cell-updates/s,
      error norms (where an exact solution exists), conservation; writes DIR/summary.json, mesh.h5,
      fields_<step>.h5 (output.every; always the final state), <case>.xdmf, checkpoints
  fvproxy compare A.h5 B.h5 [--rtol R] [--atol A] [--fields LIST] [--time T] [--json]
      compare two fields or checkpoint files (or output folders) cell by cell, matched by global id:
      max abs, max normwise-relative and L2 differences per field; exit 0 within tolerance, 1 not
  fvproxy bench CASE.yaml [--set KEY=VALUE]... [--operators LIST] [--variants LIST] [--repeat N] [--json]
      time each operator alone (muscl, convection, diffusion) per variant (naive, optimized):
      warmed up, fenced, median of N [20]; ms, GB/s (minimal-bytes model), speedup over naive
  fvproxy perf SPEC.yaml [--output-dir DIR]
      the benchmark matrix of perf/ (copy limit; meshes x orderings x components x operators x
      variants): results.csv and results.json in DIR [perf-out]; see perf/README.md
  fvproxy help

options:
  --set KEY=VALUE        override a case key; VALUE is YAML (--set mesh.generate.cells=[32,32,32])
  --json                 print one JSON object on stdout instead of the human table
  --compare-orderings    report the locality metrics of every cell ordering side by side
  --partition N          mesh: report the quality of mesh.partition's division into N parts (no mpirun
                         needed; under mpirun the ranks compute ptscotch together)
  --compare-partitions   mesh: with --partition N, the report for every partition method
  --in-parts             mesh: under mpirun, each rank builds only its part (a generated box with a
                         blocks, hilbert or zorder partition); reports the build time and each
                         rank's cells and memory instead of the mesh report
  --print-config         print the resolved configuration (defaults filled in) as YAML and exit
  --output-dir DIR       run: where the output goes (overrides output.dir); perf: the results folder
  --restart FILE.h5      run: continue from a checkpoint toward the case's steps or end_time
  --write FILE.h5        mesh: write the mesh (HDF5 + FILE.xdmf)
  --rtol R, --atol A     compare: a field passes when max|a-b| <= A + R max|b| [1e-10, 0]
  --fields LIST          compare: u0,u1,... [every field of A]
  --time T               compare: the output at time T (files: check it; folders: pick it) [the last]
  --quiet                run: print nothing but errors (summary.json is still written)
  --profile              run: fenced per-kernel timers, printed as a table and kept in summary.json
  --kokkos-*             passed to Kokkos (--kokkos-threads=N, --kokkos-device-id=N, ...)

exit codes: 0 success, 1 run failure or comparison mismatch, 2 bad input (usage, YAML, mesh or HDF5
file), 3 run stopped early with a checkpoint (run.wall_limit, SIGTERM, SIGINT): continue with --restart
)";
}

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> r;
  std::size_t p = 0;
  while (p <= list.size()) {
    const std::size_t q = std::min(list.find(',', p), list.size());
    if (q > p) r.push_back(list.substr(p, q - p));
    p = q + 1;
  }
  return r;
}

void split_kokkos_args(int argc, char** argv, std::vector<std::string>& ours, std::vector<std::string>& kokkos) {
  kokkos.emplace_back(argc > 0 ? argv[0] : "fvproxy");
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    (a.rfind("--kokkos-", 0) == 0 ? kokkos : ours).push_back(a);
  }
}

namespace {

enum class KokkosValue { none, positive, non_negative, devices, text, map_by };

struct KokkosOption {
  const char* name;     ///< the spelling fvproxy accepts
  const char* old_name; ///< what Kokkos < 3.7 reads (nullptr: not known there)
  const char* new_name; ///< what Kokkos >= 3.7 reads (nullptr: not known there)
  KokkosValue value;
  const char* what; ///< for messages
};

const std::vector<KokkosOption>& kokkos_options() {
  static const std::vector<KokkosOption> o{
      {"--kokkos-threads", "--kokkos-threads", "--kokkos-num-threads", KokkosValue::positive, "a thread count"},
      {"--kokkos-num-threads", "--kokkos-threads", "--kokkos-num-threads", KokkosValue::positive, "a thread count"},
      {"--kokkos-numa", "--kokkos-numa", nullptr, KokkosValue::positive, "a NUMA region count"},
      {"--kokkos-device-id", "--kokkos-device-id", "--kokkos-device-id", KokkosValue::non_negative, "a device id"},
      {"--kokkos-device", "--kokkos-device-id", "--kokkos-device-id", KokkosValue::non_negative, "a device id"},
      {"--kokkos-num-devices", "--kokkos-num-devices", "--kokkos-num-devices", KokkosValue::devices, "a device count"},
      {"--kokkos-ndevices", "--kokkos-num-devices", "--kokkos-num-devices", KokkosValue::devices, "a device count"},
      {"--kokkos-map-device-id-by", nullptr, "--kokkos-map-device-id-by", KokkosValue::map_by, "random or mpi_rank"},
      {"--kokkos-disable-warnings", "--kokkos-disable-warnings", "--kokkos-disable-warnings", KokkosValue::none, ""},
      {"--kokkos-print-configuration", nullptr, "--kokkos-print-configuration", KokkosValue::none, ""},
      {"--kokkos-tune-internals", "--kokkos-tune-internals", "--kokkos-tune-internals", KokkosValue::none, ""},
      {"--kokkos-tools-library", "--kokkos-tools-library", "--kokkos-tools-libs", KokkosValue::text, "a library"},
      {"--kokkos-tools-libs", "--kokkos-tools-library", "--kokkos-tools-libs", KokkosValue::text, "a library"},
      {"--kokkos-tools-args", "--kokkos-tools-args", "--kokkos-tools-args", KokkosValue::text, "the tool's arguments"},
      {"--kokkos-tools-help", "--kokkos-tools-help", "--kokkos-tools-help", KokkosValue::none, ""},
      {"--kokkos-help", "--kokkos-help", "--kokkos-help", KokkosValue::none, ""},
  };
  return o;
}

/// A whole number in [lo, INT_MAX] written with digits only (no sign, no spaces, no exponent).
bool whole_number(const std::string& s, long long lo) {
  if (s.empty() || s.size() > 10 || s.find_first_not_of("0123456789") != std::string::npos) return false;
  const long long v = std::strtoll(s.c_str(), nullptr, 10);
  return v >= lo && v <= INT_MAX;
}

} // namespace

std::vector<std::string> check_kokkos_args(const std::vector<std::string>& kokkos) {
  std::vector<std::string> out;
  if (!kokkos.empty()) out.push_back(kokkos[0]);
  std::vector<std::string> names;
  for (const auto& o : kokkos_options()) names.emplace_back(o.name);
  const std::string version = "Kokkos " + kc::kokkos_version_string();
  for (std::size_t i = 1; i < kokkos.size(); ++i) {
    const std::string& a = kokkos[i];
    const auto eq = a.find('=');
    const std::string name = a.substr(0, eq);
    const bool has_value = eq != std::string::npos;
    const std::string v = has_value ? a.substr(eq + 1) : std::string();
    const auto o = std::find_if(kokkos_options().begin(), kokkos_options().end(),
                                [&](const KokkosOption& k) { return name == k.name; });
    if (o == kokkos_options().end()) {
      const std::string best = closest_key(name, names);
      throw InputError(a,
                       "unknown Kokkos option '" + name + "'" + (best.empty() ? "" : "; did you mean '" + best + "'?"),
                       "Kokkos options: --kokkos-threads=N, --kokkos-device-id=N, --kokkos-num-devices=N, "
                       "--kokkos-disable-warnings, --kokkos-tools-libs=LIB, --kokkos-help, ...");
    }
    const char* target = kc::kNewCommandLine ? o->new_name : o->old_name;
    if (!target)
      throw InputError(a, "'" + name + "' is not an option of the " + version + " this fvproxy is built with");
    switch (o->value) {
    case KokkosValue::none:
      // Flags: bare, or =true / =false (Kokkos >= 3.7 reads the value; 3.4 reads only the bare flag).
      if (has_value && v != "true" && v != "false")
        throw InputError(a, "expected " + name + " alone (or " + name + "=true / =false), got '" + v + "'");
      if (v == "false") continue; // off is the default
      out.push_back(target);
      continue;
    case KokkosValue::positive:
    case KokkosValue::non_negative: {
      const long long lo = o->value == KokkosValue::positive ? 1 : 0;
      if (!has_value || !whole_number(v, lo))
        throw InputError(a, "expected " + name + "=N with N " + (lo ? "a whole number >= 1" : "a whole number >= 0") +
                                " (" + o->what + "), got " + (has_value ? "'" + v + "'" : "no value"));
      break;
    }
    case KokkosValue::devices: {
      const auto comma = v.find(',');
      const bool ok = has_value && whole_number(v.substr(0, comma), 1) &&
                      (comma == std::string::npos || whole_number(v.substr(comma + 1), 0));
      if (!ok)
        throw InputError(a, "expected " + name + "=N or " + name +
                                "=N,SKIP (a device count >= 1, then a device id), got " +
                                (has_value ? "'" + v + "'" : "no value"));
      break;
    }
    case KokkosValue::text:
      if (v.empty()) throw InputError(a, "expected " + name + "=VALUE (" + o->what + "), got no value");
      break;
    case KokkosValue::map_by:
      if (v != "random" && v != "mpi_rank")
        throw InputError(a, "expected " + name + "=random or " + name + "=mpi_rank, got " +
                                (has_value ? "'" + v + "'" : "no value"));
      break;
    }
    out.push_back(std::string(target) + "=" + v);
  }
  return out;
}

namespace {

// parse_cli's state: the arguments, the one being read (an option's value moves it on) and what
// they have said so far.
struct CliParser {
  explicit CliParser(const std::vector<std::string>& args) : args(args) {}

  const std::vector<std::string>& args;
  std::size_t i = 1;
  CliArgs c;

  CliArgs parse();
  void check_command();
  void option(const std::string& a);
  bool flag(const std::string& a);
  bool text_option(const std::string& a);
  bool number_option(const std::string& a);
  void partition();
  void tolerance_or_time(const std::string& a);
  void repeat();
  void check_complete();
  std::string value(const std::string& opt);
  void allowed(const std::string& opt, std::initializer_list<const char*> cmds);
};

CliArgs CliParser::parse() {
  if (args.empty()) throw InputError("usage", "no command given", usage());
  c.command = args[0];
  if (c.command == "--help" || c.command == "-h" || c.command == "help") {
    c.command = "help";
    return c;
  }
  check_command();
  for (i = 1; i < args.size(); ++i) option(args[i]);
  check_complete();
  return c;
}

void CliParser::check_command() {
  static const std::vector<std::string> commands{"info", "mesh", "run", "bench", "perf", "compare", "help"};
  if (std::find(commands.begin(), commands.end(), c.command) == commands.end()) {
    const std::string best = closest_key(c.command, commands);
    throw InputError("usage",
                     "unknown command '" + c.command + "'" + (best.empty() ? "" : "; did you mean '" + best + "'?"),
                     usage());
  }
}

void CliParser::option(const std::string& a) {
  if (flag(a) || text_option(a) || number_option(a)) return;
  if (a.size() > 1 && a[0] == '-')
    throw InputError("usage", "unknown option '" + a + "' for 'fvproxy " + c.command + "'", usage());
  c.positional.push_back(a);
}

// The options without a value; false when `a` is not one of them.
bool CliParser::flag(const std::string& a) {
  if (a == "--help" || a == "-h") {
    c.help = true;
  } else if (a == "--json") {
    allowed(a, {"info", "mesh", "bench", "compare"});
    c.json = true;
  } else if (a == "--compare-orderings") {
    allowed(a, {"mesh"});
    c.compare_orderings = true;
  } else if (a == "--in-parts") {
    allowed(a, {"mesh"});
    c.in_parts = true;
  } else if (a == "--compare-partitions") {
    allowed(a, {"mesh"});
    c.compare_partitions = true;
  } else if (a == "--print-config") {
    allowed(a, {"mesh"});
    c.print_config = true;
  } else if (a == "--quiet") {
    allowed(a, {"run"});
    c.quiet = true;
  } else if (a == "--profile") {
    allowed(a, {"run"});
    c.profile = true;
  } else {
    return false;
  }
  return true;
}

// The options whose value is kept as written; false when `a` is not one of them.
bool CliParser::text_option(const std::string& a) {
  if (a == "--set" || a.rfind("--set=", 0) == 0) {
    allowed("--set", {"mesh", "run", "bench"});
    c.sets.push_back(value("--set"));
  } else if (a == "--output-dir" || a.rfind("--output-dir=", 0) == 0) {
    allowed("--output-dir", {"run", "perf"});
    c.output_dir = value("--output-dir");
    if (c.output_dir.empty()) throw InputError("--output-dir", "empty path");
  } else if (a == "--restart" || a.rfind("--restart=", 0) == 0) {
    allowed("--restart", {"run"});
    c.restart = value("--restart");
  } else if (a == "--write" || a.rfind("--write=", 0) == 0) {
    allowed("--write", {"mesh"});
    c.write = value("--write");
    if (c.write.empty()) throw InputError("--write", "empty path");
  } else if (a == "--fields" || a.rfind("--fields=", 0) == 0) {
    allowed("--fields", {"compare"});
    c.fields = value("--fields");
    if (c.fields.empty())
      throw InputError("--fields", "empty list", "(give FIELD[,FIELD...], or leave --fields out for all)");
  } else if (a == "--operators" || a.rfind("--operators=", 0) == 0) {
    allowed("--operators", {"bench"});
    c.operators = value("--operators");
  } else if (a == "--variants" || a.rfind("--variants=", 0) == 0) {
    allowed("--variants", {"bench"});
    c.variants = value("--variants");
  } else {
    return false;
  }
  return true;
}

// The options with a numeric value; false when `a` is not one of them.
bool CliParser::number_option(const std::string& a) {
  if (a == "--partition" || a.rfind("--partition=", 0) == 0) {
    partition();
  } else if (a == "--rtol" || a.rfind("--rtol=", 0) == 0 || a == "--atol" || a.rfind("--atol=", 0) == 0 ||
             a == "--time" || a.rfind("--time=", 0) == 0) {
    tolerance_or_time(a);
  } else if (a == "--repeat" || a.rfind("--repeat=", 0) == 0) {
    repeat();
  } else {
    return false;
  }
  return true;
}

void CliParser::partition() {
  allowed("--partition", {"mesh"});
  const std::string v = value("--partition");
  long long n = 0;
  try {
    std::size_t used = 0;
    n = std::stoll(v, &used);
    if (used != v.size()) throw std::invalid_argument(v);
  } catch (const std::exception&) {
    throw InputError("--partition", "expected a whole number of parts, got '" + v + "'");
  }
  if (n < 1 || n > (1 << 20)) throw InputError("--partition", "must be between 1 and 1048576, got " + v);
  c.partition = static_cast<int>(n);
}

void CliParser::tolerance_or_time(const std::string& a) {
  const std::string opt = a.substr(0, std::min(a.find('='), a.size()));
  allowed(opt, {"compare"});
  const std::string v = value(opt);
  double x = 0;
  try {
    std::size_t used = 0;
    x = std::stod(v, &used);
    if (used != v.size()) throw std::invalid_argument(v);
  } catch (const std::exception&) {
    throw InputError(opt, "expected a number, got '" + v + "'");
  }
  if (!std::isfinite(x)) throw InputError(opt, "expected a finite number, got '" + v + "'");
  if (opt != "--time" && !(x >= 0)) throw InputError(opt, "must be >= 0, got '" + v + "'");
  if (opt == "--rtol")
    c.rtol = x;
  else if (opt == "--atol")
    c.atol = x;
  else
    c.time = x;
}

void CliParser::repeat() {
  allowed("--repeat", {"bench"});
  const std::string v = value("--repeat");
  std::size_t used = 0;
  try {
    c.repeat = std::stoi(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  // All of it: "3x" or "2.5" is not 3 or 2.
  if (used == 0 || used != v.size()) throw InputError("--repeat", "expected an integer, got '" + v + "'");
  // bench keeps each run's time for the median: a count of a billion runs silently until killed
  if (c.repeat > kMaxRepeat)
    throw InputError("--repeat",
                     std::to_string(c.repeat) + " is more than the " + std::to_string(kMaxRepeat) +
                         " runs a timing may repeat",
                     "each run's time is kept for the median; a long timing prints its progress every 5 s");
}

// What the options and files given together must satisfy, once all are read.
void CliParser::check_complete() {
  if (c.compare_partitions && c.partition == 0)
    throw InputError("--compare-partitions", "needs --partition N (the number of parts to compare the methods at)");
  const std::size_t want = c.command == "compare" ? 2
                           : (c.command == "mesh" || c.command == "run" || c.command == "bench" || c.command == "perf")
                               ? 1
                               : 0;
  if (!c.help && c.positional.size() != want)
    throw InputError("usage",
                     want == 2   ? "'fvproxy compare' takes two files (A.h5 B.h5)"
                     : want == 1 ? "'fvproxy " + c.command + "' takes one case file (CASE.yaml)"
                                 : "'fvproxy " + c.command + "' takes no file argument",
                     usage());
}

// The value of option `opt` (args[i]): after '=' in --opt=value, else the next argument (read here).
std::string CliParser::value(const std::string& opt) {
  const std::string& a = args[i];
  const auto eq = a.find('=');
  if (a.compare(0, opt.size(), opt) == 0 && eq == opt.size()) return a.substr(eq + 1); // --opt=value
  if (i + 1 >= args.size()) throw InputError("usage", opt + " needs a value", usage());
  return args[++i];
}

void CliParser::allowed(const std::string& opt, std::initializer_list<const char*> cmds) {
  for (const char* cmd : cmds)
    if (c.command == cmd) return;
  throw InputError("usage", "option " + opt + " does not apply to 'fvproxy " + c.command + "'", usage());
}

} // namespace

CliArgs parse_cli(const std::vector<std::string>& args) {
  return CliParser(args).parse();
}

} // namespace fvproxy
