// The diffusion operator's ablation ladder (operators/ladder/ladder.hpp): from the naive port
// (step 0) to the optimized kernels (step 6), one mistake removed per step.
#include "core/kokkos_compat.hpp"
#include "operators/boundary_patches.hpp"
#include "operators/diffusion/diffusion_naive.hpp"
#include "operators/ladder/ladder_common.hpp"
#include "physics/fluxes.hpp"

namespace fvproxy {

namespace ladder {

// step 1: RangePolicy over faces, the component loop inside the naive body
struct Diffusion1 {
  naive::DiffusionScatter s;
  int n;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    for (int k = 0; k < n; ++k) s(f, k);
  }
};

/// What steps 2 to 5 read.
struct DiffusionData {
  Geometry g;
  ConstView1<std::int8_t> face_type; ///< per boundary face: 0 value-type, 1 outflow
  ConstView1<real> kappa;
  ConstView2<real> u, ub, grad;
  View2<real> rhs;
};

// step 2: compile-time N and 3-D (fixed arrays); per (face, component) as the naive body
template <int N> struct Diffusion2 {
  DiffusionData d;
  KOKKOS_FUNCTION real flux(index_t f, int k) const {
    const Geometry& g = d.g;
    const index_t o = g.owner(f);
    real s[3], v[3], gb[3];
    for (int i = 0; i < 3; ++i) s[i] = g.S(f, i);
    g.owner_to_other(f, v);
    if (f < g.n_interior) {
      const index_t n = g.neighbour(f);
      for (int i = 0; i < 3; ++i) gb[i] = (d.grad(o, 3 * k + i) + d.grad(n, 3 * k + i)) / 2;
      return DiffusionFlux{}(d.kappa(k), DiffusionCoefficients::from(s, v), d.u(o, k), d.u(n, k), gb);
    }
    if (d.face_type(f - g.n_interior) == 1) return 0; // outflow
    for (int i = 0; i < 3; ++i) gb[i] = d.grad(o, 3 * k + i);
    return DiffusionFlux{}(d.kappa(k), DiffusionCoefficients::from(s, v), d.u(o, k), d.ub(f - g.n_interior, k), gb);
  }
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const Geometry& g = d.g;
    for (int k = 0; k < N; ++k) {
      const real fl = flux(f, k);
      if (g.owner(f) < g.n_owned) Kokkos::atomic_add(&d.rhs(g.owner(f), k), fl / g.volume(g.owner(f)));
      if (f < g.n_interior && g.neighbour(f) < g.n_owned)
        Kokkos::atomic_add(&d.rhs(g.neighbour(f), k), -fl / g.volume(g.neighbour(f)));
    }
  }
};

// step 3: registers: each face's coefficients, indices and volumes computed or read once, kappa
// in registers
template <int N> struct Diffusion3 {
  DiffusionData d;
  real kappa[N];
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const Geometry& g = d.g;
    const index_t o = g.owner(f);
    real s[3], v[3];
    for (int i = 0; i < 3; ++i) s[i] = g.S(f, i);
    g.owner_to_other(f, v);
    const DiffusionCoefficients cf = DiffusionCoefficients::from(s, v);
    const real vo = g.volume(o);
    if (f < g.n_interior) {
      const index_t n = g.neighbour(f);
      const real vn = g.volume(n);
      const bool to_o = o < g.n_owned, to_n = n < g.n_owned;
      for (int k = 0; k < N; ++k) {
        real gb[3];
        for (int i = 0; i < 3; ++i) gb[i] = (d.grad(o, 3 * k + i) + d.grad(n, 3 * k + i)) / 2;
        const real fl = DiffusionFlux{}(kappa[k], cf, d.u(o, k), d.u(n, k), gb);
        if (to_o) Kokkos::atomic_add(&d.rhs(o, k), fl / vo);
        if (to_n) Kokkos::atomic_add(&d.rhs(n, k), -fl / vn);
      }
    } else {
      const index_t b = f - g.n_interior;
      if (d.face_type(b) == 1) return; // outflow
      for (int k = 0; k < N; ++k) {
        const real gb[3] = {d.grad(o, 3 * k), d.grad(o, 3 * k + 1), d.grad(o, 3 * k + 2)};
        Kokkos::atomic_add(&d.rhs(o, k), DiffusionFlux{}(kappa[k], cf, d.u(o, k), d.ub(b, k), gb) / vo);
      }
    }
  }
};

// step 4: interior faces in one kernel, each Dirichlet/inflow patch in its own (outflow patches
// carry no flux and launch nothing): no branch per face
template <int N> struct DiffusionInterior4 {
  DiffusionData d;
  real kappa[N];
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const Geometry& g = d.g;
    const index_t o = g.owner(f), n = g.neighbour(f);
    real s[3], v[3];
    for (int i = 0; i < 3; ++i) s[i] = g.S(f, i);
    g.owner_to_neighbour(f, v);
    const DiffusionCoefficients cf = DiffusionCoefficients::from(s, v);
    const real vo = g.volume(o), vn = g.volume(n);
    const bool to_o = o < g.n_owned, to_n = n < g.n_owned;
    for (int k = 0; k < N; ++k) {
      real gb[3];
      for (int i = 0; i < 3; ++i) gb[i] = (d.grad(o, 3 * k + i) + d.grad(n, 3 * k + i)) / 2;
      const real fl = DiffusionFlux{}(kappa[k], cf, d.u(o, k), d.u(n, k), gb);
      if (to_o) Kokkos::atomic_add(&d.rhs(o, k), fl / vo);
      if (to_n) Kokkos::atomic_add(&d.rhs(n, k), -fl / vn);
    }
  }
};

template <int N> struct DiffusionPatch4 {
  DiffusionData d;
  real kappa[N];
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const Geometry& g = d.g;
    const index_t o = g.owner(f), b = f - g.n_interior;
    real s[3], v[3];
    for (int i = 0; i < 3; ++i) s[i] = g.S(f, i);
    g.owner_to_face(f, v);
    const DiffusionCoefficients cf = DiffusionCoefficients::from(s, v);
    const real vo = g.volume(o);
    for (int k = 0; k < N; ++k) {
      const real gb[3] = {d.grad(o, 3 * k), d.grad(o, 3 * k + 1), d.grad(o, 3 * k + 2)};
      Kokkos::atomic_add(&d.rhs(o, k), DiffusionFlux{}(kappa[k], cf, d.u(o, k), d.ub(b, k), gb) / vo);
    }
  }
};

// step 5: a gather: one cell per work item over its interior faces (the coefficients computed on
// both sides of a face), one per run of a patch's faces of one owner; sums in registers
template <int N> struct DiffusionGather5 {
  DiffusionData d;
  real kappa[N];
  KOKKOS_FUNCTION void operator()(const index_t c) const {
    const Geometry& g = d.g;
    real uc[N], gc[N][3], acc[N];
    for (int k = 0; k < N; ++k) {
      uc[k] = d.u(c, k);
      for (int i = 0; i < 3; ++i) gc[k][i] = d.grad(c, 3 * k + i);
      acc[k] = 0;
    }
    for (index_t q = g.off(c); q < g.bbegin(c); ++q) {
      const index_t f = g.faces(q);
      const real sg = g.sign(q);
      const index_t other = sg > 0 ? g.neighbour(f) : g.owner(f);
      real s[3], v[3];
      for (int i = 0; i < 3; ++i) s[i] = g.S(f, i);
      g.owner_to_neighbour(f, v);
      const DiffusionCoefficients cf = DiffusionCoefficients::from(s, v);
      for (int k = 0; k < N; ++k) {
        const real uo = d.u(other, k);
        real gb[3];
        for (int i = 0; i < 3; ++i) gb[i] = (gc[k][i] + d.grad(other, 3 * k + i)) / 2;
        // the flux into the face's owner, from the owner's and the neighbour's values
        acc[k] += sg * DiffusionFlux{}(kappa[k], cf, sg > 0 ? uc[k] : uo, sg > 0 ? uo : uc[k], gb);
      }
    }
    const real vc = g.volume(c);
    for (int k = 0; k < N; ++k) d.rhs(c, k) += acc[k] / vc;
  }
};

template <int N> struct DiffusionGatherPatch5 {
  DiffusionData d;
  ConstView2<index_t> runs;
  real kappa[N];
  KOKKOS_FUNCTION void operator()(const index_t run) const {
    const Geometry& g = d.g;
    const index_t first = runs(run, 0), last = runs(run, 1), c = g.owner(first);
    real acc[N];
    for (int k = 0; k < N; ++k) acc[k] = 0;
    for (index_t f = first; f < last; ++f) {
      real s[3], v[3];
      for (int i = 0; i < 3; ++i) s[i] = g.S(f, i);
      g.owner_to_face(f, v);
      const DiffusionCoefficients cf = DiffusionCoefficients::from(s, v);
      for (int k = 0; k < N; ++k) {
        const real gb[3] = {d.grad(c, 3 * k), d.grad(c, 3 * k + 1), d.grad(c, 3 * k + 2)};
        acc[k] += DiffusionFlux{}(kappa[k], cf, d.u(c, k), d.ub(f - g.n_interior, k), gb);
      }
    }
    const real vc = g.volume(c);
    for (int k = 0; k < N; ++k) d.rhs(c, k) += acc[k] / vc;
  }
};

View1<real> kappa_view(const std::vector<double>& kappa) {
  View1<real> v("fvproxy::diffusion::ladder_kappa", kappa.size());
  auto h = Kokkos::create_mirror_view(v);
  for (std::size_t k = 0; k < kappa.size(); ++k) h(k) = static_cast<real>(kappa[k]);
  Kokkos::deep_copy(v, h);
  return v;
}

class LadderDiffusion final : public DiffusionOperator {
public:
  LadderDiffusion(int step, const Mesh& m, const OperatorGeometry& og, const std::vector<double>& kappa,
                  const std::vector<BoundaryType>& types)
      : step_(step), n_(int(kappa.size())), n_faces_(m.n_faces), g_(Geometry::of(m, og)), kappa_(kappa_view(kappa)),
        kappa_host_(kappa),
        face_type_(outflow_face_flags(m, types, "fvproxy::diffusion::ladder_outflow_flags")), naive_{
                                                                                                  naive::naive_geometry(
                                                                                                      m)} {
    for (auto& p : patch_owner_runs(m, types, "fvproxy::diffusion::ladder_patch_runs"))
      if (p.type != BoundaryType::outflow) patches_.push_back(p);
  }
  void apply(ConstView2<real> u, ConstView2<real> ub, ConstView2<real> grad, View2<real> rhs,
             Part part) const override {
    check_part(part, "diffusion ladder");
    const DiffusionData d{g_, face_type_, kappa_, u, ub, grad, rhs};
    if (n_ == 1) return run<1>(d);
    return run<5>(d);
  }
  std::string description() const override { return "ladder" + std::to_string(step_) + "/" + ladder_step_name(step_); }

private:
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>;
  template <class F> F with_kappa(F f) const {
    for (std::size_t k = 0; k < kappa_host_.size(); ++k) f.kappa[k] = static_cast<real>(kappa_host_[k]);
    return f;
  }
  template <int N> void run(const DiffusionData& d) const {
    const Range faces(0, n_faces_);
    switch (step_) {
    case 1:
      return Kokkos::parallel_for(
          "fvproxy::diffusion::ladder1_scatter", faces,
          Diffusion1{
              naive::DiffusionScatter{naive::DiffusionData{naive_, face_type_, kappa_}, d.u, d.ub, d.grad, d.rhs}, n_});
    case 2: return Kokkos::parallel_for("fvproxy::diffusion::ladder2_scatter", faces, Diffusion2<N>{d});
    case 3: return Kokkos::parallel_for("fvproxy::diffusion::ladder3_scatter", faces, with_kappa(Diffusion3<N>{d, {}}));
    case 4:
      Kokkos::parallel_for("fvproxy::diffusion::ladder4_interior", Range(0, g_.n_interior),
                           with_kappa(DiffusionInterior4<N>{d, {}}));
      for (const auto& p : patches_)
        Kokkos::parallel_for("fvproxy::diffusion::ladder4_patch", Range(p.begin, p.end),
                             with_kappa(DiffusionPatch4<N>{d, {}}));
      return;
    default:
      Kokkos::parallel_for("fvproxy::diffusion::ladder5_gather_interior", Range(0, g_.n_owned),
                           with_kappa(DiffusionGather5<N>{d, {}}));
      for (const auto& p : patches_)
        Kokkos::parallel_for("fvproxy::diffusion::ladder5_gather_patch", Range(0, p.n_runs()),
                             with_kappa(DiffusionGatherPatch5<N>{d, p.runs, {}}));
    }
  }

  int step_, n_;
  index_t n_faces_;
  Geometry g_;
  View1<real> kappa_;
  std::vector<double> kappa_host_;
  View1<std::int8_t> face_type_;
  naive::NaiveGeometry naive_;
  std::vector<PatchRuns> patches_;
};

} // namespace ladder

std::unique_ptr<DiffusionOperator> make_ladder_diffusion(int step, const Mesh& mesh, const OperatorGeometry& geom,
                                                         const DiffusionConfig& cfg, const std::vector<double>& kappa,
                                                         const std::vector<BoundaryType>& patch_types) {
  check_ladder_step(step, "ladder");
  check_ladder_components(int(kappa.size()), "physics.components");
  if (step == 0 || step == kLadderSteps - 1)
    return make_diffusion(mesh, geom, ladder::step_options(cfg, step), kappa, patch_types, false);
  return std::make_unique<ladder::LadderDiffusion>(step, mesh, geom, kappa, patch_types);
}

} // namespace fvproxy
