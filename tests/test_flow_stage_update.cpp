// The flow models' fused stage update (operators/flow/flow_stage_update.hpp): u, u^n, the zeroed rate
// and the next stage's cell fields W = (rho, u, v, w, p) and (u, v, w, T) equal, value for value, the
// passes it replaces (the scalar model's stage_update, the zero fill, flow_primitive_state's and
// flow_primitive_fields' cell rows), for the first stage and the blended ones, with and without each
// field, on the owned rows of a mesh with ghost rows after them.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "operator_fixture.hpp"
#include "operators/flow/flow_stage_update.hpp"
#include "operators/flow/flow_viscous.hpp"
#include "solver/time_step.hpp"
#include "test_helpers.hpp"

namespace fvproxy {
namespace {

constexpr int NV = flow::kVariables;
using HostOut = test::HostView2;

View2<real> copy(const View2<real>& v, const std::string& name) {
  View2<real> c(name, v.extent(0), v.extent(1));
  Kokkos::deep_copy(c, v);
  return c;
}

/// max |a - b| over the first `rows` rows (every row when rows < 0).
double max_diff(const View2<real>& a, const View2<real>& b, index_t rows = -1) {
  const HostOut x = test::host_copy(a), y = test::host_copy(b);
  const index_t n = rows < 0 ? index_t(x.extent(0)) : rows;
  double d = 0;
  for (index_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < x.extent(1); ++k) d = std::max(d, std::abs(double(x(i, k)) - double(y(i, k))));
  return d;
}

TEST(FlowStageUpdate, EqualsTheUpdateZeroFillAndDerivedFields) {
  const Mesh m = upload(test::box_mesh(ElementKind::tet, {false, false, false}, 0.15, Ordering::zorder));
  const index_t rows = m.n_cells - 17; // rows after it play the ghosts: left alone
  flow::IdealGas gas;
  gas.gas_constant = 1.3;
  View2<real> u("fvproxy::test::u", m.n_cells, NV), un("fvproxy::test::un", m.n_cells, NV),
      rhs("fvproxy::test::rhs", m.n_cells, NV);
  test::fill_flow_state(m, u, 0.3);
  test::fill_flow_state(m, un, 0.1);
  {
    auto h = Kokkos::create_mirror_view(rhs);
    for (index_t c = 0; c < m.n_cells; ++c)
      for (int k = 0; k < NV; ++k) h(c, k) = real(0.3 * std::sin(0.7 * c + k) - 0.1);
    Kokkos::deep_copy(rhs, h);
  }
  const StateCheck sc(std::vector<real>(NV, 0), std::vector<real>(NV, 0));
  for (const double a : {0.0, 0.75, 1.0 / 3.0})
    for (const auto& [with_w, with_wv] :
         {std::pair{true, true}, std::pair{true, false}, std::pair{false, true}, std::pair{false, false}}) {
      SCOPED_TRACE("a = " + std::to_string(a) + (with_w ? ", W" : "") + (with_wv ? ", (u, v, w, T)" : ""));
      const real ar = real(a), dt = real(0.013);
      // the passes it replaces
      View2<real> ru = copy(u, "fvproxy::test::ref_u"), run = copy(un, "fvproxy::test::ref_un");
      stage_update(run, ru, rhs, ar, dt, false, 0, sc, rows);
      View2<real> rw("fvproxy::test::ref_w", m.n_cells, NV), rwv("fvproxy::test::ref_wv", m.n_cells, 4);
      View2<real> wb("fvproxy::test::wb", m.n_faces - m.n_interior, NV),
          wvb("fvproxy::test::wvb", m.n_faces - m.n_interior, 4);
      std::vector<FlowPatchBC> bcs(m.patches.size()); // slip walls: the boundary rows are not compared
      flow_primitive_state(m, gas, bcs, ru, rw, wb, Rows::owned);
      flow_primitive_fields(m, gas, bcs, ru, rwv, wvb, Rows::owned);
      // the fused update
      View2<real> gu = copy(u, "fvproxy::test::u"), gun = copy(un, "fvproxy::test::un"),
                  grhs = copy(rhs, "fvproxy::test::rhs");
      View2<real> gw("fvproxy::test::w", m.n_cells, NV), gwv("fvproxy::test::wv", m.n_cells, 4);
      flow_stage_update(gas, gun, gu, grhs, ar, dt, with_w ? gw : View2<real>(), with_wv ? gwv : View2<real>(), rows);
      EXPECT_EQ(max_diff(gu, ru), 0.0); // every row: the ghost rows untouched by both
      EXPECT_EQ(max_diff(gun, run), 0.0);
      const HostOut hr = test::host_copy(grhs), r0 = test::host_copy(rhs);
      double zero = 0, kept = 0; // max |rhs| over the owned rows; max |rhs - rhs before| over the others
      for (index_t c = 0; c < m.n_cells; ++c)
        for (int k = 0; k < NV; ++k) {
          if (c < rows)
            zero = std::max(zero, std::abs(double(hr(c, k))));
          else
            kept = std::max(kept, std::abs(double(hr(c, k) - r0(c, k))));
        }
      EXPECT_EQ(zero, 0.0) << "the owned rows' rate is zeroed for the next stage";
      EXPECT_EQ(kept, 0.0) << "the ghost rows' rate is not touched";
      if (with_w) {
        EXPECT_EQ(max_diff(gw, rw, rows), 0.0);
      }
      if (with_wv) {
        EXPECT_EQ(max_diff(gwv, rwv, rows), 0.0);
      }
    }
}

} // namespace
} // namespace fvproxy
