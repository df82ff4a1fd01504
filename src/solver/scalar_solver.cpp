#include "solver/scalar_solver.hpp"

#include "core/error.hpp"
#include "core/kokkos_compat.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "operators/face_flux.hpp"
#include "operators/launch.hpp"
#include "solver/diagnostics.hpp"
#include "solver/scalar_solution.hpp"
#include "solver/state.hpp"

namespace fvproxy {

namespace {

bool moves(const VelocityConfig& v) {
  if (v.type == VelocityType::rotation) return v.omega != 0;
  return v.value[0] != 0 || v.value[1] != 0 || v.value[2] != 0;
}
double max_kappa(const CaseConfig& c) {
  return c.physics.diffusivity.empty() ? 0.0
                                       : *std::max_element(c.physics.diffusivity.begin(), c.physics.diffusivity.end());
}
bool needs_gradient(const CaseConfig& c) {
  return (moves(c.physics.velocity) && c.operators.convection.order == 2) || max_kappa(c) > 0;
}
bool needs_limiter(const CaseConfig& c) {
  return moves(c.physics.velocity) && c.operators.convection.order == 2;
}
/// Convection and diffusion in one face pass (operators.step: fused, both present: one operator
/// alone has nothing to fuse).
bool runs_face_pass(const CaseConfig& c) {
  return c.operators.step == StepPasses::fused && moves(c.physics.velocity) && max_kappa(c) > 0;
}

} // namespace

std::size_t ScalarSolver::memory_bytes(const Mesh& m, const CaseConfig& c) {
  return static_cast<std::size_t>(memory_bytes(m.n_cells, m.n_faces, m.n_interior, c));
}

double ScalarSolver::memory_bytes(double cells, double faces, double interior_faces, const CaseConfig& c) {
  const double R = sizeof(real), C = cells, F = faces, Fi = interior_faces, Fb = faces - interior_faces;
  const double N = c.physics.components;
  // OperatorGeometry: d (3 Fi), r (3 F), gg_weight (Fi), diff_alpha (F), diff_k (3 F), gg_inverse
  // (9 C), lsq_inverse (6 C), cell_boundary_begin (C indices), ghost and ghost_weight (4 Fb), mirror
  // (Fb bytes); the face flux phi (F).
  double bytes = R * (3 * Fi + 3 * F + Fi + F + 3 * F + 9 * C + 6 * C + F + 4 * Fb) + 4 * C + Fb;
  const double state = 2 + (shu_osher_stages(c.time.integrator).size() > 1 ? 1 : 0); // u, rhs (+ un)
  bytes += R * (state * C * N + Fb * N);
  if (needs_gradient(c)) bytes += R * 3 * C * N;
  if (needs_limiter(c)) bytes += R * C * N;
  // stored face fluxes (N per interior face): one array for the face pass, one per separate operator
  const bool pass = runs_face_pass(c);
  const int stored = (c.operators.convection.scatter == Scatter::stored && moves(c.physics.velocity)) +
                     (c.operators.diffusion.scatter == Scatter::stored && max_kappa(c) > 0);
  bytes += R * N * Fi * (pass ? (stored > 0 ? 1 : 0) : stored);
  return bytes + stencil_memory_estimate(c.operators.muscl.stencil, C, F);
}

bool ScalarSolver::reads_gradients(const CaseConfig& c) {
  return needs_gradient(c);
}

int ScalarSolver::halo_values_per_ghost(const CaseConfig& c, int layers) {
  const int n = c.physics.components;
  if (layers == 2) return n; // the state alone, of two layers of ghosts
  return n * (1 + (needs_gradient(c) ? 3 : 0) + (needs_limiter(c) ? 1 : 0));
}

ScalarSolver::ScalarSolver(const Mesh& mesh, const CaseConfig& cfg, const BoundaryOnMesh& boundary,
                           const Communicator& comm, Halo* halo)
    : mesh_(mesh), comm_(comm), halo_(halo), n_(cfg.physics.components),
      geom_(make_operator_geometry(mesh, {}, cfg.operators.muscl.stencil)),
      phi_(face_volume_flux(mesh, cfg.physics.velocity)), solution_(make_scalar_solution(cfg)),
      bc_(mesh, cfg, boundary, solution_, phi_), stages_(shu_osher_stages(cfg.time.integrator)),
      kappa_max_(max_kappa(cfg)), no_exact_(exact_solution_unavailable(cfg)) {
  const bool det = cfg.run.deterministic;
  std::vector<BoundaryType> types;
  for (const auto& p : bc_.patches()) types.push_back(p.type);
  if (mesh.n_ghosts > 0 && !halo)
    throw RunError("error: ScalarSolver: a decomposed mesh (" + std::to_string(mesh.n_ghosts) +
                   " ghost cells) needs a halo exchange");
  // The halo's buffers at their final size now (the widest exchange), so that the time loop
  // allocates and opens nothing (collective).
  two_layers_ = halo_ && halo_->layers() == 2; // the decomposition's (every rank's) ghost layers
  if (halo_) halo_->reserve(two_layers_ ? n_ : std::max(n_, halo_values_per_ghost(cfg, 1) - n_));
  const index_t C = mesh.n_local(), Fb = mesh.n_boundary_rows();
  u_ = View2<real>("fvproxy::solver::u", C, n_);
  rhs_ = View2<real>("fvproxy::solver::rate", C, n_);
  ub_ = View2<real>("fvproxy::solver::boundary_values", Fb, n_);
  if (stages_.size() > 1) un_ = View2<real>("fvproxy::solver::u_step_start", C, n_);
  // The range of the initial field and the boundary values at t = 0 (from the case, not the state,
  // so a restarted run has the same): the max-principle monitor's interval and Venkatakrishnan's
  // reference value (its midpoint: scalar_limiter_scale).
  fill_from_profile(mesh, solution_, 0, u_);
  bc_.apply(u_, 0, ub_);
  // every rank's owned cells and boundary faces: the domain's range
  std::tie(bounds_.lo, bounds_.hi) = domain_bounds(mesh, u_, ub_, comm_);
  std::vector<real> range(n_);
  for (int k = 0; k < n_; ++k) {
    range[k] = bounds_.hi[k] - bounds_.lo[k];
    const real inf = std::numeric_limits<real>::infinity();
    if (!cfg.run.bound_tolerance) {
      bounds_.admissible_lo.push_back(-inf), bounds_.admissible_hi.push_back(inf);
      continue;
    }
    const real scale = std::max(std::fabs(bounds_.lo[k]), std::fabs(bounds_.hi[k]));
    const real width = range[k] > 0 ? range[k] : scale > 0 ? scale : real(1);
    const real t = static_cast<real>(*cfg.run.bound_tolerance) * width;
    bounds_.admissible_lo.push_back(bounds_.lo[k] - t), bounds_.admissible_hi.push_back(bounds_.hi[k] + t);
  }
  check_ = StateCheck(bounds_.admissible_lo, bounds_.admissible_hi);
  if (needs_gradient(cfg)) grad_ = View2<real>("fvproxy::muscl::gradient", C, 3 * n_);
  const bool limited = needs_limiter(cfg) && cfg.operators.muscl.limiter != Limiter::none;
  if (needs_limiter(cfg)) {
    lim_ = View2<real>("fvproxy::muscl::limiter", C, n_);
    if (!limited) fill("fvproxy::muscl::limiter_none", lim_, real(1));
  }
  if (needs_gradient(cfg))
    muscl_ = make_muscl(mesh, geom_, cfg.operators.muscl, n_, det,
                        limited ? scalar_limiter_scale(bounds_.lo, bounds_.hi) : LimiterScale{});
  if (runs_face_pass(cfg)) {
    face_pass_ = make_scalar_face_pass(mesh, geom_, cfg.operators, phi_, cfg.physics.diffusivity, types, det);
    return;
  }
  if (moves(cfg.physics.velocity))
    convection_ = make_convection(mesh, geom_, cfg.operators.convection, phi_, n_, types, det);
  if (kappa_max_ > 0)
    diffusion_ = make_diffusion(mesh, geom_, cfg.operators.diffusion, cfg.physics.diffusivity, types, det);
}

void ScalarSolver::initialize() {
  fill_from_profile(mesh_, solution_, 0, u_);
}

void ScalarSolver::rate(ConstView2<real> u, real t, View2<real> rhs) {
  bc_.apply(u, t, ub_);
  zero_rate(rhs);
  if (muscl_) muscl_->compute(u, ub_, grad_, lim_);
  if (muscl_ && two_layers_) // the first ghost layer's gradients and limiter values, here
    muscl_->compute(u, ub_, grad_, lim_, Part::layer1);
  else if (halo_) // the neighbours' gradients and limiter values, for the reconstruction across faces
    if (const auto a = reconstruction_arrays(); !a.empty()) halo_->exchange(a, HaloKind::gradient_limiter);
  face_fluxes(u, rhs, Part::all);
}

void ScalarSolver::face_fluxes(ConstView2<real> u, View2<real> rhs, Part part) const {
  if (face_pass_) {
    face_pass_->apply(u, ub_, grad_, lim_, rhs, part);
    return;
  }
  if (convection_) convection_->apply(u, ub_, grad_, lim_, rhs, part);
  if (diffusion_) diffusion_->apply(u, ub_, grad_, rhs, part);
}

std::vector<View2<real>> ScalarSolver::reconstruction_arrays() const {
  std::vector<View2<real>> a;
  if (muscl_) a.push_back(grad_);
  if (muscl_ && muscl_->limits()) a.push_back(lim_); // `limiter: none` fills every row, ghosts included, with 1 once
  return a;
}

void ScalarSolver::zero_rate(View2<real> rhs) {
  if (!(rate_zeroed_ && rhs.data() == rhs_.data())) fill("fvproxy::solver::zero_rate", rhs, real(0));
  rate_zeroed_ = false; // the operators add to it now
}

void ScalarSolver::overlapped_rate(real t) {
  // docs/halo.md#overlap: each exchange's messages fly while the inner part (the owned cells
  // and faces that read no ghost row) is computed; the frontier part follows its finish().
  // After the first inner kernels are queued, poll() posts what waited for the device, lets MPI
  // progress the messages and timestamps their arrival (docs/halo.md#halo-statistics).
  halo_->start({u_}, HaloKind::state);
  bc_.apply(u_, t, ub_, Rows::owned); // the owned cells' boundary faces
  zero_rate(rhs_);
  if (muscl_) muscl_->compute(u_, ub_, grad_, lim_, Part::inner);
  halo_->poll(); // after the inner kernels are queued: the device works while the staged sends wait
  halo_->finish();
  if (two_layers_) {                     // docs/halo.md#two-ghost-layers: no second exchange
    bc_.apply(u_, t, ub_, Rows::ghosts); // the first ghost layer's boundary faces
    if (muscl_) {
      muscl_->compute(u_, ub_, grad_, lim_, Part::frontier);
      muscl_->compute(u_, ub_, grad_, lim_, Part::layer1);
    }
    face_fluxes(u_, rhs_, Part::all);
    return;
  }
  if (muscl_) muscl_->compute(u_, ub_, grad_, lim_, Part::frontier);
  const auto arrays = reconstruction_arrays();
  if (!arrays.empty()) halo_->start(arrays, HaloKind::gradient_limiter);
  if (face_pass_) {
    face_pass_->apply(u_, ub_, grad_, lim_, rhs_, Part::inner);
    if (!arrays.empty()) {
      halo_->poll();
      halo_->finish();
    }
    face_pass_->apply(u_, ub_, grad_, lim_, rhs_, Part::frontier);
    return;
  }
  if (convection_) convection_->apply(u_, ub_, grad_, lim_, rhs_, Part::inner);
  if (!arrays.empty()) halo_->poll();
  if (diffusion_) diffusion_->apply(u_, ub_, grad_, rhs_, Part::inner);
  if (!arrays.empty()) halo_->finish();
  face_fluxes(u_, rhs_, Part::frontier);
}

void ScalarSolver::step(real t, real dt, long long step, bool check) {
  // The naive halo blocks in each exchange (nothing to overlap); the optimized one overlaps.
  const bool overlap = halo_ && halo_->variant() == HaloVariant::optimized;
  for (std::size_t s = 0; s < stages_.size(); ++s) {
    const kc::ProfileRegion region("fvproxy::solver::rk_stage");
    const real ts = t + static_cast<real>(stages_[s].c) * dt;
    if (overlap) {
      overlapped_rate(ts);
    } else {
      if (halo_) halo_->exchange(u_, HaloKind::state); // the neighbours' state
      rate(u_, ts, rhs_);
    }
    // the rate zeroed as the update reads it: the next stage's (or step's) operators add to it
    stage_update(un_, u_, rhs_, static_cast<real>(stages_[s].a), dt, check && s + 1 == stages_.size(), step, check_,
                 mesh_.n_cells, rhs_);
    rate_zeroed_ = true;
  }
}

std::optional<StateFailure> ScalarSolver::first_failure() const {
  std::optional<StateFailure> f = locate_failure(mesh_, comm_, check_.keys, u_, StateFailure::Kind::out_of_bounds);
  if (f) {
    f->admissible[0] = bounds_.admissible_lo[f->component];
    f->admissible[1] = bounds_.admissible_hi[f->component];
  }
  return f;
}

std::vector<std::string> ScalarSolver::conserved_names() const {
  std::vector<std::string> n;
  for (int k = 0; k < n_; ++k) n.push_back("u" + std::to_string(k));
  return n;
}

std::vector<double> ScalarSolver::conserved_totals() const {
  return fvproxy::conserved_totals(mesh_, u_, comm_);
}

std::vector<FieldError> ScalarSolver::errors(double t) const {
  const std::vector<ErrorNorms> e = error_norms(mesh_, u_, solution_, static_cast<real>(t), comm_);
  std::vector<FieldError> out;
  for (int k = 0; k < n_; ++k) out.push_back({"u" + std::to_string(k), e[k]});
  return out;
}

std::pair<std::vector<real>, std::vector<real>> ScalarSolver::final_range() const {
  return domain_bounds(mesh_, u_, View2<real>(), comm_);
}

StableStep ScalarSolver::stable_step(double cfl) const {
  // phi is zero without a velocity, and kappa_max zero without diffusion: each term then vanishes.
  StableStep s = cfl_time_step(mesh_, geom_, phi_, kappa_max_, cfl);
  if (comm_.size() > 1) {
    reduce_over_ranks(s, comm_);
    s.dt = s.max_rate > 0 ? cfl / s.max_rate : 0.0;
  }
  return s;
}

std::vector<std::pair<std::string, std::string>> ScalarSolver::describe() const {
  std::vector<std::pair<std::string, std::string>> d{
      {"muscl.gradient", muscl_ ? muscl_->gradient_description() : "off"},
      {"muscl.limiter", muscl_ && muscl_->limits() ? muscl_->limiter_description() : (lim_.data() ? "none" : "off")},
      {"convection", face_pass_    ? face_pass_->description()
                     : convection_ ? convection_->description()
                                   : "off (no velocity)"},
      {"diffusion", face_pass_   ? face_pass_->description()
                    : diffusion_ ? diffusion_->description()
                                 : "off (no diffusivity)"},
      {"step", face_pass_ ? "one face pass (" + face_pass_->description() + ")" : "separate"}};
  if (halo_)
    d.emplace_back("halo", std::string(to_string(halo_->variant())) + " (" + halo_->transport() +
                               (halo_->variant() == HaloVariant::optimized ? ", inner cells overlapped" : "") +
                               (two_layers_ ? ", two ghost layers" : "") + ")");
  return d;
}

} // namespace fvproxy
