#pragma once
// End-of-run diagnostics of the scalar model (volume-weighted, per component, in double):
//   L1   = sum_c |u_c - e_c| V_c / sum_c V_c
//   L2   = sqrt( sum_c (u_c - e_c)^2 V_c / sum_c V_c )
//   Linf = max_c |u_c - e_c|
// with e_c the exact solution at the cell centroid (second-order accurate for the cell average,
// so the norms converge at the scheme's order), and the conserved total sum_c u_c V_c.
#include <utility>
#include <vector>

#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "parallel/communicator.hpp"
#include "physics/scalar_profile.hpp"

namespace fvproxy {

struct ErrorNorms {
  double l1 = 0, l2 = 0, linf = 0;
};

/// Per component (labelled reductions "fvproxy::solver::error_norms"), over every rank of `comm`.
std::vector<ErrorNorms> error_norms(const Mesh& m, ConstView2<real> u, const ScalarSolution& exact, real t,
                                    const Communicator& comm = Communicator::self());

/// sum_c u(c, k) V_c per component ("fvproxy::solver::conservation"), over every rank of `comm`.
std::vector<double> conserved_totals(const Mesh& m, ConstView2<real> u,
                                     const Communicator& comm = Communicator::self());

/// min and max per component of u's owned rows (the first m.n_cells) and of ub, over every rank
/// of `comm` (value_bounds, then reduced).
std::pair<std::vector<real>, std::vector<real>> domain_bounds(const Mesh& m, ConstView2<real> u, ConstView2<real> ub,
                                                              const Communicator& comm);

} // namespace fvproxy
