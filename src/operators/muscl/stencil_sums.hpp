#pragma once
// The corners stencil's pre-pass (docs/operators/muscl.md#stencil): the few cells with extra entries
// (where two mirror planes meet: ~70 entries each) have them summed by a team of threads per cell
// before the cell pass, which then adds one row per such cell instead of walking the entries one by
// one on one thread — a walk that kept its whole block (the fused and paired kernels hold 150+
// registers per thread) on the SM for ~70 dependent loads, +7 % of a navier-stokes step for 0.07 % of
// the cells (perf/results/2026-11-30-corners-stencil).
//
// Row r (cell cells(r)): the least-squares sums sum_q dx_q,i (v_q,k - uc_k) at 3 k + i, then each
// component's smallest value at 3 N + k and largest at 4 N + k. 32 lanes each sum every 32nd entry
// in order and their partial rows are combined in lane order, on a GPU's team of 32 threads as on a
// host backend's team of one: the same arithmetic on every backend, thread count and rank count (the
// entries are ordered by global id). Against walking the entries in the cell pass it changes the
// sums' rounding only (the sum of the entries is added to the face terms' sum).
#include <algorithm>
#include <string>

#include <Kokkos_Core.hpp>

#include "core/types.hpp"
#include "operators/muscl/gradient_optimized.hpp"
#include "operators/part.hpp"
#include "operators/vertex_stencil.hpp"

namespace fvproxy {

namespace optimized {

/// The pre-pass: one team per cell of rows [first, first + league size). The entries are split over
/// kLanes lanes (lane l sums q = off + l, off + l + kLanes, ... in order) whatever the team size, and
/// the lanes' partial rows are combined in lane order: the same arithmetic on a GPU's team of kLanes
/// threads (a lane each) as on a host backend's team of one (every lane in turn).
template <int N, class V> struct StencilSums {
  static constexpr int kWidth = 5 * N; ///< a row: 3 N sums, N minima, N maxima
  static constexpr int kLanes = 32;
  using Team = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Team::member_type;
  using Scratch = Kokkos::View<real**, Kokkos::LayoutRight, typename ExecSpace::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  GradientGeometry g; ///< walks the entries (its s_sums has no rows)
  V values;
  ConstView1<index_t> cells;
  View2<real> sums;
  index_t first;

  static std::size_t scratch_bytes() { return Scratch::shmem_size(kLanes, kWidth); }

  /// Lane l's partial row of cell c (centroid values uc) into part(l, :).
  KOKKOS_FUNCTION void lane(index_t c, const real (&uc)[N], int l, const Scratch& part) const {
    real acc[N][3], lo[N], hi[N];
    for (int k = 0; k < N; ++k) {
      acc[k][0] = acc[k][1] = acc[k][2] = 0;
      lo[k] = Kokkos::reduction_identity<real>::min();
      hi[k] = Kokkos::reduction_identity<real>::max();
    }
    const index_t img = g.s_img(c), end = g.s_off(c + 1);
    for (index_t q = g.s_off(c) + l; q < end; q += kLanes) {
      real dx[3], v[N];
      if (q < img)
        plain_entry<N>(g, values, c, q, dx, v);
      else
        image_entry<N>(g, values, c, q, dx, v);
      for (int k = 0; k < N; ++k) {
        lo[k] = v[k] < lo[k] ? v[k] : lo[k];
        hi[k] = v[k] > hi[k] ? v[k] : hi[k];
        const real du = v[k] - uc[k];
        for (int i = 0; i < 3; ++i) acc[k][i] += dx[i] * du;
      }
    }
    for (int k = 0; k < N; ++k) {
      for (int i = 0; i < 3; ++i) part(l, 3 * k + i) = acc[k][i];
      part(l, 3 * N + k) = lo[k];
      part(l, 4 * N + k) = hi[k];
    }
  }

  KOKKOS_FUNCTION void operator()(const Member& m) const {
    const index_t r = first + m.league_rank(), c = cells(r);
    real uc[N];
    for (int k = 0; k < N; ++k) uc[k] = values.cell(c, k);
    const Scratch part(m.team_scratch(0), kLanes, kWidth);
    for (int l = m.team_rank(); l < kLanes; l += m.team_size()) lane(c, uc, l, part);
    m.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, kWidth), [&](const int j) {
      real x = part(0, j);
      for (int l = 1; l < kLanes; ++l) {
        const real y = part(l, j);
        x = j < 3 * N ? x + y : j < 4 * N ? (y < x ? y : x) : (y > x ? y : x);
      }
      sums(r, j) = x;
    });
  }
};

} // namespace optimized

/// An operator's pre-pass: its rows (N components: the cell pass's values) and each part's range of
/// them. Inactive (no rows, nothing launched) unless the stencil is corners with cells with entries.
template <int N> class StencilPrepass {
public:
  StencilPrepass() = default;
  StencilPrepass(const VertexStencil& s, const PartRanges& parts) : cells_(s.cells) {
    if (!s.corners || s.host_cells.empty()) return;
    sums_ = View2<real>("fvproxy::muscl::stencil_sums", s.host_cells.size(), 5 * N);
    for (const Part p : {Part::all, Part::inner, Part::frontier, Part::layer1}) {
      const IndexRange c = parts.cells(p);
      const auto at = [&](index_t x) {
        return static_cast<index_t>(std::lower_bound(s.host_cells.begin(), s.host_cells.end(), x) -
                                    s.host_cells.begin());
      };
      rows_[static_cast<int>(p)] = {at(c.begin), at(c.end)};
    }
  }

  bool active() const { return sums_.extent(0) > 0; }

  /// g with the pre-pass's rows for the cell pass to read (g itself when inactive).
  optimized::GradientGeometry reading(optimized::GradientGeometry g) const {
    g.s_sums = sums_;
    return g;
  }

  /// Sums the entries of `part`'s cells with entries from `values` (the cell pass's, before it runs).
  /// `g`: the operator's geometry without the rows.
  template <class V> void run(const optimized::GradientGeometry& g, const V& values, Part part) const {
    if (!active()) return;
    const IndexRange r = rows_[static_cast<int>(part)];
    if (r.size() <= 0) return;
    using F = optimized::StencilSums<N, V>;
    using Team = typename F::Team;
    const int T = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible
                      ? 1
                      : F::kLanes; // a team of one on host backends (their team threads would wait on each other)
    Kokkos::parallel_for("fvproxy::muscl::stencil_sums",
                         Team(static_cast<int>(r.size()), T).set_scratch_size(0, Kokkos::PerTeam(F::scratch_bytes())),
                         F{g, values, cells_, sums_, r.begin});
  }

  /// For descriptions: ", entries summed by a team per cell first" when active, else "".
  std::string note() const { return active() ? ", entries summed by a team per cell first" : ""; }

private:
  ConstView1<index_t> cells_;
  View2<real> sums_;
  IndexRange rows_[4];
};

} // namespace fvproxy
