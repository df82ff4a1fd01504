#include "app/commands.hpp"

#include "app/bench.hpp"
#include "app/case_agreement.hpp"
#include "app/compare.hpp"
#include "app/info.hpp"
#include "app/memory_check.hpp"
#include "app/perf.hpp"
#include "app/run.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <Kokkos_Core.hpp>
#include <sys/resource.h>

#include <nlohmann/json.hpp>

#include "core/build_info.hpp"
#include "core/error.hpp"
#include "io/field_file.hpp"
#include "io/hdf5_info.hpp"
#include "io/output_file.hpp"
#include "io/xdmf.hpp"
#include "mesh/build.hpp"
#include "mesh/partition.hpp"
#include "mesh/reorder.hpp"
#include "mesh/report.hpp"
#include "parallel/communicator.hpp"
#include "parallel/decomposition.hpp"
#include "parallel/parts.hpp"
#include "solver/case_config.hpp"
#include "solver/flow_solver.hpp"
#include "solver/scalar_solver.hpp"

namespace fvproxy {

namespace {

int cmd_info(const CliArgs& cli) {
  const nlohmann::json j = info_json();
  if (cli.json) {
    std::cout << j.dump(2) << '\n';
    return 0;
  }
  const auto& k = j["kokkos"];
  std::string backends;
  for (const auto& b : k["backends"]) backends += (backends.empty() ? "" : ", ") + b.get<std::string>();
  std::cout << "fvproxy " << j["version"].get<std::string>() << " (git " << j["git_revision"].get<std::string>()
            << ")\n"
            << "  build type     " << j["build_type"].get<std::string>() << ", real = " << j["real"].get<std::string>()
            << ", " << j["cxx_standard"].get<std::string>() << "\n"
            << "  compiler       " << j["compiler"].get<std::string>() << "\n"
            << "  Kokkos         " << k["version"].get<std::string>() << "  backends: " << backends
            << "  (default: " << k["default_execution_space"].get<std::string>() << ", concurrency "
            << k["concurrency"].get<int>() << ")\n"
            << "  device         " << j["device"].get<std::string>() << "\n"
            << "  host CPU       " << j["host_cpu"].get<std::string>() << "\n"
            << "  MPI            " << j["mpi"].get<std::string>() << "\n"
            << "  HDF5           " << j["hdf5"].get<std::string>() << "\n";
  return 0;
}

/// One row of the partition report: the division, its quality and what computing each took.
struct PartitionRow {
  Partition p;
  PartitionQuality q;
  double seconds = 0;         ///< partition_cells
  double seconds_quality = 0; ///< partition_quality
  int ranks = 1;              ///< the ranks that computed it together (ptscotch)
};

nlohmann::json partition_json(const PartitionRow& row) {
  const PartitionQuality& q = row.q;
  nlohmann::json j = {{"method", q.method},
                      {"parts", q.parts},
                      {"imbalance", q.imbalance},
                      {"edge_cut", q.edge_cut},
                      {"ghost_fraction", q.ghost_fraction},
                      {"neighbours", {{"max", q.neighbours_max}, {"mean", q.neighbours_mean}}},
                      {"values_per_ghost", q.values_per_ghost},
                      {"halo_values_per_stage", {{"max", q.halo_values_max}, {"mean", q.halo_values_mean}}},
                      {"halo_bytes_per_stage", {{"max", q.halo_bytes_max}, {"mean", q.halo_bytes_mean}}},
                      {"owned",
                       {{"min", *std::min_element(q.owned.begin(), q.owned.end())},
                        {"max", *std::max_element(q.owned.begin(), q.owned.end())}}},
                      {"ghosts",
                       {{"min", *std::min_element(q.ghosts.begin(), q.ghosts.end())},
                        {"max", *std::max_element(q.ghosts.begin(), q.ghosts.end())}}},
                      {"empty_parts", q.empty_parts},
                      {"refilled_parts", row.p.refilled},
                      {"seconds", row.seconds},
                      {"seconds_quality", row.seconds_quality}};
  if (row.p.method == PartitionMethod::blocks) j["blocks"] = row.p.blocks;
  if (row.p.method == PartitionMethod::ptscotch) j["ranks"] = row.ranks;
  return j;
}

/// The values per ghost per stage that the partition report counts, and where that count comes from.
std::pair<int, std::string> ghost_values(const ConfigSource& src) {
  // Values per ghost from the case's physics and operators when it has them; else the defaults'
  // (one component, second-order limited convection: the state, its gradient and limiter).
  int values = 5;
  std::string values_from = "1 component, second-order convection with a limiter (the defaults)";
  if (src.root()["initial"]) {
    CaseConfig full = parse_case(src);
    // the report counts one ghost layer (docs/parallel.md#the-report)
    values = full.physics.is_flow() ? FlowSolver::halo_values_per_ghost(full, 1)
                                    : ScalarSolver::halo_values_per_ghost(full, 1);
    values_from = full.physics.is_flow()
                      ? std::string("the case's flow model and operators")
                      : "the case's " + std::to_string(full.physics.components) + " component(s) and operators";
  }
  return {values, values_from};
}

/// The partition report's rows, and the methods it has no row for.
struct PartitionResults {
  std::vector<PartitionRow> rows;
  std::vector<std::string> skipped;
  std::vector<std::pair<std::string, std::string>> unavailable; // method, why (n/a)
};

/// Why a method cannot make the parts: the first line of its error, without the "error: " prefix.
std::string unavailable_reason(const InputError& e) {
  std::string why = e.what();
  why = why.substr(0, why.find('\n'));
  const std::string marker = "error: ";
  if (why.find(marker) != std::string::npos) why = why.substr(why.find(marker) + marker.size());
  return why;
}

/// Every method's partition into cli.partition parts and its quality, computed on every rank.
PartitionResults compute_partitions(const CliArgs& cli, const CaseConfig& cfg, const BuiltMesh& b,
                                    const Communicator& comm, int values) {
  const BoxConfig* box = cfg.mesh.generate ? &*cfg.mesh.generate : nullptr;
  std::vector<PartitionMethod> methods{cfg.mesh.partition};
  if (cli.compare_partitions) methods = all_partition_methods();
  // More parts than cells is this mesh's limit, not a method's: an error with or without
  // --compare-partitions (every method would be n/a).
  check_parts_fit("--partition", cli.partition, b.host.n_cells());
  PartitionResults results;
  for (PartitionMethod m : methods) {
    if (m == PartitionMethod::blocks && !box) {
      results.skipped.push_back("blocks (for generated boxes only)");
      continue;
    }
    PartitionRow row;
    Kokkos::Timer t;
    try {
      row.p = partition_cells(b.host, b.device, m, cli.partition, box, "--partition", comm.raw());
    } catch (const InputError& e) {
      // --compare-partitions: a method that cannot make N parts (blocks: no factorisation fits)
      // is reported as n/a with its reason, the others normally (issue 27). Every rank throws alike.
      if (!cli.compare_partitions) throw;
      results.unavailable.emplace_back(to_string(m), unavailable_reason(e));
      continue;
    }
    row.seconds = t.seconds();
    t.reset();
    row.q = partition_quality(b.host, row.p, values);
    row.seconds_quality = t.seconds();
    row.ranks = comm.size();
    results.rows.push_back(std::move(row));
  }
  return results;
}

void partition_report_json(const CliArgs& cli, const PartitionResults& results, nlohmann::json* j) {
  const auto& [rows, skipped, unavailable] = results;
  if (!cli.compare_partitions) {
    (*j)["partition"] = partition_json(rows[0]);
  } else {
    (*j)["partitions"] = nlohmann::json::array();
    for (const PartitionRow& row : rows) (*j)["partitions"].push_back(partition_json(row));
    for (const auto& [method, why] : unavailable)
      (*j)["partitions"].push_back({{"method", method}, {"parts", cli.partition}, {"error", why}});
  }
}

void print_partition_report(const CliArgs& cli, const Communicator& comm, int values, const std::string& values_from,
                            const PartitionResults& results) {
  const auto& [rows, skipped, unavailable] = results;
  std::printf("\npartition into %d parts (values per ghost per stage: %d, from %s; %zu-byte reals)\n", cli.partition,
              values, values_from.c_str(), sizeof(real));
  std::printf("  %-13s %10s %10s %10s %6s %8s %12s %12s %8s\n", "method", "imbalance", "edge cut", "ghosts/n", "neigh",
              "neigh", "halo bytes", "halo bytes", "seconds");
  std::printf("  %-13s %10s %10s %10s %6s %8s %12s %12s %8s\n", "", "", "", "", "max", "mean", "max", "mean", "");
  for (const PartitionRow& row : rows) {
    const PartitionQuality& q = row.q;
    std::string name = q.method;
    if (row.p.method == PartitionMethod::blocks)
      name += " " + std::to_string(row.p.blocks[0]) + "x" + std::to_string(row.p.blocks[1]) + "x" +
              std::to_string(row.p.blocks[2]);
    std::printf("  %-13s %10.4f %10lld %10.4f %6d %8.2f %12lld %12.1f %8.2f%s\n", name.c_str(), q.imbalance, q.edge_cut,
                q.ghost_fraction, q.neighbours_max, q.neighbours_mean, q.halo_bytes_max, q.halo_bytes_mean,
                row.seconds + row.seconds_quality,
                row.p.refilled ? ("  (" + std::to_string(row.p.refilled) + " empty parts refilled)").c_str() : "");
  }
  for (const auto& [method, why] : unavailable) std::printf("  %-13s %10s  (%s)\n", method.c_str(), "n/a", why.c_str());
  for (const auto& s : skipped) std::printf("  skipped: %s\n", s.c_str());
  const std::string together =
      comm.size() > 1 ? "; ptscotch computed by the " + std::to_string(comm.size()) + " ranks together" : "";
  std::printf("  (imbalance: max/mean owned cells; edge cut: faces between parts; halo bytes: received per part and "
              "stage;\n   seconds: computing the partition and this report%s)\n",
              together.c_str());
}

/// `fvproxy mesh --partition N [--compare-partitions]`: the partition report. Computed on every
/// rank (ptscotch is computed by the ranks together, as `fvproxy run` on as many ranks computes it),
/// printed by rank 0: text, or into `j`.
void partition_report(const CliArgs& cli, const ConfigSource& src, const CaseConfig& cfg, const BuiltMesh& b,
                      const Communicator& comm, nlohmann::json* j) {
  const auto [values, values_from] = ghost_values(src);
  const PartitionResults results = compute_partitions(cli, cfg, b, comm, values);
  if (comm.rank() != 0) return;
  if (j) {
    partition_report_json(cli, results, j);
    return;
  }
  print_partition_report(cli, comm, values, values_from, results);
}

/// `fvproxy mesh CASE --in-parts` (under mpirun): every rank builds its part only; the build's
/// times (slowest rank), throughput and each rank's cells, neighbours and peak host memory.
int mesh_in_parts(const CliArgs& cli, const CaseConfig& cfg, const Communicator& comm) {
  if (!cli.write.empty() || cli.compare_orderings || cli.partition > 0)
    throw InputError("--in-parts", "does not combine with --write, --compare-orderings or --partition",
                     "it reports how the parts were built, not the whole mesh");
  if (!builds_in_parts(cfg.mesh))
    throw InputError(cfg.mesh.partition_where.empty() ? "--in-parts" : cfg.mesh.partition_where,
                     "this mesh cannot be built in parts (mesh.partition " +
                         std::string(to_string(cfg.mesh.partition)) + ", mesh.reorder " + to_string(cfg.mesh.reorder) +
                         (cfg.mesh.generate ? "" : ", a mesh file") + ")",
                     "--in-parts builds a generated box (mesh.generate) with mesh.partition blocks, hilbert or zorder "
                     "and mesh.reorder none, zorder or hilbert");
  comm.barrier();
  Kokkos::Timer timer;
  const Decomposition d = decompose_in_parts(cfg.mesh, comm, cfg.parallel.halo);
  const double mine = timer.seconds();
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  nlohmann::json me = {{"rank", comm.rank()},
                       {"owned_cells", d.mesh.n_cells},
                       {"ghost_cells", d.mesh.n_ghosts},
                       {"neighbours", d.local.links.size()},
                       {"seconds", mine},
                       {"seconds_sort", d.seconds_sort},
                       {"seconds_piece", d.seconds_piece},
                       {"seconds_device", d.seconds_device},
                       {"peak_host_bytes", double(ru.ru_maxrss) * 1024.0}};
  for (const auto& step : d.steps.steps()) me["steps"][step.first] = step.second;
  const double slowest = comm.max(mine);
  const std::vector<std::string> all = comm.gather(me.dump());
  if (comm.rank() != 0) return 0;
  nlohmann::json j;
  j["case"] = cfg.name;
  j["ranks"] = comm.size();
  j["cells"] = d.mesh.n_global_cells;
  j["partition"] = to_string(cfg.mesh.partition);
  j["ordering"] = to_string(cfg.mesh.reorder);
  j["seconds"] = slowest;
  j["cells_per_second"] = slowest > 0 ? double(d.mesh.n_global_cells) / slowest : 0.0;
  j["build"] = to_json(build_info());
  for (const auto& s : all) j["per_rank"].push_back(nlohmann::json::parse(s));
  if (cli.json) {
    std::cout << j.dump(2) << '\n';
    return 0;
  }
  std::printf("case %s: generated box of %lld cells built in parts on %d ranks (partition %s, ordering %s)\n",
              cfg.name.c_str(), static_cast<long long>(d.mesh.n_global_cells), comm.size(),
              to_string(cfg.mesh.partition), to_string(cfg.mesh.reorder));
  std::printf("  %.3f s (slowest rank), %.3g cells/s\n", slowest, j["cells_per_second"].get<double>());
  std::printf("  %5s %12s %10s %10s %9s %9s %9s %9s %12s\n", "rank", "owned", "ghosts", "neighbours", "seconds", "sort",
              "piece", "device", "peak host");
  for (const auto& p : j["per_rank"])
    std::printf("  %5d %12lld %10lld %10d %9.3f %9.3f %9.3f %9.3f %10.1f MB\n", p["rank"].get<int>(),
                p["owned_cells"].get<long long>(), p["ghost_cells"].get<long long>(), p["neighbours"].get<int>(),
                p["seconds"].get<double>(), p["seconds_sort"].get<double>(), p["seconds_piece"].get<double>(),
                p["seconds_device"].get<double>(), p["peak_host_bytes"].get<double>() / 1e6);
  std::printf("  steps, seconds on each rank (rank 0 first):\n");
  for (const auto& step : d.steps.steps()) {
    std::printf("    %-24s", step.first.c_str());
    for (const auto& p : j["per_rank"]) std::printf(" %8.3f", p["steps"].value(step.first, 0.0));
    std::printf("\n");
  }
  return 0;
}

int cmd_mesh(const CliArgs& cli) {
  ConfigSource src = ConfigSource::from_file(cli.positional[0]);
  for (const auto& s : cli.sets) src.apply_set(s);
  // On several ranks every rank builds the same mesh; rank 0 alone prints, and writes the file's
  // contents (the others take part in the collective file creation with no rows).
  const Communicator comm = Communicator::world();
  check_ranks_agree(case_entries(src, cli), comm); // before any other collective
  const CaseConfig cfg = parse_case_mesh(src);
  const bool root = comm.rank() == 0;
  if (cli.print_config) {
    if (!root) return 0;
    YAML::Emitter out;
    out << cfg.resolved();
    std::cout << out.c_str() << '\n';
    return 0;
  }
  if (cli.in_parts) return mesh_in_parts(cli, cfg, comm);
  check_case_fits(cfg, cli.compare_orderings ? MemoryUse::mesh_compare
                       : cli.write.empty()   ? MemoryUse::mesh
                                             : MemoryUse::mesh_write);
  UnorderedMesh unordered;
  BuiltMesh b = build_mesh(cfg.mesh, cli.compare_orderings ? &unordered : nullptr);
  MeshReport r = make_report(b.host, b.device, cfg.mesh.reorder);
  r.seconds_build = b.seconds_build;
  r.seconds_reorder = b.seconds_reorder;
  if (cli.compare_orderings) {
    // Each ordering as a permutation of the unordered mesh, its locality without rebuilding.
    for (Ordering o : all_orderings()) {
      const auto perm = ordering_permutation(unordered.host, unordered.device, o, cfg.mesh.reorder_seed);
      std::vector<index_t> new_of_old(perm.size());
      for (std::size_t i = 0; i < perm.size(); ++i) new_of_old[perm[i]] = static_cast<index_t>(i);
      r.orderings.emplace_back(to_string(o), locality(unordered.host, new_of_old));
    }
  }
  if (!cli.write.empty()) {
    namespace fs = std::filesystem;
    const fs::path h5(cli.write), xdmf = fs::path(cli.write).replace_extension(".xdmf");
    if (h5.extension() != ".h5")
      throw InputError("--write", "the mesh file name must end in .h5, got '" + cli.write + "'");
    const fs::path dir = h5.parent_path().empty() ? fs::path(".") : h5.parent_path();
    prepare_output_dir(dir.string(), "--write");
    MeshSlice slice; // the whole mesh from rank 0, nothing from the others: the one-rank file
    if (!root) slice = MeshSlice{0, 0, 0, 0, 0, 0};
    const MeshFileInfo info = write_mesh_file(h5.string(), b.host, file_metadata(cfg), slice);
    if (root) write_atomically(xdmf, xdmf_mesh_text(h5.filename().string(), info), "fvproxy mesh");
    comm.barrier(); // every rank goes on once the files are there
    if (root && !cli.json)
      std::cout << "wrote " << h5.string() << " and " << xdmf.string() << " (" << info.cells << " cells)\n";
  }
  if (root && !cli.json) {
    std::cout << "case " << cfg.name << ": " << b.source << ", ordering " << r.ordering << "\n\n" << to_text(r);
    std::cout.flush();
  }
  // The partition report: computed on every rank (ptscotch by the ranks together), printed by rank 0.
  nlohmann::json partition;
  if (cli.partition > 0) partition_report(cli, src, cfg, b, comm, cli.json ? &partition : nullptr);
  if (!root) return 0;
  if (cli.json) {
    nlohmann::json j = to_json(r);
    j["case"] = cfg.name;
    j["source"] = b.source;
    for (const auto& [key, value] : partition.items()) j[key] = value;
    std::cout << j.dump(2) << '\n';
  }
  return 0;
}

} // namespace

int run_command(const CliArgs& cli, const MpiEnvironment& mpi) {
  (void)mpi;
  if (cli.command == "info") return cmd_info(cli);
  if (cli.command == "mesh") return cmd_mesh(cli);
  if (cli.command == "bench") return cmd_bench(cli);
  if (cli.command == "run") return cmd_run(cli);
  if (cli.command == "perf") return cmd_perf(cli);
  if (cli.command == "compare") return cmd_compare(cli);
  throw InputError("usage", "unknown command '" + cli.command + "'", usage());
}

} // namespace fvproxy
