// Whole runs on 1-3 ranks against each rank alone, per global id (scalar and flow models, every halo, ghost layers,
// accumulation, partition and mesh build).
#include "mpi_fixture.hpp"

namespace fvproxy {
namespace {

using mpi_test::meshes;
using mpi_test::tag;

/// The case run on this rank's part (every rank) and on the whole mesh (each rank alone), compared
/// per global id: bitwise when `bitwise`, else to `rel` of the field's largest magnitude (at least
/// `floor`: a flow's transverse momentum is round-off).
void expect_same_run(const CaseConfig& cfg, const std::string& what, bool bitwise, double rel, bool in_parts = false,
                     double floor = 0) {
  SCOPED_TRACE(what);
  const Communicator w = Communicator::world();
  const BuiltMesh g = build_mesh(cfg.mesh);
  const RunSummary ref = run_simulation(cfg, g.device, RunHooks{}, true);
  Decomposition d =
      in_parts ? decompose_in_parts(cfg.mesh, w, cfg.parallel.halo) : decompose(g, cfg.mesh, w, cfg.parallel.halo);
  const RunSummary r = run_simulation(cfg, d.mesh, RunHooks{}, true, nullptr, w, d.halo.get());
  ASSERT_FALSE(ref.failure.has_value());
  ASSERT_FALSE(r.failure.has_value());
  EXPECT_EQ(r.dt, ref.dt);
  EXPECT_EQ(r.steps, ref.steps);
  EXPECT_EQ(r.retried_steps, ref.retried_steps);
  EXPECT_EQ(r.cells, ref.cells);
  EXPECT_EQ(r.cfl.limiting_cell >= 0, ref.cfl.limiting_cell >= 0);
  std::map<gid_t, index_t> global_of;
  for (index_t c = 0; c < g.host.n_cells(); ++c) global_of[g.host.cell_gid[c]] = c;
  for (int k = 0; k < ref.components; ++k) {
    double scale = floor;
    for (real v : ref.final_state[k]) scale = std::max(scale, std::fabs(double(v)));
    for (index_t c = 0; c < d.mesh.n_cells; ++c) {
      const real a = r.final_state[k][c], b = ref.final_state[k][global_of.at(d.local.host.cell_gid[c])];
      if (bitwise)
        ASSERT_EQ(a, b) << "component " << k << ", cell gid " << d.local.host.cell_gid[c];
      else
        ASSERT_LE(std::fabs(double(a) - double(b)), rel * scale)
            << "component " << k << ", cell gid " << d.local.host.cell_gid[c];
    }
    // Conserved totals are exact sums (stored in checkpoints): bitwise when the fields are. Norms
    // are sums in another order: to round-off.
    if (bitwise) {
      EXPECT_EQ(r.conservation_initial[k], ref.conservation_initial[k]);
      EXPECT_EQ(r.conservation_final[k], ref.conservation_final[k]);
    }
    // Otherwise the fields differ by at most rel * scale per cell, so the totals by that times the volume.
    const double volume_bound = bitwise ? 0.0 : rel * scale * g.device.global_volume;
    EXPECT_NEAR(r.conservation_final[k], ref.conservation_final[k],
                volume_bound + 1e-12 * std::fabs(ref.conservation_final[k]));
    // min, max and Linf are exact reductions: bitwise when the fields are.
    const double exact = bitwise ? 0.0 : rel * scale;
    ASSERT_EQ(r.final_min.size(), ref.final_min.size()); // per component (scalar), none (flow)
    if (std::size_t(k) < ref.final_min.size()) {
      EXPECT_NEAR(r.final_min[k], ref.final_min[k], exact);
      EXPECT_NEAR(r.final_max[k], ref.final_max[k], exact);
    }
  }
  // Error norms: one per component (scalar), or per error field (flow: density, velocity, pressure).
  ASSERT_EQ(r.errors.has_value(), ref.errors.has_value());
  if (ref.errors) {
    ASSERT_EQ(r.errors->size(), ref.errors->size());
    double scale = 0;
    for (int k = 0; k < ref.components; ++k)
      for (real v : ref.final_state[k]) scale = std::max(scale, std::fabs(double(v)));
    const double exact = bitwise ? 0.0 : rel * scale;
    for (std::size_t k = 0; k < ref.errors->size(); ++k) {
      EXPECT_NEAR((*r.errors)[k].l2, (*ref.errors)[k].l2, 1e-12 * (*ref.errors)[k].l2 + exact);
      EXPECT_NEAR((*r.errors)[k].linf, (*ref.errors)[k].linf, exact);
    }
  }
}

TEST(DistributedRun, EqualsOneRankPerGlobalId) {
  const double tol = test::tol(1e-12);
  // One ghost layer unless a run says two (this case's default: docs/halo.md#two-ghost-layers), so that
  // both halos are covered: the gradients' exchange and the first layer's gradients computed here.
  const std::vector<std::string> base{"mesh.generate.cells=[5,5,4]", "time.steps=6", "parallel.halo.layers=1"};
  auto with = [&](std::vector<std::string> sets) {
    sets.insert(sets.begin(), base.begin(), base.end());
    return test::case_from(test::kPeriodicBlob, sets);
  };
  // Gather operators (run.deterministic): the same arithmetic on the same values, bitwise.
  expect_same_run(with({"run.deterministic=true"}), "deterministic, metis", true, 0);
  expect_same_run(with({"run.deterministic=true", "mesh.partition=zorder", "mesh.reorder=random"}),
                  "deterministic, zorder partition of a randomly numbered mesh", true, 0);
  // Every naive variant, and the optimized defaults (atomic scatters on some backends).
  expect_same_run(with({"operators.muscl.variant=naive", "operators.convection.variant=naive",
                        "operators.diffusion.variant=naive", "mesh.partition=hilbert"}),
                  "naive operators, hilbert", false, tol);
  expect_same_run(with({"mesh.partition=blocks", "operators.muscl.gradient=green-gauss",
                        "operators.muscl.limiter=barth-jespersen"}),
                  "optimized, blocks, Green-Gauss, Barth-Jespersen", false, tol);
  // The fused gradient + limiter kernel, overlapped (inner and frontier parts): bitwise when gathering.
  expect_same_run(with({"run.deterministic=true", "operators.muscl.fused=true", "mesh.partition=hilbert"}),
                  "deterministic, fused muscl, hilbert", true, 0);
  // One face pass for convection and diffusion (operators.step: fused), overlapped: bitwise when
  // gathering, with one and two ghost layers; with atomics to round-off.
  expect_same_run(with({"run.deterministic=true", "operators.step=fused", "mesh.partition=hilbert"}),
                  "deterministic, one face pass, hilbert", true, 0);
  expect_same_run(with({"run.deterministic=true", "operators.step=fused", "parallel.halo.layers=2"}),
                  "deterministic, one face pass, two ghost layers", true, 0);
  expect_same_run(with({"operators.step=fused", "operators.convection.scatter=atomic",
                        "operators.diffusion.scatter=atomic", "mesh.reorder=random"}),
                  "one face pass, atomic scatters, random numbering", false, tol);
  // Stored face fluxes (each face once, summed per cell in the gather's order): bitwise without
  // run.deterministic, overlapped (the inner part stores the faces among owned cells, the frontier
  // the faces to ghosts) and with two ghost layers.
  expect_same_run(
      with({"operators.convection.scatter=stored", "operators.diffusion.scatter=stored", "mesh.reorder=random"}),
      "one face pass, stored fluxes, random numbering", true, 0);
  expect_same_run(with({"operators.convection.scatter=stored", "operators.diffusion.scatter=stored",
                        "parallel.halo.layers=2", "mesh.partition=hilbert"}),
                  "one face pass, stored fluxes, two ghost layers", true, 0);
  // The blocking halo, and the overlapped one with atomic scatters (faces to ghosts one-sided).
  expect_same_run(with({"run.deterministic=true", "parallel.halo.variant=naive"}), "deterministic, naive halo", true,
                  0);
  expect_same_run(with({"operators.muscl.scatter=atomic", "operators.convection.scatter=atomic",
                        "operators.diffusion.scatter=atomic", "mesh.reorder=random"}),
                  "atomic scatters, overlapped halo, random numbering", false, tol);
  // The staging path forced (FVPROXY_HALO_STAGING=1, read by every Halo): bitwise the same.
  {
    struct Staging { // set for this block only, also when it throws
      Staging() { setenv("FVPROXY_HALO_STAGING", "1", 1); }
      ~Staging() { unsetenv("FVPROXY_HALO_STAGING"); }
    } staging;
    expect_same_run(with({"run.deterministic=true"}), "deterministic, staged halo", true, 0);
  }
  // A Gmsh mesh with inflow, outflow and Dirichlet walls (boundary faces on several ranks).
  ConfigSource src = ConfigSource::from_file(test::source_path("inputs/hybrid_channel.yaml"));
  src.apply_set("time={steps: 5, cfl: 0.4}");
  src.apply_set("run.deterministic=true");
  src.apply_set("parallel.halo.layers=1");
  expect_same_run(parse_case(src), "hybrid channel (Gmsh), deterministic", true, 0);
  // Two ghost layers (the first layer's gradients and limiter values computed here, not exchanged):
  // bitwise, each variant, the blocking halo, a mesh with every boundary kind.
  expect_same_run(with({"run.deterministic=true", "parallel.halo.layers=2"}), "deterministic, two ghost layers", true,
                  0);
  expect_same_run(
      with({"run.deterministic=true", "parallel.halo.layers=2", "operators.muscl.variant=naive",
            "operators.convection.variant=naive", "operators.diffusion.variant=naive", "mesh.partition=hilbert"}),
      "deterministic, naive operators, two ghost layers", true, 0);
  expect_same_run(with({"run.deterministic=true", "parallel.halo.layers=2", "operators.muscl.fused=true",
                        "parallel.halo.variant=naive"}),
                  "deterministic, fused muscl, blocking halo, two ghost layers", true, 0);
  expect_same_run(with({"parallel.halo.layers=2", "operators.muscl.scatter=atomic",
                        "operators.convection.scatter=atomic", "operators.diffusion.scatter=atomic"}),
                  "atomic scatters, two ghost layers", false, tol);
  src.apply_set("parallel.halo.layers=2");
  expect_same_run(parse_case(src), "hybrid channel (Gmsh), deterministic, two ghost layers", true, 0);
  src.apply_set("operators.step=fused"); // boundary faces of every kind in the face pass's ranks
  expect_same_run(parse_case(src), "hybrid channel (Gmsh), deterministic, two ghost layers, one face pass", true, 0);
  // Built in parts (no rank holds the whole mesh): the same answer, bitwise.
  expect_same_run(with({"run.deterministic=true", "mesh.partition=hilbert", "mesh.reorder=zorder"}),
                  "built in parts, hilbert partition, zorder ordering", true, 0, true);
  expect_same_run(
      with({"run.deterministic=true", "mesh.partition=zorder", "mesh.reorder=hilbert", "parallel.halo.layers=2"}),
      "built in parts, zorder partition, hilbert ordering, two ghost layers", true, 0, true);
  expect_same_run(with({"run.deterministic=true", "mesh.partition=blocks", "mesh.reorder=none"}),
                  "built in parts, blocks, generation order", true, 0, true);
  // The vertex stencil (docs/operators/muscl.md#stencil): ghost layers by vertex adjacency, the
  // periodic tets' vertex neighbours through the periodic sides (node keys), entries summed in
  // global-id order: bitwise, built from the whole mesh and in parts, the fused and two-pass muscl.
  for (const char* fused : {"true", "false"}) {
    const std::vector<std::string> v{"run.deterministic=true", "parallel.halo.layers=2",
                                     "operators.muscl.stencil=vertex", std::string("operators.muscl.fused=") + fused};
    expect_same_run(with(v), std::string("vertex stencil, fused muscl: ") + fused, true, 0);
    expect_same_run(with(v), std::string("vertex stencil, built in parts, fused muscl: ") + fused, true, 0, true);
  }
}

TEST(DistributedRun, FlowRunsEqualOneRankPerGlobalId) {
  // The flow solver's whole step on 1-3 ranks against each rank alone: its overlapped schedule (the
  // gradients' and limiter values' exchange flies while the inner part of the fluxes runs, the
  // frontier part after it), the blocking one, and atomic scatters. Sod's tube on 24 x 2 x 2 hexes
  // run to t = 0.12: the shock and the rarefaction cross every rank cut (a missing gradient exchange
  // fails here: checked). Couette flow (navier-stokes: the viscous gradients' exchange, no-slip walls
  // on several ranks; one face pass and the separate operators; limited, the paired cell pass with its
  // positivity check). Sod on tets with Green-Gauss and HLLC on the conserved variables.
  const double tol = test::tol(1e-12);
  auto sod = [](const char* file, std::vector<std::string> sets) {
    ConfigSource src = ConfigSource::from_file(test::source_path(file));
    src.apply_set("mesh.generate={shape: box, cells: [24, 2, 2], lengths: [1, 0.0833, 0.0833]}");
    src.apply_set("time={integrator: ssprk3, steps: 40, dt: 0.003}");
    src.apply_set("parallel.halo.layers=1"); // the gradients' exchange (the flow models' default is 2)
    for (const auto& s : sets) src.apply_set(s);
    return parse_case(src);
  };
  expect_same_run(sod("inputs/sod.yaml", {"run.deterministic=true"}), "sod, deterministic, overlapped halo", true, 0);
  expect_same_run(sod("inputs/sod.yaml", {"run.deterministic=true", "parallel.halo.variant=naive"}),
                  "sod, deterministic, blocking halo", true, 0);
  // every transport: the key's staged route (the GPU executable's auto is ipc: fvproxy_mpi_tests on
  // one or two GPUs, docs/gpu.md), and ipc asked on a host build (falls back)
  for (const char* t : {"staged", "ipc", "auto"})
    expect_same_run(sod("inputs/sod.yaml", {"run.deterministic=true", std::string("parallel.halo.transport=") + t}),
                    std::string("sod, deterministic, transport ") + t, true, 0);
  expect_same_run(sod("inputs/sod.yaml", {"operators.convection.scatter=atomic", "operators.muscl.scatter=atomic"}),
                  "sod, atomic scatters", false, tol, false, 1.0);
  // euler's convection with stored face fluxes: deterministic without the key, bitwise
  for (const char* layers : {"1", "2"})
    expect_same_run(sod("inputs/sod_tet.yaml",
                        {"operators.convection.scatter=stored", std::string("parallel.halo.layers=") + layers}),
                    std::string("sod on tets, stored fluxes, ghost layers: ") + layers, true, 0);
  // Two ghost layers: no gradient exchange, the first layer's slip-wall faces mirrored here.
  for (const char* v : {"optimized", "naive"})
    expect_same_run(sod("inputs/sod.yaml",
                        {"run.deterministic=true", "parallel.halo.layers=2", std::string("parallel.halo.variant=") + v,
                         std::string("operators.muscl.variant=") + v}),
                    std::string("sod, deterministic, two ghost layers, ") + v + " halo and muscl", true, 0);
  for (const char* layers : {"1", "2"})
    expect_same_run(sod("inputs/sod_tet.yaml", {"run.deterministic=true", "operators.muscl.gradient=green-gauss",
                                                "operators.convection.reconstruction=conservative",
                                                std::string("parallel.halo.layers=") + layers}),
                    std::string("sod on tets, Green-Gauss, conservative MUSCL, ghost layers: ") + layers, true, 0);
  // The vertex stencil (docs/operators/muscl.md#stencil) on jittered tets with slip walls and
  // symmetry planes: ghost layers by vertex adjacency, the mirror images of ghost cells filled after
  // the state's exchange, each cell's entries in global-id order: bitwise, built from the whole mesh
  // and in parts, both reconstructions, both halos.
  const std::vector<std::string> vertex{"run.deterministic=true", "parallel.halo.layers=2",
                                        "operators.muscl.stencil=vertex", "mesh.generate.element=tet",
                                        "mesh.generate.perturb=0.15"};
  expect_same_run(sod("inputs/sod.yaml", vertex), "sod on jittered tets, vertex stencil", true, 0);
  expect_same_run(sod("inputs/sod.yaml", vertex), "sod on jittered tets, vertex stencil, built in parts", true, 0,
                  true);
  std::vector<std::string> vertex_conservative = vertex;
  vertex_conservative.insert(vertex_conservative.end(),
                             {"operators.convection.reconstruction=conservative", "parallel.halo.variant=naive"});
  expect_same_run(sod("inputs/sod.yaml", vertex_conservative),
                  "sod on jittered tets, vertex stencil, conservative MUSCL, blocking halo", true, 0);
  // stencil: corners (the vertex entries only for the cells with a node where two mirror planes meet:
  // sod.yaml's symmetry planes on y and z meet along x, and each of the 24 x 2 x 2 cubes has a node
  // on such an edge, which some of its tets hold and some not)
  std::vector<std::string> corners = vertex;
  corners[2] = "operators.muscl.stencil=corners";
  expect_same_run(sod("inputs/sod.yaml", corners), "sod on jittered tets, corners stencil, built in parts", true, 0,
                  true);
  // ... with 4 x 4 cubes across: the corners' cells a quarter of them, the ghost layers by vertices
  // there only (mesh/local_mesh.hpp), cut from the whole mesh and built in parts
  corners.push_back("mesh.generate.cells=[16, 4, 4]");
  expect_same_run(sod("inputs/sod.yaml", corners), "sod on jittered tets 16 x 4 x 4, corners stencil", true, 0);
  expect_same_run(sod("inputs/sod.yaml", corners), "sod on jittered tets 16 x 4 x 4, corners stencil, built in parts",
                  true, 0, true);
  {
    ConfigSource walls = ConfigSource::from_file(test::source_path("inputs/couette.yaml"));
    walls.apply_set("time={integrator: ssprk3, steps: 20, dt: 0.0003}"); // the tets' viscous step
    for (const auto& s : vertex) walls.apply_set(s);
    walls.apply_set("operators.muscl.limiter=venkatakrishnan"); // images of no-slip walls, viscous ones too
    expect_same_run(parse_case(walls), "couette on jittered tets, vertex stencil", true, 0);
  }
  ConfigSource couette = ConfigSource::from_file(test::source_path("inputs/couette.yaml"));
  couette.apply_set("time={integrator: ssprk3, steps: 40, dt: 0.003}");
  couette.apply_set("run.deterministic=true");
  couette.apply_set("parallel.halo.layers=1");
  expect_same_run(parse_case(couette), "couette, deterministic, overlapped halo", true, 0);
  couette.apply_set("parallel.halo.layers=2");
  expect_same_run(parse_case(couette), "couette, deterministic, two ghost layers", true, 0);
  // limited: the paired cell pass with the positivity check in it, over the inner, frontier and
  // first-layer parts (and the limiter values' exchange with one layer)
  couette.apply_set("operators.muscl.limiter=venkatakrishnan");
  expect_same_run(parse_case(couette), "couette, Venkatakrishnan, two ghost layers", true, 0);
  couette.apply_set("parallel.halo.layers=1");
  expect_same_run(parse_case(couette), "couette, Venkatakrishnan, overlapped halo", true, 0);
  couette.apply_set("operators.muscl.limiter=none");
  // navier-stokes defaults to one face pass (operators.step: fused): the separate operators too,
  // and the face pass with atomics
  couette.apply_set("operators.step=separate");
  expect_same_run(parse_case(couette), "couette, deterministic, separate face operators", true, 0);
  couette.apply_set("run.deterministic=false");
  couette.apply_set("operators.diffusion.scatter=atomic");
  expect_same_run(parse_case(couette), "couette, atomic viscous scatter", false, tol, false, 1.0);
  couette.apply_set("operators.convection.scatter=atomic");
  couette.apply_set("operators.step=fused");
  expect_same_run(parse_case(couette), "couette, one face pass, atomic scatters", false, tol, false, 1.0);
  couette.apply_set("operators.convection.scatter=stored"); // deterministic: bitwise again
  couette.apply_set("operators.diffusion.scatter=stored");
  expect_same_run(parse_case(couette), "couette, one face pass, stored fluxes", true, 0);
}

TEST(DistributedRun, StepsTakenAgainAtFirstOrderEqualOneRank) {
  // time.retries (docs/physics.md#positivity): Toro's test 5 on 100 x 2 x 2 tets with Barth-Jespersen
  // on the primitive variables fails at steps 179 and 181 (a negative pressure ahead of the shock);
  // each is taken again with half the step and first order in the failed cells and their face
  // neighbours. The marks of a cell next to a rank cut come from its owner (exchanged): the same
  // steps are taken again and the same bits come out on 1-3 ranks, with one and two ghost layers.
  for (const char* layers : {"1", "2"}) {
    ConfigSource src = ConfigSource::from_file(test::source_path("inputs/sod_tet.yaml"));
    for (const char* s :
         {"mesh.generate.cells=[100,2,2]", "mesh.generate.lengths=[1,0.02,0.02]", "initial.normal=[1,0,0]",
          "initial.left={density: 1.0, velocity: [-19.59745, 0, 0], pressure: 1000.0}",
          "initial.right={density: 1.0, velocity: [-19.59745, 0, 0], pressure: 0.01}", "time={end_time: 0.0056}",
          "boundary={xmin: {type: supersonic-outflow}, xmax: {type: supersonic-outflow}, ymin: {type: symmetry}, "
          "ymax: {type: symmetry}, zmin: {type: symmetry}, zmax: {type: symmetry}}",
          // the face-normal flux: the rotated one (the default since 2026-12-07) takes no step again here
          "operators={muscl: {limiter: barth-jespersen, stencil: face}, convection: {rotated: false}}",
          "run.deterministic=true"})
      src.apply_set(s);
    src.apply_set(std::string("parallel.halo.layers=") + layers);
    // the failing cells, just ahead of the standing shock, next to the first rank cut (slabs along x);
    // the face stencil: the corners stencil (the default with two layers) takes no step again here
    const int n = Communicator::world().size();
    src.apply_set("mesh.partition=blocks");
    src.apply_set(std::string("initial.position=") + (n == 2 ? "0.47" : n == 3 ? "0.31" : "0.8"));
    const CaseConfig cfg = parse_case(src);
    const BuiltMesh g = build_mesh(cfg.mesh);
    const RunSummary alone = run_simulation(cfg, g.device, RunHooks{}, true);
    ASSERT_FALSE(alone.failure.has_value());
    ASSERT_GT(alone.retried_steps, 0) << "the case no longer takes steps again: it guards nothing";
    expect_same_run(cfg, std::string("toro 5 on tets, Barth-Jespersen, ghost layers: ") + layers, true, 0);
  }
}

TEST(DistributedRun, FilesEachStagesExchangesUnderTheirKind) {
  // Per Runge-Kutta stage one state exchange and one of the gradients and limiter values, in both
  // halo variants; the decomposition's geometry exchanges are "other".
  const Communicator w = Communicator::world();
  for (const char* hv : {"naive", "optimized"}) {
    SCOPED_TRACE(hv);
    const CaseConfig cfg =
        test::case_from(test::kPeriodicBlob, {"mesh.generate.cells=[5,5,4]", "time.steps=4", "parallel.halo.layers=1",
                                              std::string("parallel.halo.variant=") + hv});
    const BuiltMesh g = build_mesh(cfg.mesh);
    Decomposition d = decompose(g, cfg.mesh, w, cfg.parallel.halo);
    const HaloStats before = d.halo->stats();
    const RunSummary r = run_simulation(cfg, d.mesh, RunHooks{}, true, nullptr, w, d.halo.get());
    ASSERT_FALSE(r.failure.has_value());
    HaloStats s = d.halo->stats();
    s -= before;
    const long long any = d.halo->neighbours() > 0 ? 1 : 0, stages = 3 * r.steps; // SSP-RK3
    EXPECT_EQ(s.of(HaloKind::state).exchanges, any * stages);
    EXPECT_EQ(s.of(HaloKind::gradient_limiter).exchanges, any * stages);
    EXPECT_EQ(s.of(HaloKind::other).exchanges, 0);
    EXPECT_EQ(before.of(HaloKind::other).exchanges, 3 * any); // volumes, their inverses, centroids
    EXPECT_EQ(s.of(HaloKind::gradient_limiter).values_sent,
              any * stages * d.halo->rows_sent() * 8); // (3 + 1) x 2 components
  }
  // Two ghost layers (docs/halo.md#two-ghost-layers): the state of both layers once per stage, nothing else.
  for (const char* hv : {"naive", "optimized"}) {
    SCOPED_TRACE(std::string(hv) + ", two ghost layers");
    const CaseConfig cfg =
        test::case_from(test::kPeriodicBlob, {"mesh.generate.cells=[5,5,4]", "time.steps=4", "parallel.halo.layers=2",
                                              std::string("parallel.halo.variant=") + hv});
    const BuiltMesh g = build_mesh(cfg.mesh);
    Decomposition d = decompose(g, cfg.mesh, w, cfg.parallel.halo);
    const Decomposition one = decompose(g, cfg.mesh, w);
    if (w.size() > 1) {
      EXPECT_GT(d.mesh.n_ghosts, one.mesh.n_ghosts);
    }
    EXPECT_EQ(d.mesh.n_layer1, one.mesh.n_ghosts);
    const HaloStats before = d.halo->stats();
    const RunSummary r = run_simulation(cfg, d.mesh, RunHooks{}, true, nullptr, w, d.halo.get());
    ASSERT_FALSE(r.failure.has_value());
    HaloStats s = d.halo->stats();
    s -= before;
    const long long any = d.halo->neighbours() > 0 ? 1 : 0, stages = 3 * r.steps;
    EXPECT_EQ(s.of(HaloKind::state).exchanges, any * stages);
    EXPECT_EQ(s.of(HaloKind::state).values_sent, any * stages * d.halo->rows_sent() * 2); // 2 components
    EXPECT_EQ(s.of(HaloKind::gradient_limiter).exchanges, 0);
    EXPECT_EQ(s.of(HaloKind::other).exchanges, 0);
  }
}

TEST(DistributedRun, PtscotchEqualsOneRankBitwise) {
  // mesh.partition: ptscotch, computed by the ranks together, gives the one-rank answer bitwise.
  const std::vector<std::string> base{"mesh.generate.cells=[5,5,4]", "time.steps=6", "run.deterministic=true",
                                      "mesh.partition=ptscotch"};
  expect_same_run(test::case_from(test::kPeriodicBlob, base), "deterministic, ptscotch", true, 0);
  std::vector<std::string> random = base;
  random.push_back("mesh.reorder=random");
  expect_same_run(test::case_from(test::kPeriodicBlob, random), "deterministic, ptscotch, random numbering", true, 0);
}

// --- restart: each rank reads its block of the checkpoint ---------------------------------------

} // namespace
} // namespace fvproxy
