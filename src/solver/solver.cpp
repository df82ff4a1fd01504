#include "solver/solver.hpp"

#include <cstdint>
#include <limits>

#include "solver/flow_solver.hpp"
#include "solver/scalar_solver.hpp"

namespace fvproxy {

std::unique_ptr<Solver> make_solver(const Mesh& mesh, const CaseConfig& cfg, const BoundaryOnMesh& boundary,
                                    const Communicator& comm, Halo* halo) {
  if (cfg.physics.is_flow()) return std::make_unique<FlowSolver>(mesh, cfg, boundary, comm, halo);
  return std::make_unique<ScalarSolver>(mesh, cfg, boundary, comm, halo);
}

BoundaryOnMesh resolve_boundary(const CaseConfig& cfg, const Mesh& mesh) {
  std::vector<std::string> names;
  for (const Patch& p : mesh.patches) names.push_back(p.name);
  return resolve_boundary(cfg, names);
}

double solver_memory_bytes(double cells, double faces, double interior_faces, const CaseConfig& cfg) {
  if (cfg.physics.is_flow()) return FlowSolver::memory_bytes(cells, faces, interior_faces, cfg);
  return ScalarSolver::memory_bytes(cells, faces, interior_faces, cfg);
}

void reduce_over_ranks(StableStep& s, const Communicator& comm) {
  if (comm.size() == 1) return;
  const double rate = comm.max(double(s.max_rate));
  const std::int64_t none = std::numeric_limits<std::int64_t>::max();
  const std::int64_t cell = comm.min(std::int64_t(double(s.max_rate) == rate ? s.limiting_cell : none));
  s.max_rate = rate;
  s.limiting_cell = cell == none ? -1 : cell;
}

std::optional<StateFailure> locate_failure(const Mesh& mesh, const Communicator& comm,
                                           const Kokkos::View<unsigned long long[2], MemSpace>& check_keys,
                                           ConstView2<real> u, StateFailure::Kind second_kind) {
  auto keys = Kokkos::create_mirror_view_and_copy(HostSpace(), check_keys);
  // The earliest (step, then cell) on any rank: keys hold the step in their top bits; on a tie of
  // step the lower key (local cell index) wins on its rank, the lower rank between ranks.
  unsigned long long k0 = keys(0), k1 = keys(1);
  const unsigned long long my0 = k0, my1 = k1;
  if (comm.size() > 1) {
    MPI_Allreduce(&my0, &k0, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm.raw());
    MPI_Allreduce(&my1, &k1, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm.raw());
  }
  const unsigned long long key = k0 <= k1 ? k0 : k1;
  if (key == kNoBadValue) return std::nullopt;
  StateFailure f;
  f.kind = k0 <= k1 ? StateFailure::Kind::non_finite : second_kind;
  f.step = static_cast<long long>(key >> 35);
  f.component = static_cast<int>(key & 7);
  const bool mine = (k0 <= k1 ? my0 : my1) == key;
  // The lowest rank holding the key describes the cell; the others receive it.
  const int holder = static_cast<int>(comm.min(std::int64_t(mine ? comm.rank() : comm.size())));
  const int nk = static_cast<int>(u.extent(1));
  std::vector<double> info(4 + nk, 0.0);
  if (comm.rank() == holder) {
    const auto cell = static_cast<index_t>((key >> 3) & ((1ULL << 32) - 1));
    gid_t gid = -1;
    Kokkos::deep_copy(gid, Kokkos::subview(mesh.cell_gid, cell));
    info[0] = double(gid);
    for (int d = 0; d < 3; ++d) {
      real x = 0;
      Kokkos::deep_copy(x, Kokkos::subview(mesh.centroid, cell, d));
      info[1 + d] = x;
    }
    for (int k = 0; k < nk; ++k) {
      real v = 0;
      Kokkos::deep_copy(v, Kokkos::subview(u, cell, k));
      info[4 + k] = v;
    }
  }
  if (comm.size() > 1) MPI_Bcast(info.data(), int(info.size()), MPI_DOUBLE, holder, comm.raw());
  f.cell_gid = static_cast<gid_t>(info[0]);
  for (int d = 0; d < 3; ++d) f.x[d] = info[1 + d];
  f.state.assign(info.begin() + 4, info.end());
  return f;
}

} // namespace fvproxy
