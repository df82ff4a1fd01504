// Tests that need several MPI ranks, run by CTest under mpirun at 1, 2 and 3 ranks (mpi.tests_N).
// Every rank builds the same global mesh, partitions it into as many parts as there are ranks and
// extracts its own part; the checks compare with the global mesh held by every rank. Only rank 0
// prints GoogleTest's report; a failure on any rank fails the test on every rank (the result is
// reduced), so the exit code is the same everywhere.
#include <mpi.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/memory_peaks.hpp"
#include "io/checkpoint.hpp"
#include "io/field_file.hpp"
#include "io/output_series.hpp"
#include "mesh/build.hpp"
#include "mesh/local_mesh.hpp"
#include "mesh/partition.hpp"
#include "mesh/ptscotch.hpp"
#include "operators/convection/convection.hpp"
#include "operators/diffusion/diffusion.hpp"
#include "operators/face_flux.hpp"
#include "operators/flow/flow_convection.hpp"
#include "operators/flow/flow_viscous.hpp"
#include "operators/muscl/gradient.hpp"
#include "operators/muscl/limiter.hpp"
#include "operators/muscl/muscl.hpp"
#include "parallel/communicator.hpp"
#include "parallel/decomposition.hpp"
#include "parallel/halo.hpp"
#include "parallel/parts.hpp"
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
      for (const auto& [variant, layers] :
           {std::make_pair(HaloVariant::naive, 1), std::make_pair(HaloVariant::naive, 2),
            std::make_pair(HaloVariant::optimized, 1), std::make_pair(HaloVariant::optimized, 2)}) {
        const LocalMesh l = extract_local(b.host, p.part, w.rank(), w.size(), layers);
        SCOPED_TRACE(std::string(mc.generate ? "tets" : "gmsh") + ", " + to_string(method) + ", " + to_string(variant) +
                     ", " + std::to_string(layers) + " ghost layers");
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

/// Arrays of `cols` columns each, owned rows tagged by global id, ghost rows NaN.
std::vector<View2<real>> tagged_arrays(const LocalMesh& l, const std::vector<int>& cols) {
  std::vector<View2<real>> arrays;
  for (int nc : cols) {
    View2<real> a("a", l.host.n_cells(), nc);
    auto h = Kokkos::create_mirror_view(a);
    for (index_t c = 0; c < l.host.n_cells(); ++c)
      for (int k = 0; k < nc; ++k)
        h(c, k) = c < l.n_owned ? tag(l.host.cell_gid[c], k) * real(nc) : std::numeric_limits<real>::quiet_NaN();
    Kokkos::deep_copy(a, h);
    arrays.push_back(a);
  }
  return arrays;
}

TEST(Halo, EveryTransportFillsBitwiseIdenticalGhostRows) {
  // Every transport (docs/halo.md#transports) against MPI on the packed buffers: the same
  // ghost rows, bit for bit, and each its owner's value. Host builds: the staging pipeline forced
  // (per-neighbour pack, copy to the host, send posted as its block is there), ipc falling back
  // (no device memory: MPI on the host buffers, with the reason); the GPU test executable: ipc
  // between the ranks' GPUs (or one shared GPU), staged, and mpi falling back to staged on an MPI
  // that is not CUDA-aware. Both the arrival seen by poll() and the one waited for in finish();
  // exchanges wider than any before (the buffers grown, the IPC ones reopened) and alternating
  // halves of the double buffers.
  const Communicator w = Communicator::world();
  const bool host = Kokkos::SpaceAccessibility<HostSpace, MemSpace>::accessible;
  for (const MeshConfig& mc : meshes()) {
    const BuiltMesh b = build_mesh(mc);
    for (PartitionMethod method : {PartitionMethod::metis, PartitionMethod::hilbert}) {
      const Partition p = partition_cells(b.host, b.device, method, w.size(), nullptr, "test");
      // two ghost layers on the Gmsh mesh (each neighbour's rows in two blocks, unpacked by index)
      const LocalMesh l = extract_local(b.host, p.part, w.rank(), w.size(), mc.generate ? 1 : 2);
      Halo reference(l, w, HaloVariant::optimized, HaloTransport::mpi);
      for (HaloTransport t : {HaloTransport::automatic, HaloTransport::ipc, HaloTransport::staged}) {
        Halo h(l, w, HaloVariant::optimized, t);
        const long long sent_before = reference.stats().values_sent;
        SCOPED_TRACE(std::string(mc.generate ? "tets" : "gmsh") + ", " + to_string(method) + ", asked " + to_string(t) +
                     ", route " + to_string(h.route()) + " (" + h.fallback_reason() + "), " + std::to_string(l.layers) +
                     " ghost layers");
        EXPECT_NE(h.route(), HaloTransport::automatic);
        if (t == HaloTransport::staged) {
          EXPECT_EQ(h.route(), HaloTransport::staged);
          EXPECT_NE(h.transport().find("staged"), std::string::npos);
          EXPECT_FALSE(h.device_direct());
        }
        if (t == HaloTransport::ipc && host) {
          EXPECT_EQ(h.route(), HaloTransport::mpi);
          EXPECT_NE(h.fallback_reason().find("no GPU backend"), std::string::npos);
        }
        // GPU executable: FVPROXY_TEST_IPC=1 where the ranks can reach each other's GPUs (one
        // shared GPU, or two with peer access), 0 where each sees only its own (perf/gpu_halo.sh)
        if (const char* e = std::getenv("FVPROXY_TEST_IPC"); e && !host && w.size() > 1 && t != HaloTransport::staged) {
          const HaloTransport expected = std::string(e) == "1" ? HaloTransport::ipc : HaloTransport::staged;
          EXPECT_EQ(h.route(), expected);
        }
        if (t == HaloTransport::ipc) {
          EXPECT_EQ(h.route() != HaloTransport::ipc, !h.fallback_reason().empty());
        }
        for (bool polled : {false, true})
          for (const std::vector<int>& cols : std::vector<std::vector<int>>{{1}, {5}, {6, 2}, {3}, {12, 3, 1}}) {
            SCOPED_TRACE(std::to_string(cols.size()) + " arrays of " + std::to_string(*cols.begin()) + "..., " +
                         (polled ? "polled" : "waited"));
            std::vector<std::vector<View2<real>>> out;
            for (Halo* x : {&reference, &h}) {
              out.push_back(tagged_arrays(l, cols));
              x->start(out.back(), HaloKind::state);
              if (polled && x->neighbours() > 0)
                while (!x->arrived()) x->poll();
              x->finish();
            }
            for (std::size_t i = 0; i < out[0].size(); ++i) {
              const auto a = Kokkos::create_mirror_view_and_copy(HostSpace(), out[0][i]);
              const auto s = Kokkos::create_mirror_view_and_copy(HostSpace(), out[1][i]);
              const int nc = static_cast<int>(a.extent(1));
              for (index_t c = l.n_owned; c < l.host.n_cells(); ++c)
                for (int k = 0; k < nc; ++k) {
                  ASSERT_EQ(std::memcmp(&a(c, k), &s(c, k), sizeof(real)), 0) << "ghost gid " << l.host.cell_gid[c];
                  ASSERT_EQ(s(c, k), tag(l.host.cell_gid[c], k) * real(nc)) << "ghost gid " << l.host.cell_gid[c];
                }
            }
          }
        EXPECT_EQ(h.stats().values_sent, reference.stats().values_sent - sent_before);
        EXPECT_EQ(h.stats().messages, 10 * h.neighbours());
      }
    }
  }
}

TEST(Halo, AFailedIpcSetUpFallsBackToStagedOnEveryRank) {
  // FVPROXY_HALO_IPC_FAIL=r makes rank r's IPC set-up fail (a test hook): every rank goes staged
  // and says why (the failing rank), and the ghost rows are still right. Host builds never try
  // IPC (no device memory): the hook changes nothing there.
  const Communicator w = Communicator::world();
  const BuiltMesh b = build_mesh(meshes()[0]);
  const Partition p = partition_cells(b.host, b.device, PartitionMethod::metis, w.size(), nullptr, "test");
  const LocalMesh l = extract_local(b.host, p.part, w.rank(), w.size());
  const bool host = Kokkos::SpaceAccessibility<HostSpace, MemSpace>::accessible;
  const int failing = w.size() - 1;
  setenv("FVPROXY_HALO_IPC_FAIL", std::to_string(failing).c_str(), 1);
  Halo h(l, w, HaloVariant::optimized, HaloTransport::ipc);
  h.reserve(4); // the set-up: where the hook fails
  unsetenv("FVPROXY_HALO_IPC_FAIL");
  if (!host && w.size() > 1) {
    EXPECT_EQ(h.route(), HaloTransport::staged);
    EXPECT_NE(h.fallback_reason().find("rank " + std::to_string(failing)), std::string::npos) << h.fallback_reason();
  } else {
    EXPECT_NE(h.route(), HaloTransport::ipc);
  }
  const std::vector<View2<real>> a = tagged_arrays(l, {4});
  h.exchange(a);
  const auto s = Kokkos::create_mirror_view_and_copy(HostSpace(), a[0]);
  for (index_t c = l.n_owned; c < l.host.n_cells(); ++c)
    for (int k = 0; k < 4; ++k)
      ASSERT_EQ(s(c, k), tag(l.host.cell_gid[c], k) * real(4)) << "ghost gid " << l.host.cell_gid[c];
}

TEST(Halo, CountsPerKindAndTheFractionHidden) {
  // Each exchange is filed under its kind (the totals are their sums): exchanges, messages, values
  // and bytes exactly what the lists say. The naive halo hides nothing (its messages fly only while
  // it blocks); the optimized one, polled until the messages arrived, waits for nothing in finish().
  const Communicator w = Communicator::world();
  const BuiltMesh b = build_mesh(meshes()[0]);
  const Partition p = partition_cells(b.host, b.device, PartitionMethod::metis, w.size(), nullptr, "test");
  const LocalMesh l = extract_local(b.host, p.part, w.rank(), w.size());
  for (HaloVariant variant : {HaloVariant::naive, HaloVariant::optimized}) {
    for (HaloTransport transport : {HaloTransport::automatic, HaloTransport::staged}) {
      SCOPED_TRACE(std::string(to_string(variant)) + (transport == HaloTransport::staged ? ", staged" : ""));
      Halo halo(l, w, variant, transport);
      const long long rows = halo.rows_sent(), nb = halo.neighbours(), any = nb > 0 ? 1 : 0;
      for (int stage = 0; stage < 3; ++stage) {
        halo.exchange(tagged_arrays(l, {2}), HaloKind::state);
        halo.start(tagged_arrays(l, {6, 2}), HaloKind::gradient_limiter);
        while (nb > 0 && variant == HaloVariant::optimized && !halo.arrived()) halo.poll();
        MPI_Barrier(w.raw());
        const double t = MPI_Wtime();
        while (MPI_Wtime() - t < 0.02) { // the inner cells' work, long after the messages arrived
        }
        halo.finish();
      }
      halo.exchange(tagged_arrays(l, {3}));
      const HaloStats& s = halo.stats();
      const HaloCounters &st = s.of(HaloKind::state), &gl = s.of(HaloKind::gradient_limiter),
                         &ot = s.of(HaloKind::other);
      EXPECT_EQ(st.exchanges, 3 * any);
      EXPECT_EQ(gl.exchanges, 3 * any);
      EXPECT_EQ(ot.exchanges, any);
      EXPECT_EQ(st.messages, 3 * nb);
      EXPECT_EQ(gl.messages, 3 * nb);
      EXPECT_EQ(st.values_sent, 3 * 2 * rows);
      EXPECT_EQ(gl.values_sent, 3 * 8 * rows);
      EXPECT_EQ(gl.bytes_sent, gl.values_sent * static_cast<long long>(sizeof(real)));
      EXPECT_EQ(s.exchanges, st.exchanges + gl.exchanges + ot.exchanges);
      EXPECT_EQ(s.bytes_sent, st.bytes_sent + gl.bytes_sent + ot.bytes_sent);
      EXPECT_DOUBLE_EQ(s.seconds_wait, st.seconds_wait + gl.seconds_wait + ot.seconds_wait);
      EXPECT_DOUBLE_EQ(s.seconds_in_flight, st.seconds_in_flight + gl.seconds_in_flight + ot.seconds_in_flight);
      if (nb == 0) {
        EXPECT_EQ(s.fraction_hidden(), 0.0);
        continue;
      }
      EXPECT_GT(gl.seconds_in_flight, 0.0);
      if (variant == HaloVariant::naive) {
        EXPECT_EQ(s.seconds_wait, s.seconds_in_flight);
        EXPECT_EQ(s.fraction_hidden(), 0.0);
      } else {
        // seen arrived by poll() (staged: the copies to the device queued there): finish() waits
        // for nothing, and the in-flight time ends at that poll
        EXPECT_LT(gl.seconds_wait, 0.02);
        EXPECT_LT(gl.seconds_in_flight, 3 * 0.02);
      }
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
  const FlowBoundaryType types[] = {FlowBoundaryType::slip_wall, FlowBoundaryType::farfield,
                                    FlowBoundaryType::supersonic_outflow, FlowBoundaryType::no_slip_wall};
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

/// Boxes that can be built in parts: every element, periodic and not, jittered, each partition
/// curve and `blocks`, each ordering that is a sort key.
std::vector<MeshConfig> boxes_in_parts() {
  std::vector<MeshConfig> out;
  auto box = [&](ElementKind e, std::array<int, 3> cells, std::array<bool, 3> periodic, Ordering o, PartitionMethod p) {
    MeshConfig m;
    m.generate = BoxConfig{};
    m.generate->cells = cells;
    m.generate->element = e;
    m.generate->perturb = 0.2;
    m.generate->periodic = periodic;
    m.reorder = o;
    m.partition = p;
    out.push_back(m);
  };
  box(ElementKind::tet, {6, 5, 4}, {true, true, false}, Ordering::zorder, PartitionMethod::zorder);
  box(ElementKind::tet, {5, 4, 6}, {false, true, true}, Ordering::hilbert, PartitionMethod::hilbert);
  box(ElementKind::tet, {4, 6, 3}, {true, false, false}, Ordering::zorder, PartitionMethod::blocks);
  box(ElementKind::hex, {7, 5, 3}, {false, false, false}, Ordering::none, PartitionMethod::blocks);
  box(ElementKind::hex, {6, 6, 6}, {true, true, true}, Ordering::none, PartitionMethod::zorder);
  box(ElementKind::prism, {5, 3, 6}, {false, false, true}, Ordering::hilbert, PartitionMethod::zorder);
  box(ElementKind::prism, {3, 3, 3}, {true, true, true}, Ordering::zorder, PartitionMethod::hilbert);
  return out;
}

/// Two decompositions of one mesh hold the same local mesh, bitwise: cells, faces (by their cells'
/// and nodes' global ids), halo links, node positions, geometry and the domain's totals.
void expect_same_part(const Decomposition& a, const Decomposition& b) {
  const LocalMesh &x = a.local, &y = b.local;
  ASSERT_EQ(x.n_owned, y.n_owned);
  ASSERT_EQ(x.n_inner, y.n_inner);
  ASSERT_EQ(x.n_owned_faces, y.n_owned_faces);
  ASSERT_EQ(x.layers, y.layers);
  ASSERT_EQ(x.n_layer1, y.n_layer1);
  ASSERT_EQ(x.n_faces_owned, y.n_faces_owned);
  ASSERT_EQ(x.outer_begin, y.outer_begin);
  ASSERT_EQ(x.host.n_cells(), y.host.n_cells());
  ASSERT_EQ(x.host.n_faces(), y.host.n_faces());
  ASSERT_EQ(x.host.n_interior, y.host.n_interior);
  EXPECT_EQ(x.host.cell_gid, y.host.cell_gid);
  EXPECT_EQ(x.host.cell_type, y.host.cell_type);
  EXPECT_EQ(x.global_cell, y.global_cell); // rows of the whole ordered mesh
  EXPECT_EQ(x.host.face_node_off, y.host.face_node_off);
  EXPECT_EQ(x.host.cell_face_off, y.host.cell_face_off);
  EXPECT_EQ(x.host.cell_faces, y.host.cell_faces);
  EXPECT_EQ(x.host.cell_face_sign, y.host.cell_face_sign);
  auto gids = [](const HostMesh& m, index_t f) {
    std::vector<gid_t> v;
    for (index_t k = m.face_node_off[f]; k < m.face_node_off[f + 1]; ++k) v.push_back(m.node_gid[m.face_nodes[k]]);
    return v;
  };
  auto cell = [](const HostMesh& m, index_t c) { return c < 0 ? gid_t(-1) : m.cell_gid[c]; };
  for (index_t f = 0; f < x.host.n_faces(); ++f) {
    ASSERT_EQ(cell(x.host, x.host.face_owner[f]), cell(y.host, y.host.face_owner[f])) << "face " << f;
    ASSERT_EQ(cell(x.host, x.host.face_neighbour[f]), cell(y.host, y.host.face_neighbour[f])) << "face " << f;
    ASSERT_EQ(gids(x.host, f), gids(y.host, f)) << "face " << f;
    ASSERT_EQ(x.host.shifts[x.host.face_shift[f]], y.host.shifts[y.host.face_shift[f]]) << "face " << f;
  }
  for (const auto& [xp, yp] :
       {std::make_pair(&x.host.patches, &y.host.patches), std::make_pair(&x.layer1_patches, &y.layer1_patches)}) {
    ASSERT_EQ(xp->size(), yp->size());
    for (std::size_t p = 0; p < xp->size(); ++p) {
      EXPECT_EQ((*xp)[p].name, (*yp)[p].name);
      EXPECT_EQ((*xp)[p].begin, (*yp)[p].begin);
      EXPECT_EQ((*xp)[p].end, (*yp)[p].end);
    }
  }
  ASSERT_EQ(x.links.size(), y.links.size());
  for (std::size_t k = 0; k < x.links.size(); ++k) {
    EXPECT_EQ(x.links[k].rank, y.links[k].rank);
    EXPECT_EQ(x.links[k].send, y.links[k].send);
    EXPECT_EQ(x.links[k].recv, y.links[k].recv);
  }
  std::map<gid_t, std::array<double, 3>> xn;
  for (index_t v = 0; v < x.host.n_nodes(); ++v)
    xn[x.host.node_gid[v]] = {x.host.x[3 * v], x.host.x[3 * v + 1], x.host.x[3 * v + 2]};
  for (index_t v = 0; v < y.host.n_nodes(); ++v) {
    const auto it = xn.find(y.host.node_gid[v]);
    ASSERT_NE(it, xn.end()) << "node gid " << y.host.node_gid[v];
    EXPECT_EQ(it->second, (std::array<double, 3>{y.host.x[3 * v], y.host.x[3 * v + 1], y.host.x[3 * v + 2]}));
  }
  // The geometry on the device, ghosts included (from their owners), and the domain's totals.
  EXPECT_EQ(a.mesh.n_global_cells, b.mesh.n_global_cells);
  EXPECT_EQ(a.mesh.global_volume, b.mesh.global_volume);
  auto same = [](auto u, auto v, const char* what) {
    auto hu = Kokkos::create_mirror_view_and_copy(HostSpace(), u);
    auto hv = Kokkos::create_mirror_view_and_copy(HostSpace(), v);
    ASSERT_EQ(hu.size(), hv.size()) << what;
    for (std::size_t i = 0; i < hu.size(); ++i) ASSERT_EQ(hu.data()[i], hv.data()[i]) << what << " [" << i << "]";
  };
  same(a.mesh.volume, b.mesh.volume, "volume");
  same(a.mesh.centroid, b.mesh.centroid, "centroid");
  same(a.mesh.face_area, b.mesh.face_area, "face_area");
  same(a.mesh.face_centroid, b.mesh.face_centroid, "face_centroid");
}

TEST(BuiltInParts, SameLocalMeshAsCutFromTheWholeMesh) {
  const Communicator w = Communicator::world();
  for (const MeshConfig& mc : boxes_in_parts()) {
    SCOPED_TRACE(std::string(to_string(mc.generate->element)) + " " + to_string(mc.reorder) + " ordering, " +
                 to_string(mc.partition) + " partition");
    ASSERT_TRUE(builds_in_parts(mc));
    const BuiltMesh g = build_mesh(mc);
    for (int layers : {1, 2}) { // docs/halo.md#two-ghost-layers
      SCOPED_TRACE(std::to_string(layers) + " ghost layers");
      const HaloSettings h(HaloVariant::optimized, HaloTransport::automatic, layers);
      expect_same_part(decompose(g, mc, w, h), decompose_in_parts(mc, w, h));
    }
  }
}

TEST(BuiltOnRank0, SameLocalMeshAsCutByEveryRank) {
  // Rank 0 builds and partitions, sends each rank its part: the part every rank cuts from its own
  // whole mesh, for a Gmsh file and a box, with METIS, a curve and PT-Scotch (every rank partitions a
  // slice of the cell graph rank 0 hands out).
  const Communicator w = Communicator::world();
  for (MeshConfig mc : meshes())
    for (PartitionMethod p : {PartitionMethod::metis, PartitionMethod::hilbert, PartitionMethod::ptscotch}) {
      mc.partition = p;
      SCOPED_TRACE((mc.generate ? std::string("box") : mc.file) + ", " + to_string(p));
      MemoryTracker::start();
      const BuiltMesh g = build_mesh(mc);
      const Decomposition a = decompose(g, mc, w);
      index_t seen = 0; // the whole mesh on rank 0 only
      MemoryTracker::reset_device_peak();
      const std::uint64_t before = MemoryTracker::now().device_bytes;
      const Decomposition b = decompose_from_root(mc, w, HaloVariant::optimized, "test",
                                                  [&](const BuiltMesh& whole) { seen = whole.host.n_cells(); });
      // Rank 0 frees the whole device mesh before its part is uploaded (docs/decomposition.md#memory-per-rank):
      // its device peak is the whole mesh's, not that plus its part (1.5x on 2 ranks).
      const std::uint64_t peak = MemoryTracker::now().device_peak_bytes - before;
      if (w.rank() == 0 && w.size() > 1) {
        EXPECT_LE(double(peak), 1.1 * double(g.device.memory_bytes()));
      }
      expect_same_part(a, b);
      const HaloSettings two(HaloVariant::optimized, HaloTransport::automatic, 2);
      expect_same_part(decompose(g, mc, w, two), decompose_from_root(mc, w, two, "test"));
      EXPECT_EQ(b.local.n_global_nodes, g.host.n_nodes());
      ASSERT_EQ(std::size_t(b.local.host.n_nodes()), b.local.node_row.size());
      const auto rows = node_file_rows(g.host);
      std::map<gid_t, index_t> row_of;
      for (index_t v = 0; v < g.host.n_nodes(); ++v) row_of[g.host.node_gid[v]] = rows[v];
      for (index_t v = 0; v < b.local.host.n_nodes(); ++v)
        ASSERT_EQ(b.local.node_row[v], row_of.at(b.local.host.node_gid[v]));
      EXPECT_EQ(seen, w.rank() == 0 ? g.host.n_cells() : 0);
    }
  // An error on rank 0 (more ranks than cells) is raised on every rank, with rank 0's message.
  MeshConfig tiny;
  tiny.generate = BoxConfig{};
  tiny.generate->cells = {1, 1, 1};
  if (w.size() > 1) {
    try {
      decompose_from_root(tiny, w, HaloVariant::optimized, "test");
      ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("test: error: " + std::to_string(w.size()) + " parts for 1 cells"),
                std::string::npos)
          << e.what();
      EXPECT_EQ(e.where(), "test");
    }
  }
}

TEST(BuiltInParts, SamplesSortGivesEveryKeyItsGlobalPosition) {
  // Keys with many ties (broken by gid), spread unevenly: rank r holds 3r + 1 of them.
  const Communicator w = Communicator::world();
  const int P = w.size(), me = w.rank();
  std::vector<std::uint64_t> keys;
  std::vector<gid_t> gids;
  gid_t first = 0;
  for (int r = 0; r < me; ++r) first += 3 * r + 1;
  for (int i = 0; i < 3 * me + 1; ++i) {
    const gid_t g = first + i;
    keys.push_back(std::uint64_t((g * 7919) % 5));
    gids.push_back(g);
  }
  gid_t n = 0;
  for (int r = 0; r < P; ++r) n += 3 * r + 1;
  const auto pos = global_positions(keys, gids, w);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    gid_t expect = 0; // keys of every rank, recomputed: those before (key, gid)
    for (gid_t h = 0; h < n; ++h) {
      const std::uint64_t k = std::uint64_t((h * 7919) % 5);
      if (k < keys[i] || (k == keys[i] && h < gids[i])) ++expect;
    }
    EXPECT_EQ(pos[i], expect) << "gid " << gids[i];
  }
}

TEST(DistributedRun, FilesEachStagesExchangesUnderTheirKind) {
  // Per Runge-Kutta stage one state exchange and one of the gradients and limiter values, in both
  // halo variants; the decomposition's geometry exchanges are "other".
  const Communicator w = Communicator::world();
  for (const char* hv : {"naive", "optimized"}) {
    SCOPED_TRACE(hv);
    const CaseConfig cfg = test::case_from(test::kPeriodicBlob, {"mesh.generate.cells=[5,5,4]", "time.steps=4",
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

/// Every rank's parts of its slice [begin, end), gathered: each cell's part on every rank.
std::vector<int> gather_parts(const std::vector<int>& mine, index_t n, const std::vector<index_t>& first,
                              const Communicator& w) {
  std::vector<int> count(w.size()), displ(w.size()), all(n, -1);
  for (int r = 0; r < w.size(); ++r) {
    count[r] = first[r + 1] - first[r];
    displ[r] = first[r];
  }
  MPI_Allgatherv(mine.data(), int(mine.size()), MPI_INT, all.data(), count.data(), displ.data(), MPI_INT, w.raw());
  return all;
}

TEST(Ptscotch, DistributedGraphGivesAValidPartition) {
  // The cell graph split unevenly over the ranks (as a mesh built in parts would be), partitioned
  // by PT-Scotch into P and 2P + 1 parts: every cell in a part, every part non-empty and within 10%
  // of the mean, the same parts when called again, and the global path (even slices) valid too.
  const Communicator w = Communicator::world();
  const int P = w.size();
  for (const MeshConfig& mc : meshes()) {
    const BuiltMesh b = build_mesh(mc);
    const index_t n = b.host.n_cells();
    // Rank r holds about (r + 1) / (1 + 2 + ... + P) of the cells; then the same with rank 0 empty.
    std::vector<index_t> uneven(P + 1, 0), empty0(P + 1, 0);
    for (int r = 0; r < P; ++r) uneven[r + 1] = index_t(gid_t(n) * (r + 1) * (r + 2) / (P * (P + 1)));
    for (int r = 1; r < P; ++r) empty0[r + 1] = index_t(gid_t(n) * r / (P - 1));
    for (const auto& [first, parts] :
         std::vector<std::pair<std::vector<index_t>, int>>{{uneven, P}, {uneven, 2 * P + 1}, {empty0, P}}) {
      if (P == 1 && first == empty0) continue;
      const DistGraph g = cell_graph(b.host, first[w.rank()], first[w.rank() + 1]);
      SCOPED_TRACE(std::string(mc.generate ? "tets" : "gmsh") + ", " + std::to_string(parts) + " parts on " +
                   std::to_string(P) + " ranks, " + std::to_string(g.n_local()) + " vertices here");
      const std::vector<int> mine = ptscotch_parts(g, parts, w.raw());
      ASSERT_EQ(gid_t(mine.size()), g.n_local());
      EXPECT_EQ(ptscotch_parts(g, parts, w.raw()), mine) << "not deterministic";
      Partition p;
      p.method = PartitionMethod::ptscotch;
      p.parts = parts;
      p.part = gather_parts(mine, n, first, w);
      for (int r : p.part) {
        ASSERT_GE(r, 0);
        ASSERT_LT(r, parts);
      }
      const PartitionQuality q = partition_quality(b.host, p, 5);
      EXPECT_EQ(q.empty_parts, 0);
      EXPECT_LE(q.imbalance, 1.1);
      if (parts > 1) {
        EXPECT_GT(q.edge_cut, 0);
      }
    }
    // The global path: rank r partitions the even slice r, every rank gets every part; the same on
    // every rank and again on a second call.
    const BoxConfig* box = mc.generate ? &*mc.generate : nullptr;
    const Partition p = partition_cells(b.host, b.device, PartitionMethod::ptscotch, P, box, "test", w.raw());
    EXPECT_EQ(partition_cells(b.host, b.device, PartitionMethod::ptscotch, P, box, "test", w.raw()).part, p.part);
    EXPECT_EQ(partition_quality(b.host, p, 5).empty_parts, 0);
    EXPECT_EQ(w.broadcast(std::string(reinterpret_cast<const char*>(p.part.data()), p.part.size() * sizeof(int))),
              std::string(reinterpret_cast<const char*>(p.part.data()), p.part.size() * sizeof(int)))
        << "ranks disagree";
  }
}

TEST(Ptscotch, InconsistentGraphsFailOnEveryRank) {
  // Every rank throws (none is left waiting in a collective), with the same message.
  const Communicator w = Communicator::world();
  if (w.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  const BuiltMesh b = build_mesh(meshes()[0]);
  const index_t n = b.host.n_cells();
  const index_t begin = index_t(gid_t(n) * w.rank() / w.size()), end = index_t(gid_t(n) * (w.rank() + 1) / w.size());
  DistGraph gap = cell_graph(b.host, begin, end);
  if (w.rank() == 1) { // rank 1 starts one vertex late: vertex `begin` belongs to no rank
    gap = cell_graph(b.host, begin + 1, end);
  }
  try {
    ptscotch_parts(gap, w.size(), w.raw());
    ADD_FAILURE() << "a gap between ranks was accepted";
  } catch (const RunError& e) {
    EXPECT_NE(std::string(e.what()).find("rank 1 holds vertices"), std::string::npos) << e.what();
  }
  DistGraph bad = cell_graph(b.host, begin, end);
  if (w.rank() == w.size() - 1) bad.adjncy.back() = n + 5; // a neighbour out of range on the last rank
  try {
    ptscotch_parts(bad, w.size(), w.raw());
    ADD_FAILURE() << "a neighbour out of range was accepted";
  } catch (const RunError& e) {
    EXPECT_NE(std::string(e.what()).find("rank " + std::to_string(w.size() - 1) + ": vertex"), std::string::npos)
        << e.what();
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

/// A fatal failure (ASSERT_*) on one rank returns from its test body while the other ranks may
/// enter a collective it never reaches: the job would wait for the ctest timeout. The failure is
/// printed, then MPI_Abort ends every rank at once. A non-fatal one (EXPECT_*) lets the body go on,
/// and after each test the ranks agree on its outcome (rank 0 names the ranks that failed it).
class FailEveryRankAtOnce : public ::testing::EmptyTestEventListener {
public:
  explicit FailEveryRankAtOnce(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.fatally_failed()) return;
    // (UnitTest::current_test_info() would deadlock here: gtest holds its mutex while reporting.)
    std::printf("[rank %d] FAIL: fatal failure in %s at %s:%d: ending every rank (MPI_Abort)\n", rank_, test_.c_str(),
                r.file_name() ? r.file_name() : "?", r.line_number());
    std::fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  void OnTestStart(const ::testing::TestInfo& t) override { test_ = std::string(t.test_suite_name()) + "." + t.name(); }
  void OnTestEnd(const ::testing::TestInfo& t) override {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int mine = t.result()->Failed() ? 1 : 0;
    std::vector<int> all(size, 0);
    MPI_Gather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank_ != 0) return;
    std::string ranks;
    for (int r = 0; r < size; ++r)
      if (all[r]) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
    if (!ranks.empty()) std::printf("FAIL: %s.%s failed on rank(s) %s\n", t.test_suite_name(), t.name(), ranks.c_str());
  }

private:
  int rank_;
  std::string test_;
};

// Run by ctest (mpi.fail_fast: --gtest_also_run_disabled_tests, this test alone): rank 1's ASSERT
// fails while rank 0 waits in a barrier; the job must end at once, not at the timeout.
TEST(FailFast, DISABLED_OneRanksFatalFailureEndsEveryRank) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ASSERT_GT(size, 1) << "needs 2 ranks or more";
  ASSERT_NE(rank, 1) << "rank 1 fails on purpose";
  MPI_Barrier(MPI_COMM_WORLD); // rank 1 never gets here
}
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
  ::testing::UnitTest::GetInstance()->listeners().Append(new FailEveryRankAtOnce(rank));
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
