#pragma once
// The one communicator type of fvproxy (docs/parallel.md): a thin value wrapper around an MPI
// communicator that the solver, the reductions and the halo exchange are handed (never a
// hard-wired MPI_COMM_WORLD), so that a test can run a one-rank reference (self()) beside the
// decomposed run in the same job. Reductions are deterministic: MPI_Allreduce with the
// predefined operators on one value per rank gives the same result on every rank.
#include <cstdint>
#include <string>
#include <vector>

#include <mpi.h>

#include "core/exact_sum.hpp"
#include "core/types.hpp"

namespace fvproxy {

class Communicator {
public:
  /// Every rank of the job (MPI_COMM_WORLD).
  static Communicator world();
  /// This rank alone (MPI_COMM_SELF).
  static Communicator self();
  /// Both are one rank (and make no MPI call) in a program that did not initialize MPI.

  int rank() const { return rank_; }
  int size() const { return size_; }
  MPI_Comm raw() const { return comm_; }

  double sum(double v) const;
  double max(double v) const;
  double min(double v) const;
  std::int64_t sum(std::int64_t v) const;
  std::int64_t max(std::int64_t v) const;
  std::int64_t min(std::int64_t v) const;
  /// Element-wise, in place.
  void sum(std::vector<double>& v) const;
  void max(std::vector<double>& v) const;
  void min(std::vector<double>& v) const;
  /// True on every rank when `flag` is true on any.
  bool any(bool flag) const;
  /// The bitwise or of every rank's `bits` (several flags in one reduction).
  unsigned bitwise_or(unsigned bits) const;
  void barrier() const;
  /// Rank `root`'s string on every rank.
  std::string broadcast(const std::string& s, int root = 0) const;
  /// Every rank's string, by rank, on `root` (empty on the other ranks).
  std::vector<std::string> gather(const std::string& s, int root = 0) const;

private:
  explicit Communicator(MPI_Comm c);
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
};

/// `sum`'s total over every rank of `comm`: the same on every rank and for every rank count.
double exact_total(ExactSum& sum, const Communicator& comm);

/// The MPI datatype of fvproxy's `real`.
inline MPI_Datatype mpi_real() {
  return sizeof(real) == sizeof(double) ? MPI_DOUBLE : MPI_FLOAT;
}

} // namespace fvproxy
