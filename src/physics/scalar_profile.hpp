#pragma once
// Initial conditions of the scalar model and the exact solutions of advection-diffusion that
// exist for them, as one device-copyable functor (ScalarSolution) evaluated pointwise.
//
// The exact solution at (x, t) evaluates the initial profile at the foot of the characteristic
// (x - u t for a uniform velocity; x rotated back by -omega t for a rotation) and applies the
// diffusive decay of its shape:
//   gaussian: A (w^2 / w_t^2)^{3/2} exp(-|x' - c|^2 / w_t^2) + B, with w_t^2 = w^2 + 4 kappa t,
//             summed over the periodic images along periodic axes (the profile is periodized);
//   sine:     A sin(k . (x' - x0) + phase) exp(-kappa |k|^2 t), k_d = 2 pi n_d / L_d;
//   sphere:   the translated/rotated step (kappa = 0 only);
//   constant: itself.
// Which combinations are exact (velocity type, diffusivity, periodicity) is decided by
// exact_solution_status (scalar_solution.cpp); this header only evaluates.
#include "core/kokkos_compat.hpp"
#include "core/types.hpp"

namespace fvproxy {

inline constexpr int kMaxComponents = 8;

enum class ProfileType : int { constant = 0, gaussian = 1, sine = 2, sphere = 3 };

struct Profile {
  ProfileType type = ProfileType::constant;
  real value = 0, amplitude = 0, background = 0, width = 1, phase = 0, radius = 0, inside = 0, outside = 0;
  real center[3] = {0, 0, 0};
  real k[3] = {0, 0, 0}; ///< sine: angular wavenumbers 2 pi n_d / L_d
};

struct ScalarSolution {
  int components = 1;
  Profile profile[kMaxComponents];
  real kappa[kMaxComponents] = {};
  bool rotation = false;
  real u[3] = {0, 0, 0};                                          ///< uniform velocity
  real axis[3] = {0, 0, 1}, rot_center[3] = {0, 0, 0}, omega = 0; ///< rotation
  bool periodic[3] = {false, false, false};
  real lo[3] = {0, 0, 0}, length[3] = {1, 1, 1}; ///< the box (periodicity, sine origin)

  /// Value of component c at point x and time t (t = 0: the initial condition).
  KOKKOS_INLINE_FUNCTION real operator()(int c, const real* x, real t) const {
    const Profile& p = profile[c];
    real xf[3];
    foot(x, t, xf);
    switch (p.type) {
    case ProfileType::constant: return p.value;
    case ProfileType::gaussian: {
      const real wt2 = p.width * p.width + real(4) * kappa[c] * t;
      const real r = p.width * p.width / wt2;
      return p.background + p.amplitude * r * kc::sqrt(r) * gaussian_sum(xf, p.center, wt2);
    }
    case ProfileType::sine: {
      real arg = p.phase, k2 = 0;
      for (int d = 0; d < 3; ++d) arg += p.k[d] * (xf[d] - lo[d]), k2 += p.k[d] * p.k[d];
      return p.amplitude * kc::sin(arg) * kc::exp(-kappa[c] * k2 * t);
    }
    case ProfileType::sphere: {
      real r2 = 0;
      for (int d = 0; d < 3; ++d) {
        const real dx = wrap(xf[d] - p.center[d], d);
        r2 += dx * dx;
      }
      return r2 < p.radius * p.radius ? p.inside : p.outside;
    }
    }
    return 0;
  }

  /// Foot of the characteristic through (x, t) at time 0.
  KOKKOS_INLINE_FUNCTION void foot(const real* x, real t, real* xf) const {
    if (!rotation) {
      for (int d = 0; d < 3; ++d) xf[d] = x[d] - u[d] * t;
      return;
    }
    // Rodrigues rotation of x - center by the angle -omega t about the unit axis.
    const real a = -omega * t, ca = kc::cos(a), sa = kc::sin(a);
    const real r[3] = {x[0] - rot_center[0], x[1] - rot_center[1], x[2] - rot_center[2]};
    const real kr = axis[0] * r[0] + axis[1] * r[1] + axis[2] * r[2];
    const real kxr[3] = {axis[1] * r[2] - axis[2] * r[1], axis[2] * r[0] - axis[0] * r[2],
                         axis[0] * r[1] - axis[1] * r[0]};
    for (int d = 0; d < 3; ++d) xf[d] = rot_center[d] + r[d] * ca + kxr[d] * sa + axis[d] * kr * (1 - ca);
  }

  /// dx reduced to [-L/2, L/2) along a periodic axis (the nearest image), unchanged otherwise.
  KOKKOS_INLINE_FUNCTION real wrap(real dx, int d) const {
    if (!periodic[d]) return dx;
    return dx - length[d] * kc::floor(dx / length[d] + real(0.5));
  }

  /// sum over periodic images (two on each side of the nearest one) of exp(-|x - c|^2 / w2).
  KOKKOS_INLINE_FUNCTION real gaussian_sum(const real* x, const real* c, real w2) const {
    real f[3];
    for (int d = 0; d < 3; ++d) {
      const real dx = wrap(x[d] - c[d], d);
      if (!periodic[d]) {
        f[d] = kc::exp(-dx * dx / w2);
        continue;
      }
      real s = 0;
      for (int m = -2; m <= 2; ++m) {
        const real y = dx + m * length[d];
        s += kc::exp(-y * y / w2);
      }
      f[d] = s;
    }
    return f[0] * f[1] * f[2];
  }
};

} // namespace fvproxy
