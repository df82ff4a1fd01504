// The convection operator's ablation ladder (operators/ladder/ladder.hpp): from the naive port
// (step 0) to the optimized kernels (step 6), one mistake removed per step. The naive convection
// already loops over 3 directions: step 2 makes the component count compile-time only.
#include "core/kokkos_compat.hpp"
#include "operators/boundary_patches.hpp"
#include "operators/ladder/ladder_common.hpp"
#include "physics/fluxes.hpp"

namespace fvproxy {

namespace ladder {

/// The naive convection's data and per-(face, component) flux, as operators/convection/convection.cpp
/// has them (a copy: that file keeps them private): run-time order and boundary-type branches,
/// reconstruction vectors recomputed from centroids and periodic shifts.
struct ConvectionData {
  Geometry g;
  ConstView1<std::int8_t> face_type; ///< per boundary face: 0 value (dirichlet/inflow), 1 outflow
  ConstView1<real> phi;
  ConstView2<real> u, ub, grad, limiter;
  View2<real> rhs;
  int order;
  KOKKOS_FUNCTION real state(index_t c, index_t f, int k, bool shifted) const {
    if (order == 1) return u(c, k);
    real v = u(c, k);
    for (int i = 0; i < 3; ++i) {
      const real xc = shifted ? g.C(c, i) + g.T(g.shift(f), i) : g.C(c, i);
      v += limiter(c, k) * grad(c, 3 * k + i) * (g.F(f, i) - xc);
    }
    return v;
  }
  KOKKOS_FUNCTION real flux(index_t f, int k) const {
    const real uL = state(g.owner(f), f, k, false);
    real uR;
    if (f < g.n_interior)
      uR = state(g.neighbour(f), f, k, true);
    else if (face_type(f - g.n_interior) == 1)
      uR = uL;
    else
      uR = ub(f - g.n_interior, k);
    return UpwindFlux{}(phi(f), uL, uR);
  }
  /// The naive scatter's update of one (face, component): atomics, a division by the volume each.
  KOKKOS_FUNCTION void scatter(index_t f, int k) const {
    const real fl = flux(f, k);
    if (g.owner(f) < g.n_owned) Kokkos::atomic_add(&rhs(g.owner(f), k), -fl / g.volume(g.owner(f)));
    if (f < g.n_interior && g.neighbour(f) < g.n_owned)
      Kokkos::atomic_add(&rhs(g.neighbour(f), k), fl / g.volume(g.neighbour(f)));
  }
};

// step 1: RangePolicy over faces, the component loop inside
struct Convection1 {
  ConvectionData d;
  int n;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    for (int k = 0; k < n; ++k) d.scatter(f, k);
  }
};

// step 2: the component count a template parameter
template <int N> struct Convection2 {
  ConvectionData d;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    for (int k = 0; k < N; ++k) d.scatter(f, k);
  }
};

/// Reconstructed state of cell c at offset rc = x_f - x_c, run-time order (step 3).
KOKKOS_INLINE_FUNCTION real reconstruct(const ConvectionData& d, index_t c, int k, const real* rc) {
  if (d.order == 1) return d.u(c, k);
  return d.u(c, k) +
         d.limiter(c, k) * (d.grad(c, 3 * k) * rc[0] + d.grad(c, 3 * k + 1) * rc[1] + d.grad(c, 3 * k + 2) * rc[2]);
}
/// The same, order a template (steps 4, 5).
template <int Order>
KOKKOS_INLINE_FUNCTION real reconstruct(const ConvectionData& d, index_t c, int k, const real* rc) {
  if constexpr (Order == 1) {
    (void)rc;
    return d.u(c, k);
  } else {
    return d.u(c, k) +
           d.limiter(c, k) * (d.grad(c, 3 * k) * rc[0] + d.grad(c, 3 * k + 1) * rc[1] + d.grad(c, 3 * k + 2) * rc[2]);
  }
}

/// x_f - x_owner and x_f - (the neighbour's periodic image), recomputed.
KOKKOS_INLINE_FUNCTION void face_offsets(const Geometry& g, index_t f, real* ro, real* rn) {
  const index_t o = g.owner(f), n = g.neighbour(f);
  for (int i = 0; i < 3; ++i) {
    ro[i] = g.F(f, i) - g.C(o, i);
    rn[i] = g.F(f, i) - (g.C(n, i) + g.T(g.shift(f), i));
  }
}

// step 3: registers: each face's indices, flux, volumes and offsets read or computed once
template <int N> struct Convection3 {
  ConvectionData d;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const Geometry& g = d.g;
    const index_t o = g.owner(f);
    const real p = d.phi(f), vo = g.volume(o);
    real ro[3];
    for (int i = 0; i < 3; ++i) ro[i] = g.F(f, i) - g.C(o, i);
    if (f < g.n_interior) {
      const index_t n = g.neighbour(f);
      const real vn = g.volume(n);
      const bool to_o = o < g.n_owned, to_n = n < g.n_owned;
      real rn[3];
      for (int i = 0; i < 3; ++i) rn[i] = g.F(f, i) - (g.C(n, i) + g.T(g.shift(f), i));
      for (int k = 0; k < N; ++k) {
        const real fl = UpwindFlux{}(p, reconstruct(d, o, k, ro), reconstruct(d, n, k, rn));
        if (to_o) Kokkos::atomic_add(&d.rhs(o, k), -fl / vo);
        if (to_n) Kokkos::atomic_add(&d.rhs(n, k), fl / vn);
      }
    } else {
      const index_t b = f - g.n_interior;
      const bool outflow = d.face_type(b) == 1;
      for (int k = 0; k < N; ++k) {
        const real uL = reconstruct(d, o, k, ro);
        const real fl = UpwindFlux{}(p, uL, outflow ? uL : d.ub(b, k));
        Kokkos::atomic_add(&d.rhs(o, k), -fl / vo);
      }
    }
  }
};

// step 4: the order a template; interior faces in one kernel, each patch in its own (Outflow a
// template): no branch per face
template <int N, int Order> struct ConvectionInterior4 {
  ConvectionData d;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const Geometry& g = d.g;
    const index_t o = g.owner(f), n = g.neighbour(f);
    const real p = d.phi(f), vo = g.volume(o), vn = g.volume(n);
    const bool to_o = o < g.n_owned, to_n = n < g.n_owned;
    real ro[3], rn[3];
    face_offsets(g, f, ro, rn);
    for (int k = 0; k < N; ++k) {
      const real fl = UpwindFlux{}(p, reconstruct<Order>(d, o, k, ro), reconstruct<Order>(d, n, k, rn));
      if (to_o) Kokkos::atomic_add(&d.rhs(o, k), -fl / vo);
      if (to_n) Kokkos::atomic_add(&d.rhs(n, k), fl / vn);
    }
  }
};

template <int N, int Order, bool Outflow> struct ConvectionPatch4 {
  ConvectionData d;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const Geometry& g = d.g;
    const index_t o = g.owner(f), b = f - g.n_interior;
    const real p = d.phi(f), vo = g.volume(o);
    real ro[3];
    for (int i = 0; i < 3; ++i) ro[i] = g.F(f, i) - g.C(o, i);
    for (int k = 0; k < N; ++k) {
      const real uL = reconstruct<Order>(d, o, k, ro);
      real uR;
      if constexpr (Outflow)
        uR = uL;
      else
        uR = d.ub(b, k);
      Kokkos::atomic_add(&d.rhs(o, k), -UpwindFlux{}(p, uL, uR) / vo);
    }
  }
};

// step 5: a gather: one cell per work item over its interior faces, one per run of a patch's
// faces of one owner (PatchRuns), sums in registers, rhs updated once per kernel
template <int N, int Order> struct ConvectionGather5 {
  ConvectionData d;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    const Geometry& g = d.g;
    real acc[N];
    for (int k = 0; k < N; ++k) acc[k] = 0;
    for (index_t q = g.off(c); q < g.bbegin(c); ++q) {
      const index_t f = g.faces(q), o = g.owner(f), n = g.neighbour(f);
      real ro[3], rn[3];
      face_offsets(g, f, ro, rn);
      const real s = g.sign(q), p = d.phi(f);
      for (int k = 0; k < N; ++k)
        acc[k] += s * UpwindFlux{}(p, reconstruct<Order>(d, o, k, ro), reconstruct<Order>(d, n, k, rn));
    }
    const real v = g.volume(c);
    for (int k = 0; k < N; ++k) d.rhs(c, k) -= acc[k] / v;
  }
};

template <int N, int Order, bool Outflow> struct ConvectionGatherPatch5 {
  ConvectionData d;
  ConstView2<index_t> runs;
  KOKKOS_FUNCTION void operator()(const index_t run) const {
    const Geometry& g = d.g;
    const index_t first = runs(run, 0), last = runs(run, 1), c = g.owner(first);
    real acc[N];
    for (int k = 0; k < N; ++k) acc[k] = 0;
    for (index_t f = first; f < last; ++f) {
      real ro[3];
      for (int i = 0; i < 3; ++i) ro[i] = g.F(f, i) - g.C(c, i);
      for (int k = 0; k < N; ++k) {
        const real uL = reconstruct<Order>(d, c, k, ro);
        if constexpr (Outflow)
          acc[k] += UpwindFlux{}(d.phi(f), uL, uL);
        else
          acc[k] += UpwindFlux{}(d.phi(f), uL, d.ub(f - g.n_interior, k));
      }
    }
    const real v = g.volume(c);
    for (int k = 0; k < N; ++k) d.rhs(c, k) -= acc[k] / v;
  }
};

class LadderConvection final : public ConvectionOperator {
public:
  LadderConvection(int step, const Mesh& m, const OperatorGeometry& og, const ConvectionConfig& cfg, View1<real> phi,
                   int n, const std::vector<BoundaryType>& types)
      : step_(step), n_(n), order_(cfg.order), n_faces_(m.n_faces), g_(Geometry::of(m, og)), phi_(phi),
        face_type_(outflow_face_flags(m, types, "fvproxy::convection::ladder_outflow_flags")),
        patches_(patch_owner_runs(m, types, "fvproxy::convection::ladder_patch_runs")) {}
  void apply(ConstView2<real> u, ConstView2<real> ub, ConstView2<real> grad, ConstView2<real> lim, View2<real> rhs,
             Part part) const override {
    check_part(part, "convection ladder");
    const ConvectionData d{g_, face_type_, phi_, u, ub, grad, lim, rhs, order_};
    if (n_ == 1) return run<1>(d);
    return run<5>(d);
  }
  std::string description() const override { return "ladder" + std::to_string(step_) + "/" + ladder_step_name(step_); }

private:
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>;
  template <int N> void run(const ConvectionData& d) const {
    const Range faces(0, n_faces_);
    if (step_ == 1) return Kokkos::parallel_for("fvproxy::convection::ladder1_scatter", faces, Convection1{d, n_});
    if (step_ == 2) return Kokkos::parallel_for("fvproxy::convection::ladder2_scatter", faces, Convection2<N>{d});
    if (step_ == 3) return Kokkos::parallel_for("fvproxy::convection::ladder3_scatter", faces, Convection3<N>{d});
    if (order_ == 1) return run<N, 1>(d);
    run<N, 2>(d);
  }
  template <int N, int Order> void run(const ConvectionData& d) const {
    if (step_ == 4) {
      Kokkos::parallel_for("fvproxy::convection::ladder4_interior", Range(0, g_.n_interior),
                           ConvectionInterior4<N, Order>{d});
      for (const auto& p : patches_) {
        if (p.type == BoundaryType::outflow)
          Kokkos::parallel_for("fvproxy::convection::ladder4_outflow", Range(p.begin, p.end),
                               ConvectionPatch4<N, Order, true>{d});
        else
          Kokkos::parallel_for("fvproxy::convection::ladder4_inflow", Range(p.begin, p.end),
                               ConvectionPatch4<N, Order, false>{d});
      }
      return;
    }
    Kokkos::parallel_for("fvproxy::convection::ladder5_gather_interior", Range(0, g_.n_owned),
                         ConvectionGather5<N, Order>{d});
    for (const auto& p : patches_) {
      const Range runs(0, p.n_runs());
      if (p.type == BoundaryType::outflow)
        Kokkos::parallel_for("fvproxy::convection::ladder5_gather_outflow", runs,
                             ConvectionGatherPatch5<N, Order, true>{d, p.runs});
      else
        Kokkos::parallel_for("fvproxy::convection::ladder5_gather_inflow", runs,
                             ConvectionGatherPatch5<N, Order, false>{d, p.runs});
    }
  }

  int step_, n_, order_;
  index_t n_faces_;
  Geometry g_;
  View1<real> phi_;
  View1<std::int8_t> face_type_;
  std::vector<PatchRuns> patches_;
};

} // namespace ladder

std::unique_ptr<ConvectionOperator> make_ladder_convection(int step, const Mesh& mesh, const OperatorGeometry& geom,
                                                           const ConvectionConfig& cfg, View1<real> phi, int components,
                                                           const std::vector<BoundaryType>& patch_types) {
  check_ladder_step(step, "ladder");
  check_ladder_components(components, "physics.components");
  if (step == 0 || step == kLadderSteps - 1)
    return make_convection(mesh, geom, ladder::step_options(cfg, step), phi, components, patch_types, false);
  return std::make_unique<ladder::LadderConvection>(step, mesh, geom, cfg, phi, components, patch_types);
}

} // namespace fvproxy
