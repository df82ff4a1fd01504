#include "solver/flow_solver.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "core/error.hpp"
#include "core/kokkos_compat.hpp"
#include "operators/flow/flow_cell_kernels.hpp"
#include "operators/flow/flow_stage_update.hpp"
#include "operators/launch.hpp"
#include "operators/muscl/limiter.hpp"
#include "parallel/mpi_environment.hpp"
#include "physics/flow_profiles.hpp"

namespace fvproxy {

namespace {

using flow::Primitive;
constexpr int NV = flow::kVariables;

using flow::primitive_of;
using flow::profile_of;

bool viscous(const CaseConfig& c) {
  return c.physics.model == PhysicsModel::navier_stokes;
}

} // namespace

namespace {

/// The faces' area vectors and centroids on the host, copied once for every patch checked.
struct HostFaces {
  explicit HostFaces(const Mesh& mesh)
      : area(Kokkos::create_mirror_view_and_copy(HostSpace(), mesh.face_area)),
        centroid(Kokkos::create_mirror_view_and_copy(HostSpace(), mesh.face_centroid)) {}
  decltype(Kokkos::create_mirror_view_and_copy(HostSpace(), Mesh().face_area)) area;
  decltype(Kokkos::create_mirror_view_and_copy(HostSpace(), Mesh().face_centroid)) centroid;
};

/// Over every rank's faces of patch `name`, the largest score(unit normal, face) and, from the lowest
/// rank holding that face, its description (centroid and unit normal). Collective.
template <class Score> std::pair<double, std::string>
worst_face(const Mesh& mesh, const HostFaces& faces, const std::string& name, const Communicator& comm, Score score) {
  const auto& area = faces.area;
  const auto& centroid = faces.centroid;
  auto unit_normal = [&](index_t f) {
    const double S[3] = {double(area(f, 0)), double(area(f, 1)), double(area(f, 2))};
    const double a = std::sqrt(S[0] * S[0] + S[1] * S[1] + S[2] * S[2]);
    return std::array<double, 3>{S[0] / a, S[1] / a, S[2] / a};
  };
  double worst = -std::numeric_limits<double>::infinity();
  index_t worst_at = -1;
  for (const Patch& p : mesh.patches)
    if (p.name == name)
      for (index_t f = p.begin; f < p.end; ++f) {
        const double s = score(unit_normal(f), f);
        if (s > worst) worst = s, worst_at = f;
      }
  const double global = comm.max(worst);
  const bool here = worst == global && worst_at >= 0;
  const int from = static_cast<int>(comm.min(std::int64_t(here ? comm.rank() : comm.size())));
  std::string face;
  if (here && from == comm.rank()) {
    const std::array<double, 3> n = unit_normal(worst_at);
    std::ostringstream o;
    o.precision(4);
    o << "on the face at (" << centroid(worst_at, 0) << ", " << centroid(worst_at, 1) << ", " << centroid(worst_at, 2)
      << ") with outward unit normal (" << n[0] << ", " << n[1] << ", " << n[2] << ")";
    face = o.str();
  }
  return {global, comm.broadcast(face, from < comm.size() ? from : 0)};
}

/// v / |v| for any finite non-zero v (scaled by its largest component first: no overflow or underflow).
std::array<double, 3> unit(const std::array<double, 3>& v) {
  const double m = std::max({std::abs(v[0]), std::abs(v[1]), std::abs(v[2])});
  const std::array<double, 3> u{v[0] / m, v[1] / m, v[2] / m};
  const double l = std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  return {u[0] / l, u[1] / l, u[2] / l};
}

/// The area of each patch summed over every rank's faces of it (collective). Only the owned cells'
/// boundary faces, [n_interior, n_faces), where the patches are, come to the host (each column of a
/// LayoutLeft view is contiguous there).
std::vector<double> patch_areas(const Mesh& mesh, const Communicator& comm) {
  const std::pair<index_t, index_t> rows{mesh.n_interior, mesh.n_faces};
  std::vector<View1<real>::HostMirror> S;
  for (int i = 0; i < 3; ++i)
    S.push_back(Kokkos::create_mirror_view_and_copy(HostSpace(), Kokkos::subview(mesh.face_area, rows, i)));
  std::vector<double> a(mesh.patches.size(), 0.0);
  for (std::size_t p = 0; p < mesh.patches.size(); ++p)
    for (index_t f = mesh.patches[p].begin - rows.first; f < mesh.patches[p].end - rows.first; ++f)
      a[p] += std::sqrt(double(S[0](f)) * S[0](f) + double(S[1](f)) * S[1](f) + double(S[2](f)) * S[2](f));
  comm.sum(a);
  return a;
}

std::string number_text(double x) {
  std::ostringstream o;
  o.precision(6);
  o << x;
  return o.str();
}

std::string vector_text(const std::array<double, 3>& v) {
  return "(" + number_text(v[0]) + ", " + number_text(v[1]) + ", " + number_text(v[2]) + ")";
}

[[noreturn]] void refuse_on_every_rank(const std::string& where, const std::string& what, const std::string& hint) {
  MpiEnvironment::set_collective_exit(); // every rank throws this error: rank 0 says it, all exit 2
  throw InputError(where, what, hint);
}

/// A velocity inlet's velocity enters the domain through every face of the patch (at least 1 degree
/// from the face: v . n / |v| at most -sin 1 degree), and a parabolic profile's channel holds every
/// face's centroid (from <= x . normal <= to, within 1e-9 of the width). Collective.
void check_velocity_inlet(const Mesh& mesh, const HostFaces& faces, const std::string& name,
                          const FlowBoundaryConfig& b, const Communicator& comm) {
  const std::array<double, 3>& v = b.inlet_velocity;
  const std::array<double, 3> u = unit(v);
  const auto [outward, face] = worst_face(mesh, faces, name, comm, [&](const std::array<double, 3>& n, index_t) {
    return u[0] * n[0] + u[1] * n[1] + u[2] * n[2];
  });
  if (outward > -kWallVelocityTolerance)
    refuse_on_every_rank(b.velocity_where,
                         "boundary." + name + ".velocity: the inlet's velocity " + vector_text(v) +
                             (outward > 0 ? " points out of the domain " : " runs along the patch ") + face,
                         "give a velocity that enters the domain through every face of the patch (at least 1 degree "
                         "from the face)");
  const VelocityProfileConfig& p = b.profile;
  if (!p.parabolic) return;
  const double lo = std::min(p.from, p.to), width = std::abs(p.to - p.from);
  const auto [outside, at] = worst_face(mesh, faces, name, comm, [&](const std::array<double, 3>&, index_t f) {
    const double x =
        faces.centroid(f, 0) * p.normal[0] + faces.centroid(f, 1) * p.normal[1] + faces.centroid(f, 2) * p.normal[2];
    return std::max(lo - x, x - lo - width) / width; // > 0: outside the channel, in widths
  });
  if (outside > 1e-9)
    refuse_on_every_rank(p.where,
                         "boundary." + name + ".profile: a face of the patch lies outside the channel from " +
                             number_text(p.from) + " to " + number_text(p.to) + " along " + vector_text(p.normal) +
                             " (by " + number_text(outside) + " of its width) " + at,
                         "from and to are the channel's walls along normal: every face of the inlet lies between them");
}

} // namespace

void check_boundary_directions(const CaseConfig& cfg, const Mesh& mesh, const Communicator& comm) {
  std::optional<HostFaces> faces; // copied at the first patch to check
  const auto host_faces = [&]() -> const HostFaces& {
    if (!faces) faces.emplace(mesh);
    return *faces;
  };
  for (std::size_t i = 0; i < cfg.flow_boundary.size() && i < cfg.boundary.size(); ++i) {
    const FlowBoundaryConfig& b = cfg.flow_boundary[i];
    const std::string& name = cfg.boundary[i].first;
    const std::array<double, 3>& v = b.wall_velocity;
    if (b.kind == FlowBoundaryKind::no_slip_wall && (v[0] != 0 || v[1] != 0 || v[2] != 0)) {
      // |v.n| / |v| (v scaled by its largest component first: no overflow or underflow)
      const std::array<double, 3> u = unit(v);
      const auto [normal, face] =
          worst_face(mesh, host_faces(), name, comm, [&](const std::array<double, 3>& n, index_t) {
            return std::abs(u[0] * n[0] + u[1] * n[1] + u[2] * n[2]);
          });
      if (normal > kWallVelocityTolerance)
        refuse_on_every_rank(b.velocity_where.empty() ? cfg.source_file : b.velocity_where,
                             "boundary." + name + ".velocity: a no-slip wall moves along itself, but " +
                                 vector_text(v) + " has a normal component of " + number_text(100 * normal) +
                                 " % of its magnitude " + face,
                             "give a velocity in the wall's plane (on a curved patch, tangent to every face within 1 "
                             "degree: docs/physics.md#boundary-conditions)");
    }
    if (b.kind == FlowBoundaryKind::velocity_inlet) check_velocity_inlet(mesh, host_faces(), name, b, comm);
    if ((b.kind == FlowBoundaryKind::subsonic_inflow || b.kind == FlowBoundaryKind::mass_flow_inlet) && b.direction) {
      // The flow's direction into the domain on every face: its component along the outward normal
      // at most -kWallVelocityTolerance (at least 1 degree into the domain).
      const std::array<double, 3>& d = *b.direction;
      const auto [outward, face] =
          worst_face(mesh, host_faces(), name, comm,
                     [&](const std::array<double, 3>& n, index_t) { return d[0] * n[0] + d[1] * n[1] + d[2] * n[2]; });
      if (outward > -kWallVelocityTolerance)
        refuse_on_every_rank(b.direction_where.empty() ? cfg.source_file : b.direction_where,
                             "boundary." + name + ".direction: the inflow's direction " + vector_text(d) +
                                 (outward > 0 ? " points out of the domain " : " runs along the patch ") + face,
                             "give a direction that enters the domain through every face of the patch (at least 1 "
                             "degree from the face), or leave it out for the flow normal to each face");
    }
  }
}

std::vector<FlowPatchBC> FlowSolver::patch_conditions(const Mesh& mesh, const CaseConfig& cfg,
                                                      const BoundaryOnMesh& boundary, const Communicator& comm) {
  if (boundary.entry.size() != mesh.patches.size())
    throw std::logic_error("FlowSolver: the boundary section was resolved on another mesh");
  const std::vector<double> areas = patch_areas(mesh, comm); // collective: every rank, every patch
  std::vector<FlowPatchBC> out;
  for (std::size_t p = 0; p < mesh.patches.size(); ++p) {
    FlowPatchBC bc;
    static_cast<flow::FlowCondition&>(bc) = flow::flow_condition(cfg.flow_boundary.at(boundary.entry[p]), areas[p]);
    out.push_back(bc);
  }
  return out;
}

double FlowSolver::memory_bytes(double cells, double faces, double interior_faces, const CaseConfig& c) {
  const double R = sizeof(real), C = cells, F = faces, Fi = interior_faces, Fb = faces - interior_faces;
  // OperatorGeometry (as the scalar solver's), the convection's and viscous operator's unit
  // normals, areas and 1/|d|^2 (5 F each at most; one copy, 5 F, in the navier-stokes face pass).
  const double face_vectors = viscous(c) && c.operators.step == StepPasses::fused ? 5 * F : 10 * F;
  double bytes = R * (3 * Fi + 3 * F + Fi + F + 3 * F + 9 * C + 6 * C + 4 * Fb) + 4 * C + Fb + R * face_vectors +
                 stencil_memory_estimate(c.operators.muscl.stencil, C, F);
  bytes += R * (NV * 3 + 10) * C + R * NV * Fb; // u, un, rhs, the output fields; boundary values
  if (c.operators.convection.scatter == Scatter::stored) bytes += R * NV * Fi; // stored face fluxes (one array)
  if (c.operators.convection.order == 2) {
    bytes += R * (3 * NV + NV) * C; // gradients, limiter values
    if (c.operators.convection.variables == FlowVariables::primitive) bytes += R * NV * (C + Fb);
  }
  if (viscous(c)) bytes += R * (4 + 12) * C + R * 4 * Fb;
  for (const FlowBoundaryConfig& b : c.flow_boundary)
    if (b.non_reflecting) // the incoming characteristics, their step-start copy, z, the slots; the checkpoint array
      return bytes + R * 3 * Fb + 4 * Fb + R * (NV + 2 * kBoundarySlots) * C;
  return bytes;
}

int FlowSolver::halo_values_per_ghost(const CaseConfig& c, int layers) {
  if (layers == 2) return NV; // the state alone, of two layers of ghosts
  return NV + (c.operators.convection.order == 2 ? 4 * NV : 0) + (viscous(c) ? 12 : 0);
}

namespace {

/// Why the case's solution is not exact (empty when it is): the summary's error norms need one.
std::string no_exact_reason(const CaseConfig& cfg, bool viscous) {
  const FlowInitialConfig& ic = cfg.flow_initial;
  if (ic.type == FlowInitialType::uniform)
    return "initial: uniform is not taken as an exact solution (the boundaries may act on it)";
  if (ic.type == FlowInitialType::taylor_green)
    return "the Taylor-Green vortex has no closed-form solution (compare its kinetic energy with the reference)";
  if (ic.type == FlowInitialType::acoustic_pulse)
    return "the acoustic pulse is a linear wave, exact to first order in its amplitude only";
  if (viscous)
    return std::string("initial: ") + to_string(ic.type) +
           " is an exact solution of the Euler equations only (physics.model: navier-stokes)";
  if (ic.type == FlowInitialType::isentropic_vortex &&
      !(cfg.mesh.generate && cfg.mesh.generate->periodic[0] && cfg.mesh.generate->periodic[1]))
    return "the isentropic vortex is exact in a box periodic in x and y only";
  return "";
}

} // namespace

FlowSolver::FlowSolver(const Mesh& mesh, const CaseConfig& cfg, const BoundaryOnMesh& boundary,
                       const Communicator& comm, Halo* halo)
    : mesh_(mesh), cfg_(cfg), comm_(comm), halo_(halo), patches_(patch_conditions(mesh, cfg, boundary, comm)),
      geom_(make_operator_geometry(mesh, mirror_patches(patches_), cfg.operators.muscl.stencil)),
      gas_{static_cast<real>(cfg.physics.flow.gamma), static_cast<real>(cfg.physics.flow.gas_constant)},
      stages_(shu_osher_stages(cfg.time.integrator)) {
  if (mesh.n_ghosts > 0 && !halo)
    throw RunError("error: FlowSolver: a decomposed mesh (" + std::to_string(mesh.n_ghosts) +
                   " ghost cells) needs a halo exchange");
  // The halo's buffers at their final size now (the widest exchange: the gradients and limiter
  // values), so that the time loop allocates and opens nothing (collective).
  two_layers_ = halo_ && halo_->layers() == 2; // the decomposition's (every rank's) ghost layers
  if (halo_) halo_->reserve(two_layers_ ? NV : std::max(NV, halo_values_per_ghost(cfg, 1) - NV));
  const bool det = cfg.run.deterministic;
  second_order_ = cfg.operators.convection.order == 2;
  primitive_ = second_order_ && cfg.operators.convection.variables == FlowVariables::primitive;
  viscous_ = viscous(cfg);
  allocate_state();
  allocate_incoming();
  if (geom_.stencil.n_images > 0) mirror_rules_ = flow_mirror_rules(patches_); // the images' ghost rules
  // One face pass (navier-stokes, operators.step: fused) replaces the convection and viscous
  // operators: the solver holds it alone (make_viscous), with one copy of their face geometry.
  if (!(viscous_ && cfg.operators.step == StepPasses::fused)) convection_ = make_convection(det);
  initialize();
  // muscl.fused (navier-stokes, second order): the MUSCL and the viscous gradients in one cell pass
  // (operators/muscl/muscl_paired.hpp) instead of muscl_ and viscous_gradient_.
  const bool paired = second_order_ && viscous_ && fuses_passes(cfg.operators.muscl, det);
  if (second_order_) make_second_order(det, paired);
  if (viscous_) make_viscous(det, paired);
  no_exact_ = no_exact_reason(cfg, viscous_);
}

/// The state, its step-start copy, the rate, the boundary values and the output columns; the
/// domain's volume (collective).
void FlowSolver::allocate_state() {
  const Mesh& mesh = mesh_;
  const index_t C = mesh.n_local(), Fb = boundary_rows();
  u_ = View2<real>("fvproxy::flow::u", C, NV);
  un_ = View2<real>("fvproxy::flow::u_step_start", C, NV);
  rhs_ = View2<real>("fvproxy::flow::rate", C, NV);
  ub_ = View2<real>("fvproxy::flow::boundary_values", Fb, NV);
  out_ = View2<real>("fvproxy::flow::output_fields", C, 10);
  check_ = StateCheck(std::vector<real>(NV, 0), std::vector<real>(NV, 0));
  {
    auto v = Kokkos::create_mirror_view_and_copy(HostSpace(), mesh.volume);
    for (index_t c = 0; c < mesh.n_cells; ++c) volume_ += v(c);
    volume_ = comm_.sum(volume_);
  }
}

void FlowSolver::allocate_incoming() {
  for (const FlowPatchBC& p : patches_) non_reflecting_ = non_reflecting_ || p.non_reflecting;
  if (!non_reflecting_) return;
  const index_t Fb = mesh_.n_boundary_rows();
  incoming_ = View1<real>("fvproxy::flow::incoming_characteristics", Fb);
  incoming_n_ = View1<real>("fvproxy::flow::incoming_characteristics_step_start", Fb);
  impedance_ = View1<real>("fvproxy::flow::incoming_impedances", Fb);
  for (FlowPatchBC& p : patches_)
    if (p.non_reflecting) p.incoming = incoming_, p.impedance = impedance_, p.incoming_first = mesh_.n_interior;
  // Checkpoints hold each face's characteristic and impedance in its owner cell's slots.
  int most = 0;
  slot_ = boundary_slots(mesh_, patches_, most);
  if (const std::int64_t all = comm_.max(std::int64_t(most)); all > kBoundarySlots)
    throw InputError(cfg_.source_file,
                     "boundary: a cell of the mesh has " + std::to_string(all) +
                         " faces on non-reflecting patches; a checkpoint holds at most " +
                         std::to_string(kBoundarySlots) + " per cell",
                     "leave non_reflecting out on one of the patches that meet there");
  checkpoint_ = View2<real>("fvproxy::flow::checkpoint_state", mesh_.n_cells, NV + 2 * kBoundarySlots);
}

ConstView2<real> FlowSolver::checkpoint_state() {
  if (!non_reflecting_) return u_;
  start_incoming();
  Kokkos::parallel_for("fvproxy::flow::checkpoint_state", Kokkos::RangePolicy<ExecSpace>(0, mesh_.n_cells),
                       CopyColumns{u_, checkpoint_, NV});
  pack_boundary_slots(mesh_, patches_, slot_, incoming_, impedance_, checkpoint_, NV);
  return checkpoint_;
}

void FlowSolver::start_incoming() {
  if (!non_reflecting_ || incoming_ready_) return;
  if (halo_) halo_->exchange(u_, HaloKind::state);
  flow_relax_incoming(mesh_, gas_, patches_, u_, incoming_, incoming_n_, impedance_,
                      incoming_from_cells_ ? IncomingStep::from_cells : IncomingStep::start);
  incoming_ready_ = true;
}

void FlowSolver::restarted(const std::vector<std::vector<real>>& extra) {
  fields_current_ = false;
  incoming_from_cells_ = true;
  incoming_ready_ = false;
  if (!non_reflecting_ || int(extra.size()) != 2 * kBoundarySlots) return; // none in the checkpoint: from the cells
  // The faces' slots of the owned cells, then the ghosts' (the first layer's faces), as written.
  View2<real> slots("fvproxy::flow::restart_boundary_slots", mesh_.n_local(), 2 * kBoundarySlots);
  auto h = Kokkos::create_mirror_view(slots);
  for (int k = 0; k < 2 * kBoundarySlots; ++k)
    for (index_t c = 0; c < mesh_.n_cells; ++c) h(c, k) = extra[k][c];
  Kokkos::deep_copy(slots, h);
  if (halo_) halo_->exchange(slots);
  unpack_boundary_slots(mesh_, patches_, slot_, slots, incoming_, impedance_);
  incoming_ready_ = true;
}

FlowConvectionConfig FlowSolver::convection_config() const {
  const CaseConfig& cfg = cfg_;
  FlowConvectionConfig cc;
  static_cast<ConvectionConfig&>(cc) = cfg.operators.convection;
  cc.reconstruction = primitive_ ? FlowVariables::primitive : FlowVariables::conservative;
  cc.gas = gas_;
  return cc;
}

std::unique_ptr<FlowConvectionOperator> FlowSolver::make_convection(bool det) const {
  return make_flow_convection(mesh_, geom_, convection_config(), patches_, det);
}

/// Second order: the gradients, the limiter (Venkatakrishnan's local scale: flow_limiter_scale) and,
/// with primitive reconstruction, the primitive state.
void FlowSolver::make_second_order(bool det, bool paired) {
  const Mesh& mesh = mesh_;
  const CaseConfig& cfg = cfg_;
  const index_t C = mesh.n_local(), Fb = boundary_rows();
  grad_ = View2<real>("fvproxy::flow::gradient", C, 3 * NV);
  lim_ = View2<real>("fvproxy::flow::limiter", C, NV);
  if (primitive_) {
    w_ = View2<real>("fvproxy::flow::primitive", C, NV);
    wb_ = View2<real>("fvproxy::flow::primitive_boundary_values", Fb, NV);
  }
  limited_ = cfg.operators.muscl.limiter != Limiter::none;
  if (!limited_) fill("fvproxy::flow::limiter_none", lim_, real(1));
  const LimiterScale scale = limited_ ? flow_limiter_scale() : LimiterScale{};
  // the positivity check in the fused passes (else flow_positivity_limit after them)
  const FlowPositivityCheck check{limited_, primitive_ ? FlowVariables::primitive : FlowVariables::conservative, gas_};
  if (paired) {
    paired_ = make_paired_muscl(mesh, geom_, cfg.operators.muscl, scale, primitive_, check); // w's velocity is wv's
    positivity_checked_ = limited_;
  } else {
    FlowMuscl m = make_flow_muscl(mesh, geom_, cfg.operators.muscl, det, scale, check);
    muscl_ = std::move(m.muscl);
    positivity_checked_ = m.positivity_checked;
  }
}

/// Navier-Stokes: the velocity-temperature gradients and the viscous operator.
void FlowSolver::make_viscous(bool det, bool paired) {
  const Mesh& mesh = mesh_;
  const CaseConfig& cfg = cfg_;
  const index_t C = mesh.n_local(), Fb = boundary_rows();
  wv_ = View2<real>("fvproxy::flow::velocity_temperature", C, 4);
  wvb_ = View2<real>("fvproxy::flow::velocity_temperature_boundary", Fb, 4);
  gwv_ = View2<real>("fvproxy::flow::velocity_temperature_gradient", C, 12);
  if (!paired) {
    MusclConfig g = cfg.operators.muscl;
    g.limiter = Limiter::none;
    g.fused = false;
    viscous_gradient_ = make_muscl(mesh, geom_, g, 4, det, {});
  }
  FlowViscousConfig vc;
  static_cast<OperatorOptions&>(vc) = cfg.operators.diffusion;
  vc.gas = gas_;
  const FlowPhysicsConfig& f = cfg.physics.flow;
  vc.viscosity.law = f.viscosity == FlowPhysicsConfig::Viscosity::constant ? FlowViscosity::Law::constant
                                                                           : FlowViscosity::Law::sutherland;
  vc.viscosity.constant.mu = static_cast<real>(f.mu);
  vc.viscosity.sutherland = {static_cast<real>(f.mu_ref), static_cast<real>(f.t_ref), static_cast<real>(f.s)};
  vc.prandtl = static_cast<real>(f.prandtl);
  if (cfg.operators.step == StepPasses::fused)
    face_pass_ = make_flow_face_pass(mesh, geom_, convection_config(), vc, patches_, det);
  else
    viscosity_ = make_flow_viscous(mesh, geom_, vc, patches_, det);
}

void FlowSolver::initialize() {
  incoming_ready_ = incoming_from_cells_ = false; // a new start state: the fixed conditions' characteristics first
  fields_current_ = false;
  const FlowInitialConfig& ic = cfg_.flow_initial;
  const auto range = Kokkos::RangePolicy<ExecSpace>(0, mesh_.n_local());
  const char* label = "fvproxy::flow::initial_state";
  switch (ic.type) {
  case FlowInitialType::uniform:
    Kokkos::parallel_for(
        label, range,
        FillState<flow::UniformProfile>{
            {primitive_of(ic.state), profile_of(ic.profile, ic.state.velocity)}, gas_, mesh_.centroid, u_});
    break;
  case FlowInitialType::riemann: {
    const real n[3] = {real(ic.normal[0]), real(ic.normal[1]), real(ic.normal[2])};
    const flow::RiemannProfile p{
        flow::ExactRiemann::solve(primitive_of(ic.left), primitive_of(ic.right), n, cfg_.physics.flow.gamma),
        real(ic.position)};
    Kokkos::parallel_for(label, range, FillState<flow::RiemannProfile>{p, gas_, mesh_.centroid, u_});
    break;
  }
  case FlowInitialType::isentropic_vortex: {
    flow::VortexProfile p;
    p.v.gamma = gas_.gamma, p.v.beta = real(ic.beta);
    for (int i = 0; i < 2; ++i) p.v.x0[i] = real(ic.center[i]);
    for (int i = 0; i < 3; ++i) p.v.U[i] = real(ic.velocity[i]);
    if (cfg_.mesh.generate)
      for (int i = 0; i < 2; ++i)
        p.v.period[i] = cfg_.mesh.generate->periodic[i] ? real(cfg_.mesh.generate->lengths[i]) : real(0);
    Kokkos::parallel_for(label, range, FillState<flow::VortexProfile>{p, gas_, mesh_.centroid, u_});
    break;
  }
  case FlowInitialType::taylor_green: {
    flow::TaylorGreenProfile p;
    p.tg = {real(ic.length), real(ic.speed), real(ic.density), real(ic.pressure)};
    Kokkos::parallel_for(label, range, FillState<flow::TaylorGreenProfile>{p, gas_, mesh_.centroid, u_});
    break;
  }
  case FlowInitialType::acoustic_pulse: {
    flow::AcousticPulseProfile p;
    p.a.mean = primitive_of(ic.state);
    for (int i = 0; i < 3; ++i) p.a.n[i] = real(ic.normal[i]);
    p.a.x0 = real(ic.position), p.a.width = real(ic.width), p.a.amplitude = real(ic.amplitude);
    p.a.gamma = gas_.gamma;
    Kokkos::parallel_for(label, range, FillState<flow::AcousticPulseProfile>{p, gas_, mesh_.centroid, u_});
    break;
  }
  }
}

void FlowSolver::derive(View2<real> u, Rows rows) {
  if (fields_current_ && rows != Rows::ghosts) { // the owned cell rows: from the fused stage update
    if (rows == Rows::all) derive(u, Rows::ghosts);
    rows = Rows::owned_boundary;
  }
  // the vertex stencil's mirror images of the rows' cells (owned_boundary: of the owned cells)
  if (second_order_) {
    if (primitive_) {
      flow_primitive_state(mesh_, gas_, patches_, u, w_, wb_, rows);
      flow_image_values(geom_, gas_, mirror_rules_, ImageVariables::primitive, w_, wb_, rows);
    } else {
      flow_boundary_values(mesh_, gas_, patches_, u, ub_, rows);
      flow_image_values(geom_, gas_, mirror_rules_, ImageVariables::conserved, u, ub_, rows);
    }
  }
  if (viscous_) {
    flow_primitive_fields(mesh_, gas_, patches_, u, wv_, wvb_, rows);
    flow_image_values(geom_, gas_, mirror_rules_, ImageVariables::velocity_temperature, wv_, wvb_, rows);
  }
}

void FlowSolver::gradients(View2<real> u, Part part) {
  if (paired_) // the MUSCL and the viscous gradients in one pass
    paired_->compute(primitive_ ? w_ : u, primitive_ ? wb_ : ub_, wv_, wvb_, grad_, lim_, gwv_, part);
  if (second_order_) {
    if (muscl_) muscl_->compute(primitive_ ? w_ : u, primitive_ ? wb_ : ub_, grad_, lim_, part);
    if (limited_ && !positivity_checked_) // limiter none: the face states' own fallback only (flow_convection.hpp)
      flow_positivity_limit(mesh_, geom_, primitive_ ? FlowVariables::primitive : FlowVariables::conservative, gas_, u,
                            grad_, lim_, part);
    flow_entering_first_order(mesh_, patches_, u, grad_, part);
    flow_first_order_cells(mesh_, first_order_, grad_, part); // a step taken again: retry_step()'s cells
  }
  if (viscous_gradient_) viscous_gradient_->compute(wv_, wvb_, gwv_, View2<real>(), part);
}

void FlowSolver::reconstruct(View2<real> u) {
  derive(u, Rows::all);
  gradients(u, Part::all);
  if (two_layers_) gradients(u, Part::layer1);
}

void FlowSolver::rate(View2<real> u, View2<real> rhs) {
  // docs/halo.md#overlap: with the optimized halo the state's exchange flies while the owned
  // cells' derived fields and the inner cells' gradients and limiter values are computed (they read
  // no ghost row), the ghost rows' derived fields and the frontier's gradients follow its finish();
  // then the gradients' exchange flies while the inner part of the fluxes is computed, the frontier
  // part follows its finish(). With two ghost layers the first layer's gradients are computed here
  // instead of exchanged. The naive halo blocks in each exchange and computes every part at once.
  std::vector<View2<real>> arrays;
  if (second_order_) arrays.push_back(grad_);
  if (limited_) arrays.push_back(lim_);
  if (viscous_) arrays.push_back(gwv_);
  const bool overlap = halo_ && halo_->variant() == HaloVariant::optimized;
  if (!overlap) {
    if (halo_) halo_->exchange(u, HaloKind::state);
    if (!fields_current_) fill("fvproxy::flow::zero_rate", rhs, real(0));
    reconstruct(u);
    if (halo_ && !arrays.empty() && !two_layers_) halo_->exchange(arrays, HaloKind::gradient_limiter);
    face_fluxes(u, rhs, Part::all);
    return;
  }
  halo_->start({u}, HaloKind::state);
  if (!fields_current_) fill("fvproxy::flow::zero_rate", rhs, real(0));
  if (arrays.empty()) { // first order, inviscid: the fluxes read the state alone
    convection_->apply(u, grad_, lim_, rhs, Part::inner);
    halo_->poll();
    halo_->finish();
    convection_->apply(u, grad_, lim_, rhs, Part::frontier);
    return;
  }
  derive(u, Rows::owned);
  gradients(u, Part::inner);
  halo_->poll();
  halo_->finish();
  derive(u, Rows::ghosts);
  gradients(u, Part::frontier);
  if (two_layers_) { // docs/halo.md#two-ghost-layers: the first layer's gradients here, no second exchange
    gradients(u, Part::layer1);
    face_fluxes(u, rhs, Part::all);
    return;
  }
  halo_->start(arrays, HaloKind::gradient_limiter);
  face_fluxes(u, rhs, Part::inner, [&] { halo_->poll(); });
  halo_->finish();
  face_fluxes(u, rhs, Part::frontier);
}

void FlowSolver::face_fluxes(View2<real> u, View2<real> rhs, Part part) {
  face_fluxes(u, rhs, part, [] {});
}

template <class Between> void FlowSolver::face_fluxes(View2<real> u, View2<real> rhs, Part part, Between&& between) {
  if (face_pass_) { // operators.step: fused (docs/operators/face-pass.md)
    face_pass_->apply(u, grad_, lim_, wv_, wvb_, gwv_, rhs, part);
    between();
    return;
  }
  convection_->apply(u, grad_, lim_, rhs, part);
  between(); // the overlapped rate polls the halo between the two operators' inner parts
  if (viscous_) viscosity_->apply(wv_, wvb_, gwv_, rhs, part);
}

void FlowSolver::step(real /*t*/, real dt, long long step, bool check) {
  // The flow models' boundary conditions do not depend on time: the stages' times are not needed.
  // A non-reflecting face's incoming characteristic is advanced with the state, stage by stage, from the
  // stage's state (its ghost rows exchanged by rate()).
  if (!retrying_) first_order_ = View1<index_t>(); // a new step: second order everywhere again
  retrying_ = false;
  start_incoming();
  for (std::size_t s = 0; s < stages_.size(); ++s) {
    const kc::ProfileRegion region("fvproxy::solver::rk_stage");
    const real a = static_cast<real>(stages_[s].a);
    rate(u_, rhs_);
    if (non_reflecting_)
      flow_relax_incoming(mesh_, gas_, patches_, u_, incoming_, incoming_n_, impedance_, IncomingStep::stage, a, dt);
    // the update with the next stage's zeroed rate and cell fields (operators/flow/flow_stage_update.hpp)
    flow_stage_update(gas_, un_, u_, rhs_, a, dt, primitive_ ? w_ : View2<real>(), viscous_ ? wv_ : View2<real>(),
                      mesh_.n_cells);
    fields_current_ = true;
  }
  if (check) physical_check(step);
}

void FlowSolver::physical_check(long long step) {
  const auto key = static_cast<unsigned long long>(step < kMaxSteps ? step : kMaxSteps) << 35;
  Kokkos::parallel_for("fvproxy::flow::physical_check", Kokkos::RangePolicy<ExecSpace>(0, mesh_.n_cells),
                       PhysicalCheck{gas_, u_, check_.keys, key});
}

std::optional<StateFailure> FlowSolver::state_failure() {
  physical_check(0); // the state the run starts from, as "step 0"
  if (std::optional<StateFailure> f = first_failure()) return f;
  // Finite and physical, but within the range the fluxes compute in? (A checkpoint's values come
  // from no case reader: 1e308 passes the physical check and overflows in the first flux.)
  Kokkos::parallel_for("fvproxy::flow::start_range_check", Kokkos::RangePolicy<ExecSpace>(0, mesh_.n_cells),
                       StartRangeCheck{gas_, u_, check_.keys, kStateMin, kStateMax});
  return locate_failure(mesh_, comm_, check_.keys, u_, StateFailure::Kind::out_of_range);
}

bool FlowSolver::retry_step() {
  mark_first_order();
  // The owned rows of the step's start state (the first stage's update saved them; the ghost rows
  // follow from the next stage's exchange) and the non-reflecting faces' characteristics.
  const Kokkos::pair<index_t, index_t> owned(0, mesh_.n_cells);
  Kokkos::deep_copy(Kokkos::subview(u_, owned, Kokkos::ALL), Kokkos::subview(un_, owned, Kokkos::ALL));
  fields_current_ = false;
  if (non_reflecting_) Kokkos::deep_copy(incoming_, incoming_n_);
  Kokkos::deep_copy(check_.keys, kNoBadValue);
  return true;
}

void FlowSolver::mark_first_order() {
  // From the failed step's owned rows (before retry_step puts the start state back); the cells an
  // earlier attempt of this step took at first order stay so. Collective (the ghosts' marks).
  View1<real> marked("fvproxy::flow::failed_cells", mesh_.n_local());
  Kokkos::parallel_for("fvproxy::flow::mark_failed_cells", Kokkos::RangePolicy<ExecSpace>(0, mesh_.n_cells),
                       MarkNonPhysical{gas_, u_, marked});
  const View1<index_t> before = first_order_;
  const index_t n_cells = mesh_.n_cells;
  Kokkos::parallel_for("fvproxy::flow::mark_first_order_before",
                       Kokkos::RangePolicy<ExecSpace>(0, index_t(before.extent(0))), MarkRows{before, n_cells, marked});
  if (halo_) halo_->exchange(marked);
  first_order_ = flow_first_order_neighbourhood(mesh_, marked);
  const auto rows = Kokkos::create_mirror_view_and_copy(HostSpace(), first_order_);
  std::int64_t owned = 0;
  for (std::size_t i = 0; i < rows.extent(0); ++i) owned += rows(i) < n_cells;
  first_order_cells_ = comm_.sum(owned);
  retrying_ = true;
}

std::optional<StateFailure> FlowSolver::first_failure() const {
  return locate_failure(mesh_, comm_, check_.keys, u_, StateFailure::Kind::non_physical);
}

StableStep FlowSolver::stable_step(double cfl) const {
  const real pr = static_cast<real>(cfg_.physics.flow.prandtl);
  Kokkos::ValLocScalar<real, index_t> best;
  const FlowPhysicsConfig& f = cfg_.physics.flow;
  if (!viscous_)
    best = max_rate(mesh_, gas_, flow::ConstantViscosity{0}, pr, u_);
  else if (f.viscosity == FlowPhysicsConfig::Viscosity::constant)
    best = max_rate(mesh_, gas_, flow::ConstantViscosity{static_cast<real>(f.mu)}, pr, u_);
  else
    best = max_rate(mesh_, gas_,
                    flow::Sutherland{static_cast<real>(f.mu_ref), static_cast<real>(f.t_ref), static_cast<real>(f.s)},
                    pr, u_);
  StableStep s;
  s.max_rate = best.val;
  if (best.loc >= 0) {
    gid_t h = -1;
    Kokkos::deep_copy(h, Kokkos::subview(mesh_.cell_gid, best.loc));
    s.limiting_cell = h;
  }
  reduce_over_ranks(s, comm_);
  s.dt = s.max_rate > 0 && std::isfinite(s.max_rate) ? cfl / s.max_rate : 0.0;
  return s;
}

ConstView2<real> FlowSolver::derived(ConstView2<real> u) {
  Kokkos::parallel_for("fvproxy::flow::output_fields", Kokkos::RangePolicy<ExecSpace>(0, mesh_.n_cells),
                       DerivedFields{gas_, u, out_});
  return out_;
}

ConstView2<real> FlowSolver::output_fields() {
  return derived(u_);
}

ConstView2<real> FlowSolver::last_good_output_fields() {
  return derived(un_);
}

std::vector<std::string> FlowSolver::conserved_names() const {
  return {"density", "momentum[0]", "momentum[1]", "momentum[2]", "total_energy"};
}

std::vector<double> FlowSolver::conserved_totals() const {
  return fvproxy::conserved_totals(mesh_, u_, comm_);
}

std::vector<double> FlowSolver::residuals(real dt) {
  // Reductions on the device (a monitor: the same to round-off on any rank count, not bitwise).
  // The exact host sum of conserved_totals copied the whole state to the host: 0.1 s per call at
  // 2M cells on an H200, paid at the first step (the monitor's reference) and the last
  // (perf/results/2026-11-26-h200-first-steps).
  std::vector<double> sums(3, 0.0);
  const int groups[4] = {0, 1, 4, NV}; // density, momentum, total energy
  for (int g = 0; g < 3; ++g)
    Kokkos::parallel_reduce("fvproxy::flow::residual", Kokkos::RangePolicy<ExecSpace>(0, mesh_.n_cells),
                            ResidualSum{u_, un_, mesh_.volume, 1 / dt, groups[g], groups[g + 1]}, sums[g]);
  comm_.sum(sums);
  return {std::sqrt(sums[0] / volume_), std::sqrt(sums[1] / volume_), std::sqrt(sums[2] / volume_)};
}

std::vector<std::string> FlowSolver::integral_names() const {
  std::vector<std::string> n{"kinetic_energy"};
  for (std::size_t p = 0; p < patches_.size(); ++p)
    if (patches_[p].type == FlowBoundaryKind::no_slip_wall || patches_[p].type == FlowBoundaryKind::slip_wall)
      for (const char* c : {"_fx", "_fy", "_fz"}) n.push_back(mesh_.patches[p].name + c);
  return n;
}

std::vector<WallForce> FlowSolver::wall_forces() {
  // the fluxes the solver applies at the wall faces, from the current state (its ghosts first):
  // the convective momentum flux (the wall pressure) and the viscous one (the wall shear)
  if (halo_) halo_->exchange(u_, HaloKind::state);
  start_incoming();
  reconstruct(u_);
  std::vector<WallForce> out;
  for (std::size_t p = 0; p < patches_.size(); ++p) {
    const FlowBoundaryKind type = patches_[p].type;
    if (type != FlowBoundaryKind::no_slip_wall && type != FlowBoundaryKind::slip_wall) continue;
    const Patch& pa = mesh_.patches[p];
    WallForce w;
    w.patch = pa.name;
    if (pa.end > pa.begin) {
      View2<real> flux("fvproxy::flow::wall_fluxes", pa.end - pa.begin, NV);
      if (face_pass_)
        face_pass_->convection_patch_fluxes(u_, grad_, lim_, p, flux);
      else
        convection_->patch_fluxes(u_, grad_, lim_, p, flux);
      auto h = Kokkos::create_mirror_view_and_copy(HostSpace(), flux);
      for (index_t i = 0; i < index_t(h.extent(0)); ++i)
        for (int d = 0; d < 3; ++d) w.pressure[d] += double(h(i, 1 + d));
      if (viscous_) { // the fluid's viscous flux into the wall: -F_v (F_v is added to the owner's rate)
        if (face_pass_)
          face_pass_->viscous_patch_fluxes(wv_, wvb_, gwv_, p, flux);
        else
          viscosity_->patch_fluxes(wv_, wvb_, gwv_, p, flux);
        Kokkos::deep_copy(h, flux);
        for (index_t i = 0; i < index_t(h.extent(0)); ++i)
          for (int d = 0; d < 3; ++d) w.viscous[d] -= double(h(i, 1 + d));
      }
    }
    std::vector<double> v{w.pressure[0], w.pressure[1], w.pressure[2], w.viscous[0], w.viscous[1], w.viscous[2]};
    comm_.sum(v);
    for (int d = 0; d < 3; ++d) w.pressure[d] = v[d], w.viscous[d] = v[3 + d];
    out.push_back(w);
  }
  return out;
}

std::vector<double> FlowSolver::integrals() {
  // rhs_ is free between steps: its first column takes the terms (then it is zero no more: the next
  // stage fills it and derives the cell fields again)
  Kokkos::parallel_for("fvproxy::flow::kinetic_energy", Kokkos::RangePolicy<ExecSpace>(0, mesh_.n_cells),
                       KineticEnergy{u_, rhs_});
  fields_current_ = false;
  const auto ke = Kokkos::subview(rhs_, Kokkos::ALL(), Kokkos::make_pair(0, 1));
  std::vector<double> v{fvproxy::conserved_totals(mesh_, ke, comm_)[0] / volume_};
  for (const WallForce& w : wall_forces())
    for (int d = 0; d < 3; ++d) v.push_back(w.total(d));
  return v;
}

std::vector<FieldError> FlowSolver::errors(double t) const {
  if (!no_exact_.empty()) return {};
  View2<double> err("fvproxy::flow::error_terms", mesh_.n_cells, 3);
  const auto range = Kokkos::RangePolicy<ExecSpace>(0, mesh_.n_cells);
  const FlowInitialConfig& ic = cfg_.flow_initial;
  if (ic.type == FlowInitialType::riemann) {
    const real n[3] = {real(ic.normal[0]), real(ic.normal[1]), real(ic.normal[2])};
    const flow::RiemannProfile p{
        flow::ExactRiemann::solve(primitive_of(ic.left), primitive_of(ic.right), n, cfg_.physics.flow.gamma),
        real(ic.position)};
    Kokkos::parallel_for("fvproxy::flow::error_terms", range,
                         ErrorTerms<flow::RiemannProfile>{p, gas_, mesh_.centroid, u_, err, real(t)});
  } else {
    flow::VortexProfile p;
    p.v.gamma = gas_.gamma, p.v.beta = real(ic.beta);
    for (int i = 0; i < 2; ++i) p.v.x0[i] = real(ic.center[i]);
    for (int i = 0; i < 3; ++i) p.v.U[i] = real(ic.velocity[i]);
    for (int i = 0; i < 2; ++i) p.v.period[i] = real(cfg_.mesh.generate->lengths[i]);
    Kokkos::parallel_for("fvproxy::flow::error_terms", range,
                         ErrorTerms<flow::VortexProfile>{p, gas_, mesh_.centroid, u_, err, real(t)});
  }
  auto e = Kokkos::create_mirror_view_and_copy(HostSpace(), err);
  auto v = Kokkos::create_mirror_view_and_copy(HostSpace(), mesh_.volume);
  std::vector<double> sums(7, 0.0), maxes(3, 0.0); // volume, then l1 and l2 sums per field
  for (index_t c = 0; c < mesh_.n_cells; ++c) {
    sums[0] += v(c);
    for (int k = 0; k < 3; ++k) {
      sums[1 + k] += v(c) * e(c, k);
      sums[4 + k] += v(c) * e(c, k) * e(c, k);
      maxes[k] = std::max(maxes[k], e(c, k));
    }
  }
  comm_.sum(sums);
  comm_.max(maxes);
  const char* names[3] = {"density", "velocity", "pressure"};
  std::vector<FieldError> out;
  for (int k = 0; k < 3; ++k)
    out.push_back({names[k], {sums[1 + k] / sums[0], std::sqrt(sums[4 + k] / sums[0]), maxes[k]}});
  return out;
}

std::vector<std::pair<std::string, std::string>> FlowSolver::describe() const {
  std::ostringstream shear;
  shear << cfg_.operators.convection.shear_dissipation;
  std::vector<std::pair<std::string, std::string>> d{
      {"muscl.gradient", paired_  ? paired_->description() + " (with the viscous gradients)"
                         : muscl_ ? muscl_->gradient_description()
                                  : "off (first order)"},
      {"muscl.limiter", !second_order_ ? "off"
                        : !limited_    ? "none"
                        : paired_      ? "fused (in the paired pass)"
                                       : muscl_->limiter_description()},
      {"convection",
       std::string(to_string(cfg_.operators.convection.flux)) +
           (cfg_.operators.convection.flux != flow::FluxType::rusanov && cfg_.operators.convection.rotated ? " rotated "
                                                                                                           : " ") +
           (cfg_.operators.convection.flux != flow::FluxType::rusanov && cfg_.operators.convection.shear_dissipation > 0
                ? "shear-floor " + shear.str() + " "
                : std::string()) +
           (face_pass_ ? face_pass_->description() : convection_->description()) +
           (second_order_ ? primitive_ ? ", MUSCL on (rho, u, p)" : ", MUSCL on U" : ", first order")},
      {"diffusion",
       viscous_ ? "viscous " + (face_pass_ ? face_pass_->description() : viscosity_->description()) + " (gradients " +
                      (paired_ ? "in muscl's paired pass" : viscous_gradient_->gradient_description()) + ")"
                : "off (euler)"},
      {"step", face_pass_ ? "one face pass (" + face_pass_->description() + ")"
               : viscous_ ? "separate"
                          : "one face pass (convection only)"}};
  if (halo_)
    d.emplace_back("halo",
                   std::string(to_string(halo_->variant())) + " (" + halo_->transport() +
                       (halo_->variant() == HaloVariant::optimized && !two_layers_ ? ", gradients overlapped" : "") +
                       (two_layers_ ? ", two ghost layers" : "") + ")");
  return d;
}

} // namespace fvproxy
