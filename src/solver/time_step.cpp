#include "solver/time_step.hpp"

#include <limits>

#include "core/error.hpp"
#include "core/kokkos_compat.hpp"
#include "operators/launch.hpp"

namespace fvproxy {

std::vector<ShuOsherStage> shu_osher_stages(Integrator i) {
  switch (i) {
  case Integrator::euler: return {{0, 0}};
  case Integrator::ssprk2: return {{0, 0}, {0.5, 1}};
  case Integrator::ssprk3: return {{0, 0}, {0.75, 1}, {1.0 / 3, 0.5}};
  }
  return {};
}

namespace {

struct CflRate {
  ConstView1<index_t> off, faces;
  ConstView1<std::int8_t> sign;
  ConstView1<real> phi, alpha, inv_volume;
  real kappa;
  KOKKOS_FUNCTION void operator()(const index_t c, Kokkos::ValLocScalar<real, index_t>& best) const {
    real out = 0, diff = 0;
    for (index_t q = off(c); q < off(c + 1); ++q) {
      const index_t f = faces(q);
      const real flux = sign(q) * phi(f);
      out += flux > 0 ? flux : real(0);
      diff += kc::fabs(alpha(f));
    }
    const real rate = (out + kappa * diff) * inv_volume(c);
    if (rate > best.val) best.val = rate, best.loc = c;
  }
};

/// Blend = false: the first stage (a = 0): u^n is not read; when un is allocated (multi-stage
/// schemes) the stage saves u^n there as it reads it (no separate copy pass).
/// Zero: the rate is set to zero as it is read (the next stage's operators add to it: no zero fill).
template <bool Blend, bool Strided, bool Zero> struct StageUpdate {
  View2<real> un;
  ConstView2<real> rhs;
  View2<real> u;
  real a, b, dt;
  index_t n_cells;
  unsigned long long step_key;
  Kokkos::View<unsigned long long[2], MemSpace> keys;
  ConstView1<real> lo, hi;
  bool check, save;
  index_t stride;   ///< Strided: rows of the arrays (owned + ghost cells); n_cells owned rows updated
  View2<real> zero; ///< Zero: the rate itself, written (0) where it was read
  KOKKOS_FUNCTION void operator()(const index_t j) const {
    index_t i = j;
    if constexpr (Strided) {
      const index_t k = j / n_cells;
      i = k * stride + (j - k * n_cells);
    }
    real* x = u.data();
    const real old = x[i];
    real v = old + dt * rhs.data()[i];
    if constexpr (Blend)
      v = a * un.data()[i] + b * v;
    else if (save)
      un.data()[i] = old;
    x[i] = v;
    // The zero last, after every load: stored between the rate's load and u^n's (where it is read),
    // the kernel took 3.4-3.8x as long on an H100 for the same bytes; here it costs what the fill
    // it replaces did, one launch fewer per stage (perf/results/2026-12-07-coloured-faces).
    if constexpr (Zero) zero.data()[i] = 0;
    if (check) {
      const index_t k = j / n_cells;
      const bool finite = kc::isfinite(v);
      if (!finite || !(v >= lo(k) && v <= hi(k))) {
        const auto cell = static_cast<unsigned long long>(j - k * n_cells);
        Kokkos::atomic_fetch_min(&keys(finite ? 1 : 0), step_key | (cell << 3) | static_cast<unsigned long long>(k));
      }
    }
  }
};

} // namespace

StableStep cfl_time_step(const Mesh& m, const OperatorGeometry& g, ConstView1<real> phi, double kappa_max, double cfl) {
  Kokkos::ValLocScalar<real, index_t> best{0, -1};
  using MaxLoc = Kokkos::MaxLoc<real, index_t>;
  Kokkos::parallel_reduce("fvproxy::solver::cfl_rate", Kokkos::RangePolicy<ExecSpace>(0, m.n_cells),
                          CflRate{m.cell_face_off, m.cell_faces, m.cell_face_sign, phi, g.diff_alpha, m.inv_volume,
                                  static_cast<real>(kappa_max)},
                          MaxLoc(best));
  StableStep s;
  s.max_rate = best.val;
  if (best.loc >= 0) {
    auto gid = Kokkos::subview(m.cell_gid, best.loc);
    gid_t h = -1;
    Kokkos::deep_copy(h, gid);
    s.limiting_cell = h;
  }
  s.dt = best.val > 0 ? cfl / best.val : 0.0;
  return s;
}

StateCheck::StateCheck(const std::vector<real>& l, const std::vector<real>& h)
    : keys("fvproxy::solver::state_check_keys"), lo("fvproxy::solver::state_check_lo", l.size()),
      hi("fvproxy::solver::state_check_hi", h.size()) {
  auto hl = Kokkos::create_mirror_view(lo);
  auto hh = Kokkos::create_mirror_view(hi);
  for (std::size_t k = 0; k < l.size(); ++k) hl(k) = l[k], hh(k) = h[k];
  Kokkos::deep_copy(lo, hl);
  Kokkos::deep_copy(hi, hh);
  Kokkos::deep_copy(keys, kNoBadValue);
}

namespace {
template <bool Strided, bool Zero> void launch_stage_update(index_t total, View2<real> un, ConstView2<real> rhs,
                                                            View2<real> u, real a, real dt, index_t n_cells,
                                                            unsigned long long key, const StateCheck& sc, bool check,
                                                            bool save, index_t stride, View2<real> zero) {
  if (a == 0) // the first stage: u^n is written (when allocated), not read
    launch("fvproxy::solver::stage_update", total, streaming_launch(),
           StageUpdate<false, Strided, Zero>{un, rhs, u, a, 1 - a, dt, n_cells, key, sc.keys, sc.lo, sc.hi, check, save,
                                             stride, zero});
  else
    launch("fvproxy::solver::stage_update", total, streaming_launch(),
           StageUpdate<true, Strided, Zero>{un, rhs, u, a, 1 - a, dt, n_cells, key, sc.keys, sc.lo, sc.hi, check, false,
                                            stride, zero});
}
} // namespace

void stage_update(View2<real> un, View2<real> u, ConstView2<real> rhs, real a, real dt, bool check, long long step,
                  const StateCheck& sc, index_t rows, View2<real> zero_rate) {
  if (check && (sc.lo.extent(0) < u.extent(1) || sc.hi.extent(0) < u.extent(1)))
    throw RunError("fvproxy::solver::stage_update: bounds for " + std::to_string(sc.lo.extent(0)) + " of " +
                   std::to_string(u.extent(1)) + " components");
  if (!u.span_is_contiguous() || !rhs.span_is_contiguous() || (un.data() && !un.span_is_contiguous()))
    throw RunError("fvproxy::solver::stage_update: the state arrays must be contiguous");
  const bool zero = zero_rate.data() != nullptr;
  if (zero &&
      (zero_rate.data() != rhs.data() || zero_rate.extent(0) != rhs.extent(0) || zero_rate.extent(1) != rhs.extent(1)))
    throw RunError("fvproxy::solver::stage_update: zero_rate must be the rate itself");
  const auto stride = static_cast<index_t>(u.extent(0));
  const index_t n_cells = rows < 0 ? stride : rows;
  if (u.extent(0) * u.extent(1) > static_cast<std::size_t>(std::numeric_limits<index_t>::max()))
    throw RunError("fvproxy::solver::stage_update: cells x components exceeds 32-bit indices");
  const auto total = static_cast<index_t>(std::size_t(n_cells) * u.extent(1));
  static_assert(kMaxSteps <= (1LL << 28) - 1, "64 - 35 bits: keys stay ordered by step");
  const auto key = static_cast<unsigned long long>(step < kMaxSteps ? step : kMaxSteps) << 35;
  // A streaming kernel: launched as one (launch.hpp: streaming_launch).
  const bool save = un.data() != nullptr;
  // Ghost rows (a decomposed mesh) are not updated: the strided kernel skips them (and their rate,
  // which no operator writes, stays zero); one rank keeps the flat one.
  const bool strided = n_cells != stride;
  if (strided && zero)
    launch_stage_update<true, true>(total, un, rhs, u, a, dt, n_cells, key, sc, check, save, stride, zero_rate);
  else if (strided)
    launch_stage_update<true, false>(total, un, rhs, u, a, dt, n_cells, key, sc, check, save, stride, zero_rate);
  else if (zero)
    launch_stage_update<false, true>(total, un, rhs, u, a, dt, n_cells, key, sc, check, save, stride, zero_rate);
  else
    launch_stage_update<false, false>(total, un, rhs, u, a, dt, n_cells, key, sc, check, save, stride, zero_rate);
}

} // namespace fvproxy
