#include "app/commands.hpp"

#include "app/bench.hpp"
#include "app/compare.hpp"
#include "app/info.hpp"
#include "app/memory_check.hpp"
#include "app/perf.hpp"
#include "app/run.hpp"

#include <filesystem>
#include <iostream>

#include <Kokkos_Core.hpp>
#include <nlohmann/json.hpp>

#include "core/build_info.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "io/field_file.hpp"
#include "io/hdf5_info.hpp"
#include "io/output_file.hpp"
#include "io/xdmf.hpp"
#include "mesh/build.hpp"
#include "mesh/reorder.hpp"
#include "mesh/report.hpp"

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

int cmd_mesh(const CliArgs& cli) {
  ConfigSource src = ConfigSource::from_file(cli.positional[0]);
  for (const auto& s : cli.sets) src.apply_set(s);
  const CaseConfig cfg = parse_case_mesh(src);
  if (cli.print_config) {
    YAML::Emitter out;
    out << cfg.resolved();
    std::cout << out.c_str() << '\n';
    return 0;
  }
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
    const MeshFileInfo info = write_mesh_file(h5.string(), b.host, file_metadata(cfg));
    write_atomically(xdmf, xdmf_mesh_text(h5.filename().string(), info), "fvproxy mesh");
    if (!cli.json)
      std::cout << "wrote " << h5.string() << " and " << xdmf.string() << " (" << info.cells << " cells)\n";
  }
  if (cli.json) {
    nlohmann::json j = to_json(r);
    j["case"] = cfg.name;
    j["source"] = b.source;
    std::cout << j.dump(2) << '\n';
  } else {
    std::cout << "case " << cfg.name << ": " << b.source << ", ordering " << r.ordering << "\n\n" << to_text(r);
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
