#include "parallel/halo.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h> // Open MPI's extensions: MPIX_Query_cuda_support
#endif

#include "core/error.hpp"
#include "core/kokkos_compat.hpp"

namespace fvproxy {

namespace {
constexpr int kHaloTag = 7301;

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

HaloCounters& HaloCounters::operator+=(const HaloCounters& o) {
  exchanges += o.exchanges, messages += o.messages, values_sent += o.values_sent, bytes_sent += o.bytes_sent;
  seconds_pack += o.seconds_pack, seconds_wait += o.seconds_wait, seconds_unpack += o.seconds_unpack;
  seconds_in_flight += o.seconds_in_flight;
  return *this;
}

HaloCounters& HaloCounters::operator-=(const HaloCounters& o) {
  exchanges -= o.exchanges, messages -= o.messages, values_sent -= o.values_sent, bytes_sent -= o.bytes_sent;
  seconds_pack -= o.seconds_pack, seconds_wait -= o.seconds_wait, seconds_unpack -= o.seconds_unpack;
  seconds_in_flight -= o.seconds_in_flight;
  return *this;
}

HaloStats& HaloStats::operator-=(const HaloStats& o) {
  HaloCounters::operator-=(o);
  for (int k = 0; k < kHaloKinds; ++k) kind[k] -= o.kind[k];
  return *this;
}

struct Halo::Instances {
  kc::SideInstance<ExecSpace> copy; ///< the staging copies; packing and unpacking use the default instance
};

bool Halo::device_direct_possible() {
  // Host backends: the packed buffers are host memory already, a staging copy would only cost.
  if constexpr (Kokkos::SpaceAccessibility<HostSpace, MemSpace>::accessible) return true;
  return mpi_accepts_device_memory();
}

Halo::Halo(const LocalMesh& l, const Communicator& comm, HaloVariant variant, HaloTransport transport)
    : comm_(comm), variant_(variant), n_owned_(l.n_owned), n_ghosts_(l.n_ghosts()), n_cells_(l.host.n_cells()) {
  if (l.ranks != comm.size() || l.rank != comm.rank())
    throw RunError("error: the local mesh is rank " + std::to_string(l.rank) + " of " + std::to_string(l.ranks) +
                   ", the communicator's rank " + std::to_string(comm.rank()) + " of " + std::to_string(comm.size()));
  send_off_.push_back(0);
  recv_off_.push_back(0);
  for (const HaloLink& link : l.links) {
    ranks_.push_back(link.rank);
    send_index_host_.insert(send_index_host_.end(), link.send.begin(), link.send.end());
    send_off_.push_back(static_cast<index_t>(send_index_host_.size()));
    recv_off_.push_back(link.ghost_end - l.n_owned);
  }
  if (recv_off_.back() != n_ghosts_)
    throw RunError("error: the halo links cover " + std::to_string(recv_off_.back()) + " of " +
                   std::to_string(n_ghosts_) + " ghosts");
  const bool staged = transport == HaloTransport::staged || staging_forced_by_environment();
  device_direct_ = variant_ == HaloVariant::optimized && !staged && device_direct_possible();
  if (variant_ == HaloVariant::optimized && !device_direct_) instances_ = std::make_unique<Instances>();
  send_index_ = View1<index_t>("fvproxy::parallel::halo_send_index", send_index_host_.size());
  Kokkos::deep_copy(send_index_, Kokkos::View<const index_t*, HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                     send_index_host_.data(), send_index_host_.size()));
  requests_.reserve(2 * ranks_.size());
}

std::string Halo::transport() const {
  if (variant_ == HaloVariant::naive) return "whole arrays via the host";
  const bool host = Kokkos::SpaceAccessibility<HostSpace, MemSpace>::accessible;
  if (!device_direct_ && host) return "packed in host memory, staged through a host copy per neighbour (forced)";
  if (!device_direct_) return "packed on the device, staged through pinned host memory per neighbour";
  if (host) return "packed in host memory";
  return "packed on the device, sent from device memory (CUDA-aware MPI)";
}

Halo::~Halo() {
  // An exchange left in flight (an exception between start and finish): complete it so that MPI
  // does not write into freed buffers.
  if (in_flight_ && !requests_.empty())
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  if (instances_) instances_->copy.get().fence();
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

void Halo::pack(std::size_t j, const ExecSpace& on) {
  pack_rows(on, send_dev_, send_index_, arrays_, columns_, std::size_t(send_off_[j]), std::size_t(send_off_[j + 1]));
}

void Halo::staged_start() {
  // The staging pipeline: neighbour j's block is copied to the host on the side instance while
  // block j + 1 is packed on the default one, and j's message is posted as soon as its block is
  // on the host (docs/parallel.md#halo-exchange).
  const ExecSpace dflt;
  const ExecSpace& side = instances_->copy.get();
  const std::size_t cols = std::size_t(columns_), n = ranks_.size();
  if (n > 0) pack(0, dflt);
  for (std::size_t j = 0; j < n; ++j) {
    dflt.fence(); // block j packed (and, before block 0, whatever wrote the arrays)
    const auto rows = std::make_pair(std::size_t(send_off_[j]) * cols, std::size_t(send_off_[j + 1]) * cols);
    Kokkos::deep_copy(side, Kokkos::subview(send_host_, rows), Kokkos::subview(send_dev_, rows));
    if (j + 1 < n) pack(j + 1, dflt);
    side.fence(); // block j on the host
    post_send(j, columns_, send_host_.data());
  }
}

void Halo::start(const std::vector<View2<real>>& arrays, HaloKind kind) {
  if (in_flight_) throw RunError("error: Halo::start: the previous exchange was not finished");
  int cols = 0;
  for (const View2<real>& a : arrays) {
    if (index_t(a.extent(0)) != n_cells_)
      throw RunError("error: Halo::start: an array of " + std::to_string(a.extent(0)) + " rows for " +
                     std::to_string(n_cells_) + " local cells");
    cols += static_cast<int>(a.extent(1));
  }
  arrays_ = arrays;
  columns_ = cols;
  kind_ = kind;
  in_flight_ = true;
  arrived_ = false;
  requests_.clear();
  if (ranks_.empty() || cols == 0) return;
  const double t0 = clock();
  // A message holds, per row sent, the columns of every array one after the other (row-major).
  const std::size_t ns = send_index_host_.size() * cols, nr = std::size_t(n_ghosts_) * cols;
  if (!device_direct_ && send_host_.extent(0) < ns)
    send_host_ = decltype(send_host_)(Kokkos::ViewAllocateWithoutInitializing("fvproxy::parallel::halo_send_host"), ns);
  if (!device_direct_ && recv_host_.extent(0) < nr)
    recv_host_ = decltype(recv_host_)(Kokkos::ViewAllocateWithoutInitializing("fvproxy::parallel::halo_recv_host"), nr);
  if (variant_ == HaloVariant::naive) {
    // Each whole array to the host, packed there; blocking sends after the receives are posted.
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
    post_receives(cols, recv_host_.data());
    for (std::size_t j = 0; j < ranks_.size(); ++j)
      MPI_Send(send_host_.data() + std::size_t(send_off_[j]) * cols,
               static_cast<int>((send_off_[j + 1] - send_off_[j]) * cols), mpi_real(), ranks_[j], kHaloTag,
               comm_.raw());
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    requests_.clear();
    const double t2 = clock();
    c0 = 0;
    for (std::size_t j = 0; j < arrays_.size(); ++j) {
      const int nc = static_cast<int>(arrays_[j].extent(1));
      for (index_t g = 0; g < n_ghosts_; ++g)
        for (int c = 0; c < nc; ++c) h[j](n_owned_ + g, c) = recv_host_(std::size_t(g) * cols + c0 + c);
      Kokkos::deep_copy(arrays_[j], h[j]);
      c0 += nc;
    }
    count(t1 - t0, t2 - t1, clock() - t2, t2 - t1);
    return;
  }
  if (send_dev_.extent(0) < ns) // grown to the widest exchange so far; every value sent is packed first
    send_dev_ = View1<real>(Kokkos::ViewAllocateWithoutInitializing("fvproxy::parallel::halo_send"), ns);
  if (recv_dev_.extent(0) < nr)
    recv_dev_ = View1<real>(Kokkos::ViewAllocateWithoutInitializing("fvproxy::parallel::halo_recv"), nr);
  if (device_direct_) { // host memory, or a CUDA-aware MPI: MPI reads and writes the packed buffers
    post_receives(cols, recv_dev_.data());
    for (std::size_t j = 0; j < ranks_.size(); ++j) pack(j, ExecSpace());
    Kokkos::fence();
    for (std::size_t j = 0; j < ranks_.size(); ++j) post_send(j, cols, send_dev_.data());
  } else {
    copied_.assign(ranks_.size(), 0);
    post_receives(cols, recv_host_.data());
    staged_start();
  }
  pack_seconds_ = clock() - t0;
}

void Halo::copy_received(std::size_t j) {
  // Neighbour j's received block to the device, on the side instance (staging only).
  const std::size_t cols = std::size_t(columns_);
  const auto rows = std::make_pair(std::size_t(recv_off_[j]) * cols, std::size_t(recv_off_[j + 1]) * cols);
  Kokkos::deep_copy(instances_->copy.get(), Kokkos::subview(recv_dev_, rows), Kokkos::subview(recv_host_, rows));
  copied_[j] = 1;
}

void Halo::poll() {
  if (!in_flight_ || arrived_ || requests_.empty()) return;
  int done = 0;
  MPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &done, MPI_STATUSES_IGNORE);
  if (!done) return;
  arrived_ = true;
  t_arrived_ = clock();
  if (!device_direct_)
    for (std::size_t j = 0; j < ranks_.size(); ++j) copy_received(j);
}

void Halo::finish() {
  if (!in_flight_) throw RunError("error: Halo::finish without start");
  in_flight_ = false;
  const std::vector<View2<real>> arrays = std::move(arrays_);
  arrays_.clear();
  if (ranks_.empty() || columns_ == 0 || variant_ == HaloVariant::naive) return;
  const int cols = columns_;
  // Exposed wait: from here until the received values are where the unpack reads them.
  const double t0 = clock();
  if (!arrived_) {
    if (!device_direct_) { // each block to the device as soon as it is here, while waiting for the others
      const int nrecv = static_cast<int>(ranks_.size());
      for (;;) {
        int j = MPI_UNDEFINED;
        MPI_Waitany(nrecv, requests_.data(), &j, MPI_STATUS_IGNORE);
        if (j == MPI_UNDEFINED) break;
        copy_received(std::size_t(j));
      }
    }
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  }
  requests_.clear();
  if (!device_direct_) {
    for (std::size_t j = 0; j < ranks_.size(); ++j)
      if (!copied_[j]) copy_received(j);
    instances_->copy.get().fence();
  }
  const double t1 = clock();
  // Seen ready: at the poll that saw the messages (MPI reads the buffers the unpack reads), else now.
  const double ready = arrived_ && device_direct_ ? t_arrived_ : t1;
  arrived_ = false;
  const View1<real> buf = recv_dev_;
  const index_t first = n_owned_;
  const std::size_t ghosts = std::size_t(n_ghosts_);
  int c0 = 0;
  for (const View2<real>& a : arrays) {
    const int nc = static_cast<int>(a.extent(1));
    Kokkos::parallel_for(
        "fvproxy::parallel::halo_unpack", Kokkos::RangePolicy<ExecSpace>(0, ghosts * nc),
        KOKKOS_LAMBDA(const std::size_t q) {
          const std::size_t g = q / nc;
          const int c = static_cast<int>(q - g * nc);
          a(first + index_t(g), c) = buf(g * cols + c0 + c);
        });
    c0 += nc;
  }
  Kokkos::fence();
  count(pack_seconds_, t1 - t0, clock() - t1, std::max(0.0, ready - t_posted_));
}

void Halo::exchange(View1<real> a) {
  exchange(View2<real>(a.data(), a.extent(0), 1));
}

void Halo::exchange(Vec3View<real> a) {
  exchange(View2<real>(a.data(), a.extent(0), 3));
}

} // namespace fvproxy
