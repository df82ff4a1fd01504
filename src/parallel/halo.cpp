#include "parallel/halo.hpp"

#include <Kokkos_Core.hpp>

#include "core/error.hpp"

namespace fvproxy {

const char* to_string(HaloVariant v) {
  return v == HaloVariant::naive ? "naive" : "optimized";
}

namespace {
constexpr int kHaloTag = 7301;
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
  send_index_ = View1<index_t>("fvproxy::parallel::halo_send_index", send_index_host_.size());
  Kokkos::deep_copy(send_index_, Kokkos::View<const index_t*, HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                     send_index_host_.data(), send_index_host_.size()));
  requests_.reserve(2 * ranks_.size());
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

void Halo::start(View2<real> a) {
  if (in_flight_) throw RunError("error: Halo::start: the previous exchange was not finished");
  if (index_t(a.extent(0)) != n_cells_)
    throw RunError("error: Halo::start: an array of " + std::to_string(a.extent(0)) + " rows for " +
                   std::to_string(n_cells_) + " local cells");
  const int cols = static_cast<int>(a.extent(1));
  columns_ = cols;
  in_flight_ = true;
  if (ranks_.empty()) return;
  const std::size_t ns = send_index_host_.size() * cols, nr = std::size_t(n_ghosts_) * cols;
  if (send_host_.extent(0) < ns) send_host_ = decltype(send_host_)("fvproxy::parallel::halo_send_host", ns);
  if (recv_host_.extent(0) < nr) recv_host_ = decltype(recv_host_)("fvproxy::parallel::halo_recv_host", nr);
  Kokkos::Timer t;
  if (variant_ == HaloVariant::naive) {
    // The whole array to the host, packed there; blocking sends after the receives are posted.
    auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), a);
    pack_host(h, cols);
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
    for (index_t g = 0; g < n_ghosts_; ++g)
      for (int c = 0; c < cols; ++c) h(n_owned_ + g, c) = recv_host_(std::size_t(g) * cols + c);
    Kokkos::deep_copy(a, h);
    stats_.seconds_unpack += t.seconds();
    return;
  }
  if (send_dev_.extent(0) < ns) send_dev_ = View1<real>("fvproxy::parallel::halo_send", ns);
  if (recv_dev_.extent(0) < nr) recv_dev_ = View1<real>("fvproxy::parallel::halo_recv", nr);
  const View1<real> buf = send_dev_;
  const View1<index_t> idx = send_index_;
  Kokkos::parallel_for(
      "fvproxy::parallel::halo_pack", Kokkos::RangePolicy<ExecSpace>(0, ns), KOKKOS_LAMBDA(const std::size_t q) {
        const std::size_t row = q / cols;
        const int c = static_cast<int>(q - row * cols);
        buf(q) = a(idx(row), c);
      });
  Kokkos::deep_copy(Kokkos::subview(send_host_, std::make_pair(std::size_t(0), ns)),
                    Kokkos::subview(send_dev_, std::make_pair(std::size_t(0), ns)));
  stats_.seconds_pack += t.seconds();
  post(cols, send_host_.data(), recv_host_.data());
}

void Halo::finish(View2<real> a) {
  if (!in_flight_) throw RunError("error: Halo::finish without start");
  in_flight_ = false;
  if (ranks_.empty() || variant_ == HaloVariant::naive) return;
  const int cols = columns_;
  Kokkos::Timer t;
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  requests_.clear();
  stats_.seconds_wait += t.seconds();
  t.reset();
  const std::size_t nr = std::size_t(n_ghosts_) * cols;
  Kokkos::deep_copy(Kokkos::subview(recv_dev_, std::make_pair(std::size_t(0), nr)),
                    Kokkos::subview(recv_host_, std::make_pair(std::size_t(0), nr)));
  const View1<real> buf = recv_dev_;
  const index_t first = n_owned_;
  Kokkos::parallel_for(
      "fvproxy::parallel::halo_unpack", Kokkos::RangePolicy<ExecSpace>(0, nr), KOKKOS_LAMBDA(const std::size_t q) {
        const std::size_t g = q / cols;
        const int c = static_cast<int>(q - g * cols);
        a(first + index_t(g), c) = buf(q);
      });
  Kokkos::fence();
  stats_.seconds_unpack += t.seconds();
}

void Halo::pack_host(const Kokkos::View<real**, Kokkos::LayoutLeft, Kokkos::HostSpace>& h, int cols) {
  for (std::size_t q = 0; q < send_index_host_.size(); ++q)
    for (int c = 0; c < cols; ++c) send_host_(q * cols + c) = h(send_index_host_[q], c);
}

void Halo::exchange(View1<real> a) {
  exchange(View2<real>(a.data(), a.extent(0), 1));
}

void Halo::exchange(Vec3View<real> a) {
  exchange(View2<real>(a.data(), a.extent(0), 3));
}

} // namespace fvproxy
