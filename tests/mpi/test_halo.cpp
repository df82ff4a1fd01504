// The communicator and the halo exchange on 1-3 ranks: ghost rows, transports, statistics, ghost geometry.
#include "mpi_fixture.hpp"

namespace fvproxy {
namespace {

using mpi_test::meshes;
using mpi_test::tag;

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

} // namespace
} // namespace fvproxy
