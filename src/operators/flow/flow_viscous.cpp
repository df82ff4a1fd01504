// The compressible model's viscous operator: the naive port, the optimized kernels and the factory.
#include "operators/flow/flow_viscous.hpp"

#include <stdexcept>

#include "operators/face_launch.hpp"
#include "operators/flow/flow_viscous_kernels.hpp"
#include "operators/naive_geometry.hpp"

namespace fvproxy {

namespace {

using namespace flow_detail; // the optimized kernels (flow_viscous_kernels.hpp), NW
constexpr int NV = flow::kVariables;

// --- naive: MDRange (face | cell, variable); run-time viscosity law and boundary type; the face
// gradients and the whole viscous flux recomputed per variable; divisions. ----------------------
struct NaiveViscous : naive::NaiveFaces {
  ConstView1<std::int8_t> bc_type; ///< per boundary face: FlowBoundaryKind
  ConstView1<real> wall_t;         ///< per boundary face: the wall temperature (<= 0 adiabatic)
  ConstView2<real> w, wb, gw;
  View2<real> rhs;
  index_t n_interior, n_owned;
  int nw, law;
  real mu0, mu_ref, t_ref, s_su, gamma, gas_constant, prandtl;

  /// Component k of the viscous flux through face f (out of the owner) times the area.
  KOKKOS_FUNCTION real flux(index_t f, int k) const {
    real G[8][3] = {}, Wf[8] = {};
    const index_t o = owner(f);
    bool heat = true;
    if (f < n_interior) {
      const index_t n = neighbour(f);
      real d[3], ro[3], rn[3];
      for (int i = 0; i < 3; ++i) {
        d[i] = C(n, i) + T(shift(f), i) - C(o, i);
        ro[i] = F(f, i) - C(o, i);
        rn[i] = F(f, i) - C(n, i) - T(shift(f), i);
      }
      const real d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      for (int q = 0; q < nw; ++q) {
        real avg[3], gd = 0, vo = w(o, q), vn = w(n, q);
        for (int i = 0; i < 3; ++i) {
          avg[i] = (gw(o, 3 * q + i) + gw(n, 3 * q + i)) / 2;
          gd += avg[i] * d[i];
          vo += gw(o, 3 * q + i) * ro[i];
          vn += gw(n, 3 * q + i) * rn[i];
        }
        for (int i = 0; i < 3; ++i) G[q][i] = avg[i] + (w(n, q) - w(o, q) - gd) * d[i] / d2;
        Wf[q] = (vo + vn) / 2;
      }
    } else {
      const index_t b = f - n_interior;
      const bool slip = bc_type(b) == static_cast<std::int8_t>(FlowBoundaryKind::slip_wall) ||
                        bc_type(b) == static_cast<std::int8_t>(FlowBoundaryKind::symmetry);
      if (bc_type(b) != static_cast<std::int8_t>(FlowBoundaryKind::no_slip_wall) && !slip) return 0;
      real r[3];
      for (int i = 0; i < 3; ++i) r[i] = F(f, i) - C(o, i);
      if (slip) { // the face between the cell and its mirror image (physics/viscous.hpp)
        heat = false;
        const real a = kc::sqrt(S(f, 0) * S(f, 0) + S(f, 1) * S(f, 1) + S(f, 2) * S(f, 2));
        const real n[3] = {S(f, 0) / a, S(f, 1) / a, S(f, 2) / a};
        const real gu[3][3] = {
            {gw(o, 0), gw(o, 1), gw(o, 2)}, {gw(o, 3), gw(o, 4), gw(o, 5)}, {gw(o, 6), gw(o, 7), gw(o, 8)}};
        const real gT[3] = {gw(o, 9), gw(o, 10), gw(o, 11)}, uo[3] = {w(o, 0), w(o, 1), w(o, 2)};
        real Gu[3][3], GT[3], uf[3];
        flow::mirror_face_gradient(gu, gT, uo, w(o, 3), r, n, Gu, GT, uf, Wf[3]);
        for (int q = 0; q < 3; ++q) {
          Wf[q] = uf[q];
          for (int i = 0; i < 3; ++i) G[q][i] = Gu[q][i];
        }
        for (int i = 0; i < 3; ++i) G[3][i] = GT[i];
      } else { // no-slip: the one-sided gradient to the face value, halfway to the mirror ghost
        heat = wall_t(b) > 0;
        const real r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
        for (int q = 0; q < nw; ++q) {
          const real wf = (w(o, q) + wb(b, q)) / 2;
          real gr = 0;
          for (int i = 0; i < 3; ++i) gr += gw(o, 3 * q + i) * r[i];
          for (int i = 0; i < 3; ++i) G[q][i] = gw(o, 3 * q + i) + (wf - w(o, q) - gr) * r[i] / r2;
          Wf[q] = wf;
        }
      }
    }
    const real area = kc::sqrt(S(f, 0) * S(f, 0) + S(f, 1) * S(f, 1) + S(f, 2) * S(f, 2));
    const real n[3] = {S(f, 0) / area, S(f, 1) / area, S(f, 2) / area};
    real mu;
    if (law == static_cast<int>(FlowViscosity::Law::sutherland)) {
      const real r = Wf[3] / t_ref;
      mu = mu_ref * r * kc::sqrt(r) * (t_ref + s_su) / (Wf[3] + s_su);
    } else {
      mu = mu0;
    }
    const real kh = heat ? mu * gamma * gas_constant / ((gamma - 1) * prandtl) : real(0);
    const real gu[3][3] = {{G[0][0], G[0][1], G[0][2]}, {G[1][0], G[1][1], G[1][2]}, {G[2][0], G[2][1], G[2][2]}};
    const real gT[3] = {G[3][0], G[3][1], G[3][2]}, uf[3] = {Wf[0], Wf[1], Wf[2]};
    return flow::component(flow::viscous_flux(gu, gT, uf, mu, kh, n), k) * area;
  }
};

struct NaiveViscousScatter {
  NaiveViscous c;
  KOKKOS_FUNCTION void operator()(const index_t f, const int k) const {
    const real fl = c.flux(f, k);
    if (c.owner(f) < c.n_owned) Kokkos::atomic_add(&c.rhs(c.owner(f), k), fl / c.volume(c.owner(f)));
    if (f < c.n_interior && c.neighbour(f) < c.n_owned)
      Kokkos::atomic_add(&c.rhs(c.neighbour(f), k), -fl / c.volume(c.neighbour(f)));
  }
};

struct NaiveViscousGather {
  NaiveViscous c;
  KOKKOS_FUNCTION void operator()(const index_t cell, const int k) const {
    for (index_t q = c.off(cell); q < c.off(cell + 1); ++q)
      c.rhs(cell, k) += c.sign(q) * c.flux(c.faces(q), k) / c.volume(cell);
  }
};

class NaiveFlowViscous final
    : public NaiveFaceOperator<NaiveFlowViscous, FlowViscousOperator, NaiveViscousGather, NaiveViscousScatter> {
public:
  NaiveFlowViscous(const Mesh& m, const FlowViscousConfig& cfg, const std::vector<FlowPatchBC>& patches, bool gather)
      : NaiveFaceOperator(m, gather, "fvproxy::flow_viscous", NV), cfg_(cfg),
        bc_type_("fvproxy::flow_viscous::naive_bc_type", m.n_faces - m.n_interior),
        wall_t_("fvproxy::flow_viscous::naive_wall_t", m.n_faces - m.n_interior) {
    auto t = Kokkos::create_mirror_view(bc_type_);
    auto tw = Kokkos::create_mirror_view(wall_t_);
    for (std::size_t p = 0; p < m.patches.size(); ++p)
      for (index_t f = m.patches[p].begin; f < m.patches[p].end; ++f) {
        t(f - m.n_interior) = static_cast<std::int8_t>(patches.at(p).type);
        tw(f - m.n_interior) = patches.at(p).wall_temperature;
      }
    Kokkos::deep_copy(bc_type_, t);
    Kokkos::deep_copy(wall_t_, tw);
  }
  /// The kernel of one launch (NaiveFaceOperator).
  NaiveViscous kernel(ConstView2<real> w, ConstView2<real> wb, ConstView2<real> gw, View2<real> rhs) const {
    return NaiveViscous{naive::NaiveFaces::of(m_),
                        bc_type_,
                        wall_t_,
                        w,
                        wb,
                        gw,
                        rhs,
                        m_.n_interior,
                        m_.n_cells,
                        NW,
                        static_cast<int>(cfg_.viscosity.law),
                        cfg_.viscosity.constant.mu,
                        cfg_.viscosity.sutherland.mu_ref,
                        cfg_.viscosity.sutherland.t_ref,
                        cfg_.viscosity.sutherland.s,
                        cfg_.gas.gamma,
                        cfg_.gas.gas_constant,
                        cfg_.prandtl};
  }

private:
  FlowViscousConfig cfg_;
  View1<std::int8_t> bc_type_;
  View1<real> wall_t_;
};

template <class VM> class OptimizedFlowViscous final : public FlowViscousOperator {
public:
  OptimizedFlowViscous(const Mesh& m, const OperatorGeometry& og, const VM& vm, const FlowViscousConfig& cfg,
                       const std::vector<FlowPatchBC>& patches, bool gather)
      : vm_(vm), cells_(diffusion_cells(m, og)), g_(viscous_geometry(m, og)),
        faces_(m, {cfg.policy, cfg.team_size}, gather ? Scatter::gather : Scatter::atomic, NV,
               "fvproxy::flow_viscous::"),
        walls_(m, patches) {}
  void apply(ConstView2<real> w, ConstView2<real> wb, ConstView2<real> gw, View2<real> rhs, Part part) const override {
    using Model = FlowViscous<VM>;
    const Model m{vm_, g_, w, gw};
    faces_.interior<NV>(DiffusionInteriorKernels<Model, false>{m, cells_}, rhs, part);
    walls_.apply(m, cells_, faces_.launch, faces_.gather_patches(), wb, rhs, part);
  }
  void patch_fluxes(ConstView2<real> w, ConstView2<real> wb, ConstView2<real> gw, std::size_t patch,
                    View2<real> out) const override {
    if (!walls_.patch_fluxes(FlowViscous<VM>{vm_, g_, w, gw}, wb, patch, out))
      fill("fvproxy::flow_viscous::patch_fluxes_zero", out, real(0)); // no viscous flux on this patch
  }
  std::string description() const override { return faces_.description("optimized"); }

private:
  VM vm_;
  DiffusionCells cells_; ///< the shared kernels' face lists (diffusion_kernels.hpp)
  ViscousGeometry g_;
  FaceLaunch faces_;       ///< the interior faces' launch: gather or atomic (no stored fluxes)
  ViscousWalls<VM> walls_; ///< the walls' and symmetry planes' runs
};

/// The conserved state to W = (u, v, w, T).
struct PrimitiveFields {
  flow::IdealGas eos;
  ConstView2<real> u;
  View2<real> w;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    const flow::Conserved U{u(c, 0), {u(c, 1), u(c, 2), u(c, 3)}, u(c, 4)};
    const flow::Primitive p = flow::to_primitive(U, eos);
    w(c, 0) = p.u[0], w(c, 1) = p.u[1], w(c, 2) = p.u[2], w(c, 3) = eos.temperature(p.rho, p.p);
  }
};

/// W's boundary values (OperatorGeometry::ghost): the mirror ghost of a no-slip wall (2 u_wall - u_P,
/// 2 T_wall - T_P or T_P when adiabatic: the face value is the wall's), of a slip wall or symmetry
/// plane (u_P mirrored about the face, T_P); on the other types the owner's W as the face value.
struct PrimitiveBoundaryValues {
  ConstView1<index_t> owner;
  ConstVec3View<real> S;
  ConstView2<real> w;
  View2<real> wb;
  index_t n_interior;
  FlowBoundaryKind type;
  real wall_t;
  real wall_u[3];
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const index_t o = owner(f), b = f - n_interior;
    const real u[3] = {w(o, 0), w(o, 1), w(o, 2)}, T = w(o, 3);
    real g[3] = {u[0], u[1], u[2]};
    real Tg = T;
    if (type == FlowBoundaryKind::no_slip_wall) {
      for (int q = 0; q < 3; ++q) g[q] = 2 * wall_u[q] - u[q];
      if (wall_t > 0) Tg = 2 * wall_t - T;
    } else if (type == FlowBoundaryKind::slip_wall || type == FlowBoundaryKind::symmetry) {
      const real a = kc::sqrt(S(f, 0) * S(f, 0) + S(f, 1) * S(f, 1) + S(f, 2) * S(f, 2));
      const real n[3] = {S(f, 0) / a, S(f, 1) / a, S(f, 2) / a};
      flow::mirror(u, n, g);
    }
    for (int q = 0; q < 3; ++q) wb(b, q) = g[q];
    wb(b, 3) = Tg;
  }
};

} // namespace

std::unique_ptr<FlowViscousOperator> make_flow_viscous(const Mesh& mesh, const OperatorGeometry& geom,
                                                       const FlowViscousConfig& cfg,
                                                       const std::vector<FlowPatchBC>& patches, bool deterministic) {
  if (patches.size() != mesh.patches.size())
    throw std::logic_error("make_flow_viscous: " + std::to_string(patches.size()) + " boundary conditions for " +
                           std::to_string(mesh.patches.size()) + " patches");
  const bool gather = resolved_scatter(cfg.scatter, deterministic) != Scatter::atomic;
  if (cfg.variant == Variant::naive) return std::make_unique<NaiveFlowViscous>(mesh, cfg, patches, gather);
  refuse_stored(cfg.scatter, "operators.diffusion.scatter", "the separate viscous operator");
  if (cfg.viscosity.law == FlowViscosity::Law::sutherland) {
    using VM = ViscousModel<flow::Sutherland>;
    return std::make_unique<OptimizedFlowViscous<VM>>(mesh, geom, VM{cfg.viscosity.sutherland, cfg.gas, cfg.prandtl},
                                                      cfg, patches, gather);
  }
  using VM = ViscousModel<flow::ConstantViscosity>;
  return std::make_unique<OptimizedFlowViscous<VM>>(mesh, geom, VM{cfg.viscosity.constant, cfg.gas, cfg.prandtl}, cfg,
                                                    patches, gather);
}

void flow_primitive_fields(const Mesh& mesh, const flow::IdealGas& gas, const std::vector<FlowPatchBC>& patches,
                           ConstView2<real> u, View2<real> w, View2<real> wb, Rows rows) {
  const IndexRange cells = PartRanges::of(mesh).rows(rows, mesh.n_local());
  if (cells.size() > 0)
    Kokkos::parallel_for("fvproxy::flow_viscous::primitive_fields",
                         Kokkos::RangePolicy<ExecSpace>(cells.begin, cells.end), PrimitiveFields{gas, u, w});
  for (std::size_t p = 0; p < mesh.patches.size(); ++p) {
    const FlowPatchBC& bc = patches.at(p);
    for (const IndexRange pa : patch_faces(mesh, p, rows))
      if (pa.size() > 0)
        Kokkos::parallel_for("fvproxy::flow_viscous::primitive_boundary_values",
                             Kokkos::RangePolicy<ExecSpace>(pa.begin, pa.end),
                             PrimitiveBoundaryValues{mesh.face_owner,
                                                     mesh.face_area,
                                                     w,
                                                     wb,
                                                     mesh.n_interior,
                                                     bc.type,
                                                     bc.wall_temperature,
                                                     {bc.wall_velocity[0], bc.wall_velocity[1], bc.wall_velocity[2]}});
  }
}

} // namespace fvproxy
