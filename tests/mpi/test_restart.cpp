// Restart on several ranks: each rank reads its rows, continues bitwise.
#include "mpi_fixture.hpp"

namespace fvproxy {
namespace {

using mpi_test::meshes;
using mpi_test::tag;

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
  // Written with one ghost layer, continued with two (docs/halo.md#two-ghost-layers): the same bits.
  Decomposition d2 = decompose(g, cfg.mesh, w, HaloSettings(HaloVariant::optimized, HaloTransport::automatic, 2));
  ASSERT_EQ(d2.halo->layers(), 2);
  const RestartPoint rp2 = read_restart(dir + "/checkpoint_000003.h5", cfg, cells, w);
  const RunSummary two = run_simulation(cfg, d2.mesh, RunHooks{}, true, &rp2, w, d2.halo.get());
  EXPECT_EQ(two.first_step, 4);
  for (int k = 0; k < ref.components; ++k)
    for (index_t c = 0; c < d2.mesh.n_cells; ++c) {
      ASSERT_EQ(d2.local.host.cell_gid[c], cells.gid[c]); // the owned part as with one layer
      const real a = two.final_state[k][c], b = ref.final_state[k][global_of.at(cells.gid[c])];
      ASSERT_EQ(std::memcmp(&a, &b, sizeof(real)), 0) << "component " << k << ", cell gid " << cells.gid[c];
    }
}

} // namespace
} // namespace fvproxy
