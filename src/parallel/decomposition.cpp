#include "parallel/decomposition.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include "core/error.hpp"
#include "core/exact_sum.hpp"
#include "core/retained_heap.hpp"
#include "mesh/partition.hpp"
#include "mesh/ptscotch.hpp"
#include "parallel/collectives.hpp"
#include "parallel/parts.hpp"

namespace fvproxy {

namespace {

/// Device copy, halo, ghost geometry from the owners.
void finish_part(Decomposition& d, const Communicator& comm, const HaloSettings& halo) {
  const LocalMesh& l = d.local;
  d.mesh = upload(l.host, l.n_owned);
  d.mesh.n_inner = l.n_inner;
  d.mesh.n_owned_faces = l.n_owned_faces;
  d.mesh.n_faces = l.n_faces_owned; // the operators' faces; a second layer's follow (Mesh)
  d.mesh.n_layer1 = l.layers == 2 ? l.n_layer1 : 0;
  d.mesh.outer_begin = l.outer_begin;
  d.mesh.layer1_patches = l.layer1_patches;
  d.mesh.vertex_layers = l.vertex;
  d.mesh.corner_layers_only = l.corners_only;
  d.halo = std::make_unique<Halo>(l, comm, halo);
  // A ghost does not see all its faces: its volume and centroid are its owner's.
  d.halo->exchange(d.mesh.volume);
  d.halo->exchange(d.mesh.inv_volume);
  d.halo->exchange(d.mesh.centroid);
}

} // namespace

namespace {

/// A local mesh as bytes (vectors: their length, then their elements) and back.
struct Bytes {
  std::vector<char> b;
  std::size_t at = 0;
  /// n bytes from p at the end (resize + memcpy: g++ 12 -O3 misreads vector::insert of a few bytes
  /// as an overflow, -Wstringop-overflow, in the float build).
  void append(const void* p, std::size_t n) {
    if (n == 0) return;
    const std::size_t end = b.size();
    b.resize(end + n);
    std::memcpy(b.data() + end, p, n);
  }
  template <class T> void put(const T& x) { append(&x, sizeof(T)); }
  template <class T> void put(const std::vector<T>& v) {
    put(std::uint64_t(v.size()));
    append(v.data(), v.size() * sizeof(T));
  }
  void put(const std::string& s) { put(std::vector<char>(s.begin(), s.end())); }
  template <class T> void get(T& x) {
    std::memcpy(&x, b.data() + at, sizeof(T));
    at += sizeof(T);
  }
  template <class T> void get(std::vector<T>& v) {
    std::uint64_t n = 0;
    get(n);
    v.resize(n);
    if (n > 0) std::memcpy(static_cast<void*>(v.data()), b.data() + at, n * sizeof(T)); // data() may be null
    at += n * sizeof(T);
  }
  void get(std::string& s) {
    std::vector<char> v;
    get(v);
    s.assign(v.begin(), v.end());
  }
};

template <class F> void each_field(LocalMesh& l, F&& f) {
  HostMesh& h = l.host;
  f(h.dim), f(h.x), f(h.node_gid), f(h.node_key), f(h.cell_type), f(h.cell_node_off), f(h.cell_nodes), f(h.cell_gid),
      f(h.face_node_off), f(h.face_nodes), f(h.face_owner), f(h.face_neighbour), f(h.face_shift), f(h.shifts),
      f(h.n_interior), f(h.cell_face_off), f(h.cell_faces), f(h.cell_face_sign);
  f(l.rank), f(l.ranks), f(l.n_owned), f(l.n_inner), f(l.n_owned_faces), f(l.layers), f(l.vertex), f(l.corners_only),
      f(l.n_layer1), f(l.n_faces_owned), f(l.outer_begin), f(l.global_cell), f(l.global_face), f(l.node_row),
      f(l.n_global_nodes);
}

std::vector<char> pack(LocalMesh& l) {
  Bytes out;
  each_field(l, [&](auto& x) { out.put(x); });
  for (const auto* v : {&l.host.patches, &l.layer1_patches}) {
    out.put(std::uint64_t(v->size()));
    for (const Patch& p : *v) out.put(p.name), out.put(p.begin), out.put(p.end);
  }
  out.put(std::uint64_t(l.links.size()));
  for (const HaloLink& k : l.links) out.put(k.rank), out.put(k.send), out.put(k.recv);
  return std::move(out.b);
}

LocalMesh unpack(std::vector<char> bytes) {
  Bytes in{std::move(bytes), 0};
  LocalMesh l;
  each_field(l, [&](auto& x) { in.get(x); });
  std::uint64_t n = 0;
  for (auto* v : {&l.host.patches, &l.layer1_patches}) {
    in.get(n);
    v->resize(n);
    for (Patch& p : *v) in.get(p.name), in.get(p.begin), in.get(p.end);
  }
  in.get(n);
  l.links.resize(n);
  for (HaloLink& k : l.links) in.get(k.rank), in.get(k.send), in.get(k.recv);
  return l;
}

constexpr std::size_t kChunk = std::size_t(1) << 30; // MPI counts are int

void send_bytes(const std::vector<char>& b, int to, const Communicator& comm) {
  const std::uint64_t n = b.size();
  MPI_Send(&n, 1, MPI_UINT64_T, to, 7, comm.raw());
  for (std::size_t at = 0; at < b.size(); at += kChunk)
    MPI_Send(b.data() + at, static_cast<int>(std::min(kChunk, b.size() - at)), MPI_BYTE, to, 8, comm.raw());
}

std::vector<char> recv_bytes(int from, const Communicator& comm) {
  std::uint64_t n = 0;
  MPI_Recv(&n, 1, MPI_UINT64_T, from, 7, comm.raw(), MPI_STATUS_IGNORE);
  std::vector<char> b(n);
  for (std::size_t at = 0; at < b.size(); at += kChunk)
    MPI_Recv(b.data() + at, static_cast<int>(std::min(kChunk, b.size() - at)), MPI_BYTE, from, 8, comm.raw(),
             MPI_STATUS_IGNORE);
  return b;
}

} // namespace

namespace {

/// The exception rank 0 caught while building (FromRoot::build_on_root's text), thrown on every rank.
[[noreturn]] void throw_failure(const std::string& failure) {
  if (failure[0] == '2') {
    const std::size_t nl = failure.find('\n');
    throw InputError::from_message(failure.substr(nl + 1), failure.substr(1, nl - 1));
  }
  throw RunError(failure.substr(1));
}

/// decompose_from_root's steps: rank 0 builds and partitions; an error there is every rank's (same
/// message, same exit code). Rank 0 then cuts every rank's local mesh out and sends it.
/// Collective, step by step.
struct FromRoot {
  const MeshConfig& cfg;
  const Communicator& comm;
  const HaloSettings& halo;
  const int ranks, rank;
  const std::string case_where;
  Decomposition& result;
  const std::function<void(const BuiltMesh&)>& on_root;
  BuiltMesh root_mesh; ///< rank 0: the whole mesh, freed as soon as each half of it is no longer needed
  /// PT-Scotch partitions on every rank: rank 0 hands out slices of the cell graph.
  const bool distributed;
  std::int64_t totals[2] = {0, 0};
  double volume = 0;

  FromRoot(const MeshConfig& cfg, const Communicator& comm, const HaloSettings& halo, const std::string& where,
           Decomposition& result, const std::function<void(const BuiltMesh&)>& on_root)
      : cfg(cfg), comm(comm), halo(halo), ranks(comm.size()), rank(comm.rank()),
        case_where(where == "mpirun -np" ? where + " " + std::to_string(ranks) : where), result(result),
        on_root(on_root), distributed(cfg.partition == PartitionMethod::ptscotch && ranks > 1) {}

  /// The whole mesh, its totals and (but for PT-Scotch) its partition on rank 0; every rank learns
  /// the totals, or throws what rank 0 caught.
  void build() {
    std::string failure; // "2<where>\n<message>" for InputError, "1<message>" otherwise
    if (rank == 0) build_on_root(failure);
    failure = comm.broadcast(failure);
    if (!failure.empty()) throw_failure(failure);
    MPI_Bcast(totals, 2, MPI_INT64_T, 0, comm.raw());
    MPI_Bcast(&volume, 1, MPI_DOUBLE, 0, comm.raw());
  }

  /// Rank 0's part of build(): what it catches goes to `failure`, for every rank to throw.
  void build_on_root(std::string& failure) {
    try {
      root_mesh = build_mesh(cfg);
      const BoxConfig* box = cfg.generate ? &*cfg.generate : nullptr;
      if (distributed) { // partitioned below by every rank; the checks partition_cells makes first
        check_parts_fit(case_where, ranks, root_mesh.host.n_cells());
      } else {
        result.partition = partition_cells(root_mesh.host, root_mesh.device, cfg.partition, ranks, box, case_where);
      }
      totals[0] = root_mesh.device.n_cells;
      totals[1] = root_mesh.host.n_nodes();
      volume = root_mesh.device.global_volume;
      if (on_root) on_root(root_mesh);
      root_mesh.device = Mesh{}; // the parts are cut from the host mesh
    } catch (const InputError& e) {
      failure = "2" + e.where() + "\n" + e.what();
    } catch (const std::exception& e) {
      failure = "1" + std::string(e.what());
    }
  }

  /// The graph's vertices: the cells, or a generated box's hexes (box_hex_graph), and the cells per vertex.
  gid_t vertices() const { return cfg.generate ? totals[0] / per_vertex() : totals[0]; }
  int per_vertex() const { return cfg.generate ? box_cells_per_hex(*cfg.generate) : 1; }

  /// The first vertex of rank r's slice [n r/ranks, n (r+1)/ranks) of the graph.
  gid_t slice(int r) const { return block_begin(vertices(), r, ranks); }

  /// This rank's slice of the graph PT-Scotch partitions, the one a box built in parts gives its rank: a
  /// box's hexes, each rank its own (box_hex_graph); else the cell graph by global id
  /// (cell_graph_by_gid), rank 0 cutting every rank's and sending it.
  DistGraph graph_slice() const {
    if (cfg.generate) return box_hex_graph(*cfg.generate, slice(rank), slice(rank + 1));
    DistGraph g;
    if (rank == 0) {
      for (int r = 1; r < ranks; ++r) {
        const DistGraph x = cell_graph_by_gid(root_mesh.host, slice(r), slice(r + 1));
        Bytes out;
        out.put(x.vtx_begin), out.put(x.vtx_end), out.put(x.xadj), out.put(x.adjncy), out.put(x.adjwgt);
        send_bytes(out.b, r, comm);
      }
      g = cell_graph_by_gid(root_mesh.host, 0, slice(1));
    } else {
      Bytes in{recv_bytes(0, comm), 0};
      in.get(g.vtx_begin), in.get(g.vtx_end), in.get(g.xadj), in.get(g.adjncy), in.get(g.adjwgt);
    }
    return g;
  }

  /// Rank r gets the vertices [n r/ranks, n (r+1)/ranks) of the graph, every rank partitions, rank 0
  /// gathers, gives each cell its vertex's part and refills an empty part (as partition_cells does).
  void partition_distributed() {
    const gid_t n = vertices();
    const DistGraph g = graph_slice();
    const std::vector<int> mine = ptscotch_parts(g, ranks, comm.raw());
    std::vector<int> counts(ranks), displs(ranks, 0), by_vertex;
    for (int r = 0; r < ranks; ++r) counts[r] = static_cast<int>(slice(r + 1) - slice(r));
    for (int r = 1; r < ranks; ++r) displs[r] = displs[r - 1] + counts[r - 1];
    if (rank == 0) by_vertex.assign(std::size_t(n), 0);
    MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_INT, by_vertex.data(), counts.data(), displs.data(),
                MPI_INT, 0, comm.raw());
    if (rank != 0) return;
    const int per = per_vertex();
    result.partition.part.resize(root_mesh.host.cell_gid.size());
    for (std::size_t c = 0; c < result.partition.part.size(); ++c)
      result.partition.part[c] = by_vertex[std::size_t(root_mesh.host.cell_gid[c] / per)];
    result.partition.refilled = refill_empty_parts(result.partition.part, ranks);
  }

  /// The local nodes' rows in the mesh file (node global id -> row: the whole mesh's).
  std::vector<std::pair<gid_t, index_t>> node_rows_by_gid() const {
    const std::vector<index_t> rows = node_file_rows(root_mesh.host);
    std::vector<std::pair<gid_t, index_t>> row_of(std::size_t(root_mesh.host.n_nodes()));
    for (index_t v = 0; v < root_mesh.host.n_nodes(); ++v)
      row_of[std::size_t(v)] = {root_mesh.host.node_gid[v], rows[v]};
    std::sort(row_of.begin(), row_of.end());
    return row_of;
  }

  /// Rank r's local mesh, with its nodes' rows in the mesh file.
  LocalMesh part_of(int r, const std::vector<std::pair<gid_t, index_t>>& row_of) const {
    LocalMesh l = extract_local(root_mesh.host, result.partition.part, r, ranks, halo.layers, halo.adjacency);
    l.node_row.resize(std::size_t(l.host.n_nodes()));
    for (index_t v = 0; v < l.host.n_nodes(); ++v)
      l.node_row[std::size_t(v)] =
          std::lower_bound(row_of.begin(), row_of.end(), std::make_pair(l.host.node_gid[v], index_t(-1)))->second;
    return l;
  }

  /// Every rank's local mesh, cut out and sent by rank 0.
  void hand_out_parts() {
    if (rank == 0) {
      const std::vector<std::pair<gid_t, index_t>> row_of = node_rows_by_gid();
      for (int r = 1; r < ranks; ++r) {
        LocalMesh l = part_of(r, row_of);
        send_bytes(pack(l), r, comm);
      }
      result.local = part_of(0, row_of);
      root_mesh = BuiltMesh{}; // before this rank's part goes to the device
    } else {
      result.local = unpack(recv_bytes(0, comm));
    }
  }

  /// Every rank learns the partition's method and block factors (not the cells' parts).
  void share_partition() {
    const PartitionMethod method = cfg.partition;
    std::array<int, 3> blocks = result.partition.blocks;
    MPI_Bcast(blocks.data(), 3, MPI_INT, 0, comm.raw());
    result.partition.method = method;
    result.partition.parts = ranks;
    result.partition.blocks = blocks;
    if (rank != 0) result.partition.part.clear();
  }
};

} // namespace

Decomposition decompose_from_root(const MeshConfig& cfg, const Communicator& comm, const HaloSettings& halo,
                                  const std::string& where, const std::function<void(const BuiltMesh&)>& on_root) {
  const RetainedHeap heap; // core/retained_heap.hpp
  Decomposition d;
  FromRoot root(cfg, comm, halo, where, d, on_root);
  root.build();
  if (root.distributed) root.partition_distributed();
  root.hand_out_parts();
  root.share_partition();
  finish_part(d, comm, halo);
  d.mesh.n_global_cells = root.totals[0];
  d.mesh.global_volume = root.volume;
  return d;
}

Decomposition decompose(const BuiltMesh& global, const MeshConfig& cfg, const Communicator& comm,
                        const HaloSettings& halo, const std::string& where) {
  Decomposition d;
  const BoxConfig* box = cfg.generate ? &*cfg.generate : nullptr;
  d.partition = partition_cells(global.host, global.device, cfg.partition, comm.size(), box,
                                where == "mpirun -np" ? where + " " + std::to_string(comm.size()) : where, comm.raw());
  d.local = extract_local(global.host, d.partition.part, comm.rank(), comm.size(), halo.layers, halo.adjacency);
  finish_part(d, comm, halo);
  // The domain's totals as the global mesh has them (bitwise the one-rank values).
  d.mesh.n_global_cells = global.device.n_cells;
  d.mesh.global_volume = global.device.global_volume;
  return d;
}

Decomposition decompose_in_parts(const MeshConfig& cfg, const Communicator& comm, const HaloSettings& halo,
                                 const std::string& where) {
  const RetainedHeap heap; // core/retained_heap.hpp
  Decomposition d;
  PartsMesh p = build_box_in_parts(cfg, comm, where == "mpirun -np" ? where + " " + std::to_string(comm.size()) : where,
                                   halo.layers, halo.adjacency);
  Kokkos::Timer timer;
  d.seconds_sort = p.seconds_sort;
  d.seconds_piece = p.seconds_piece;
  d.partition = std::move(p.partition);
  d.local = std::move(p.local);
  d.steps = std::move(p.steps);
  d.steps.skip();
  finish_part(d, comm, halo);
  d.steps.lap("device mesh and halo");
  // Jitter that turns a cell inside out (mesh.generate.perturb; the whole build checks it in
  // build_mesh): the smallest volume over the ranks, its cell from the rank that holds it.
  const GeometryChecks g = check_geometry(d.mesh);
  const double smallest = comm.min(g.min_volume);
  if (!(smallest > 0)) {
    const std::int64_t holder = comm.min(std::int64_t(g.min_volume <= smallest ? comm.rank() : comm.size()));
    std::int64_t cell = g.min_volume_cell;
    MPI_Bcast(&cell, 1, MPI_INT64_T, static_cast<int>(holder), comm.raw());
    check_jitter(*cfg.generate, smallest, cell);
  }
  d.mesh.n_global_cells = p.n_global_cells;
  // The domain's volume as one rank has it: the exact sum of every owned volume.
  const auto vol = Kokkos::create_mirror_view_and_copy(HostSpace(), d.mesh.volume);
  ExactSum total;
  for (index_t c = 0; c < d.mesh.n_cells; ++c) total.add(double(vol(c)));
  d.mesh.global_volume = exact_total(total, comm);
  d.steps.lap("checks and volume");
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
  w.outer_begin = w.n_all_faces = w.n_faces;
  w.n_inner = w.n_cells;
  w.n_owned_faces = w.n_interior;
  w.global_volume = m.global_volume;
  w.dim = m.dim;
  return w;
}

} // namespace fvproxy
