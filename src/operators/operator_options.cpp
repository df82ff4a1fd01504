// The `operators` section: each operator's variant and the optimized variant's options
// (docs/inputs.md#operators).
#include "operators/operator_options.hpp"

#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include "core/config_reader.hpp"
#include "core/error.hpp"

namespace fvproxy {

using detail::Reader;

namespace {
/// operators.convection.flux's values, in the order its error message lists them.
constexpr flow::FluxType kFluxes[] = {flow::FluxType::rusanov, flow::FluxType::hllc, flow::FluxType::roe};
} // namespace

const char* to_string(Variant v) {
  return v == Variant::naive ? "naive" : "optimized";
}
const char* to_string(Gradient g) {
  return g == Gradient::green_gauss ? "green-gauss" : "least-squares";
}
const char* to_string(Limiter l) {
  return l == Limiter::none ? "none" : l == Limiter::barth_jespersen ? "barth-jespersen" : "venkatakrishnan";
}
const char* to_string(Scatter s) {
  return s == Scatter::atomic ? "atomic" : s == Scatter::gather ? "gather" : "stored";
}
const char* to_string(Policy p) {
  return p == Policy::range ? "range" : "team";
}
const char* to_string(StepPasses s) {
  return s == StepPasses::fused ? "fused" : "separate";
}

const char* to_string(Stencil s) {
  return s == Stencil::vertex ? "vertex" : s == Stencil::corners ? "corners" : "face";
}
const char* to_string(FlowVariables v) {
  return v == FlowVariables::conservative ? "conservative" : "primitive";
}

namespace {

void parse_options(const Reader& r, const YAML::Node& n, const std::string& path, OperatorOptions& o,
                   bool deterministic, const YAML::Node& det_node) {
  if (n["variant"])
    o.variant = r.enum_value(n["variant"], path + ".variant", std::vector<Variant>{Variant::naive, Variant::optimized});
  for (const char* k : {"scatter", "policy", "team_size"})
    if (n[k] && o.variant == Variant::naive)
      r.fail(n[k], path + "." + k, std::string("'") + k + "' is an option of the optimized variant",
             "the naive variant always scatters with atomics and launches an MDRangePolicy; remove it or use variant: "
             "optimized");
  if (n["scatter"]) {
    o.scatter = r.enum_value(n["scatter"], path + ".scatter",
                             std::vector<Scatter>{Scatter::atomic, Scatter::gather, Scatter::stored});
    if (deterministic && o.scatter == Scatter::atomic)
      r.fail(n["scatter"], path + ".scatter", "scatter: atomic contradicts run.deterministic: true",
             "deterministic runs store or gather (no atomics); " + r.src().locate(det_node, "run.deterministic") +
                 " sets it");
  }
  if (n["policy"])
    o.policy = r.enum_value(n["policy"], path + ".policy", std::vector<Policy>{Policy::range, Policy::team});
  if (n["team_size"]) {
    const long long t = r.int_value(n["team_size"], path + ".team_size");
    if (t < 32 || t > 1024 || t % 32 != 0)
      r.fail(n["team_size"], path + ".team_size",
             "value " + std::to_string(t) + " out of range: a multiple of 32 from 32 to 1024");
    o.team_size = static_cast<int>(t);
  }
}

} // namespace

void refuse_stored(Scatter s, const std::string& key, const std::string& what) {
  if (s == Scatter::stored)
    throw InputError(key, "scatter: stored: " + what + " has no stored accumulation",
                     "stored applies to the face operators (convection, the scalar diffusion, one face pass); use "
                     "gather or atomic");
}

bool fusable_face_operators(const OperatorsConfig& ops) {
  return ops.convection.variant == Variant::optimized && ops.diffusion.variant == Variant::optimized &&
         ops.convection.scatter == ops.diffusion.scatter && ops.convection.policy == ops.diffusion.policy &&
         ops.convection.team_size == ops.diffusion.team_size;
}

StepPasses default_step(const OperatorsConfig& ops, PhysicsModel model) {
  return model != PhysicsModel::euler && fusable_face_operators(ops) ? StepPasses::fused : StepPasses::separate;
}

namespace {

/// The default scatter of the convection and diffusion face loops, from the benchmark harness
/// (docs/operators/face-pass.md#accumulation, perf/face-accumulation*.yaml). On CUDA per-face
/// atomics are fastest (the stored fluxes 1-7 % behind on tets, 3-14 % on hexes; the per-cell
/// gather, which evaluates each face twice, 1.2-2.4x slower); on the OpenMP backend the stored
/// fluxes are fastest (1.07-1.25x over atomics, 1.4-1.75x over the gather). Deterministic runs
/// store (no atomics; 1.2-2.3x faster than the gather on an H200). Where stored does not apply
/// (navier-stokes' separate viscous operator) the default falls back to gather: fallback_to_gather.
Scatter default_face_scatter(bool deterministic) {
#if defined(KOKKOS_ENABLE_CUDA)
  if (!deterministic && std::is_same<Kokkos::DefaultExecutionSpace, Kokkos::Cuda>::value) return Scatter::atomic;
#endif
  (void)deterministic;
  return Scatter::stored;
}

/// A default `stored` where it does not apply becomes gather: the separate viscous operator of
/// navier-stokes (operators.step: separate) has no stored accumulation; euler has no diffusion.
void fallback_to_gather(const YAML::Node& n, PhysicsModel model, OperatorsConfig& ops) {
  const bool given = n && n["diffusion"] && n["diffusion"]["scatter"];
  if (!given && ops.diffusion.scatter == Scatter::stored && model != PhysicsModel::scalar &&
      ops.step != StepPasses::fused)
    ops.diffusion.scatter = Scatter::gather;
}

void emit_options(YAML::Node n, const OperatorOptions& o) { // Node is a handle: writes go to the tree
  n["variant"] = to_string(o.variant);
  if (o.variant == Variant::optimized) {
    n["scatter"] = to_string(o.scatter);
    n["policy"] = to_string(o.policy);
    n["team_size"] = o.team_size;
  }
}

/// operators.muscl.stencil (after the gradient): face, corners or vertex; the last two are least-squares stencils.
void read_muscl_stencil(const Reader& r, const YAML::Node& s, MusclConfig& mc) {
  if (!s) return;
  mc.stencil = r.enum_value(s, "operators.muscl.stencil",
                            std::vector<Stencil>{Stencil::face, Stencil::vertex, Stencil::corners});
  if (mc.stencil != Stencil::face && mc.gradient == Gradient::green_gauss)
    r.fail(s, "operators.muscl.stencil",
           std::string("stencil: ") + to_string(mc.stencil) + " is a least-squares stencil",
           "Green-Gauss sums over the cell's faces; use gradient: least-squares or stencil: face");
}

/// `operators.muscl.fused` (docs/operators/muscl.md#fused), after the muscl options.
void read_muscl_fused(const Reader& r, const YAML::Node& f, MusclConfig& mc) {
  if (f) {
    mc.fused = r.bool_value(f, "operators.muscl.fused");
    if (mc.fused && mc.variant == Variant::naive)
      r.fail(f, "operators.muscl.fused", "'fused' is an option of the optimized variant",
             "the naive variant runs the gradient and the limiter as separate kernels; remove it or use variant: "
             "optimized");
    if (mc.fused && mc.scatter == Scatter::atomic)
      r.fail(f, "operators.muscl.fused", "fused: true needs scatter: gather",
             "the fused kernel gathers each cell's faces; an atomic scatter completes a cell's sums only after "
             "every face, so there is nothing to fuse");
  } else {
    // the default: fused wherever it applies (docs/operators/muscl.md#fused)
    mc.fused = mc.variant == Variant::optimized && mc.scatter == Scatter::gather;
  }
}

/// `operators.step` (docs/operators/face-pass.md), after the face operators' options.
void read_step(const Reader& r, const YAML::Node& st, PhysicsModel model, OperatorsConfig& ops) {
  // The default: one face pass wherever it applies (docs/operators/face-pass.md: 1.2-1.35x faster
  // steps on an H200, within the noise on the CPU).
  ops.step = default_step(ops, model);
  if (st) {
    ops.step = r.enum_value(st, "operators.step", std::vector<StepPasses>{StepPasses::separate, StepPasses::fused});
    if (ops.step == StepPasses::fused) {
      if (model == PhysicsModel::euler)
        r.fail(st, "operators.step", "step: fused needs two face operators to fuse",
               "euler has one (the convection: already one face pass); remove the key or use step: separate");
      const auto need = [&](bool ok, const std::string& what, const std::string& hint) {
        if (!ok) r.fail(st, "operators.step", "step: fused " + what, hint);
      };
      need(ops.convection.variant == Variant::optimized && ops.diffusion.variant == Variant::optimized,
           "needs the optimized convection and diffusion",
           "the face pass fuses the optimized kernels; remove 'variant: naive' or use step: separate");
      need(ops.convection.scatter == ops.diffusion.scatter,
           std::string("needs one scatter for convection and diffusion (convection: ") +
               to_string(ops.convection.scatter) + ", diffusion: " + to_string(ops.diffusion.scatter) + ")",
           "give both the same operators.<op>.scatter");
      need(ops.convection.policy == ops.diffusion.policy && ops.convection.team_size == ops.diffusion.team_size,
           "needs one launch policy and team size for convection and diffusion",
           "give both the same operators.<op>.policy and team_size");
    }
  }
}

/// `scatter: stored` (docs/operators/face-pass.md#accumulation): every face operator but
/// navier-stokes' separate viscous operator (its face pass stores); never the gradients.
void check_stored(const Reader& r, const YAML::Node& n, PhysicsModel model, const OperatorsConfig& ops) {
  const auto key = [&](const char* op) { return n[op] ? n[op]["scatter"] : YAML::Node(); };
  if (ops.muscl.scatter == Scatter::stored)
    r.fail(key("muscl"), "operators.muscl.scatter", "scatter: stored is an accumulation of the face operators",
           "the gradients gather each cell's faces; use gather (the default) or atomic");
  const bool fused = ops.step == StepPasses::fused;
  const auto need_pass = [&](const char* op) {
    r.fail(key(op), std::string("operators.") + op + ".scatter",
           "scatter: stored needs one face pass (operators.step: fused) for the viscous terms",
           "navier-stokes' separate viscous operator gathers or scatters; give convection and diffusion the same "
           "scatter: stored (the face pass), or use gather or atomic");
  };
  // every convection stores, and the scalar diffusion; navier-stokes' separate viscous operator does not
  if (ops.diffusion.scatter == Scatter::stored && !fused && model == PhysicsModel::navier_stokes)
    need_pass("diffusion");
}

/// The flow models' keys of operators.convection (flux, reconstruction, entropy_fix, rotated,
/// shear_dissipation; the scalar model refuses them before).
void read_flow_convection(const Reader& r, const YAML::Node& c, ConvectionConfig& conv) {
  if (c["flux"])
    conv.flux = r.enum_value(c["flux"], "operators.convection.flux",
                             std::vector<flow::FluxType>(std::begin(kFluxes), std::end(kFluxes)));
  if (c["reconstruction"])
    conv.variables = r.enum_value(c["reconstruction"], "operators.convection.reconstruction",
                                  std::vector<FlowVariables>{FlowVariables::conservative, FlowVariables::primitive});
  if (c["entropy_fix"]) {
    conv.entropy_fix = r.bool_value(c["entropy_fix"], "operators.convection.entropy_fix");
    if (conv.flux != flow::FluxType::roe)
      r.fail(c["entropy_fix"], "operators.convection.entropy_fix", "an option of flux: roe",
             std::string("the ") + to_string(conv.flux) + " flux needs no entropy fix");
  }
  if (c["rotated"]) {
    conv.rotated = r.bool_value(c["rotated"], "operators.convection.rotated");
    if (conv.flux == flow::FluxType::rusanov && conv.rotated)
      r.fail(c["rotated"], "operators.convection.rotated", "an option of flux: hllc | roe",
             "the rusanov flux is not rotated");
  }
  if (c["shear_dissipation"]) {
    conv.shear_dissipation = r.positive(c["shear_dissipation"], "operators.convection.shear_dissipation", true);
    if (conv.shear_dissipation > 1)
      r.fail(c["shear_dissipation"], "operators.convection.shear_dissipation", "must be <= 1",
             "a fraction of the face's mean speed (docs/physics.md#fluxes)");
    if (conv.flux == flow::FluxType::rusanov && conv.shear_dissipation > 0)
      r.fail(c["shear_dissipation"], "operators.convection.shear_dissipation", "an option of flux: hllc | roe",
             "the rusanov flux dissipates shear at its largest wave speed already");
  }
}

} // namespace

OperatorsConfig read_operator_options(const Reader& r, const YAML::Node& root, bool deterministic, PhysicsModel model) {
  OperatorsConfig ops;
  ops.convection.scatter = ops.diffusion.scatter = default_face_scatter(deterministic);
  const YAML::Node n = root["operators"];
  if (!n) {
    ops.step = default_step(ops, model);
    fallback_to_gather(n, model, ops);
    return ops;
  }
  r.check_keys(n, "operators", {"muscl", "convection", "diffusion", "step"});
  const YAML::Node det = root["run"] ? root["run"]["deterministic"] : YAML::Node();
  if (const YAML::Node m = n["muscl"]) {
    r.check_keys(m, "operators.muscl",
                 {"variant", "gradient", "limiter", "venkatakrishnan_threshold", "venkatakrishnan_k", "fused",
                  "stencil", "scatter", "policy", "team_size"});
    parse_options(r, m, "operators.muscl", ops.muscl, deterministic, det);
    if (m["gradient"])
      ops.muscl.gradient = r.enum_value(m["gradient"], "operators.muscl.gradient",
                                        std::vector<Gradient>{Gradient::green_gauss, Gradient::least_squares});
    if (m["limiter"])
      ops.muscl.limiter =
          r.enum_value(m["limiter"], "operators.muscl.limiter",
                       std::vector<Limiter>{Limiter::none, Limiter::barth_jespersen, Limiter::venkatakrishnan});
    if (m["venkatakrishnan_k"]) // the threshold's old, non-local form (eps^2 = (K h / L)^3 range^2)
      r.fail(m["venkatakrishnan_k"], "operators.muscl.venkatakrishnan_k",
             "replaced by operators.muscl.venkatakrishnan_threshold",
             "Venkatakrishnan's eps is now local: the threshold times the size of each variable around the cell "
             "(docs/operators/convection.md#limiter); the default 0.015 replaces the default K 5");
    if (m["venkatakrishnan_threshold"])
      ops.muscl.venkatakrishnan_threshold =
          r.positive(m["venkatakrishnan_threshold"], "operators.muscl.venkatakrishnan_threshold");
    read_muscl_fused(r, m["fused"], ops.muscl);
    read_muscl_stencil(r, m["stencil"], ops.muscl);
  }
  if (const YAML::Node c = n["convection"]) {
    std::vector<std::string> keys{"variant", "order", "scatter", "policy", "team_size"};
    if (model != PhysicsModel::scalar) {
      keys.insert(keys.end(), {"flux", "reconstruction", "entropy_fix", "rotated", "shear_dissipation"});
    } else {
      for (const char* k : {"flux", "reconstruction", "entropy_fix", "rotated", "shear_dissipation"})
        if (c[k])
          r.fail(c[k], std::string("operators.convection.") + k,
                 std::string("'") + k + "' is an option of the flow models", "physics.model: euler | navier-stokes");
    }
    r.check_keys(c, "operators.convection", keys);
    parse_options(r, c, "operators.convection", ops.convection, deterministic, det);
    read_flow_convection(r, c, ops.convection);
    if (c["order"]) {
      const long long o = r.int_value(c["order"], "operators.convection.order");
      if (o != 1 && o != 2) r.fail(c["order"], "operators.convection.order", "must be 1 (upwind) or 2 (MUSCL)");
      ops.convection.order = static_cast<int>(o);
    }
  }
  if (const YAML::Node d = n["diffusion"]) {
    r.check_keys(d, "operators.diffusion", {"variant", "scatter", "policy", "team_size"});
    parse_options(r, d, "operators.diffusion", ops.diffusion, deterministic, det);
  }
  read_step(r, n["step"], model, ops);
  fallback_to_gather(n, model, ops);
  check_stored(r, n, model, ops);
  return ops;
}

YAML::Node operator_options_yaml(const OperatorsConfig& o, bool flow) {
  YAML::Node ops;
  emit_options(ops["muscl"], o.muscl);
  ops["muscl"]["gradient"] = to_string(o.muscl.gradient);
  ops["muscl"]["limiter"] = to_string(o.muscl.limiter);
  ops["muscl"]["venkatakrishnan_threshold"] = o.muscl.venkatakrishnan_threshold;
  if (o.muscl.stencil != Stencil::face) ops["muscl"]["stencil"] = to_string(o.muscl.stencil);
  if (o.muscl.variant == Variant::optimized)
    ops["muscl"]["fused"] = o.muscl.fused && o.muscl.scatter == Scatter::gather;
  emit_options(ops["convection"], o.convection);
  ops["convection"]["order"] = o.convection.order;
  if (flow) {
    ops["convection"]["flux"] = to_string(o.convection.flux);
    ops["convection"]["reconstruction"] = to_string(o.convection.variables);
    if (o.convection.flux == flow::FluxType::roe) ops["convection"]["entropy_fix"] = o.convection.entropy_fix;
    if (o.convection.flux != flow::FluxType::rusanov) {
      ops["convection"]["rotated"] = o.convection.rotated;
      ops["convection"]["shear_dissipation"] = o.convection.shear_dissipation;
    }
  }
  emit_options(ops["diffusion"], o.diffusion);
  ops["step"] = to_string(o.step);
  return ops;
}

} // namespace fvproxy
