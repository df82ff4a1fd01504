#include "parallel/parts.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>

#include <Kokkos_Core.hpp>

#include "core/error.hpp"
#include "mesh/box_faces.hpp"
#include "mesh/box_generator.hpp"
#include "mesh/host_parallel.hpp"
#include "mesh/mesh.hpp"
#include "mesh/ptscotch.hpp"
#include "mesh/reorder.hpp"
#include "parallel/collectives.hpp"

namespace fvproxy {

namespace {

bool is_curve(Ordering o) {
  return o == Ordering::zorder || o == Ordering::hilbert;
}

/// The hexes within `layers` hexes (in each axis, periodic axes wrapped) of `hexes`, ascending:
/// marks over the box's hexes, grown one axis at a time.
std::vector<gid_t> dilate(const BoxConfig& b, const std::vector<gid_t>& hexes, int layers) {
  const gid_t nx = b.cells[0], ny = b.cells[1], total = nx * ny * b.cells[2];
  std::vector<char> in(std::size_t(total), 0), out;
  for (const gid_t h : hexes) in[std::size_t(h)] = 1;
  for (int a = 0; a < 3; ++a) {
    out = in;
    const gid_t n = b.cells[a], stride = a == 0 ? 1 : a == 1 ? nx : nx * ny;
    for (gid_t h = 0; h < total; ++h) {
      if (!in[std::size_t(h)]) continue;
      const gid_t c = a == 0 ? h % nx : a == 1 ? (h / nx) % ny : h / (nx * ny);
      for (int d = -layers; d <= layers; ++d) {
        gid_t v = c + d;
        if (v < 0 || v >= n) {
          if (!b.periodic[a]) continue;
          v = (v % n + n) % n;
        }
        out[std::size_t(h + (v - c) * stride)] = 1;
      }
    }
    in.swap(out);
  }
  std::vector<gid_t> r;
  for (gid_t h = 0; h < total; ++h)
    if (in[std::size_t(h)]) r.push_back(h);
  return r;
}

/// Bounds (min, max per axis) of the centroids of `cells` of `m`, over every rank.
CurveFrame global_frame(const Mesh& m, const std::vector<index_t>& cells, const Communicator& comm) {
  const auto c = Kokkos::create_mirror_view_and_copy(HostSpace(), m.centroid);
  std::vector<double> lo(3, std::numeric_limits<double>::infinity()), hi(3, -std::numeric_limits<double>::infinity());
  for (const index_t k : cells)
    for (int d = 0; d < 3; ++d) lo[d] = std::min(lo[d], double(c(k, d))), hi[d] = std::max(hi[d], double(c(k, d)));
  comm.min(lo);
  comm.max(hi);
  const real l[3] = {real(lo[0]), real(lo[1]), real(lo[2])}, h[3] = {real(hi[0]), real(hi[1]), real(hi[2])};
  return curve_frame(l, h);
}

/// `piece` in the whole ordered mesh's order as far as it matters to extract_local: `row[c]` is cell c's
/// row in the whole ordered mesh where known (owned cells, ghosts, and every cell sharing a node with
/// one: the first of them in the order numbers the node), -1 elsewhere (those go last, by global id).
/// The known cells keep their relative order of the whole mesh, so do the faces between them and
/// their nodes (numbered by first use), which is all a local mesh cut out of the piece keeps. Returns
/// the permutation (new -> old); `row` is permuted with the piece.
std::vector<index_t> order_piece_by_rows(HostMesh& piece, std::vector<gid_t>& row, gid_t total_cells) {
  std::vector<index_t> p(row.size());
  std::iota(p.begin(), p.end(), 0);
  const auto key = [&](index_t c) { return row[c] >= 0 ? row[c] : total_cells + piece.cell_gid[c]; };
  host::parallel_sort(
      p, [&](index_t a, index_t b) { return key(a) < key(b); }, "fvproxy::parallel::piece_order");
  piece = permute_cells(piece, p);
  std::vector<gid_t> r(row.size());
  for (std::size_t k = 0; k < p.size(); ++k) r[k] = row[std::size_t(p[k])];
  row.swap(r);
  return p;
}

/// The local cell of a piece (the cells of `hexes`, ascending hex ids, in any order) by global id
/// g = hex * per + s: the hex's position in `hexes`, then the cell within it; -1 outside the piece.
class PieceIndex {
public:
  PieceIndex(const HostMesh& piece, const std::vector<gid_t>& hexes, gid_t total_hexes, int per)
      : pos_(&hexes, total_hexes), per_(per), at_(piece.cell_gid.size(), -1) {
    for (index_t c = 0; c < piece.n_cells(); ++c) at_[slot(piece.cell_gid[c])] = c;
  }
  index_t operator()(gid_t g) const {
    const index_t q = pos_(g / per_);
    return q < 0 ? -1 : at_[std::size_t(q) * per_ + std::size_t(g % per_)];
  }

private:
  std::size_t slot(gid_t g) const { return std::size_t(pos_(g / per_)) * per_ + std::size_t(g % per_); }
  HexPositions pos_;
  int per_;
  std::vector<index_t> at_;
};

} // namespace

bool builds_in_parts(const MeshConfig& cfg) {
  const bool partition_ok = cfg.partition == PartitionMethod::blocks || cfg.partition == PartitionMethod::hilbert ||
                            cfg.partition == PartitionMethod::zorder || cfg.partition == PartitionMethod::ptscotch;
  const bool order_ok = cfg.reorder == Ordering::none || is_curve(cfg.reorder);
  return cfg.generate.has_value() && partition_ok && order_ok;
}

std::vector<gid_t> global_positions(const std::vector<std::uint64_t>& keys, const std::vector<gid_t>& gids,
                                    const Communicator& comm) {
  const std::size_t n = keys.size();
  using Rec = std::array<std::uint64_t, 3>; // key, gid, origin index
  std::vector<Rec> mine(n);
  for (std::size_t i = 0; i < n; ++i) mine[i] = {keys[i], std::uint64_t(gids[i]), std::uint64_t(i)};
  auto less = [](const Rec& a, const Rec& b) { return a[0] != b[0] ? a[0] < b[0] : a[1] < b[1]; };
  host::parallel_sort(mine, less, "fvproxy::parallel::curve_records");
  const int P = comm.size();
  std::vector<gid_t> pos(n);
  if (P == 1) {
    for (std::size_t i = 0; i < n; ++i) pos[mine[i][2]] = gid_t(i);
    return pos;
  }
  // Splitters: P - 1 regular samples per rank, gathered and sorted, every P-th of them.
  using Sample = std::array<std::uint64_t, 2>;
  std::vector<Sample> samples;
  if (n > 0)
    for (int i = 1; i < P; ++i) {
      const Rec& r = mine[std::size_t((__int128)i * n / P)];
      samples.push_back({r[0], r[1]});
    }
  int count = static_cast<int>(samples.size() * 2);
  std::vector<int> counts(P), displs(P, 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm.raw());
  for (int r = 1; r < P; ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<Sample> all(std::size_t(displs[P - 1] + counts[P - 1]) / 2);
  MPI_Allgatherv(samples.data(), count, MPI_UINT64_T, all.data(), counts.data(), displs.data(), MPI_UINT64_T,
                 comm.raw());
  std::sort(all.begin(), all.end());
  std::vector<Sample> split;
  for (int i = 1; i < P && !all.empty(); ++i) split.push_back(all[std::size_t((__int128)i * all.size() / P)]);
  // Records to the rank of their splitter interval (mine is sorted: the intervals are contiguous).
  std::vector<int> send_counts(P, 0);
  {
    std::size_t k = 0;
    for (int r = 0; r < P; ++r) {
      const std::size_t b = k;
      while (k < n && (r == P - 1 || r >= int(split.size()) || Sample{mine[k][0], mine[k][1]} <= split[r])) ++k;
      send_counts[r] = static_cast<int>(k - b);
    }
  }
  std::vector<int> recv_counts;
  std::vector<Rec> got = alltoallv(mine, send_counts, comm, &recv_counts);
  // Global positions: this rank's interval starts after every lower rank's records. Each rank's
  // share arrives sorted (a contiguous slice of its sorted records): merge the P runs.
  std::vector<index_t> order(got.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<std::int64_t> runs(std::size_t(P) + 1, 0);
  for (int r = 0; r < P; ++r) runs[r + 1] = runs[r] + recv_counts[r];
  host::merge_runs(
      order, std::move(runs), [&](index_t a, index_t b) { return less(got[a], got[b]); },
      "fvproxy::parallel::curve_positions");
  long long local = static_cast<long long>(got.size()), before = 0;
  MPI_Exscan(&local, &before, 1, MPI_LONG_LONG, MPI_SUM, comm.raw());
  if (comm.rank() == 0) before = 0;
  std::vector<Sample> reply(got.size()); // (origin index, position), in the received order
  for (std::size_t i = 0; i < order.size(); ++i) reply[order[i]] = {got[order[i]][2], std::uint64_t(before + i)};
  const std::vector<Sample> back = alltoallv(reply, recv_counts, comm);
  for (const Sample& s : back) pos[s[0]] = gid_t(s[1]);
  return pos;
}

namespace {

struct Place {
  gid_t gid;
  gid_t row; ///< index in the whole ordered mesh
  int part;
};

/// The global ids of `cells` of `m`.
std::vector<gid_t> gids_of(const HostMesh& m, const std::vector<index_t>& cells) {
  std::vector<gid_t> g(cells.size());
  for (std::size_t i = 0; i < cells.size(); ++i) g[i] = m.cell_gid[cells[i]];
  return g;
}

/// The global positions of `cells` of `piece` (uploaded as `dev`) along `curve` on `frame`.
/// Collective.
std::vector<gid_t> curve_positions(const HostMesh& piece, const Mesh& dev, const std::vector<index_t>& cells,
                                   Ordering curve, const CurveFrame& frame, const Communicator& comm) {
  const auto key = curve_keys(dev, curve, frame);
  std::vector<std::uint64_t> k(cells.size());
  for (std::size_t i = 0; i < cells.size(); ++i) k[i] = key[cells[i]];
  return global_positions(k, gids_of(piece, cells), comm);
}

/// The ghosts of the owned cells `own` of `piece`: the other cells within `layers` steps of one by
/// `adjacency` (faces, or vertices), ascending global ids.
std::vector<gid_t> ghost_gids_of(const HostMesh& piece, const std::vector<index_t>& own, int layers,
                                 const GhostAdjacency& adjacency) {
  const index_t nc = piece.n_cells();
  std::vector<gid_t> ghost_gids;
  std::vector<char> near(nc, 0); // owned cells and the ghosts found so far
  for (const index_t c : own) near[c] = 1;
  const CellAdjacency adj(piece, adjacency);
  for (int k = 0; k < layers; ++k) {
    std::vector<index_t> found;
    for (index_t c = 0; c < nc; ++c)
      if (near[c])
        adj.for_each(c, [&](index_t n) {
          if (!near[n]) found.push_back(n);
        });
    for (const index_t c : found)
      if (!near[c]) near[c] = 1, ghost_gids.push_back(piece.cell_gid[c]);
  }
  std::sort(ghost_gids.begin(), ghost_gids.end());
  ghost_gids.erase(std::unique(ghost_gids.begin(), ghost_gids.end()), ghost_gids.end());
  return ghost_gids;
}

/// The piece's outer faces belong to cells two layers out: never to an owned cell (nor to a
/// first-layer ghost with two layers).
void drop_cut_patches(LocalMesh& l, int layers) {
  for (std::vector<Patch>* v : {&l.host.patches, &l.layer1_patches}) {
    if (v == &l.layer1_patches && layers < 2) continue;
    if (v->empty() || v->back().name != kBoxCutPatch || v->back().begin != v->back().end)
      throw RunError("error: build_box_in_parts: a cell with all its faces has one on its piece's boundary");
    v->pop_back();
  }
}

/// build_box_in_parts on this rank (parts.hpp's steps 1 and 2): the box, this rank's slab of hexes,
/// the places of the slab's cells (the directory other ranks ask) and of this rank's own cells.
/// Collective, step by step.
struct BoxInParts {
  const MeshConfig& cfg;
  const BoxConfig& box;
  const Communicator& comm;
  const int ranks, rank;                ///< the communicator's size, this rank
  const int per_hex;                    ///< cells per hex (1 hex, 2 prisms, 6 tets)
  const gid_t total_hexes, total_cells; ///< in the whole box
  PartsMesh out;
  const std::array<int, 3>& blocks; ///< out.partition.blocks
  const bool curve_part;            ///< hilbert, zorder: equal pieces of a curve
  const bool graph_part;            ///< ptscotch: the ranks partition the slabs' cell graph together
  const bool curve_order;
  const Ordering part_curve;
  const gid_t slab0, slab1;
  std::vector<Place> directory; // the slab's cells, by gid
  std::vector<Place> owned;     // this rank's cells (from the directory owners)

  BoxInParts(const MeshConfig& cfg, const Communicator& comm)
      : cfg(cfg), box(*cfg.generate), comm(comm), ranks(comm.size()), rank(comm.rank()),
        per_hex(box_cells_per_hex(box)), total_hexes(gid_t(box.cells[0]) * box.cells[1] * box.cells[2]),
        total_cells(total_hexes * per_hex), blocks(out.partition.blocks),
        curve_part(cfg.partition == PartitionMethod::hilbert || cfg.partition == PartitionMethod::zorder),
        graph_part(cfg.partition == PartitionMethod::ptscotch), curve_order(is_curve(cfg.reorder)),
        part_curve(cfg.partition == PartitionMethod::hilbert ? Ordering::hilbert : Ordering::zorder),
        slab0(block_begin(total_hexes, rank, ranks)), slab1(block_begin(total_hexes, rank + 1, ranks)) {}

  /// out's partition; InputError (naming `where`) when the box cannot be divided so.
  void describe_partition(const std::string& where) {
    out.n_global_cells = total_cells;
    out.partition.method = cfg.partition;
    out.partition.parts = ranks;
    check_parts_fit(where, ranks, total_cells);
    if (cfg.partition == PartitionMethod::blocks) {
      std::array<bool, 3> periodic{box.periodic[0], box.periodic[1], box.periodic[2]};
      out.partition.blocks = block_factors(ranks, box.cells, periodic);
      if (out.partition.blocks[0] == 0)
        throw InputError(where,
                         "'blocks' cannot divide the box of " + std::to_string(box.cells[0]) + "x" +
                             std::to_string(box.cells[1]) + "x" + std::to_string(box.cells[2]) + " hexes into " +
                             std::to_string(ranks) + " boxes",
                         "no px x py x pz = " + std::to_string(ranks) +
                             " has every factor within its axis' cell count: use metis, hilbert or zorder");
    }
  }

  /// The `blocks` part of cell `gid`.
  int block_part(gid_t gid) const {
    const gid_t hex = gid / per_hex;
    const gid_t i = hex % box.cells[0], j = (hex / box.cells[0]) % box.cells[1],
                l = hex / (gid_t(box.cells[0]) * box.cells[1]);
    const int bi = static_cast<int>(i * blocks[0] / box.cells[0]), bj = static_cast<int>(j * blocks[1] / box.cells[1]),
              bk = static_cast<int>(l * blocks[2] / box.cells[2]);
    return bi + blocks[0] * (bj + blocks[1] * bk);
  }

  /// The cells of `m` in this rank's slab.
  std::vector<index_t> in_slab(const HostMesh& m) const {
    std::vector<index_t> c;
    for (index_t k = 0; k < m.n_cells(); ++k)
      if (m.cell_gid[k] >= slab0 * per_hex && m.cell_gid[k] < slab1 * per_hex) c.push_back(k);
    return c;
  }

  /// 1. The slab: places (part, row) of its cells; the directory. Each cell's place then goes to
  /// its owner (into `owned`).
  void place_slab() {
    std::vector<gid_t> slab(std::size_t(slab1 - slab0));
    std::iota(slab.begin(), slab.end(), slab0);
    const HostMesh piece = generate_box_piece(box, dilate(box, slab, 2));
    out.steps.lap("slab piece");
    const Mesh dev = curve_part || curve_order ? upload_centroids(piece) : Mesh{}; // for the curves' keys
    out.steps.lap("slab centroids");
    const std::vector<index_t> S = in_slab(piece);
    // The curves' frame: the slab cells' centroid bounds over every rank (both curves use it).
    const CurveFrame frame = curve_part || curve_order ? global_frame(dev, S, comm) : CurveFrame{};
    directory.resize(S.size());
    for (std::size_t i = 0; i < S.size(); ++i) directory[i] = {piece.cell_gid[S[i]], piece.cell_gid[S[i]], 0};
    // directory is indexed by gid - slab0 * per_hex: S follows the piece's order, sort it below.
    if (curve_order) order_slab(piece, dev, S, frame);
    out.steps.lap("slab order");
    const auto by_gid = [](const Place& a, const Place& b) { return a.gid < b.gid; };
    if (!std::is_sorted(directory.begin(), directory.end(), by_gid)) // a piece is generated in global-id order
      host::parallel_sort(directory, by_gid, "fvproxy::parallel::directory");
    out.steps.lap("directory");
    if (curve_part) {
      part_slab_on_curve(piece, dev, S, frame);
    } else if (graph_part) {
      part_slab_by_graph();
    } else {
      for (Place& p : directory) p.part = block_part(p.gid);
    }
    out.steps.lap(graph_part ? "partition (ptscotch)" : "partition");
    send_places_to_owners();
    out.steps.lap("places to owners");
  }

  /// The rows of the slab's cells `S` in the mesh ordered along mesh.reorder's curve on `frame`. The
  /// slab itself stays in its order (what follows reads it by global id).
  void order_slab(const HostMesh& piece, const Mesh& dev, const std::vector<index_t>& S, const CurveFrame& frame) {
    const auto row = curve_positions(piece, dev, S, cfg.reorder, frame, comm);
    for (std::size_t i = 0; i < S.size(); ++i) directory[i].row = row[i];
  }

  /// The parts of the slab's cells `S`: equal contiguous pieces of the partition's curve on `frame`.
  void part_slab_on_curve(const HostMesh& piece, const Mesh& dev, const std::vector<index_t>& S,
                          const CurveFrame& frame) {
    if (curve_order && cfg.reorder == part_curve) { // the ordering's positions (same curve, same frame)
      for (Place& p : directory) p.part = static_cast<int>((__int128)p.row * ranks / total_cells);
      return;
    }
    const auto pos = curve_positions(piece, dev, S, part_curve, frame, comm);
    for (std::size_t i = 0; i < S.size(); ++i)
      directory[std::size_t(piece.cell_gid[S[i]] - slab0 * per_hex)].part =
          static_cast<int>((__int128)pos[i] * ranks / total_cells);
  }

  /// The parts of the slab's cells by PT-Scotch: rank r hands it the slab's hexes [H r/R, H (r+1)/R)
  /// (box_hex_graph: the slice every path that partitions a box gives rank r, so the partition is the
  /// one rank 0's whole mesh gets on the same ranks), and each cell takes its hex's part; then the
  /// empty parts are refilled as on the whole mesh.
  void part_slab_by_graph() {
    const std::vector<int> part = ptscotch_parts(box_hex_graph(box, slab0, slab1), ranks, comm.raw());
    for (std::size_t i = 0; i < directory.size(); ++i) directory[i].part = part[i / std::size_t(per_hex)];
    std::vector<int> parts(directory.size());
    std::vector<gid_t> rows(directory.size());
    for (std::size_t i = 0; i < directory.size(); ++i) parts[i] = directory[i].part, rows[i] = directory[i].row;
    out.partition.refilled = refill_empty_parts(parts, rows, ranks, comm.raw());
    for (std::size_t i = 0; i < directory.size(); ++i) directory[i].part = parts[i];
  }

  /// Every cell's place to its owner. The directory is in global-id order and so is each part's
  /// share of it (a counting sort by part keeps it); the slabs follow each other in global ids, so
  /// the shares arrive (in rank order) in global-id order.
  void send_places_to_owners() {
    std::vector<int> counts(ranks, 0);
    for (const Place& p : directory) ++counts[p.part];
    std::vector<std::size_t> at(std::size_t(ranks), 0);
    for (int r = 1; r < ranks; ++r) at[r] = at[r - 1] + std::size_t(counts[r - 1]);
    std::vector<Place> send(directory.size());
    for (const Place& p : directory) send[at[p.part]++] = p;
    owned = alltoallv(send, counts, comm);
    const bool sorted =
        std::is_sorted(owned.begin(), owned.end(), [](const Place& a, const Place& b) { return a.gid < b.gid; });
    if (comm.max(std::int64_t(sorted ? 0 : 1)) != 0) // on every rank: one rank alone would leave the others waiting
      throw RunError("error: build_box_in_parts: the owned cells did not arrive in global-id order");
  }

  /// 1. Blocks in the generation order: everything closed-form.
  void place_blocks() {
    const auto& c = box.cells;
    std::array<std::vector<gid_t>, 3> axis;
    const int b3[3] = {rank % blocks[0], (rank / blocks[0]) % blocks[1], rank / (blocks[0] * blocks[1])};
    for (int a = 0; a < 3; ++a)
      for (gid_t i = 0; i < c[a]; ++i)
        if (int(i * blocks[a] / c[a]) == b3[a]) axis[a].push_back(i);
    for (const gid_t k : axis[2])
      for (const gid_t j : axis[1])
        for (const gid_t i : axis[0])
          for (int s = 0; s < per_hex; ++s) {
            const gid_t g = (i + c[0] * (j + gid_t(c[1]) * k)) * per_hex + s;
            owned.push_back({g, g, rank});
          }
    std::sort(owned.begin(), owned.end(), [](const Place& a, const Place& b) { return a.gid < b.gid; });
  }

  /// This rank's hexes (of its cells `own_gids`, ascending) and `layers` + 1 layers around them,
  /// in the generation (global id) order.
  HostMesh own_piece(const std::vector<gid_t>& own_gids, int layers, std::vector<gid_t>& piece_hexes) const {
    std::vector<gid_t> hexes;
    for (const gid_t g : own_gids)
      if (hexes.empty() || hexes.back() != g / per_hex) hexes.push_back(g / per_hex);
    hexes.erase(std::unique(hexes.begin(), hexes.end()), hexes.end()); // own_gids ascending: hexes too
    piece_hexes = dilate(box, hexes, layers + 1);
    return generate_box_piece(box, piece_hexes);
  }

  /// The ghosts' places: from the directory (closed-form for blocks in the generation order).
  std::vector<Place> places_of(const std::vector<gid_t>& ghost_gids) const {
    std::vector<Place> ghost_places(ghost_gids.size());
    if (curve_part || graph_part || curve_order) {
      std::vector<gid_t> ask(ghost_gids);
      std::vector<int> counts(ranks, 0);
      for (const gid_t g : ask)
        ++counts[block_owner(g / per_hex, total_hexes, ranks)]; // ascending gids: ascending owners
      std::vector<int> asked_counts;
      const std::vector<gid_t> asked = alltoallv(ask, counts, comm, &asked_counts);
      std::vector<Place> answer(asked.size());
      for (std::size_t i = 0; i < asked.size(); ++i) answer[i] = directory[std::size_t(asked[i] - slab0 * per_hex)];
      ghost_places = alltoallv(answer, asked_counts, comm);
    } else {
      for (std::size_t i = 0; i < ghost_gids.size(); ++i)
        ghost_places[i] = {ghost_gids[i], ghost_gids[i], block_part(ghost_gids[i])};
    }
    return ghost_places;
  }

  /// 2. This rank's piece: its hexes and two layers; its cells, their ghosts and the faces between
  /// them cut out in the whole ordered mesh's order (their rows from the directory).
  LocalMesh cut_out(int layers, const GhostAdjacency& adjacency) {
    std::vector<gid_t> own_gids(owned.size());
    for (std::size_t i = 0; i < owned.size(); ++i) own_gids[i] = owned[i].gid;
    std::vector<gid_t> hexes;
    HostMesh piece = own_piece(own_gids, layers, hexes);
    out.steps.lap("own piece");
    std::optional<PieceIndex> cell_of(std::in_place, piece, hexes, total_hexes, per_hex);
    // Owned cells and the ghosts (the other cells within `layers` faces of one), with their rows.
    const index_t nc = piece.n_cells();
    std::vector<int> part(nc, -1);
    std::vector<gid_t> row(nc, -1);
    for (const Place& p : owned) part[(*cell_of)(p.gid)] = rank, row[(*cell_of)(p.gid)] = p.row;
    std::vector<index_t> own; // ascending
    for (index_t c = 0; c < nc; ++c)
      if (part[c] == rank) own.push_back(c);
    const std::vector<gid_t> ghost_gids = ghost_gids_of(piece, own, layers, adjacency);
    // Along a curve, the rows of the cells next to the local ones by a node too (they number the nodes).
    const std::vector<gid_t> ask = curve_order ? with_node_neighbours(piece, own, ghost_gids, *cell_of) : ghost_gids;
    const std::vector<Place> places = places_of(ask);
    const auto ghost = [&](std::size_t i) { return std::binary_search(ghost_gids.begin(), ghost_gids.end(), ask[i]); };
    for (std::size_t i = 0; i < ask.size(); ++i) {
      const index_t c = (*cell_of)(ask[i]);
      row[c] = places[i].row;
      if (ghost(i)) part[c] = places[i].part;
    }
    out.steps.lap("ghosts");
    if (curve_order) {
      const std::vector<index_t> p = order_piece_by_rows(piece, row, total_cells);
      std::vector<int> q(part.size());
      for (std::size_t k = 0; k < p.size(); ++k) q[k] = part[std::size_t(p[k])];
      part.swap(q);
      cell_of.emplace(piece, hexes, total_hexes, per_hex);
      out.steps.lap("own piece order");
    }
    LocalMesh l = extract_local(piece, part, rank, ranks, layers, adjacency);
    drop_cut_patches(l, layers);
    set_global_rows(l, *cell_of, row);
    l.n_global_nodes = std::int64_t(box.cells[0] + 1) * (box.cells[1] + 1) * (box.cells[2] + 1); // ids 0..n-1
    out.steps.lap("cut out");
    return l;
  }

  /// `ghost_gids` (ascending) and the global ids of the piece's other cells that share a node with an
  /// owned cell (`own`) or a ghost, ascending.
  static std::vector<gid_t> with_node_neighbours(const HostMesh& piece, const std::vector<index_t>& own,
                                                 const std::vector<gid_t>& ghost_gids, const PieceIndex& cell_of) {
    std::vector<char> local(std::size_t(piece.n_cells()), 0), node(std::size_t(piece.n_nodes()), 0);
    for (const index_t c : own) local[std::size_t(c)] = 1;
    for (const gid_t g : ghost_gids) local[std::size_t(cell_of(g))] = 1;
    for (index_t c = 0; c < piece.n_cells(); ++c)
      if (local[std::size_t(c)])
        for (index_t k = piece.cell_node_off[c]; k < piece.cell_node_off[c + 1]; ++k) node[piece.cell_nodes[k]] = 1;
    std::vector<gid_t> ask(ghost_gids);
    for (index_t c = 0; c < piece.n_cells(); ++c)
      if (!local[std::size_t(c)])
        for (index_t k = piece.cell_node_off[c]; k < piece.cell_node_off[c + 1]; ++k)
          if (node[piece.cell_nodes[k]]) {
            ask.push_back(piece.cell_gid[c]);
            break;
          }
    std::sort(ask.begin(), ask.end());
    return ask;
  }

  /// Rows in the whole ordered mesh (`row`, by the piece's cell), instead of the piece's cells and
  /// faces.
  static void set_global_rows(LocalMesh& l, const PieceIndex& cell_of, const std::vector<gid_t>& row) {
    for (std::size_t k = 0; k < l.global_cell.size(); ++k)
      l.global_cell[k] = static_cast<index_t>(row[std::size_t(cell_of(l.host.cell_gid[k]))]);
    l.global_face.clear();
  }
};

} // namespace

PartsMesh build_box_in_parts(const MeshConfig& cfg, const Communicator& comm, const std::string& where, int layers,
                             const GhostAdjacency& adjacency) {
  if (!builds_in_parts(cfg))
    throw RunError("error: build_box_in_parts: mesh.partition " + std::string(to_string(cfg.partition)) +
                   " with mesh.reorder " + to_string(cfg.reorder) + " needs the whole mesh");
  BoxInParts b(cfg, comm);
  b.describe_partition(where);

  Kokkos::Timer timer;
  b.out.steps.skip();
  if (b.curve_part || b.graph_part || b.curve_order)
    b.place_slab();
  else { // blocks in the generation order: everything closed-form
    b.place_blocks();
    b.out.steps.lap("blocks");
  }
  b.out.seconds_sort = timer.seconds();
  timer.reset();

  b.out.local = b.cut_out(layers, adjacency);
  b.out.seconds_piece = timer.seconds();
  return std::move(b.out);
}

} // namespace fvproxy
