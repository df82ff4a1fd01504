// Convection: the naive port and the optimized kernels, and the factory.
#include "operators/convection/convection.hpp"

#include "operators/boundary_patches.hpp"
#include "operators/component_dispatch.hpp"
#include "operators/launch.hpp"
#include "physics/fluxes.hpp"

namespace fvproxy {

namespace {

// --- naive: MDRange (face|cell, component), run-time order and boundary-type branches, the
// reconstruction vectors recomputed from centroids and shifts, division by the volume, atomics. --
struct NaiveConvection {
  ConstVec3View<real> C, F, T;
  ConstView1<index_t> owner, neighbour, off, faces;
  ConstView1<std::int8_t> sign, face_type; // per boundary face: 0 value (dirichlet/inflow), 1 outflow
  ConstView1<std::uint8_t> shift;
  ConstView1<real> phi, volume;
  ConstView2<real> u, ub, grad, limiter;
  View2<real> rhs;
  index_t n_interior;
  index_t n_owned; ///< rows at or above it are ghosts, which the scatter never adds to
  int order;
  KOKKOS_FUNCTION real state(index_t c, index_t f, int k, bool shifted) const {
    if (order == 1) return u(c, k);
    real v = u(c, k);
    for (int i = 0; i < 3; ++i) {
      const real xc = shifted ? C(c, i) + T(shift(f), i) : C(c, i);
      v += limiter(c, k) * grad(c, 3 * k + i) * (F(f, i) - xc);
    }
    return v;
  }
  KOKKOS_FUNCTION real flux(index_t f, int k) const {
    const index_t o = owner(f);
    const real uL = state(o, f, k, false);
    real uR;
    if (f < n_interior)
      uR = state(neighbour(f), f, k, true);
    else if (face_type(f - n_interior) == 1)
      uR = uL;
    else
      uR = ub(f - n_interior, k);
    return UpwindFlux{}(phi(f), uL, uR);
  }
};

struct NaiveConvectionScatter {
  NaiveConvection c;
  KOKKOS_FUNCTION void operator()(const index_t f, const int k) const {
    const real fl = c.flux(f, k);
    if (c.owner(f) < c.n_owned) Kokkos::atomic_add(&c.rhs(c.owner(f), k), -fl / c.volume(c.owner(f)));
    if (f < c.n_interior && c.neighbour(f) < c.n_owned)
      Kokkos::atomic_add(&c.rhs(c.neighbour(f), k), fl / c.volume(c.neighbour(f)));
  }
};

struct NaiveConvectionGather {
  NaiveConvection c;
  KOKKOS_FUNCTION void operator()(const index_t cell, const int k) const {
    for (index_t q = c.off(cell); q < c.off(cell + 1); ++q)
      c.rhs(cell, k) -= c.sign(q) * c.flux(c.faces(q), k) / c.volume(cell);
  }
};

// --- optimized: template on N and the order, precomputed r and d, registers, one update per cell.
struct ConvectionGeometry {
  ConstView1<index_t> owner, neighbour, off, bbegin, faces;
  ConstView1<std::int8_t> sign;
  ConstVec3View<real> d, r;
  ConstView1<real> phi, inv_volume;
};

/// Reconstructed state of cell c at the face at offset rc = x_f - x_c.
template <int Order> KOKKOS_INLINE_FUNCTION real reconstruct(const ConstView2<real>& u, const ConstView2<real>& grad,
                                                             const ConstView2<real>& lim, index_t c, int k,
                                                             const real* rc) {
  if constexpr (Order == 1) {
    (void)grad, (void)lim, (void)rc;
    return u(c, k);
  } else {
    return u(c, k) + lim(c, k) * (grad(c, 3 * k) * rc[0] + grad(c, 3 * k + 1) * rc[1] + grad(c, 3 * k + 2) * rc[2]);
  }
}

template <int N, int Order> struct ConvectionGatherInterior {
  ConvectionGeometry g;
  ConstView2<real> u, grad, lim;
  View2<real> rhs;
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    real acc[N];
    for (int k = 0; k < N; ++k) acc[k] = 0;
    for (index_t q = g.off(c); q < g.bbegin(c); ++q) {
      const index_t f = g.faces(q), o = g.owner(f), n = g.neighbour(f);
      const real ro[3] = {g.r(f, 0), g.r(f, 1), g.r(f, 2)};
      const real rn[3] = {ro[0] - g.d(f, 0), ro[1] - g.d(f, 1), ro[2] - g.d(f, 2)};
      const real s = g.sign(q), p = g.phi(f);
      for (int k = 0; k < N; ++k)
        acc[k] +=
            s * UpwindFlux{}(p, reconstruct<Order>(u, grad, lim, o, k, ro), reconstruct<Order>(u, grad, lim, n, k, rn));
    }
    const real iv = g.inv_volume(c);
    for (int k = 0; k < N; ++k) rhs(c, k) -= acc[k] * iv;
  }
};

/// A boundary patch, one thread per run of faces with the same owner; Outflow: u_R = u_L.
template <int N, int Order, bool Outflow> struct ConvectionGatherPatch {
  ConvectionGeometry g;
  ConstView2<real> u, ub, grad, lim;
  View2<real> rhs;
  ConstView2<index_t> runs; ///< PatchRuns::runs
  index_t n_interior;
  KOKKOS_FUNCTION void operator()(const index_t run) const {
    const index_t first = runs(run, 0), last = runs(run, 1);
    const index_t c = g.owner(first);
    real acc[N];
    for (int k = 0; k < N; ++k) acc[k] = 0;
    for (index_t f = first; f < last; ++f) {
      const real ro[3] = {g.r(f, 0), g.r(f, 1), g.r(f, 2)};
      for (int k = 0; k < N; ++k) {
        const real uL = reconstruct<Order>(u, grad, lim, c, k, ro);
        if constexpr (Outflow)
          acc[k] += UpwindFlux{}(g.phi(f), uL, uL);
        else
          acc[k] += UpwindFlux{}(g.phi(f), uL, ub(f - n_interior, k));
      }
    }
    const real iv = g.inv_volume(c);
    for (int k = 0; k < N; ++k) rhs(c, k) -= acc[k] * iv;
  }
};

/// Cross (the faces between an owned cell and a ghost, operators/part.hpp): to the owned side only.
template <int N, int Order, bool Cross = false> struct ConvectionScatterInterior {
  ConvectionGeometry g;
  ConstView2<real> u, grad, lim;
  View2<real> rhs;
  index_t n_owned; ///< cells below it are owned (Cross)
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const index_t o = g.owner(f), n = g.neighbour(f);
    const bool to_o = !Cross || o < n_owned, to_n = !Cross || n < n_owned;
    const real ro[3] = {g.r(f, 0), g.r(f, 1), g.r(f, 2)};
    const real rn[3] = {ro[0] - g.d(f, 0), ro[1] - g.d(f, 1), ro[2] - g.d(f, 2)};
    const real io = g.inv_volume(o), in = g.inv_volume(n);
    for (int k = 0; k < N; ++k) {
      const real fl = UpwindFlux{}(g.phi(f), reconstruct<Order>(u, grad, lim, o, k, ro),
                                   reconstruct<Order>(u, grad, lim, n, k, rn));
      if (to_o) Kokkos::atomic_add(&rhs(o, k), -fl * io);
      if (to_n) Kokkos::atomic_add(&rhs(n, k), fl * in);
    }
  }
};

template <int N, int Order, bool Outflow> struct ConvectionScatterPatch {
  ConvectionGeometry g;
  ConstView2<real> u, ub, grad, lim;
  View2<real> rhs;
  index_t n_interior;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const index_t o = g.owner(f);
    const real ro[3] = {g.r(f, 0), g.r(f, 1), g.r(f, 2)};
    for (int k = 0; k < N; ++k) {
      const real uL = reconstruct<Order>(u, grad, lim, o, k, ro);
      const real uR = Outflow ? uL : ub(f - n_interior, k);
      Kokkos::atomic_add(&rhs(o, k), -UpwindFlux{}(g.phi(f), uL, uR) * g.inv_volume(o));
    }
  }
};

class NaiveConvectionOperator final : public ConvectionOperator {
public:
  NaiveConvectionOperator(const Mesh& m, int order, View1<real> phi, int n, const std::vector<BoundaryType>& types,
                          bool gather)
      : m_(m), phi_(phi), types_(outflow_face_flags(m, types, "fvproxy::convection::naive_outflow_flags")), n_(n),
        order_(order), gather_(gather) {}
  void apply(ConstView2<real> u, ConstView2<real> ub, ConstView2<real> grad, ConstView2<real> lim, View2<real> rhs,
             Part part) const override {
    const NaiveConvection c{m_.centroid,
                            m_.face_centroid,
                            m_.shifts,
                            m_.face_owner,
                            m_.face_neighbour,
                            m_.cell_face_off,
                            m_.cell_faces,
                            m_.cell_face_sign,
                            types_,
                            m_.face_shift,
                            phi_,
                            m_.volume,
                            u,
                            ub,
                            grad,
                            lim,
                            rhs,
                            m_.n_interior,
                            m_.n_cells,
                            order_};
    using MD = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>;
    const PartRanges parts = PartRanges::of(m_);
    if (gather_) {
      const IndexRange cells = parts.cells(part);
      if (cells.size() > 0)
        Kokkos::parallel_for("fvproxy::convection::naive_gather", MD({cells.begin, 0}, {cells.end, n_}),
                             NaiveConvectionGather{c});
      return;
    }
    for (const IndexRange r : parts.faces(part)) // Part::all: every face in one launch
      if (r.size() > 0)
        Kokkos::parallel_for("fvproxy::convection::naive_scatter", MD({r.begin, 0}, {r.end, n_}),
                             NaiveConvectionScatter{c});
  }
  std::string description() const override { return gather_ ? "naive/gather" : "naive/atomic"; }

private:
  Mesh m_;
  View1<real> phi_;
  View1<std::int8_t> types_;
  int n_, order_;
  bool gather_;
};

template <int N, int Order> class OptimizedConvection final : public ConvectionOperator {
public:
  OptimizedConvection(const Mesh& m, const OperatorGeometry& og, const ConvectionConfig& cfg, View1<real> phi,
                      const std::vector<BoundaryType>& types, bool gather)
      : g_{m.face_owner,
           m.face_neighbour,
           m.cell_face_off,
           og.cell_boundary_begin,
           m.cell_faces,
           m.cell_face_sign,
           og.d,
           og.r,
           phi,
           m.inv_volume},
        parts_(PartRanges::of(m)), n_interior_(m.n_interior), launch_{cfg.policy, cfg.team_size}, gather_(gather),
        patches_(patch_owner_runs(m, types, "fvproxy::convection::patch_runs")) {}
  void apply(ConstView2<real> u, ConstView2<real> ub, ConstView2<real> grad, ConstView2<real> lim, View2<real> rhs,
             Part part) const override {
    if (gather_) {
      launch("fvproxy::convection::gather_interior", parts_.cells(part), launch_,
             ConvectionGatherInterior<N, Order>{g_, u, grad, lim, rhs});
      for (const auto& p : patches_) { // the runs of the part's own cells, after their interior faces
        const IndexRange nr = p.runs_of(part);
        if (p.type == BoundaryType::outflow)
          launch("fvproxy::convection::gather_outflow", nr, launch_,
                 ConvectionGatherPatch<N, Order, true>{g_, u, ub, grad, lim, rhs, p.runs, n_interior_});
        else
          launch("fvproxy::convection::gather_inflow", nr, launch_,
                 ConvectionGatherPatch<N, Order, false>{g_, u, ub, grad, lim, rhs, p.runs, n_interior_});
      }
      return;
    }
    launch("fvproxy::convection::scatter_interior", parts_.owned_faces(part), launch_,
           ConvectionScatterInterior<N, Order>{g_, u, grad, lim, rhs, parts_.n_cells});
    launch("fvproxy::convection::scatter_cross", parts_.cross_faces(part), launch_,
           ConvectionScatterInterior<N, Order, true>{g_, u, grad, lim, rhs, parts_.n_cells});
    // Boundary faces belong to owned cells: their scatter kernels run with the inner part (or all).
    if (!PartRanges::has_boundary(part)) return;
    for (const auto& p : patches_) {
      const Kokkos::RangePolicy<ExecSpace> range(p.begin, p.end);
      if (p.type == BoundaryType::outflow)
        Kokkos::parallel_for("fvproxy::convection::scatter_outflow", range,
                             ConvectionScatterPatch<N, Order, true>{g_, u, ub, grad, lim, rhs, n_interior_});
      else
        Kokkos::parallel_for("fvproxy::convection::scatter_inflow", range,
                             ConvectionScatterPatch<N, Order, false>{g_, u, ub, grad, lim, rhs, n_interior_});
    }
  }
  std::string description() const override {
    return std::string("optimized/") + (gather_ ? "gather/" : "atomic/") + to_string(launch_.policy);
  }

private:
  ConvectionGeometry g_;
  PartRanges parts_;
  index_t n_interior_;
  LaunchOptions launch_;
  bool gather_;
  std::vector<PatchRuns> patches_;
};

template <int N> struct MakeConvection {
  static std::unique_ptr<ConvectionOperator> make(const Mesh& m, const OperatorGeometry& og,
                                                  const ConvectionConfig& cfg, View1<real> phi,
                                                  const std::vector<BoundaryType>& types, bool gather) {
    if (cfg.order == 1) return std::make_unique<OptimizedConvection<N, 1>>(m, og, cfg, phi, types, gather);
    return std::make_unique<OptimizedConvection<N, 2>>(m, og, cfg, phi, types, gather);
  }
};

} // namespace

std::unique_ptr<ConvectionOperator> make_convection(const Mesh& mesh, const OperatorGeometry& geom,
                                                    const ConvectionConfig& cfg, View1<real> phi, int components,
                                                    const std::vector<BoundaryType>& patch_types, bool deterministic) {
  if (cfg.variant == Variant::naive)
    return std::make_unique<NaiveConvectionOperator>(mesh, cfg.order, phi, components, patch_types, deterministic);
  const bool gather = deterministic || cfg.scatter == Scatter::gather;
  return dispatch_components<MakeConvection>(components, mesh, geom, cfg, phi, patch_types, gather);
}

} // namespace fvproxy
