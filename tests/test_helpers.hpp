#pragma once
// Helpers shared by the tests.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/types.hpp"
#include "mesh/host_mesh.hpp"
#include "solver/case_config.hpp"

namespace fvproxy::test {

/// Runs `f`, expects an InputError whose message contains every fragment.
inline void expect_input_error(const std::function<void()>& f, std::initializer_list<std::string> fragments) {
  try {
    f();
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    for (const auto& frag : fragments)
      EXPECT_NE(msg.find(frag), std::string::npos) << "'" << frag << "' not in:\n" << msg;
  }
}

/// A double-precision tolerance for this build's `real` (docs/output.md#tolerances: in single precision,
/// 1e-12 becomes 1e-5): unchanged in double builds, scaled by 1e7 but at least 1e-5 in float ones.
inline double tol(double t) {
  return sizeof(real) == sizeof(double) ? t : std::max(t * 1e7, 1e-5);
}

/// x in the shortest decimal form that reads back as the same double (for --set values).
inline std::string num(double x) {
  if (x == double(static_cast<long long>(x)) && x > -1e15 && x < 1e15) return std::to_string(static_cast<long long>(x));
  char b[32];
  std::snprintf(b, sizeof b, "%.17g", x);
  for (int p = 1; p <= 17; ++p) {
    char t[32];
    std::snprintf(t, sizeof t, "%.*g", p, x);
    if (std::strtod(t, nullptr) == x) return t;
  }
  return b;
}

/// The source tree's path at configure time (tests/source_dir.cpp.in: one small generated file,
/// so that no other object depends on where the checkout lies and a compiler cache serves clones).
const char* configured_source_dir();

/// A file of the source tree (mesh/, tests/data/). The environment variable FVPROXY_SOURCE_DIR
/// overrides the configure-time path, so the tests also run from the GPU bundle.
inline std::string source_path(const std::string& rel) {
  const char* env = std::getenv("FVPROXY_SOURCE_DIR");
  return std::string(env && *env ? env : configured_source_dir()) + "/" + rel;
}

/// A case from YAML text with `--set` style overrides, validated like a case file.
/// A fresh folder for one test's files: <tmp>/fvproxy_<name>_<pid> (tests run as parallel processes).
inline std::string temp_dir(const std::string& name) {
  const std::filesystem::path p =
      std::filesystem::temp_directory_path() / ("fvproxy_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p.string();
}

inline CaseConfig case_from(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  ConfigSource src = ConfigSource::from_string(yaml, "test.yaml");
  for (const auto& s : sets) src.apply_set(s);
  return parse_case(src);
}

/// The run-level tests' case: two components (a Gaussian and a sine) advected and diffused with
/// different diffusivities on a periodic box of jittered tets.
inline const char* kPeriodicBlob = R"(
mesh:
  generate: {cells: [6, 6, 6], element: tet, perturb: 0.15, periodic: [x, y, z]}
physics:
  components: 2
  velocity: {type: uniform, value: [1.0, -0.5, 0.25]}
  diffusivity: [0.002, 0.01]
initial:
  - {type: gaussian, center: [0.4, 0.5, 0.6], width: 0.2, amplitude: 1}
  - {type: sine, wavenumber: [1, 0, 2], amplitude: 0.5, phase: 0.3}
time: {steps: 20}
)";

/// Every array of two host meshes, bitwise.
inline void expect_same_mesh(const HostMesh& a, const HostMesh& b, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.node_gid, b.node_gid);
  EXPECT_EQ(a.node_key, b.node_key);
  EXPECT_EQ(a.cell_type, b.cell_type);
  EXPECT_EQ(a.cell_gid, b.cell_gid);
  EXPECT_EQ(a.cell_node_off, b.cell_node_off);
  EXPECT_EQ(a.cell_nodes, b.cell_nodes);
  EXPECT_EQ(a.face_node_off, b.face_node_off);
  EXPECT_EQ(a.face_nodes, b.face_nodes);
  EXPECT_EQ(a.face_owner, b.face_owner);
  EXPECT_EQ(a.face_neighbour, b.face_neighbour);
  EXPECT_EQ(a.face_shift, b.face_shift);
  EXPECT_EQ(a.shifts, b.shifts);
  EXPECT_EQ(a.n_interior, b.n_interior);
  EXPECT_EQ(a.cell_face_off, b.cell_face_off);
  EXPECT_EQ(a.cell_faces, b.cell_faces);
  EXPECT_EQ(a.cell_face_sign, b.cell_face_sign);
  ASSERT_EQ(a.patches.size(), b.patches.size());
  for (std::size_t p = 0; p < a.patches.size(); ++p) {
    EXPECT_EQ(a.patches[p].name, b.patches[p].name);
    EXPECT_EQ(a.patches[p].begin, b.patches[p].begin);
    EXPECT_EQ(a.patches[p].end, b.patches[p].end);
  }
}

} // namespace fvproxy::test
