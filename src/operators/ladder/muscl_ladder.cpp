// The muscl operator's ablation ladder (operators/ladder/ladder.hpp): the gradient and the limiter
// from the naive port (step 0) to the optimized kernels (step 6), one mistake removed per step.
// The limiter is a gather from the start: step 5 (atomics -> gather) changes the gradient only.
#include <stdexcept>

#include "core/error.hpp"
#include "core/kokkos_compat.hpp"
#include "operators/ladder/ladder_common.hpp"
#include "operators/launch.hpp"
#include "operators/muscl/gradient_naive.hpp"
#include "physics/limiters.hpp"

namespace fvproxy {

namespace ladder {

enum class Method { green_gauss, least_squares };

/// 3x3 inverse by cofactors (as the naive finalize: det and one division per entry).
KOKKOS_INLINE_FUNCTION void invert3(const real (&m)[3][3], real (&inv)[3][3]) {
  const real det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                   m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                   m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const int a = (j + 1) % 3, b = (j + 2) % 3, p = (i + 1) % 3, q = (i + 2) % 3;
      inv[i][j] = (m[a][p] * m[b][q] - m[a][q] * m[b][p]) / det;
    }
}

// --- step 1: RangePolicy over faces / cells, the component loop inside the naive bodies -------
struct GradientScatter1 {
  naive::GradientScatter s;
  int n;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    for (int k = 0; k < n; ++k) s(f, k);
  }
};
struct GradientFinalize1 {
  naive::GradientFinalize s;
  int n;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    for (int k = 0; k < n; ++k) s(c, k);
  }
};

// --- step 2: compile-time N and 3-D (fixed arrays, loops unrolled); everything else as step 1 --
template <int N> struct GradientScatter2 {
  Geometry g;
  ConstView2<real> u, ub;
  View2<real> grad;
  int method; // 0 Green-Gauss, 1 least squares (run-time)
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    for (int k = 0; k < N; ++k) { // per component: geometry and values read again
      const index_t o = g.owner(f);
      real v[3];
      g.owner_to_other(f, v);
      if (f < g.n_interior) {
        const index_t n = g.neighbour(f);
        if (method == 0) {
          const real w = g.gg_weight(f);
          const real uf = w * u(o, k) + (1 - w) * u(n, k);
          for (int i = 0; i < 3; ++i) {
            if (o < g.n_owned) Kokkos::atomic_add(&grad(o, 3 * k + i), uf * g.S(f, i));
            if (n < g.n_owned) Kokkos::atomic_add(&grad(n, 3 * k + i), -uf * g.S(f, i));
          }
        } else {
          const real du = u(n, k) - u(o, k);
          for (int i = 0; i < 3; ++i) {
            const real c = v[i] * du;
            if (o < g.n_owned) Kokkos::atomic_add(&grad(o, 3 * k + i), c);
            if (n < g.n_owned) Kokkos::atomic_add(&grad(n, 3 * k + i), c);
          }
        }
      } else {
        const real b = ub(f - g.n_interior, k);
        for (int i = 0; i < 3; ++i) {
          const real c = method == 0 ? b * g.S(f, i) : v[i] * (b - u(o, k));
          Kokkos::atomic_add(&grad(o, 3 * k + i), c);
        }
      }
    }
  }
};

/// The cell's 3x3 matrix, rebuilt from its faces (Green-Gauss correction or least squares), with
/// run-time method and interior/boundary branches (steps 2, 3).
KOKKOS_INLINE_FUNCTION void cell_matrix(const Geometry& g, index_t c, int method, real (&m)[3][3]) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m[i][j] = 0;
  for (index_t q = g.off(c); q < g.off(c + 1); ++q) {
    const index_t f = g.faces(q);
    real v[3];
    g.owner_to_other(f, v);
    if (method == 0) {
      const real s = g.sign(q);
      if (f < g.n_interior) {
        const real w = g.gg_weight(f);
        for (int i = 0; i < 3; ++i) v[i] = s > 0 ? (1 - w) * v[i] : -w * v[i];
      }
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) m[i][j] += s * g.S(f, i) * v[j];
    } else {
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) m[i][j] += v[i] * v[j];
    }
  }
}

template <int N> struct GradientFinalize2 {
  Geometry g;
  View2<real> grad;
  int method;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    for (int k = 0; k < N; ++k) { // the matrix rebuilt and inverted for every component
      real m[3][3], inv[3][3];
      cell_matrix(g, c, method, m);
      invert3(m, inv);
      real rhs[3];
      for (int i = 0; i < 3; ++i) rhs[i] = grad(c, 3 * k + i);
      for (int i = 0; i < 3; ++i) grad(c, 3 * k + i) = inv[i][0] * rhs[0] + inv[i][1] * rhs[1] + inv[i][2] * rhs[2];
    }
  }
};

// --- step 3: registers: each face's geometry and values read once, each cell's matrix built once
template <int N> struct GradientScatter3 {
  Geometry g;
  ConstView2<real> u, ub;
  View2<real> grad;
  int method;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const index_t o = g.owner(f);
    real v[3];
    g.owner_to_other(f, v);
    const real S[3] = {g.S(f, 0), g.S(f, 1), g.S(f, 2)};
    if (f < g.n_interior) {
      const index_t n = g.neighbour(f);
      const bool to_o = o < g.n_owned, to_n = n < g.n_owned;
      const real w = method == 0 ? g.gg_weight(f) : real(0);
      for (int k = 0; k < N; ++k) {
        const real uo = u(o, k), un = u(n, k);
        if (method == 0) {
          const real uf = w * uo + (1 - w) * un;
          for (int i = 0; i < 3; ++i) {
            if (to_o) Kokkos::atomic_add(&grad(o, 3 * k + i), uf * S[i]);
            if (to_n) Kokkos::atomic_add(&grad(n, 3 * k + i), -uf * S[i]);
          }
        } else {
          const real du = un - uo;
          for (int i = 0; i < 3; ++i) {
            if (to_o) Kokkos::atomic_add(&grad(o, 3 * k + i), v[i] * du);
            if (to_n) Kokkos::atomic_add(&grad(n, 3 * k + i), v[i] * du);
          }
        }
      }
    } else {
      const index_t b = f - g.n_interior;
      for (int k = 0; k < N; ++k) {
        const real ubk = ub(b, k), uo = u(o, k);
        for (int i = 0; i < 3; ++i)
          Kokkos::atomic_add(&grad(o, 3 * k + i), method == 0 ? ubk * S[i] : v[i] * (ubk - uo));
      }
    }
  }
};

/// grad(c) = inv * grad(c) for every component: read once, written once.
template <int N>
KOKKOS_INLINE_FUNCTION void apply_inverse(const View2<real>& grad, index_t c, const real (&inv)[3][3]) {
  real acc[N][3];
  for (int k = 0; k < N; ++k)
    for (int i = 0; i < 3; ++i) acc[k][i] = grad(c, 3 * k + i);
  for (int k = 0; k < N; ++k)
    for (int i = 0; i < 3; ++i)
      grad(c, 3 * k + i) = inv[i][0] * acc[k][0] + inv[i][1] * acc[k][1] + inv[i][2] * acc[k][2];
}

template <int N> struct GradientFinalize3 {
  Geometry g;
  View2<real> grad;
  int method;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    real m[3][3], inv[3][3];
    cell_matrix(g, c, method, m);
    invert3(m, inv);
    apply_inverse<N>(grad, c, inv);
  }
};

// --- step 4: the method a template, interior and boundary faces in separate kernels and loops --
template <int N, Method M> struct GradientScatterInterior4 {
  Geometry g;
  ConstView2<real> u;
  View2<real> grad;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const index_t o = g.owner(f), n = g.neighbour(f);
    const bool to_o = o < g.n_owned, to_n = n < g.n_owned;
    if constexpr (M == Method::green_gauss) {
      const real w = g.gg_weight(f);
      const real S[3] = {g.S(f, 0), g.S(f, 1), g.S(f, 2)};
      for (int k = 0; k < N; ++k) {
        const real uf = w * u(o, k) + (1 - w) * u(n, k);
        for (int i = 0; i < 3; ++i) {
          if (to_o) Kokkos::atomic_add(&grad(o, 3 * k + i), uf * S[i]);
          if (to_n) Kokkos::atomic_add(&grad(n, 3 * k + i), -uf * S[i]);
        }
      }
    } else {
      real v[3];
      g.owner_to_neighbour(f, v);
      for (int k = 0; k < N; ++k) {
        const real du = u(n, k) - u(o, k);
        for (int i = 0; i < 3; ++i) {
          if (to_o) Kokkos::atomic_add(&grad(o, 3 * k + i), v[i] * du);
          if (to_n) Kokkos::atomic_add(&grad(n, 3 * k + i), v[i] * du);
        }
      }
    }
  }
};

template <int N, Method M> struct GradientScatterBoundary4 {
  Geometry g;
  ConstView2<real> u, ub;
  View2<real> grad;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const index_t o = g.owner(f), b = f - g.n_interior;
    if constexpr (M == Method::green_gauss) {
      const real S[3] = {g.S(f, 0), g.S(f, 1), g.S(f, 2)};
      for (int k = 0; k < N; ++k) {
        const real ubk = ub(b, k);
        for (int i = 0; i < 3; ++i) Kokkos::atomic_add(&grad(o, 3 * k + i), ubk * S[i]);
      }
    } else {
      real v[3];
      g.owner_to_face(f, v);
      for (int k = 0; k < N; ++k) {
        const real du = ub(b, k) - u(o, k);
        for (int i = 0; i < 3; ++i) Kokkos::atomic_add(&grad(o, 3 * k + i), v[i] * du);
      }
    }
  }
};

/// Matrix of cell c, method a template, interior and boundary faces in two loops (steps 4, 5).
template <Method M> KOKKOS_INLINE_FUNCTION void cell_matrix(const Geometry& g, index_t c, real (&m)[3][3]) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m[i][j] = 0;
  const index_t bb = g.bbegin(c);
  for (index_t q = g.off(c); q < bb; ++q) {
    const index_t f = g.faces(q);
    const real s = g.sign(q);
    real v[3];
    g.owner_to_neighbour(f, v);
    if constexpr (M == Method::green_gauss) { // x_i - x_c: (1 - w) d from the owner, -w d from the neighbour
      const real w = g.gg_weight(f);
      const real x = s > 0 ? 1 - w : -w;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) m[i][j] += s * g.S(f, i) * (x * v[j]);
    } else {
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) m[i][j] += v[i] * v[j];
    }
  }
  for (index_t q = bb; q < g.off(c + 1); ++q) {
    const index_t f = g.faces(q);
    real v[3];
    g.owner_to_face(f, v);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) m[i][j] += (M == Method::green_gauss ? g.S(f, i) : v[i]) * v[j];
  }
}

template <int N, Method M> struct GradientFinalize4 {
  Geometry g;
  View2<real> grad;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    real m[3][3], inv[3][3];
    cell_matrix<M>(g, c, m);
    invert3(m, inv);
    apply_inverse<N>(grad, c, inv);
  }
};

// --- step 5: a gather: one cell per work item, sums in registers, the matrix in the same kernel,
// grad written once (no atomics, no zeroing) ---------------------------------------------------
template <int N, Method M> struct GradientGather5 {
  Geometry g;
  ConstView2<real> u, ub;
  View2<real> grad;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    real uc[N], acc[N][3];
    for (int k = 0; k < N; ++k) {
      uc[k] = u(c, k);
      acc[k][0] = acc[k][1] = acc[k][2] = 0;
    }
    const index_t bb = g.bbegin(c);
    for (index_t q = g.off(c); q < bb; ++q) {
      const index_t f = g.faces(q);
      const real s = g.sign(q);
      const index_t other = s > 0 ? g.neighbour(f) : g.owner(f);
      if constexpr (M == Method::green_gauss) {
        const real w = s > 0 ? g.gg_weight(f) : 1 - g.gg_weight(f);
        const real sS[3] = {s * g.S(f, 0), s * g.S(f, 1), s * g.S(f, 2)};
        for (int k = 0; k < N; ++k) {
          const real uf = w * uc[k] + (1 - w) * u(other, k);
          for (int i = 0; i < 3; ++i) acc[k][i] += uf * sS[i];
        }
      } else {
        real v[3];
        g.owner_to_neighbour(f, v);
        for (int k = 0; k < N; ++k) {
          const real du = u(other, k) - uc[k];
          for (int i = 0; i < 3; ++i) acc[k][i] += s * v[i] * du;
        }
      }
    }
    for (index_t q = bb; q < g.off(c + 1); ++q) {
      const index_t f = g.faces(q), b = f - g.n_interior;
      if constexpr (M == Method::green_gauss) {
        for (int k = 0; k < N; ++k)
          for (int i = 0; i < 3; ++i) acc[k][i] += ub(b, k) * g.S(f, i);
      } else {
        real v[3];
        g.owner_to_face(f, v);
        for (int k = 0; k < N; ++k) {
          const real du = ub(b, k) - uc[k];
          for (int i = 0; i < 3; ++i) acc[k][i] += v[i] * du;
        }
      }
    }
    real m[3][3], inv[3][3];
    cell_matrix<M>(g, c, m);
    invert3(m, inv);
    for (int k = 0; k < N; ++k)
      for (int i = 0; i < 3; ++i)
        grad(c, 3 * k + i) = inv[i][0] * acc[k][0] + inv[i][1] * acc[k][1] + inv[i][2] * acc[k][2];
  }
};

// --- the limiter -------------------------------------------------------------------------------
/// The naive limiter's body per (cell, component), as operators/muscl/limiter.cpp has it (a copy:
/// that file keeps it private): run-time limiter branch, eps and geometry recomputed.
struct LimiterBody {
  Geometry g;
  ConstView1<real> reference;
  ConstView1<int> group;
  ConstView2<real> u, ub, grad;
  View2<real> limiter;
  int type;   // 0 none, 1 Barth-Jespersen, 2 Venkatakrishnan
  int n;      ///< components
  real kappa; ///< operators.muscl.venkatakrishnan_threshold
  KOKKOS_FUNCTION real other_value(index_t c, index_t f, int k) const {
    if (f >= g.n_interior) return ub(f - g.n_interior, k);
    return g.owner(f) == c ? u(g.neighbour(f), k) : u(g.owner(f), k);
  }
  KOKKOS_FUNCTION void bounds(index_t c, int k, real& umax, real& umin) const {
    umax = u(c, k), umin = u(c, k);
    for (index_t q = g.off(c); q < g.off(c + 1); ++q) {
      const real v = other_value(c, g.faces(q), k);
      umax = v > umax ? v : umax;
      umin = v < umin ? v : umin;
    }
  }
  /// VenkatScale's eps^2 of component k, each group member's neighbours read again.
  KOKKOS_FUNCTION real eps2(index_t c, int k) const {
    return group_eps2(kappa * kappa, n, k, group, reference, [&](int j, real& hi, real& lo) { bounds(c, j, hi, lo); });
  }
  /// The same from the bounds of all N components, in registers.
  template <int N> KOKKOS_FUNCTION void eps2(const real (&hi)[N], const real (&lo)[N], real (&e2)[N]) const {
    VenkatScale<N> v{kappa * kappa, {}, {}};
    for (int k = 0; k < N; ++k) v.reference[k] = reference(k), v.group[k] = group(k);
    v.eps2(hi, lo, e2);
  }
  KOKKOS_FUNCTION real limit(real delta, real dmax, real dmin, real e2) const {
    if (type == 1) return BarthJespersen{}(delta, dmax, dmin, e2);
    if (type == 2) return Venkatakrishnan{}(delta, dmax, dmin, e2);
    return 1;
  }
  KOKKOS_FUNCTION void operator()(const index_t c, const int k) const {
    real umax, umin;
    bounds(c, k, umax, umin);
    const real e2 = eps2(c, k);
    real phi = 1;
    for (index_t q = g.off(c); q < g.off(c + 1); ++q) {
      const index_t f = g.faces(q);
      real delta = 0;
      for (int i = 0; i < 3; ++i) {
        const real xc = (f < g.n_interior && g.owner(f) != c) ? g.C(c, i) + g.T(g.shift(f), i) : g.C(c, i);
        delta += grad(c, 3 * k + i) * (g.F(f, i) - xc);
      }
      const real p = limit(delta, umax - u(c, k), umin - u(c, k), e2);
      phi = p < phi ? p : phi;
    }
    limiter(c, k) = phi;
  }
};

struct Limiter1 {
  LimiterBody b;
  int n;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    for (int k = 0; k < n; ++k) b(c, k);
  }
};

template <int N> struct Limiter2 {
  LimiterBody b;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    for (int k = 0; k < N; ++k) b(c, k);
  }
};

/// Step 3: the cell's values, bounds, gradients and limiter values in registers, each face's
/// geometry computed once for all components, limiter written once.
template <int N> struct Limiter3 {
  LimiterBody b;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    const Geometry& g = b.g;
    real uc[N], umax[N], umin[N], gc[N][3], e2[N], phi[N];
    for (int k = 0; k < N; ++k) {
      uc[k] = umax[k] = umin[k] = b.u(c, k);
      for (int i = 0; i < 3; ++i) gc[k][i] = b.grad(c, 3 * k + i);
      phi[k] = 1;
    }
    for (index_t q = g.off(c); q < g.off(c + 1); ++q) {
      const index_t f = g.faces(q);
      for (int k = 0; k < N; ++k) {
        const real v = b.other_value(c, f, k);
        umax[k] = v > umax[k] ? v : umax[k];
        umin[k] = v < umin[k] ? v : umin[k];
      }
    }
    b.eps2<N>(umax, umin, e2);
    for (index_t q = g.off(c); q < g.off(c + 1); ++q) {
      const index_t f = g.faces(q);
      real rc[3];
      for (int i = 0; i < 3; ++i) {
        const real xc = (f < g.n_interior && g.owner(f) != c) ? g.C(c, i) + g.T(g.shift(f), i) : g.C(c, i);
        rc[i] = g.F(f, i) - xc;
      }
      for (int k = 0; k < N; ++k) {
        const real delta = gc[k][0] * rc[0] + gc[k][1] * rc[1] + gc[k][2] * rc[2];
        const real p = b.limit(delta, umax[k] - uc[k], umin[k] - uc[k], e2[k]);
        phi[k] = p < phi[k] ? p : phi[k];
      }
    }
    for (int k = 0; k < N; ++k) b.limiter(c, k) = phi[k];
  }
};

/// Step 4: the limiter functor a template, interior and boundary faces in separate loops.
template <int N, class L> struct Limiter4 {
  LimiterBody b;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    const Geometry& g = b.g;
    real uc[N], umax[N], umin[N], gc[N][3], e2[N], phi[N];
    for (int k = 0; k < N; ++k) {
      uc[k] = umax[k] = umin[k] = b.u(c, k);
      for (int i = 0; i < 3; ++i) gc[k][i] = b.grad(c, 3 * k + i);
      phi[k] = 1;
    }
    const index_t bb = g.bbegin(c);
    for (index_t q = g.off(c); q < bb; ++q) {
      const index_t f = g.faces(q), other = g.sign(q) > 0 ? g.neighbour(f) : g.owner(f);
      for (int k = 0; k < N; ++k) {
        const real v = b.u(other, k);
        umax[k] = v > umax[k] ? v : umax[k];
        umin[k] = v < umin[k] ? v : umin[k];
      }
    }
    for (index_t q = bb; q < g.off(c + 1); ++q) {
      const index_t fb = g.faces(q) - g.n_interior;
      for (int k = 0; k < N; ++k) {
        const real v = b.ub(fb, k);
        umax[k] = v > umax[k] ? v : umax[k];
        umin[k] = v < umin[k] ? v : umin[k];
      }
    }
    b.eps2<N>(umax, umin, e2);
    auto add_face = [&](const real(&rc)[3]) {
      for (int k = 0; k < N; ++k) {
        const real delta = gc[k][0] * rc[0] + gc[k][1] * rc[1] + gc[k][2] * rc[2];
        const real p = L{}(delta, umax[k] - uc[k], umin[k] - uc[k], e2[k]);
        phi[k] = p < phi[k] ? p : phi[k];
      }
    };
    for (index_t q = g.off(c); q < bb; ++q) { // the neighbour side sees its centroid's periodic image
      const index_t f = g.faces(q);
      const real m = g.sign(q) > 0 ? real(0) : real(1);
      real rc[3];
      for (int i = 0; i < 3; ++i) rc[i] = g.F(f, i) - (g.C(c, i) + m * g.T(g.shift(f), i));
      add_face(rc);
    }
    for (index_t q = bb; q < g.off(c + 1); ++q) {
      const index_t f = g.faces(q);
      real rc[3];
      for (int i = 0; i < 3; ++i) rc[i] = g.F(f, i) - g.C(c, i);
      add_face(rc);
    }
    for (int k = 0; k < N; ++k) b.limiter(c, k) = phi[k];
  }
};

// --- the operators -----------------------------------------------------------------------------
class LadderGradient final : public GradientOperator {
public:
  LadderGradient(int step, const Mesh& m, const OperatorGeometry& og, const MusclConfig& cfg, int n)
      : step_(step), n_(n), method_(cfg.gradient == fvproxy::Gradient::green_gauss ? 0 : 1),
        g_(Geometry::of(m, og)), naive_{naive::naive_geometry(m, og.mirror)}, n_faces_(m.n_faces) {}
  void compute(ConstView2<real> u, ConstView2<real> ub, View2<real> grad, Part part) const override {
    check_part(part, "muscl ladder gradient");
    if (n_ == 1) return run<1>(u, ub, grad);
    return run<5>(u, ub, grad);
  }
  std::string description() const override { return "ladder" + std::to_string(step_) + "/" + ladder_step_name(step_); }

private:
  template <int N> void run(ConstView2<real> u, ConstView2<real> ub, View2<real> grad) const {
    const Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>> cells(0, g_.n_owned), faces(0, n_faces_),
        interior(0, g_.n_interior), boundary(g_.n_interior, n_faces_);
    if (step_ <= 4) Kokkos::deep_copy(grad, real(0)); // the scatter's sums start from zero (as naive)
    switch (step_) {
    case 1:
      Kokkos::parallel_for("fvproxy::muscl::ladder1_gradient_scatter", faces,
                           GradientScatter1{naive::GradientScatter{naive_, u, ub, grad, method_}, n_});
      Kokkos::parallel_for("fvproxy::muscl::ladder1_gradient_finalize", cells,
                           GradientFinalize1{naive::GradientFinalize{naive_, grad, method_}, n_});
      return;
    case 2:
      Kokkos::parallel_for("fvproxy::muscl::ladder2_gradient_scatter", faces,
                           GradientScatter2<N>{g_, u, ub, grad, method_});
      Kokkos::parallel_for("fvproxy::muscl::ladder2_gradient_finalize", cells, GradientFinalize2<N>{g_, grad, method_});
      return;
    case 3:
      Kokkos::parallel_for("fvproxy::muscl::ladder3_gradient_scatter", faces,
                           GradientScatter3<N>{g_, u, ub, grad, method_});
      Kokkos::parallel_for("fvproxy::muscl::ladder3_gradient_finalize", cells, GradientFinalize3<N>{g_, grad, method_});
      return;
    default:
      if (method_ == 0) return run<N, Method::green_gauss>(u, ub, grad, cells, interior, boundary);
      return run<N, Method::least_squares>(u, ub, grad, cells, interior, boundary);
    }
  }
  template <int N, Method M, class R> void run(ConstView2<real> u, ConstView2<real> ub, View2<real> grad,
                                               const R& cells, const R& interior, const R& boundary) const {
    if (step_ == 4) {
      Kokkos::parallel_for("fvproxy::muscl::ladder4_gradient_interior", interior,
                           GradientScatterInterior4<N, M>{g_, u, grad});
      Kokkos::parallel_for("fvproxy::muscl::ladder4_gradient_boundary", boundary,
                           GradientScatterBoundary4<N, M>{g_, u, ub, grad});
      Kokkos::parallel_for("fvproxy::muscl::ladder4_gradient_finalize", cells, GradientFinalize4<N, M>{g_, grad});
      return;
    }
    Kokkos::parallel_for("fvproxy::muscl::ladder5_gradient_gather", cells, GradientGather5<N, M>{g_, u, ub, grad});
  }

  int step_, n_, method_;
  Geometry g_;
  naive::NaiveGeometry naive_;
  index_t n_faces_;
};

class LadderLimiter final : public LimiterOperator {
public:
  LadderLimiter(int step, const Mesh& m, const OperatorGeometry& og, const MusclConfig& cfg, const LimiterScale& scale)
      : step_(step), n_(scale.components()), type_(cfg.limiter == fvproxy::Limiter::none              ? 0
                                                   : cfg.limiter == fvproxy::Limiter::barth_jespersen ? 1
                                                                                                      : 2),
        kappa_(static_cast<real>(cfg.venkatakrishnan_threshold)), g_(Geometry::of(m, og)),
        scale_(device_views(scale, "ladder_limiter")) {}
  void compute(ConstView2<real> u, ConstView2<real> ub, ConstView2<real> grad, View2<real> limiter,
               Part part) const override {
    check_part(part, "muscl ladder limiter");
    const LimiterBody b{g_, scale_.reference, scale_.group, u, ub, grad, limiter, type_, n_, kappa_};
    if (n_ == 1) return run<1>(b);
    return run<5>(b);
  }
  std::string description() const override {
    return "ladder" + std::to_string(step_) + "/" + ladder_step_name(step_ == 5 ? 4 : step_);
  }

private:
  template <int N> void run(const LimiterBody& b) const {
    const Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>> cells(0, g_.n_owned);
    if (step_ == 1) return Kokkos::parallel_for("fvproxy::muscl::ladder1_limiter", cells, Limiter1{b, n_});
    if (step_ == 2) return Kokkos::parallel_for("fvproxy::muscl::ladder2_limiter", cells, Limiter2<N>{b});
    if (step_ == 3) return Kokkos::parallel_for("fvproxy::muscl::ladder3_limiter", cells, Limiter3<N>{b});
    // steps 4 and 5 (a gather already: step 5 does not apply to the limiter)
    if (type_ == 0) return Kokkos::parallel_for("fvproxy::muscl::ladder4_limiter", cells, Limiter4<N, NoLimiter>{b});
    if (type_ == 1)
      return Kokkos::parallel_for("fvproxy::muscl::ladder4_limiter", cells, Limiter4<N, BarthJespersen>{b});
    Kokkos::parallel_for("fvproxy::muscl::ladder4_limiter", cells, Limiter4<N, Venkatakrishnan>{b});
  }

  int step_, n_, type_;
  real kappa_;
  Geometry g_;
  LimiterScaleViews scale_;
};

} // namespace ladder

LadderMuscl make_ladder_muscl(int step, const Mesh& mesh, const OperatorGeometry& geom, const MusclConfig& cfg,
                              int components, const LimiterScale& scale) {
  check_ladder_step(step, "ladder");
  check_ladder_components(components, "physics.components");
  if (step == 0 || step == kLadderSteps - 1) {
    const MusclConfig c = ladder::step_options(cfg, step);
    return {make_gradient(mesh, geom, c, components, false), make_limiter(mesh, geom, c, scale)};
  }
  return {std::make_unique<ladder::LadderGradient>(step, mesh, geom, cfg, components),
          std::make_unique<ladder::LadderLimiter>(step, mesh, geom, cfg, scale)};
}

} // namespace fvproxy
