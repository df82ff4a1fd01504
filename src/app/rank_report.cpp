#include "app/rank_report.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "mesh/memory_estimate.hpp"

namespace fvproxy {

nlohmann::json over_ranks(const std::vector<double>& v) {
  if (v.empty()) return {{"min", 0.0}, {"mean", 0.0}, {"max", 0.0}, {"slowest_rank", 0}};
  double sum = 0;
  std::size_t arg = 0;
  for (std::size_t r = 0; r < v.size(); ++r) {
    sum += v[r];
    if (v[r] > v[arg]) arg = r;
  }
  return {{"min", *std::min_element(v.begin(), v.end())},
          {"mean", sum / double(v.size())},
          {"max", v[arg]},
          {"slowest_rank", static_cast<int>(arg)}};
}

nlohmann::json to_json(const RankPlacement& p) {
  nlohmann::json j = {{"rank", p.rank},
                      {"host", p.host},
                      {"local_rank", p.local_rank},
                      {"local_size", p.local_size},
                      {"device", p.device}};
  j["device_id"] = p.device_id >= 0 ? nlohmann::json(p.device_id) : nlohmann::json(nullptr);
  j["pci_bus_id"] = p.pci_bus_id.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.pci_bus_id);
  if (p.device != "host") j["visible_devices"] = p.visible_devices;
  j["cpus"] = p.cpus;
  j["cpu_count"] = p.cpu_count;
  return j;
}

nlohmann::json halo_json(const HaloStats& h) {
  auto counters = [](const HaloCounters& c) {
    return nlohmann::json{{"exchanges", c.exchanges},
                          {"messages", c.messages},
                          {"values_sent", c.values_sent},
                          {"bytes_sent", c.bytes_sent},
                          {"seconds_pack", c.seconds_pack},
                          {"seconds_wait", c.seconds_wait},
                          {"seconds_unpack", c.seconds_unpack},
                          {"seconds_in_flight", c.seconds_in_flight},
                          {"fraction_hidden", c.fraction_hidden()},
                          {"gpu_seconds_transfer", c.gpu_seconds_transfer},
                          {"gpu_seconds_overlapped", c.gpu_seconds_overlapped},
                          {"gpu_fraction_overlapped", c.gpu_fraction_overlapped() >= 0
                                                          ? nlohmann::json(c.gpu_fraction_overlapped())
                                                          : nlohmann::json(nullptr)}};
  };
  // One state exchange per Runge-Kutta stage (rate evaluation): the stages of the run.
  const long long stages = h.of(HaloKind::state).exchanges;
  nlohmann::json j = counters(h);
  j["stages"] = stages;
  for (HaloKind k : {HaloKind::state, HaloKind::gradient_limiter}) {
    const HaloCounters& c = h.of(k);
    const double s = stages > 0 ? double(stages) : 1.0;
    nlohmann::json kj = counters(c);
    kj["per_stage"] = {{"exchanges", double(c.exchanges) / s},        {"messages", double(c.messages) / s},
                       {"bytes_sent", double(c.bytes_sent) / s},      {"seconds_pack", c.seconds_pack / s},
                       {"seconds_wait", c.seconds_wait / s},          {"seconds_unpack", c.seconds_unpack / s},
                       {"seconds_in_flight", c.seconds_in_flight / s}};
    j[to_string(k)] = kj;
  }
  return j;
}

nlohmann::json over_ranks_tree(const std::vector<nlohmann::json>& v) {
  if (v.empty()) return nlohmann::json::object();
  if (v[0].is_number() || v[0].is_null()) { // null: a rank without the value (no device timeline)
    std::vector<double> x;
    for (const auto& e : v)
      if (e.is_number()) x.push_back(e.get<double>());
    return x.empty() ? nlohmann::json(nullptr) : over_ranks(x);
  }
  nlohmann::json out = nlohmann::json::object();
  if (!v[0].is_object()) return out;
  for (const auto& [key, first] : v[0].items()) {
    std::vector<nlohmann::json> col;
    for (const auto& e : v) col.push_back(e.at(key));
    out[key] = over_ranks_tree(col);
  }
  return out;
}

namespace {

/// This rank's placement, cells, phase seconds, halo counters and memory peaks.
nlohmann::json rank_json(const Communicator& comm, const RankRun& mine) {
  nlohmann::json me = to_json(rank_placement(comm));
  me["owned_cells"] = mine.owned;
  me["ghost_cells"] = mine.ghosts;
  HaloStats h = mine.halo ? mine.halo->stats() : HaloStats{};
  h -= mine.halo_before;
  me["seconds"] = {{"setup", mine.setup},
                   {"time_loop", mine.time_loop},
                   {"io", mine.io},
                   {"halo_wait", h.seconds_wait},
                   {"busy", std::max(0.0, mine.time_loop - mine.io - h.seconds_wait)}};
  me["halo"] = halo_json(h);
  // Peaks per owned cell: what a rank needs per cell it computes (ghosts, and the whole mesh where
  // this rank builds it, included in the bytes).
  const double per = mine.owned > 0 ? 1.0 / double(mine.owned) : 0.0;
  me["memory"] = {{"device_space", mine.memory.device_space},
                  {"device_peak_bytes", mine.memory.device_peak_bytes},
                  {"host_peak_bytes", mine.memory.host_peak_bytes},
                  {"device_bytes_per_cell", double(mine.memory.device_peak_bytes) * per},
                  {"host_bytes_per_cell", double(mine.memory.host_peak_bytes) * per}};
  return me;
}

/// One value of every rank of the report `out` (its "ranks").
template <class Get> std::vector<double> column(nlohmann::json& out, Get&& get) {
  std::vector<double> v;
  for (const auto& x : out["ranks"]) v.push_back(get(x));
  return v;
}

void add_phases(nlohmann::json& out) {
  auto sec = [&](const char* k) {
    return column(out, [k](const nlohmann::json& x) { return x["seconds"][k].get<double>(); });
  };
  out["phases"] = {{"setup", over_ranks(sec("setup"))},
                   {"time_loop", over_ranks(sec("time_loop"))},
                   {"io", over_ranks(sec("io"))},
                   {"busy", over_ranks(sec("busy"))}};
  const nlohmann::json busy = out["phases"]["busy"];
  out["slowest_rank"] = {
      {"rank", busy["slowest_rank"]}, {"busy_seconds", busy["max"]}, {"measure", "time loop - output - halo wait"}};
}

/// "timers" and "timer_order" from each rank's kernel timers `kern` (label: [calls, seconds]).
void add_timers(nlohmann::json& out, const std::vector<nlohmann::json>& kern) {
  const int n = static_cast<int>(kern.size());
  // Kernel timers: every label any rank ran; a rank that did not run it counts 0.
  std::map<std::string, std::pair<long long, std::vector<double>>> labels;
  for (int r = 0; r < n; ++r)
    for (const auto& [label, v] : kern[r].items()) {
      auto& e = labels[label];
      e.second.resize(n, 0.0);
      e.first = std::max(e.first, v[0].get<long long>());
      e.second[r] = v[1].get<double>();
    }
  std::vector<std::pair<double, std::string>> order; // by decreasing max seconds
  for (auto& [label, e] : labels) order.emplace_back(*std::max_element(e.second.begin(), e.second.end()), label);
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  out["timers"] = nlohmann::json::object();
  out["timer_order"] = nlohmann::json::array();
  for (const auto& [mx, label] : order) {
    nlohmann::json t = over_ranks(labels[label].second);
    t["calls"] = labels[label].first;
    t["seconds"] = mx;
    out["timers"][label] = t;
    out["timer_order"].push_back(label);
  }
}

void add_memory(nlohmann::json& out, const RankRun& mine) {
  auto mem = [&](const char* k) {
    return column(out, [k](const nlohmann::json& x) { return x["memory"][k].get<double>(); });
  };
  out["memory"] = {{"device_space", mine.memory.device_space},
                   {"device_peak_bytes", over_ranks(mem("device_peak_bytes"))},
                   {"host_peak_bytes", over_ranks(mem("host_peak_bytes"))},
                   {"device_bytes_per_cell", over_ranks(mem("device_bytes_per_cell"))},
                   {"host_bytes_per_cell", over_ranks(mem("host_bytes_per_cell"))}};
}

void add_halo(nlohmann::json& out, const RankRun& mine) {
  std::vector<nlohmann::json> halos;
  for (const auto& x : out["ranks"]) halos.push_back(x["halo"]);
  out["halo"] = over_ranks_tree(halos);
  out["halo"]["variant"] = mine.halo ? to_string(mine.halo->variant()) : "none";
  // The transport (never "auto": what it chose; "host" for the naive variant), the one asked for
  // and why it could not be had; the whole run's device-timeline overlap (every rank's transfer
  // time summed), null without a device timeline.
  if (mine.halo) {
    out["halo"]["transport"] = mine.halo->variant() == HaloVariant::naive ? "host" : to_string(mine.halo->route());
    out["halo"]["layers"] = mine.halo->layers();
    out["halo"]["transport_fallback"] =
        mine.halo->fallback_reason().empty() ? nlohmann::json(nullptr) : nlohmann::json(mine.halo->fallback_reason());
    double transfer = 0, overlapped = 0;
    for (const auto& x : out["ranks"]) {
      transfer += x["halo"]["gpu_seconds_transfer"].get<double>();
      overlapped += x["halo"]["gpu_seconds_overlapped"].get<double>();
    }
    out["halo"]["gpu_overlap"] = transfer > 0 ? nlohmann::json(overlapped / transfer) : nlohmann::json(nullptr);
  }
}

} // namespace

nlohmann::json gather_run_report(const Communicator& comm, const RankRun& mine) {
  // Each rank's own numbers as one JSON text, gathered on rank 0.
  const nlohmann::json me = rank_json(comm, mine);
  nlohmann::json kernels = nlohmann::json::object();
  for (const auto& k : mine.kernels) kernels[k.label] = {k.calls, k.seconds};
  const std::vector<std::string> all = comm.gather(nlohmann::json{{"me", me}, {"kernels", kernels}}.dump());
  if (comm.rank() != 0) return nullptr;

  const int n = static_cast<int>(all.size());
  nlohmann::json out;
  out["ranks"] = nlohmann::json::array();
  std::vector<nlohmann::json> kern(n);
  for (int r = 0; r < n; ++r) {
    nlohmann::json x = nlohmann::json::parse(all[r]);
    out["ranks"].push_back(x["me"]);
    kern[r] = x["kernels"];
  }
  add_phases(out);
  add_timers(out, kern);
  add_memory(out, mine);
  add_halo(out, mine);
  return out;
}

void print_halo_report(const nlohmann::json& j) {
  if (j["ranks"].size() < 2) return;
  const auto& h = j["halo"];
  auto mmm = [](const nlohmann::json& s, double scale, int digits) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%.*f / %.*f / %.*f", digits, scale * s["min"].get<double>(), digits,
                  scale * s["mean"].get<double>(), digits, scale * s["max"].get<double>());
    return std::string(buf);
  };
  std::printf("  halo exchange (%s, transport %s; %.0f stages; min / mean / max over ranks):\n",
              h["variant"].get<std::string>().c_str(),
              h.contains("transport") ? h["transport"].get<std::string>().c_str() : "-",
              h["stages"]["max"].get<double>());
  std::printf("    %-16s %-16s %-24s %-24s %-24s %-24s %s\n", "per stage", "messages", "kB sent", "pack ms", "wait ms",
              "unpack ms", "hidden");
  for (const char* k : {"state", "gradient_limiter"}) {
    const auto& c = h[k];
    if (c["exchanges"]["max"].get<double>() == 0) continue;
    const auto& s = c["per_stage"];
    std::printf("    %-16s %-16s %-24s %-24s %-24s %-24s %s\n", k, mmm(s["messages"], 1, 0).c_str(),
                mmm(s["bytes_sent"], 1e-3, 1).c_str(), mmm(s["seconds_pack"], 1e3, 3).c_str(),
                mmm(s["seconds_wait"], 1e3, 3).c_str(), mmm(s["seconds_unpack"], 1e3, 3).c_str(),
                mmm(c["fraction_hidden"], 1, 2).c_str());
  }
  std::printf("    whole run: pack %s s; wait (exposed) %s s; unpack %s s; in flight %s s; fraction hidden %s\n",
              mmm(h["seconds_pack"], 1, 4).c_str(), mmm(h["seconds_wait"], 1, 4).c_str(),
              mmm(h["seconds_unpack"], 1, 4).c_str(), mmm(h["seconds_in_flight"], 1, 4).c_str(),
              mmm(h["fraction_hidden"], 1, 2).c_str());
  if (h.contains("gpu_overlap") && h["gpu_overlap"].is_number())
    std::printf("    device timeline: transfer %s s, of which beside the inner cells' kernels %s s: overlap %.2f\n",
                mmm(h["gpu_seconds_transfer"], 1, 4).c_str(), mmm(h["gpu_seconds_overlapped"], 1, 4).c_str(),
                h["gpu_overlap"].get<double>());
}

namespace {

/// The memory line: device and host peaks, per rank over several ranks, and per owned cell.
void print_memory_line(const nlohmann::json& j, bool several) {
  const auto& m = j["memory"];
  auto bytes = [&](const char* k) {
    const auto& s = m[k];
    if (!several) return bytes_text(s["max"].get<double>());
    return bytes_text(s["min"].get<double>()) + " / " + bytes_text(s["mean"].get<double>()) + " / " +
           bytes_text(s["max"].get<double>()) + " (rank " + std::to_string(s["slowest_rank"].get<int>()) + ")";
  };
  auto per_cell = [&](const char* k) {
    const auto& s = m[k];
    char buf[96];
    if (several)
      std::snprintf(buf, sizeof buf, "%.0f / %.0f / %.0f", s["min"].get<double>(), s["mean"].get<double>(),
                    s["max"].get<double>());
    else
      std::snprintf(buf, sizeof buf, "%.0f", s["max"].get<double>());
    return std::string(buf);
  };
  std::printf("  memory%s: device (Kokkos, %s space) peak %s = %s B/cell; host peak (resident) %s = %s B/cell\n",
              several ? " per rank, min / mean / max" : "", m["device_space"].get<std::string>().c_str(),
              bytes("device_peak_bytes").c_str(), per_cell("device_bytes_per_cell").c_str(),
              bytes("host_peak_bytes").c_str(), per_cell("host_bytes_per_cell").c_str());
}

/// A rank's CPU list for the table ("-" where the system did not say), at most 24 characters.
std::string cpus_of(const nlohmann::json& r) {
  const std::string c = r.value("cpus", std::string());
  return c.empty() ? "-" : c.substr(0, 24);
}

/// Several ranks: the slowest, each rank's placement, cells and seconds, and the phases over ranks.
void print_rank_table(const nlohmann::json& j) {
  const auto& ranks = j["ranks"];
  auto stat = [](const nlohmann::json& s) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%.4f / %.4f / %.4f (rank %d)", s["min"].get<double>(), s["mean"].get<double>(),
                  s["max"].get<double>(), s["slowest_rank"].get<int>());
    return std::string(buf);
  };
  std::printf("  ranks: %zu; slowest: rank %d (busy %.4f s = %s)\n", ranks.size(), j["slowest_rank"]["rank"].get<int>(),
              j["slowest_rank"]["busy_seconds"].get<double>(), j["slowest_rank"]["measure"].get<std::string>().c_str());
  std::printf("    %4s %-20s %5s %-6s %4s %-14s %10s %9s %9s %9s %9s %9s  %s\n", "rank", "host", "local", "device",
              "id", "PCI bus", "owned", "ghosts", "set-up s", "loop s", "halo w s", "busy s", "CPUs");
  for (const auto& r : ranks) {
    const auto& s = r["seconds"];
    std::printf("    %4d %-20s %5d %-6s %4s %-14s %10lld %9lld %9.4f %9.4f %9.4f %9.4f  %s\n", r["rank"].get<int>(),
                r["host"].get<std::string>().substr(0, 20).c_str(), r["local_rank"].get<int>(),
                r["device"].get<std::string>().c_str(),
                r["device_id"].is_null() ? "-" : std::to_string(r["device_id"].get<int>()).c_str(),
                r["pci_bus_id"].is_null() ? "-" : r["pci_bus_id"].get<std::string>().c_str(),
                r["owned_cells"].get<long long>(), r["ghost_cells"].get<long long>(), s["setup"].get<double>(),
                s["time_loop"].get<double>(), s["halo_wait"].get<double>(), s["busy"].get<double>(),
                cpus_of(r).c_str());
  }
  std::printf("    seconds, min / mean / max over ranks: set-up %s; time loop %s; output %s\n",
              stat(j["phases"]["setup"]).c_str(), stat(j["phases"]["time_loop"]).c_str(),
              stat(j["phases"]["io"]).c_str());
}

/// --profile's kernel timers: per kernel on one rank; over ranks on several.
void print_kernel_timers(const nlohmann::json& j, bool several) {
  const auto& timers = j["timers"];
  if (!timers.empty()) {
    double total = 0;
    for (const auto& [label, t] : timers.items()) total += t["seconds"].get<double>();
    if (!several) {
      std::printf("  kernels (fenced, --profile):\n    %-48s %8s %11s %11s %7s\n", "kernel", "calls", "total s",
                  "mean ms", "share");
      for (const auto& label : j["timer_order"]) {
        const auto& t = timers[label.get<std::string>()];
        const double s = t["seconds"].get<double>();
        const long long calls = t["calls"].get<long long>();
        std::printf("    %-48s %8lld %11.4f %11.4f %6.1f%%\n", label.get<std::string>().c_str(), calls, s,
                    1e3 * s / double(std::max(1LL, calls)), total > 0 ? 100 * s / total : 0.0);
      }
    } else {
      std::printf("  kernels (fenced, --profile; total seconds per rank: min / mean / max, the max's rank; share of "
                  "the max):\n    %-48s %8s %10s %10s %10s %5s %7s\n",
                  "kernel", "calls", "min s", "mean s", "max s", "rank", "share");
      for (const auto& label : j["timer_order"]) {
        const auto& t = timers[label.get<std::string>()];
        std::printf("    %-48s %8lld %10.4f %10.4f %10.4f %5d %6.1f%%\n", label.get<std::string>().c_str(),
                    t["calls"].get<long long>(), t["min"].get<double>(), t["mean"].get<double>(),
                    t["max"].get<double>(), t["slowest_rank"].get<int>(),
                    total > 0 ? 100 * t["max"].get<double>() / total : 0.0);
      }
    }
  }
}

} // namespace

void print_run_report(const nlohmann::json& j, bool profile) {
  const auto& ranks = j["ranks"];
  const bool several = ranks.size() > 1;
  print_memory_line(j, several);
  if (several) print_rank_table(j);
  print_halo_report(j);
  if (!profile) return;
  print_kernel_timers(j, several);
}

} // namespace fvproxy
