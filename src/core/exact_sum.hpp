#pragma once
// The exact sum of doubles whatever their order and grouping (cell order, rank count): used where a
// total must be bitwise the same on any number of ranks (conserved totals in checkpoints, the
// domain's volume that the limiter reads). Host only. parallel/communicator.hpp's exact_total()
// sums one over the ranks.
#include <cmath>
#include <cstdint>
#include <vector>

namespace fvproxy {

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
  /// The digits and the non-finite part, normalized, for summing over ranks (words(): add them
  /// word by word, e.g. MPI_SUM on int64, then merged()).
  std::vector<std::int64_t>& words() {
    normalize();
    return d_;
  }
  double& special() { return special_; }
  /// After the words were replaced by a sum of several ExactSums' words.
  void merged() { normalize(); }
  /// The sum, rounded once: the same whatever the order of the adds.
  double total() {
    normalize();
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

} // namespace fvproxy
