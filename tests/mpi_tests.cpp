// Tests that need several MPI ranks, run by CTest under mpirun at 1, 2 and 3 ranks (mpi.tests_N).
// Every rank builds the same global mesh, partitions it into as many parts as there are ranks and
// extracts its own part; the checks compare with the global mesh held by every rank. Only rank 0
// prints GoogleTest's report; a failure on any rank fails the test on every rank (the result is
// reduced), so the exit code is the same everywhere.
#include <mpi.h>

#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <tuple>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include "io/checkpoint.hpp"
#include "io/field_file.hpp"
#include "io/output_series.hpp"
#include "mesh/build.hpp"
#include "mesh/local_mesh.hpp"
#include "mesh/partition.hpp"
#include "operators/convection/convection.hpp"
#include "operators/diffusion/diffusion.hpp"
#include "operators/face_flux.hpp"
#include "operators/muscl/gradient.hpp"
#include "operators/muscl/limiter.hpp"
#include "parallel/communicator.hpp"
#include "parallel/decomposition.hpp"
#include "parallel/halo.hpp"
#include "solver/simulation.hpp"
#include "test_helpers.hpp"

namespace fvproxy {
namespace {

std::vector<MeshConfig> meshes() {
  MeshConfig tet;
  tet.generate = BoxConfig{};
  tet.generate->cells = {6, 5, 4};
  tet.generate->element = ElementKind::tet;
  tet.generate->perturb = 0.15;
  tet.generate->periodic = {true, true, false};
  tet.reorder = Ordering::zorder;
  MeshConfig gmsh;
  gmsh.file = test::source_path("mesh/hybrid_channel.msh");
  gmsh.reorder = Ordering::random;
  return {tet, gmsh};
}

/// A value per (global id, column) that no other cell or column has.
real tag(gid_t gid, int c) {
  return real(gid) * real(16) + real(c) + real(0.25);
}

TEST(Communicator, ReductionsAgreeOnEveryRank) {
  const Communicator w = Communicator::world();
  const int P = w.size(), r = w.rank();
  EXPECT_EQ(w.sum(double(r + 1)), P * (P + 1) / 2.0);
  EXPECT_EQ(w.max(double(r)), double(P - 1));
  EXPECT_EQ(w.min(std::int64_t(r) - 5), std::int64_t(-5));
  EXPECT_EQ(w.sum(std::int64_t(1) << 40), std::int64_t(P) << 40);
  std::vector<double> v{double(r), -double(r), 1.0};
  w.sum(v);
  EXPECT_EQ(v, (std::vector<double>{P * (P - 1) / 2.0, -P * (P - 1) / 2.0, double(P)}));
  EXPECT_EQ(w.any(r == P - 1), true);
  EXPECT_EQ(w.any(false), false);
  EXPECT_EQ(w.broadcast(r == 0 ? "from rank 0" : "other"), "from rank 0");
  const Communicator s = Communicator::self();
  EXPECT_EQ(s.size(), 1);
  EXPECT_EQ(s.sum(double(r + 1)), double(r + 1));
}

TEST(Halo, FillsNaNPoisonedGhostsWithTheirOwnersValues) {
  const Communicator w = Communicator::world();
  for (const MeshConfig& mc : meshes()) {
    const BuiltMesh b = build_mesh(mc);
    const BoxConfig* box = mc.generate ? &*mc.generate : nullptr;
    for (PartitionMethod method : all_partition_methods()) {
      if (method == PartitionMethod::blocks && !box) continue;
      const Partition p = partition_cells(b.host, b.device, method, w.size(), box, "test");
      const LocalMesh l = extract_local(b.host, p.part, w.rank(), w.size());
      for (HaloVariant variant : {HaloVariant::naive, HaloVariant::optimized}) {
        SCOPED_TRACE(std::string(mc.generate ? "tets" : "gmsh") + ", " + to_string(method) + ", " + to_string(variant));
        Halo halo(l, w, variant);
        EXPECT_EQ(halo.n_ghosts(), l.n_ghosts());
        for (int cols : {1, 3, 5}) {
          View2<real> a("a", l.host.n_cells(), cols);
          auto h = Kokkos::create_mirror_view(a);
          for (index_t c = 0; c < l.host.n_cells(); ++c)
            for (int k = 0; k < cols; ++k)
              h(c, k) = c < l.n_owned ? tag(l.host.cell_gid[c], k) : std::numeric_limits<real>::quiet_NaN();
          Kokkos::deep_copy(a, h);
          halo.start({a});
          halo.finish();
          Kokkos::deep_copy(h, a);
          for (index_t c = 0; c < l.host.n_cells(); ++c)
            for (int k = 0; k < cols; ++k)
              ASSERT_EQ(h(c, k), tag(l.host.cell_gid[c], k)) << "cell " << c << " gid " << l.host.cell_gid[c];
        }
        // Exchanging twice changes nothing; the counts are what the lists say.
        const long long before = halo.stats().values_sent;
        View1<real> v("v", l.host.n_cells());
        halo.exchange(v);
        EXPECT_EQ(halo.stats().values_sent - before, halo.rows_sent());
        EXPECT_EQ(halo.neighbours(), int(l.links.size()));
      }
    }
  }
}

TEST(Halo, SeveralArraysInOneMessage) {
  // The gradients and limiter values of a stage travel together: one message per neighbour, each
  // array's ghost rows filled with its own owners' values.
  const Communicator w = Communicator::world();
  const MeshConfig mc = meshes()[0];
  const BuiltMesh b = build_mesh(mc);
  const Partition p = partition_cells(b.host, b.device, PartitionMethod::metis, w.size(), nullptr, "test");
  const LocalMesh l = extract_local(b.host, p.part, w.rank(), w.size());
  for (HaloVariant variant : {HaloVariant::naive, HaloVariant::optimized}) {
    SCOPED_TRACE(to_string(variant));
    Halo halo(l, w, variant);
    std::vector<View2<real>> arrays;
    for (int cols : {6, 2}) {
      View2<real> a("a", l.host.n_cells(), cols);
      auto h = Kokkos::create_mirror_view(a);
      for (index_t c = 0; c < l.host.n_cells(); ++c)
        for (int k = 0; k < cols; ++k)
          h(c, k) = c < l.n_owned ? tag(l.host.cell_gid[c], k) * real(cols) : std::numeric_limits<real>::quiet_NaN();
      Kokkos::deep_copy(a, h);
      arrays.push_back(a);
    }
    const HaloStats before = halo.stats();
    halo.start(arrays);
    halo.finish();
    EXPECT_EQ(halo.stats().messages - before.messages, halo.neighbours());
    EXPECT_EQ(halo.stats().values_sent - before.values_sent, 8LL * halo.rows_sent());
    for (const View2<real>& a : arrays) {
      const int cols = static_cast<int>(a.extent(1));
      auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), a);
      for (index_t c = 0; c < l.host.n_cells(); ++c)
        for (int k = 0; k < cols; ++k)
          ASSERT_EQ(h(c, k), tag(l.host.cell_gid[c], k) * real(cols)) << "cell gid " << l.host.cell_gid[c];
    }
  }
}

/// A smooth field with boundary values, sampled at cell and boundary-face centroids of `m`; rows
/// at or above `m.n_cells` (ghosts) are NaN.
std::pair<View2<real>, View2<real>> sampled(const Mesh& m, int n) {
  View2<real> u("u", m.n_local(), n), ub("ub", m.n_faces - m.n_interior, n);
  auto C = Kokkos::create_mirror_view_and_copy(HostSpace(), m.centroid);
  auto F = Kokkos::create_mirror_view_and_copy(HostSpace(), m.face_centroid);
  auto hu = Kokkos::create_mirror_view(u);
  auto hb = Kokkos::create_mirror_view(ub);
  auto f = [](int k, double x, double y, double z) {
    return std::sin(2.1 * x + k) * std::cos(1.7 * y) + 0.3 * z * z + 0.1 * k;
  };
  for (index_t c = 0; c < m.n_local(); ++c)
    for (int k = 0; k < n; ++k)
      hu(c, k) = c < m.n_cells ? real(f(k, C(c, 0), C(c, 1), C(c, 2))) : std::numeric_limits<real>::quiet_NaN();
  for (index_t q = 0; q < m.n_faces - m.n_interior; ++q)
    for (int k = 0; k < n; ++k) {
      const index_t fc = m.n_interior + q;
      hb(q, k) = real(f(k, F(fc, 0), F(fc, 1), F(fc, 2)));
    }
  Kokkos::deep_copy(u, hu);
  Kokkos::deep_copy(ub, hb);
  return {u, ub};
}

/// What one Runge-Kutta stage's operators produce: gradients, limiter values, rate.
struct StageResult {
  Kokkos::View<real**, Kokkos::LayoutLeft, HostSpace> grad, lim, rhs;
};

/// The operators of `ops` on mesh `m` with a stage's exchanges: blocking (halo naive, or no halo)
/// on every owned cell at once, or overlapped (halo optimized): the inner part while the messages
/// fly, the frontier part after. The rate's ghost rows start at `sentinel`.
StageResult run_stage(const Mesh& m, const OperatorsConfig& ops, int n, Halo* halo, real sentinel) {
  const OperatorGeometry geom = make_operator_geometry(m);
  VelocityConfig v;
  v.value = {1.0, 0.5, -0.25};
  const View1<real> phi = face_volume_flux(m, v);
  std::vector<BoundaryType> types;
  for (std::size_t i = 0; i < m.patches.size(); ++i)
    types.push_back(std::array{BoundaryType::dirichlet, BoundaryType::outflow, BoundaryType::inflow}[i % 3]);
  const auto gradient = make_gradient(m, geom, ops.muscl, n, false);
  const auto limiter = make_limiter(m, geom, ops.muscl, n, std::vector<real>{real(1.5), real(2.5)});
  const auto convection = make_convection(m, geom, ops.convection, phi, n, types, false);
  const auto diffusion = make_diffusion(m, geom, ops.diffusion, {0.3, 0.1}, types, false);
  const auto fields = sampled(m, n);
  const View2<real> u = fields.first, ub = fields.second;
  const real nan = std::numeric_limits<real>::quiet_NaN();
  View2<real> grad("grad", m.n_local(), 3 * n), lim("lim", m.n_local(), n), rhs("rhs", m.n_local(), n);
  Kokkos::deep_copy(grad, nan);
  Kokkos::deep_copy(lim, nan);
  Kokkos::deep_copy(rhs, sentinel);
  Kokkos::deep_copy(Kokkos::subview(rhs, std::make_pair(index_t(0), m.n_cells), Kokkos::ALL), real(0));
  const auto apply = [&](Part part) {
    convection->apply(u, ub, grad, lim, rhs, part);
    diffusion->apply(u, ub, grad, rhs, part);
  };
  if (halo && halo->variant() == HaloVariant::optimized) {
    halo->start({u});
    gradient->compute(u, ub, grad, Part::inner);
    limiter->compute(u, ub, grad, lim, Part::inner);
    halo->finish();
    gradient->compute(u, ub, grad, Part::frontier);
    limiter->compute(u, ub, grad, lim, Part::frontier);
    halo->start({grad, lim});
    apply(Part::inner);
    halo->finish();
    apply(Part::frontier);
  } else {
    if (halo) halo->exchange(u);
    gradient->compute(u, ub, grad);
    limiter->compute(u, ub, grad, lim);
    if (halo) halo->exchange(std::vector<View2<real>>{grad, lim});
    apply(Part::all);
  }
  return {Kokkos::create_mirror_view_and_copy(HostSpace(), grad), Kokkos::create_mirror_view_and_copy(HostSpace(), lim),
          Kokkos::create_mirror_view_and_copy(HostSpace(), rhs)};
}

TEST(DistributedOperators, EachVariantAndHaloEqualsOneRankPerGlobalId) {
  // Every operator variant (naive, optimized gather, optimized atomic scatter) with each halo
  // variant (blocking; overlapped inner/frontier parts) on a Z-ordered periodic tet box and a
  // randomly numbered Gmsh mesh with boundary patches, against the whole mesh on one rank, per
  // global id: the gradients, the limiter values and the rate. The rate's ghost rows are never
  // written (a scatter adds a flux across a rank boundary to its owned cell only, exactly once).
  const Communicator w = Communicator::world();
  const double tol = test::tol(1e-12);
  const real sentinel = real(12345.5);
  constexpr int n = 2;
  for (const MeshConfig& mc : meshes()) {
    const BuiltMesh g = build_mesh(mc);
    for (int v = 0; v < 3; ++v) {
      OperatorsConfig ops;
      for (OperatorOptions* o : std::vector<OperatorOptions*>{&ops.muscl, &ops.convection, &ops.diffusion}) {
        o->variant = v == 0 ? Variant::naive : Variant::optimized;
        o->scatter = v == 2 ? Scatter::atomic : Scatter::gather;
      }
      ops.muscl.gradient = v == 1 ? Gradient::green_gauss : Gradient::least_squares;
      const StageResult ref = run_stage(g.device, ops, n, nullptr, sentinel);
      for (HaloVariant hv : {HaloVariant::naive, HaloVariant::optimized}) {
        const std::string what = std::string(mc.generate ? "tets" : "gmsh") + ", operators " +
                                 (v == 0   ? "naive"
                                  : v == 1 ? "optimized gather"
                                           : "optimized atomic") +
                                 ", halo " + to_string(hv);
        SCOPED_TRACE(what);
        Decomposition d = decompose(g, mc, w, hv);
        const StageResult r = run_stage(d.mesh, ops, n, d.halo.get(), sentinel);
        std::map<gid_t, index_t> global_of;
        for (index_t c = 0; c < g.host.n_cells(); ++c) global_of[g.host.cell_gid[c]] = c;
        for (const auto& [mine, theirs, name] :
             {std::tuple{r.grad, ref.grad, "gradient"}, std::tuple{r.lim, ref.lim, "limiter"},
              std::tuple{r.rhs, ref.rhs, "rate"}}) {
          double scale = 0;
          for (std::size_t c = 0; c < theirs.extent(0); ++c)
            for (std::size_t k = 0; k < theirs.extent(1); ++k) scale = std::max(scale, std::fabs(double(theirs(c, k))));
          for (index_t c = 0; c < d.mesh.n_cells; ++c) {
            const index_t gc = global_of.at(d.local.host.cell_gid[c]);
            for (std::size_t k = 0; k < mine.extent(1); ++k)
              ASSERT_LE(std::fabs(double(mine(c, k)) - double(theirs(gc, k))), tol * scale)
                  << name << " of cell gid " << d.local.host.cell_gid[c] << ", column " << k;
          }
        }
        for (index_t c = d.mesh.n_cells; c < d.mesh.n_local(); ++c)
          for (int k = 0; k < n; ++k)
            ASSERT_EQ(r.rhs(c, k), sentinel)
                << "the rate's ghost row of gid " << d.local.host.cell_gid[c] << " was written";
      }
    }
  }
}

TEST(Halo, GhostGeometryFromItsOwnerIsTheGlobalMeshes) {
  // A ghost sees only its faces to owned cells, so the volume computed here is wrong; after the
  // exchange of volume and centroid every ghost's equals the global mesh's, bitwise.
  const Communicator w = Communicator::world();
  for (const MeshConfig& mc : meshes()) {
    const BuiltMesh b = build_mesh(mc);
    const Partition p = partition_cells(b.host, b.device, PartitionMethod::metis, w.size(), nullptr, "test");
    const LocalMesh l = extract_local(b.host, p.part, w.rank(), w.size());
    Mesh m = upload(l.host);
    Halo halo(l, w);
    halo.exchange(m.volume);
    halo.exchange(m.centroid);
    auto vol = Kokkos::create_mirror_view_and_copy(HostSpace(), m.volume);
    auto cen = Kokkos::create_mirror_view_and_copy(HostSpace(), m.centroid);
    auto gvol = Kokkos::create_mirror_view_and_copy(HostSpace(), b.device.volume);
    auto gcen = Kokkos::create_mirror_view_and_copy(HostSpace(), b.device.centroid);
    for (index_t c = 0; c < l.host.n_cells(); ++c) {
      const index_t g = l.global_cell[c];
      ASSERT_EQ(vol(c), gvol(g)) << "cell gid " << l.host.cell_gid[c];
      for (int d = 0; d < 3; ++d) ASSERT_EQ(cen(c, d), gcen(g, d));
    }
  }
}

/// The case run on this rank's part (every rank) and on the whole mesh (each rank alone), compared
/// per global id: bitwise when `bitwise`, else to `rel` of the field's largest magnitude.
void expect_same_run(const CaseConfig& cfg, const std::string& what, bool bitwise, double rel) {
  SCOPED_TRACE(what);
  const Communicator w = Communicator::world();
  const BuiltMesh g = build_mesh(cfg.mesh);
  const RunSummary ref = run_simulation(cfg, g.device, RunHooks{}, true);
  Decomposition d = decompose(g, cfg.mesh, w, cfg.parallel.halo);
  const RunSummary r = run_simulation(cfg, d.mesh, RunHooks{}, true, nullptr, w, d.halo.get());
  ASSERT_FALSE(ref.failure.has_value());
  ASSERT_FALSE(r.failure.has_value());
  EXPECT_EQ(r.dt, ref.dt);
  EXPECT_EQ(r.steps, ref.steps);
  EXPECT_EQ(r.cells, ref.cells);
  EXPECT_EQ(r.cfl.limiting_cell >= 0, ref.cfl.limiting_cell >= 0);
  std::map<gid_t, index_t> global_of;
  for (index_t c = 0; c < g.host.n_cells(); ++c) global_of[g.host.cell_gid[c]] = c;
  for (int k = 0; k < ref.components; ++k) {
    double scale = 0;
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
    EXPECT_NEAR(r.final_min[k], ref.final_min[k], exact);
    EXPECT_NEAR(r.final_max[k], ref.final_max[k], exact);
    if (ref.errors) {
      ASSERT_TRUE(r.errors.has_value());
      EXPECT_NEAR((*r.errors)[k].l2, (*ref.errors)[k].l2, 1e-12 * (*ref.errors)[k].l2 + exact);
      EXPECT_NEAR((*r.errors)[k].linf, (*ref.errors)[k].linf, exact);
    }
  }
}

TEST(DistributedRun, EqualsOneRankPerGlobalId) {
  const double tol = test::tol(1e-12);
  const std::vector<std::string> base{"mesh.generate.cells=[5,5,4]", "time.steps=6"};
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
  // The blocking halo, and the overlapped one with atomic scatters (faces to ghosts one-sided).
  expect_same_run(with({"run.deterministic=true", "parallel.halo.variant=naive"}), "deterministic, naive halo", true,
                  0);
  expect_same_run(with({"operators.muscl.scatter=atomic", "operators.convection.scatter=atomic",
                        "operators.diffusion.scatter=atomic", "mesh.reorder=random"}),
                  "atomic scatters, overlapped halo, random numbering", false, tol);
  // A Gmsh mesh with inflow, outflow and Dirichlet walls (boundary faces on several ranks).
  ConfigSource src = ConfigSource::from_file(test::source_path("inputs/hybrid_channel.yaml"));
  src.apply_set("time={steps: 5, cfl: 0.4}");
  src.apply_set("run.deterministic=true");
  expect_same_run(parse_case(src), "hybrid channel (Gmsh), deterministic", true, 0);
}

// --- restart: each rank reads its block of the checkpoint ---------------------------------------

/// A folder of this rank count's own (the 1, 2 and 3 rank tests may run at the same time), created
/// by rank 0.
std::string shared_dir(const std::string& name) {
  const Communicator w = Communicator::world();
  const std::string d = "out/mpi_" + name + "_np" + std::to_string(w.size());
  if (w.rank() == 0) {
    std::filesystem::remove_all(d);
    std::filesystem::create_directories(d);
  }
  w.barrier();
  return d;
}

TEST(Restart, EachRankReadsItsBlockOfRowsAndReceivesItsOwnedCells) {
  const Communicator w = Communicator::world();
  const int P = w.size(), r = w.rank();
  const CaseConfig cfg = test::case_from(test::kPeriodicBlob, {"mesh.generate.cells=[5,4,4]", "mesh.reorder=zorder"});
  const BuiltMesh g = build_mesh(cfg.mesh);
  Decomposition d = decompose(g, cfg.mesh, w, cfg.parallel.halo);
  const index_t n = g.host.n_cells(), owned = d.mesh.n_cells;
  RestartCells cells;
  cells.gid.assign(d.local.host.cell_gid.begin(), d.local.host.cell_gid.begin() + owned);
  cells.global_cells = n;
  cells.fingerprint = mesh_fingerprint(g.host);
  const std::string dir = shared_dir("restart_block");
  // Two files of the same cells: rows in the mesh's order, and reversed (another run's ordering).
  for (const bool reversed : {false, true}) {
    SCOPED_TRACE(reversed ? "rows reversed" : "rows in the mesh's order");
    const std::string path = dir + (reversed ? "/reversed.h5" : "/same.h5");
    if (r == 0) { // written by rank 0 alone
      std::vector<gid_t> gid(g.host.cell_gid);
      if (reversed) std::reverse(gid.begin(), gid.end());
      std::vector<std::vector<real>> u(2, std::vector<real>(std::size_t(n)));
      for (index_t i = 0; i < n; ++i)
        for (int k = 0; k < 2; ++k) u[k][i] = tag(gid[i], k);
      FieldFile h;
      h.kind = "checkpoint";
      h.step = 3;
      h.time = 0.25;
      h.names = {"u0", "u1"};
      h.numbers = {{"dt", 0.125}, {"total_steps", 8.0}, {"components", 2.0}};
      h.vectors["conservation_initial"] = {1.0, 2.0};
      h.strings = {{"mesh_fingerprint", cells.fingerprint}, {"case", "restart_block"}};
      write_field_file(path, h, n, gid.data(), {u[0].data(), u[1].data()}, Communicator::self());
    }
    w.barrier();
    RestartRead read;
    const RestartPoint rp = read_restart(path, cfg, cells, w, &read);
    // This rank read its block of rows only, and received exactly its owned cells.
    EXPECT_EQ(read.file_rows, n);
    EXPECT_EQ(read.row_begin, std::int64_t(n) * r / P);
    EXPECT_EQ(read.row_end, std::int64_t(n) * (r + 1) / P);
    EXPECT_EQ(w.sum(read.row_end - read.row_begin), std::int64_t(n));
    if (P > 1) {
      EXPECT_LT(read.row_end - read.row_begin, std::int64_t(n)); // never the whole file
    }
    EXPECT_EQ(read.rows_received, std::int64_t(owned));
    EXPECT_EQ(rp.step, 3);
    EXPECT_EQ(rp.total_steps, 8);
    EXPECT_EQ(rp.dt, 0.125);
    EXPECT_EQ(rp.conservation_initial, (std::vector<double>{1.0, 2.0}));
    ASSERT_EQ(rp.state.size(), 2u);
    for (int k = 0; k < 2; ++k) {
      ASSERT_EQ(rp.state[k].size(), std::size_t(owned));
      for (index_t c = 0; c < owned; ++c) ASSERT_EQ(rp.state[k][c], tag(cells.gid[c], k)) << "component " << k;
    }
  }
  // A cell that the file lacks, on the last rank only: every rank fails with its message.
  RestartCells more = cells;
  if (r == P - 1) more.gid.push_back(gid_t(n) + 7);
  test::expect_input_error([&] { read_restart(dir + "/same.h5", cfg, more, w); },
                           {"same.h5", "the checkpoint has no cell of global id " + std::to_string(n + 7)});
  // A cell of the file that no rank holds, likewise.
  RestartCells fewer = cells;
  const std::string dropped = w.broadcast(std::to_string(cells.gid.at(0)), 0);
  if (r == 0) fewer.gid.erase(fewer.gid.begin());
  test::expect_input_error([&] { read_restart(dir + "/same.h5", cfg, fewer, w); },
                           {"same.h5", "the checkpoint has a cell of global id " + dropped + " that the mesh lacks"});
}

TEST(Restart, ContinuesBitwiseAsTheUninterruptedRun) {
  const Communicator w = Communicator::world();
  const CaseConfig cfg =
      test::case_from(test::kPeriodicBlob, {"mesh.generate.cells=[5,5,4]", "time.steps=6", "run.deterministic=true",
                                            "checkpoint.every={steps: 3}", "mesh.reorder=hilbert"});
  const BuiltMesh g = build_mesh(cfg.mesh);
  const RunSummary ref = run_simulation(cfg, g.device, RunHooks{}, true); // each rank alone
  Decomposition d = decompose(g, cfg.mesh, w, cfg.parallel.halo);
  const std::string dir = shared_dir("restart_run");
  OutputSeries series(dir, cfg, g.host, FileMetadata{"case: test\n", "{}", "{}"});
  series.set_decomposition(
      w, std::vector<index_t>(d.local.global_cell.begin(), d.local.global_cell.begin() + d.mesh.n_cells));
  RunHooks hooks;
  hooks.write_checkpoint = [&](long long s, double t, ConstView2<real> u, const CheckpointInfo& i) {
    return series.write_checkpoint(s, t, u, i);
  };
  run_simulation(cfg, d.mesh, hooks, false, nullptr, w, d.halo.get());
  RestartCells cells;
  cells.gid.assign(d.local.host.cell_gid.begin(), d.local.host.cell_gid.begin() + d.mesh.n_cells);
  cells.global_cells = g.host.n_cells();
  cells.fingerprint = mesh_fingerprint(g.host);
  const RestartPoint rp = read_restart(dir + "/checkpoint_000003.h5", cfg, cells, w);
  const RunSummary rest = run_simulation(cfg, d.mesh, RunHooks{}, true, &rp, w, d.halo.get());
  EXPECT_EQ(rest.first_step, 4);
  EXPECT_EQ(rest.steps, ref.steps);
  EXPECT_EQ(rest.time, ref.time);
  std::map<gid_t, index_t> global_of;
  for (index_t c = 0; c < g.host.n_cells(); ++c) global_of[g.host.cell_gid[c]] = c;
  for (int k = 0; k < ref.components; ++k) {
    for (index_t c = 0; c < d.mesh.n_cells; ++c) {
      const real a = rest.final_state[k][c], b = ref.final_state[k][global_of.at(cells.gid[c])];
      ASSERT_EQ(std::memcmp(&a, &b, sizeof(real)), 0) << "component " << k << ", cell gid " << cells.gid[c];
    }
    EXPECT_EQ(rest.conservation_final[k], ref.conservation_final[k]);
  }
}

} // namespace
} // namespace fvproxy

namespace {
/// On ranks other than 0: each failed assertion, prefixed with the rank (rank 0 prints the report).
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed())
      std::printf("[rank %d] %s:%d: Failure\n%s\n", rank_, r.file_name() ? r.file_name() : "?", r.line_number(),
                  r.summary());
  }

private:
  int rank_;
};
} // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ::testing::InitGoogleTest(&argc, argv);
  if (rank != 0) { // one report: rank 0's
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(rank));
  }
  int failed = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    failed = RUN_ALL_TESTS();
  }
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) std::printf("%s: %d ranks\n", any ? "FAIL" : "OK", size);
  MPI_Finalize();
  return any ? 1 : 0;
}
