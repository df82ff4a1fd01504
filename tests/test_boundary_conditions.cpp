// Boundary values per patch and the steady face volume flux.
#include <cmath>

#include "mesh/build.hpp"
#include "operators/face_flux.hpp"
#include "solver/boundary_conditions.hpp"
#include "solver/scalar_solution.hpp"
#include "solver/solver.hpp"
#include "test_helpers.hpp"

namespace fvproxy {
namespace {

CaseConfig parse(const std::string& yaml) {
  return parse_case(ConfigSource::from_string(yaml, "case.yaml"));
}

TEST(FaceFlux, ConservativeForDivergenceFreeVelocities) {
  for (const char* vel : {"{type: uniform, value: [1, -0.5, 0.25]}",
                          "{type: rotation, axis: [0.2, 0.3, 1], center: [0.4, 0.5, 0.6], omega: 2}"}) {
    SCOPED_TRACE(vel);
    const CaseConfig c = parse(std::string("mesh: {generate: {cells: [4, 3, 5], element: tet, perturb: 0.2}}\n"
                                           "physics: {velocity: ") +
                               vel + "}\ninitial: [{type: constant, value: 0}]\ntime: {steps: 1}\n");
    const BuiltMesh b = build_mesh(c.mesh);
    const View1<real> phi = face_volume_flux(b.device, c.physics.velocity);
    auto hp = Kokkos::create_mirror_view_and_copy(HostSpace(), phi);
    // Linear velocity, planar triangles: u(x_f) . S_f is the exact flux, so every cell balances.
    double worst = 0, scale = 0;
    for (index_t cell = 0; cell < b.host.n_cells(); ++cell) {
      double sum = 0;
      for (index_t q = b.host.cell_face_off[cell]; q < b.host.cell_face_off[cell + 1]; ++q) {
        sum += b.host.cell_face_sign[q] * hp(b.host.cell_faces[q]);
        scale = std::max(scale, double(std::abs(hp(b.host.cell_faces[q]))));
      }
      worst = std::max(worst, std::abs(sum));
    }
    EXPECT_LT(worst, test::tol(1e-13) * scale);
  }
}

TEST(BoundaryConditions, ValuePerPatchType) {
  const CaseConfig c = parse(R"(mesh: {generate: {cells: [3, 3, 3], periodic: [z]}}
physics: {components: 2, velocity: {type: uniform, value: [1, 0, 0]}}
initial: [{type: constant, value: 0}]
boundary:
  xmin: {type: inflow, value: [5, 6]}
  xmax: {type: inflow, value: 9}
  ymin: {type: dirichlet, value: [1, 2]}
  ymax: {type: outflow}
time: {steps: 1}
)");
  const BuiltMesh b = build_mesh(c.mesh);
  const Mesh& m = b.device;
  const BoundaryConditions bc(m, c, resolve_boundary(c, m), make_scalar_solution(c),
                              face_volume_flux(m, c.physics.velocity));
  ASSERT_EQ(bc.patches().size(), 4u);
  View2<real> u("fvproxy::test::u", m.n_cells, 2), ub("fvproxy::test::ub", m.n_faces - m.n_interior, 2);
  auto hu = Kokkos::create_mirror_view(u);
  for (index_t k = 0; k < m.n_cells; ++k) hu(k, 0) = real(100 + k), hu(k, 1) = real(-k);
  Kokkos::deep_copy(u, hu);
  Kokkos::deep_copy(ub, std::nan(""));
  bc.apply(u, 0.5, ub);
  auto hb = Kokkos::create_mirror_view_and_copy(HostSpace(), ub);
  for (const auto& p : b.host.patches)
    for (index_t f = p.begin; f < p.end; ++f) {
      const index_t o = b.host.face_owner[f], i = f - b.host.n_interior;
      const double own[2] = {double(100 + o), double(-o)};
      double want[2];
      if (p.name == "xmin") want[0] = 5, want[1] = 6;           // flow enters
      if (p.name == "xmax") want[0] = own[0], want[1] = own[1]; // flow leaves: owner value
      if (p.name == "ymin") want[0] = 1, want[1] = 2;
      if (p.name == "ymax") want[0] = own[0], want[1] = own[1];
      for (int k = 0; k < 2; ++k) ASSERT_EQ(hb(i, k), want[k]) << p.name << " face " << f;
    }
}

TEST(BoundaryConditions, ExactDirichletAndItsChecks) {
  const std::string mesh = "mesh: {generate: {cells: [3, 3, 3], periodic: [x, y]}}\n"
                           "physics: {velocity: {type: uniform, value: [0.5, 0, 0]}, diffusivity: 0.01}\n"
                           "initial: [{type: gaussian, center: [0.5, 0.5, 0.5], width: 0.2, amplitude: 1}]\n"
                           "time: {steps: 1}\n";
  const CaseConfig c =
      parse(mesh + "boundary: {zmin: {type: dirichlet, value: exact}, zmax: {type: dirichlet, value: exact}}\n");
  const BuiltMesh b = build_mesh(c.mesh);
  const ScalarSolution exact = make_scalar_solution(c);
  const BoundaryConditions bc(b.device, c, resolve_boundary(c, b.device), exact,
                              face_volume_flux(b.device, c.physics.velocity));
  View2<real> u("fvproxy::test::u", b.device.n_cells, 1),
      ub("fvproxy::test::ub", b.device.n_faces - b.device.n_interior, 1);
  bc.apply(u, 0.3, ub);
  auto hb = Kokkos::create_mirror_view_and_copy(HostSpace(), ub);
  auto F = Kokkos::create_mirror_view_and_copy(HostSpace(), b.device.face_centroid);
  for (index_t f = b.device.n_interior; f < b.device.n_faces; ++f) {
    const real x[3] = {F(f, 0), F(f, 1), F(f, 2)};
    // Round-off, not bitwise: the device's exp may differ from the host's by an ulp.
    const double want = exact(0, x, 0.3);
    ASSERT_NEAR(hb(f - b.device.n_interior, 0), want, test::tol(1e-14) * std::abs(want));
  }
  // 'exact' where the case has no exact solution is refused, with the reason.
  const CaseConfig d = parse(mesh + "boundary: {zmin: {type: dirichlet, value: exact}, zmax: {type: outflow}}\n");
  const BuiltMesh bd = build_mesh(d.mesh);
  test::expect_input_error(
      [&] {
        BoundaryConditions(bd.device, d, resolve_boundary(d, bd.device), make_scalar_solution(d),
                           face_volume_flux(bd.device, d.physics.velocity));
      },
      {"boundary.zmin.value: 'exact' needs an exact solution", "patch 'zmax' is outflow"});
  // Patch names are checked against the mesh when the section is resolved on it.
  const CaseConfig e = parse(mesh + "boundary: {zmin: {type: outflow}}\n");
  test::expect_input_error([&] { resolve_boundary(e, bd.device); }, {"boundary: no condition for patch zmax"});
}

} // namespace
} // namespace fvproxy
