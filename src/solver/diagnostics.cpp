#include "solver/diagnostics.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

#include <mpi.h>

#include "core/kokkos_compat.hpp"
#include "operators/muscl/limiter.hpp"

namespace fvproxy {

namespace {

struct CellError {
  ConstVec3View<real> C;
  ConstView1<real> V;
  ConstView2<real> u;
  ScalarSolution exact;
  real t;
  int k;
  KOKKOS_INLINE_FUNCTION double error(index_t c) const {
    const real x[3] = {C(c, 0), C(c, 1), C(c, 2)};
    return kc::fabs(double(u(c, k)) - double(exact(k, x, t)));
  }
};
struct L1Sum : CellError {
  KOKKOS_FUNCTION void operator()(const index_t c, double& s) const { s += error(c) * V(c); }
};
struct L2Sum : CellError {
  KOKKOS_FUNCTION void operator()(const index_t c, double& s) const {
    const double e = error(c);
    s += e * e * V(c);
  }
};
struct LinfMax : CellError {
  KOKKOS_FUNCTION void operator()(const index_t c, double& s) const {
    const double e = error(c);
    if (e > s) s = e;
  }
};
struct WeightedTerm {
  ConstView1<real> V;
  ConstView2<real> u;
  int k;
  View1<double> out;
  KOKKOS_FUNCTION void operator()(const index_t c) const { out(c) = double(u(c, k)) * V(c); }
};

/// The exact sum of doubles, whatever their order: fixed-point digits of 32 bits (in int64 words,
/// with room for carries) covering every finite double. Non-finite values are summed apart (they
/// make the total non-finite).
class ExactSum {
public:
  void add(double x) {
    if (x == 0) return;
    if (!std::isfinite(x)) {
      special_ += x;
      return;
    }
    int e = 0;
    const double f = std::frexp(x, &e);                                  // x = f 2^e, 0.5 <= |f| < 1; e >= -1073
    const std::int64_t m = static_cast<std::int64_t>(std::ldexp(f, 53)); // exact, |m| < 2^53
    const int shift = e - 53 + kBias;                                    // >= 1
    const int at = shift / 32, off = shift % 32;
    const std::uint64_t a = static_cast<std::uint64_t>(m < 0 ? -m : m);
    const std::uint64_t lo = (a & kMask) << off, hi = (a >> 32) << off; // < 2^63, < 2^53
    const std::int64_t sign = m < 0 ? -1 : 1;
    d_[at] += sign * std::int64_t(lo & kMask);
    d_[at + 1] += sign * std::int64_t((lo >> 32) + (hi & kMask));
    d_[at + 2] += sign * std::int64_t(hi >> 32);
    if (++adds_ == (1 << 28)) normalize(); // each add moves a word by < 2^34
  }
  /// The sum over every rank of `comm` (the same on every rank and for every rank count).
  double total(const Communicator& comm) {
    normalize();
    if (comm.size() > 1) {
      MPI_Allreduce(MPI_IN_PLACE, d_.data(), kWords, MPI_INT64_T, MPI_SUM, comm.raw());
      special_ = comm.sum(special_);
      normalize();
    }
    if (special_ != 0 || std::isnan(special_)) return special_;
    // A negative sum has a negative top word over positive ones: its magnitude, in words that are
    // all in [0, 2^32), is summed from the top (one representation per value: one result).
    const bool negative = d_[kWords - 1] < 0;
    if (negative) {
      for (std::int64_t& w : d_) w = -w;
      normalize();
    }
    double r = 0;
    for (int i = kWords - 1; i >= 0; --i) r += std::ldexp(double(d_[i]), 32 * i - kBias);
    return negative ? -r : r;
  }

private:
  static constexpr int kBias = 1074 + 53;                     // the least significant bit of a subnormal at bit 1
  static constexpr int kWords = (kBias + 1024 + 64) / 32 + 3; // room for the largest double and the carries
  static constexpr std::uint64_t kMask = 0xffffffffULL;
  /// Words to [0, 2^32) (the top one keeps the sign): one representation per value.
  void normalize() {
    for (int i = 0; i + 1 < kWords; ++i) {
      const std::int64_t carry = d_[i] >= 0 ? d_[i] >> 32 : -((-d_[i] + std::int64_t(kMask)) >> 32);
      d_[i] -= carry * (std::int64_t(1) << 32);
      d_[i + 1] += carry;
    }
    adds_ = 0;
  }
  std::vector<std::int64_t> d_ = std::vector<std::int64_t>(kWords, 0);
  double special_ = 0;
  int adds_ = 0;
};

struct Volume {
  ConstView1<real> V;
  KOKKOS_FUNCTION void operator()(const index_t c, double& s) const { s += V(c); }
};

} // namespace

std::vector<ErrorNorms> error_norms(const Mesh& m, ConstView2<real> u, const ScalarSolution& exact, real t,
                                    const Communicator& comm) {
  const Kokkos::RangePolicy<ExecSpace> cells(0, m.n_cells);
  double volume = 0;
  Kokkos::parallel_reduce("fvproxy::solver::total_volume", cells, Volume{m.volume}, volume);
  volume = comm.sum(volume);
  std::vector<ErrorNorms> out(u.extent(1));
  for (int k = 0; k < int(u.extent(1)); ++k) {
    const CellError e{m.centroid, m.volume, u, exact, t, k};
    double l1 = 0, l2 = 0, linf = 0;
    Kokkos::parallel_reduce("fvproxy::solver::error_norms", cells, L1Sum{e}, l1);
    Kokkos::parallel_reduce("fvproxy::solver::error_norms", cells, L2Sum{e}, l2);
    Kokkos::parallel_reduce("fvproxy::solver::error_norms", cells, LinfMax{e}, Kokkos::Max<double>(linf));
    l1 = comm.sum(l1), l2 = comm.sum(l2), linf = comm.max(linf);
    out[k] = {l1 / volume, std::sqrt(l2 / volume), linf};
  }
  return out;
}

std::vector<double> conserved_totals(const Mesh& m, ConstView2<real> u, const Communicator& comm) {
  // The per-cell terms on the device, their sum exact on the host (ExactSum): the same total,
  // bitwise, for every partition and rank count (it is stored in checkpoints).
  const int nk = static_cast<int>(u.extent(1));
  std::vector<double> out(nk);
  View1<double> terms(Kokkos::ViewAllocateWithoutInitializing("fvproxy::solver::conservation_terms"), m.n_cells);
  auto host = Kokkos::create_mirror_view(terms);
  for (int k = 0; k < nk; ++k) {
    Kokkos::parallel_for("fvproxy::solver::conservation", Kokkos::RangePolicy<ExecSpace>(0, m.n_cells),
                         WeightedTerm{m.volume, u, k, terms});
    Kokkos::deep_copy(host, terms);
    ExactSum sum;
    for (index_t c = 0; c < m.n_cells; ++c) sum.add(host(c));
    out[k] = sum.total(comm);
  }
  return out;
}

std::pair<std::vector<real>, std::vector<real>> domain_bounds(const Mesh& m, ConstView2<real> u, ConstView2<real> ub,
                                                              const Communicator& comm) {
  auto b = value_bounds(u, ub, m.n_cells);
  if (comm.size() > 1) {
    std::vector<double> lo(b.first.begin(), b.first.end()), hi(b.second.begin(), b.second.end());
    comm.min(lo);
    comm.max(hi);
    for (std::size_t k = 0; k < lo.size(); ++k)
      b.first[k] = static_cast<real>(lo[k]), b.second[k] = static_cast<real>(hi[k]);
  }
  return b;
}

} // namespace fvproxy
