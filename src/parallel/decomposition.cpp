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
                                 const std::string& where) {
  Decomposition d;
  PartsMesh p =
      build_box_in_parts(cfg, comm, where == "mpirun -np" ? where + " " + std::to_string(comm.size()) : where);
  Kokkos::Timer timer;
  d.seconds_sort = p.seconds_sort;
  d.seconds_piece = p.seconds_piece;
  d.partition = std::move(p.partition);
  d.local = std::move(p.local);
  finish_part(d, comm, variant);
  d.mesh.n_global_cells = p.n_global_cells;
  // The domain's volume as one rank has it: the exact sum of every owned volume.
  const auto vol = Kokkos::create_mirror_view_and_copy(HostSpace(), d.mesh.volume);
  ExactSum total;
  for (index_t c = 0; c < d.mesh.n_cells; ++c) total.add(double(vol(c)));
  d.mesh.global_volume = exact_total(total, comm);
  d.seconds_device = timer.seconds();
  return d;
}

Mesh whole_mesh_counts(const Decomposition& d, const Communicator& comm) {
  const Mesh& m = d.mesh;
  const std::int64_t owned_faces = comm.sum(std::int64_t(m.n_owned_faces));
  const std::int64_t cross = comm.sum(std::int64_t(m.n_interior - m.n_owned_faces)); // each seen by two ranks
  const std::int64_t boundary = comm.sum(std::int64_t(m.n_faces - m.n_interior));
  Mesh w;
  w.n_cells = static_cast<index_t>(m.n_global_cells);
  w.n_global_cells = m.n_global_cells;
  w.n_interior = static_cast<index_t>(owned_faces + cross / 2);
  w.n_faces = static_cast<index_t>(owned_faces + cross / 2 + boundary);
  w.n_inner = w.n_cells;
  w.n_owned_faces = w.n_interior;
  w.global_volume = m.global_volume;
  w.dim = m.dim;
  return w;
}

} // namespace fvproxy
