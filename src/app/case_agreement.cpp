#include "app/case_agreement.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "core/build_info.hpp"
#include "core/error.hpp"
#include "parallel/mpi_environment.hpp"

namespace fvproxy {

namespace {

/// A number in one spelling (0.010, 1e-2 and 0.01 are the same value); any other scalar as written.
std::string canonical(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size()) return s;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

/// At most this many entries: a case has a few hundred; an alias bomb (refused by parse_case, after
/// this check) would have billions.
constexpr std::size_t kMaxEntries = 100000;

void flatten(const YAML::Node& n, const std::string& path, const ConfigSource& src, std::vector<CaseEntry>& out) {
  if (out.size() >= kMaxEntries) return;
  if (n.IsMap()) {
    // Sorted by key through indices: assigning a YAML::Node (as std::sort would) assigns the
    // content of the node it refers to, i.e. rewrites the case's tree.
    std::vector<std::string> keys;
    std::vector<YAML::Node> children;
    for (const auto& kv : n) {
      keys.push_back(kv.first.IsScalar() ? kv.first.Scalar() : YAML::Dump(kv.first));
      children.push_back(kv.second);
    }
    std::vector<std::size_t> order(keys.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&keys](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
    if (keys.empty()) out.push_back({path, "{}", src.locate(n, path)});
    for (std::size_t i : order) flatten(children[i], path.empty() ? keys[i] : path + "." + keys[i], src, out);
  } else if (n.IsSequence()) {
    if (n.size() == 0) out.push_back({path, "[]", src.locate(n, path)});
    for (std::size_t i = 0; i < n.size(); ++i) flatten(n[i], path + "[" + std::to_string(i) + "]", src, out);
  } else {
    out.push_back({path, n.IsScalar() ? canonical(n.Scalar()) : "null", src.locate(n, path)});
  }
}

// FNV-1a over the keys and values (not where they were given: the same case from two copies of
// the file agrees).
std::uint64_t digest(const std::vector<CaseEntry>& entries) {
  std::uint64_t h = 1469598103934665603ull;
  auto add = [&h](const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xffu) * 1099511628211ull; // a separator no text holds
  };
  for (const CaseEntry& e : entries) add(e.key), add(e.value);
  return h;
}

std::string pack(const std::vector<CaseEntry>& entries) {
  std::string s;
  for (const CaseEntry& e : entries) s += e.key + '\0' + e.value + '\0' + e.where + '\0';
  return s;
}

std::vector<CaseEntry> unpack(const std::string& s) {
  std::vector<CaseEntry> out;
  std::size_t at = 0;
  auto next = [&] {
    const std::size_t end = s.find('\0', at);
    std::string field = s.substr(at, end - at);
    at = end + 1;
    return field;
  };
  while (at < s.size()) {
    CaseEntry e;
    e.key = next();
    e.value = next();
    e.where = next();
    out.push_back(std::move(e));
  }
  return out;
}

/// The first key (in sorted order) whose value differs or that one side lacks; empty if none.
std::string first_difference(const std::vector<CaseEntry>& root, const std::vector<CaseEntry>& mine, int rank) {
  std::size_t i = 0, j = 0;
  const std::string r = "rank " + std::to_string(rank);
  while (i < root.size() || j < mine.size()) {
    if (j == mine.size() || (i < root.size() && root[i].key < mine[j].key))
      return root[i].key + " = " + root[i].value + " on rank 0 (" + root[i].where + "), not set on " + r;
    if (i == root.size() || mine[j].key < root[i].key)
      return mine[j].key + " = " + mine[j].value + " on " + r + " (" + mine[j].where + "), not set on rank 0";
    if (root[i].value != mine[j].value)
      return root[i].key + " = " + root[i].value + " on rank 0 (" + root[i].where + "), " + mine[j].value + " on " + r +
             " (" + mine[j].where + ")";
    ++i, ++j;
  }
  return {};
}

} // namespace

std::vector<CaseEntry> case_entries(const ConfigSource& src, const CliArgs& cli) {
  std::vector<CaseEntry> out;
  flatten(src.root(), "", src, out);
  // The options that change what the ranks do together (not --quiet, --json: rank 0's printing).
  const std::string real = build_info().real_type;
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"command", cli.command},
                                                        {"--output-dir", cli.output_dir},
                                                        {"--restart", cli.restart},
                                                        {"--profile", cli.profile ? "yes" : "no"},
                                                        {"--operators", cli.operators},
                                                        {"--variants", cli.variants},
                                                        {"--repeat", std::to_string(cli.repeat)},
                                                        {"--write", cli.write},
                                                        {"--partition", std::to_string(cli.partition)},
                                                        {"--in-parts", cli.in_parts ? "yes" : "no"},
                                                        {"real (the build's floating-point type)", real}})
    out.push_back({key, value, "the command line"});
  return out;
}

void check_ranks_agree(const std::vector<CaseEntry>& mine, const Communicator& comm) {
  if (comm.size() == 1) return;
  const auto h = static_cast<std::int64_t>(digest(mine));
  if (comm.min(h) == comm.max(h)) return;
  const std::vector<CaseEntry> root = unpack(comm.broadcast(comm.rank() == 0 ? pack(mine) : std::string()));
  const std::string diff = comm.rank() == 0 ? std::string() : first_difference(root, mine, comm.rank());
  const int first = static_cast<int>(comm.min(std::int64_t(diff.empty() ? comm.size() : comm.rank())));
  // The digests differ, so some rank's entries differ from rank 0's (first < size).
  const std::string said = comm.broadcast(diff, first < comm.size() ? first : 0);
  MpiEnvironment::set_collective_exit(); // every rank throws this error: rank 0 says it, all exit 2
  throw InputError("mpirun -np " + std::to_string(comm.size()),
                   "the ranks were not started with the same case: " + said,
                   "every rank must read the same case file with the same --set values and options "
                   "(docs/parallel.md#every-rank-runs-the-same-case)");
}

} // namespace fvproxy
