// Each operator variant with each halo variant on this rank's part against the whole mesh, per global id.
#include "mpi_fixture.hpp"

namespace fvproxy {
namespace {

using mpi_test::meshes;
using mpi_test::tag;

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
  const auto muscl = make_muscl(m, geom, ops.muscl, n, false, LimiterScale{{real(1.5), real(2.5)}, {0, 1}});
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
    muscl->compute(u, ub, grad, lim, Part::inner);
    halo->finish();
    muscl->compute(u, ub, grad, lim, Part::frontier);
    halo->start({grad, lim});
    apply(Part::inner);
    halo->finish();
    apply(Part::frontier);
  } else {
    if (halo) halo->exchange(u);
    muscl->compute(u, ub, grad, lim);
    if (halo) halo->exchange(std::vector<View2<real>>{grad, lim});
    apply(Part::all);
  }
  return {Kokkos::create_mirror_view_and_copy(HostSpace(), grad), Kokkos::create_mirror_view_and_copy(HostSpace(), lim),
          Kokkos::create_mirror_view_and_copy(HostSpace(), rhs)};
}

TEST(DistributedOperators, EachVariantAndHaloEqualsOneRankPerGlobalId) {
  // Every operator variant (naive, optimized gather, optimized atomic scatter, fused muscl) with each halo
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
    for (int v = 0; v < 4; ++v) {
      OperatorsConfig ops;
      for (OperatorOptions* o : std::vector<OperatorOptions*>{&ops.muscl, &ops.convection, &ops.diffusion}) {
        o->variant = v == 0 ? Variant::naive : Variant::optimized;
        o->scatter = v == 2 ? Scatter::atomic : Scatter::gather;
      }
      ops.muscl.gradient = v == 1 ? Gradient::green_gauss : Gradient::least_squares;
      ops.muscl.fused = v == 3;
      const StageResult ref = run_stage(g.device, ops, n, nullptr, sentinel);
      for (HaloVariant hv : {HaloVariant::naive, HaloVariant::optimized}) {
        const std::string what = std::string(mc.generate ? "tets" : "gmsh") + ", operators " +
                                 (v == 0   ? "naive"
                                  : v == 1 ? "optimized gather"
                                  : v == 2 ? "optimized atomic"
                                           : "optimized gather, fused muscl") +
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

/// The compressible model's operators on mesh `m`: a smooth state on the owned cells (the ghosts
/// from the halo), its boundary values, gradients and limiter values (5 variables, exchanged), W
/// and its gradients (exchanged), then convection and viscous terms into the rate, on every owned
/// cell at once or, with the optimized halo, the inner part then the frontier part. Rows of the
/// rate beyond the owned cells start at `sentinel`.
Kokkos::View<real**, Kokkos::LayoutLeft, HostSpace> run_flow_stage(const Mesh& m, Variant variant, Scatter scatter,
                                                                   Halo* halo, real sentinel) {
  constexpr int NV = flow::kVariables;
  const OperatorGeometry geom = make_operator_geometry(m);
  std::vector<FlowPatchBC> bcs(m.patches.size());
  const FlowBoundaryKind types[] = {FlowBoundaryKind::slip_wall, FlowBoundaryKind::farfield,
                                    FlowBoundaryKind::supersonic_outflow, FlowBoundaryKind::no_slip_wall};
  for (std::size_t i = 0; i < bcs.size(); ++i) {
    bcs[i].type = types[i % 4];
    bcs[i].state = flow::Primitive{1, {real(0.4), real(0.1), 0}, 1};
    bcs[i].wall_temperature = real(1.2) / real(287.05);
  }
  const flow::IdealGas gas;
  View2<real> u("fvproxy::test::flow_u", m.n_local(), NV), ub("fvproxy::test::flow_ub", m.n_faces - m.n_interior, NV);
  auto hu = Kokkos::create_mirror_view(u);
  auto C = Kokkos::create_mirror_view_and_copy(HostSpace(), m.centroid);
  for (index_t c = 0; c < m.n_cells; ++c) {
    const double x = C(c, 0), y = C(c, 1), z = C(c, 2);
    const flow::Primitive w{real(1 + 0.2 * std::sin(2 * x + y)),
                            {real(0.3 * std::cos(y + z)), real(0.2 * std::sin(x - z)), real(0.1 * x * y)},
                            real(1 + 0.1 * std::cos(3 * x - z))};
    const flow::Conserved U = flow::to_conserved(w, gas);
    hu(c, 0) = U.rho, hu(c, 1) = U.m[0], hu(c, 2) = U.m[1], hu(c, 3) = U.m[2], hu(c, 4) = U.E;
  }
  Kokkos::deep_copy(u, hu);
  if (halo) halo->exchange(u);
  const real nan = std::numeric_limits<real>::quiet_NaN();
  View2<real> grad("grad", m.n_local(), 3 * NV), lim("lim", m.n_local(), NV), rhs("rhs", m.n_local(), NV);
  View2<real> w("w", m.n_local(), 4), wb("wb", m.n_faces - m.n_interior, 4), gw("gw", m.n_local(), 12),
      wlim("wlim", m.n_local(), 4);
  Kokkos::deep_copy(grad, nan);
  Kokkos::deep_copy(lim, nan);
  Kokkos::deep_copy(gw, nan);
  Kokkos::deep_copy(rhs, sentinel);
  Kokkos::deep_copy(Kokkos::subview(rhs, std::make_pair(index_t(0), m.n_cells), Kokkos::ALL), real(0));
  MusclConfig mc;
  mc.limiter = Limiter::barth_jespersen;
  flow_boundary_values(m, gas, bcs, u, ub);
  make_muscl(m, geom, mc, NV, false, flow_limiter_scale())->compute(u, ub, grad, lim);
  flow_primitive_fields(m, gas, bcs, u, w, wb);
  make_muscl(m, geom, mc, 4, false, {})->compute(w, wb, gw, wlim);
  if (halo) halo->exchange(std::vector<View2<real>>{grad, lim, gw});
  FlowConvectionConfig cc;
  cc.variant = variant, cc.scatter = scatter;
  FlowViscousConfig vc;
  vc.variant = variant, vc.scatter = scatter;
  vc.viscosity.constant.mu = real(0.05);
  const auto conv = make_flow_convection(m, geom, cc, bcs, false);
  const auto visc = make_flow_viscous(m, geom, vc, bcs, false);
  const auto apply = [&](Part part) {
    conv->apply(u, grad, lim, rhs, part);
    visc->apply(w, wb, gw, rhs, part);
  };
  if (halo && halo->variant() == HaloVariant::optimized) {
    apply(Part::inner);
    apply(Part::frontier);
  } else {
    apply(Part::all);
  }
  return Kokkos::create_mirror_view_and_copy(HostSpace(), rhs);
}

TEST(DistributedOperators, FlowOperatorsEqualOneRankPerGlobalId) {
  // The compressible model's convection (HLLC, second order) and viscous operators, naive and
  // optimized (gather and atomic scatter), each halo variant (the optimized one running the inner
  // and frontier parts), on the periodic tet box and the Gmsh channel with every boundary type:
  // the rate per global id equals the whole mesh's on one rank, and no ghost row is written.
  const Communicator world = Communicator::world();
  const double tol = test::tol(1e-12);
  const real sentinel = real(12345.5);
  for (const MeshConfig& mc : meshes()) {
    const BuiltMesh g = build_mesh(mc);
    for (const auto& [variant, scatter] :
         {std::pair{Variant::naive, Scatter::atomic}, std::pair{Variant::optimized, Scatter::gather},
          std::pair{Variant::optimized, Scatter::atomic}}) {
      const auto ref = run_flow_stage(g.device, variant, scatter, nullptr, sentinel);
      double scale = 0;
      for (std::size_t c = 0; c < ref.extent(0); ++c)
        for (std::size_t k = 0; k < ref.extent(1); ++k) scale = std::max(scale, std::fabs(double(ref(c, k))));
      ASSERT_GT(scale, 0.01);
      for (HaloVariant hv : {HaloVariant::naive, HaloVariant::optimized}) {
        SCOPED_TRACE(std::string(mc.generate ? "tets" : "gmsh") + ", " + to_string(variant) + "/" + to_string(scatter) +
                     ", halo " + to_string(hv));
        Decomposition d = decompose(g, mc, world, hv);
        const auto r = run_flow_stage(d.mesh, variant, scatter, d.halo.get(), sentinel);
        std::map<gid_t, index_t> global_of;
        for (index_t c = 0; c < g.host.n_cells(); ++c) global_of[g.host.cell_gid[c]] = c;
        for (index_t c = 0; c < d.mesh.n_cells; ++c) {
          const index_t gc = global_of.at(d.local.host.cell_gid[c]);
          for (std::size_t k = 0; k < r.extent(1); ++k)
            ASSERT_LE(std::fabs(double(r(c, k)) - double(ref(gc, k))), tol * scale)
                << "rate of cell gid " << d.local.host.cell_gid[c] << ", variable " << k;
        }
        for (index_t c = d.mesh.n_cells; c < d.mesh.n_local(); ++c)
          for (std::size_t k = 0; k < r.extent(1); ++k)
            ASSERT_EQ(r(c, k), sentinel) << "the rate's ghost row of gid " << d.local.host.cell_gid[c]
                                         << " was written";
      }
    }
  }
}

} // namespace
} // namespace fvproxy
