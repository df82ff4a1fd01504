#pragma once
// The optimized viscous operator's kernels (flow_viscous.hpp), shared by the operator and by the
// navier-stokes face pass (operators/face_pass/flow_face_pass.hpp): the viscous terms as a
// diffusion model (FlowViscous<ViscousModel<Law>>, diffusion_kernels.hpp's contract), the walls'
// patch functors and the precomputed face geometry. Internal to the flow operators.
#include <string>
#include <utility>
#include <vector>

#include "core/kokkos_compat.hpp"
#include "operators/boundary_patches.hpp"
#include "operators/diffusion/diffusion_kernels.hpp"
#include "operators/flow/flow_viscous.hpp"
#include "operators/launch.hpp"
#include "physics/flow_boundary.hpp"

namespace fvproxy::flow_detail {

constexpr int NW = 4;                 // u, v, w, T
constexpr int kNV = flow::kVariables; // the conserved variables

// --- optimized: templated on the viscosity law; registers; precomputed geometry. -----------------
struct ViscousGeometry {
  ConstView1<index_t> owner, neighbour, off, bbegin, faces;
  ConstView1<std::int8_t> sign;
  ConstVec3View<real> d, r, normal;
  ConstView1<real> area, inv_d2, inv_volume; ///< inv_d2: 1/|d|^2 (interior), 1/|r|^2 (boundary faces)
};

template <class Visc> struct ViscousModel {
  Visc mu;
  flow::IdealGas gas;
  real prandtl;
  /// F = F_v(G, W_f) . n times the area; heat = false: no heat flux (adiabatic wall).
  KOKKOS_INLINE_FUNCTION void flux(const real (&G)[NW][3], const real (&Wf)[NW], const real (&n)[3], real area,
                                   bool heat, real (&F)[kNV]) const {
    const real m = mu(Wf[3]);
    const real k = heat ? flow::conductivity(m, gas, prandtl) : real(0);
    const real gu[3][3] = {{G[0][0], G[0][1], G[0][2]}, {G[1][0], G[1][1], G[1][2]}, {G[2][0], G[2][1], G[2][2]}};
    const real gT[3] = {G[3][0], G[3][1], G[3][2]}, uf[3] = {Wf[0], Wf[1], Wf[2]};
    const flow::Flux v = flow::viscous_flux(gu, gT, uf, m, k, n);
    F[0] = 0, F[1] = v.m[0] * area, F[2] = v.m[1] * area, F[3] = v.m[2] * area, F[4] = v.E * area;
  }
};

template <class VM> KOKKOS_INLINE_FUNCTION void interior_viscous(const VM& vm, const ViscousGeometry& g,
                                                                 const ConstView2<real>& w, const ConstView2<real>& gw,
                                                                 index_t f, real (&F)[kNV]) {
  const index_t o = g.owner(f), nb = g.neighbour(f);
  const real d[3] = {g.d(f, 0), g.d(f, 1), g.d(f, 2)};
  const real ro[3] = {g.r(f, 0), g.r(f, 1), g.r(f, 2)};
  const real rn[3] = {ro[0] - d[0], ro[1] - d[1], ro[2] - d[2]};
  const real id2 = g.inv_d2(f);
  real G[NW][3], Wf[NW];
  for (int q = 0; q < NW; ++q) {
    const real go[3] = {gw(o, 3 * q), gw(o, 3 * q + 1), gw(o, 3 * q + 2)};
    const real gn[3] = {gw(nb, 3 * q), gw(nb, 3 * q + 1), gw(nb, 3 * q + 2)};
    const real wo = w(o, q), wn = w(nb, q);
    real avg[3], gd = 0;
    for (int i = 0; i < 3; ++i) avg[i] = real(0.5) * (go[i] + gn[i]), gd += avg[i] * d[i];
    const real c = (wn - wo - gd) * id2;
    for (int i = 0; i < 3; ++i) G[q][i] = avg[i] + c * d[i];
    Wf[q] = real(0.5) *
            (wo + go[0] * ro[0] + go[1] * ro[1] + go[2] * ro[2] + wn + gn[0] * rn[0] + gn[1] * rn[1] + gn[2] * rn[2]);
  }
  const real n[3] = {g.normal(f, 0), g.normal(f, 1), g.normal(f, 2)};
  vm.flux(G, Wf, n, g.area(f), true, F);
}

template <class VM, bool Adiabatic>
KOKKOS_INLINE_FUNCTION void wall_viscous(const VM& vm, const ViscousGeometry& g, const ConstView2<real>& w,
                                         const ConstView2<real>& wb, const ConstView2<real>& gw, index_t f,
                                         index_t n_interior, real (&F)[kNV]) {
  const index_t o = g.owner(f), b = f - n_interior;
  const real r[3] = {g.r(f, 0), g.r(f, 1), g.r(f, 2)};
  const real ir2 = g.inv_d2(f);
  real G[NW][3], Wf[NW];
  for (int q = 0; q < NW; ++q) { // the face value: halfway between the cell and its mirror ghost wb
    const real go[3] = {gw(o, 3 * q), gw(o, 3 * q + 1), gw(o, 3 * q + 2)};
    const real wo = w(o, q);
    Wf[q] = real(0.5) * (wo + wb(b, q));
    flow::wall_gradient(go, wo, Wf[q], r, ir2, G[q]);
  }
  const real n[3] = {g.normal(f, 0), g.normal(f, 1), g.normal(f, 2)};
  vm.flux(G, Wf, n, g.area(f), !Adiabatic, F);
}

/// A slip wall or symmetry plane: the face between the cell and its mirror image
/// (flow::mirror_face_gradient): the normal stress only, no heat flux.
template <class VM> KOKKOS_INLINE_FUNCTION void mirror_viscous(const VM& vm, const ViscousGeometry& g,
                                                               const ConstView2<real>& w, const ConstView2<real>& gw,
                                                               index_t f, real (&F)[kNV]) {
  const index_t o = g.owner(f);
  const real r[3] = {g.r(f, 0), g.r(f, 1), g.r(f, 2)};
  const real n[3] = {g.normal(f, 0), g.normal(f, 1), g.normal(f, 2)};
  const real gu[3][3] = {
      {gw(o, 0), gw(o, 1), gw(o, 2)}, {gw(o, 3), gw(o, 4), gw(o, 5)}, {gw(o, 6), gw(o, 7), gw(o, 8)}};
  const real gT[3] = {gw(o, 9), gw(o, 10), gw(o, 11)}, uo[3] = {w(o, 0), w(o, 1), w(o, 2)};
  real Gu[3][3], GT[3], uf[3], Tf;
  flow::mirror_face_gradient(gu, gT, uo, w(o, 3), r, n, Gu, GT, uf, Tf);
  const real G[NW][3] = {{Gu[0][0], Gu[0][1], Gu[0][2]},
                         {Gu[1][0], Gu[1][1], Gu[1][2]},
                         {Gu[2][0], Gu[2][1], Gu[2][2]},
                         {GT[0], GT[1], GT[2]}};
  const real Wf[NW] = {uf[0], uf[1], uf[2], Tf};
  vm.flux(G, Wf, n, g.area(f), false, F);
}

/// The viscous terms as a diffusion model (diffusion_kernels.hpp): the momentum and energy
/// equations (the mass equation has none), F = F_v . n A from the corrected face gradients.
template <class VM> struct FlowViscous {
  static constexpr int first = 1, n_vars = kNV;
  VM vm;
  ViscousGeometry g;
  ConstView2<real> w, gw;
  KOKKOS_INLINE_FUNCTION void interior(index_t f, real (&F)[kNV]) const { interior_viscous(vm, g, w, gw, f, F); }
  KOKKOS_INLINE_FUNCTION real scale(int) const { return 1; }
};

/// A no-slip wall: the one-sided gradient to the wall's state; Adiabatic: no heat flux.
template <class VM, bool Adiabatic> struct FlowViscousWall {
  VM vm;
  ViscousGeometry g;
  ConstView2<real> w, wb, gw;
  index_t n_interior;
  KOKKOS_INLINE_FUNCTION void operator()(index_t f, real (&F)[kNV]) const {
    wall_viscous<VM, Adiabatic>(vm, g, w, wb, gw, f, n_interior, F);
  }
};

/// A slip wall or symmetry plane (mirror_viscous).
template <class VM> struct FlowViscousMirror {
  VM vm;
  ViscousGeometry g;
  ConstView2<real> w, gw;
  KOKKOS_INLINE_FUNCTION void operator()(index_t f, real (&F)[kNV]) const { mirror_viscous(vm, g, w, gw, f, F); }
};

/// One boundary patch's viscous flux per face (the wall forces' viscous part: patch_fluxes).
template <class B> struct ViscousPatchFlux {
  B b;
  View2<real> out;
  index_t first;
  KOKKOS_FUNCTION void operator()(const index_t i) const {
    real F[kNV];
    b(first + i, F);
    for (int k = 0; k < kNV; ++k) out(i, k) = F[k];
  }
};

/// Unit normals, areas and 1/|d|^2 (1/|r|^2 on boundary faces).
struct ViscousFaceGeometry {
  ConstVec3View<real> S, d, r;
  Vec3View<real> n;
  View1<real> a, inv_d2;
  index_t n_interior;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const real area = kc::sqrt(S(f, 0) * S(f, 0) + S(f, 1) * S(f, 1) + S(f, 2) * S(f, 2));
    const real inv = 1 / area;
    for (int i = 0; i < 3; ++i) n(f, i) = S(f, i) * inv;
    a(f) = area;
    const real v[3] = {f < n_interior ? d(f, 0) : r(f, 0), f < n_interior ? d(f, 1) : r(f, 1),
                       f < n_interior ? d(f, 2) : r(f, 2)};
    inv_d2(f) = 1 / (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  }
};

/// A flow operator's viscous wall patches (no-slip walls, adiabatic or isothermal, slip walls and
/// symmetry planes: the other types carry no viscous flux), launched after the interior faces by the
/// viscous operator and by the face pass.
template <class VM> class ViscousWalls {
public:
  ViscousWalls() = default;
  ViscousWalls(const Mesh& m, const std::vector<FlowPatchBC>& patches) : n_interior_(m.n_interior) {
    const std::vector<BoundaryType> any(m.patches.size(), BoundaryType::outflow);
    for (const PatchRuns& r : patch_owner_runs(m, any, "fvproxy::flow_viscous::patch_runs")) {
      const FlowPatchBC& bc = patches.at(r.patch);
      if (bc.type == FlowBoundaryKind::no_slip_wall)
        walls_.push_back({r, bc.wall_temperature <= 0 ? Kind::adiabatic : Kind::isothermal});
      else if (bc.type == FlowBoundaryKind::slip_wall || bc.type == FlowBoundaryKind::symmetry)
        walls_.push_back({r, Kind::mirror});
    }
  }
  /// rhs += the walls' viscous fluxes of the owned cells of `part` (model m's, the interior faces').
  void apply(const FlowViscous<VM>& m, const DiffusionCells& cells, const LaunchOptions& launch_options, bool gather,
             ConstView2<real> wb, View2<real> rhs, Part part) const {
    using Model = FlowViscous<VM>;
    if (gather) {
      for (const auto& wall : walls_) {
        const PatchRuns& runs = wall.first;
        with_wall(wall.second, m, wb, [&](const char* name, auto b) {
          launch(std::string("fvproxy::flow_viscous::gather_") + name, runs.runs_of(part), launch_options,
                 DiffusionGatherPatch<Model, decltype(b)>{m, b, cells, rhs, runs.runs});
        });
      }
      return;
    }
    if (!PartRanges::has_boundary(part)) return;
    for (const auto& wall : walls_) {
      const IndexRange faces{wall.first.begin, wall.first.end};
      with_wall(wall.second, m, wb, [&](const char* name, auto b) {
        launch(std::string("fvproxy::flow_viscous::scatter_") + name, faces, launch_options,
               DiffusionScatterPatch<Model, decltype(b)>{m, b, cells, rhs});
      });
    }
  }
  /// out(i, :) = the viscous flux of face patches[patch].begin + i; false: the patch carries none.
  bool patch_fluxes(const FlowViscous<VM>& m, ConstView2<real> wb, std::size_t patch, View2<real> out) const {
    for (const auto& wall : walls_) {
      if (wall.first.patch != patch) continue;
      const index_t first = wall.first.begin;
      with_wall(wall.second, m, wb, [&](const char*, auto b) {
        Kokkos::parallel_for("fvproxy::flow_viscous::patch_fluxes",
                             Kokkos::RangePolicy<ExecSpace>(0, wall.first.end - first),
                             ViscousPatchFlux<decltype(b)>{b, out, first});
      });
      return true;
    }
    return false;
  }

private:
  enum class Kind { adiabatic, isothermal, mirror };
  /// f(name, functor) with the patch functor of a wall kind.
  template <class F> void with_wall(Kind k, const FlowViscous<VM>& m, ConstView2<real> wb, F&& f) const {
    switch (k) {
    case Kind::adiabatic: f("adiabatic_wall", FlowViscousWall<VM, true>{m.vm, m.g, m.w, wb, m.gw, n_interior_}); return;
    case Kind::isothermal:
      f("isothermal_wall", FlowViscousWall<VM, false>{m.vm, m.g, m.w, wb, m.gw, n_interior_});
      return;
    case Kind::mirror: f("slip_wall", FlowViscousMirror<VM>{m.vm, m.g, m.w, m.gw}); return;
    }
  }

  index_t n_interior_ = 0;
  std::vector<std::pair<PatchRuns, Kind>> walls_;
};

/// The optimized operators' viscous face geometry (unit normals, areas, 1/|d|^2, 1/V) of mesh m.
inline ViscousGeometry viscous_geometry(const Mesh& m, const OperatorGeometry& og) {
  Vec3View<real> normal("fvproxy::flow_viscous::unit_normal", m.n_faces);
  View1<real> area("fvproxy::flow_viscous::area", m.n_faces), inv_d2("fvproxy::flow_viscous::inv_d2", m.n_faces);
  Kokkos::parallel_for("fvproxy::flow_viscous::face_geometry", Kokkos::RangePolicy<ExecSpace>(0, m.n_faces),
                       ViscousFaceGeometry{m.face_area, og.d, og.r, normal, area, inv_d2, m.n_interior});
  return ViscousGeometry{m.face_owner,
                         m.face_neighbour,
                         m.cell_face_off,
                         og.cell_boundary_begin,
                         m.cell_faces,
                         m.cell_face_sign,
                         og.d,
                         og.r,
                         normal,
                         area,
                         inv_d2,
                         m.inv_volume};
}

} // namespace fvproxy::flow_detail
