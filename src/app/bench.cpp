// fvproxy bench CASE.yaml: each operator alone on the case's mesh and its initial state, per
// variant: warmed up, fenced, the median of --repeat runs; milliseconds, effective bandwidth from
// a minimal-bytes model (docs/performance.md) and the speedup over naive. Under mpirun each rank
// times the operators on its part of the decomposed mesh (owned cells, ghosts filled once before),
// every timed call started together, and the halo exchange separately; rank 0 reports each rank's
// median and the slowest rank's (docs/performance.md#on-several-ranks).
#include "app/bench.hpp"
#include "app/case_agreement.hpp"

#include "app/bench_common.hpp"
#include "app/cost_model.hpp"
#include "app/memory_check.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/rank_report.hpp"
#include "core/build_info.hpp"
#include "core/error.hpp"
#include "core/kokkos_compat.hpp"
#include "mesh/build.hpp"
#include "operators/convection/convection.hpp"
#include "operators/diffusion/diffusion.hpp"
#include "operators/face_flux.hpp"
#include "operators/ladder/ladder.hpp"
#include "operators/muscl/gradient.hpp"
#include "operators/muscl/limiter.hpp"
#include "operators/muscl/muscl.hpp"
#include "parallel/decomposition.hpp"
#include "parallel/parts.hpp"
#include "parallel/placement.hpp"
#include "solver/boundary_conditions.hpp"
#include "solver/diagnostics.hpp"
#include "solver/scalar_solution.hpp"
#include "solver/scalar_solver.hpp"
#include "solver/state.hpp"

namespace fvproxy {

namespace {

/// The ablation ladder's step of a --variants entry "ladder<k>" (operators/ladder/ladder.hpp), -1 for
/// the other variants.
int ladder_step(const std::string& v) {
  if (v.rfind("ladder", 0) != 0) return -1;
  const std::string k = v.substr(6);
  if (k.size() != 1 || k[0] < '0' || k[0] >= '0' + kLadderSteps)
    throw InputError("--variants", "unknown variant '" + v + "'",
                     "ladder0 to ladder" + std::to_string(kLadderSteps - 1) + " (the ablation ladder's steps)");
  return k[0] - '0';
}

/// fvproxy bench times the scalar model's operators only.
void check_scalar_model(const CaseConfig& cfg) {
  if (cfg.physics.is_flow())
    throw InputError(cfg.source_file,
                     std::string("fvproxy bench times the scalar model's operators; physics.model: ") +
                         to_string(cfg.physics.model) + " is a flow model",
                     "time the flow operators with fvproxy perf (operators: [flow-convection, flow-viscous]; "
                     "perf/README.md), or a whole flow run with fvproxy run --profile");
}

/// --operators, or every operator (and on several ranks the halo exchange).
std::vector<std::string> bench_operators(const CliArgs& cli, bool several) {
  std::vector<std::string> ops =
      cli.operators.empty() ? std::vector<std::string>{"muscl", "convection", "diffusion"} : split_list(cli.operators);
  if (cli.operators.empty() && several) ops.push_back("halo");
  return ops;
}

/// InputError for an unknown operator or variant, a --repeat below 1, or the halo alone on one rank.
void check_selection(const CliArgs& cli, const CaseConfig& cfg, const std::vector<std::string>& ops,
                     const std::vector<std::string>& vars, bool several) {
  for (const auto& o : ops)
    if (o != "muscl" && o != "convection" && o != "diffusion" && o != "halo")
      throw InputError("--operators", "unknown operator '" + o + "'", "valid: muscl, convection, diffusion, halo");
  for (const auto& v : vars) {
    if (ladder_step(v) >= 0) {
      check_ladder_components(cfg.physics.components, "physics.components");
      continue;
    }
    if (v != "naive" && v != "optimized")
      throw InputError("--variants", "unknown variant '" + v + "'", "valid: naive, optimized, ladder0 to ladder6");
  }
  if (cli.repeat < 1) throw InputError("--repeat", "must be >= 1");
  if (!several && std::all_of(ops.begin(), ops.end(), [](const std::string& o) { return o == "halo"; }))
    throw InputError("--operators", "halo: one rank has no halo exchange to time",
                     "run under mpirun -np N with N > 1, or name an operator");
}

/// The mesh the operators run on (the whole mesh, or on several ranks this rank's part) and how
/// long building it took.
struct BenchMesh {
  std::optional<BuiltMesh> whole;
  std::optional<Decomposition> part;
  bool in_parts = false;
  double build_seconds = 0; ///< the slowest rank's

  BenchMesh(const CaseConfig& cfg, const Communicator& comm, bool several) {
    // On several ranks: this rank's part, as `fvproxy run` divides the mesh (owned cells + ghosts),
    // built in parts where it can be (no rank holds the whole mesh: docs/decomposition.md#built-in-parts).
    Kokkos::Timer build_timer;
    in_parts = several && builds_in_parts(cfg.mesh);
    if (in_parts) {
      part.emplace(decompose_in_parts(cfg.mesh, comm, cfg.parallel.halo));
    } else if (several) { // built and partitioned on rank 0, each rank sent its part
      part.emplace(decompose_from_root(cfg.mesh, comm, cfg.parallel.halo));
    } else {
      whole.emplace(build_mesh(cfg.mesh));
    }
    build_seconds = comm.max(build_timer.seconds()); // the slowest rank's
  }
};

/// One row of the report: an operator's variant, its kernels, median time and bandwidth.
struct Row {
  std::string op, variant, what;
  double ms, gbs;               ///< gbs: the model's bytes until gather_rows divides them by the time
  std::vector<double> per_rank; ///< this row's median on every rank (rank 0)
};

/// The operators' inputs on this rank's mesh (the case's initial state, its boundary values,
/// gradients and limiter) and the timing of each operator's variants on them.
struct OperatorBench {
  const CliArgs& cli;
  const CaseConfig& cfg;
  const Communicator& comm;
  const bool several;
  const std::optional<Decomposition>& part;
  const Mesh& m;
  Halo* halo;
  const int n;
  const CaseOperators setup;
  const OperatorGeometry& geom;
  const index_t L; // owned + ghost rows
  View2<real> u, ub, grad, lim, rhs;
  LimiterScale scale;    // the limiter's (scalar_limiter_scale of the domain)
  const CostModel model; // the whole mesh's bytes
  const bool limited;
  // What one exchange per stage moves: the state, plus the gradients and the limiter values when the
  // case's operators read them across faces (ScalarSolver::halo_values_per_ghost).
  const int per_ghost;
  const bool halo_grad, halo_lim;
  double halo_bytes = 0; ///< set once the inputs are filled (a collective, in its place among the others)
  const Communicator* sync;

  OperatorBench(const CliArgs& cli, const CaseConfig& cfg, const Communicator& comm, const BenchMesh& mesh,
                const Mesh& counts);
  void fill_inputs();
  std::vector<Row> time(const std::vector<std::string>& ops, const std::vector<std::string>& vars);
  Row time_halo(const std::string& op, const std::string& v);
  Row time_operator(const std::string& op, const std::string& v);
};

OperatorBench::OperatorBench(const CliArgs& cli, const CaseConfig& cfg, const Communicator& comm, const BenchMesh& mesh,
                             const Mesh& counts)
    : cli(cli), cfg(cfg), comm(comm), several(comm.size() > 1), part(mesh.part),
      m(part ? part->mesh : mesh.whole->device), halo(part ? part->halo.get() : nullptr), n(cfg.physics.components),
      setup(m, cfg), geom(setup.geom), L(m.n_local()), u("fvproxy::bench::u", L, n),
      ub("fvproxy::bench::ub", m.n_faces - m.n_interior, n), grad("fvproxy::bench::grad", L, 3 * n),
      lim("fvproxy::bench::limiter", L, n), rhs("fvproxy::bench::rhs", L, n), model(cost_model(counts, cfg)),
      limited(cfg.operators.convection.order == 2 && cfg.operators.muscl.limiter != Limiter::none),
      per_ghost(ScalarSolver::halo_values_per_ghost(cfg, halo ? halo->layers() : 1)), halo_grad(per_ghost >= 4 * n),
      halo_lim(per_ghost >= 5 * n), sync(several ? &comm : nullptr) {
  fill_inputs();
  halo_bytes = comm.sum(double(halo ? halo->rows_sent() : 0) * double(per_ghost) * double(sizeof(real))); // all ranks
}

void OperatorBench::fill_inputs() {
  const BoundaryConditions& bc = setup.bc;
  fill_from_profile(m, setup.solution, 0, u);
  // The ghosts' values are filled once, before the operators are timed (the exchange is timed
  // apart: operator "halo"), so every rank computes what it would in a step.
  if (halo) halo->exchange(u);
  bc.apply(u, 0, ub);
  make_gradient(m, geom, cfg.operators.muscl, n, true)->compute(u, ub, grad);
  { // the domain's range, as the solver takes it
    const auto [lo, hi] = several ? domain_bounds(m, u, ub, comm) : value_bounds(u, ub);
    scale = scalar_limiter_scale(lo, hi);
  }
  make_limiter(m, geom, cfg.operators.muscl, scale)->compute(u, ub, grad, lim);
  if (halo) halo->exchange(std::vector<View2<real>>{grad, lim});
}

std::vector<Row> OperatorBench::time(const std::vector<std::string>& ops, const std::vector<std::string>& vars) {
  std::vector<Row> rows;
  for (const auto& op : ops)
    for (const auto& v : vars) {
      if (op == "halo") {
        if (!part || ladder_step(v) >= 0) continue; // one rank: nothing to exchange; no ladder for the halo
        rows.push_back(time_halo(op, v));
        continue;
      }
      rows.push_back(time_operator(op, v));
    }
  return rows;
}

Row OperatorBench::time_halo(const std::string& op, const std::string& v) {
  const HaloVariant hv = v == "naive" ? HaloVariant::naive : HaloVariant::optimized;
  Halo h(part->local, comm, hv, cfg.parallel.halo.transport);
  std::vector<View2<real>> reconstruction; // the stage's second exchange: one message per neighbour
  if (halo_grad) reconstruction.push_back(grad);
  if (halo_lim) reconstruction.push_back(lim);
  const double ms = median_ms(
      cli.repeat, 2,
      [&](int) {
        h.exchange(u);
        if (!reconstruction.empty()) h.exchange(reconstruction);
      },
      sync, op + " " + v);
  const std::string what =
      std::string("u") + (halo_grad ? "+grad" : "") + (halo_lim ? "+lim" : "") + " per stage"; // one stage's
  return {op, v, what, ms, 0, {}};
}

Row OperatorBench::time_operator(const std::string& op, const std::string& v) {
  OperatorsConfig oc = cfg.operators;
  const Variant var = v == "naive" ? Variant::naive : Variant::optimized;
  oc.muscl.variant = oc.convection.variant = oc.diffusion.variant = var;
  double ms = 0, bytes = 0;
  std::string what;
  const int step = ladder_step(v);
  if (op == "muscl") {
    std::unique_ptr<MusclOperator> mu; // the ladder's step (two passes), or the variant's operator
    if (step >= 0) {
      LadderMuscl lm = make_ladder_muscl(step, m, geom, oc.muscl, n, scale);
      mu = make_two_pass_muscl(std::move(lm.gradient), limited ? std::move(lm.limiter) : nullptr);
    } else {
      mu = make_muscl(m, geom, oc.muscl, n, cfg.run.deterministic, limited ? scale : LimiterScale{});
    }
    what = mu->description();
    ms = median_ms(
        cli.repeat, 2, [&](int) { mu->compute(u, ub, grad, lim); }, sync, op + " " + v);
    bytes = model.muscl.bytes;
  } else if (op == "convection") {
    auto c = step >= 0
                 ? make_ladder_convection(step, m, geom, oc.convection, setup.phi, n, setup.patch_types)
                 : make_convection(m, geom, oc.convection, setup.phi, n, setup.patch_types, cfg.run.deterministic);
    what = c->description();
    ms = median_ms(
        cli.repeat, 2, [&](int) { c->apply(u, ub, grad, lim, rhs); }, sync, op + " " + v);
    bytes = model.convection.bytes;
  } else {
    auto d = step >= 0 ? make_ladder_diffusion(step, m, geom, oc.diffusion, cfg.physics.diffusivity, setup.patch_types)
                       : make_diffusion(m, geom, oc.diffusion, cfg.physics.diffusivity, setup.patch_types,
                                        cfg.run.deterministic);
    what = d->description();
    ms = median_ms(
        cli.repeat, 2, [&](int) { d->apply(u, ub, grad, rhs); }, sync, op + " " + v);
    bytes = model.diffusion.bytes;
  }
  return {op, v, what, ms, bytes, {}};
}

/// Every rank's medians on rank 0; a row's time is the slowest rank's (what bounds a step).
void gather_rows(const Communicator& comm, std::vector<Row>& rows, double halo_bytes) {
  for (Row& r : rows) {
    r.per_rank = gather_values(comm, r.ms);
    if (!r.per_rank.empty()) r.ms = r.per_rank[slowest(r.per_rank)];
    r.gbs = (r.op == "halo" ? halo_bytes : r.gbs) / (r.ms * 1e-3) / 1e9;
  }
}

/// Where each rank ran and what it held.
std::vector<nlohmann::json> gather_placements(const Communicator& comm, const Mesh& m) {
  nlohmann::json me = to_json(rank_placement(comm));
  me["owned_cells"] = m.n_cells;
  me["ghost_cells"] = m.n_ghosts;
  std::vector<nlohmann::json> placements;
  for (const auto& s : comm.gather(me.dump())) placements.push_back(nlohmann::json::parse(s));
  return placements;
}

double naive_ms(const std::vector<Row>& rows, const std::string& op) {
  for (const auto& r : rows)
    if (r.op == op && r.variant == "naive") return r.ms;
  return 0.0;
}

/// What rank 0 reports: the case, its mesh, each rank's placement and the timed rows.
struct BenchReport {
  const CliArgs& cli;
  const CaseConfig& cfg;
  const Communicator& comm;
  const Mesh& counts;
  const BenchMesh& mesh;
  const std::vector<Row>& rows;
  const std::vector<nlohmann::json>& placements;

  void print_json() const;
  void print_text() const;
};

void BenchReport::print_json() const {
  const int n = cfg.physics.components;
  const BuildInfo info = build_info();
  nlohmann::json j;
  j["case"] = cfg.name;
  j["cells"] = counts.n_global_cells;
  j["mesh_build"] = {{"seconds", mesh.build_seconds}, {"in_parts", mesh.in_parts}};
  j["components"] = n;
  j["repeat"] = cli.repeat;
  j["build"] = to_json(info);
  j["ranks"] = comm.size();
  j["per_rank"] = placements;
  for (const auto& r : rows) {
    nlohmann::json x = {
        {"operator", r.op},  {"variant", r.variant},
        {"kernels", r.what}, {"ms", r.ms},
        {"gb_per_s", r.gbs}, {"speedup_over_naive", naive_ms(rows, r.op) > 0 ? naive_ms(rows, r.op) / r.ms : 0.0}};
    const nlohmann::json st = over_ranks(r.per_rank);
    x["slowest_rank"] = st["slowest_rank"];
    x["ms_over_ranks"] = {{"min", st["min"]}, {"mean", st["mean"]}, {"max", st["max"]}};
    x["per_rank"] = nlohmann::json::array();
    for (std::size_t k = 0; k < r.per_rank.size(); ++k) x["per_rank"].push_back({{"rank", k}, {"ms", r.per_rank[k]}});
    j["results"].push_back(x);
  }
  std::cout << j.dump(2) << '\n';
}

void BenchReport::print_text() const {
  const int n = cfg.physics.components;
  const bool several = comm.size() > 1;
  const BuildInfo info = build_info();
  std::printf("fvproxy bench: case %s, %lld cells, %d component(s), median of %d, %s on %s, Kokkos %s\n",
              cfg.name.c_str(), static_cast<long long>(counts.n_global_cells), n, cli.repeat,
              info.default_execution_space.c_str(), info.device.c_str(), info.kokkos_version.c_str());
  std::printf("  mesh %s in %.2f s (slowest rank)\n",
              mesh.in_parts ? "built in parts"
              : several     ? "built on rank 0 and sent in parts"
                            : "built",
              mesh.build_seconds);
  if (several) {
    std::printf("  on %d ranks (partition %s); each rank times its own part, every call started together; ms is the "
                "slowest rank's median, GB/s the whole mesh's bytes over it; operators without the halo exchange "
                "(ghosts filled once before), the exchange apart (halo)\n",
                comm.size(), to_string(cfg.mesh.partition));
    for (const auto& p : placements)
      std::printf("    rank %d: %s, device %s%s, %lld owned cells, %lld ghosts\n", p["rank"].get<int>(),
                  p["host"].get<std::string>().c_str(), p["device"].get<std::string>().c_str(),
                  p["device_id"].is_null() ? "" : (" " + std::to_string(p["device_id"].get<int>())).c_str(),
                  p["owned_cells"].get<long long>(), p["ghost_cells"].get<long long>());
  }
  std::printf("\n  %-11s %-10s %-28s %10s %10s %9s", "operator", "variant", "kernels", "ms", "GB/s", "speedup");
  if (several) std::printf(" %5s  %s", "rank", "ms per rank");
  std::printf("\n");
  for (const auto& r : rows) {
    const double nm = naive_ms(rows, r.op);
    std::printf("  %-11s %-10s %-28s %10.4f %10.1f %9s", r.op.c_str(), r.variant.c_str(), r.what.c_str(), r.ms, r.gbs,
                nm > 0 ? (std::to_string(nm / r.ms).substr(0, 5) + "x").c_str() : "-");
    if (several) {
      std::printf(" %5d ", slowest(r.per_rank));
      for (double t : r.per_rank) std::printf(" %.4f", t);
    }
    std::printf("\n");
  }
}

} // namespace

int cmd_bench(const CliArgs& cli) {
  ConfigSource src = ConfigSource::from_file(cli.positional[0]);
  for (const auto& s : cli.sets) src.apply_set(s);
  check_ranks_agree(case_entries(src, cli), Communicator::world()); // before any other collective
  const CaseConfig cfg = parse_case(src);
  check_scalar_model(cfg);
  const Communicator comm = Communicator::world();
  const bool several = comm.size() > 1;
  const std::vector<std::string> ops = bench_operators(cli, several);
  const std::vector<std::string> vars =
      cli.variants.empty() ? std::vector<std::string>{"naive", "optimized"} : split_list(cli.variants);
  check_selection(cli, cfg, ops, vars, several);

  check_case_fits(cfg, MemoryUse::bench, comm.size());
  const BenchMesh mesh(cfg, comm, several);
  const Mesh counts = mesh.whole ? mesh.whole->device : whole_mesh_counts(*mesh.part, comm); // the whole mesh's sizes
  OperatorBench bench(cli, cfg, comm, mesh, counts);
  std::vector<Row> rows = bench.time(ops, vars);
  gather_rows(comm, rows, bench.halo_bytes);
  const std::vector<nlohmann::json> placements = gather_placements(comm, bench.m);
  if (comm.rank() != 0) return 0;
  const BenchReport report{cli, cfg, comm, counts, mesh, rows, placements};
  if (cli.json) {
    report.print_json();
    return 0;
  }
  report.print_text();
  return 0;
}

} // namespace fvproxy
