// Convection: the naive port and the optimized kernels, and the factory.
#include "operators/convection/convection.hpp"

#include "operators/convection/scalar_convection.hpp"

#include "operators/component_dispatch.hpp"
#include "operators/face_launch.hpp"

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

// --- optimized: the shared kernels of convection_kernels.hpp on the scalar model. --------------

template <int N, Reconstruction R> class OptimizedConvection final : public ConvectionOperator {
public:
  OptimizedConvection(const Mesh& m, const OperatorGeometry& og, const ConvectionConfig& cfg, View1<real> phi,
                      const std::vector<BoundaryType>& types, Scatter scatter)
      : model_{phi}, g_(convection_geometry(m, og)),
        faces_(m, {cfg.policy, cfg.team_size}, scatter, N, "fvproxy::convection::"),
        patches_(patch_owner_runs(m, types, "fvproxy::convection::patch_runs")) {}
  void apply(ConstView2<real> u, ConstView2<real> ub, ConstView2<real> grad, ConstView2<real> lim, View2<real> rhs,
             Part part) const override {
    faces_.interior<N>(ConvectionInteriorKernels<ScalarUpwind<N>, R>{model_, g_, u, grad, lim}, rhs, part);
    scalar_convection_patches<N, R>(model_, g_, patches_, faces_.parts.n_interior, faces_.launch,
                                    faces_.gather_patches(), u, ub, grad, lim, rhs, part);
  }
  std::string description() const override { return faces_.description("optimized"); }

private:
  ScalarUpwind<N> model_;
  ConvectionGeometry g_;
  FaceLaunch faces_; ///< the interior faces' launch and accumulation
  std::vector<PatchRuns> patches_;
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

template <int N> struct MakeConvection {
  static std::unique_ptr<ConvectionOperator> make(const Mesh& m, const OperatorGeometry& og,
                                                  const ConvectionConfig& cfg, View1<real> phi,
                                                  const std::vector<BoundaryType>& types, Scatter scatter) {
    if (cfg.order == 1)
      return std::make_unique<OptimizedConvection<N, Reconstruction::first_order>>(m, og, cfg, phi, types, scatter);
    return std::make_unique<OptimizedConvection<N, Reconstruction::conservative>>(m, og, cfg, phi, types, scatter);
  }
};

} // namespace

std::unique_ptr<ConvectionOperator> make_convection(const Mesh& mesh, const OperatorGeometry& geom,
                                                    const ConvectionConfig& cfg, View1<real> phi, int components,
                                                    const std::vector<BoundaryType>& patch_types, bool deterministic) {
  if (cfg.variant == Variant::naive)
    return std::make_unique<NaiveConvectionOperator>(mesh, cfg.order, phi, components, patch_types, deterministic);
  return dispatch_components<MakeConvection>(components, mesh, geom, cfg, phi, patch_types,
                                             resolved_scatter(cfg.scatter, deterministic));
}

} // namespace fvproxy
