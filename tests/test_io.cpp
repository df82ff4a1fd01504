// HDF5 output, checkpoint/restart and compare (io/): files round-trip exactly, the XDMF
// connectivity describes the mesh (with the wedge's orientation), writes are atomic, damaged and
// foreign files are refused clearly, compare matches cells by global id, and a run of 2N steps
// equals N steps + restart + N steps bitwise under run.deterministic.
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <thread>

#include <hdf5.h>

#include "io/checkpoint.hpp"
#include "io/compare.hpp"
#include "io/field_file.hpp"
#include "io/hdf5_file.hpp"
#include "io/output_series.hpp"
#include "io/xdmf.hpp"
#include "mesh/box_generator.hpp"
#include "mesh/build.hpp"
#include "mesh/gmsh_reader.hpp"
#include "solver/case_config.hpp"
#include "solver/simulation.hpp"
#include "test_helpers.hpp"

namespace fvproxy {
namespace {

namespace fs = std::filesystem;

/// A fresh, empty folder per test under the build tree's working directory.
fs::path scratch(const std::string& name) {
  const fs::path p = fs::current_path() / "test_io_scratch" / name;
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

FileMetadata meta() {
  return {"case: test\n", "{}", "{\"build\": \"test\"}"};
}

// --- the mesh file ------------------------------------------------------------------------------

TEST(MeshFile, RoundTripsAndDescribesEveryCell) {
  const HostMesh m = read_gmsh(test::source_path("mesh/hybrid_channel.msh"));
  const fs::path dir = scratch("mesh_file");
  const std::string path = (dir / "mesh.h5").string();
  const MeshFileInfo info = write_mesh_file(path, m, meta());
  EXPECT_EQ(info.cells, m.n_cells());
  EXPECT_EQ(info.nodes, m.n_nodes());
  const h5::File f = h5::File::open(path);
  EXPECT_EQ(f.read<double>("/mesh/nodes"), m.x);
  EXPECT_EQ(f.shape("/mesh/nodes"), (std::vector<std::int64_t>{m.n_nodes(), 3}));
  EXPECT_EQ(f.read<std::int64_t>("/cells/global_id"), m.cell_gid);
  EXPECT_EQ(f.read<std::int64_t>("/nodes/global_id"), m.node_gid);
  EXPECT_EQ(f.attribute_string("/", "kind"), "mesh");
  EXPECT_EQ(f.read_string("/fvproxy/case_yaml"), "case: test\n");
  EXPECT_EQ(f.stored_type("/fvproxy/build"), "string");
  // Decode the mixed topology: one entry per cell, in storage order, the right nodes.
  const auto topo = f.read<std::int64_t>("/mesh/topology");
  EXPECT_EQ(std::int64_t(topo.size()), info.topology_length);
  std::size_t p = 0;
  int prisms = 0;
  for (index_t c = 0; c < m.n_cells(); ++c) {
    ASSERT_LT(p, topo.size());
    ASSERT_EQ(topo[p], xdmf_cell_code(m.cell_type[c])) << "cell " << c;
    const int nn = element_info(m.cell_type[c]).n_nodes;
    std::vector<index_t> want(m.cell_nodes.begin() + m.cell_node_off[c], m.cell_nodes.begin() + m.cell_node_off[c + 1]);
    std::vector<index_t> got(topo.begin() + std::ptrdiff_t(p) + 1, topo.begin() + std::ptrdiff_t(p) + 1 + nn);
    if (m.cell_type[c] == CellType::prism) {
      // VTK/XDMF wedge: the triangle (0,1,2) has its right-hand normal pointing away from (3,4,5).
      ++prisms;
      auto X = [&](index_t n, int d) { return m.x[3 * std::size_t(n) + d]; };
      double a[3], b[3], nrm[3], to_top[3];
      for (int d = 0; d < 3; ++d) {
        a[d] = X(got[1], d) - X(got[0], d);
        b[d] = X(got[2], d) - X(got[0], d);
        to_top[d] = (X(got[3], d) + X(got[4], d) + X(got[5], d) - X(got[0], d) - X(got[1], d) - X(got[2], d)) / 3;
      }
      nrm[0] = a[1] * b[2] - a[2] * b[1], nrm[1] = a[2] * b[0] - a[0] * b[2], nrm[2] = a[0] * b[1] - a[1] * b[0];
      EXPECT_LT(nrm[0] * to_top[0] + nrm[1] * to_top[1] + nrm[2] * to_top[2], 0) << "wedge " << c;
      std::sort(want.begin(), want.end());
      std::sort(got.begin(), got.end());
    }
    EXPECT_EQ(got, want) << "cell " << c;
    p += 1 + std::size_t(nn);
  }
  EXPECT_EQ(p, topo.size());
  EXPECT_GT(prisms, 0);
  // Patches: every boundary face once, with its owner.
  std::size_t faces = 0;
  for (const Patch& pt : m.patches) faces += f.read<std::int64_t>("/patches/" + pt.name + "/cell_global_id").size();
  EXPECT_EQ(faces, std::size_t(m.n_faces() - m.n_interior));
}

std::string bytes_of(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

TEST(MeshFile, TheSameDataGivesTheSameBytes) {
  // No modification times in the files (docs/output.md): written a second apart, the same bytes.
  BoxConfig box;
  box.cells = {3, 2, 2};
  box.element = ElementKind::prism;
  const HostMesh m = generate_box(box);
  const fs::path dir = scratch("same_bytes");
  write_mesh_file((dir / "a.h5").string(), m, meta());
  std::vector<real> u(std::size_t(m.n_cells()), real(0.5));
  FieldFile h;
  h.names = {"u0"};
  h.meta = meta();
  write_field_file((dir / "fa.h5").string(), h, m.n_cells(), m.cell_gid.data(), {u.data()});
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  write_mesh_file((dir / "b.h5").string(), m, meta());
  write_field_file((dir / "fb.h5").string(), h, m.n_cells(), m.cell_gid.data(), {u.data()});
  EXPECT_EQ(bytes_of(dir / "a.h5"), bytes_of(dir / "b.h5"));
  EXPECT_EQ(bytes_of(dir / "fa.h5"), bytes_of(dir / "fb.h5"));
  EXPECT_GT(bytes_of(dir / "a.h5").size(), 1000u);
}

TEST(MeshFile, XdmfNamesTheDatasets) {
  const MeshFileInfo info{10, 20, 55};
  const std::string x =
      xdmf_text("mesh.h5", info, {{"fields_000003.h5", 0.25, 3, {"u0", "u1", "velocity"}, {1, 1, 3}}}, 8);
  for (const char* frag :
       {"Version=\"3.0\"", "CollectionType=\"Temporal\"", "GridType=\"Uniform\"", "<Time Value=\"0.25\"/>",
        "TopologyType=\"Mixed\" NumberOfElements=\"10\"", "Dimensions=\"55\"", "mesh.h5:/mesh/topology",
        "Dimensions=\"20 3\"", "fields_000003.h5:/fields/u1", "Center=\"Cell\"",
        // a (cells, 3) dataset is a vector attribute (ParaView shows it as one)
        "<Attribute Name=\"velocity\" AttributeType=\"Vector\"", "Dimensions=\"10 3\"",
        "fields_000003.h5:/fields/velocity"})
    EXPECT_NE(x.find(frag), std::string::npos) << frag;
}

// --- fields files, atomicity and bad files --------------------------------------------------------

FieldFile header(double t, long long step) {
  FieldFile h;
  h.time = t;
  h.step = step;
  h.names = {"u0", "u1"};
  h.meta = meta();
  return h;
}

TEST(FieldFile, RoundTripsBitwise) {
  const fs::path dir = scratch("fields");
  const std::vector<gid_t> gid{5, 3, 9, 0};
  const std::vector<real> u0{real(0.1), real(-1.25), real(1) / real(3), real(7)};
  const std::vector<real> u1{real(1e-30), real(2), real(3), std::nextafter(real(1), real(2))};
  const std::string path = (dir / "f.h5").string();
  write_field_file(path, header(0.125, 42), 4, gid.data(), {u0.data(), u1.data()});
  const FieldFile r = read_field_file(path);
  EXPECT_EQ(r.kind, "fields");
  EXPECT_EQ(r.time, 0.125);
  EXPECT_EQ(r.step, 42);
  EXPECT_EQ(r.cell_gid, gid);
  ASSERT_EQ(r.names, (std::vector<std::string>{"u0", "u1"}));
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(static_cast<real>(r.values[0][i]), u0[i]);
    EXPECT_EQ(static_cast<real>(r.values[1][i]), u1[i]);
  }
  EXPECT_EQ(r.meta.build, meta().build);
  EXPECT_EQ(r.real_type, sizeof(real) == 4 ? "float" : "double");
  // No temporary file is left behind.
  for (const auto& e : fs::directory_iterator(dir)) EXPECT_EQ(e.path().filename(), "f.h5");
  test::expect_input_error([&] { read_field_file(path, {"u7"}); }, {"no field 'u7'", "u0, u1"});
}

TEST(FieldFile, VectorsAreCellsBy3DatasetsReadAsComponents) {
  // The flow models' vectors: one (cells, 3) dataset, read back as name[0], name[1], name[2];
  // `fields` selects a vector by its dataset name. fvproxy compare judges each component against
  // the vector's scale: round-off in a zero component passes, a real difference in it fails.
  const fs::path dir = scratch("vectors");
  const std::vector<gid_t> gid{2, 0, 1};
  const std::vector<real> rho{1, 2, 3};
  const std::vector<real> v{1, real(1e-17), 0, 2, 0, real(-1e-17), 3, 0, 0}; // row-major (3, 3)
  FieldFile h = header(0.5, 3);
  h.names = {"density", "velocity"};
  h.widths = {1, 3};
  const std::string path = (dir / "v.h5").string();
  write_field_file(path, h, 3, gid.data(), {rho.data(), v.data()});
  {
    const h5::File f = h5::File::open(path);
    EXPECT_EQ(f.shape("/fields/velocity"), (std::vector<std::int64_t>{3, 3}));
  }
  const FieldFile r = read_field_file(path);
  ASSERT_EQ(r.names, (std::vector<std::string>{"density", "velocity[0]", "velocity[1]", "velocity[2]"}));
  EXPECT_EQ(r.values[1], (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(r.values[2][0], double(real(1e-17)));
  EXPECT_EQ(read_field_file(path, {"velocity"}).names.size(), 3u);
  FieldFile b = r;
  b.values[2] = {0, 0, 0}; // velocity[1]: round-off against the vector's scale 3
  for (const auto& d : compare_fields(r, "a", b, "b", 1e-10, 0)) EXPECT_TRUE(d.pass) << d.name;
  b.values[2] = {0, 1e-6, 0}; // a real difference
  bool failed = false;
  for (const auto& d : compare_fields(r, "a", b, "b", 1e-10, 0))
    if (d.name == "velocity[1]") {
      failed = !d.pass;
      EXPECT_NEAR(d.max_rel, 1e-6 / 3, 1e-12);
    }
  EXPECT_TRUE(failed);
}

TEST(FieldFile, AnAbandonedWriteLeavesNoFile) {
  const fs::path dir = scratch("abandoned");
  const std::string path = (dir / "f.h5").string();
  {
    h5::AtomicFile af(path);
    af.file().write("/x", std::vector<double>{1, 2, 3});
    // an exception here (disk full, a failed kernel...) destroys it without commit()
  }
  EXPECT_TRUE(fs::is_empty(dir));
}

TEST(FieldFile, DiskFullIsAnErrorAndLeavesNothing) {
  // The file-size limit (RLIMIT_FSIZE) makes writes past 64 KiB fail with EFBIG, as a full disk
  // would (SIGXFSZ ignored so that the write reports it instead of killing the process).
  const fs::path dir = scratch("disk_full");
  const index_t n = 20000; // 160 KB of values
  std::vector<gid_t> gid(n);
  std::vector<real> u(n, real(1.5));
  for (index_t i = 0; i < n; ++i) gid[i] = i;
  FieldFile h = header(1, 7);
  h.names = {"u0"};
  struct rlimit old {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  auto* old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old;
  small.rlim_cur = 64 * 1024;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string message;
  try {
    write_field_file((dir / "fields_000007.h5").string(), h, n, gid.data(), {u.data()});
  } catch (const RunError& e) {
    message = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_NE(message.find("writing fields file"), std::string::npos) << message;
  EXPECT_NE(message.find("fields_000007.h5"), std::string::npos) << message;
  EXPECT_TRUE(fs::is_empty(dir)) << "a truncated or temporary file was left";
}

TEST(FieldFile, BadFilesAreRefusedClearly) {
  const fs::path dir = scratch("bad");
  const std::vector<gid_t> gid{0, 1, 2};
  const std::vector<real> u{1, 2, 3};
  const std::string good = (dir / "good.h5").string();
  FieldFile h = header(1, 1);
  h.names = {"u0"};
  write_field_file(good, h, 3, gid.data(), {u.data()});
  test::expect_input_error([&] { read_field_file((dir / "missing.h5").string()); }, {"missing.h5", "no such file"});
  { std::ofstream((dir / "text.h5").string()) << "not hdf5\n"; }
  test::expect_input_error([&] { read_field_file((dir / "text.h5").string()); }, {"text.h5", "not an HDF5 file"});
  // Truncated: the first half of a valid file.
  {
    std::ifstream in(good, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream((dir / "truncated.h5").string(), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  }
  test::expect_input_error([&] { read_field_file((dir / "truncated.h5").string()); },
                           {"truncated.h5", "damaged, truncated"});
  // Damaged data: one byte of the values flipped (found by their bit pattern) fails the checksum.
  {
    const index_t n = 64;
    std::vector<gid_t> g(n);
    std::vector<real> v(n, real(1234.5678));
    for (index_t i = 0; i < n; ++i) g[i] = i;
    const std::string clean = (dir / "clean.h5").string();
    write_field_file(clean, h, n, g.data(), {v.data()});
    std::ifstream in(clean, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string pattern(sizeof(real) * 4, '\0');
    std::memcpy(pattern.data(), v.data(), pattern.size());
    const std::size_t at = bytes.find(pattern);
    ASSERT_NE(at, std::string::npos);
    bytes[at + sizeof(real) * 10 + 3] ^= 0x10;
    std::ofstream((dir / "damaged.h5").string(), std::ios::binary) << bytes;
    test::expect_input_error([&] { read_field_file((dir / "damaged.h5").string()); },
                             {"damaged.h5", "damaged, truncated", "checksum"});
  }
  // Foreign: a valid HDF5 file of someone else's.
  {
    h5::AtomicFile af((dir / "foreign.h5").string());
    af.file().write("/data", std::vector<double>{1, 2});
    af.commit();
  }
  test::expect_input_error([&] { read_field_file((dir / "foreign.h5").string()); },
                           {"foreign.h5", "not an fvproxy fields or checkpoint file"});
}

// --- compare ------------------------------------------------------------------------------------

FieldFile values(std::vector<gid_t> gid, std::vector<double> u) {
  FieldFile f;
  f.cell_gid = std::move(gid);
  f.names = {"u0"};
  f.values = {std::move(u)};
  return f;
}

TEST(Compare, MatchesCellsByGlobalId) {
  const FieldFile a = values({0, 1, 2, 3}, {1, 2, 3, 4});
  const FieldFile b = values({3, 1, 0, 2}, {4, 2, 1, 3.000001}); // other order, one cell off by 1e-6
  const auto d = compare_fields(a, "a", b, "b", 1e-10, 0);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_FALSE(d[0].pass);
  EXPECT_NEAR(d[0].max_abs, 1e-6, 1e-12);
  EXPECT_EQ(d[0].worst_cell, 2);
  EXPECT_NEAR(d[0].max_rel, 1e-6 / 4, 1e-12);
  EXPECT_NEAR(d[0].l2, 1e-6 / 2, 1e-12); // RMS over 4 cells
  EXPECT_TRUE(compare_fields(a, "a", b, "b", 1e-6, 0)[0].pass);
  EXPECT_TRUE(compare_fields(a, "a", b, "b", 0, 2e-6)[0].pass);
  EXPECT_TRUE(compare_fields(a, "a", values({3, 2, 1, 0}, {4, 3, 2, 1}), "c", 0, 0)[0].pass);
}

// A field in one file only is a mismatch (exit 1 through the CLI), whichever file lacks it: the
// comparison used to loop over the first file's fields only and passed when the second had more.
TEST(Compare, AFieldInOneFileOnlyIsAMismatch) {
  FieldFile two = values({0, 1}, {1, 2});
  two.names.push_back("u1");
  two.values.push_back({5, 6});
  const FieldFile one = values({1, 0}, {2, 1});
  for (const bool two_first : {true, false}) {
    SCOPED_TRACE(two_first ? "u1 only in A" : "u1 only in B");
    const auto d = two_first ? compare_fields(two, "a", one, "b", 0, 0) : compare_fields(one, "a", two, "b", 0, 0);
    ASSERT_EQ(d.size(), 2u);
    int missing = 0;
    for (const auto& f : d) {
      if (f.name == "u0") {
        EXPECT_TRUE(f.pass);
        EXPECT_TRUE(f.missing_in.empty());
      } else {
        ++missing;
        EXPECT_EQ(f.name, "u1");
        EXPECT_FALSE(f.pass);
        EXPECT_EQ(f.missing_in, two_first ? "B" : "A");
      }
    }
    EXPECT_EQ(missing, 1);
  }
}

TEST(Compare, NonFiniteValuesFailAndOtherMeshesAreBadInput) {
  const FieldFile a = values({0, 1}, {1, 2});
  const auto d = compare_fields(a, "a", values({0, 1}, {1, NAN}), "b", 1, 1);
  EXPECT_FALSE(d[0].pass);
  EXPECT_TRUE(d[0].non_finite);
  test::expect_input_error(
      [&] {
        compare_fields(a, "a", values({0, 1, 2}, {1, 2, 3}), "b", 0, 0);
      },
      {"different meshes", "2 cells in a, 3 in b"});
  test::expect_input_error(
      [&] {
        compare_fields(a, "a", values({0, 7}, {1, 2}), "b", 0, 0);
      },
      {"different meshes", "cell global id 1 of a is not in b"});
  // No field in common: both are mismatches (one missing in each file), not bad input.
  FieldFile other = values({0, 1}, {1, 2});
  other.names = {"u1"};
  const auto m = compare_fields(a, "a", other, "b", 0, 0);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].missing_in, "B");
  EXPECT_EQ(m[1].missing_in, "A");
  EXPECT_FALSE(m[0].pass || m[1].pass);
}

// --- checkpoint and restart -------------------------------------------------------------------

/// test::kPeriodicBlob made smaller (5^3 x 6 tets, 12 steps), then `sets`.
CaseConfig blob(std::vector<std::string> sets = {}) {
  sets.insert(sets.begin(), {"mesh.generate.cells=[5,5,5]", "time.steps=12"});
  return test::case_from(test::kPeriodicBlob, sets);
}

TEST(Checkpoint, MeshFingerprintIgnoresTheOrderingOnly) {
  BoxConfig box;
  box.cells = {4, 3, 3};
  box.element = ElementKind::prism;
  box.perturb = 0.1;
  MeshConfig mc;
  mc.generate = box;
  mc.reorder = Ordering::none;
  const std::string base = mesh_fingerprint(build_mesh(mc).host);
  mc.reorder = Ordering::random;
  EXPECT_EQ(mesh_fingerprint(build_mesh(mc).host), base);
  mc.generate->seed = 2; // other jitter: same cells, other nodes
  EXPECT_NE(mesh_fingerprint(build_mesh(mc).host), base);
  mc.generate->seed = 1;
  mc.generate->cells = {3, 4, 3};
  EXPECT_NE(mesh_fingerprint(build_mesh(mc).host), base);
}

struct Outcome {
  RunSummary summary;
  std::map<gid_t, std::vector<real>> by_gid;
};

/// Runs `cfg` writing into `dir` (checkpoints through OutputSeries), from `restart` when given.
Outcome run_in(const CaseConfig& cfg, const fs::path& dir, const std::string& restart = {}) {
  fs::create_directories(dir);
  const BuiltMesh b = build_mesh(cfg.mesh);
  OutputSeries series(dir.string(), cfg, b.host, meta());
  series.write_mesh();
  std::optional<RestartPoint> rp;
  if (!restart.empty()) rp = read_restart(restart, cfg, b.host);
  RunHooks hooks;
  hooks.write_fields = [&](long long s, double t, ConstView2<real> u) { return series.write_fields(s, t, u); };
  hooks.write_checkpoint = [&](long long s, double t, ConstView2<real> u, const CheckpointInfo& i) {
    return series.write_checkpoint(s, t, u, i);
  };
  Outcome o;
  o.summary = run_simulation(cfg, b.device, hooks, true, rp ? &*rp : nullptr);
  for (index_t c = 0; c < b.device.n_cells; ++c)
    for (int k = 0; k < o.summary.components; ++k) o.by_gid[b.host.cell_gid[c]].push_back(o.summary.final_state[k][c]);
  return o;
}

TEST(Checkpoint, RestartedRunsEndBitwiseIdenticalUnderDeterministic) {
  // Pairwise over variants (naive/optimized per operator, optimized options) and orderings.
  const std::vector<std::vector<std::string>> combos{
      {"operators.muscl.variant=naive", "operators.convection.variant=naive", "operators.diffusion.variant=naive",
       "mesh.reorder=zorder"},
      {"mesh.reorder=random"},
      {"operators.muscl.variant=naive", "operators.diffusion={variant: optimized, policy: team, team_size: 64}",
       "mesh.reorder=hilbert"},
      {"operators.convection.variant=naive", "operators.diffusion.variant=naive", "mesh.reorder=rcm",
       "operators.muscl.limiter=barth-jespersen"},
      {"operators.muscl={variant: optimized, policy: team}", "operators.convection.variant=naive", "mesh.reorder=none",
       "time.integrator=ssprk2"}};
  int n = 0;
  for (auto sets : combos) {
    sets.push_back("run.deterministic=true");
    std::string what;
    for (const auto& s : sets) what += s + " ";
    const fs::path d = scratch("restart_" + std::to_string(n++));
    auto with = [&](std::vector<std::string> more) {
      more.insert(more.begin(), sets.begin(), sets.end());
      return blob(more);
    };
    const Outcome full = run_in(with({}), d / "full");
    const Outcome first = run_in(with({"checkpoint.every={steps: 6}"}), d / "first");
    EXPECT_EQ(first.summary.checkpoint_files.size(), 2u) << what; // steps 6 and 12
    const Outcome rest = run_in(with({}), d / "rest", (d / "first" / "checkpoint_000006.h5").string());
    EXPECT_EQ(rest.summary.first_step, 7) << what;
    EXPECT_EQ(rest.summary.steps, 12) << what;
    EXPECT_EQ(rest.summary.time, full.summary.time) << what;
    EXPECT_EQ(rest.summary.conservation_initial, full.summary.conservation_initial) << what;
    ASSERT_EQ(rest.by_gid.size(), full.by_gid.size());
    for (const auto& [g, v] : full.by_gid)
      EXPECT_EQ(std::memcmp(v.data(), rest.by_gid.at(g).data(), sizeof(real) * v.size()), 0) << what << " cell " << g;
  }
}

TEST(Checkpoint, RestartUnderAnotherOrderingAgrees) {
  // Without run.deterministic the sums may run in another order: the tolerance of docs/output.md#tolerances.
  const fs::path d = scratch("restart_ordering");
  const Outcome full = run_in(blob(), d / "full");
  run_in(blob({"checkpoint.every={steps: 5}", "operators.convection.scatter=atomic"}), d / "first");
  const Outcome rest = run_in(blob({"mesh.reorder=random", "operators.diffusion.scatter=atomic"}), d / "rest",
                              (d / "first" / "checkpoint_000010.h5").string());
  double m = 0, scale = 0;
  for (const auto& [g, v] : full.by_gid)
    for (std::size_t k = 0; k < v.size(); ++k) {
      m = std::max(m, std::fabs(double(v[k]) - double(rest.by_gid.at(g)[k])));
      scale = std::max(scale, std::fabs(double(v[k])));
    }
  EXPECT_LE(m, test::tol(1e-10) * scale);
}

TEST(Checkpoint, IncompatibleCheckpointsAreRefused) {
  const fs::path d = scratch("incompatible");
  run_in(blob({"checkpoint.every={steps: 4}", "time.steps=4"}), d / "a");
  const std::string ck = (d / "a" / "checkpoint_000004.h5").string();
  auto restart = [&](std::vector<std::string> sets) {
    const CaseConfig cfg = blob(sets);
    const BuiltMesh b = build_mesh(cfg.mesh);
    read_restart(ck, cfg, b.host);
  };
  test::expect_input_error([&] { restart({"mesh.generate.cells=[5,5,4]"}); },
                           {"checkpoint is of another mesh", "cells"});
  test::expect_input_error([&] { restart({"mesh.generate.perturb=0.1"}); },
                           {"checkpoint is of another mesh", "fingerprint"});
  test::expect_input_error(
      [&] {
        restart({"physics.components=1", "physics.diffusivity=0.01", "initial=[{type: constant, value: 1}]"});
      },
      {"holds 2 components, the case has 1"});
  test::expect_input_error(
      [&] {
        const CaseConfig cfg = blob();
        const BuiltMesh b = build_mesh(cfg.mesh);
        read_restart((d / "a" / "fields_000004.h5").string(), cfg, b.host);
      },
      {"fields file, not a checkpoint"});
  // A checkpoint of the other real type (written here by hand: this build writes its own type).
  {
    const FieldFile good = read_field_file(ck);
    h5::AtomicFile af((d / "other_real.h5").string());
    h5::File& f = af.file();
    // format version 1 (before checksums, read unverified): this version's files would need them
    f.attribute("/", "format_version", std::int64_t{1});
    f.attribute("/", "kind", std::string("checkpoint"));
    f.attribute("/", "real", std::string(sizeof(real) == 4 ? "double" : "float"));
    f.attribute("/", "time", good.time);
    f.attribute("/", "step", good.step);
    f.write("/cells/global_id", good.cell_gid);
    for (std::size_t k = 0; k < good.names.size(); ++k) f.write("/fields/" + good.names[k], good.values[k]);
    af.commit();
  }
  test::expect_input_error(
      [&] {
        const CaseConfig cfg = blob();
        const BuiltMesh b = build_mesh(cfg.mesh);
        read_restart((d / "other_real.h5").string(), cfg, b.host);
      },
      {"other_real.h5", sizeof(real) == 4 ? "holds double values" : "holds float values", "same real type"});
  // A restart past the end of the case is refused too.
  test::expect_input_error([&] { run_in(blob({"time.steps=3"}), d / "b", ck); },
                           {"checkpoint is at step 4", "time.steps = 3"});
}

/// Overwrites one root attribute in place (as a flipped bit would change it), with HDF5's own API.
template <class T> void overwrite_root_attribute(const std::string& path, const char* name, T v) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  ASSERT_GE(a, 0);
  EXPECT_GE(H5Awrite(a, std::is_same_v<T, double> ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64, &v), 0);
  H5Aclose(a);
  H5Fclose(f);
}

TEST(Checkpoint, ChangedRootAttributesFailTheirChecksums) {
  // HDF5 checksums datasets (Fletcher-32) but not attributes: without the `checksums` attribute a
  // flipped bit in `step` or `dt` would restart the run at another step or with another time step.
  const fs::path d = scratch("checksums");
  run_in(blob({"checkpoint.every={steps: 4}", "time.steps=4"}), d / "a");
  const std::string ck = (d / "a" / "checkpoint_000004.h5").string();
  const FieldFile good = read_field_file(ck);
  EXPECT_EQ(good.step, 4);
  auto copy = [&](const std::string& name) {
    const std::string p = (d / name).string();
    fs::copy_file(ck, p, fs::copy_options::overwrite_existing);
    return p;
  };
  const std::string step = copy("step.h5");
  overwrite_root_attribute(step, "step", std::int64_t{3});
  test::expect_input_error([&] { read_field_file(step); },
                           {"step.h5", "root attribute 'step' (= 3) does not match its checksum", "damaged"});
  const std::string dt = copy("dt.h5");
  overwrite_root_attribute(dt, "dt", std::nextafter(good.numbers.at("dt"), 1.0)); // one bit
  test::expect_input_error([&] { read_field_file(dt); }, {"dt.h5", "root attribute 'dt'", "does not match"});
  const std::string time = copy("time.h5");
  overwrite_root_attribute(time, "time", good.time * 2);
  test::expect_input_error([&] { read_field_file(time); }, {"root attribute 'time'", "does not match"});
  // The restart reads through the same check.
  test::expect_input_error(
      [&] {
        const CaseConfig cfg = blob({"time.steps=8"});
        const BuiltMesh b = build_mesh(cfg.mesh);
        read_restart(step, cfg, b.host);
      },
      {"step.h5", "root attribute 'step'"});
  // Without the checksums attribute a version-2 file is refused.
  const std::string none = copy("none.h5");
  {
    const hid_t f = H5Fopen(none.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    EXPECT_GE(H5Adelete(f, "checksums"), 0);
    H5Fclose(f);
  }
  test::expect_input_error([&] { read_field_file(none); }, {"none.h5", "root attribute 'checksums' is missing"});
  // A restart from an intact copy still works (the check does not refuse good files).
  const std::string intact = copy("intact.h5");
  EXPECT_NO_THROW(run_in(blob({"time.steps=8"}), d / "b", intact));
}

TEST(Output, SeriesWritesTheScheduleAndKeepsCheckpoints) {
  const fs::path d = scratch("schedule");
  const Outcome o =
      run_in(blob({"output.every={steps: 5}", "checkpoint={every: {steps: 2}, keep: 2}", "output.fields=[u1]"}), d);
  // fields at 0, 5, 10 and the final 12; checkpoints kept: 10 and 12.
  EXPECT_EQ(o.summary.fields_files.size(), 4u);
  for (const char* f : {"fields_000000.h5", "fields_000005.h5", "fields_000010.h5", "fields_000012.h5",
                        "checkpoint_000010.h5", "checkpoint_000012.h5", "mesh.h5", "test.xdmf"})
    EXPECT_TRUE(fs::exists(d / f)) << f;
  EXPECT_FALSE(fs::exists(d / "checkpoint_000008.h5"));
  const FieldFile f = read_field_file((d / "fields_000012.h5").string());
  EXPECT_EQ(f.names, std::vector<std::string>{"u1"});
  EXPECT_EQ(f.time, o.summary.time);
  // Output by simulated time: each multiple of T crossed once.
  const fs::path d2 = scratch("schedule_time");
  const CaseConfig c2 = blob({"time={dt: 0.01, steps: 12}", "output.every={time: 0.025}"});
  const Outcome o2 = run_in(c2, d2);
  // t = 0 then the steps ending past 0.025, 0.05, 0.075, 0.1 (steps 3, 5, 8, 10), and the final 12.
  EXPECT_EQ(o2.summary.fields_files.size(), 6u);
  for (const char* f : {"fields_000003.h5", "fields_000005.h5", "fields_000008.h5", "fields_000010.h5"})
    EXPECT_TRUE(fs::exists(d2 / f)) << f;
}

} // namespace
} // namespace fvproxy
