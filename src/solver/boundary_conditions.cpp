#include "solver/boundary_conditions.hpp"

#include <stdexcept>

#include "core/error.hpp"
#include "solver/scalar_solution.hpp"

namespace fvproxy {

namespace {

enum class Kind { value, exact, outflow, inflow };

template <Kind K> struct BoundaryValues {
  ConstView1<index_t> owner;
  ConstVec3View<real> F;
  ConstView1<real> phi;
  ConstView2<real> u;
  View2<real> ub;
  ScalarSolution exact;
  real value[kMaxComponents];
  int components;
  index_t n_interior;
  real t;
  KOKKOS_FUNCTION void operator()(const index_t f) const {
    const index_t b = f - n_interior;
    for (int k = 0; k < components; ++k) {
      if constexpr (K == Kind::value) {
        ub(b, k) = value[k];
      } else if constexpr (K == Kind::exact) {
        const real x[3] = {F(f, 0), F(f, 1), F(f, 2)};
        ub(b, k) = exact(k, x, t);
      } else if constexpr (K == Kind::outflow) {
        ub(b, k) = u(owner(f), k);
      } else {
        ub(b, k) = phi(f) < 0 ? value[k] : u(owner(f), k);
      }
    }
  }
};

} // namespace

BoundaryConditions::BoundaryConditions(const Mesh& mesh, const CaseConfig& c, const BoundaryOnMesh& boundary,
                                       const ScalarSolution& exact, View1<real> phi)
    : components_(c.physics.components), n_interior_(mesh.n_interior), owner_(mesh.face_owner),
      face_centroid_(mesh.face_centroid), phi_(phi), exact_(exact) {
  if (boundary.entry.size() != mesh.patches.size())
    throw std::logic_error("BoundaryConditions: the boundary section was resolved on another mesh");
  const std::string why = exact_solution_unavailable(c);
  for (std::size_t q = 0; q < mesh.patches.size(); ++q) {
    const Patch& p = mesh.patches[q];
    const BoundaryConfig& bc = c.boundary.at(boundary.entry[q]).second;
    if (bc.exact && !why.empty())
      throw InputError(bc.where,
                       "boundary." + p.name + ".value: 'exact' needs an exact solution, and this case has none", why);
    PatchCondition pc;
    pc.name = p.name;
    pc.type = bc.type;
    pc.exact = bc.exact;
    for (int k = 0; k < components_ && k < int(bc.value.size()); ++k) pc.value[k] = static_cast<real>(bc.value[k]);
    pc.begin = p.begin;
    pc.end = p.end;
    if (q < mesh.layer1_patches.size()) pc.layer1 = {mesh.layer1_patches[q].begin, mesh.layer1_patches[q].end};
    patches_.push_back(pc);
  }
}

void BoundaryConditions::apply(ConstView2<real> u, real t, View2<real> ub, Rows r) const {
  for (const PatchCondition& p : patches_)
    for (const IndexRange faces : {r != Rows::ghosts ? IndexRange{p.begin, p.end} : IndexRange{},
                                   r == Rows::all || r == Rows::ghosts ? p.layer1 : IndexRange{}})
      if (faces.size() > 0) apply(p, faces, u, t, ub);
}

void BoundaryConditions::apply(const PatchCondition& p, IndexRange faces, ConstView2<real> u, real t,
                               View2<real> ub) const {
  const Kokkos::RangePolicy<ExecSpace> range(faces.begin, faces.end);
  auto run = [&](auto kind, const char* label) {
    constexpr Kind K = decltype(kind)::value;
    BoundaryValues<K> f{owner_, face_centroid_, phi_, u, ub, exact_, {}, components_, n_interior_, t};
    for (int k = 0; k < kMaxComponents; ++k) f.value[k] = p.value[k];
    Kokkos::parallel_for(label, range, f);
  };
  switch (p.type) {
  case BoundaryType::dirichlet:
    if (p.exact)
      run(std::integral_constant<Kind, Kind::exact>{}, "fvproxy::solver::boundary_dirichlet_exact");
    else
      run(std::integral_constant<Kind, Kind::value>{}, "fvproxy::solver::boundary_dirichlet");
    break;
  case BoundaryType::outflow:
    run(std::integral_constant<Kind, Kind::outflow>{}, "fvproxy::solver::boundary_outflow");
    break;
  case BoundaryType::inflow:
    run(std::integral_constant<Kind, Kind::inflow>{}, "fvproxy::solver::boundary_inflow");
    break;
  }
}

} // namespace fvproxy
