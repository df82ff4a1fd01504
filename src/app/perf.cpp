// fvproxy perf SPEC.yaml: the performance harness's engine (perf/README.md, docs/performance.md).
// In one process: the device's copy limit (deep_copy and a copy kernel under each launch policy),
// then for every mesh of the spec (a generated box or a Gmsh file, built once in generation or
// file order) and every ordering (applied as an in-process permutation), every component count,
// operator and variant: the median time of `repeat` fenced applications after warm-up, with the
// inputs rotated over enough copies that the working set exceeds the L2 cache several times. Raw
// rows go to DIR/results.csv and DIR/results.json, rewritten (atomically) after every
// configuration so a cut-off run keeps what it measured. Under mpirun each mesh is decomposed as
// `fvproxy run` divides it; every rank times its part (operators with the ghosts filled once
// before, untimed; "step" with its exchanges), every call started together, and a row's time is
// the slowest rank's (docs/performance.md).
#include "app/perf.hpp"
#include "app/case_agreement.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/bench_common.hpp"
#include "app/cost_model.hpp"
#include "app/info.hpp"
#include "app/memory_check.hpp"
#include "app/perf_spec.hpp"
#include "core/error.hpp"
#include "core/kokkos_compat.hpp"
#include "io/output_file.hpp"
#include "mesh/build.hpp"
#include "mesh/reorder.hpp"
#include "mesh/report.hpp"
#include "operators/convection/convection.hpp"
#include "operators/diffusion/diffusion.hpp"
#include "operators/face_flux.hpp"
#include "operators/flow/flow_convection.hpp"
#include "operators/flow/flow_viscous.hpp"
#include "operators/ladder/ladder.hpp"
#include "operators/launch.hpp"
#include "operators/muscl/gradient.hpp"
#include "operators/muscl/limiter.hpp"
#include "operators/muscl/muscl.hpp"
#include "parallel/decomposition.hpp"
#include "solver/boundary_conditions.hpp"
#include "solver/diagnostics.hpp"
#include "solver/flow_solver.hpp"
#include "solver/scalar_solution.hpp"
#include "solver/scalar_solver.hpp"
#include "solver/state.hpp"

namespace fvproxy {

namespace {

namespace fs = std::filesystem;

/// The flow operators' benchmark state: a smooth subsonic flow at the cell centroids (x shifted per rotation copy).
struct FlowBenchState {
  ConstVec3View<real> C;
  View2<real> u;
  real shift;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    const real x = C(c, 0) + shift, y = C(c, 1), z = C(c, 2);
    const flow::Primitive w{real(1) + real(0.2) * kc::sin(6 * x + 3 * y),
                            {real(0.3) * kc::cos(5 * y + z), real(0.2) * kc::sin(4 * x - z), real(-0.1)},
                            real(1) + real(0.1) * kc::cos(7 * x - 2 * z)};
    const flow::Conserved U = flow::to_conserved(w, flow::IdealGas{});
    u(c, 0) = U.rho, u(c, 1) = U.m[0], u(c, 2) = U.m[1], u(c, 3) = U.m[2], u(c, 4) = U.E;
  }
};

struct Copy {
  View1<real> dst;
  ConstView1<real> src;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t i) const { dst(i) = src(i); }
};

struct CopyLimit {
  std::string method;
  double ms = 0, gb_per_s = 0;
};

/// Device-to-device copy bandwidth (bytes read + written): deep_copy and the copy kernel under
/// each launch policy the optimized variants offer.
std::vector<CopyLimit> measure_copy(double bytes, int repeat, const Communicator& comm) {
  // Several ranks: each copies its own arrays, all together; the limit is their bytes over the
  // slowest rank's time (the ranks' aggregate bandwidth).
  const Communicator* sync = comm.size() > 1 ? &comm : nullptr;
  const auto n = static_cast<index_t>(std::min(bytes / sizeof(real), 2.0e9));
  View1<real> a("fvproxy::perf::copy_a", n), b("fvproxy::perf::copy_b", n);
  Kokkos::deep_copy(a, real(1));
  const double moved = 2.0 * double(n) * sizeof(real) * comm.size();
  std::vector<CopyLimit> out;
  auto add = [&](const std::string& name, double ms) {
    ms = comm.max(ms);
    out.push_back({name, ms, moved / (ms * 1e-3) / 1e9});
  };
  add("deep_copy", median_ms(
                       repeat, 2, [&](int) { Kokkos::deep_copy(b, a); }, sync));
  add("copy kernel, range", median_ms(
                                repeat, 2,
                                [&](int) {
                                  launch("fvproxy::perf::copy_range", n, LaunchOptions{Policy::range, 128}, Copy{b, a});
                                },
                                sync));
  for (int ts : {128, 256, 512})
    add("copy kernel, team " + std::to_string(ts),
        median_ms(
            repeat, 2,
            [&](int) {
              launch("fvproxy::perf::copy_team", n, LaunchOptions{Policy::team, ts}, Copy{b, a});
            },
            sync));
  return out;
}

struct PerfRow {
  std::string element;
  int size = 0;
  index_t cells = 0;
  std::string ordering;
  int components = 0;
  std::string op, variant, kernels;
  std::string flux; ///< flow-convection: the numerical flux; "" otherwise
  double ms = 0, bytes = 0, flops = 0, gb_per_s = 0, fraction = 0, speedup = 0;
  double fused_bytes = 0, fused_fraction = 0; ///< the step against the fused model (operators: as bytes)
  int rotation = 1;
  int ranks = 1, slowest_rank = 0;
  std::vector<double> ms_per_rank; ///< each rank's median (ms is the slowest's)
};

/// The case's configuration on one mesh with N components (the first initial entry and
/// diffusivity repeated).
CaseConfig with_components(const CaseConfig& base, int n) {
  CaseConfig c = base;
  c.physics.components = n;
  c.physics.diffusivity.assign(n, base.physics.diffusivity.at(0));
  c.initial.assign(n, base.initial.at(0));
  return c;
}

OperatorsConfig apply_variant(OperatorsConfig oc, const VariantSpec& v) {
  if (v.step_given) oc.step = v.step; // e.g. {defaults: true, step: fused}: one face pass
  if (v.case_options) {
    if (v.fused_given) oc.muscl.fused = v.fused; // e.g. {defaults: true, fused: false}: the two passes
    if (v.scatter_given) oc.convection.scatter = oc.diffusion.scatter = v.options.scatter; // e.g. stored
    return oc;
  }
  for (OperatorOptions* o : {static_cast<OperatorOptions*>(&oc.muscl), static_cast<OperatorOptions*>(&oc.convection),
                             static_cast<OperatorOptions*>(&oc.diffusion)}) {
    o->variant = v.options.variant;
    o->scatter = v.options.scatter;
    o->policy = v.options.policy;
    o->team_size = v.options.team_size;
  }
  if (oc.muscl.scatter == Scatter::stored) oc.muscl.scatter = Scatter::gather; // the gradients always gather
  oc.muscl.fused = v.fused;
  if (!v.step_given) oc.step = default_step(oc, PhysicsModel::scalar); // as a case with these options
  return oc;
}

/// How many copies of the inputs the timing rotates over: enough that their working set exceeds
/// the L2 cache several times (at most 8).
int rotations(const Mesh& m, int n, double l2_bytes) {
  const index_t C = m.n_cells, Fb = m.n_faces - m.n_interior;
  const double copy_bytes = sizeof(real) * (double(C) * n * 6 + double(Fb) * n);
  return static_cast<int>(std::clamp(std::ceil(4 * l2_bytes / copy_bytes), 1.0, 8.0));
}

/// One rotation copy of the scalar operators' inputs.
struct Inputs {
  View2<real> u, ub, grad, lim, rhs;
};

/// One rotation copy of the flow operators' inputs.
struct FlowInputs {
  View2<real> u, ub, grad, lim, w, wb, gw, rhs;
};

/// Every operator x variant on one mesh and component count: `m` this rank's part (the whole mesh
/// on one rank, with `halo` null), `global` the whole mesh (the bytes model).
class ConfigurationBench {
public:
  ConfigurationBench(const Mesh& m, const Mesh& global, const CaseConfig& cfg, const PerfSpec& spec, double copy_limit,
                     const Communicator& comm, Halo* halo);
  std::vector<PerfRow> run();

private:
  void fill_inputs();
  void fill_flow_inputs();
  double flow_step_bytes(bool viscous) const;
  CaseConfig flow_step_case(bool ns, const OperatorsConfig& oc) const;
  PerfRow flow_step_row(const std::string& op, const VariantSpec& v, const OperatorsConfig& oc) const;
  PerfRow flow_operator_row(const std::string& op, const VariantSpec& v, const OperatorsConfig& oc,
                            std::size_t fi) const;
  PerfRow operator_row(const std::string& op, const VariantSpec& v, const OperatorsConfig& oc) const;
  void time_muscl(PerfRow& row, const VariantSpec& v, const OperatorsConfig& oc, int warm) const;
  void time_convection(PerfRow& row, const VariantSpec& v, const OperatorsConfig& oc, int warm) const;
  void time_diffusion(PerfRow& row, const VariantSpec& v, const OperatorsConfig& oc, int warm) const;
  void time_step(PerfRow& row, const OperatorsConfig& oc) const;
  void take_slowest(PerfRow& row) const;

  const Mesh& m;
  const Mesh& global;
  const CaseConfig& cfg;
  const PerfSpec& spec;
  const double copy_limit;
  const Communicator& comm;
  Halo* halo;
  const int n;
  const Communicator* sync;
  const CaseOperators setup;
  const OperatorGeometry& geom;
  const View1<real>& phi;
  const std::vector<BoundaryType>& types;
  const index_t L, Fb;
  const int R;
  std::vector<Inputs> in;
  LimiterScale scale; // the limiter's (scalar_limiter_scale of the domain)
  const bool flow_ops;
  // Slip walls on the scalar operators' geometry (face-value boundaries, not the flow solver's
  // mirror ghosts: the same kernels and bytes, other boundary values; one geometry in memory).
  const std::vector<FlowPatchBC> walls;
  std::vector<FlowInputs> fin;
  // Minimal bytes of the flow operators (each array once, as the atomic scatter reads them), global.
  const double Cg, Fi, Fbg;
  const double flow_conv_bytes;
  const double flow_visc_bytes;
  const CostModel model;
  const bool limited;
};

ConfigurationBench::ConfigurationBench(const Mesh& m, const Mesh& global, const CaseConfig& cfg, const PerfSpec& spec,
                                       double copy_limit, const Communicator& comm, Halo* halo)
    : m(m), global(global), cfg(cfg), spec(spec), copy_limit(copy_limit), comm(comm), halo(halo),
      n(cfg.physics.components), sync(comm.size() > 1 ? &comm : nullptr), setup(m, cfg), geom(setup.geom),
      phi(setup.phi), types(setup.patch_types), L(m.n_local()), Fb(m.n_faces - m.n_interior),
      R(rotations(m, n, spec.l2_bytes)), in(R),
      flow_ops(n == 5 && std::any_of(spec.operators.begin(), spec.operators.end(),
                                     [](const std::string& o) { return o.rfind("flow-", 0) == 0; })),
      walls(m.patches.size()), Cg(double(global.n_cells)), Fi(double(global.n_interior)),
      Fbg(double(global.n_faces) - Fi),
      flow_conv_bytes(sizeof(real) * (Cg * 36 + Fi * 10 + Fbg * 7) + sizeof(index_t) * (2 * Fi + Fbg)),
      flow_visc_bytes(sizeof(real) * (Cg * 25 + Fi * 11) + sizeof(index_t) * 2 * Fi), model(cost_model(global, cfg)),
      limited(cfg.operators.convection.order == 2 && cfg.operators.muscl.limiter != Limiter::none) {
  fill_inputs();
  if (flow_ops) fill_flow_inputs();
}

/// The scalar operators' inputs, R rotation copies: the case's initial state, its boundary values,
/// gradients and limiter values, and the scale the limiters take.
void ConfigurationBench::fill_inputs() {
  const BoundaryConditions& bc = setup.bc;
  const auto reference = make_gradient(m, geom, cfg.operators.muscl, n, false);
  std::unique_ptr<LimiterOperator> reference_limiter;
  for (int k = 0; k < R; ++k) {
    in[k] = {View2<real>("fvproxy::perf::u", L, n), View2<real>("fvproxy::perf::ub", Fb, n),
             View2<real>("fvproxy::perf::grad", L, 3 * n), View2<real>("fvproxy::perf::limiter", L, n),
             View2<real>("fvproxy::perf::rhs", L, n)};
    fill_from_profile(m, setup.solution, 0, in[k].u);
    if (halo) halo->exchange(in[k].u); // ghosts filled once, before (and outside) the timing
    bc.apply(in[k].u, 0, in[k].ub);
    reference->compute(in[k].u, in[k].ub, in[k].grad);
    if (k == 0) {
      // the domain's range, as the solver takes it
      const auto [lo, hi] = halo ? domain_bounds(m, in[k].u, in[k].ub, comm) : value_bounds(in[k].u, in[k].ub);
      scale = scalar_limiter_scale(lo, hi);
      reference_limiter = make_limiter(m, geom, cfg.operators.muscl, scale);
    }
    reference_limiter->compute(in[k].u, in[k].ub, in[k].grad, in[k].lim);
    if (halo) {
      halo->exchange(in[k].grad);
      halo->exchange(in[k].lim);
    }
  }
}

void ConfigurationBench::fill_flow_inputs() {
  // The compressible model's operators (flow-convection, flow-viscous; 5 variables): a smooth
  // subsonic state, its boundary values (slip walls), its gradients and limiter values (the case's
  // muscl), and W = (u, v, w, T) with its gradients, R rotations like the scalar inputs.
  const flow::IdealGas gas;
  fin.resize(R);
  MusclConfig gradient_only = cfg.operators.muscl;
  gradient_only.limiter = Limiter::none;
  for (int k = 0; k < R; ++k) {
    FlowInputs& f = fin[k];
    f = {View2<real>("fvproxy::perf::flow_u", L, 5),     View2<real>("fvproxy::perf::flow_ub", Fb, 5),
         View2<real>("fvproxy::perf::flow_grad", L, 15), View2<real>("fvproxy::perf::flow_lim", L, 5),
         View2<real>("fvproxy::perf::flow_w", L, 4),     View2<real>("fvproxy::perf::flow_wb", Fb, 4),
         View2<real>("fvproxy::perf::flow_gw", L, 12),   View2<real>("fvproxy::perf::flow_rhs", L, 5)};
    Kokkos::parallel_for("fvproxy::perf::flow_state", Kokkos::RangePolicy<ExecSpace>(0, m.n_cells),
                         FlowBenchState{m.centroid, f.u, real(0.1) * k});
    if (halo) halo->exchange(f.u);
    flow_boundary_values(m, gas, walls, f.u, f.ub);
    make_muscl(m, geom, cfg.operators.muscl, 5, false, flow_limiter_scale())->compute(f.u, f.ub, f.grad, f.lim);
    flow_primitive_fields(m, gas, walls, f.u, f.w, f.wb);
    make_muscl(m, geom, gradient_only, 4, false, {})->compute(f.w, f.wb, f.gw, f.lim);
    if (halo) {
      halo->exchange(f.grad);
      halo->exchange(f.lim);
      halo->exchange(f.gw);
    }
  }
}

// One flow step (flow-euler-step, flow-ns-step) as the sum of the separate kernels' minimal bytes
// (the yardstick kept since 2026-11-24, so figures compare across revisions; the fused passes that
// now run move fewer: docs/performance.md#one-cell-pass-for-navier-stokes), per stage: boundary
// values, the muscl operator on 5 variables, the convection, the zeroed rate and the stage update
// (u, rhs read, u written, u^n read or written); navier-stokes adds W = (u, v, w, T) with its
// boundary values, its gradients (the gradient's model on 4 variables) and the viscous operator. Per step: the
// stable-step reduction (the state, each cell's face vectors, 1/V) and the physical check (the state).
double ConfigurationBench::flow_step_bytes(bool viscous) const {
  const double Rb = sizeof(real);
  const double stages = double(shu_osher_stages(cfg.time.integrator).size());
  double stage = Rb * Fbg * 10 + model.muscl.bytes + flow_conv_bytes + Rb * Cg * 5 + Rb * Cg * 20;
  if (viscous) {
    CaseConfig g = cfg;
    g.physics.components = 4;
    g.operators.muscl.limiter = Limiter::none;
    stage += Rb * (Cg * 9 + Fbg * 4) + cost_model(global, g).muscl.bytes + flow_visc_bytes;
  }
  return stages * stage + Rb * (Cg * 5 + 3 * double(global.n_faces) * 2 + Cg) + sizeof(index_t) * Cg * 7 + Rb * Cg * 5;
}

std::vector<PerfRow> ConfigurationBench::run() {
  std::vector<PerfRow> rows;
  for (const auto& op : spec.operators)
    for (const auto& v : spec.variants) {
      const OperatorsConfig oc = apply_variant(cfg.operators, v);
      if (op == "flow-euler-step" || op == "flow-ns-step") { // one time step of the flow solver
        if (!flow_ops || v.ladder >= 0) continue;
        rows.push_back(flow_step_row(op, v, oc));
        continue;
      }
      if (op.rfind("flow-", 0) == 0) { // the compressible model's operators: one row per flux (convection)
        if (!flow_ops || v.ladder >= 0) continue;
        const bool conv = op == "flow-convection";
        for (std::size_t fi = 0; fi < (conv ? spec.fluxes.size() : 1); ++fi)
          rows.push_back(flow_operator_row(op, v, oc, fi));
        continue;
      }
      rows.push_back(operator_row(op, v, oc));
    }
  for (PerfRow& r : rows)
    for (const PerfRow& b : rows)
      if (b.op == r.op && b.flux == r.flux && b.variant == "naive") r.speedup = b.ms / r.ms;
  return rows;
}

/// The case of a flow step row: the compressible model on this mesh.
CaseConfig ConfigurationBench::flow_step_case(bool ns, const OperatorsConfig& oc) const {
  CaseConfig c = cfg;
  c.operators = oc;
  c.physics.model = ns ? PhysicsModel::navier_stokes : PhysicsModel::euler;
  c.physics.components = 5;
  c.physics.flow.mu = 1e-3;
  c.operators.convection.flux = spec.fluxes[0];
  // the Taylor-Green state (one period over the box's x length), slip walls on every patch
  c.flow_initial.type = FlowInitialType::taylor_green;
  c.flow_initial.length =
      (m.n_cells > 0 && cfg.mesh.generate ? cfg.mesh.generate->lengths[0] : 1.0) / (2 * 3.14159265358979323846);
  c.boundary.clear();
  c.flow_boundary.clear();
  for (const Patch& p : m.patches) {
    c.boundary.emplace_back(p.name, BoundaryConfig{});
    c.flow_boundary.push_back(FlowBoundaryConfig{});
  }
  return c;
}

PerfRow ConfigurationBench::flow_step_row(const std::string& op, const VariantSpec& v,
                                          const OperatorsConfig& oc) const {
  const bool ns = op == "flow-ns-step";
  const CaseConfig c = flow_step_case(ns, oc);
  FlowSolver solver(m, c, resolve_boundary(c, m), comm, halo);
  solver.initialize();
  const real dt = static_cast<real>(solver.stable_step(c.time.cfl).dt);
  PerfRow row;
  row.components = n, row.op = op, row.variant = v.name, row.cells = global.n_cells, row.rotation = 1;
  row.flux = to_string(spec.fluxes[0]);
  row.kernels = "integrator " + std::string(to_string(cfg.time.integrator)) + ", " + solver.describe()[2].second;
  // a step as `fvproxy run` takes it: the stable step, the stages, the physical check
  row.ms = median_ms(
      spec.repeat, 2,
      [&](int i) {
        const StableStep st = solver.stable_step(c.time.cfl);
        solver.step(dt * real(i), static_cast<real>(std::min(double(dt), st.dt)), i + 1, true);
      },
      sync);
  row.bytes = row.fused_bytes = flow_step_bytes(ns);
  take_slowest(row);
  row.fraction = row.fused_fraction = row.gb_per_s / copy_limit;
  return row;
}

/// flow-convection with the spec's flux `fi`, or flow-viscous.
PerfRow ConfigurationBench::flow_operator_row(const std::string& op, const VariantSpec& v, const OperatorsConfig& oc,
                                              std::size_t fi) const {
  const bool conv = op == "flow-convection";
  PerfRow row;
  row.components = n, row.op = op, row.variant = v.name, row.cells = global.n_cells, row.rotation = R;
  std::unique_ptr<FlowConvectionOperator> fc;
  std::unique_ptr<FlowViscousOperator> fv;
  if (conv) {
    FlowConvectionConfig fcfg;
    static_cast<ConvectionConfig&>(fcfg) = oc.convection;
    fcfg.flux = spec.fluxes[fi];
    row.flux = to_string(fcfg.flux);
    fc = make_flow_convection(m, geom, fcfg, walls, false);
    row.kernels = fc->description();
    row.bytes = flow_conv_bytes;
  } else {
    FlowViscousConfig vcfg;
    static_cast<OperatorOptions&>(vcfg) = oc.diffusion;
    // the separate viscous operator has no stored accumulation (its face pass has): it gathers then
    if (vcfg.scatter == Scatter::stored) vcfg.scatter = Scatter::gather;
    vcfg.viscosity.constant.mu = real(1e-3);
    fv = make_flow_viscous(m, geom, vcfg, walls, false);
    row.kernels = fv->description();
    row.bytes = flow_visc_bytes;
  }
  row.ms = median_ms(
      spec.repeat, std::max(2, R),
      [&](int i) {
        const FlowInputs& x = fin[i % R];
        if (fc)
          fc->apply(x.u, x.grad, x.lim, x.rhs);
        else
          fv->apply(x.w, x.wb, x.gw, x.rhs);
      },
      sync);
  row.fused_bytes = row.bytes;
  take_slowest(row);
  row.fraction = row.gb_per_s / copy_limit;
  row.fused_fraction = row.fraction;
  return row;
}

/// muscl, convection, diffusion or step: the scalar model's operators.
PerfRow ConfigurationBench::operator_row(const std::string& op, const VariantSpec& v, const OperatorsConfig& oc) const {
  PerfRow row;
  row.components = n, row.op = op, row.variant = v.name, row.cells = global.n_cells, row.rotation = R;
  const int warm = std::max(2, R);
  if (op == "muscl") {
    time_muscl(row, v, oc, warm);
  } else if (op == "convection") {
    time_convection(row, v, oc, warm);
  } else if (op == "diffusion") {
    time_diffusion(row, v, oc, warm);
  } else { // one full time step of the case's integrator, as `fvproxy run` takes it
    time_step(row, oc);
  }
  if (row.fused_bytes == 0) row.fused_bytes = row.bytes; // an operator's model is one pass already
  // The slowest rank's median (each rank's on rank 0).
  take_slowest(row);
  row.fraction = row.gb_per_s / copy_limit;
  row.fused_fraction = row.fused_bytes / (row.ms * 1e-3) / 1e9 / copy_limit;
  return row;
}

void ConfigurationBench::time_muscl(PerfRow& row, const VariantSpec& v, const OperatorsConfig& oc, int warm) const {
  std::unique_ptr<MusclOperator> mu; // the ladder's step (two passes), or the variant's operator
  if (v.ladder >= 0) {
    LadderMuscl lm = make_ladder_muscl(v.ladder, m, geom, oc.muscl, n, scale);
    mu = make_two_pass_muscl(std::move(lm.gradient), limited ? std::move(lm.limiter) : nullptr);
  } else {
    mu = make_muscl(m, geom, oc.muscl, n, false, limited ? scale : LimiterScale{});
  }
  row.kernels = mu->description();
  row.ms = median_ms(
      spec.repeat, warm,
      [&](int i) {
        const Inputs& x = in[i % R];
        mu->compute(x.u, x.ub, x.grad, x.lim);
      },
      sync);
  row.bytes = model.muscl.bytes, row.flops = model.muscl.flops;
}

void ConfigurationBench::time_convection(PerfRow& row, const VariantSpec& v, const OperatorsConfig& oc,
                                         int warm) const {
  const auto c = v.ladder >= 0 ? make_ladder_convection(v.ladder, m, geom, oc.convection, phi, n, types)
                               : make_convection(m, geom, oc.convection, phi, n, types, false);
  row.kernels = c->description();
  row.ms = median_ms(
      spec.repeat, warm,
      [&](int i) {
        const Inputs& x = in[i % R];
        c->apply(x.u, x.ub, x.grad, x.lim, x.rhs);
      },
      sync);
  row.bytes = model.convection.bytes, row.flops = model.convection.flops;
}

void ConfigurationBench::time_diffusion(PerfRow& row, const VariantSpec& v, const OperatorsConfig& oc, int warm) const {
  const auto d = v.ladder >= 0 ? make_ladder_diffusion(v.ladder, m, geom, oc.diffusion, cfg.physics.diffusivity, types)
                               : make_diffusion(m, geom, oc.diffusion, cfg.physics.diffusivity, types, false);
  row.kernels = d->description();
  row.ms = median_ms(
      spec.repeat, warm,
      [&](int i) {
        const Inputs& x = in[i % R];
        d->apply(x.u, x.ub, x.grad, x.rhs);
      },
      sync);
  row.bytes = model.diffusion.bytes, row.flops = model.diffusion.flops;
}

/// One full time step of the case's integrator, as `fvproxy run` takes it.
void ConfigurationBench::time_step(PerfRow& row, const OperatorsConfig& oc) const {
  CaseConfig c = cfg;
  c.operators = oc;
  ScalarSolver solver(m, c, resolve_boundary(c, m), comm, halo); // on several ranks with its halo exchanges
  solver.initialize();
  const real dt = static_cast<real>(solver.stable_step(cfg.time.cfl).dt);
  row.kernels = "integrator " + std::string(to_string(cfg.time.integrator));
  row.rotation = 1;
  row.ms = median_ms(
      spec.repeat, 2, [&](int i) { solver.step(dt * real(i), dt, i + 1, true); }, sync);
  row.bytes = model.step.bytes, row.flops = model.step.flops;
  row.fused_bytes = model.step_fused.bytes;
}

/// The row's time becomes the slowest rank's median (each rank's kept on rank 0), and its bandwidth.
void ConfigurationBench::take_slowest(PerfRow& row) const {
  row.ranks = comm.size();
  row.ms_per_rank = gather_values(comm, row.ms);
  row.ms = comm.max(row.ms);
  if (!row.ms_per_rank.empty()) row.slowest_rank = slowest(row.ms_per_rank);
  row.gb_per_s = row.bytes / (row.ms * 1e-3) / 1e9;
}

void write_results(const fs::path& dir, const nlohmann::json& meta, const std::vector<PerfRow>& rows) {
  std::ostringstream csv;
  csv.precision(12);
  csv << "real,element,size,cells,ordering,components,operator,variant,kernels,ms,bytes,flops,gb_per_s,"
         "fraction_of_copy_limit,speedup_over_naive,rotation,ranks,slowest_rank,fused_model_bytes,"
         "fraction_of_fused_model,flux\n";
  const std::string real_name = sizeof(real) == 8 ? "double" : "float";
  nlohmann::json j = meta;
  j["results"] = nlohmann::json::array();
  for (const PerfRow& r : rows) {
    csv << real_name << ',' << r.element << ',' << r.size << ',' << r.cells << ',' << r.ordering << ',' << r.components
        << ',' << r.op << ',' << r.variant << ",\"" << r.kernels << "\"," << r.ms << ',' << r.bytes << ',' << r.flops
        << ',' << r.gb_per_s << ',' << r.fraction << ',' << r.speedup << ',' << r.rotation << ',' << r.ranks << ','
        << r.slowest_rank << ',' << r.fused_bytes << ',' << r.fused_fraction << ',' << r.flux << '\n';
    j["results"].push_back({{"real", real_name},
                            {"element", r.element},
                            {"size", r.size},
                            {"cells", r.cells},
                            {"ordering", r.ordering},
                            {"components", r.components},
                            {"operator", r.op},
                            {"variant", r.variant},
                            {"kernels", r.kernels},
                            {"ms", r.ms},
                            {"bytes", r.bytes},
                            {"flops", r.flops},
                            {"gb_per_s", r.gb_per_s},
                            {"fraction_of_copy_limit", r.fraction},
                            {"speedup_over_naive", r.speedup},
                            {"rotation", r.rotation},
                            {"ranks", r.ranks},
                            {"slowest_rank", r.slowest_rank},
                            {"fused_model_bytes", r.fused_bytes},
                            {"fraction_of_fused_model", r.fused_fraction},
                            {"flux", r.flux},
                            {"ms_per_rank", r.ms_per_rank}});
  }
  write_atomically(dir / "results.csv", csv.str(), "fvproxy perf");
  write_atomically(dir / "results.json", j.dump(1) + "\n", "fvproxy perf");
}

/// Every mesh of the matrix must fit: refused before the first is built, not hours into the run.
void check_meshes_fit(const CliArgs& cli, const PerfSpec& spec) {
  for (const MeshEntry& entry : spec.meshes) {
    CaseConfig cfg = with_components(spec.base, *std::max_element(spec.components.begin(), spec.components.end()));
    cfg.mesh = entry.apply(cfg.mesh);
    const bool permuted =
        std::any_of(spec.orderings.begin(), spec.orderings.end(), [](Ordering o) { return o != Ordering::none; });
    cfg.mesh.reorder = permuted ? Ordering::zorder : Ordering::none; // a permuted copy beside the mesh
    try {
      check_case_fits(cfg, MemoryUse::bench);
    } catch (const InputError& e) {
      std::string why = e.what();
      const std::string prefix = e.where() + ": error: ";
      if (why.rfind(prefix, 0) == 0) why.erase(0, prefix.size());
      throw InputError(cli.positional[0], "meshes: " + entry.label() + ": " + why);
    }
  }
}

/// The matrix's run: the copy limit, then every mesh, ordering and component count; its progress
/// on stderr and its results in `dir`, rewritten after every configuration. Several ranks: rank 0
/// alone prints and writes the results.
struct PerfRun {
  PerfRun(const CliArgs& cli, const PerfSpec& spec, const fs::path& dir)
      : cli(cli), spec(spec), dir(dir), comm(Communicator::world()), root(comm.rank() == 0) {}

  const CliArgs& cli;
  const PerfSpec& spec;
  const fs::path& dir;
  const Communicator comm;
  const bool root;
  Kokkos::Timer total;
  double limit = 0;
  nlohmann::json meta;
  std::vector<PerfRow> rows;

  template <class... Args> void say(const char* fmt, Args... args) const {
    if (root) std::fprintf(stderr, fmt, args...);
  }
  void measure_copy_limit();
  void bench_mesh(const MeshEntry& e);
  void report_locality(const MeshEntry& e, const std::string& label, Ordering o, const BuiltMesh& global);
  void bench_ordering(const MeshEntry& e, const std::string& label, const CaseConfig& cfg, Ordering o,
                      const BuiltMesh& global);
  void finish();
};

void PerfRun::measure_copy_limit() {
  const std::vector<CopyLimit> copy = measure_copy(spec.copy_bytes, spec.repeat, comm);
  meta["build"] = info_json();
  meta["spec"] = cli.positional[0];
  meta["ranks"] = comm.size();
  for (const auto& c : copy) {
    limit = std::max(limit, c.gb_per_s);
    meta["copy"].push_back({{"method", c.method}, {"ms", c.ms}, {"gb_per_s", c.gb_per_s}});
    say("[perf] copy %-22s %8.3f ms %9.1f GB/s\n", c.method.c_str(), c.ms, c.gb_per_s);
  }
  meta["copy_limit_gb_per_s"] = limit;
}

void PerfRun::bench_mesh(const MeshEntry& e) {
  CaseConfig cfg = spec.base;
  cfg.mesh = e.apply(cfg.mesh); // built in generation or file order, then permuted below
  const std::string label = e.label();
  Kokkos::Timer t;
  const BuiltMesh b = build_mesh(cfg.mesh);
  say("[perf] %s: %d cells built in %.1f s\n", label.c_str(), b.device.n_cells, t.seconds());
  for (Ordering o : spec.orderings) {
    t.reset();
    BuiltMesh permuted;
    if (o != Ordering::none) {
      permuted.host = permute_cells(b.host, ordering_permutation(b.host, b.device, o, cfg.mesh.reorder_seed));
      permuted.device = upload(permuted.host);
    }
    const BuiltMesh& global = o == Ordering::none ? b : permuted;
    if (root) report_locality(e, label, o, global); // the numbering's locality beside its times (docs/mesh.md)
    bench_ordering(e, label, cfg, o, global);
    say("[perf] %s %s done (%.1f s)\n", label.c_str(), to_string(o), t.seconds());
  }
}

void PerfRun::report_locality(const MeshEntry& e, const std::string& label, Ordering o, const BuiltMesh& global) {
  const Locality loc = locality(global.host);
  meta["locality"].push_back({{"element", e.name()},
                              {"size", e.cells},
                              {"cells", global.device.n_cells},
                              {"ordering", to_string(o)},
                              {"locality", to_json(loc)}});
  say("[perf] %s %-7s locality: face distance mean %.1f median %.1f, bandwidth %d, same block of 32 %.3f\n",
      label.c_str(), to_string(o), loc.mean, loc.median, int(loc.bandwidth), loc.same_block_32);
}

/// Every component count on one ordering of one mesh, the results written after each.
void PerfRun::bench_ordering(const MeshEntry& e, const std::string& label, const CaseConfig& cfg, Ordering o,
                             const BuiltMesh& global) {
  // Several ranks: this rank's part of the ordered mesh (partitioned after the ordering, as
  // `fvproxy run` does), with its halo.
  std::optional<Decomposition> dec;
  if (comm.size() > 1) dec.emplace(decompose(global, cfg.mesh, comm, cfg.parallel.halo));
  const Mesh& m = dec ? dec->mesh : global.device;
  for (int n : spec.components) {
    const CaseConfig c = with_components(cfg, n);
    std::vector<PerfRow> part =
        ConfigurationBench(m, global.device, c, spec, limit, comm, dec ? dec->halo.get() : nullptr).run();
    for (PerfRow& r : part) {
      r.element = e.name(), r.size = e.cells, r.ordering = to_string(o);
      say("[perf] %s %-7s N=%d %-10s %-13s %9.4f ms %8.1f GB/s %5.1f%% %6.2fx\n", label.c_str(), r.ordering.c_str(), n,
          (r.flux.empty() ? r.op : r.op + "/" + r.flux).c_str(), r.variant.c_str(), r.ms, r.gb_per_s, 100 * r.fraction,
          r.speedup);
      rows.push_back(r);
    }
    meta["seconds"] = total.seconds();
    if (root) write_results(dir, meta, rows);
  }
}

void PerfRun::finish() {
  meta["seconds"] = total.seconds();
  if (root) write_results(dir, meta, rows);
  comm.barrier(); // every rank ends once the results are written
  if (!root) return;
  std::printf("fvproxy perf: %zu results in %s (%.1f s); copy limit %.1f GB/s\n", rows.size(), dir.string().c_str(),
              total.seconds(), limit);
}

} // namespace

int cmd_perf(const CliArgs& cli) {
  // Before any other collective: the same spec on every rank (its case file is read by each).
  check_ranks_agree(case_entries(ConfigSource::from_file(cli.positional[0]), cli), Communicator::world());
  const PerfSpec spec = parse_perf_spec(cli.positional[0]);
  check_meshes_fit(cli, spec);
  const fs::path dir = cli.output_dir.empty() ? fs::path("perf-out") : fs::path(cli.output_dir);
  prepare_output_dir(dir.string(), "--output-dir");
  const OutputLock lock(dir.string(), "--output-dir"); // collective
  PerfRun run(cli, spec, dir);
  run.measure_copy_limit();
  for (const MeshEntry& e : spec.meshes) run.bench_mesh(e);
  run.finish();
  return 0;
}

} // namespace fvproxy
