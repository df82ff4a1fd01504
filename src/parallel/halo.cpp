#include "parallel/halo.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <type_traits>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h> // Open MPI's extensions: MPIX_Query_cuda_support
#endif

#include "core/error.hpp"
#include "core/kokkos_compat.hpp"
#include "parallel/collectives.hpp"
#include "parallel/device_sync.hpp"
#include "parallel/placement.hpp"

namespace fvproxy {

namespace {
constexpr int kHaloTag = 7301;
constexpr int kIpcTag = 7302;   ///< the ipc transport's "your block is queued" messages
constexpr int kSetupTag = 7303; ///< the ipc set-up's exchanges with the neighbours

/// Seconds on a monotonic clock (timestamps of one process).
double clock() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// Rows [r0, r1) of the send list, every array's columns, into `buf`: per row sent, the columns of
/// every array one after the other (row-major). A free function: CUDA's extended lambdas may not
/// live in a private member.
void pack_rows(const ExecSpace& on, const View1<real>& buf, const View1<index_t>& idx,
               const std::vector<View2<real>>& arrays, int cols, std::size_t r0, std::size_t r1) {
  int c0 = 0;
  for (const View2<real>& a : arrays) {
    const int nc = static_cast<int>(a.extent(1));
    Kokkos::parallel_for(
        "fvproxy::parallel::halo_pack", Kokkos::RangePolicy<ExecSpace>(on, r0 * nc, r1 * nc),
        KOKKOS_LAMBDA(const std::size_t q) {
          const std::size_t row = q / nc;
          const int c = static_cast<int>(q - row * nc);
          buf(row * cols + c0 + c) = a(idx(row), c);
        });
    c0 += nc;
  }
}

/// The received values `buf` (per received row, the columns of every array) into the ghost rows:
/// row g of `buf` to row idx(g) (two ghost layers), or to first + g where idx is empty (one layer:
/// the rows arrive in ghost order).
void unpack_rows(const ExecSpace& on, const View1<real>& buf, const View1<index_t>& idx,
                 const std::vector<View2<real>>& arrays, int cols, index_t first, std::size_t ghosts) {
  int c0 = 0;
  const bool indexed = idx.extent(0) > 0;
  for (const View2<real>& a : arrays) {
    const int nc = static_cast<int>(a.extent(1));
    Kokkos::parallel_for(
        "fvproxy::parallel::halo_unpack", Kokkos::RangePolicy<ExecSpace>(on, 0, ghosts * nc),
        KOKKOS_LAMBDA(const std::size_t q) {
          const std::size_t g = q / nc;
          const int c = static_cast<int>(q - g * nc);
          a(indexed ? idx(g) : first + index_t(g), c) = buf(g * cols + c0 + c);
        });
    c0 += nc;
  }
}

/// FVPROXY_HALO_STAGING=1 forces the staging path (HaloTransport::staged) in every Halo.
bool staging_forced_by_environment() {
  const char* v = std::getenv("FVPROXY_HALO_STAGING");
  return v && std::strcmp(v, "1") == 0;
}

/// Whether the MPI library this process runs with accepts device pointers, asked at run time (the
/// headers are the build machine's: the GPU machines' Open MPI is not CUDA-aware although a build
/// may have been made against one that is).
bool mpi_accepts_device_memory() {
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

/// Sends `out[j]` to and receives `in[j]` from each rank `ranks[j]` (trivially copyable records).
template <class T> void swap_with_neighbours(const Communicator& comm, const std::vector<int>& ranks,
                                             const std::vector<T>& out, std::vector<T>& in) {
  in.assign(ranks.size(), T{});
  std::vector<MPI_Request> r(2 * ranks.size());
  for (std::size_t j = 0; j < ranks.size(); ++j) {
    MPI_Irecv(&in[j], int(sizeof(T)), MPI_BYTE, ranks[j], kSetupTag, comm.raw(), &r[2 * j]);
    MPI_Isend(&out[j], int(sizeof(T)), MPI_BYTE, ranks[j], kSetupTag, comm.raw(), &r[2 * j + 1]);
  }
  MPI_Waitall(int(r.size()), r.data(), MPI_STATUSES_IGNORE);
}

/// "rank R: why" of the lowest rank with a reason, on every rank ("" when none). Collective.
std::string first_reason(const Communicator& comm, const std::string& why) {
  const FirstMessage first = first_message(comm, why);
  return first ? "rank " + std::to_string(first.rank) + ": " + first.text : "";
}
} // namespace

const char* to_string(HaloKind k) {
  switch (k) {
  case HaloKind::state: return "state";
  case HaloKind::gradient_limiter: return "gradient_limiter";
  case HaloKind::other: return "other";
  }
  return "?";
}

double HaloCounters::fraction_hidden() const {
  if (seconds_in_flight <= 0) return 0;
  return std::clamp(1 - seconds_wait / seconds_in_flight, 0.0, 1.0);
}

double HaloCounters::gpu_fraction_overlapped() const {
  if (gpu_seconds_transfer <= 0) return -1;
  return std::clamp(gpu_seconds_overlapped / gpu_seconds_transfer, 0.0, 1.0);
}

HaloCounters& HaloCounters::operator+=(const HaloCounters& o) {
  exchanges += o.exchanges, messages += o.messages, values_sent += o.values_sent, bytes_sent += o.bytes_sent;
  seconds_pack += o.seconds_pack, seconds_wait += o.seconds_wait, seconds_unpack += o.seconds_unpack;
  seconds_in_flight += o.seconds_in_flight;
  gpu_seconds_transfer += o.gpu_seconds_transfer, gpu_seconds_overlapped += o.gpu_seconds_overlapped;
  return *this;
}

HaloCounters& HaloCounters::operator-=(const HaloCounters& o) {
  exchanges -= o.exchanges, messages -= o.messages, values_sent -= o.values_sent, bytes_sent -= o.bytes_sent;
  seconds_pack -= o.seconds_pack, seconds_wait -= o.seconds_wait, seconds_unpack -= o.seconds_unpack;
  seconds_in_flight -= o.seconds_in_flight;
  gpu_seconds_transfer -= o.gpu_seconds_transfer, gpu_seconds_overlapped -= o.gpu_seconds_overlapped;
  return *this;
}

HaloStats& HaloStats::operator-=(const HaloStats& o) {
  HaloCounters::operator-=(o);
  for (int k = 0; k < kHaloKinds; ++k) kind[k] -= o.kind[k];
  return *this;
}

/// The CUDA IPC links (route ipc): this rank's receive buffer, two halves by exchange parity, that
/// the neighbours copy their blocks into, its interprocess events, and the neighbours' opened.
struct IpcLinks {
#if defined(KOKKOS_ENABLE_CUDA)
  struct Peer {
    real* base = nullptr;                        ///< the neighbour's receive buffer, opened here
    cudaEvent_t ready[2] = {}, consumed[2] = {}; ///< its events, opened here
    std::int64_t ghosts = 0, row = 0;            ///< its ghost rows, and the first of those this rank fills
  };
  /// What a rank tells a neighbour at set-up.
  struct Handles {
    cudaIpcMemHandle_t mem;
    cudaIpcEventHandle_t ready[2], consumed[2];
    std::int64_t ghosts, row, rows; ///< its ghost rows; the first and the number of those the neighbour fills
    int ok;
  };
  real* buf = nullptr;                         ///< 2 x ghosts x columns values (cudaMalloc: IPC needs it)
  cudaEvent_t ready[2] = {}, consumed[2] = {}; ///< recorded after this rank's copies / its unpacking
  std::vector<Peer> peers;
  bool open = false;
  /// Closes what this rank opened of its neighbours'.
  void close_remote() {
    for (Peer& p : peers) {
      if (p.base) cudaIpcCloseMemHandle(p.base);
      for (int k = 0; k < 2; ++k) {
        if (p.ready[k]) cudaEventDestroy(p.ready[k]);
        if (p.consumed[k]) cudaEventDestroy(p.consumed[k]);
      }
    }
    peers.clear();
    open = false;
  }
  /// Frees this rank's receive buffer (its events stay); collectively after every neighbour's
  /// close_remote() where the ranks can agree on it (a barrier between).
  void free_own() {
    if (buf) cudaFree(buf);
    buf = nullptr;
  }
  void close() {
    close_remote();
    free_own();
  }
  ~IpcLinks() {
    close();
    for (int k = 0; k < 2; ++k) {
      if (ready[k]) cudaEventDestroy(ready[k]);
      if (consumed[k]) cudaEventDestroy(consumed[k]);
    }
  }
#endif
  std::vector<int> msg_out, msg_in; ///< per neighbour, the exchange number sent and received
};

struct Halo::Device {
  kc::SideInstance<ExecSpace> side;        ///< packing, copies and unpacking
  device::Event written, packed, unpacked; ///< the default instance's work before start(); the packing (route
                                           ///< mpi); the unpacking, which the default instance's later work waits for
  std::vector<std::unique_ptr<device::Event>> on_host; ///< staged: per neighbour, its send block on the host
  device::Event recv_host_free[2]; ///< staged: the copies out of the host receive buffer of that parity
  /// The device timeline of one exchange: the halo's instance from before its packing (t0) to
  /// after its unpacking (t1), the default instance from the end of start() (k0) to the start of
  /// finish() (k1): the inner cells' work.
  struct Mark {
    device::Event t0{true}, t1{true}, k0{true}, k1{true};
    int kind = 0;
    bool pending = false;
  };
  /// The device timeline is sampled: every kTimelineEvery-th exchange of each kind is timed (the
  /// first one included) and stands for that many. Timing one costs the host ~18 us (four timed
  /// event records, two synchronizations and three elapsed-time reads: perf/results/
  /// 2026-11-29-h200x2-fixed-cost), a fifth of a small mesh's stage on two GPUs.
  static constexpr long long kTimelineEvery = 8;
  std::array<long long, kHaloKinds> exchanges_of_kind{}; ///< per HaloKind, for the sampling
  std::array<Mark, 8> marks; ///< a ring: the m-th timed exchange uses marks[m % 8], resolved when reused
  long long timed = 0;
  Mark* current = nullptr;
  IpcLinks ipc;

  /// Adds a finished exchange's device times to `stats` (waits for its events; long reached),
  /// each weighed by the exchanges it stands for.
  static void resolve(Mark& m, HaloStats& stats) {
    if (!m.pending) return;
    m.pending = false;
    m.t1.synchronize();
    m.k1.synchronize();
    const double t1 = device::Event::seconds(m.t0, m.t1), k0 = device::Event::seconds(m.t0, m.k0),
                 k1 = device::Event::seconds(m.t0, m.k1), w = double(kTimelineEvery);
    HaloCounters c;
    c.gpu_seconds_transfer = w * std::max(0.0, t1);
    c.gpu_seconds_overlapped = w * std::max(0.0, std::min(t1, k1) - std::max(0.0, k0));
    stats.gpu_seconds_transfer += c.gpu_seconds_transfer, stats.gpu_seconds_overlapped += c.gpu_seconds_overlapped;
    stats.kind[m.kind].gpu_seconds_transfer += c.gpu_seconds_transfer;
    stats.kind[m.kind].gpu_seconds_overlapped += c.gpu_seconds_overlapped;
  }
};

bool Halo::device_direct_possible() {
  // Host backends: the packed buffers are host memory already, a staging copy would only cost.
  if constexpr (Kokkos::SpaceAccessibility<HostSpace, MemSpace>::accessible) return true;
  return mpi_accepts_device_memory();
}

namespace {
/// Why the ipc transport cannot link this rank to its neighbours ("" when it can): they must be on
/// this host and their GPUs visible here (and reachable: the same GPU, or peer access).
std::string ipc_impossible_here([[maybe_unused]] const Communicator& comm,
                                [[maybe_unused]] const std::vector<int>& ranks) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (device::kCudaExec) {
    // where this rank runs (its host, its GPU's PCI bus id), swapped with every neighbour even
    // when this rank has no device, so that no neighbour waits for it
    const RankPlacement here = rank_placement(comm);
    struct Where {
      char host[128];
      char bus[32];
    };
    Where me{};
    std::strncpy(me.host, here.host.c_str(), sizeof me.host - 1);
    std::strncpy(me.bus, here.pci_bus_id.c_str(), sizeof me.bus - 1);
    std::vector<Where> out(ranks.size(), me), in;
    swap_with_neighbours(comm, ranks, out, in);
    if (here.pci_bus_id.empty()) return "no current CUDA device";
    const int dev = here.device_id;
    for (std::size_t j = 0; j < ranks.size(); ++j) {
      const std::string rank = "neighbour rank " + std::to_string(ranks[j]);
      if (std::strncmp(in[j].host, me.host, sizeof me.host) != 0)
        return rank + " runs on another host (" + std::string(in[j].host) + ")";
      int peer = -1;
      if (in[j].bus[0] == 0 || cudaDeviceGetByPCIBusId(&peer, in[j].bus) != cudaSuccess) {
        cudaGetLastError();
        return rank + "'s GPU " + in[j].bus +
               " is not visible here (CUDA_VISIBLE_DEVICES or the batch system's GPU binding)";
      }
      int can = 0;
      if (peer != dev && (cudaDeviceCanAccessPeer(&can, dev, peer) != cudaSuccess || !can))
        return rank + "'s GPU " + in[j].bus + " has no peer access from GPU " + me.bus;
    }
    return "";
  }
#endif
  return "this build has no GPU backend (CUDA IPC is for device memory)";
}
} // namespace

Halo::Halo(const LocalMesh& l, const Communicator& comm, HaloVariant variant, HaloTransport transport)
    : comm_(comm), variant_(variant), asked_(transport), n_owned_(l.n_owned), n_ghosts_(l.n_ghosts()),
      n_cells_(l.host.n_cells()), layers_(l.layers) {
  if (l.ranks != comm.size() || l.rank != comm.rank())
    throw RunError("error: the local mesh is rank " + std::to_string(l.rank) + " of " + std::to_string(l.ranks) +
                   ", the communicator's rank " + std::to_string(comm.rank()) + " of " + std::to_string(comm.size()));
  send_off_.push_back(0);
  recv_off_.push_back(0);
  for (const HaloLink& link : l.links) {
    ranks_.push_back(link.rank);
    send_index_host_.insert(send_index_host_.end(), link.send.begin(), link.send.end());
    send_off_.push_back(static_cast<index_t>(send_index_host_.size()));
    recv_index_host_.insert(recv_index_host_.end(), link.recv.begin(), link.recv.end());
    recv_off_.push_back(static_cast<index_t>(recv_index_host_.size()));
  }
  std::vector<char> seen(std::size_t(n_ghosts_), 0);
  bool in_order = true;
  for (std::size_t g = 0; g < recv_index_host_.size(); ++g) {
    const index_t r = recv_index_host_[g] - l.n_owned;
    if (r < 0 || r >= n_ghosts_ || seen[std::size_t(r)])
      throw RunError("error: the halo links receive row " + std::to_string(recv_index_host_[g]) +
                     (r < 0 || r >= n_ghosts_ ? ", not a ghost row" : " twice"));
    seen[std::size_t(r)] = 1;
    in_order = in_order && r == index_t(g);
  }
  if (recv_off_.back() != n_ghosts_)
    throw RunError("error: the halo links cover " + std::to_string(recv_off_.back()) + " of " +
                   std::to_string(n_ghosts_) + " ghosts");
  using Unmanaged = Kokkos::View<const index_t*, HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  send_index_ = View1<index_t>("fvproxy::parallel::halo_send_index", send_index_host_.size());
  Kokkos::deep_copy(send_index_, Unmanaged(send_index_host_.data(), send_index_host_.size()));
  if (!in_order) { // two ghost layers: each neighbour's rows are in two blocks
    recv_index_ = View1<index_t>("fvproxy::parallel::halo_recv_index", recv_index_host_.size());
    Kokkos::deep_copy(recv_index_, Unmanaged(recv_index_host_.data(), recv_index_host_.size()));
  }
  requests_.reserve(2 * ranks_.size());
  if (variant_ == HaloVariant::naive) return; // route mpi, on host copies of the whole arrays
  dev_ = std::make_unique<Device>();
  for (std::size_t j = 0; j < ranks_.size(); ++j) dev_->on_host.push_back(std::make_unique<device::Event>());
  // The route (docs/halo.md#transports). Collective where ipc is asked or may be chosen.
  HaloTransport want = staging_forced_by_environment() ? HaloTransport::staged : transport;
  const bool host = Kokkos::SpaceAccessibility<HostSpace, MemSpace>::accessible;
  if (want == HaloTransport::ipc || (want == HaloTransport::automatic && !host && comm.size() > 1)) {
    const std::string why = first_reason(comm_, ipc_impossible_here(comm_, ranks_));
    if (why.empty()) {
      route_ = HaloTransport::ipc;
    } else {
      if (want == HaloTransport::ipc) fallback_ = "ipc is not possible here (" + why + ")";
      want = HaloTransport::automatic;
    }
  }
  if (want == HaloTransport::mpi && !device_direct_possible()) {
    fallback_ = "mpi needs an MPI library that reads device memory (this one is not CUDA-aware)";
    want = HaloTransport::staged;
  }
  if (want == HaloTransport::automatic) want = device_direct_possible() ? HaloTransport::mpi : HaloTransport::staged;
  if (route_ != HaloTransport::ipc) route_ = want;
  if (!fallback_.empty() && comm_.rank() == 0)
    std::fprintf(stderr, "fvproxy: warning: parallel.halo.transport %s: %s; the halo goes %s instead\n",
                 to_string(transport), fallback_.c_str(), to_string(route_));
}

std::string Halo::transport() const {
  if (variant_ == HaloVariant::naive) return "whole arrays via the host";
  const bool host = Kokkos::SpaceAccessibility<HostSpace, MemSpace>::accessible;
  switch (route_) {
  case HaloTransport::ipc: return "ipc: packed on the device, copied into the neighbours' device buffers (CUDA IPC)";
  case HaloTransport::staged:
    return host ? "staged: packed in host memory, staged through a host copy per neighbour (forced)"
                : "staged: packed on the device, staged through pinned host memory per neighbour";
  case HaloTransport::mpi:
  case HaloTransport::automatic:
    return host ? "mpi: packed in host memory" : "mpi: packed on the device, sent from device memory (CUDA-aware MPI)";
  }
  return "?";
}

Halo::~Halo() {
  // An exchange left in flight (an exception between start and finish): complete it so that MPI
  // does not write into freed buffers.
  if (in_flight_ && !requests_.empty())
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  if (dev_) dev_->side.get().fence();
}

const HaloStats& Halo::stats() const {
  if (dev_)
    for (Device::Mark& m : dev_->marks)
      if (&m != dev_->current || !in_flight_) Device::resolve(m, stats_);
  return stats_;
}

void Halo::ipc_setup([[maybe_unused]] int columns) {
#if defined(KOKKOS_ENABLE_CUDA)
  IpcLinks& ipc = dev_->ipc;
  if (ipc.open) { // a wider exchange: nobody may copy into, nor hold open, a buffer about to be freed
    dev_->side.get().fence();
    comm_.barrier();
    ipc.close_remote();
    comm_.barrier();
    ipc.free_own();
  }
  std::string why;
  auto ok = [&](cudaError_t e, const char* what) {
    if (e == cudaSuccess || !why.empty()) return why.empty();
    why = std::string(what) + ": " + cudaGetErrorString(e);
    cudaGetLastError();
    return false;
  };
  if (const char* f = std::getenv("FVPROXY_HALO_IPC_FAIL"); f && std::atoi(f) == comm_.rank())
    why = "FVPROXY_HALO_IPC_FAIL=" + std::string(f) + " (a test's forced failure)";
  const std::size_t values = 2 * std::size_t(n_ghosts_) * std::size_t(columns);
  std::vector<IpcLinks::Handles> out(ranks_.size()), in;
  for (int k = 0; k < 2 && why.empty(); ++k) {
    if (!ipc.ready[k])
      ok(cudaEventCreateWithFlags(&ipc.ready[k], cudaEventInterprocess | cudaEventDisableTiming), "cudaEventCreate");
    if (!ipc.consumed[k])
      ok(cudaEventCreateWithFlags(&ipc.consumed[k], cudaEventInterprocess | cudaEventDisableTiming), "cudaEventCreate");
  }
  if (why.empty() && values > 0)
    ok(cudaMalloc(reinterpret_cast<void**>(&ipc.buf), values * sizeof(real)), "cudaMalloc");
  IpcLinks::Handles mine{};
  if (why.empty() && ipc.buf) ok(cudaIpcGetMemHandle(&mine.mem, ipc.buf), "cudaIpcGetMemHandle");
  for (int k = 0; k < 2 && why.empty(); ++k) {
    ok(cudaIpcGetEventHandle(&mine.ready[k], ipc.ready[k]), "cudaIpcGetEventHandle");
    ok(cudaIpcGetEventHandle(&mine.consumed[k], ipc.consumed[k]), "cudaIpcGetEventHandle");
  }
  for (std::size_t j = 0; j < ranks_.size(); ++j) {
    out[j] = mine;
    out[j].ghosts = n_ghosts_;
    out[j].row = recv_off_[j];
    out[j].rows = recv_off_[j + 1] - recv_off_[j];
    out[j].ok = why.empty() ? 1 : 0;
  }
  swap_with_neighbours(comm_, ranks_, out, in);
  ipc.peers.assign(ranks_.size(), IpcLinks::Peer{});
  for (std::size_t j = 0; j < ranks_.size() && why.empty(); ++j) {
    if (!in[j].ok) break; // that rank failed: it says why
    if (in[j].rows != send_off_[j + 1] - send_off_[j]) {
      why = "neighbour rank " + std::to_string(ranks_[j]) + " expects " + std::to_string(in[j].rows) + " rows, " +
            std::to_string(send_off_[j + 1] - send_off_[j]) + " are sent";
      break;
    }
    IpcLinks::Peer& p = ipc.peers[j];
    p.ghosts = in[j].ghosts, p.row = in[j].row;
    void* base = nullptr;
    if (!ok(cudaIpcOpenMemHandle(&base, in[j].mem, cudaIpcMemLazyEnablePeerAccess), "cudaIpcOpenMemHandle")) break;
    p.base = static_cast<real*>(base);
    for (int k = 0; k < 2 && why.empty(); ++k) {
      ok(cudaIpcOpenEventHandle(&p.ready[k], in[j].ready[k]), "cudaIpcOpenEventHandle");
      ok(cudaIpcOpenEventHandle(&p.consumed[k], in[j].consumed[k]), "cudaIpcOpenEventHandle");
    }
  }
  const std::string failed = first_reason(comm_, why);
  if (failed.empty()) {
    ipc.open = true;
    ipc.msg_out.assign(ranks_.size(), 0);
    ipc.msg_in.assign(ranks_.size(), 0);
    return;
  }
  ipc.close_remote();
  comm_.barrier();
  ipc.free_own();
  route_ = HaloTransport::staged;
  fallback_ = "ipc set-up failed on " + failed;
  if (comm_.rank() == 0)
    std::fprintf(stderr, "fvproxy: warning: parallel.halo.transport %s: %s; the halo goes staged instead\n",
                 to_string(asked_), fallback_.c_str());
#endif
}

void Halo::reserve(int columns) {
  if (in_flight_) throw RunError("error: Halo::reserve during an exchange");
  if (columns <= reserved_) return;
  const std::size_t ns = send_index_host_.size() * std::size_t(columns), nr = std::size_t(n_ghosts_) * columns;
  using HostBuffer = Kokkos::View<real*, HostStagingSpace>;
  const auto no_init = [](const char* label) { return Kokkos::ViewAllocateWithoutInitializing(label); };
  if (variant_ == HaloVariant::naive || route_ == HaloTransport::staged) {
    send_host_ = HostBuffer(no_init("fvproxy::parallel::halo_send_host"), ns);
    recv_host_[0] = HostBuffer(no_init("fvproxy::parallel::halo_recv_host"), nr);
    if (variant_ == HaloVariant::optimized)
      recv_host_[1] = HostBuffer(no_init("fvproxy::parallel::halo_recv_host"), nr);
  }
  if (variant_ == HaloVariant::optimized) {
    if (dev_) dev_->side.get().fence(); // the buffers replaced may still be read by the last exchange's copies
    send_dev_ = View1<real>(no_init("fvproxy::parallel::halo_send"), ns);
    if (route_ != HaloTransport::ipc) recv_dev_ = View1<real>(no_init("fvproxy::parallel::halo_recv"), nr);
    if (route_ == HaloTransport::ipc) {
      ipc_setup(columns);
      if (route_ == HaloTransport::staged) { // fell back: the staging buffers too
        reserved_ = 0;
        reserve(columns);
        return;
      }
    }
  }
  reserved_ = columns;
}

void Halo::post_receives(int columns, real* recv) {
  requests_.clear();
  for (std::size_t j = 0; j < ranks_.size(); ++j) {
    const int n = static_cast<int>((recv_off_[j + 1] - recv_off_[j]) * columns);
    requests_.emplace_back();
    MPI_Irecv(recv + std::size_t(recv_off_[j]) * columns, n, mpi_real(), ranks_[j], kHaloTag, comm_.raw(),
              &requests_.back());
  }
}

void Halo::post_send(std::size_t j, int columns, real* send) {
  if (j == 0) t_posted_ = clock();
  const int n = static_cast<int>((send_off_[j + 1] - send_off_[j]) * columns);
  requests_.emplace_back();
  MPI_Isend(send + std::size_t(send_off_[j]) * columns, n, mpi_real(), ranks_[j], kHaloTag, comm_.raw(),
            &requests_.back());
}

void Halo::post_ready_sends(bool wait) {
  for (; sends_posted_ < ranks_.size(); ++sends_posted_) {
    const device::Event& e = *dev_->on_host[sends_posted_];
    if (!wait && !e.done()) return;
    e.synchronize();
    post_send(sends_posted_, columns_, send_host_.data());
  }
}

void Halo::count(double pack_s, double wait_s, double unpack_s, double in_flight_s) {
  HaloCounters c;
  c.exchanges = 1;
  c.messages = static_cast<long long>(ranks_.size());
  c.values_sent = static_cast<long long>(send_index_host_.size()) * columns_;
  c.bytes_sent = c.values_sent * static_cast<long long>(sizeof(real));
  c.seconds_pack = pack_s, c.seconds_wait = wait_s, c.seconds_unpack = unpack_s, c.seconds_in_flight = in_flight_s;
  stats_ += c;
  stats_.kind[static_cast<int>(kind_)] += c;
}

void Halo::naive_exchange() {
  // Each whole array to the host, packed there; blocking sends after the receives are posted.
  const double t0 = clock();
  const int cols = columns_;
  using HostArray = Kokkos::View<real**, Kokkos::LayoutLeft, Kokkos::HostSpace>;
  std::vector<HostArray> h;
  int c0 = 0;
  for (const View2<real>& a : arrays_) {
    h.push_back(Kokkos::create_mirror_view_and_copy(HostSpace(), a));
    const int nc = static_cast<int>(a.extent(1));
    for (std::size_t q = 0; q < send_index_host_.size(); ++q)
      for (int c = 0; c < nc; ++c) send_host_(q * cols + c0 + c) = h.back()(send_index_host_[q], c);
    c0 += nc;
  }
  const double t1 = clock();
  // Nothing overlaps: the messages are in flight exactly while this thread blocks in them.
  post_receives(cols, recv_host_[0].data());
  for (std::size_t j = 0; j < ranks_.size(); ++j)
    MPI_Send(send_host_.data() + std::size_t(send_off_[j]) * cols,
             static_cast<int>((send_off_[j + 1] - send_off_[j]) * cols), mpi_real(), ranks_[j], kHaloTag, comm_.raw());
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  requests_.clear();
  const double t2 = clock();
  c0 = 0;
  for (std::size_t j = 0; j < arrays_.size(); ++j) {
    const int nc = static_cast<int>(arrays_[j].extent(1));
    for (index_t g = 0; g < n_ghosts_; ++g)
      for (int c = 0; c < nc; ++c) h[j](recv_index_host_[g], c) = recv_host_[0](std::size_t(g) * cols + c0 + c);
    Kokkos::deep_copy(arrays_[j], h[j]);
    c0 += nc;
  }
  count(t1 - t0, t2 - t1, clock() - t2, t2 - t1);
}

void Halo::start(const std::vector<View2<real>>& arrays, HaloKind kind) {
  const kc::ProfileRegion region("fvproxy::parallel::halo_start"); // pack and post (Kokkos Tools)
  if (in_flight_) throw RunError("error: Halo::start: the previous exchange was not finished");
  int cols = 0;
  for (const View2<real>& a : arrays) {
    if (index_t(a.extent(0)) != n_cells_)
      throw RunError("error: Halo::start: an array of " + std::to_string(a.extent(0)) + " rows for " +
                     std::to_string(n_cells_) + " local cells");
    cols += static_cast<int>(a.extent(1));
  }
  reserve(cols); // collective where it allocates for ipc: every rank starts the same exchanges
  arrays_ = arrays;
  columns_ = cols;
  kind_ = kind;
  in_flight_ = true;
  arrived_ = false;
  requests_.clear();
  if (ranks_.empty() || cols == 0) return;
  if (variant_ == HaloVariant::naive) return naive_exchange();
  const double t0 = clock();
  const long long n = n_exchange_++;
  const int p = int(n % 2);
  Device& d = *dev_;
  const ExecSpace dflt;
  const ExecSpace& side = d.side.get();
  // The device timeline of this exchange (GPU builds) when it is sampled, the ring's oldest resolved first.
  d.current = nullptr;
  if (device::kAsync && d.exchanges_of_kind[std::size_t(kind)]++ % Device::kTimelineEvery == 0) {
    const kc::ProfileRegion timeline("fvproxy::parallel::halo_timeline");
    d.current = &d.marks[std::size_t(d.timed++) % d.marks.size()];
    Device::resolve(*d.current, stats_);
    d.current->kind = static_cast<int>(kind);
  }
  if (route_ == HaloTransport::mpi) d.unpacked.synchronize(); // MPI is about to write the buffer it read
  if (route_ == HaloTransport::staged && n >= 2) d.recv_host_free[p].synchronize(); // MPI will write this half
  { // The halo's instance starts where the default instance is now: the arrays are written.
    const kc::ProfileRegion fork("fvproxy::parallel::halo_fork");
    d.written.record(dflt);
    d.written.make_wait(side);
    if (d.current) d.current->t0.record(side);
  }
  switch (route_) {
  case HaloTransport::staged: staged_start(p); break;
  case HaloTransport::mpi: // MPI reads and writes the packed buffers where they are
    post_receives(cols, recv_dev_.data());
    pack_rows(side, send_dev_, send_index_, arrays_, cols, 0, send_index_host_.size());
    d.packed.record(side);
    d.packed.synchronize();
    for (std::size_t j = 0; j < ranks_.size(); ++j) post_send(j, cols, send_dev_.data());
    break;
  case HaloTransport::ipc:
  case HaloTransport::automatic: ipc_start(n); break;
  }
  if (d.current) {
    const kc::ProfileRegion timeline("fvproxy::parallel::halo_timeline");
    d.current->k0.record(dflt);
  }
  pack_seconds_ = clock() - t0;
}

void Halo::staged_start(int p) {
  // per neighbour: pack, copy to the host, mark; the sends are posted as the blocks arrive there
  const ExecSpace& side = dev_->side.get();
  const std::size_t cols = std::size_t(columns_), nb = ranks_.size();
  auto block = [&](const auto& v, std::size_t j) {
    return Kokkos::subview(v, std::make_pair(std::size_t(send_off_[j]) * cols, std::size_t(send_off_[j + 1]) * cols));
  };
  copied_.assign(nb, 0);
  post_receives(columns_, recv_host_[p].data());
  for (std::size_t j = 0; j < nb; ++j) {
    pack_rows(side, send_dev_, send_index_, arrays_, columns_, std::size_t(send_off_[j]),
              std::size_t(send_off_[j + 1]));
    Kokkos::deep_copy(side, block(send_host_, j), block(send_dev_, j));
    dev_->on_host[j]->record(side);
  }
  sends_posted_ = 0;
  post_ready_sends(false);
}

void Halo::ipc_start([[maybe_unused]] long long n) {
#if defined(KOKKOS_ENABLE_CUDA)
  // pack, then per neighbour (once it has unpacked what it got two exchanges ago from this half)
  // copy the block into its receive buffer; mark; tell it
  IpcLinks& ipc = dev_->ipc;
  const int p = int(n % 2);
  const std::size_t cols = std::size_t(columns_), nb = ranks_.size();
  const ExecSpace& side = dev_->side.get();
  pack_rows(side, send_dev_, send_index_, arrays_, columns_, 0, send_index_host_.size());
  const cudaStream_t s = side.cuda_stream();
  std::optional<kc::ProfileRegion> part(std::in_place, "fvproxy::parallel::halo_copy");
  for (std::size_t j = 0; j < nb; ++j) {
    const IpcLinks::Peer& peer = ipc.peers[j];
    if (n >= 2) device::check(cudaStreamWaitEvent(s, peer.consumed[p], 0), "cudaStreamWaitEvent");
    real* to =
        peer.base + (std::size_t(p) * std::size_t(peer.ghosts) * std::size_t(reserved_) + std::size_t(peer.row) * cols);
    device::check(cudaMemcpyAsync(to, send_dev_.data() + std::size_t(send_off_[j]) * cols,
                                  std::size_t(send_off_[j + 1] - send_off_[j]) * cols * sizeof(real), cudaMemcpyDefault,
                                  s),
                  "cudaMemcpyAsync (halo, ipc)");
  }
  device::check(cudaEventRecord(ipc.ready[p], s), "cudaEventRecord");
  part.emplace("fvproxy::parallel::halo_post"); // the 4-byte messages
  t_posted_ = clock();
  for (std::size_t j = 0; j < nb; ++j) {
    ipc.msg_out[j] = int(n);
    requests_.emplace_back();
    MPI_Irecv(&ipc.msg_in[j], 1, MPI_INT, ranks_[j], kIpcTag, comm_.raw(), &requests_.back());
  }
  for (std::size_t j = 0; j < nb; ++j) {
    requests_.emplace_back();
    MPI_Isend(&ipc.msg_out[j], 1, MPI_INT, ranks_[j], kIpcTag, comm_.raw(), &requests_.back());
  }
#endif
}

void Halo::ipc_finish([[maybe_unused]] const std::vector<View2<real>>& arrays) {
#if defined(KOKKOS_ENABLE_CUDA)
  // wait (on the device) for each neighbour's copies into this half, unpack, say it is consumed
  IpcLinks& ipc = dev_->ipc;
  const long long n = n_exchange_ - 1;
  const int p = int(n % 2);
  const cudaStream_t s = dev_->side.get().cuda_stream();
  const kc::ProfileRegion region("fvproxy::parallel::halo_device_wait"); // the neighbours' copies, unpacked
  for (std::size_t j = 0; j < ranks_.size(); ++j) {
    if (ipc.msg_in[j] != int(n))
      throw RunError("error: the halo exchange is out of step with rank " + std::to_string(ranks_[j]) +
                     " (its exchange " + std::to_string(ipc.msg_in[j]) + ", this rank's " + std::to_string(n) + ")");
    device::check(cudaStreamWaitEvent(s, ipc.peers[j].ready[p], 0), "cudaStreamWaitEvent");
  }
  const std::size_t half = std::size_t(n_ghosts_) * std::size_t(reserved_);
  unpack_on_side(arrays, View1<real>(ipc.buf + std::size_t(p) * half, std::size_t(n_ghosts_) * columns_));
  device::check(cudaEventRecord(ipc.consumed[p], s), "cudaEventRecord");
#endif
}

void Halo::copy_received(std::size_t j) {
  // Neighbour j's received block to the device, on the halo's instance (staging only).
  const std::size_t cols = std::size_t(columns_);
  const auto rows = std::make_pair(std::size_t(recv_off_[j]) * cols, std::size_t(recv_off_[j + 1]) * cols);
  const int p = int((n_exchange_ - 1) % 2);
  Kokkos::deep_copy(dev_->side.get(), Kokkos::subview(recv_dev_, rows), Kokkos::subview(recv_host_[p], rows));
  copied_[j] = 1;
}

void Halo::poll() {
  if (!in_flight_ || arrived_ || requests_.empty()) return;
  if (route_ == HaloTransport::staged) post_ready_sends(true);
  int done = 0;
  MPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &done, MPI_STATUSES_IGNORE);
  if (!done) return;
  arrived_ = true;
  t_arrived_ = clock();
  if (route_ == HaloTransport::staged)
    for (std::size_t j = 0; j < ranks_.size(); ++j) copy_received(j);
}

void Halo::unpack_on_side(const std::vector<View2<real>>& arrays, const View1<real>& from) {
  unpack_rows(dev_->side.get(), from, recv_index_, arrays, columns_, n_owned_, std::size_t(n_ghosts_));
}

void Halo::finish() {
  const kc::ProfileRegion region("fvproxy::parallel::halo_finish"); // wait and unpack (Kokkos Tools)
  if (!in_flight_) throw RunError("error: Halo::finish without start");
  in_flight_ = false;
  const std::vector<View2<real>> arrays = std::move(arrays_);
  arrays_.clear();
  if (ranks_.empty() || columns_ == 0 || variant_ == HaloVariant::naive) return;
  Device& d = *dev_;
  const ExecSpace dflt;
  const ExecSpace& side = d.side.get();
  const int p = int((n_exchange_ - 1) % 2);
  if (d.current) {
    const kc::ProfileRegion timeline("fvproxy::parallel::halo_timeline");
    d.current->k1.record(dflt); // the inner cells' work ends here
  }
  // Exposed wait: from here until the received values are where the unpack reads them (the host's
  // view: on a GPU the unpacking itself is queued, not waited for).
  std::optional<kc::ProfileRegion> part(std::in_place, "fvproxy::parallel::halo_wait");
  const double t0 = clock();
  const int nrecv = static_cast<int>(ranks_.size());
  if (route_ == HaloTransport::staged) {
    post_ready_sends(true);
    if (!arrived_) // each block to the device as soon as it is here, while waiting for the others
      for (;;) {
        int j = MPI_UNDEFINED;
        MPI_Waitany(nrecv, requests_.data(), &j, MPI_STATUS_IGNORE);
        if (j == MPI_UNDEFINED) break;
        copy_received(std::size_t(j));
      }
  }
  if (!arrived_) MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  requests_.clear();
  const double t1 = clock();
  // Seen ready: at the poll that saw the messages, else now.
  const double ready = arrived_ ? t_arrived_ : t1;
  arrived_ = false;
  part.reset();
  switch (route_) {
  case HaloTransport::staged:
    for (std::size_t j = 0; j < ranks_.size(); ++j)
      if (!copied_[j]) copy_received(j);
    d.recv_host_free[p].record(side);
    unpack_on_side(arrays, recv_dev_);
    break;
  case HaloTransport::mpi: unpack_on_side(arrays, recv_dev_); break;
  case HaloTransport::ipc:
  case HaloTransport::automatic: ipc_finish(arrays); break;
  }
  part.emplace("fvproxy::parallel::halo_join");
  if (d.current) d.current->t1.record(side), d.current->pending = true;
  d.unpacked.record(side);
  d.unpacked.make_wait(dflt); // the default instance's later work reads the ghost rows
  count(pack_seconds_, t1 - t0, clock() - t1, std::max(0.0, ready - t_posted_));
}

void Halo::exchange(View1<real> a) {
  exchange(View2<real>(a.data(), a.extent(0), 1));
}

void Halo::exchange(Vec3View<real> a) {
  exchange(View2<real>(a.data(), a.extent(0), 3));
}

} // namespace fvproxy
