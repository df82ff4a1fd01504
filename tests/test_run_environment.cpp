// The run environment (issue 11, "bad input"): Kokkos' command-line options checked before
// Kokkos sees them, the output folder's lock, unique temporary names and checked writes (a
// file-size limit is an error naming the file, and leaves nothing), and the memory estimate that
// refuses a case before it is built: the counts are the generator's exactly, the bytes are the
// device mesh's exactly.
#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <set>

#include "app/bench_common.hpp"
#include "app/cli.hpp"
#include "app/memory_check.hpp"
#include "core/kokkos_compat.hpp"
#include "io/hdf5_file.hpp"
#include "io/output_file.hpp"
#include "mesh/box_generator.hpp"
#include "mesh/build.hpp"
#include "mesh/gmsh_reader.hpp"
#include "mesh/memory_estimate.hpp"
#include "test_helpers.hpp"

namespace fvproxy {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path p = fs::current_path() / "test_run_environment_scratch" / name;
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

std::vector<std::string> kokkos(std::initializer_list<const char*> args) {
  std::vector<std::string> v{"fvproxy"};
  for (const char* a : args) v.emplace_back(a);
  return check_kokkos_args(v);
}

// --- Kokkos' options ---------------------------------------------------------------------------

TEST(RunEnvironment, MalformedKokkosOptionsAreRefusedByName) {
  using test::expect_input_error;
  expect_input_error([] { kokkos({"--kokkos-threads=abc"}); }, {"--kokkos-threads=abc: error:", "got 'abc'"});
  expect_input_error([] { kokkos({"--kokkos-threads=-3"}); }, {"--kokkos-threads=-3: error:", ">= 1"});
  expect_input_error([] { kokkos({"--kokkos-threads=0"}); }, {"--kokkos-threads=0: error:"});
  expect_input_error([] { kokkos({"--kokkos-threads=2.5"}); }, {"--kokkos-threads=2.5: error:"});
  expect_input_error([] { kokkos({"--kokkos-threads=99999999999"}); }, {"--kokkos-threads=99999999999: error:"});
  expect_input_error([] { kokkos({"--kokkos-threads"}); }, {"--kokkos-threads: error:", "got no value"});
  expect_input_error([] { kokkos({"--kokkos-num-threads="}); }, {"--kokkos-num-threads=: error:", "got ''"});
  expect_input_error([] { kokkos({"--kokkos-device-id=x"}); }, {"--kokkos-device-id=x: error:", ">= 0"});
  expect_input_error([] { kokkos({"--kokkos-num-devices=2,x"}); }, {"--kokkos-num-devices=2,x: error:"});
  expect_input_error([] { kokkos({"--kokkos-disable-warnings=maybe"}); }, {"--kokkos-disable-warnings=maybe"});
  expect_input_error([] { kokkos({"--kokkos-tools-libs="}); }, {"--kokkos-tools-libs=: error:"});
  expect_input_error([] { kokkos({"--kokkos-thread=4"}); },
                     {"--kokkos-thread=4: error: unknown Kokkos option", "did you mean '--kokkos-threads'"});
  // The good ones pass, in the spelling the linked Kokkos reads.
  // Which spelling depends on the linked Kokkos (kokkos_compat.hpp: 3.7 renamed the options).
  const bool v37 = kc::kNewCommandLine;
  const std::string threads = v37 ? "--kokkos-num-threads=3" : "--kokkos-threads=3";
  EXPECT_EQ(kokkos({"--kokkos-threads=3"}), (std::vector<std::string>{"fvproxy", threads}));
  EXPECT_EQ(kokkos({"--kokkos-num-threads=3"}), (std::vector<std::string>{"fvproxy", threads}));
  EXPECT_EQ(kokkos({"--kokkos-device-id=0", "--kokkos-disable-warnings=false", "--kokkos-num-devices=2,1"}),
            (std::vector<std::string>{"fvproxy", "--kokkos-device-id=0", "--kokkos-num-devices=2,1"}));
  if (!v37)
    expect_input_error(
        [] { kokkos({"--kokkos-print-configuration"}); },
        {"'--kokkos-print-configuration' is not an option of the Kokkos " + kc::kokkos_version_string()});
}

// --- the output folder's lock ------------------------------------------------------------------

TEST(RunEnvironment, OneRunPerOutputFolder) {
  const fs::path d = scratch("lock");
  const fs::path lock_file = d / OutputLock::kFileName;
  {
    const OutputLock first(d.string(), "--output-dir");
    std::ifstream in(lock_file);
    std::string holder;
    std::getline(in, holder);
    EXPECT_NE(holder.find("pid " + std::to_string(getpid()) + " on host "), std::string::npos) << holder;
    // flock() locks belong to an open file: a second lock in this process is refused like another
    // process's, naming the folder and the holder.
    test::expect_input_error([&] { OutputLock second(d.string(), "--output-dir"); },
                             {"--output-dir: error: the output folder '" + d.string() + "' is in use by another",
                              "(pid " + std::to_string(getpid())});
    EXPECT_TRUE(fs::exists(lock_file));
  }
  EXPECT_FALSE(fs::exists(lock_file)) << "the lock file outlived the run";
  // A lock file left by a killed run (no process holds its lock) blocks nobody, and the
  // temporary files such a run left are removed (only those).
  std::ofstream(lock_file) << "pid 999999 on host elsewhere since yesterday\n";
  std::ofstream(d / ".fields_000010.h5.tmp.a1B2c3") << "half a file";
  std::ofstream(d / "notes.tmp.a1B2c3") << "the user's";
  { const OutputLock again(d.string(), "output.dir"); }
  EXPECT_FALSE(fs::exists(d / ".fields_000010.h5.tmp.a1B2c3"));
  EXPECT_TRUE(fs::exists(d / "notes.tmp.a1B2c3"));
  EXPECT_FALSE(fs::exists(lock_file));
}

// --- temporary files and checked writes ---------------------------------------------------------

TEST(RunEnvironment, TemporaryNamesAreUnique) {
  const fs::path d = scratch("tmp_names");
  std::set<std::string> names;
  for (int i = 0; i < 20; ++i) {
    std::string tmp;
    const int fd = make_temporary(d / "case.xdmf", tmp);
    ASSERT_GE(fd, 0);
    close(fd);
    EXPECT_EQ(fs::path(tmp).parent_path(), d);
    EXPECT_EQ(fs::path(tmp).filename().string().rfind(".case.xdmf.tmp.", 0), 0u) << tmp;
    names.insert(tmp);
  }
  for (const auto& n : names) fs::remove(n);
  EXPECT_EQ(names.size(), 20u);
  // Two HDF5 files under construction for one final name have two temporary files (the name was
  // once the pid alone: two writers shared, and truncated, one file).
  {
    h5::AtomicFile a((d / "f.h5").string()), b((d / "f.h5").string());
    int temporaries = 0;
    for (const auto& e : fs::directory_iterator(d))
      temporaries += e.path().filename().string().rfind(".f.h5.tmp", 0) == 0;
    EXPECT_EQ(temporaries, 2);
  }
  EXPECT_FALSE(fs::exists(d / "f.h5"));
  for (const auto& e : fs::directory_iterator(d))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos);
  write_atomically(d / "a.txt", "hello\n", "test");
  std::ifstream in(d / "a.txt");
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "hello");
  EXPECT_EQ(fs::status(d / "a.txt").permissions() & fs::perms::others_read, fs::perms::others_read);
}

TEST(RunEnvironment, FileSizeLimitIsAnErrorNamingTheFileAndLeavesNothing) {
  const fs::path d = scratch("file_size_limit");
  struct rlimit old {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  auto* old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old;
  small.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string message;
  try {
    write_atomically(d / "summary.json", std::string(100000, 'x'), "fvproxy run");
  } catch (const RunError& e) {
    message = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_EQ(message.rfind("fvproxy run: error: cannot write " + (d / "summary.json").string() + ": File too large", 0),
            0u)
      << message;
  EXPECT_TRUE(fs::is_empty(d)) << "a temporary file was left";
}

// --- the memory estimate -----------------------------------------------------------------------

std::size_t host_bytes(const HostMesh& m) {
  auto b = [](const auto& v) { return v.size() * sizeof(v[0]); };
  return b(m.x) + b(m.node_gid) + b(m.node_key) + b(m.cell_type) + b(m.cell_node_off) + b(m.cell_nodes) +
         b(m.cell_gid) + b(m.face_node_off) + b(m.face_nodes) + b(m.face_owner) + b(m.face_neighbour) +
         b(m.face_shift) + b(m.cell_face_off) + b(m.cell_faces) + b(m.cell_face_sign);
}

TEST(MemoryEstimate, CountsAreTheGeneratorsAndBytesTheMeshes) {
  for (const char* element : {"hex", "tet", "prism"})
    for (const char* periodic : {"[]", "[x]", "[x, y, z]"}) {
      const std::string yaml = std::string("mesh:\n  generate: {cells: [4, 5, 3], element: ") + element +
                               ", periodic: " + periodic + "}\n  reorder: none\n";
      const CaseConfig cfg = parse_case_mesh(ConfigSource::from_string(yaml, "test.yaml"));
      const MeshCounts c = mesh_counts(cfg.mesh);
      const BuiltMesh b = build_mesh(cfg.mesh);
      SCOPED_TRACE(yaml);
      ASSERT_TRUE(c.known && c.exact);
      EXPECT_EQ(c.cells, b.host.n_cells());
      EXPECT_EQ(c.nodes, b.host.n_nodes());
      EXPECT_EQ(c.faces, b.host.n_faces());
      EXPECT_EQ(c.interior_faces, b.host.n_interior);
      EXPECT_EQ(c.cell_nodes, double(b.host.cell_nodes.size()));
      EXPECT_EQ(c.face_nodes, double(b.host.face_nodes.size()));
      EXPECT_EQ(c.cell_faces(), double(b.host.cell_faces.size()));
      EXPECT_EQ(host_mesh_bytes(c), double(host_bytes(b.host)));
      // The device mesh to the byte, but for the periodic shift table (27 entries at most).
      const double shifts = double(b.device.shifts.extent(0) * 3 * sizeof(real));
      EXPECT_EQ(device_mesh_bytes(c), double(b.device.memory_bytes()) - shifts);
    }
}

TEST(MemoryEstimate, GmshCountsAreTheDeclaredOnes) {
  // The repository's meshes: MSH 4.1 ASCII and binary, MSH 2.2 ASCII.
  for (const char* file : {"mesh/sphere_in_box.msh", "mesh/sphere_in_box_v22.msh", "mesh/sphere_in_box_bin.msh",
                           "mesh/hybrid_channel.msh"}) {
    const std::string path = test::source_path(file);
    SCOPED_TRACE(path);
    MeshConfig cfg;
    cfg.file = path;
    cfg.file_as_written = file;
    const MeshCounts c = mesh_counts(cfg);
    const HostMesh m = read_gmsh(path);
    ASSERT_TRUE(c.known);
    EXPECT_FALSE(c.exact);
    EXPECT_EQ(c.nodes, m.n_nodes());
    EXPECT_GE(c.cells, m.n_cells()); // every element counts, surface elements included
    EXPECT_LE(c.cells, 2.0 * m.n_cells());
    EXPECT_EQ(c.file_bytes, double(fs::file_size(path)));
  }
}

TEST(MemoryEstimate, ATooLargeCaseIsRefusedWithTheEstimate) {
  const auto big = [](const std::string& cells) {
    return parse_case_mesh(
        ConfigSource::from_string("mesh:\n  generate: {cells: " + cells + ", element: hex}\n", "test.yaml"));
  };
  // 500^3 hexes: far beyond this machine (and any the tests run on), within 32-bit indices.
  test::expect_input_error([&] { check_case_fits(big("[500, 500, 500]"), MemoryUse::mesh); },
                           {"mesh.generate.cells: error: the case needs about", "GiB", "is available",
                            "125000000 hex cells, 125751501 nodes, 375750000 faces"});
  // 640^3 hexes: more face-node entries than 32-bit indices can number.
  test::expect_input_error(
      [&] { check_case_fits(big("[640, 640, 640]"), MemoryUse::mesh); },
      {"mesh.generate.cells: error: the mesh is too large for 32-bit local indices", "face-node entries"});
  EXPECT_NE(check_case_fits(big("[8, 8, 8]"), MemoryUse::mesh).find("512 hex cells"), std::string::npos);
}

TEST(Bench, ALongTimingReportsItsProgressOnStderr) {
  // fvproxy bench --repeat N: every RepeatProgress::kProgressSeconds, the runs done and the time left
  // (issue 37: a large --repeat ran silently). Due at once here (next = 0); nothing without a label
  // or off rank 0.
  RepeatProgress p("convection optimized", true);
  p.next = 0;
  testing::internal::CaptureStderr();
  p.tick(250, 1000);
  p.tick(251, 1000); // not due again before kProgressSeconds
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("fvproxy bench: convection optimized: 250 of 1000 runs, "), std::string::npos) << err;
  EXPECT_NE(err.find(" s left\n"), std::string::npos) << err;
  EXPECT_EQ(err.find("251 of"), std::string::npos) << err;
  for (const auto& [what, root] :
       {std::pair<const char*, bool>{"", true}, std::pair<const char*, bool>{"muscl naive", false}}) {
    RepeatProgress q(what, root);
    q.next = 0;
    testing::internal::CaptureStderr();
    q.tick(1, 2);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  }
}

} // namespace
} // namespace fvproxy
