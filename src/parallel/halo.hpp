#pragma once
// The halo exchange (docs/parallel.md#halo-exchange): fills the ghost rows of a cell array (any
// number of columns: the state, its gradients, limiter values, cell geometry) with their owners'
// values. A plan is built once from the local mesh (in the manner of Cabana's Halo): per
// neighbour rank the owned rows it holds as ghosts (device index list, in its ghost order) and
// the range of ghost rows it owns here, so a received message is one contiguous block of rows.
// One packed message per neighbour per exchange, whatever the number of arrays it fills.
//
//   start({a, b, ...})  posts MPI_Irecv, packs the rows to send of every array and posts MPI_Isend
//                       (when staging, per neighbour: pack, copy to the host beside the next pack,
//                       send as soon as the block is there);
//   poll()              lets MPI progress the messages and timestamps their arrival;
//   finish()            waits (staging: each received block to the device as it arrives), unpacks
//                       into the ghost rows.
//
// Work on owned cells that reads no ghost (the inner cells) can run between start and finish, with
// polls between its kernels. Every exchange is counted per kind (HaloStats, docs/parallel.md#halo-statistics).
//
// Variants (parallel.halo.variant), the same A/B idea as the operators:
//   naive      the honest first port: the whole array copied to the host, packed and unpacked
//              there, blocking MPI_Send per neighbour after the receives are posted, the whole array copied back
//              (start() does everything, finish() nothing: no overlap);
//   optimized  pack and unpack kernels on the device, non-blocking messages; MPI sends the packed
//              buffers where they are when it can (host backends; an MPI that says at run time it
//              is CUDA-aware), else only the halo rows are staged through pinned host memory (this
//              project's GPU machines run an MPI without CUDA support).
// Cells are rows of a LayoutLeft (cells, columns) array; a rank's ghosts follow its owned cells.
#include <memory>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/types.hpp"
#include "mesh/local_mesh.hpp"
#include "parallel/communicator.hpp"

namespace fvproxy {

/// What an exchange fills, for the per-stage reports (docs/parallel.md#halo-statistics): each
/// Runge-Kutta stage exchanges the state once, then the gradients and limiter values once.
enum class HaloKind { state, gradient_limiter, other };
constexpr int kHaloKinds = 3;
const char* to_string(HaloKind k);

/// Counters and times of a set of exchanges (docs/parallel.md#halo-statistics).
struct HaloCounters {
  long long exchanges = 0;
  long long messages = 0; ///< sent
  long long values_sent = 0;
  long long bytes_sent = 0;
  double seconds_pack = 0;      ///< in start(): packing, device-to-host staging copies, posting the messages
  double seconds_wait = 0;      ///< exposed wait: the caller blocked until the received values were ready
  double seconds_unpack = 0;    ///< in finish(): the unpack kernels, after the values are ready
  double seconds_in_flight = 0; ///< from the first message posted to the received values seen ready
  /// 1 - seconds_wait / seconds_in_flight (0 without exchanges), clamped to [0, 1].
  double fraction_hidden() const;
  HaloCounters& operator+=(const HaloCounters& o);
  HaloCounters& operator-=(const HaloCounters& o);
};

/// What the exchanges cost so far (reported per run; docs/parallel.md): the totals (the inherited
/// counters) and the same per kind of exchange.
struct HaloStats : HaloCounters {
  HaloCounters kind[kHaloKinds];
  const HaloCounters& of(HaloKind k) const { return kind[static_cast<int>(k)]; }
  HaloStats& operator-=(const HaloStats& o);
};

/// Where the packed buffers go. `automatic`: where MPI can use them (device_direct_possible()),
/// else staged through pinned host memory; `staged`: always staged, even on host backends (to test
/// and time the staging path; also forced by the environment variable FVPROXY_HALO_STAGING=1).
enum class HaloTransport { automatic, staged };

class Halo {
public:
  Halo(const LocalMesh& mesh, const Communicator& comm, HaloVariant variant = HaloVariant::optimized,
       HaloTransport transport = HaloTransport::automatic);
  Halo(const Halo&) = delete;
  Halo& operator=(const Halo&) = delete;
  ~Halo();

  /// Starts filling the ghost rows of `arrays` (rows: the local cells; any number of columns
  /// each), all in one message per neighbour. One exchange at a time per Halo; the arrays must not
  /// be changed in the owned rows sent, nor read in the ghost rows, before finish().
  /// `kind` files the exchange's counters under that kind (HaloStats::kind).
  void start(const std::vector<View2<real>>& arrays, HaloKind kind = HaloKind::other);
  /// Between start() and finish(): lets MPI progress the messages (MPI_Testall) and, the first
  /// time it finds them all complete, records the time they were seen to have arrived (and, when
  /// staging, queues their host-to-device copies). Cheap; the solver calls it between its inner
  /// kernels (docs/parallel.md#halo-statistics).
  void poll();
  /// Whether poll() has seen every message of the exchange in flight complete.
  bool arrived() const { return arrived_; }
  void finish();
  void exchange(const std::vector<View2<real>>& arrays, HaloKind kind = HaloKind::other) {
    start(arrays, kind);
    finish();
  }
  void exchange(View2<real> a, HaloKind kind = HaloKind::other) { exchange(std::vector<View2<real>>{a}, kind); }
  /// The same for a one-column array and for (cells, 3) vectors (the cell geometry).
  void exchange(View1<real> a);
  void exchange(Vec3View<real> a);

  HaloVariant variant() const { return variant_; }
  /// Optimized variant: whether MPI reads and writes the packed buffers where they are (host
  /// backends; a CUDA-aware MPI, asked at run time with MPIX_Query_cuda_support) instead of their
  /// being staged through pinned host memory (CUDA with an MPI that is not CUDA-aware, or
  /// HaloTransport::staged).
  bool device_direct() const { return device_direct_; }
  /// How the halo rows travel, in words (for reports).
  std::string transport() const;
  /// Whether this build and the MPI library it runs with let MPI use the packed buffers directly.
  static bool device_direct_possible();
  index_t n_owned() const { return n_owned_; }
  index_t n_ghosts() const { return n_ghosts_; }
  int neighbours() const { return static_cast<int>(ranks_.size()); }
  /// Owned rows sent per exchange and column (summed over neighbours).
  index_t rows_sent() const { return static_cast<index_t>(send_index_host_.size()); }
  const HaloStats& stats() const { return stats_; }

private:
  struct Instances; ///< the staging pipeline's side execution space instance (the copies)
  void post_receives(int columns, real* recv);
  void post_send(std::size_t j, int columns, real* send);
  void pack(std::size_t j, const ExecSpace& on); ///< neighbour j's rows of every array into its block
  void staged_start();
  void copy_received(std::size_t j);
  void count(double pack_seconds, double wait_seconds, double unpack_seconds, double in_flight_seconds);

  Communicator comm_;
  HaloVariant variant_;
  index_t n_owned_ = 0, n_ghosts_ = 0, n_cells_ = 0;
  std::vector<int> ranks_;                                      ///< neighbour ranks
  std::vector<index_t> send_off_, recv_off_;                    ///< per neighbour, in rows (size neighbours + 1)
  std::vector<index_t> send_index_host_;                        ///< owned rows sent, concatenated by neighbour
  View1<index_t> send_index_;                                   ///< the same on the device
  View1<real> send_dev_, recv_dev_;                             ///< packed values on the device (optimized)
  Kokkos::View<real*, HostStagingSpace> send_host_, recv_host_; ///< staging buffers
  std::vector<MPI_Request> requests_;                           ///< the receives (one per neighbour), then the sends
  std::unique_ptr<Instances> instances_;
  std::vector<char> copied_; ///< staging: per neighbour, whether its received block is queued for the device
  bool in_flight_ = false;
  bool arrived_ = false;    ///< every request of the exchange in flight seen complete
  double t_posted_ = 0;     ///< when its first message was posted (seconds on clock())
  double t_arrived_ = 0;    ///< when poll() saw every request complete
  double pack_seconds_ = 0; ///< its start()'s time
  HaloKind kind_ = HaloKind::other;
  bool device_direct_ = false;
  std::vector<View2<real>> arrays_; ///< those of the exchange in flight
  int columns_ = 0;                 ///< their columns, summed: values per row of a message
  HaloStats stats_;
};

} // namespace fvproxy
