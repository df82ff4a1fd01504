#pragma once
// Launching an entity loop under the policy an optimized operator's options choose (docs/architecture.md:
// the launch policy can cost 2x in either direction, so it is a measured option, never a dogma).
//   range: RangePolicy over [0, n), one entity per work item;
//   team:  TeamPolicy of ceil(n / team_size) teams, one entity per thread of a team.
// Backend-aware: on host backends a team cannot be larger than the backend allows (an OpenMP
// TeamPolicy of 128 aborts), so the team size is clamped to the policy's maximum for the functor.
#include <algorithm>
#include <string>
#include <type_traits>

#include "core/types.hpp"
#include "operators/operator_options.hpp"
#include "operators/part.hpp"

namespace fvproxy {

struct LaunchOptions {
  Policy policy = Policy::range;
  int team_size = 128;
};

namespace detail {
/// A functor's launch bounds under the range policy: `F::launch_bounds` (a Kokkos::LaunchBounds<threads,
/// blocks per SM>) where it declares one, which caps its registers per thread (65536 / (threads x
/// blocks) on an SM of 64K registers; ptxas spills rather than exceed it: the ptxas gate checks); else
/// none. Team launches take none (their loop's indexing needs registers of its own).
template <class F, class = void> struct LaunchBoundsOf { using type = Kokkos::LaunchBounds<>; };
template <class F> struct LaunchBoundsOf<F, std::void_t<typename F::launch_bounds>> {
  using type = typename F::launch_bounds;
};

/// One entity per thread of a team: entity = begin + league_rank * team_size + team_rank.
template <class F> struct TeamLoop {
  using Team = Kokkos::TeamPolicy<ExecSpace>;
  F f;
  index_t begin, end;
  int size;
  KOKKOS_INLINE_FUNCTION void operator()(const typename Team::member_type& m) const {
    const index_t i = begin + static_cast<index_t>(m.league_rank()) * size + m.team_rank();
    if (i < end) f(i);
  }
};
} // namespace detail

/// The team size `launch` uses for `f` with `opt`: the request, clamped to what this backend
/// allows for the functor.
template <class F> int effective_team_size(const LaunchOptions& opt, const F& f) {
  using Team = Kokkos::TeamPolicy<ExecSpace>;
  const int max = Team(1, Kokkos::AUTO).team_size_max(detail::TeamLoop<F>{f, 0, 1, 1}, Kokkos::ParallelForTag());
  return std::max(1, std::min(opt.team_size, max));
}

/// Runs f(i) for every i in [r.begin, r.end) under `opt`. `F` is a functor class (named kernels:
/// ptxas' report demangles to it); `label` follows "fvproxy::<component>::<name>".
template <class F> void launch(const std::string& label, IndexRange r, const LaunchOptions& opt, const F& f) {
  const index_t n = r.size();
  if (n <= 0) return;
  // Light-weight launches: on CUDA the functor goes as a kernel argument (up to 4 KB), not through
  // Kokkos' one constant-memory buffer, whose reuse makes the host wait for the previous such
  // kernel (functors of 512 B or more: every flow kernel) and serializes launches on two streams.
  const auto light = Kokkos::Experimental::WorkItemProperty::HintLightWeight;
  if (opt.policy == Policy::range) {
    Kokkos::parallel_for(
        label,
        Kokkos::Experimental::require(
            Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>, typename detail::LaunchBoundsOf<F>::type>(
                r.begin, r.end),
            light),
        f);
    return;
  }
  const int size = effective_team_size(opt, f);
  const int league = static_cast<int>((static_cast<long long>(n) + size - 1) / size);
  Kokkos::parallel_for(label, Kokkos::Experimental::require(Kokkos::TeamPolicy<ExecSpace>(league, size), light),
                       detail::TeamLoop<F>{f, r.begin, r.end, size});
}
/// The same for [0, n).
template <class F> void launch(const std::string& label, index_t n, const LaunchOptions& opt, const F& f) {
  launch(label, IndexRange{0, n}, opt, f);
}

/// Launch options for streaming kernels (one contiguous read or write per element, little work):
/// on CUDA a TeamPolicy of 256. Kokkos 3.4's RangePolicy deduces the block size as the smallest one
/// reaching full theoretical occupancy — 64 threads for a light kernel — and the H200 then runs
/// those tiny blocks at 27% achieved occupancy: a copy kernel reaches 1.7 TB/s against 3.6 TB/s
/// with 256-thread teams and 4.0 TB/s for deep_copy (ncu, docs/performance.md). Host backends keep
/// the RangePolicy (their TeamPolicy is much slower there).
inline LaunchOptions streaming_launch() {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) return {Policy::team, 256};
#endif
  return {Policy::range, 256};
}

namespace detail {
struct FillFunctor {
  View2<real> v;
  real x;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t i) const { v.data()[i] = x; }
};
} // namespace detail

/// v = x everywhere, as a labelled streaming kernel (v contiguous: fvproxy's View2 is unpadded).
inline void fill(const std::string& label, View2<real> v, real x) {
  launch(label, static_cast<index_t>(v.extent(0) * v.extent(1)), streaming_launch(), detail::FillFunctor{v, x});
}

} // namespace fvproxy
