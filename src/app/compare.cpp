// fvproxy compare A B [--rtol R] [--atol A] [--fields LIST] [--time T] [--json]
#include "app/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "io/compare.hpp"
#include "io/field_file.hpp"
#include "io/hdf5_file.hpp"
#include "io/output_series.hpp"

namespace fvproxy {

namespace {

namespace fs = std::filesystem;

/// Equal times, to the precision the runs computed them in: a single-precision build's time step
/// comes from float geometry (relative error ~1e-7 per operation).
bool same_time(double a, double b, bool single_precision) {
  const double rel = single_precision ? 1e-5 : 1e-12;
  return std::abs(a - b) <= rel * std::max(1.0, std::max(std::abs(a), std::abs(b)));
}

/// A file stays as it is; in a folder, the fields file at `time` or the last one.
std::string resolve(const std::string& arg, const std::optional<double>& time) {
  std::error_code ec;
  if (!fs::is_directory(arg, ec)) return arg;
  std::vector<std::pair<long long, std::string>> files;
  for (const auto& [step, path] : step_files(arg, "fields")) files.emplace_back(step, path.string());
  if (files.empty()) throw InputError(arg, "no fields_<step>.h5 file in this folder");
  if (!time) return files.back().second;
  std::string times;
  for (const auto& [step, path] : files) {
    try {
      const h5::File f = h5::File::open(path);
      const double t = f.attribute_double("/", "time");
      if (same_time(t, *time, f.attribute_string("/", "real") == "float")) return path;
      if (times.size() < 200) times += (times.empty() ? "" : ", ") + std::to_string(t);
    } catch (const h5::H5Failure&) {
    }
  }
  throw InputError(arg, "no fields file at t = " + std::to_string(*time), "times in the folder: " + times);
}

nlohmann::json number(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
}

/// InputError for a field of --fields that neither file holds.
void check_fields_exist(const std::vector<std::string>& fields, const std::string& an, const FieldFile& a,
                        const std::string& bn, const FieldFile& b) {
  for (const std::string& name : fields)
    if (std::find(a.names.begin(), a.names.end(), name) == a.names.end() &&
        std::find(b.names.begin(), b.names.end(), name) == b.names.end()) {
      auto list = [](const std::string& path) {
        std::string s;
        for (const auto& n : read_field_file(path, {}, true).names) s += (s.empty() ? "" : ", ") + n;
        return s.empty() ? std::string("none") : s;
      };
      throw InputError("--fields", "no field '" + name + "' in either file",
                       "fields in " + an + ": " + list(an) + "\nfields in " + bn + ": " + list(bn));
    }
}

/// InputError when the files hold another time than --time, or (without it) different times.
void check_times(const CliArgs& cli, const std::string& an, const FieldFile& a, const std::string& bn,
                 const FieldFile& b) {
  if (cli.time) {
    for (const auto* f : {&a, &b})
      if (!same_time(f->time, *cli.time, f->real_type == "float"))
        throw InputError(f == &a ? an : bn,
                         "holds t = " + std::to_string(f->time) + ", not --time " + std::to_string(*cli.time));
  } else if (!same_time(a.time, b.time, a.real_type == "float" || b.real_type == "float")) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "different times: t = %.17g in A, t = %.17g in B", a.time, b.time);
    throw InputError(an + " vs " + bn, buf, "compare outputs of one time (--time T picks it in output folders)");
  }
}

void print_json(const CliArgs& cli, const std::string& an, const FieldFile& a, const std::string& bn,
                const FieldFile& b, const std::vector<FieldDifference>& diffs, bool pass) {
  nlohmann::json j;
  j["a"] = {{"file", an}, {"time", a.time}, {"step", a.step}, {"kind", a.kind}};
  j["b"] = {{"file", bn}, {"time", b.time}, {"step", b.step}, {"kind", b.kind}};
  j["cells"] = a.cell_gid.size();
  j["rtol"] = cli.rtol;
  j["atol"] = cli.atol;
  j["fields"] = nlohmann::json::object();
  for (const auto& d : diffs) {
    if (!d.missing_in.empty()) {
      j["fields"][d.name] = {{"max_abs", nullptr}, {"max_rel", nullptr},        {"l2", nullptr},
                             {"max_b", nullptr},   {"worst_cell_gid", -1},      {"non_finite", false},
                             {"pass", false},      {"missing_in", d.missing_in}};
      continue;
    }
    j["fields"][d.name] = {{"max_abs", number(d.max_abs)},
                           {"max_rel", number(d.max_rel)},
                           {"l2", number(d.l2)},
                           {"max_b", number(d.max_b)},
                           {"worst_cell_gid", d.worst_cell},
                           {"non_finite", d.non_finite},
                           {"pass", d.pass}};
  }
  j["pass"] = pass;
  std::cout << j.dump(2) << '\n';
}

void print_table(const CliArgs& cli, const std::string& an, const FieldFile& a, const std::string& bn,
                 const FieldFile& b, const std::vector<FieldDifference>& diffs, bool pass) {
  std::printf("fvproxy compare: %s (%s, t = %.9g, step %lld)\n          vs %s (%s, t = %.9g, step %lld)\n"
              "  %zu cells matched by global id; a field passes when max|a-b| <= %g + %g max|b|\n",
              an.c_str(), a.kind.c_str(), a.time, static_cast<long long>(a.step), bn.c_str(), b.kind.c_str(), b.time,
              static_cast<long long>(b.step), a.cell_gid.size(), cli.atol, cli.rtol);
  std::printf("  %-8s %14s %16s %14s %14s %12s  %s\n", "field", "max|a-b|", "max|a-b|/max|b|", "L2 (RMS)", "max|b|",
              "worst cell", "result");
  for (const auto& d : diffs)
    if (!d.missing_in.empty())
      std::printf("  %-8s %14s %16s %14s %14s %12s  FAIL (not in %s: %s)\n", d.name.c_str(), "-", "-", "-", "-", "-",
                  d.missing_in.c_str(), (d.missing_in == "A" ? an : bn).c_str());
    else
      std::printf("  %-8s %14.6e %16.6e %14.6e %14.6e %12s  %s\n", d.name.c_str(), d.max_abs, d.max_rel, d.l2, d.max_b,
                  d.worst_cell < 0 ? "-" : std::to_string(d.worst_cell).c_str(),
                  d.pass         ? "ok"
                  : d.non_finite ? "FAIL (non-finite values)"
                                 : "FAIL");
  std::size_t failed = 0;
  for (const auto& d : diffs) failed += d.pass ? 0 : 1;
  if (pass)
    std::printf("all %zu fields within tolerance\n", diffs.size());
  else
    std::printf("%zu of %zu fields differ beyond tolerance\n", failed, diffs.size());
}

} // namespace

int cmd_compare(const CliArgs& cli) {
  const std::string an = resolve(cli.positional[0], cli.time), bn = resolve(cli.positional[1], cli.time);
  const std::vector<std::string> fields = split_list(cli.fields);
  if (!cli.fields.empty() && fields.empty()) throw InputError("--fields", "empty list");
  // A field in one file only is a mismatch (below); one that --fields names and neither file
  // holds is bad input.
  const FieldFile a = read_field_file(an, fields, true);
  const FieldFile b = read_field_file(bn, fields, true);
  check_fields_exist(fields, an, a, bn, b);
  // Meshes first (the more basic mismatch), then times.
  const auto diffs = compare_fields(a, an, b, bn, cli.rtol, cli.atol);
  check_times(cli, an, a, bn, b);
  bool pass = true;
  for (const auto& d : diffs) pass = pass && d.pass;

  if (cli.json) {
    print_json(cli, an, a, bn, b, diffs, pass);
  } else {
    print_table(cli, an, a, bn, b, diffs, pass);
  }
  return pass ? 0 : 1;
}

} // namespace fvproxy
