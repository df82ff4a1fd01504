// Operator infrastructure: launch policies, component dispatch, precomputed operator geometry.
#include <cmath>

#include "mesh/box_generator.hpp"
#include "mesh/gmsh_reader.hpp"
#include "operators/component_dispatch.hpp"
#include "operators/convection/convection_kernels.hpp"
#include "operators/diffusion/diffusion_kernels.hpp"
#include "operators/launch.hpp"
#include "operators/operator_geometry.hpp"
#include "test_helpers.hpp"

namespace fvproxy {

/// Counts visits per entity (a named functor, as the operators' kernels are).
struct CountVisits {
  View1<int> count;
  KOKKOS_INLINE_FUNCTION void operator()(const index_t i) const { Kokkos::atomic_add(&count(i), 1); }
};

template <int N> struct MakeTag {
  static int make(int x) { return 100 * N + x; }
};

namespace {

TEST(Launch, EveryEntityOnceUnderEveryPolicy) {
  for (const index_t n : {1, 31, 1000, 4099}) {
    for (const LaunchOptions opt : {LaunchOptions{Policy::range, 128}, LaunchOptions{Policy::team, 32},
                                    LaunchOptions{Policy::team, 128}, LaunchOptions{Policy::team, 1024}}) {
      View1<int> count("fvproxy::test::count", n);
      launch("fvproxy::test::count_visits", n, opt, CountVisits{count});
      auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), count);
      for (index_t i = 0; i < n; ++i)
        ASSERT_EQ(h(i), 1) << "n " << n << " policy " << to_string(opt.policy) << " i " << i;
    }
  }
  // Backend-aware: the team size never exceeds what the backend allows (an OpenMP team of 1024
  // would abort), and equals the request where it fits.
  const int t = effective_team_size(LaunchOptions{Policy::team, 1024}, CountVisits{});
  EXPECT_GE(t, 1);
  EXPECT_LE(t, 1024);
}

TEST(ComponentDispatch, ListedCountsOnly) {
  for (int n : component_list()) EXPECT_EQ(dispatch_components<MakeTag>(n, 7), 100 * n + 7);
  test::expect_input_error([] { dispatch_components<MakeTag>(7, 0); },
                           {"physics.components", "7 is not among this build's component counts {1, 2, 3, 4, 5, 8}"});
}

HostMesh box(ElementKind e, std::array<bool, 3> periodic, double perturb) {
  BoxConfig b;
  b.cells = {5, 4, 6};
  b.element = e;
  b.lengths = {1.0, 0.8, 1.2};
  b.periodic = periodic;
  b.perturb = perturb;
  return generate_box(b);
}

void check_geometry_coefficients(const HostMesh& h, bool uniform) {
  const Mesh m = upload(h);
  const OperatorGeometry g = make_operator_geometry(m);
  auto C = Kokkos::create_mirror_view_and_copy(HostSpace(), m.centroid);
  auto F = Kokkos::create_mirror_view_and_copy(HostSpace(), m.face_centroid);
  auto S = Kokkos::create_mirror_view_and_copy(HostSpace(), m.face_area);
  auto d = Kokkos::create_mirror_view_and_copy(HostSpace(), g.d);
  auto r = Kokkos::create_mirror_view_and_copy(HostSpace(), g.r);
  auto w = Kokkos::create_mirror_view_and_copy(HostSpace(), g.gg_weight);
  auto alpha = Kokkos::create_mirror_view_and_copy(HostSpace(), g.diff_alpha);
  auto k = Kokkos::create_mirror_view_and_copy(HostSpace(), g.diff_k);
  auto inv = Kokkos::create_mirror_view_and_copy(HostSpace(), g.lsq_inverse);
  auto ginv = Kokkos::create_mirror_view_and_copy(HostSpace(), g.gg_inverse);
  auto V = Kokkos::create_mirror_view_and_copy(HostSpace(), m.volume);
  for (index_t f = 0; f < h.n_faces(); ++f) {
    const index_t o = h.face_owner[f];
    for (int i = 0; i < 3; ++i) {
      ASSERT_NEAR(r(f, i), F(f, i) - C(o, i), test::tol(1e-15));
      const double di = f < h.n_interior ? d(f, i) : r(f, i);
      ASSERT_NEAR(alpha(f) * di + k(f, i), S(f, i), test::tol(1e-14)); // S = alpha d + k
    }
    if (f < h.n_interior) {
      const auto& t = h.shifts[h.face_shift[f]];
      for (int i = 0; i < 3; ++i) ASSERT_NEAR(d(f, i), C(h.face_neighbour[f], i) + t[i] - C(o, i), test::tol(1e-14));
      if (uniform) {
        ASSERT_NEAR(w(f), 0.5, test::tol(1e-12));
      }
      ASSERT_GT(w(f), 0);
      ASSERT_LT(w(f), 1);
    }
  }
  // The least-squares gradient (unit weights) and the corrected Green-Gauss gradient from these
  // coefficients are exact on a linear field u = a . x; on a uniform mesh G_c^{-1} = I / V_c.
  const double a[3] = {0.3, -1.7, 2.2};
  auto u = [&](const double* x) { return a[0] * x[0] + a[1] * x[1] + a[2] * x[2] + 4; };
  for (index_t c = 0; c < h.n_cells(); ++c) {
    double b[3] = {0, 0, 0}, s[3] = {0, 0, 0};
    const double xc[3] = {C(c, 0), C(c, 1), C(c, 2)};
    for (index_t q = h.cell_face_off[c]; q < h.cell_face_off[c + 1]; ++q) {
      const index_t f = h.cell_faces[q];
      const double sg = h.cell_face_sign[q];
      double v[3];
      for (int i = 0; i < 3; ++i) v[i] = f < h.n_interior ? sg * d(f, i) : r(f, i);
      const double xn[3] = {xc[0] + v[0], xc[1] + v[1], xc[2] + v[2]};
      for (int i = 0; i < 3; ++i) b[i] += v[i] * (u(xn) - u(xc));
      // Green-Gauss face value: w u_P + (1 - w) u_N (the owner's weight), u_b on boundary faces
      double uf = u(xn);
      if (f < h.n_interior) {
        const double wc = sg > 0 ? w(f) : 1 - w(f);
        uf = wc * u(xc) + (1 - wc) * u(xn);
      }
      for (int i = 0; i < 3; ++i) s[i] += sg * uf * S(f, i);
    }
    for (int i = 0; i < 3; ++i) {
      double gi = 0, gg = 0;
      for (int j = 0; j < 3; ++j) gi += inv(c, sym_index(i, j)) * b[j], gg += ginv(c, 3 * i + j) * s[j];
      ASSERT_NEAR(gi, a[i], test::tol(1e-10)) << "cell " << c << " component " << i;
      ASSERT_NEAR(gg, a[i], test::tol(1e-10)) << "Green-Gauss, cell " << c << " component " << i;
      if (uniform) {
        for (int j = 0; j < 3; ++j) {
          ASSERT_NEAR(ginv(c, 3 * i + j) * V(c), i == j ? 1.0 : 0.0, test::tol(1e-12)) << "cell " << c;
        }
      }
    }
  }
}

TEST(OperatorGeometry, CoefficientsAndExactLeastSquares) {
  {
    SCOPED_TRACE("hex, regular, periodic x z");
    check_geometry_coefficients(box(ElementKind::hex, {true, false, true}, 0.0), true);
  }
  {
    SCOPED_TRACE("hex, jittered");
    check_geometry_coefficients(box(ElementKind::hex, {false, false, false}, 0.3), false);
  }
  {
    SCOPED_TRACE("tet, jittered, periodic");
    check_geometry_coefficients(box(ElementKind::tet, {true, true, true}, 0.2), false);
  }
  {
    SCOPED_TRACE("prism");
    check_geometry_coefficients(box(ElementKind::prism, {false, true, false}, 0.1), false);
  }
  {
    SCOPED_TRACE("gmsh sphere in box");
    check_geometry_coefficients(read_gmsh(test::source_path("mesh/sphere_in_box.msh")), false);
  }
}

} // namespace
} // namespace fvproxy

namespace fvproxy {
namespace contract_check {
// The model contracts of the shared kernels (docs/operators/flow.md#the-model-contract), checked at compile
// time: a model with every member passes; one member missing or mistyped fails.
struct TwoVars {
  static constexpr int n_vars = 2;
  struct State {
    real v[2];
  };
  using Face = real;
  KOKKOS_INLINE_FUNCTION Face face(index_t) const { return 1; }
  template <Reconstruction R> KOKKOS_INLINE_FUNCTION State state(const ConstView2<real>&, const ConstView2<real>&,
                                                                 const ConstView2<real>&, index_t,
                                                                 const real (&)[3]) const {
    return State{{0, 0}};
  }
  KOKKOS_INLINE_FUNCTION void flux(const Face&, const State&, const State&, real (&F)[2]) const { F[0] = F[1] = 0; }
};
struct NoFlux {
  static constexpr int n_vars = 2;
  struct State {
    real v[2];
  };
  using Face = real;
  Face face(index_t) const { return 1; }
  template <Reconstruction R> State state(const ConstView2<real>&, const ConstView2<real>&, const ConstView2<real>&,
                                          index_t, const real (&)[3]) const {
    return State{{0, 0}};
  }
};
struct WrongFace : TwoVars {
  int face(index_t) const { return 1; } // not Face
};
struct Separable {
  static constexpr int n_vars = 3;
  static constexpr bool separable = true;
  using Face = real;
  Face face(index_t) const { return 1; }
  template <Reconstruction R> real value(const ConstView2<real>&, const ConstView2<real>&, const ConstView2<real>&,
                                         index_t, int, const real (&)[3]) const {
    return 0;
  }
  real flux(const Face&, real, real) const { return 0; }
};
struct NotSeparable : Separable {
  static constexpr bool separable = false; // and no whole-state members either
};
static_assert(is_separable_convection<Separable> && is_convection_model<Separable>);
static_assert(!is_convection_model<NotSeparable>);
static_assert(!is_separable_convection<TwoVars>);
static_assert(is_convection_model<TwoVars>);
static_assert(!is_convection_model<NoFlux>);
static_assert(!is_convection_model<WrongFace>);
static_assert(!is_convection_model<int>);

struct Heat {
  static constexpr int first = 0, n_vars = 1;
  KOKKOS_INLINE_FUNCTION void interior(index_t, real (&F)[1]) const { F[0] = 0; }
  KOKKOS_INLINE_FUNCTION real scale(int) const { return 1; }
};
struct NoScale {
  static constexpr int first = 0, n_vars = 1;
  void interior(index_t, real (&F)[1]) const { F[0] = 0; }
};
struct EmptyRange : Heat {
  static constexpr int first = 1; // writes no equation
};
static_assert(is_diffusion_model<Heat>);
static_assert(!is_diffusion_model<NoScale>);
static_assert(!is_diffusion_model<EmptyRange>);
} // namespace contract_check
} // namespace fvproxy
