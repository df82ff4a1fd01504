// fvproxy bench CASE.yaml: each operator alone on the case's mesh and its initial state, per
// variant: warmed up, fenced, the median of --repeat runs; milliseconds, effective bandwidth from
// a minimal-bytes model (docs/performance.md) and the speedup over naive.
#include "app/bench.hpp"

#include "app/bench_common.hpp"
#include "app/cost_model.hpp"
#include "app/memory_check.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/build_info.hpp"
#include "core/error.hpp"
#include "core/kokkos_compat.hpp"
#include "mesh/build.hpp"
#include "operators/convection/convection.hpp"
#include "operators/diffusion/diffusion.hpp"
#include "operators/face_flux.hpp"
#include "operators/muscl/gradient.hpp"
#include "operators/muscl/limiter.hpp"
#include "physics/scalar_solution.hpp"
#include "solver/boundary_conditions.hpp"
#include "solver/state.hpp"

namespace fvproxy {

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string x;
  while (std::getline(ss, x, ','))
    if (!x.empty()) out.push_back(x);
  return out;
}

} // namespace

int cmd_bench(const CliArgs& cli) {
  ConfigSource src = ConfigSource::from_file(cli.positional[0]);
  for (const auto& s : cli.sets) src.apply_set(s);
  const CaseConfig cfg = parse_case(src);
  const std::vector<std::string> ops =
      cli.operators.empty() ? std::vector<std::string>{"muscl", "convection", "diffusion"} : split(cli.operators);
  const std::vector<std::string> vars =
      cli.variants.empty() ? std::vector<std::string>{"naive", "optimized"} : split(cli.variants);
  for (const auto& o : ops)
    if (o != "muscl" && o != "convection" && o != "diffusion")
      throw InputError("--operators", "unknown operator '" + o + "'", "valid: muscl, convection, diffusion");
  for (const auto& v : vars)
    if (v != "naive" && v != "optimized")
      throw InputError("--variants", "unknown variant '" + v + "'", "valid: naive, optimized");
  if (cli.repeat < 1) throw InputError("--repeat", "must be >= 1");

  check_case_fits(cfg, MemoryUse::bench);
  const BuiltMesh b = build_mesh(cfg.mesh);
  const Mesh& m = b.device;
  const int n = cfg.physics.components;
  const CaseOperators setup(m, cfg);
  const OperatorGeometry& geom = setup.geom;
  const BoundaryConditions& bc = setup.bc;
  View2<real> u("fvproxy::bench::u", m.n_cells, n), ub("fvproxy::bench::ub", m.n_faces - m.n_interior, n);
  View2<real> grad("fvproxy::bench::grad", m.n_cells, 3 * n), lim("fvproxy::bench::limiter", m.n_cells, n);
  View2<real> rhs("fvproxy::bench::rhs", m.n_cells, n);
  fill_from_profile(m, setup.solution, 0, u);
  bc.apply(u, 0, ub);
  make_gradient(m, geom, cfg.operators.muscl, n, true)->compute(u, ub, grad);
  const std::vector<real> range = solution_range(u, ub);
  make_limiter(m, geom, cfg.operators.muscl, n, range)->compute(u, ub, grad, lim);

  const CostModel model = cost_model(m, cfg);
  const bool limited = cfg.operators.convection.order == 2 && cfg.operators.muscl.limiter != Limiter::none;

  struct Row {
    std::string op, variant, what;
    double ms, gbs;
  };
  std::vector<Row> rows;
  for (const auto& op : ops)
    for (const auto& v : vars) {
      OperatorsConfig oc = cfg.operators;
      const Variant var = v == "naive" ? Variant::naive : Variant::optimized;
      oc.muscl.variant = oc.convection.variant = oc.diffusion.variant = var;
      double ms = 0, bytes = 0;
      std::string what;
      if (op == "muscl") {
        auto g = make_gradient(m, geom, oc.muscl, n, cfg.run.deterministic);
        auto l = make_limiter(m, geom, oc.muscl, n, range);
        what = g->description();
        ms = median_ms(cli.repeat, 2, [&](int) {
          g->compute(u, ub, grad);
          if (limited) l->compute(u, ub, grad, lim);
        });
        bytes = model.muscl.bytes;
      } else if (op == "convection") {
        auto c = make_convection(m, geom, oc.convection, setup.phi, n, setup.patch_types, cfg.run.deterministic);
        what = c->description();
        ms = median_ms(cli.repeat, 2, [&](int) { c->apply(u, ub, grad, lim, rhs); });
        bytes = model.convection.bytes;
      } else {
        auto d =
            make_diffusion(m, geom, oc.diffusion, cfg.physics.diffusivity, setup.patch_types, cfg.run.deterministic);
        what = d->description();
        ms = median_ms(cli.repeat, 2, [&](int) { d->apply(u, ub, grad, rhs); });
        bytes = model.diffusion.bytes;
      }
      rows.push_back({op, v, what, ms, bytes / (ms * 1e-3) / 1e9});
    }
  auto naive_ms = [&](const std::string& op) {
    for (const auto& r : rows)
      if (r.op == op && r.variant == "naive") return r.ms;
    return 0.0;
  };
  const BuildInfo info = build_info();
  if (cli.json) {
    nlohmann::json j;
    j["case"] = cfg.name;
    j["cells"] = m.n_cells;
    j["components"] = n;
    j["repeat"] = cli.repeat;
    j["build"] = to_json(info);
    for (const auto& r : rows)
      j["results"].push_back({{"operator", r.op},
                              {"variant", r.variant},
                              {"kernels", r.what},
                              {"ms", r.ms},
                              {"gb_per_s", r.gbs},
                              {"speedup_over_naive", naive_ms(r.op) > 0 ? naive_ms(r.op) / r.ms : 0.0}});
    std::cout << j.dump(2) << '\n';
    return 0;
  }
  std::printf("fvproxy bench: case %s, %d cells, %d component(s), median of %d, %s on %s, Kokkos %s\n\n",
              cfg.name.c_str(), m.n_cells, n, cli.repeat, info.default_execution_space.c_str(), info.device.c_str(),
              info.kokkos_version.c_str());
  std::printf("  %-11s %-10s %-28s %10s %10s %9s\n", "operator", "variant", "kernels", "ms", "GB/s", "speedup");
  for (const auto& r : rows) {
    const double nm = naive_ms(r.op);
    std::printf("  %-11s %-10s %-28s %10.4f %10.1f %9s\n", r.op.c_str(), r.variant.c_str(), r.what.c_str(), r.ms, r.gbs,
                nm > 0 ? (std::to_string(nm / r.ms).substr(0, 5) + "x").c_str() : "-");
  }
  return 0;
}

} // namespace fvproxy
