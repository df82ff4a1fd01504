#include "solver/state.hpp"

namespace fvproxy {

namespace {
struct FillFromProfile {
  ConstVec3View<real> C;
  ScalarSolution s;
  real t;
  View2<real> u;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    const real x[3] = {C(c, 0), C(c, 1), C(c, 2)};
    for (int k = 0; k < s.components; ++k) u(c, k) = s(k, x, t);
  }
};
} // namespace

void fill_from_profile(const Mesh& m, const ScalarSolution& s, real t, View2<real> u) {
  Kokkos::parallel_for("fvproxy::solver::fill_from_profile", Kokkos::RangePolicy<ExecSpace>(0, m.n_cells),
                       FillFromProfile{m.centroid, s, t, u});
}

} // namespace fvproxy
