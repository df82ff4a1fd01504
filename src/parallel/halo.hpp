#pragma once
// The halo exchange (docs/halo.md#halo-exchange): fills the ghost rows of a cell array (any
// number of columns: the state, its gradients, limiter values, cell geometry) with their owners'
// values. A plan is built once from the local mesh (in the manner of Cabana's Halo): per
// neighbour rank the owned rows it holds as ghosts (device index list, in its ghost order) and
// the ghost rows it owns here: one contiguous block of rows with one ghost layer, two blocks (its
// first layer's rows, its second's) with two, unpacked through an index list.
// One packed message per neighbour per exchange, whatever the number of arrays it fills.
//
//   start({a, b, ...})  queues the packing of the rows to send (and their copies) on the halo's own
//                       execution-space instance, after whatever the default instance queued
//                       before, and posts the messages; returns without waiting for the device;
//   poll()              posts what start() could not yet (a staged block on the host), lets MPI
//                       progress the messages and timestamps their arrival;
//   finish()            waits for the messages (not for the device), queues the received blocks'
//                       copies and the unpacking on the halo's instance, and makes the default
//                       instance's later work wait for them (an event, never a fence).
//
// Work on owned cells that reads no ghost (the inner cells) is queued on the default instance
// between start and finish and runs beside the halo's copies (docs/halo.md#overlap). Every
// exchange is counted per kind (HaloStats, docs/halo.md#halo-statistics), with, on a GPU, the
// device timeline's measure of how much of the transfer ran beside the inner cells' kernels.
//
// Variants (parallel.halo.variant), the same A/B idea as the operators:
//   naive      the honest first port: the whole array copied to the host, packed and unpacked
//              there, blocking MPI_Send per neighbour after the receives are posted, the whole array copied back
//              (start() does everything, finish() nothing: no overlap);
//   optimized  pack and unpack kernels on the device, non-blocking; the transport
//              (parallel.halo.transport, docs/halo.md#transports) is one of
//                ipc     CUDA IPC: each rank copies its packed block straight into the neighbour's
//                        receive buffer (opened once through its IPC handle), a small MPI message
//                        and interprocess events order the copies (ranks of one node);
//                mpi     MPI on the packed buffers (host backends; an MPI that says at run time it
//                        is CUDA-aware);
//                staged  through pinned host memory, per neighbour (this project's GPU machines run
//                        an MPI without CUDA support).
// Cells are rows of a LayoutLeft (cells, columns) array; a rank's ghosts follow its owned cells.
#include <memory>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "mesh/local_mesh.hpp"
#include "parallel/communicator.hpp"
#include "parallel/parallel_options.hpp"

namespace fvproxy {

/// What an exchange fills, for the per-stage reports (docs/halo.md#halo-statistics): each
/// Runge-Kutta stage exchanges the state once, then the gradients and limiter values once.
enum class HaloKind { state, gradient_limiter, other };
constexpr int kHaloKinds = 3;
const char* to_string(HaloKind k);

/// Counters and times of a set of exchanges (docs/halo.md#halo-statistics).
struct HaloCounters {
  long long exchanges = 0;
  long long messages = 0; ///< sent
  long long values_sent = 0;
  long long bytes_sent = 0;
  double seconds_pack = 0;      ///< in start(): packing, device-to-host staging copies, posting the messages
  double seconds_wait = 0;      ///< exposed wait: the caller blocked until the received values were ready
  double seconds_unpack = 0;    ///< in finish(): the unpack kernels, after the values are ready
  double seconds_in_flight = 0; ///< from the first message posted to the received values seen ready
  /// The device timeline (GPU builds; 0 on host backends), from timed events: per exchange the
  /// transfer, from the start of the packing to the end of the unpacking on the halo's instance,
  /// and the part of it that ran while the default instance worked between start() and finish()
  /// (the inner cells' kernels).
  double gpu_seconds_transfer = 0;
  double gpu_seconds_overlapped = 0;
  /// 1 - seconds_wait / seconds_in_flight (0 without exchanges), clamped to [0, 1].
  double fraction_hidden() const;
  /// gpu_seconds_overlapped / gpu_seconds_transfer; negative where there is no device timeline.
  double gpu_fraction_overlapped() const;
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

class Halo {
public:
  Halo(const LocalMesh& mesh, const Communicator& comm, HaloVariant variant = HaloVariant::optimized,
       HaloTransport transport = HaloTransport::automatic);
  Halo(const LocalMesh& mesh, const Communicator& comm, const HaloSettings& s)
      : Halo(mesh, comm, s.variant, s.transport) {}
  Halo(const Halo&) = delete;
  Halo& operator=(const Halo&) = delete;
  ~Halo();

  /// Makes room for exchanges of up to `columns` values per row, now (collective: every rank of
  /// the communicator calls it with the same value). The solvers call it at set-up with their
  /// widest exchange, so that nothing is allocated or opened in the time loop; start() calls it
  /// too, for an exchange wider than any before. With the ipc transport this is where the receive
  /// buffers are allocated and opened by the neighbours; a failure there falls back to staged,
  /// with a message, on every rank.
  void reserve(int columns);

  /// Starts filling the ghost rows of `arrays` (rows: the local cells; any number of columns
  /// each), all in one message per neighbour. One exchange at a time per Halo; the arrays must not
  /// be changed in the owned rows sent, nor read in the ghost rows, before finish() (by work on the
  /// default instance: work queued there after finish() is ordered after the unpacking).
  /// `kind` files the exchange's counters under that kind (HaloStats::kind). Collective.
  void start(const std::vector<View2<real>>& arrays, HaloKind kind = HaloKind::other);
  /// Between start() and finish(): posts the messages start() left (staged: waits for each
  /// block's copy to the host — the device goes on with the work queued before), lets MPI progress
  /// them (MPI_Testall) and, the first time it finds them all complete, records the time they
  /// were seen to have arrived (staged: and queues their copies to the device). The solver calls
  /// it after queueing its first inner kernel (docs/halo.md#halo-statistics).
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
  /// The transport in use (never `automatic`): what `auto` chose, or what a request that could not
  /// be had fell back to. The naive variant reports `mpi` (host buffers).
  HaloTransport route() const { return route_; }
  /// Optimized variant: whether MPI reads and writes the packed buffers where they are (route mpi).
  bool device_direct() const { return variant_ == HaloVariant::optimized && route_ == HaloTransport::mpi; }
  /// How the halo rows travel, in words (for reports).
  std::string transport() const;
  /// Why the transport asked for could not be had ("" when it was).
  const std::string& fallback_reason() const { return fallback_; }
  /// Whether this build and the MPI library it runs with let MPI use the packed buffers directly.
  static bool device_direct_possible();
  index_t n_owned() const { return n_owned_; }
  /// Ghost layers of the local mesh (parallel.halo.layers; docs/halo.md#two-ghost-layers).
  int layers() const { return layers_; }
  index_t n_ghosts() const { return n_ghosts_; }
  int neighbours() const { return static_cast<int>(ranks_.size()); }
  /// Owned rows sent per exchange and column (summed over neighbours).
  index_t rows_sent() const { return static_cast<index_t>(send_index_host_.size()); }
  /// The counters so far (on a GPU, the device timeline of every finished exchange included: this
  /// waits for their events).
  const HaloStats& stats() const;

private:
  struct Device; ///< the halo's execution-space instance, its events, the timeline, the IPC links
  void post_receives(int columns, real* recv);
  void post_send(std::size_t j, int columns, real* send);
  void post_ready_sends(bool wait); ///< staged: the sends whose blocks are on the host (all, waiting, if `wait`)
  void staged_start(int parity);    ///< staged: per neighbour pack, copy to the host, post the send when there
  void ipc_start(long long n);      ///< ipc: pack, copy into the neighbours' buffers, tell them (exchange n)
  void ipc_finish(const std::vector<View2<real>>& arrays); ///< ipc: wait for the neighbours' copies, unpack
  void copy_received(std::size_t j);
  void unpack_on_side(const std::vector<View2<real>>& arrays, const View1<real>& from);
  void count(double pack_seconds, double wait_seconds, double unpack_seconds, double in_flight_seconds);
  void ipc_setup(int columns); ///< (re)allocates and opens the IPC buffers; on failure falls back to staged
  void naive_exchange();

  Communicator comm_;
  HaloVariant variant_;
  HaloTransport asked_ = HaloTransport::automatic, route_ = HaloTransport::mpi;
  std::string fallback_;
  index_t n_owned_ = 0, n_ghosts_ = 0, n_cells_ = 0;
  int layers_ = 1;
  std::vector<int> ranks_;                   ///< neighbour ranks
  std::vector<index_t> send_off_, recv_off_; ///< per neighbour, in rows (size neighbours + 1)
  std::vector<index_t> send_index_host_;     ///< owned rows sent, concatenated by neighbour
  View1<index_t> send_index_;                ///< the same on the device
  std::vector<index_t> recv_index_host_;     ///< ghost rows received, concatenated by neighbour
  View1<index_t> recv_index_;       ///< the same on the device, where not n_owned, n_owned + 1, ... (two layers)
  View1<real> send_dev_, recv_dev_; ///< packed values on the device (optimized)
  Kokkos::View<real*, HostStagingSpace> send_host_, recv_host_[2]; ///< staging buffers (receives: by exchange parity)
  std::vector<MPI_Request> requests_; ///< the receives (one per neighbour), then the sends as posted
  std::unique_ptr<Device> dev_;
  std::vector<char> copied_;     ///< staging: per neighbour, whether its received block is queued for the device
  std::size_t sends_posted_ = 0; ///< staging: neighbours whose send is posted
  int reserved_ = 0;             ///< columns the buffers hold
  long long n_exchange_ = 0;     ///< exchanges started (its parity picks the double buffers)
  bool in_flight_ = false;
  bool arrived_ = false;    ///< every request of the exchange in flight seen complete
  double t_posted_ = 0;     ///< when its first message was posted (seconds on clock())
  double t_arrived_ = 0;    ///< when poll() saw every request complete
  double pack_seconds_ = 0; ///< its start()'s time
  HaloKind kind_ = HaloKind::other;
  std::vector<View2<real>> arrays_; ///< those of the exchange in flight
  int columns_ = 0;                 ///< their columns, summed: values per row of a message
  mutable HaloStats stats_;
};

} // namespace fvproxy
