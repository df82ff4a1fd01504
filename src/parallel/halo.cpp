#include "parallel/halo.hpp"

#include <Kokkos_Core.hpp>
#include <type_traits>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h> // Open MPI's extensions: MPIX_Query_cuda_support
#endif

#include "core/error.hpp"

namespace fvproxy {

namespace {
constexpr int kHaloTag = 7301;

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

bool Halo::device_direct_possible() {
  // Host backends: the packed buffers are host memory already, a staging copy would only cost.
  if constexpr (Kokkos::SpaceAccessibility<HostSpace, MemSpace>::accessible) return true;
  return mpi_accepts_device_memory();
}

Halo::Halo(const LocalMesh& l, const Communicator& comm, HaloVariant variant)
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
  device_direct_ = variant_ == HaloVariant::optimized && device_direct_possible();
  send_index_ = View1<index_t>("fvproxy::parallel::halo_send_index", send_index_host_.size());
  Kokkos::deep_copy(send_index_, Kokkos::View<const index_t*, HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                     send_index_host_.data(), send_index_host_.size()));
  requests_.reserve(2 * ranks_.size());
}

std::string Halo::transport() const {
  if (variant_ == HaloVariant::naive) return "whole arrays via the host";
  if (!device_direct_) return "packed on the device, staged through pinned host memory";
  if (Kokkos::SpaceAccessibility<HostSpace, MemSpace>::accessible) return "packed in host memory";
  return "packed on the device, sent from device memory (CUDA-aware MPI)";
}

Halo::~Halo() {
  // An exchange left in flight (an exception between start and finish): complete it so that MPI
  // does not write into freed buffers.
  if (in_flight_ && !requests_.empty())
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
}

void Halo::post(int columns, real* send, real* recv) {
  requests_.clear();
  for (std::size_t j = 0; j < ranks_.size(); ++j) {
    const int n = static_cast<int>((recv_off_[j + 1] - recv_off_[j]) * columns);
    requests_.emplace_back();
    MPI_Irecv(recv + std::size_t(recv_off_[j]) * columns, n, mpi_real(), ranks_[j], kHaloTag, comm_.raw(),
              &requests_.back());
  }
  for (std::size_t j = 0; j < ranks_.size(); ++j) {
    const int n = static_cast<int>((send_off_[j + 1] - send_off_[j]) * columns);
    requests_.emplace_back();
    MPI_Isend(send + std::size_t(send_off_[j]) * columns, n, mpi_real(), ranks_[j], kHaloTag, comm_.raw(),
              &requests_.back());
  }
  stats_.messages += static_cast<long long>(ranks_.size());
  stats_.values_sent += static_cast<long long>(send_index_host_.size()) * columns;
  ++stats_.exchanges;
}

void Halo::start(const std::vector<View2<real>>& arrays) {
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
  in_flight_ = true;
  if (ranks_.empty() || cols == 0) return;
  // A message holds, per row sent, the columns of every array one after the other (row-major).
  const std::size_t ns = send_index_host_.size() * cols, nr = std::size_t(n_ghosts_) * cols;
  if (!device_direct_ && send_host_.extent(0) < ns)
    send_host_ = decltype(send_host_)(Kokkos::ViewAllocateWithoutInitializing("fvproxy::parallel::halo_send_host"), ns);
  if (!device_direct_ && recv_host_.extent(0) < nr)
    recv_host_ = decltype(recv_host_)(Kokkos::ViewAllocateWithoutInitializing("fvproxy::parallel::halo_recv_host"), nr);
  Kokkos::Timer t;
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
    stats_.seconds_pack += t.seconds();
    t.reset();
    requests_.clear();
    for (std::size_t j = 0; j < ranks_.size(); ++j) {
      requests_.emplace_back();
      MPI_Irecv(recv_host_.data() + std::size_t(recv_off_[j]) * cols,
                static_cast<int>((recv_off_[j + 1] - recv_off_[j]) * cols), mpi_real(), ranks_[j], kHaloTag,
                comm_.raw(), &requests_.back());
    }
    for (std::size_t j = 0; j < ranks_.size(); ++j)
      MPI_Send(send_host_.data() + std::size_t(send_off_[j]) * cols,
               static_cast<int>((send_off_[j + 1] - send_off_[j]) * cols), mpi_real(), ranks_[j], kHaloTag,
               comm_.raw());
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    requests_.clear();
    stats_.messages += static_cast<long long>(ranks_.size());
    stats_.values_sent += static_cast<long long>(send_index_host_.size()) * cols;
    ++stats_.exchanges;
    stats_.seconds_wait += t.seconds();
    t.reset();
    c0 = 0;
    for (std::size_t j = 0; j < arrays_.size(); ++j) {
      const int nc = static_cast<int>(arrays_[j].extent(1));
      for (index_t g = 0; g < n_ghosts_; ++g)
        for (int c = 0; c < nc; ++c) h[j](n_owned_ + g, c) = recv_host_(std::size_t(g) * cols + c0 + c);
      Kokkos::deep_copy(arrays_[j], h[j]);
      c0 += nc;
    }
    stats_.seconds_unpack += t.seconds();
    return;
  }
  if (send_dev_.extent(0) < ns) // grown to the widest exchange so far; every value sent is packed first
    send_dev_ = View1<real>(Kokkos::ViewAllocateWithoutInitializing("fvproxy::parallel::halo_send"), ns);
  if (recv_dev_.extent(0) < nr)
    recv_dev_ = View1<real>(Kokkos::ViewAllocateWithoutInitializing("fvproxy::parallel::halo_recv"), nr);
  const View1<real> buf = send_dev_;
  const View1<index_t> idx = send_index_;
  const std::size_t rows = send_index_host_.size();
  int c0 = 0;
  for (const View2<real>& a : arrays_) {
    const int nc = static_cast<int>(a.extent(1));
    Kokkos::parallel_for(
        "fvproxy::parallel::halo_pack", Kokkos::RangePolicy<ExecSpace>(0, rows * nc),
        KOKKOS_LAMBDA(const std::size_t q) {
          const std::size_t row = q / nc;
          const int c = static_cast<int>(q - row * nc);
          buf(row * cols + c0 + c) = a(idx(row), c);
        });
    c0 += nc;
  }
  if (device_direct_) { // host memory, or a CUDA-aware MPI: MPI reads and writes the packed buffers
    Kokkos::fence();
    stats_.seconds_pack += t.seconds();
    post(cols, send_dev_.data(), recv_dev_.data());
    return;
  }
  Kokkos::deep_copy(Kokkos::subview(send_host_, std::make_pair(std::size_t(0), ns)),
                    Kokkos::subview(send_dev_, std::make_pair(std::size_t(0), ns)));
  stats_.seconds_pack += t.seconds();
  post(cols, send_host_.data(), recv_host_.data());
}

void Halo::finish() {
  if (!in_flight_) throw RunError("error: Halo::finish without start");
  in_flight_ = false;
  const std::vector<View2<real>> arrays = std::move(arrays_);
  arrays_.clear();
  if (ranks_.empty() || columns_ == 0 || variant_ == HaloVariant::naive) return;
  const int cols = columns_;
  Kokkos::Timer t;
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  requests_.clear();
  stats_.seconds_wait += t.seconds();
  t.reset();
  const std::size_t nr = std::size_t(n_ghosts_) * cols;
  if (!device_direct_)
    Kokkos::deep_copy(Kokkos::subview(recv_dev_, std::make_pair(std::size_t(0), nr)),
                      Kokkos::subview(recv_host_, std::make_pair(std::size_t(0), nr)));
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
  stats_.seconds_unpack += t.seconds();
}

void Halo::exchange(View1<real> a) {
  exchange(View2<real>(a.data(), a.extent(0), 1));
}

void Halo::exchange(Vec3View<real> a) {
  exchange(View2<real>(a.data(), a.extent(0), 3));
}

} // namespace fvproxy
