#pragma once
// Host threads for building meshes: loops and sorts on Kokkos::DefaultHostExecutionSpace (OpenMP
// in the host and cuda presets, Serial otherwise), with results that do not depend on the number
// of threads: every parallel loop writes each output once, at a place fixed by the input, and the
// sorts give exactly std::sort's (for a strict total order) or std::stable_sort's result.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <Kokkos_Core.hpp>

namespace fvproxy::host {

/// 0, or the number of threads the sorts and scans divide their work for (a test hook: any
/// number, whatever the host execution space runs; 1 gives the serial algorithms).
inline int& threads_override() {
  static int n = 0;
  return n;
}

/// Threads of the host execution space (or the override).
inline int threads() {
  return threads_override() > 0 ? threads_override() : Kokkos::DefaultHostExecutionSpace::concurrency();
}

/// f(i) for i in [0, n) on the host threads (`label`: fvproxy::mesh::...).
template <class F> void parallel_for(const char* label, std::int64_t n, const F& f) {
  if (n <= 0) return;
  if (threads() == 1 || n < 2048) {
    for (std::int64_t i = 0; i < n; ++i) f(i);
    return;
  }
  Kokkos::parallel_for(label,
                       Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<std::int64_t>>(0, n),
                       [&](const std::int64_t i) { f(i); });
  Kokkos::DefaultHostExecutionSpace().fence();
}

/// Runs body(t, begin, end) for `parts` contiguous pieces of [0, n), one per task.
template <class F> void for_pieces(const char* label, std::int64_t n, int parts, const F& body) {
  if (parts <= 1) {
    body(0, std::int64_t(0), n);
    return;
  }
  Kokkos::parallel_for(label, Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, parts),
                       [&](const int t) { body(t, n * t / parts, n * (t + 1) / parts); });
  Kokkos::DefaultHostExecutionSpace().fence();
}

/// Exclusive prefix sum in place: v[i] = sum of the old v[0..i); returns the total.
template <class T> T exclusive_scan(std::vector<T>& v) {
  const std::int64_t n = std::int64_t(v.size());
  const int parts = n < (1 << 16) ? 1 : threads();
  std::vector<T> sums(std::size_t(parts) + 1, T(0));
  for_pieces("fvproxy::mesh::scan_sums", n, parts, [&](int t, std::int64_t b, std::int64_t e) {
    T s = 0;
    for (std::int64_t i = b; i < e; ++i) s += v[i];
    sums[t + 1] = s;
  });
  for (int t = 0; t < parts; ++t) sums[t + 1] += sums[t];
  for_pieces("fvproxy::mesh::scan", n, parts, [&](int t, std::int64_t b, std::int64_t e) {
    T s = sums[t];
    for (std::int64_t i = b; i < e; ++i) {
      const T x = v[i];
      v[i] = s;
      s += x;
    }
  });
  return sums[parts];
}

namespace detail {

/// How many of the first `i` outputs of the stable merge of a (na) and b (nb) come from a.
template <class It, class Less>
std::int64_t co_rank(std::int64_t i, It a, std::int64_t na, It b, std::int64_t nb, const Less& less) {
  std::int64_t lo = std::max<std::int64_t>(0, i - nb), hi = std::min(i, na);
  while (lo < hi) {
    const std::int64_t j = lo + (hi - lo) / 2, k = i - j;
    // a[j] goes before b[k-1] unless b[k-1] < a[j]: then j is too small.
    if (k > 0 && j < na && !less(b[k - 1], a[j]))
      lo = j + 1;
    else
      hi = j;
  }
  return lo;
}

} // namespace detail

/// Merges the sorted runs [bound[p], bound[p + 1]) of `v` (bound: the runs' limits, from 0 to
/// v.size()) into one sorted vector with `less`, on the host threads: pairs of neighbouring runs in
/// rounds, each merge split over the threads along its merge path. Stable: ties keep their run's
/// order, then their order within it. Needs a buffer of v's size.
template <class T, class Less>
void merge_runs(std::vector<T>& v, std::vector<std::int64_t> bound, const Less& less, const char* label) {
  const int T_ = threads();
  std::vector<T> buf(v.size());
  std::vector<T>* src = &v;
  std::vector<T>* dst = &buf;
  while (bound.size() > 2) {
    // Runs 2q and 2q+1 into one, each merge cut into `split` equal slices of its output; an odd last
    // run is copied.
    const int runs = int(bound.size()) - 1, pairs = (runs + 1) / 2, split = std::max(1, T_ / pairs);
    for_pieces(label, std::int64_t(pairs) * split, pairs * split, [&](int task, std::int64_t, std::int64_t) {
      const int pair = task / split, s = task % split;
      const std::int64_t a0 = bound[2 * pair], a1 = bound[std::min(2 * pair + 1, runs)],
                         b1 = bound[std::min(2 * pair + 2, runs)];
      const auto a = src->begin() + a0, b = src->begin() + a1;
      const std::int64_t na = a1 - a0, nb = b1 - a1, total = na + nb;
      const std::int64_t o0 = total * s / split, o1 = total * (s + 1) / split;
      const std::int64_t j0 = detail::co_rank(o0, a, na, b, nb, less), j1 = detail::co_rank(o1, a, na, b, nb, less);
      std::merge(a + j0, a + j1, b + (o0 - j0), b + (o1 - j1), dst->begin() + a0 + o0, less);
    });
    std::vector<std::int64_t> next;
    for (std::size_t p = 0; p < bound.size(); p += 2) next.push_back(bound[p]);
    if (next.back() != bound.back()) next.push_back(bound.back());
    bound.swap(next);
    std::swap(src, dst);
  }
  if (src != &v) v.swap(*src);
}

/// Sorts `v` with `less` on the host threads: pieces sorted in parallel, then merged in rounds
/// (merge_runs). Stable (ties keep their order), so the result is std::stable_sort's, whatever the
/// number of threads; without a tie, std::sort's. Needs a buffer of v's size.
template <class T, class Less> void parallel_sort(std::vector<T>& v, const Less& less, const char* label) {
  const std::int64_t n = std::int64_t(v.size());
  const int T_ = threads();
  if (T_ == 1 || n < (1 << 15)) {
    std::stable_sort(v.begin(), v.end(), less);
    return;
  }
  int pieces = 1;
  while (pieces < T_) pieces *= 2;
  std::vector<std::int64_t> bound(std::size_t(pieces) + 1);
  for (int p = 0; p <= pieces; ++p) bound[p] = n * p / pieces;
  for_pieces(label, pieces, pieces, [&](int p, std::int64_t, std::int64_t) {
    std::stable_sort(v.begin() + bound[p], v.begin() + bound[p + 1], less);
  });
  merge_runs(v, std::move(bound), less, label);
}

} // namespace fvproxy::host
