#pragma once
// The halo exchange (docs/parallel.md#halo-exchange): fills the ghost rows of a cell array (any
// number of columns: the state, its gradients, limiter values, cell geometry) with their owners'
// values. A plan is built once from the local mesh (in the manner of Cabana's Halo): per
// neighbour rank the owned rows it holds as ghosts (device index list, in its ghost order) and
// the range of ghost rows it owns here, so a received message is one contiguous block of rows.
// One packed message per neighbour per exchange.
//
//   start(a)   packs, copies to the host staging buffer, posts MPI_Irecv/MPI_Isend;
//   finish(a)  waits, copies the received block to the device, unpacks into the ghost rows.
//
// Work on owned cells that reads no ghost (the inner cells) can run between the two.
//
// Variants (parallel.halo.variant), the same A/B idea as the operators:
//   naive      the honest first port: the whole array copied to the host, packed and unpacked
//              there, blocking MPI_Sendrecv per neighbour, the whole array copied back (start()
//              does everything, finish() nothing: no overlap);
//   optimized  pack and unpack kernels on the device, only the halo rows cross to the host (pinned
//              memory on CUDA: this project's GPU machines run an MPI without CUDA support),
//              non-blocking messages.
// Cells are rows of a LayoutLeft (cells, columns) array; a rank's ghosts follow its owned cells.
#include <string>
#include <vector>

#include "core/types.hpp"
#include "mesh/local_mesh.hpp"
#include "parallel/communicator.hpp"

namespace fvproxy {

enum class HaloVariant { naive, optimized };
const char* to_string(HaloVariant v);

/// What the exchanges cost so far (reported per run; docs/parallel.md).
struct HaloStats {
  long long exchanges = 0;
  long long messages = 0; ///< sent
  long long values_sent = 0;
  double seconds_pack = 0;   ///< pack kernel + device-to-host copy
  double seconds_wait = 0;   ///< in finish(), waiting for messages
  double seconds_unpack = 0; ///< host-to-device copy + unpack kernel
};

class Halo {
public:
  Halo(const LocalMesh& mesh, const Communicator& comm, HaloVariant variant = HaloVariant::optimized);
  Halo(const Halo&) = delete;
  Halo& operator=(const Halo&) = delete;
  ~Halo();

  /// Starts filling the ghost rows of `a` (rows: the local cells; any number of columns). One
  /// exchange at a time per Halo; `a` must not be changed in the owned rows sent, nor read in the
  /// ghost rows, before finish(a).
  void start(View2<real> a);
  void finish(View2<real> a);
  void exchange(View2<real> a) {
    start(a);
    finish(a);
  }
  /// The same for a one-column array and for (cells, 3) vectors (the cell geometry).
  void exchange(View1<real> a);
  void exchange(Vec3View<real> a);

  HaloVariant variant() const { return variant_; }
  index_t n_owned() const { return n_owned_; }
  index_t n_ghosts() const { return n_ghosts_; }
  int neighbours() const { return static_cast<int>(ranks_.size()); }
  /// Owned rows sent per exchange and column (summed over neighbours).
  index_t rows_sent() const { return static_cast<index_t>(send_index_host_.size()); }
  const HaloStats& stats() const { return stats_; }

private:
  void post(int columns, real* send, real* recv);
  void pack_host(const Kokkos::View<real**, Kokkos::LayoutLeft, Kokkos::HostSpace>& h, int columns);

  Communicator comm_;
  HaloVariant variant_;
  index_t n_owned_ = 0, n_ghosts_ = 0, n_cells_ = 0;
  std::vector<int> ranks_;                                      ///< neighbour ranks
  std::vector<index_t> send_off_, recv_off_;                    ///< per neighbour, in rows (size neighbours + 1)
  std::vector<index_t> send_index_host_;                        ///< owned rows sent, concatenated by neighbour
  View1<index_t> send_index_;                                   ///< the same on the device
  View1<real> send_dev_, recv_dev_;                             ///< packed values on the device (optimized)
  Kokkos::View<real*, HostStagingSpace> send_host_, recv_host_; ///< staging buffers
  std::vector<MPI_Request> requests_;
  bool in_flight_ = false;
  int columns_ = 0;
  HaloStats stats_;
};

} // namespace fvproxy
