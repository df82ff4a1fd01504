// The compressible convection operator: the naive port, the optimized kernels and the factory.
#include "operators/flow/flow_convection.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "operators/boundary_patches.hpp"
#include "operators/flow/flow_convection_optimized.hpp"
#include "operators/flow/flow_positivity.hpp"
#include "operators/muscl/gradient_optimized.hpp"
#include "operators/naive_geometry.hpp"

namespace fvproxy {

std::vector<bool> mirror_patches(const std::vector<FlowPatchBC>& patches) {
  std::vector<bool> m;
  for (const FlowPatchBC& p : patches) m.push_back(p.mirror());
  return m;
}

namespace {

using flow::Primitive;
using flow_detail::with_bc;
constexpr int NV = flow::kVariables;

// --- naive: MDRange (face | cell, variable); run-time variable count, flux and boundary types;
// both face states and the whole flux recomputed per variable; normals from the area vectors;
// divisions by the volume; atomics per variable. ----------------------------------------------
struct NaiveFlow : naive::NaiveFaces {
  ConstView1<int> bc_patch;             ///< per boundary face: its patch
  ConstView1<flow::FlowCondition> bcs;  ///< per patch: its condition
  ConstView1<real> incoming, impedance; ///< per boundary face: a non-reflecting face's incoming characteristic, z
  ConstView2<real> u, grad, lim;
  View2<real> rhs;
  index_t n_interior, n_owned;
  int nvar, order, flux_type;
  bool primitive_muscl; ///< order 2: grad and lim are those of (rho, u, v, w, p)
  real gamma, gas_constant;
  bool entropy_fix;
  real rotation; ///< flow::rotated's threshold (hllc, roe)
  real shear;    ///< flow::shear_floor's eps (hllc, roe)

  /// Variable k of cell c: conserved, or primitive when the MUSCL reconstructs primitives
  /// (converted again for every variable: the naive port's mistake).
  KOKKOS_FUNCTION real cell_value(index_t c, int k) const {
    if (!primitive_muscl || order == 1) return u(c, k);
    if (k == 0) return u(c, 0);
    if (k < 4) return u(c, k) / u(c, 0);
    return (gamma - 1) * (u(c, 4) - real(0.5) * (u(c, 1) * u(c, 1) + u(c, 2) * u(c, 2) + u(c, 3) * u(c, 3)) / u(c, 0));
  }
  KOKKOS_FUNCTION real state(index_t c, index_t f, int k, bool shifted) const {
    if (order == 1) return u(c, k);
    real v = cell_value(c, k);
    for (int i = 0; i < 3; ++i) {
      const real xc = shifted ? C(c, i) + T(shift(f), i) : C(c, i);
      v += lim(c, k) * grad(c, 3 * k + i) * (F(f, i) - xc);
    }
    return v;
  }
  KOKKOS_FUNCTION Primitive primitive(const real* U) const {
    Primitive w;
    w.rho = U[0];
    for (int i = 0; i < 3; ++i) w.u[i] = U[1 + i] / U[0];
    w.p = (gamma - 1) * (U[4] - real(0.5) * U[0] * (w.u[0] * w.u[0] + w.u[1] * w.u[1] + w.u[2] * w.u[2]));
    return w;
  }
  /// Component k of the flux through face f (owner side left) times the face area.
  KOKKOS_FUNCTION real flux(index_t f, int k) const {
    real UL[8], UR[8]; // sized for the largest count, indexed at run time
    const index_t o = owner(f);
    for (int j = 0; j < nvar; ++j) UL[j] = state(o, f, j, false);
    const real area = kc::sqrt(S(f, 0) * S(f, 0) + S(f, 1) * S(f, 1) + S(f, 2) * S(f, 2));
    const real n[3] = {S(f, 0) / area, S(f, 1) / area, S(f, 2) / area};
    const bool prim = primitive_muscl && order == 2;
    Primitive L = prim ? Primitive{UL[0], {UL[1], UL[2], UL[3]}, UL[4]} : primitive(UL);
    if (!(L.rho > 0 && L.p > 0)) { // positivity: this side falls back to the cell's own state
      for (int j = 0; j < nvar; ++j) UL[j] = u(o, j);
      L = primitive(UL);
    }
    const flow::IdealGas eos{gamma, gas_constant};
    Primitive R;
    if (f < n_interior) {
      for (int j = 0; j < nvar; ++j) UR[j] = state(neighbour(f), f, j, true);
      R = prim ? Primitive{UR[0], {UR[1], UR[2], UR[3]}, UR[4]} : primitive(UR);
      if (!(R.rho > 0 && R.p > 0)) {
        for (int j = 0; j < nvar; ++j) UR[j] = u(neighbour(f), j);
        R = primitive(UR);
      }
    } else { // the patch's condition, branched on per face (flow::with_condition_in_kernel)
      const index_t b = f - n_interior;
      const flow::FlowCondition bc = bcs(bc_patch(b));
      const real x[3] = {F(f, 0), F(f, 1), F(f, 2)};
      bool own_flux = false;
      flow::Flux wall;
      flow::with_condition_in_kernel(bc, eos, [&](const auto& c) {
        using B = std::decay_t<decltype(c)>;
        if constexpr (flow::has_own_flux_v<B>) { // a no-slip wall: its own flux, no Riemann solve
          own_flux = true;
          wall = c.flux(L, n, eos);
        } else if constexpr (flow::varies_along_patch_v<B>) {
          R = c(L, n, x);
        } else {
          R = c(L, n);
          if constexpr (flow::can_be_non_reflecting_v<B>)
            if (bc.non_reflecting) R = flow::with_incoming(R, L, n, gamma, incoming(b), impedance(b));
        }
      });
      if (own_flux) return flow::component(wall, k) * area;
    }
    flow::Flux fl;
    if (flux_type == static_cast<int>(flow::FluxType::rusanov))
      fl = flow::Rusanov{}(L, R, n, eos);
    else if (flux_type == static_cast<int>(flow::FluxType::hllc))
      fl = flow::Hllc{rotation, shear}(L, R, n, eos);
    else
      fl = flow::Roe{entropy_fix, rotation, shear}(L, R, n, eos);
    return flow::component(fl, k) * area;
  }
};

struct NaiveFlowScatter {
  NaiveFlow c;
  KOKKOS_FUNCTION void operator()(const index_t f, const int k) const {
    const real fl = c.flux(f, k);
    if (c.owner(f) < c.n_owned) Kokkos::atomic_add(&c.rhs(c.owner(f), k), -fl / c.volume(c.owner(f)));
    if (f < c.n_interior && c.neighbour(f) < c.n_owned)
      Kokkos::atomic_add(&c.rhs(c.neighbour(f), k), fl / c.volume(c.neighbour(f)));
  }
};

struct NaiveFlowGather {
  NaiveFlow c;
  KOKKOS_FUNCTION void operator()(const index_t cell, const int k) const {
    for (index_t q = c.off(cell); q < c.off(cell + 1); ++q)
      c.rhs(cell, k) -= c.sign(q) * c.flux(c.faces(q), k) / c.volume(cell);
  }
};

/// The conserved boundary state of the owner's state, per face of one patch.
template <class BC> struct FlowBoundaryValues {
  flow::IdealGas eos;
  BC bc;
  ConstView1<index_t> owner;
  ConstVec3View<real> S;
  ConstView2<real> u;
  View2<real> ub;
  index_t n_interior;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const index_t o = owner(f);
    const flow::Conserved U{u(o, 0), {u(o, 1), u(o, 2), u(o, 3)}, u(o, 4)};
    const real a = kc::sqrt(S(f, 0) * S(f, 0) + S(f, 1) * S(f, 1) + S(f, 2) * S(f, 2));
    const real n[3] = {S(f, 0) / a, S(f, 1) / a, S(f, 2) / a};
    const flow::Conserved B = flow::to_conserved(flow_detail::outside_state(bc, flow::to_primitive(U, eos), n, f), eos);
    const index_t b = f - n_interior;
    ub(b, 0) = B.rho, ub(b, 1) = B.m[0], ub(b, 2) = B.m[1], ub(b, 3) = B.m[2], ub(b, 4) = B.E;
  }
};

class NaiveFlowConvection final
    : public NaiveFaceOperator<NaiveFlowConvection, FlowConvectionOperator, NaiveFlowGather, NaiveFlowScatter> {
public:
  NaiveFlowConvection(const Mesh& m, const FlowConvectionConfig& cfg, const std::vector<FlowPatchBC>& patches,
                      bool gather)
      : NaiveFaceOperator(m, gather, "fvproxy::flow_convection", NV), cfg_(cfg),
        bc_patch_("fvproxy::flow_convection::naive_bc_patch", m.n_faces - m.n_interior),
        bcs_("fvproxy::flow_convection::naive_bcs", patches.size()) {
    auto t = Kokkos::create_mirror_view(bc_patch_);
    auto c = Kokkos::create_mirror_view(bcs_);
    for (std::size_t p = 0; p < m.patches.size(); ++p) {
      c(p) = patches.at(p);
      if (patches[p].non_reflecting) incoming_ = patches[p].incoming, impedance_ = patches[p].impedance; // the solver's
      for (index_t f = m.patches[p].begin; f < m.patches[p].end; ++f) t(f - m.n_interior) = static_cast<int>(p);
    }
    Kokkos::deep_copy(bc_patch_, t);
    Kokkos::deep_copy(bcs_, c);
  }
  /// The kernel of one launch (NaiveFaceOperator).
  NaiveFlow kernel(ConstView2<real> u, ConstView2<real> grad, ConstView2<real> lim, View2<real> rhs) const {
    return NaiveFlow{naive::NaiveFaces::of(m_),
                     bc_patch_,
                     bcs_,
                     incoming_,
                     impedance_,
                     u,
                     grad,
                     lim,
                     rhs,
                     m_.n_interior,
                     m_.n_cells,
                     NV,
                     cfg_.order,
                     static_cast<int>(cfg_.flux),
                     cfg_.reconstruction == FlowVariables::primitive,
                     cfg_.gas.gamma,
                     cfg_.gas.gas_constant,
                     cfg_.entropy_fix,
                     cfg_.rotation(),
                     cfg_.shear()};
  }

private:
  FlowConvectionConfig cfg_;
  View1<int> bc_patch_;
  View1<flow::FlowCondition> bcs_;
  ConstView1<real> incoming_, impedance_;
};

struct FlowCflRate {
  flow::IdealGas eos;
  ConstView1<index_t> off, faces;
  ConstVec3View<real> S;
  ConstView1<real> inv_volume;
  ConstView2<real> u;
  KOKKOS_FUNCTION void operator()(const index_t c, double& m) const {
    const flow::Conserved U{u(c, 0), {u(c, 1), u(c, 2), u(c, 3)}, u(c, 4)};
    const Primitive w = flow::to_primitive(U, eos);
    const real cs = eos.sound_speed(w.rho, w.p);
    real sum = 0;
    for (index_t q = off(c); q < off(c + 1); ++q) {
      const index_t f = faces(q);
      const real a = kc::sqrt(S(f, 0) * S(f, 0) + S(f, 1) * S(f, 1) + S(f, 2) * S(f, 2));
      sum += kc::fabs(w.u[0] * S(f, 0) + w.u[1] * S(f, 1) + w.u[2] * S(f, 2)) + cs * a;
    }
    const double lam = double(real(0.5) * sum * inv_volume(c));
    if (lam > m) m = lam;
  }
};

} // namespace

std::unique_ptr<FlowConvectionOperator> make_flow_convection(const Mesh& mesh, const OperatorGeometry& geom,
                                                             const FlowConvectionConfig& cfg,
                                                             const std::vector<FlowPatchBC>& patches,
                                                             bool deterministic) {
  if (patches.size() != mesh.patches.size())
    throw std::logic_error("make_flow_convection: " + std::to_string(patches.size()) + " boundary conditions for " +
                           std::to_string(mesh.patches.size()) + " patches");
  const Scatter scatter = resolved_scatter(cfg.scatter, deterministic);
  if (cfg.variant == Variant::naive)
    return std::make_unique<NaiveFlowConvection>(mesh, cfg, patches, scatter != Scatter::atomic);
  switch (cfg.flux) {
  case flow::FluxType::rusanov: return flow_detail::make_optimized_rusanov(mesh, geom, cfg, patches, scatter);
  case flow::FluxType::hllc: return flow_detail::make_optimized_hllc(mesh, geom, cfg, patches, scatter);
  case flow::FluxType::roe: break;
  }
  return flow_detail::make_optimized_roe(mesh, geom, cfg, patches, scatter);
}

void flow_boundary_values(const Mesh& mesh, const flow::IdealGas& gas, const std::vector<FlowPatchBC>& patches,
                          ConstView2<real> u, View2<real> ub, Rows rows) {
  for (std::size_t p = 0; p < mesh.patches.size(); ++p)
    for (const IndexRange pa : patch_faces(mesh, p, rows)) {
      if (pa.size() == 0) continue;
      with_bc(patches.at(p), gas, mesh.face_centroid, [&](auto b) {
        Kokkos::parallel_for(
            "fvproxy::flow_convection::boundary_values", Kokkos::RangePolicy<ExecSpace>(pa.begin, pa.end),
            FlowBoundaryValues<decltype(b)>{gas, b, mesh.face_owner, mesh.face_area, u, ub, mesh.n_interior});
      });
    }
}

namespace {
/// flow_relax_incoming's kernel, per face of one non-reflecting patch (Fixed: its condition).
template <class Fixed> struct RelaxIncoming {
  Fixed fixed;
  flow::IdealGas eos;
  ConstView1<index_t> owner;
  ConstVec3View<real> S;
  ConstView2<real> u;
  View1<real> w, w_n, z;
  index_t first;
  real a, dt, sigma, length;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const index_t o = owner(f), b = f - first;
    const real area = kc::sqrt(S(f, 0) * S(f, 0) + S(f, 1) * S(f, 1) + S(f, 2) * S(f, 2));
    const real n[3] = {S(f, 0) / area, S(f, 1) / area, S(f, 2) / area};
    const Primitive in = flow::to_primitive(flow::Conserved{u(o, 0), {u(o, 1), u(o, 2), u(o, 3)}, u(o, 4)}, eos);
    const Primitive target = fixed(in, n);
    const real wb = w(b), zb = z(b);
    if (a == 0) w_n(b) = wb;
    const Primitive ghost = flow::with_incoming(target, in, n, eos.gamma, wb, zb);
    const real rate =
        flow::incoming_rate(wb, flow::incoming_characteristic(target, n, zb), ghost, n, eos.gamma, sigma, length);
    w(b) = a * w_n(b) + (1 - a) * (wb + dt * rate);
  }
};
/// flow_relax_incoming's start (IncomingStep::start, from_cells): z the owner cell's rho c, w the fixed
/// condition's characteristic or the cell's own.
template <class Fixed> struct StartIncoming {
  Fixed fixed;
  flow::IdealGas eos;
  ConstView1<index_t> owner;
  ConstVec3View<real> S;
  ConstView2<real> u;
  View1<real> w, z;
  index_t first;
  bool from_cells;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const index_t o = owner(f), b = f - first;
    const real area = kc::sqrt(S(f, 0) * S(f, 0) + S(f, 1) * S(f, 1) + S(f, 2) * S(f, 2));
    const real n[3] = {S(f, 0) / area, S(f, 1) / area, S(f, 2) / area};
    const Primitive in = flow::to_primitive(flow::Conserved{u(o, 0), {u(o, 1), u(o, 2), u(o, 3)}, u(o, 4)}, eos);
    z(b) = kc::sqrt(eos.gamma * in.p * in.rho);
    w(b) = flow::incoming_characteristic(from_cells ? in : fixed(in, n), n, z(b));
  }
};
} // namespace

void flow_relax_incoming(const Mesh& mesh, const flow::IdealGas& gas, const std::vector<FlowPatchBC>& patches,
                         ConstView2<real> u, View1<real> w, View1<real> w_n, View1<real> z, IncomingStep what, real a,
                         real dt) {
  for (std::size_t p = 0; p < mesh.patches.size(); ++p) {
    const FlowPatchBC& bc = patches.at(p);
    if (!bc.non_reflecting) continue;
    auto launch = [&](auto fixed) {
      using F = decltype(fixed);
      for (const IndexRange pa : patch_faces(mesh, p, Rows::all)) {
        if (pa.size() == 0) continue;
        const auto range = Kokkos::RangePolicy<ExecSpace>(pa.begin, pa.end);
        if (what == IncomingStep::stage)
          Kokkos::parallel_for("fvproxy::flow_convection::relax_incoming", range,
                               RelaxIncoming<F>{fixed, gas, mesh.face_owner, mesh.face_area, u, w, w_n, z,
                                                bc.incoming_first, a, dt, bc.nr_sigma, bc.nr_length});
        else
          Kokkos::parallel_for("fvproxy::flow_convection::start_incoming", range,
                               StartIncoming<F>{fixed, gas, mesh.face_owner, mesh.face_area, u, w, z, bc.incoming_first,
                                                what == IncomingStep::from_cells});
      }
    };
    flow::with_condition(bc, gas, [&](auto fixed) {
      if constexpr (flow::can_be_non_reflecting_v<decltype(fixed)>) launch(fixed);
    });
  }
}

View1<int> boundary_slots(const Mesh& mesh, const std::vector<FlowPatchBC>& patches, int& most) {
  View1<int> slot("fvproxy::flow_convection::boundary_slots", mesh.n_boundary_rows());
  auto h = Kokkos::create_mirror_view(slot);
  Kokkos::deep_copy(h, -1);
  auto owner = Kokkos::create_mirror_view_and_copy(HostSpace(), mesh.face_owner);
  auto xf = Kokkos::create_mirror_view_and_copy(HostSpace(), mesh.face_centroid);
  struct Face {
    index_t owner;
    std::size_t patch;
    real x[3];
    index_t f;
  };
  std::vector<Face> faces;
  for (std::size_t p = 0; p < mesh.patches.size(); ++p)
    if (patches.at(p).non_reflecting)
      for (const IndexRange pa : patch_faces(mesh, p, Rows::all))
        for (index_t f = pa.begin; f < pa.end; ++f) faces.push_back({owner(f), p, {xf(f, 0), xf(f, 1), xf(f, 2)}, f});
  std::sort(faces.begin(), faces.end(), [](const Face& a, const Face& b) {
    if (a.owner != b.owner) return a.owner < b.owner;
    if (a.patch != b.patch) return a.patch < b.patch;
    return std::lexicographical_compare(a.x, a.x + 3, b.x, b.x + 3);
  });
  most = 0;
  for (std::size_t i = 0, k = 0; i < faces.size(); ++i) {
    k = i > 0 && faces[i].owner == faces[i - 1].owner ? k + 1 : 0;
    h(faces[i].f - mesh.n_interior) = static_cast<int>(k);
    most = std::max(most, static_cast<int>(k) + 1);
  }
  Kokkos::deep_copy(slot, h);
  return slot;
}

namespace {
/// pack_boundary_slots' kernels: zero the slot columns of each owned cell; then per face of a patch.
struct ClearSlots {
  View2<real> ck;
  int first, width;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    for (int j = 0; j < width; ++j) ck(c, first + j) = 0;
  }
};
struct PackSlots {
  ConstView1<index_t> owner;
  ConstView1<int> slot;
  ConstView1<real> w, z;
  View2<real> ck;
  int first;
  index_t n_interior;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const index_t b = f - n_interior, c = owner(f);
    ck(c, first + slot(b)) = w(b), ck(c, first + kBoundarySlots + slot(b)) = z(b);
  }
};
/// unpack_boundary_slots' kernel, per face of a patch.
struct UnpackSlots {
  ConstView1<index_t> owner;
  ConstView1<int> slot;
  ConstView2<real> slots;
  View1<real> w, z;
  index_t n_interior;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const index_t b = f - n_interior, c = owner(f);
    w(b) = slots(c, slot(b)), z(b) = slots(c, kBoundarySlots + slot(b));
  }
};
} // namespace

void pack_boundary_slots(const Mesh& mesh, const std::vector<FlowPatchBC>& patches, ConstView1<int> slot,
                         ConstView1<real> w, ConstView1<real> z, View2<real> ck, int first) {
  Kokkos::parallel_for("fvproxy::flow_convection::clear_boundary_slots",
                       Kokkos::RangePolicy<ExecSpace>(0, mesh.n_cells),
                       ClearSlots{ck, first, static_cast<int>(ck.extent(1)) - first});
  for (std::size_t p = 0; p < mesh.patches.size(); ++p)
    if (patches.at(p).non_reflecting && mesh.patches[p].end > mesh.patches[p].begin) // the owned cells' faces
      Kokkos::parallel_for("fvproxy::flow_convection::pack_boundary_slots",
                           Kokkos::RangePolicy<ExecSpace>(mesh.patches[p].begin, mesh.patches[p].end),
                           PackSlots{mesh.face_owner, slot, w, z, ck, first, mesh.n_interior});
}

void unpack_boundary_slots(const Mesh& mesh, const std::vector<FlowPatchBC>& patches, ConstView1<int> slot,
                           ConstView2<real> slots, View1<real> w, View1<real> z) {
  for (std::size_t p = 0; p < mesh.patches.size(); ++p)
    if (patches.at(p).non_reflecting)
      for (const IndexRange pa : patch_faces(mesh, p, Rows::all))
        if (pa.size() > 0)
          Kokkos::parallel_for("fvproxy::flow_convection::unpack_boundary_slots",
                               Kokkos::RangePolicy<ExecSpace>(pa.begin, pa.end),
                               UnpackSlots{mesh.face_owner, slot, slots, w, z, mesh.n_interior});
}

namespace {
/// W = (rho, u, v, w, p) of the conserved state, per cell.
struct PrimitiveState {
  flow::IdealGas eos;
  ConstView2<real> u;
  View2<real> w;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    const flow::Conserved U{u(c, 0), {u(c, 1), u(c, 2), u(c, 3)}, u(c, 4)};
    const Primitive p = flow::to_primitive(U, eos);
    w(c, 0) = p.rho, w(c, 1) = p.u[0], w(c, 2) = p.u[1], w(c, 3) = p.u[2], w(c, 4) = p.p;
  }
};
/// The primitive boundary state of the owner's W, per face of one patch.
template <class BC> struct PrimitiveBoundaryState {
  BC bc;
  ConstView1<index_t> owner;
  ConstVec3View<real> S;
  ConstView2<real> w;
  View2<real> wb;
  index_t n_interior;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const index_t o = owner(f), b = f - n_interior;
    const real a = kc::sqrt(S(f, 0) * S(f, 0) + S(f, 1) * S(f, 1) + S(f, 2) * S(f, 2));
    const real n[3] = {S(f, 0) / a, S(f, 1) / a, S(f, 2) / a};
    const Primitive B = flow_detail::outside_state(bc, Primitive{w(o, 0), {w(o, 1), w(o, 2), w(o, 3)}, w(o, 4)}, n, f);
    wb(b, 0) = B.rho, wb(b, 1) = B.u[0], wb(b, 2) = B.u[1], wb(b, 3) = B.u[2], wb(b, 4) = B.p;
  }
};
} // namespace

void flow_primitive_state(const Mesh& mesh, const flow::IdealGas& gas, const std::vector<FlowPatchBC>& patches,
                          ConstView2<real> u, View2<real> w, View2<real> wb, Rows rows) {
  const IndexRange cells = PartRanges::of(mesh).rows(rows, mesh.n_local());
  if (cells.size() > 0)
    Kokkos::parallel_for("fvproxy::flow_convection::primitive_state",
                         Kokkos::RangePolicy<ExecSpace>(cells.begin, cells.end), PrimitiveState{gas, u, w});
  for (std::size_t p = 0; p < mesh.patches.size(); ++p)
    for (const IndexRange pa : patch_faces(mesh, p, rows)) {
      if (pa.size() == 0) continue;
      with_bc(patches.at(p), gas, mesh.face_centroid, [&](auto b) {
        Kokkos::parallel_for(
            "fvproxy::flow_convection::primitive_boundary_state", Kokkos::RangePolicy<ExecSpace>(pa.begin, pa.end),
            PrimitiveBoundaryState<decltype(b)>{b, mesh.face_owner, mesh.face_area, w, wb, mesh.n_interior});
      });
    }
}

namespace {
template <ImageVariables V> struct ImageValues {
  ConstView1<index_t> cell;
  ConstView2<index_t> patch;
  ConstView2<real> normal;
  ConstView2<real> rules; ///< flow_mirror_rules
  flow::IdealGas eos;
  ConstView2<real> v;
  View2<real> vb;
  index_t first_row;
  KOKKOS_FUNCTION void operator()(const index_t e) const {
    const index_t j = cell(e);
    Primitive w;
    real T = 0;
    if constexpr (V == ImageVariables::conserved)
      w = flow::to_primitive(flow::Conserved{v(j, 0), {v(j, 1), v(j, 2), v(j, 3)}, v(j, 4)}, eos);
    else if constexpr (V == ImageVariables::primitive)
      w = Primitive{v(j, 0), {v(j, 1), v(j, 2), v(j, 3)}, v(j, 4)};
    else
      w.u[0] = v(j, 0), w.u[1] = v(j, 1), w.u[2] = v(j, 2), T = v(j, 3);
    for (int i = 0; i < 3; ++i) {
      const index_t p = patch(e, i);
      if (p < 0) break;
      if (rules(p, 0) > 0) { // no-slip: 2 u_wall - u; isothermal: 2 T_wall - T
        for (int q = 0; q < 3; ++q) w.u[q] = 2 * rules(p, 1 + q) - w.u[q];
        if (rules(p, 4) > 0) T = 2 * rules(p, 4) - T;
      } else {
        const real n[3] = {normal(e, 3 * i), normal(e, 3 * i + 1), normal(e, 3 * i + 2)};
        const real un = flow::dot(w.u, n);
        for (int q = 0; q < 3; ++q) w.u[q] -= 2 * un * n[q];
      }
    }
    const index_t row = first_row + e;
    if constexpr (V == ImageVariables::conserved) {
      const flow::Conserved U = flow::to_conserved(w, eos);
      vb(row, 0) = U.rho, vb(row, 1) = U.m[0], vb(row, 2) = U.m[1], vb(row, 3) = U.m[2], vb(row, 4) = U.E;
    } else if constexpr (V == ImageVariables::primitive) {
      vb(row, 0) = w.rho, vb(row, 1) = w.u[0], vb(row, 2) = w.u[1], vb(row, 3) = w.u[2], vb(row, 4) = w.p;
    } else {
      vb(row, 0) = w.u[0], vb(row, 1) = w.u[1], vb(row, 2) = w.u[2], vb(row, 3) = T;
    }
  }
};
} // namespace

View2<real> flow_mirror_rules(const std::vector<FlowPatchBC>& patches) {
  View2<real> rules("fvproxy::flow_convection::mirror_rules", patches.size(), 5);
  auto h = Kokkos::create_mirror_view(rules);
  for (std::size_t p = 0; p < patches.size(); ++p) {
    h(p, 0) = patches[p].type == FlowBoundaryKind::no_slip_wall ? 1 : 0;
    for (int q = 0; q < 3; ++q) h(p, 1 + q) = patches[p].wall_velocity[q];
    h(p, 4) = patches[p].wall_temperature;
  }
  Kokkos::deep_copy(rules, h);
  return rules;
}

void flow_image_values(const OperatorGeometry& og, const flow::IdealGas& gas, ConstView2<real> rules,
                       ImageVariables what, ConstView2<real> v, View2<real> vb, Rows rows) {
  const VertexStencil& s = og.stencil;
  const index_t begin = rows == Rows::ghosts ? s.n_owned_images : 0;
  const index_t end = rows == Rows::all || rows == Rows::ghosts ? s.n_images : s.n_owned_images;
  if (end <= begin) return;
  const auto range = Kokkos::RangePolicy<ExecSpace>(begin, end);
  const char* label = "fvproxy::flow_convection::image_values";
  switch (what) {
  case ImageVariables::conserved:
    Kokkos::parallel_for(label, range,
                         ImageValues<ImageVariables::conserved>{s.image_cell, s.image_patch, s.image_normal, rules, gas,
                                                                v, vb, s.first_row});
    break;
  case ImageVariables::primitive:
    Kokkos::parallel_for(label, range,
                         ImageValues<ImageVariables::primitive>{s.image_cell, s.image_patch, s.image_normal, rules, gas,
                                                                v, vb, s.first_row});
    break;
  case ImageVariables::velocity_temperature:
    Kokkos::parallel_for(label, range,
                         ImageValues<ImageVariables::velocity_temperature>{s.image_cell, s.image_patch, s.image_normal,
                                                                           rules, gas, v, vb, s.first_row});
    break;
  }
}

namespace {
/// flow_positivity_limit's kernel: one cell per work item, its face states from its own values.
template <FlowVariables R> struct PositivityLimit {
  optimized::GradientGeometry g;
  flow::IdealGas eos;
  ConstView2<real> u, grad;
  View2<real> lim;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    real base[NV], gr[NV][3], phi[NV]; // U_c, or W_c
    for (int k = 0; k < NV; ++k) {
      base[k] = u(c, k), phi[k] = lim(c, k);
      for (int i = 0; i < 3; ++i) gr[k][i] = grad(c, 3 * k + i);
    }
    if constexpr (R == FlowVariables::primitive) {
      const Primitive w = flow::to_primitive(flow::Conserved{base[0], {base[1], base[2], base[3]}, base[4]}, eos);
      base[0] = w.rho, base[1] = w.u[0], base[2] = w.u[1], base[3] = w.u[2], base[4] = w.p;
    }
    if (!physical_face_states<R>(g, eos, c, base, gr, phi))
      for (int k = 0; k < NV; ++k) lim(c, k) = 0;
  }
};
} // namespace

void flow_positivity_limit(const Mesh& mesh, const OperatorGeometry& og, FlowVariables rec, const flow::IdealGas& gas,
                           ConstView2<real> u, ConstView2<real> grad, View2<real> lim, Part part) {
  const IndexRange cells = PartRanges::of(mesh).cells(part);
  if (cells.size() == 0) return;
  const Kokkos::RangePolicy<ExecSpace> range(cells.begin, cells.end);
  const optimized::GradientGeometry g = optimized::gradient_geometry(mesh, og);
  if (rec == FlowVariables::primitive)
    Kokkos::parallel_for("fvproxy::flow_convection::positivity_limit", range,
                         PositivityLimit<FlowVariables::primitive>{g, gas, u, grad, lim});
  else
    Kokkos::parallel_for("fvproxy::flow_convection::positivity_limit", range,
                         PositivityLimit<FlowVariables::conservative>{g, gas, u, grad, lim});
}

namespace {
/// flow_entering_first_order's kernel: one face of an extrapolating patch per work item.
struct EnteringFirstOrder {
  ConstView1<index_t> owner;
  ConstVec3View<real> S;
  ConstView2<real> u;
  View2<real> grad;
  index_t first;
  IndexRange cells;
  KOKKOS_FUNCTION void operator()(const index_t i) const {
    const index_t f = first + i, c = owner(f);
    if (c < cells.begin || c >= cells.end) return;
    if (u(c, 1) * S(f, 0) + u(c, 2) * S(f, 1) + u(c, 3) * S(f, 2) >= 0) return;
    for (index_t j = 0; j < index_t(grad.extent(1)); ++j) grad(c, j) = 0; // every face of c: the same zeros
  }
};
} // namespace

void flow_entering_first_order(const Mesh& mesh, const std::vector<FlowPatchBC>& patches, ConstView2<real> u,
                               View2<real> grad, Part part) {
  const IndexRange cells = PartRanges::of(mesh).cells(part);
  if (cells.size() == 0) return;
  // the owned cells' boundary faces, or the first ghost layer's (Part::layer1)
  const std::vector<Patch>& faces = part == Part::layer1 ? mesh.layer1_patches : mesh.patches;
  for (std::size_t p = 0; p < patches.size() && p < faces.size(); ++p) {
    if (patches[p].type != FlowBoundaryKind::supersonic_outflow || faces[p].end == faces[p].begin) continue;
    Kokkos::parallel_for("fvproxy::flow_convection::entering_first_order",
                         Kokkos::RangePolicy<ExecSpace>(0, faces[p].end - faces[p].begin),
                         EnteringFirstOrder{mesh.face_owner, mesh.face_area, u, grad, faces[p].begin, cells});
  }
}

namespace {
/// flow_first_order_neighbourhood's kernel: cell c is kept when it or a face neighbour is marked.
struct MarkedNeighbourhood {
  ConstView1<index_t> off, faces, owner, neighbour;
  ConstView1<real> marked;
  View1<int> keep;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    int k = marked(c) != 0;
    for (index_t i = off(c); i < off(c + 1) && !k; ++i) {
      const index_t f = faces(i), o = owner(f) == c ? neighbour(f) : owner(f);
      k = o >= 0 && marked(o) != 0;
    }
    keep(c) = k;
  }
};

struct ZeroGradientRows {
  ConstView1<index_t> cells;
  View2<real> grad;
  IndexRange part;
  KOKKOS_FUNCTION void operator()(const index_t i) const {
    const index_t c = cells(i);
    if (c < part.begin || c >= part.end) return;
    for (index_t j = 0; j < index_t(grad.extent(1)); ++j) grad(c, j) = 0;
  }
};
} // namespace

View1<index_t> flow_first_order_neighbourhood(const Mesh& mesh, ConstView1<real> marked) {
  const index_t n = mesh.n_gradient_cells();
  View1<int> keep("fvproxy::flow_convection::first_order_keep", n);
  Kokkos::parallel_for(
      "fvproxy::flow_convection::first_order_neighbourhood", Kokkos::RangePolicy<ExecSpace>(0, n),
      MarkedNeighbourhood{mesh.cell_face_off, mesh.cell_faces, mesh.face_owner, mesh.face_neighbour, marked, keep});
  const auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), keep);
  std::vector<index_t> rows;
  for (index_t c = 0; c < n; ++c)
    if (h(c)) rows.push_back(c);
  View1<index_t> cells("fvproxy::flow_convection::first_order_cells", rows.size());
  Kokkos::deep_copy(cells, Kokkos::View<const index_t*, HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                               rows.data(), rows.size()));
  return cells;
}

void flow_first_order_cells(const Mesh& mesh, ConstView1<index_t> cells, View2<real> grad, Part part) {
  const IndexRange range = PartRanges::of(mesh).cells(part);
  if (cells.extent(0) == 0 || range.size() == 0) return;
  Kokkos::parallel_for("fvproxy::flow_convection::first_order_cells",
                       Kokkos::RangePolicy<ExecSpace>(0, index_t(cells.extent(0))),
                       ZeroGradientRows{cells, grad, range});
}

double flow_max_rate(const Mesh& mesh, const flow::IdealGas& gas, ConstView2<real> u) {
  double m = 0;
  Kokkos::parallel_reduce("fvproxy::flow_convection::max_rate", Kokkos::RangePolicy<ExecSpace>(0, mesh.n_cells),
                          FlowCflRate{gas, mesh.cell_face_off, mesh.cell_faces, mesh.face_area, mesh.inv_volume, u},
                          Kokkos::Max<double>(m));
  return m;
}

LimiterScale flow_limiter_scale() {
  return LimiterScale{{0, 0, 0, 0, 0}, {0, 1, 1, 1, 2}};
}

} // namespace fvproxy
