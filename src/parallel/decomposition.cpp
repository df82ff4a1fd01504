#include "parallel/decomposition.hpp"

#include "core/exact_sum.hpp"
#include "parallel/parts.hpp"

namespace fvproxy {

namespace {

/// Device copy, halo, ghost geometry from the owners.
void finish_part(Decomposition& d, const Communicator& comm, HaloVariant variant) {
  d.mesh = upload(d.local.host, d.local.n_owned);
  d.mesh.n_inner = d.local.n_inner;
  d.mesh.n_owned_faces = d.local.n_owned_faces;
  d.halo = std::make_unique<Halo>(d.local, comm, variant);
  // A ghost does not see all its faces: its volume and centroid are its owner's.
  d.halo->exchange(d.mesh.volume);
  d.halo->exchange(d.mesh.inv_volume);
  d.halo->exchange(d.mesh.centroid);
}

} // namespace

Decomposition decompose(const BuiltMesh& global, const MeshConfig& cfg, const Communicator& comm, HaloVariant variant,
                        const std::string& where) {
  Decomposition d;
  const BoxConfig* box = cfg.generate ? &*cfg.generate : nullptr;
  d.partition = partition_cells(global.host, global.device, cfg.partition, comm.size(), box,
                                where == "mpirun -np" ? where + " " + std::to_string(comm.size()) : where);
  d.local = extract_local(global.host, d.partition.part, comm.rank(), comm.size());
  finish_part(d, comm, variant);
  // The domain's totals as the global mesh has them (bitwise the one-rank values).
  d.mesh.n_global_cells = global.device.n_cells;
  d.mesh.global_volume = global.device.global_volume;
  return d;
}


Decomposition decompose_in_parts(const MeshConfig& cfg, const Communicator& comm, HaloVariant variant,
                                 const std::string& where, double* seconds) {
  Kokkos::Timer timer;
  Decomposition d;
  PartsMesh p =
      build_box_in_parts(cfg, comm, where == "mpirun -np" ? where + " " + std::to_string(comm.size()) : where);
  d.partition = std::move(p.partition);
  d.local = std::move(p.local);
  finish_part(d, comm, variant);
  d.mesh.n_global_cells = p.n_global_cells;
  // The domain's volume as one rank has it: the exact sum of every owned volume.
  const auto vol = Kokkos::create_mirror_view_and_copy(HostSpace(), d.mesh.volume);
  ExactSum total;
  for (index_t c = 0; c < d.mesh.n_cells; ++c) total.add(double(vol(c)));
  d.mesh.global_volume = exact_total(total, comm);
  if (seconds) *seconds = timer.seconds();
  return d;
}

} // namespace fvproxy
