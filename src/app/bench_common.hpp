#pragma once
// What `fvproxy bench` and `fvproxy perf` share: fenced median timing, and the case's operator
// set-up on a mesh (geometry, face fluxes, exact solution, boundary conditions and patch types),
// and on several MPI ranks the timing of every rank together (docs/performance.md#on-several-ranks).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/kokkos_compat.hpp"
#include "mesh/mesh.hpp"
#include "operators/face_flux.hpp"
#include "operators/operator_geometry.hpp"
#include "parallel/communicator.hpp"
#include "solver/boundary_conditions.hpp"
#include "solver/case_config.hpp"
#include "solver/scalar_solution.hpp"
#include "solver/solver.hpp"

namespace fvproxy {

/// A long timing's progress on stderr (rank 0): every kProgressSeconds, the runs done and the time left.
struct RepeatProgress {
  static constexpr double kProgressSeconds = 5;
  RepeatProgress(std::string what, bool root) : what(std::move(what)), root(root) {}
  std::string what; ///< "" prints nothing
  bool root = true;
  Kokkos::Timer since;
  double next = kProgressSeconds;
  void tick(int done, int repeat) {
    if (what.empty() || !root || since.seconds() < next) return;
    const double each = since.seconds() / done, left = each * (repeat - done);
    std::fprintf(stderr, "fvproxy bench: %s: %d of %d runs, %.3g s each, about %.0f s left\n", what.c_str(), done,
                 repeat, each, left);
    next = since.seconds() + kProgressSeconds;
  }
};

/// Median milliseconds of `repeat` calls f(i), each between fences, after `warmup` calls; i
/// counts every call (warm-up included), for rotating inputs. With `comm` of several ranks every
/// call starts on every rank together (a barrier before it): each rank times its own part, and the
/// slowest rank's time is what bounds a step. `what` (e.g. "convection optimized"): progress on
/// stderr while it takes long (RepeatProgress).
template <class F>
double median_ms(int repeat, int warmup, const F& f, const Communicator* comm = nullptr, const std::string& what = "") {
  int i = 0;
  for (; i < warmup; ++i) f(i);
  kc::fence("fvproxy::bench::warmup");
  std::vector<double> t;
  t.reserve(std::size_t(repeat));
  RepeatProgress progress{what, !comm || comm->rank() == 0};
  for (int k = 0; k < repeat; ++k, ++i) {
    if (comm) comm->barrier();
    Kokkos::Timer timer;
    f(i);
    kc::fence("fvproxy::bench::timed");
    t.push_back(timer.seconds() * 1e3);
    progress.tick(k + 1, repeat);
  }
  std::sort(t.begin(), t.end());
  return t.size() % 2 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]);
}

/// The operators' inputs that depend on the case but not on the variant.
struct CaseOperators {
  OperatorGeometry geom;
  View1<real> phi;
  ScalarSolution solution;
  BoundaryConditions bc;
  std::vector<BoundaryType> patch_types;

  CaseOperators(const Mesh& m, const CaseConfig& cfg)
      : geom(make_operator_geometry(m, {}, cfg.operators.muscl.stencil)),
        phi(face_volume_flux(m, cfg.physics.velocity)), solution(make_scalar_solution(cfg)),
        bc(m, cfg, resolve_boundary(cfg, m), solution, phi) {
    for (const auto& p : bc.patches()) patch_types.push_back(p.type);
  }
};

/// One value per rank, by rank, on rank 0 (empty elsewhere).
inline std::vector<double> gather_values(const Communicator& comm, double v) {
  std::vector<double> out;
  for (const auto& s : comm.gather(nlohmann::json(v).dump())) out.push_back(nlohmann::json::parse(s).get<double>());
  return out;
}

/// The rank with the largest value (the lowest on ties).
inline int slowest(const std::vector<double>& v) {
  return static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin());
}

} // namespace fvproxy
