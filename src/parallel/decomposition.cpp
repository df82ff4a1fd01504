#include "parallel/decomposition.hpp"

namespace fvproxy {

Decomposition decompose(const BuiltMesh& global, const MeshConfig& cfg, const Communicator& comm, HaloVariant variant,
                        const std::string& where) {
  Decomposition d;
  const BoxConfig* box = cfg.generate ? &*cfg.generate : nullptr;
  d.partition = partition_cells(global.host, global.device, cfg.partition, comm.size(), box,
                                where == "mpirun -np" ? where + " " + std::to_string(comm.size()) : where, &comm);
  d.local = extract_local(global.host, d.partition.part, comm.rank(), comm.size());
  d.mesh = upload(d.local.host, d.local.n_owned);
  d.mesh.n_inner = d.local.n_inner;
  d.mesh.n_owned_faces = d.local.n_owned_faces;
  d.halo = std::make_unique<Halo>(d.local, comm, variant);
  // A ghost does not see all its faces: its volume and centroid are its owner's.
  d.halo->exchange(d.mesh.volume);
  d.halo->exchange(d.mesh.inv_volume);
  d.halo->exchange(d.mesh.centroid);
  // The domain's totals as the global mesh has them (bitwise the one-rank values).
  d.mesh.n_global_cells = global.device.n_cells;
  d.mesh.global_volume = global.device.global_volume;
  return d;
}

} // namespace fvproxy
