#pragma once
// Rows spread over ranks in contiguous blocks, and records sent to the ranks that need them: the
// two patterns of the parallel mesh build, the output files and the restart.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <mpi.h>

#include "parallel/communicator.hpp"

namespace fvproxy {

/// The first of the rows [block_begin(n, r, P), block_begin(n, r + 1, P)) that rank r of P holds
/// of n rows: n r / P.
inline std::int64_t block_begin(std::int64_t n, int r, int P) {
  return static_cast<std::int64_t>(static_cast<__int128>(n) * r / P);
}

/// The rank whose block of the n rows holds row g.
inline int block_owner(std::int64_t g, std::int64_t n, int P) {
  int w = static_cast<int>(static_cast<__int128>(g) * P / std::max<std::int64_t>(n, 1));
  while (w + 1 < P && block_begin(n, w + 1, P) <= g) ++w;
  while (w > 0 && block_begin(n, w, P) > g) --w;
  return w;
}

/// MPI_Alltoallv of trivially copyable records, `send` grouped by destination rank (`counts[r]`
/// for rank r). Returns the records received, grouped by source rank; `recv_counts`, when given,
/// receives how many came from each. One rank: `send` itself, no MPI call. Collective.
template <class T> std::vector<T> alltoallv(const std::vector<T>& send, const std::vector<int>& counts,
                                            const Communicator& comm, std::vector<int>* recv_counts = nullptr) {
  const int P = comm.size();
  if (P == 1) {
    if (recv_counts) *recv_counts = {static_cast<int>(send.size())};
    return send;
  }
  std::vector<int> rc(P, 0);
  MPI_Alltoall(counts.data(), 1, MPI_INT, rc.data(), 1, MPI_INT, comm.raw());
  std::vector<int> sb(P, 0), sd(P, 0), rb(P, 0), rd(P, 0);
  long long total = 0;
  for (int r = 0; r < P; ++r) {
    sb[r] = counts[r] * int(sizeof(T));
    rb[r] = rc[r] * int(sizeof(T));
    if (r > 0) sd[r] = sd[r - 1] + sb[r - 1], rd[r] = rd[r - 1] + rb[r - 1];
    total += rc[r];
  }
  std::vector<T> recv(static_cast<std::size_t>(total));
  MPI_Alltoallv(send.data(), sb.data(), sd.data(), MPI_BYTE, recv.data(), rb.data(), rd.data(), MPI_BYTE, comm.raw());
  if (recv_counts) *recv_counts = rc;
  return recv;
}

/// The lowest rank whose `message` is not empty, and that message, on every rank; rank -1 (and no
/// text) when every rank's is empty: one failure, said once, by every rank (one reduction, and a
/// broadcast when some rank failed; no MPI call on one rank). Collective.
struct FirstMessage {
  int rank = -1;
  std::string text;
  explicit operator bool() const { return rank >= 0; }
};
inline FirstMessage first_message(const Communicator& comm, const std::string& message) {
  if (comm.size() == 1) return message.empty() ? FirstMessage{} : FirstMessage{0, message};
  const std::int64_t none = comm.size();
  const std::int64_t first = comm.min(message.empty() ? none : std::int64_t(comm.rank()));
  if (first == none) return {};
  return {static_cast<int>(first), comm.broadcast(message, static_cast<int>(first))};
}

} // namespace fvproxy
