#include "io/output_series.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>

#include "core/error.hpp"
#include "core/kokkos_compat.hpp"
#include "io/checkpoint.hpp"
#include "io/field_file.hpp"
#include "io/output_file.hpp"
#include "mesh/local_mesh.hpp"
#include "parallel/collectives.hpp"

namespace fvproxy {

namespace {

namespace fs = std::filesystem;

using HostState = Kokkos::View<real**, Kokkos::LayoutLeft, HostSpace>;

HostState to_host(ConstView2<real> u) {
  HostState h(Kokkos::ViewAllocateWithoutInitializing("fvproxy::io::state_host"), u.extent(0), u.extent(1));
  Kokkos::deep_copy(h, u);
  return h;
}

} // namespace

std::vector<std::pair<long long, fs::path>> step_files(const std::string& dir, const std::string& prefix) {
  std::vector<std::pair<long long, fs::path>> r;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    const std::size_t n = name.size(), p = prefix.size();
    if (n < p + 5 || name.compare(0, p + 1, prefix + "_") != 0 || name.compare(n - 3, 3, ".h5") != 0) continue;
    const std::string digits = name.substr(p + 1, n - p - 4);
    if (digits.empty() || digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    r.emplace_back(std::stoll(digits), e.path());
  }
  std::sort(r.begin(), r.end());
  return r;
}

index_t block_start(index_t n, int r, int parts) {
  return static_cast<index_t>(block_begin(n, r, parts));
}

namespace {

/// MPI_Alltoallv of trivially copyable records to the ranks `dest` names (one per record); the
/// received ones. Record i is built by make(i) straight into its destination's group: one copy of
/// the records besides the received ones (mesh.h5 from parts is a set-up memory peak: 96 B per cell).
template <class T, class Make>
std::vector<T> route(const std::vector<int>& dest, const Communicator& comm, Make&& make) {
  const int P = comm.size();
  std::vector<int> counts(P, 0), at(P, 0);
  for (int d : dest) ++counts[d];
  for (int r = 1; r < P; ++r) at[r] = at[r - 1] + counts[r - 1];
  std::vector<T> grouped(dest.size());
  for (std::size_t i = 0; i < dest.size(); ++i) grouped[std::size_t(at[dest[i]]++)] = make(i);
  return alltoallv(grouped, counts, comm);
}

} // namespace

namespace {

/// A cell's entry in mesh.h5, routed to the rank writing its row.
struct CellRec {
  std::int64_t row, gid;
  std::int32_t type, n;
  std::int64_t topo[1 + kMaxCellNodes];
};

/// A node's entry in mesh.h5, routed to the rank writing its row.
struct NodeRec {
  std::int64_t row, gid;
  double x[3];
};

/// A boundary face's entry in mesh.h5, routed to the rank writing its owner's row.
struct FaceRec {
  std::int32_t patch, seq, n, pad;
  std::int64_t row, owner_gid;
  std::int64_t topo[1 + kMaxFaceNodes];
};

/// The rows of the part's nodes in the file.
std::vector<index_t> node_rows(const LocalMesh& l) {
  const HostMesh& h = l.host;
  std::vector<index_t> gid_row(l.node_row); // node rows: given, or the global ids
  if (gid_row.empty())
    for (index_t v = 0; v < h.n_nodes(); ++v) gid_row.push_back(static_cast<index_t>(h.node_gid[v]));
  return gid_row;
}

/// One rank's rows of mesh.h5 gathered from every rank's part (mesh_rows_of_parts): each cell,
/// node and boundary face travels to the rank writing its row. Collective, step by step.
struct PartRows {
  const LocalMesh& l;
  const HostMesh& h;
  const Communicator& comm;
  const int P, me;
  const index_t no;
  const std::int64_t G;
  const std::int64_t N;
  const std::vector<index_t> gid_row;
  MeshFileRows r;
  bool bad = false; ///< a row missing or given twice

  PartRows(const LocalMesh& l, const Communicator& comm)
      : l(l), h(l.host), comm(comm), P(comm.size()), me(comm.rank()), no(l.n_owned), G(comm.sum(std::int64_t(no))),
        N(l.n_global_nodes), gid_row(node_rows(l)) {}

  /// This rank's owned cells, each to the rank writing its row; the cells received.
  std::vector<CellRec> route_cells() const {
    std::vector<int> dest(static_cast<std::size_t>(no));
    for (index_t c = 0; c < no; ++c) dest[std::size_t(c)] = block_owner(l.global_cell[c], G, P);
    std::vector<std::int64_t> t;
    return route<CellRec>(dest, comm, [&](std::size_t i) {
      const index_t c = static_cast<index_t>(i);
      t.clear();
      append_xdmf_nodes(h.cell_type[c], h.cell_nodes.data() + h.cell_node_off[c], gid_row, t);
      CellRec x{};
      x.row = l.global_cell[c];
      x.gid = h.cell_gid[c];
      x.type = static_cast<std::int32_t>(h.cell_type[c]);
      x.n = static_cast<std::int32_t>(t.size());
      std::copy(t.begin(), t.end(), x.topo);
      return x;
    });
  }

  /// Cells to the ranks writing their rows.
  void place_cells() {
    const std::int64_t row0 = block_start(index_t(G), me, P), row1 = block_start(index_t(G), me + 1, P);
    std::vector<CellRec> got = route_cells();
    std::sort(got.begin(), got.end(), [](const CellRec& a, const CellRec& b) { return a.row < b.row; });
    bad = bad || std::int64_t(got.size()) != row1 - row0;
    std::size_t topology = 0;
    for (const CellRec& x : got) topology += std::size_t(x.n);
    r.topology.reserve(topology);
    r.types.reserve(got.size());
    r.cell_gid.reserve(got.size());
    for (std::size_t i = 0; i < got.size() && !bad; ++i) {
      bad = got[i].row != row0 + std::int64_t(i);
      r.topology.insert(r.topology.end(), got[i].topo, got[i].topo + got[i].n);
      r.types.push_back(static_cast<std::uint8_t>(got[i].type));
      r.cell_gid.push_back(got[i].gid);
    }
  }

  /// The nodes of this rank's owned cells, each to the rank writing its row; the nodes received.
  std::vector<NodeRec> route_nodes() const {
    std::vector<char> used(h.n_nodes(), 0);
    for (index_t c = 0; c < no; ++c)
      for (index_t k = h.cell_node_off[c]; k < h.cell_node_off[c + 1]; ++k) used[h.cell_nodes[k]] = 1;
    std::vector<index_t> node;
    std::vector<int> dest;
    for (index_t v = 0; v < h.n_nodes(); ++v)
      if (used[v]) node.push_back(v), dest.push_back(block_owner(gid_row[v], N, P));
    return route<NodeRec>(dest, comm, [&](std::size_t i) {
      const std::size_t v = std::size_t(node[i]);
      return NodeRec{gid_row[v], h.node_gid[v], {h.x[3 * v], h.x[3 * v + 1], h.x[3 * v + 2]}};
    });
  }

  /// Nodes to the ranks writing their rows (ascending global id); a node shared by several ranks
  /// arrives from each, with the same coordinates.
  void place_nodes() {
    std::vector<NodeRec> gotn = route_nodes();
    std::sort(gotn.begin(), gotn.end(), [](const NodeRec& a, const NodeRec& b) { return a.row < b.row; });
    const std::int64_t n0 = block_start(index_t(N), me, P), n1 = block_start(index_t(N), me + 1, P);
    std::int64_t next = n0;
    const std::size_t rows = std::size_t(std::max<std::int64_t>(n1 - n0, 0));
    r.x.reserve(3 * rows);
    r.node_gid.reserve(rows);
    for (const NodeRec& x : gotn) {
      if (x.row < next) continue; // a copy from another rank
      if (x.row != next) {
        bad = true; // a node row that no owned cell uses
        break;
      }
      r.x.insert(r.x.end(), x.x, x.x + 3);
      r.node_gid.push_back(x.gid);
      ++next;
    }
    bad = bad || next != n1;
  }

  /// This rank's boundary faces, each to the rank writing its owner's row; the faces received.
  std::vector<FaceRec> route_faces() const {
    struct Which {
      std::int32_t patch, seq;
      index_t face;
    };
    std::vector<Which> which;
    std::vector<int> dest;
    for (std::size_t p = 0; p < h.patches.size(); ++p) {
      index_t prev = -1;
      int seq = 0;
      for (index_t f = h.patches[p].begin; f < h.patches[p].end; ++f) {
        const index_t o = h.face_owner[f];
        seq = o == prev ? seq + 1 : 0;
        prev = o;
        which.push_back({static_cast<std::int32_t>(p), seq, f});
        dest.push_back(block_owner(l.global_cell[o], G, P));
      }
    }
    return route<FaceRec>(dest, comm, [&](std::size_t i) {
      const index_t f = which[i].face, o = h.face_owner[f];
      FaceRec x{};
      x.patch = which[i].patch;
      x.seq = which[i].seq;
      x.row = l.global_cell[o];
      x.owner_gid = h.cell_gid[o];
      const index_t nn = h.face_node_off[f + 1] - h.face_node_off[f];
      x.n = static_cast<std::int32_t>(nn + 1);
      x.topo[0] = nn == 3 ? 4 : 5;
      for (index_t k = 0; k < nn; ++k) x.topo[1 + k] = gid_row[h.face_nodes[h.face_node_off[f] + k]];
      return x;
    });
  }

  /// Boundary faces to the ranks writing their owners' rows: each patch in (owner row, order among
  /// the owner's faces of the patch), the whole mesh's order.
  void place_faces() {
    std::vector<FaceRec> gotf = route_faces();
    std::sort(gotf.begin(), gotf.end(), [](const FaceRec& a, const FaceRec& b) {
      return a.patch != b.patch ? a.patch < b.patch : a.row != b.row ? a.row < b.row : a.seq < b.seq;
    });
    for (const Patch& p : h.patches) r.patch_names.push_back(p.name);
    r.patch_topology.resize(h.patches.size());
    r.patch_owner.resize(h.patches.size());
    for (const FaceRec& x : gotf) {
      r.patch_topology[std::size_t(x.patch)].insert(r.patch_topology[std::size_t(x.patch)].end(), x.topo, x.topo + x.n);
      r.patch_owner[std::size_t(x.patch)].push_back(x.owner_gid);
    }
  }
};

} // namespace

MeshFileRows mesh_rows_of_parts(const LocalMesh& l, const Communicator& comm) {
  PartRows rows(l, comm);
  rows.place_cells();
  rows.place_nodes();
  rows.place_faces();
  if (comm.any(rows.bad))
    throw RunError("error: the ranks' parts do not give every cell row and every node row exactly once (mesh file "
                   "written from parts)");
  return std::move(rows.r);
}

std::string step_file_name(const std::string& prefix, long long step) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "_%06lld.h5", step);
  return prefix + buf;
}

OutputSeries::OutputSeries(const std::string& dir, const CaseConfig& cfg, const HostMesh& mesh, FileMetadata meta)
    : dir_(dir), cfg_(cfg), mesh_(mesh), meta_(std::move(meta)) {
  output_layout_ = output_field_layout(cfg.physics);
  checkpoint_layout_ = checkpoint_field_layout(cfg.physics, any_non_reflecting(cfg.flow_boundary));
  for (const FieldLayout& l : output_layout_) fields_.push_back(l.name);
  if (!cfg.output.fields.empty()) fields_ = cfg.output.fields;
}

std::string OutputSeries::xdmf_path() const {
  return (fs::path(dir_) / (cfg_.name + ".xdmf")).string();
}
std::string OutputSeries::mesh_path() const {
  return (fs::path(dir_) / "mesh.h5").string();
}

void OutputSeries::write_mesh() {
  const kc::ProfileRegion region("fvproxy::io::write_mesh");
  if (local_) { // built in parts: every row from its owner (mesh_rows_of_parts)
    mesh_info_ = write_mesh_rows(mesh_path(), mesh_rows_of_parts(*local_, *comm_), meta_, *comm_);
    write_xdmf();
    return;
  }
  // Decomposed with the global mesh on every rank (set_decomposition): each writes its block of it (cells and nodes
  // [r*n/P, (r+1)*n/P), the same share of each patch's faces).
  MeshSlice slice;
  if (comm_) {
    const int r = comm_->rank(), P = comm_->size();
    slice.cell_begin = row_begin_;
    slice.cell_end = row_end_;
    slice.node_begin = block_start(mesh_.n_nodes(), r, P);
    slice.node_end = block_start(mesh_.n_nodes(), r + 1, P);
    slice.part = r;
    slice.parts = P;
  }
  mesh_info_ = write_mesh_file(mesh_path(), mesh_, meta_, slice);
  write_xdmf();
}

void OutputSeries::write_xdmf() const {
  if (Communicator::world().rank() != 0) return;
  write_atomically(xdmf_path(), xdmf_text("mesh.h5", mesh_info_, steps_, sizeof(real) == 4 ? 4 : 8), "fvproxy run");
}

void OutputSeries::adopt_existing(long long step) {
  steps_.clear();
  for (const auto& [s, path] : step_files(dir_, "fields")) {
    if (s > step) continue;
    try {
      const h5::File f = h5::File::open(path.string());
      XdmfStep x;
      x.file = path.filename().string();
      x.time = f.attribute_double("/", "time");
      x.step = s;
      x.fields = f.members("/fields");
      for (const auto& name : x.fields) x.widths.push_back(int(f.shape("/fields/" + name).size() == 2 ? 3 : 1));
      if (f.shape("/cells/global_id")[0] != mesh_info_.cells) continue; // another mesh's output
      steps_.push_back(x);
    } catch (const h5::H5Failure&) {
      continue; // not ours or damaged: left out of the series
    }
  }
  write_xdmf();
}

OutputSeries::OutputSeries(const std::string& dir, const CaseConfig& cfg, const LocalMesh& local,
                           const Communicator& comm, FileMetadata meta)
    : OutputSeries(dir, cfg, local.host, std::move(meta)) {
  local_ = &local;
  const std::int64_t G = comm.sum(std::int64_t(local.n_owned));
  set_decomposition(comm, std::vector<index_t>(local.global_cell.begin(), local.global_cell.begin() + local.n_owned),
                    std::vector<gid_t>(local.host.cell_gid.begin(), local.host.cell_gid.begin() + local.n_owned),
                    static_cast<index_t>(G));
}

void OutputSeries::set_decomposition(const Communicator& comm, std::vector<index_t> global_of_owned) {
  std::vector<gid_t> gids(global_of_owned.size());
  for (std::size_t c = 0; c < gids.size(); ++c)
    gids[c] = global_of_owned[c] >= 0 && global_of_owned[c] < mesh_.n_cells() ? mesh_.cell_gid[global_of_owned[c]] : -1;
  set_decomposition(comm, std::move(global_of_owned), gids, mesh_.n_cells());
}

void OutputSeries::set_decomposition(const Communicator& comm, std::vector<index_t> global_of_owned,
                                     const std::vector<gid_t>& gid_of_owned, index_t n_global) {
  comm_ = comm;
  const int P = comm.size(), me = comm.rank();
  const index_t G = n_global;
  row_begin_ = block_start(G, me, P);
  row_end_ = block_start(G, me + 1, P);
  // The rank writing global row g: the block holding it.
  auto writer = [&](index_t g) { return block_owner(g, G, P); };
  bool bad = false;
  send_counts_.assign(P, 0);
  for (const index_t g : global_of_owned) {
    if (g < 0 || g >= G) {
      bad = true;
      continue;
    }
    ++send_counts_[writer(g)];
  }
  send_displs_.assign(P, 0);
  for (int r = 1; r < P; ++r) send_displs_[r] = send_displs_[r - 1] + send_counts_[r - 1];
  send_rows_.assign(std::size_t(send_displs_.back() + send_counts_.back()), 0);
  std::vector<std::int64_t> send_gid(send_rows_.size()), send_cell_gid(send_rows_.size());
  {
    std::vector<int> at = send_displs_;
    for (index_t c = 0; c < index_t(global_of_owned.size()); ++c) {
      const index_t g = global_of_owned[c];
      if (g < 0 || g >= G) continue;
      const int slot = at[writer(g)]++;
      send_rows_[slot] = c;
      send_gid[slot] = g;
      send_cell_gid[slot] = gid_of_owned[c];
    }
  }
  recv_counts_.assign(P, 0);
  MPI_Alltoall(send_counts_.data(), 1, MPI_INT, recv_counts_.data(), 1, MPI_INT, comm.raw());
  recv_displs_.assign(P, 0);
  for (int r = 1; r < P; ++r) recv_displs_[r] = recv_displs_[r - 1] + recv_counts_[r - 1];
  std::vector<std::int64_t> recv_gid(std::size_t(recv_displs_.back() + recv_counts_.back()));
  std::vector<std::int64_t> recv_cell_gid(recv_gid.size());
  MPI_Alltoallv(send_gid.data(), send_counts_.data(), send_displs_.data(), MPI_INT64_T, recv_gid.data(),
                recv_counts_.data(), recv_displs_.data(), MPI_INT64_T, comm.raw());
  MPI_Alltoallv(send_cell_gid.data(), send_counts_.data(), send_displs_.data(), MPI_INT64_T, recv_cell_gid.data(),
                recv_counts_.data(), recv_displs_.data(), MPI_INT64_T, comm.raw());
  // Each row of the block received exactly once; its owner is the `rank` field.
  const index_t n_block = row_end_ - row_begin_;
  recv_block_row_.assign(recv_gid.size(), 0);
  rank_of_row_.assign(std::size_t(n_block), real(-1));
  block_gid_.assign(std::size_t(n_block), -1);
  for (int src = 0; src < P; ++src)
    for (int i = recv_displs_[src]; i < recv_displs_[src] + recv_counts_[src]; ++i) {
      const index_t row = static_cast<index_t>(recv_gid[i] - row_begin_);
      if (row < 0 || row >= n_block || rank_of_row_[row] >= 0) {
        bad = true;
        continue;
      }
      recv_block_row_[i] = row;
      rank_of_row_[row] = real(src);
      block_gid_[row] = recv_cell_gid[i];
    }
  bad = bad || recv_gid.size() != std::size_t(n_block);
  if (comm.any(bad))
    throw RunError("error: the ranks' owned cells do not cover the mesh's " + std::to_string(G) +
                   " cells exactly once (output redistribution)");
}

std::string OutputSeries::write_step_file(FieldFile header, const std::string& prefix, long long step, double time,
                                          ConstView2<real> u, const std::vector<std::string>& names,
                                          const std::vector<FieldLayout>& layout) const {
  const HostState h = to_host(u);
  header.time = time;
  header.step = step;
  header.names = names;
  header.meta = meta_;
  const std::string path = (fs::path(dir_) / step_file_name(prefix, step)).string();
  // This rank's block of each selected field: `width` columns of the state from `column` on
  // (FieldLayout), or `rank`.
  const index_t n_block = comm_ ? row_end_ - row_begin_ : mesh_.n_cells();
  std::vector<int> ks;                  // the state columns that travel, field after field
  std::vector<int> first(names.size()); // each field's first entry in ks
  header.widths.clear();
  for (std::size_t i = 0; i < names.size(); ++i) {
    first[i] = static_cast<int>(ks.size());
    if (names[i] == kRankField) {
      header.widths.push_back(1);
      continue;
    }
    const auto it =
        std::find_if(layout.begin(), layout.end(), [&](const FieldLayout& l) { return l.name == names[i]; });
    if (it == layout.end()) throw std::logic_error("OutputSeries: no field '" + names[i] + "' in the layout");
    for (int j = 0; j < it->width; ++j) ks.push_back(it->column + j);
    header.widths.push_back(it->width);
  }
  const int nk = static_cast<int>(ks.size());
  // block[j]: this rank's rows of state column ks[j]: the received ones (several ranks) or the
  // host copy's own (one rank).
  std::vector<std::vector<real>> block(static_cast<std::size_t>(nk));
  if (comm_) {
    // The owned rows to the ranks whose blocks hold them: one MPI_Alltoallv of every column.
    std::vector<real> out(send_rows_.size() * std::size_t(nk)), in(recv_block_row_.size() * std::size_t(nk));
    for (std::size_t s = 0; s < send_rows_.size(); ++s)
      for (int j = 0; j < nk; ++j) out[s * nk + j] = h(send_rows_[s], ks[j]);
    auto scaled = [nk](const std::vector<int>& v) {
      std::vector<int> r(v);
      for (int& x : r) x *= nk;
      return r;
    };
    const std::vector<int> sc = scaled(send_counts_), sd = scaled(send_displs_), rc = scaled(recv_counts_),
                           rd = scaled(recv_displs_);
    MPI_Alltoallv(out.data(), sc.data(), sd.data(), mpi_real(), in.data(), rc.data(), rd.data(), mpi_real(),
                  comm_->raw());
    for (int j = 0; j < nk; ++j) block[j].resize(std::size_t(n_block));
    for (std::size_t i = 0; i < recv_block_row_.size(); ++i)
      for (int j = 0; j < nk; ++j) block[j][recv_block_row_[i]] = in[i * nk + j];
  }
  // Each field's values: a column as it is (width 1), a vector interleaved row-major (cells, 3).
  std::vector<std::vector<real>> vectors;
  vectors.reserve(names.size());
  const std::vector<real> zeros(!comm_ ? std::size_t(n_block) : 0, real(0)); // one rank: rank 0
  std::vector<const real*> cols;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == kRankField) {
      cols.push_back(comm_ ? rank_of_row_.data() : zeros.data());
      continue;
    }
    const int w = header.widths[i];
    auto column = [&](int j) { return comm_ ? block[first[i] + j].data() : &h(0, ks[first[i] + j]); };
    if (w == 1) {
      cols.push_back(column(0));
      continue;
    }
    vectors.emplace_back(std::size_t(n_block) * std::size_t(w));
    std::vector<real>& v = vectors.back();
    for (int j = 0; j < w; ++j) {
      const real* c = column(j);
      for (index_t r = 0; r < n_block; ++r) v[std::size_t(r) * std::size_t(w) + std::size_t(j)] = c[r];
    }
    cols.push_back(v.data());
  }
  write_field_file(path, header, n_block, comm_ ? block_gid_.data() : mesh_.cell_gid.data(), cols);
  return path;
}

const std::string& OutputSeries::fingerprint() {
  if (fingerprint_.empty()) // once: O(cells); collective on a mesh in parts
    fingerprint_ = local_ ? mesh_fingerprint_of_parts(mesh_, local_->n_owned, local_->n_global_nodes, *comm_)
                          : mesh_fingerprint(mesh_);
  return fingerprint_;
}

std::string OutputSeries::write_fields(long long step, double time, ConstView2<real> u) {
  const kc::ProfileRegion region("fvproxy::io::write_fields");
  FieldFile header;
  header.kind = "fields";
  header.strings["mesh_fingerprint"] = fingerprint(); // compare tells meshes of one cell count apart
  const std::string path = write_step_file(header, "fields", step, time, u, fields_, output_layout_);
  steps_.erase(std::remove_if(steps_.begin(), steps_.end(), [&](const XdmfStep& s) { return s.step >= step; }),
               steps_.end());
  std::vector<int> widths;
  for (const auto& name : fields_) {
    const auto it = std::find_if(output_layout_.begin(), output_layout_.end(),
                                 [&](const FieldLayout& l) { return l.name == name; });
    widths.push_back(it == output_layout_.end() ? 1 : it->width); // `rank`: 1
  }
  steps_.push_back({fs::path(path).filename().string(), time, step, fields_, widths});
  write_xdmf();
  return path;
}

std::string OutputSeries::write_checkpoint(long long step, double time, ConstView2<real> u,
                                           const CheckpointInfo& info) {
  const kc::ProfileRegion region("fvproxy::io::write_checkpoint");
  FieldFile header;
  header.kind = "checkpoint";
  header.numbers["dt"] = info.dt;
  header.numbers["total_steps"] = double(info.total_steps);
  int columns = 0; // the state's components and any non-reflecting faces' slots
  for (const FieldLayout& l : checkpoint_layout_) columns += l.width;
  header.numbers["components"] = columns;
  header.vectors["conservation_initial"] = info.conservation_initial;
  if (!info.residual_reference.empty()) header.vectors["residual_reference"] = info.residual_reference;
  header.strings["mesh_fingerprint"] = fingerprint();
  header.strings["case"] = cfg_.name;
  std::vector<std::string> names;
  for (const FieldLayout& l : checkpoint_layout_) names.push_back(l.name);
  const std::string path = write_step_file(header, "checkpoint", step, time, u, names, checkpoint_layout_);
  if (Communicator::world().rank() == 0) {
    auto all = step_files(dir_, "checkpoint");
    for (std::size_t i = 0; i + std::size_t(cfg_.checkpoint.keep) < all.size(); ++i) {
      std::error_code ec;
      fs::remove(all[i].second, ec);
    }
  }
  return path;
}

} // namespace fvproxy
