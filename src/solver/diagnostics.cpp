#include "solver/diagnostics.hpp"

#include <algorithm>

#include <cmath>
#include <cstdint>
#include <vector>

#include <mpi.h>

#include "core/exact_sum.hpp"
#include "core/kokkos_compat.hpp"
#include "operators/muscl/limiter.hpp"

namespace fvproxy {

namespace {

struct CellError {
  ConstVec3View<real> C;
  ConstView1<real> V;
  ConstView2<real> u;
  ScalarSolution exact;
  real t;
  int k;
  KOKKOS_INLINE_FUNCTION double error(index_t c) const {
    const real x[3] = {C(c, 0), C(c, 1), C(c, 2)};
    return kc::fabs(double(u(c, k)) - double(exact(k, x, t)));
  }
};
struct L1Sum : CellError {
  KOKKOS_FUNCTION void operator()(const index_t c, double& s) const { s += error(c) * V(c); }
};
struct L2Sum : CellError {
  KOKKOS_FUNCTION void operator()(const index_t c, double& s) const {
    const double e = error(c);
    s += e * e * V(c);
  }
};
struct LinfMax : CellError {
  KOKKOS_FUNCTION void operator()(const index_t c, double& s) const {
    const double e = error(c);
    if (e > s) s = e;
  }
};
struct WeightedTerm {
  ConstView1<real> V;
  ConstView2<real> u;
  int k;
  View1<double> out;
  KOKKOS_FUNCTION void operator()(const index_t c) const { out(c) = double(u(c, k)) * V(c); }
};

struct Volume {
  ConstView1<real> V;
  KOKKOS_FUNCTION void operator()(const index_t c, double& s) const { s += V(c); }
};

} // namespace

std::vector<ErrorNorms> error_norms(const Mesh& m, ConstView2<real> u, const ScalarSolution& exact, real t,
                                    const Communicator& comm) {
  const Kokkos::RangePolicy<ExecSpace> cells(0, m.n_cells);
  double volume = 0;
  Kokkos::parallel_reduce("fvproxy::solver::total_volume", cells, Volume{m.volume}, volume);
  volume = comm.sum(volume);
  std::vector<ErrorNorms> out(u.extent(1));
  for (int k = 0; k < int(u.extent(1)); ++k) {
    const CellError e{m.centroid, m.volume, u, exact, t, k};
    double l1 = 0, l2 = 0, linf = 0;
    Kokkos::parallel_reduce("fvproxy::solver::error_norms", cells, L1Sum{e}, l1);
    Kokkos::parallel_reduce("fvproxy::solver::error_norms", cells, L2Sum{e}, l2);
    Kokkos::parallel_reduce("fvproxy::solver::error_norms", cells, LinfMax{e}, Kokkos::Max<double>(linf));
    l1 = comm.sum(l1), l2 = comm.sum(l2), linf = comm.max(linf);
    out[k] = {l1 / volume, std::sqrt(l2 / volume), linf};
  }
  return out;
}

std::vector<double> conserved_totals(const Mesh& m, ConstView2<real> u, const Communicator& comm) {
  // The per-cell terms on the device, their sum exact on the host (ExactSum): the same total,
  // bitwise, for every partition and rank count (it is stored in checkpoints).
  const int nk = static_cast<int>(u.extent(1));
  std::vector<double> out(nk);
  View1<double> terms(Kokkos::ViewAllocateWithoutInitializing("fvproxy::solver::conservation_terms"), m.n_cells);
  auto host = Kokkos::create_mirror_view(terms);
  for (int k = 0; k < nk; ++k) {
    Kokkos::parallel_for("fvproxy::solver::conservation", Kokkos::RangePolicy<ExecSpace>(0, m.n_cells),
                         WeightedTerm{m.volume, u, k, terms});
    Kokkos::deep_copy(host, terms);
    ExactSum sum;
    for (index_t c = 0; c < m.n_cells; ++c) sum.add(host(c));
    out[k] = exact_total(sum, comm);
  }
  return out;
}

std::pair<std::vector<real>, std::vector<real>> domain_bounds(const Mesh& m, ConstView2<real> u, ConstView2<real> ub,
                                                              const Communicator& comm) {
  // the owned cells and their boundary faces (not a second ghost layer's boundary rows)
  const std::size_t nb = std::min(std::size_t(ub.extent(0)), std::size_t(m.n_faces - m.n_interior));
  auto b = value_bounds(u, Kokkos::subview(ub, std::make_pair(std::size_t(0), nb), Kokkos::ALL()), m.n_cells);
  if (comm.size() > 1) {
    std::vector<double> lo(b.first.begin(), b.first.end()), hi(b.second.begin(), b.second.end());
    comm.min(lo);
    comm.max(hi);
    for (std::size_t k = 0; k < lo.size(); ++k)
      b.first[k] = static_cast<real>(lo[k]), b.second[k] = static_cast<real>(hi[k]);
  }
  return b;
}

} // namespace fvproxy
