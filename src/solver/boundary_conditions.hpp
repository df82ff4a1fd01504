#pragma once
// Boundary values u_b (boundary faces x components) from the boundary section of a case, refreshed
// at every stage: one launch per patch, its condition a template parameter (no per-face branch).
//   dirichlet: the given value, or the exact solution at the face centroid and time t;
//   outflow:   zero normal gradient: the owner's value;
//   inflow:    the given value where the flow enters (phi_f < 0), the owner's value where it leaves.
#include <string>
#include <vector>

#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "operators/part.hpp"
#include "physics/scalar_profile.hpp"
#include "solver/case_config.hpp"

namespace fvproxy {

class BoundaryConditions {
public:
  /// Each patch's condition from its entry (`boundary`: resolve_boundary); checks that
  /// 'dirichlet: exact' has an exact solution. `phi`: face_volume_flux.
  BoundaryConditions(const Mesh& mesh, const CaseConfig& c, const BoundaryOnMesh& boundary, const ScalarSolution& exact,
                     View1<real> phi);

  /// ub(f - n_interior, k) at time t for the boundary faces the rows `r` need (operators/part.hpp:
  /// the owned cells', then, with two ghost layers, the first layer's).
  void apply(ConstView2<real> u, real t, View2<real> ub, Rows r = Rows::all) const;

  struct PatchCondition {
    std::string name;
    BoundaryType type = BoundaryType::outflow;
    bool exact = false;
    real value[kMaxComponents] = {};
    index_t begin = 0, end = 0; ///< face range
    IndexRange layer1;          ///< the first ghost layer's faces (two layers)
  };
  const std::vector<PatchCondition>& patches() const { return patches_; }

private:
  void apply(const PatchCondition& p, IndexRange faces, ConstView2<real> u, real t, View2<real> ub) const;
  std::vector<PatchCondition> patches_;
  int components_;
  index_t n_interior_;
  ConstView1<index_t> owner_;
  ConstVec3View<real> face_centroid_;
  ConstView1<real> phi_;
  ScalarSolution exact_;
};

} // namespace fvproxy
