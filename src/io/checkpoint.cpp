#include "io/checkpoint.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <type_traits>

#include <mpi.h>

#include "core/error.hpp"
#include "io/field_file.hpp"
#include "parallel/collectives.hpp"

namespace fvproxy {

namespace {

std::uint64_t mix_word(std::uint64_t h, std::int64_t v) {
  h = (h ^ static_cast<std::uint64_t>(v)) * 0xbf58476d1ce4e5b9ULL;
  return h ^ (h >> 31);
}

/// The order-independent fingerprint's parts over cells [0, n_cells) of `m`: the bounding box of
/// their nodes, then the wrapping sum of one hash per cell (its global id, type, node global ids
/// and node positions to 1e-9 of the extent).
struct FingerprintParts {
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
  void bound(const HostMesh& m, index_t n_cells) {
    for (index_t c = 0; c < n_cells; ++c)
      for (index_t i = m.cell_node_off[c]; i < m.cell_node_off[c + 1]; ++i)
        for (int d = 0; d < 3; ++d) {
          const double x = m.x[3 * std::size_t(m.cell_nodes[i]) + d];
          lo[d] = std::min(lo[d], x), hi[d] = std::max(hi[d], x);
        }
  }
  std::uint64_t sum(const HostMesh& m, index_t n_cells) const {
    double extent = 0;
    for (int d = 0; d < 3; ++d) extent = std::max(extent, hi[d] - lo[d]);
    const double scale = extent > 0 ? 1e9 / extent : 1.0;
    std::uint64_t s = 0;
    for (index_t c = 0; c < n_cells; ++c) {
      std::uint64_t h = 0x9e3779b97f4a7c15ULL;
      h = mix_word(h, m.cell_gid[c]);
      h = mix_word(h, static_cast<std::int64_t>(m.cell_type[c]));
      for (index_t i = m.cell_node_off[c]; i < m.cell_node_off[c + 1]; ++i) {
        const index_t k = m.cell_nodes[i];
        h = mix_word(h, m.node_gid[k]);
        for (int d = 0; d < 3; ++d) h = mix_word(h, std::llround((m.x[3 * std::size_t(k) + d] - lo[d]) * scale));
      }
      s += h;
    }
    return s;
  }
};

std::string finish_fingerprint(std::int64_t cells, std::int64_t nodes, std::uint64_t sum) {
  std::uint64_t h = 0x9e3779b97f4a7c15ULL;
  h = mix_word(h, cells);
  h = mix_word(h, nodes);
  h = mix_word(h, static_cast<std::int64_t>(sum));
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

/// `out[d]` to rank d, for every d; returns what every rank sent here, by source rank, and how
/// many values came from each (`counts`): alltoallv of the lists end to end.
template <class T>
std::vector<T> exchange(const Communicator& comm, const std::vector<std::vector<T>>& out, std::vector<int>& counts) {
  std::vector<T> send;
  std::vector<int> send_counts;
  for (const auto& v : out) send.insert(send.end(), v.begin(), v.end()), send_counts.push_back(int(v.size()));
  return alltoallv(send, send_counts, comm, &counts);
}

/// The directory rank of global id g.
int directory_of(gid_t g, int P) {
  return static_cast<int>(static_cast<std::uint64_t>(g) % static_cast<std::uint64_t>(P));
}

/// The lowest failing rank's message as an InputError about `where` on every rank, when `what` is
/// not empty on any rank.
void agree(const Communicator& comm, const std::string& where, const std::string& what) {
  if (const FirstMessage first = first_message(comm, what)) throw InputError(where, first.text);
}

} // namespace

std::string mesh_fingerprint(const HostMesh& m) {
  FingerprintParts p;
  p.bound(m, m.n_cells());
  return finish_fingerprint(m.n_cells(), m.n_nodes(), p.sum(m, m.n_cells()));
}

std::string mesh_fingerprint_of_parts(const HostMesh& part, index_t n_owned, std::int64_t n_nodes,
                                      const Communicator& comm) {
  FingerprintParts p;
  p.bound(part, n_owned);
  std::vector<double> lo(p.lo, p.lo + 3), hi(p.hi, p.hi + 3);
  comm.min(lo);
  comm.max(hi);
  for (int d = 0; d < 3; ++d) p.lo[d] = lo[d], p.hi[d] = hi[d];
  const std::uint64_t mine = p.sum(part, n_owned);
  std::uint64_t sum = mine;
  if (comm.size() > 1) MPI_Allreduce(&mine, &sum, 1, MPI_UINT64_T, MPI_SUM, comm.raw()); // wraps: mod 2^64
  return finish_fingerprint(comm.sum(std::int64_t(n_owned)), n_nodes, sum);
}

std::string mesh_fingerprint_sequential(const HostMesh& m) {
  // Word-wise mixing (multiply-xorshift), one word per value: a few ns per value.
  std::uint64_t h = 0x9e3779b97f4a7c15ULL;
  auto mix = [&h](std::int64_t v) {
    h = (h ^ static_cast<std::uint64_t>(v)) * 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 31;
  };
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
  for (index_t i = 0; i < m.n_nodes(); ++i)
    for (int d = 0; d < 3; ++d) {
      lo[d] = std::min(lo[d], m.x[3 * std::size_t(i) + d]);
      hi[d] = std::max(hi[d], m.x[3 * std::size_t(i) + d]);
    }
  double extent = 0;
  for (int d = 0; d < 3; ++d) extent = std::max(extent, hi[d] - lo[d]);
  const double scale = extent > 0 ? 1e9 / extent : 1.0;
  // Cells in global-id order: placed directly when the ids are 0..n-1 (generated meshes, and
  // renumbered Gmsh meshes), sorted otherwise.
  const index_t n = m.n_cells();
  std::vector<index_t> order(n, -1);
  bool direct = true;
  for (index_t c = 0; c < n && direct; ++c) {
    const gid_t g = m.cell_gid[c];
    if (g < 0 || g >= n || order[g] >= 0)
      direct = false;
    else
      order[g] = c;
  }
  if (!direct) {
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](index_t a, index_t b) { return m.cell_gid[a] < m.cell_gid[b]; });
  }
  mix(n);
  mix(m.n_nodes());
  for (index_t c : order) {
    mix(m.cell_gid[c]);
    mix(static_cast<std::int64_t>(m.cell_type[c]));
    for (index_t i = m.cell_node_off[c]; i < m.cell_node_off[c + 1]; ++i) {
      const index_t k = m.cell_nodes[i];
      mix(m.node_gid[k]);
      for (int d = 0; d < 3; ++d) mix(std::llround((m.x[3 * std::size_t(k) + d] - lo[d]) * scale));
    }
  }
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

namespace {

/// A fields file, or a checkpoint of another real type, cannot continue this build's state.
void check_kind(const FieldFile& f, const std::string& where) {
  if (f.kind != "checkpoint")
    throw InputError(where, "this is a fields file, not a checkpoint",
                     "restart from a checkpoint_<step>.h5 file (checkpoint.every, run.wall_limit, SIGTERM)");
  const char* real_name = sizeof(real) == 4 ? "float" : "double";
  if (f.real_type != real_name)
    throw InputError(where, "the checkpoint holds " + f.real_type + " values, this fvproxy computes in " + real_name,
                     "restart with a build of the same real type (FVPROXY_REAL)");
}

/// The columns the case's state has, by name (a vector's components as name[i], as read), and with
/// `slots` the non-reflecting faces' (checkpoint_field_layout).
std::vector<std::string> expected_columns(const CaseConfig& cfg, bool slots) {
  std::vector<std::string> expected;
  for (const FieldLayout& l : checkpoint_field_layout(cfg.physics, slots))
    for (int i = 0; i < l.width; ++i)
      expected.push_back(l.width == 1 ? l.name : l.name + "[" + std::to_string(i) + "]");
  return expected;
}

/// A scalar checkpoint cannot continue a flow case nor the reverse, nor one of another component count.
void check_physics(const FieldFile& f, const CaseConfig& cfg, int components, const std::string& where) {
  const bool scalar_file = !f.names.empty() && f.names[0] == "u0";
  if (scalar_file == cfg.physics.is_flow()) {
    std::string got;
    for (const auto& n : f.names) got += (got.empty() ? "" : ", ") + n;
    throw InputError(where, "the checkpoint holds the fields " + got +
                                ", not those of physics.model: " + to_string(cfg.physics.model));
  }
  if (components != cfg.physics.components)
    throw InputError(where, "the checkpoint holds " + std::to_string(components) + " components, the case has " +
                                std::to_string(cfg.physics.components) + " (physics.components)");
}

/// The attributes the restart's schedule is built from, and the fields' names: a damaged file is
/// refused here rather than continued.
void check_attributes(FieldFile& f, const std::vector<std::string>& expected, const std::string& where) {
  for (const char* k : {"dt", "total_steps"})
    if (!f.numbers.count(k)) throw InputError(where, std::string("the checkpoint has no '") + k + "' attribute");
  // What the restart's schedule is built from must make sense on its own too (files of format
  // version 1 carry no checksums).
  const double dt = f.numbers["dt"], total = f.numbers["total_steps"];
  auto bad = [&](const std::string& name, double v, const std::string& why) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    throw InputError(where, "root attribute '" + name + "' is " + buf + ": " + why, "the checkpoint is damaged");
  };
  if (!(std::isfinite(dt) && dt > 0)) bad("dt", dt, "not a positive time step");
  if (!(total >= 1 && total <= 9007199254740992.0 && total == std::floor(total)))
    bad("total_steps", total, "not a whole number of steps >= 1");
  if (double(f.step) > total)
    bad("step", double(f.step), "beyond the run's total_steps (" + std::to_string(static_cast<long long>(total)) + ")");
  for (std::size_t k = 0; k < f.names.size(); ++k)
    if (f.names[k] != expected[k])
      throw InputError(
          where, "the checkpoint's field " + std::to_string(k) + " is '" + f.names[k] + "', not '" + expected[k] + "'",
          "the checkpoint is damaged");
  if (f.numbers.count("components") && f.numbers["components"] != double(f.names.size()))
    bad("components", f.numbers["components"],
        "the checkpoint holds " + std::to_string(f.names.size()) + " components");
}

/// A checkpoint of another mesh would put its values on the wrong cells.
void check_mesh(FieldFile& f, const RestartCells& cells, const std::string& where) {
  if (!f.strings.count("mesh_fingerprint") || !f.vectors.count("conservation_initial"))
    throw InputError(where, "the checkpoint lacks its mesh fingerprint or conserved totals (damaged?)");
  if (f.rows_total != cells.global_cells)
    throw InputError(where, "the checkpoint is of another mesh: " + std::to_string(f.rows_total) +
                                " cells, the case's mesh has " + std::to_string(cells.global_cells));
  // Checkpoints of earlier versions hold the sequential fingerprint (accepted where it is known).
  if (f.strings["mesh_fingerprint"] != cells.fingerprint &&
      (cells.legacy_fingerprint.empty() || f.strings["mesh_fingerprint"] != cells.legacy_fingerprint))
    throw InputError(where, "the checkpoint is of another mesh (same cell count, different cells or nodes)",
                     "mesh fingerprint " + f.strings["mesh_fingerprint"] + " in the file, " + cells.fingerprint +
                         " for the case");
}

/// The restart point from the checkpoint's attributes; its state comes from the rows (RowExchange).
RestartPoint restart_point(FieldFile& f, const std::string& path, int components, const std::string& where) {
  RestartPoint r;
  r.file = path;
  r.step = f.step;
  r.time = f.time;
  r.dt = f.numbers["dt"];
  r.total_steps = static_cast<long long>(f.numbers["total_steps"]);
  r.conservation_initial = f.vectors["conservation_initial"];
  if (f.vectors.count("residual_reference")) r.residual_reference = f.vectors["residual_reference"];
  if (int(r.conservation_initial.size()) != components)
    throw InputError(where, "the checkpoint's conserved totals do not match its components (damaged?)");
  return r;
}

/// This rank's block of rows sent to the ranks that own their cells, through the directory of
/// global ids (global id g at rank directory_of(g, P)). The steps are collective, in this order.
struct RowExchange {
  FieldFile& f;
  const Communicator& comm;
  const std::string& where;
  const int P;
  const std::size_t block;
  std::vector<int> counts;
  std::vector<std::vector<std::int64_t>> out;
  std::vector<std::pair<gid_t, int>> directory;
  std::string error;
  std::vector<std::int64_t> got_gid; ///< the global ids of the rows that reached this rank
  std::vector<double> got;           ///< their values, `components` a row

  RowExchange(FieldFile& f, const Communicator& comm, const std::string& where)
      : f(f), comm(comm), where(where), P(comm.size()), block(f.cell_gid.size()), out(P) {}

  /// 1. The directory: who owns each global id (this rank's cells, sent to their directory rank).
  void build_directory(const std::vector<gid_t>& gid) {
    for (gid_t g : gid) out[directory_of(g, P)].push_back(g);
    const std::vector<std::int64_t> owned_here = exchange(comm, out, counts);
    directory.reserve(owned_here.size());
    for (int src = 0, i = 0; src < P; ++src)
      for (int k = 0; k < counts[src]; ++k) directory.emplace_back(owned_here[i++], src);
    std::sort(directory.begin(), directory.end());
    for (std::size_t i = 1; i < directory.size() && error.empty(); ++i)
      if (directory[i].first == directory[i - 1].first)
        error = "cell " + std::to_string(directory[i].first) + " (global id) is owned by ranks " +
                std::to_string(directory[i - 1].second) + " and " + std::to_string(directory[i].second);
    agree(comm, where, error);
  }

  /// 2. The owner of each row of this rank's block, asked of the directory.
  std::vector<int> owners_of_rows() {
    for (auto& o : out) o.clear();
    for (std::size_t i = 0; i < block; ++i) out[directory_of(f.cell_gid[i], P)].push_back(f.cell_gid[i]);
    const std::vector<std::int64_t> asked = exchange(comm, out, counts);
    std::vector<std::vector<int>> answers(P);
    for (int src = 0, i = 0; src < P; ++src)
      for (int k = 0; k < counts[src]; ++k, ++i) {
        const auto it = std::lower_bound(directory.begin(), directory.end(), std::make_pair(asked[i], -1));
        const bool found = it != directory.end() && it->first == asked[i];
        if (!found && error.empty())
          error = "the checkpoint has a cell of global id " + std::to_string(asked[i]) + " that the mesh lacks";
        answers[src].push_back(found ? it->second : -1);
      }
    agree(comm, where, error);
    return exchange(comm, answers, counts);
  }

  /// 3. Each row, its global id and its values, to its owner (into got_gid and got).
  void send_rows(int components, const std::vector<int>& owner_by_directory) {
    // Back in the order asked: per directory rank, this block's rows in row order.
    std::vector<int> next(P + 1, 0);
    for (int d = 0; d < P; ++d) next[d + 1] = next[d] + counts[d];
    std::vector<std::vector<std::int64_t>> gids(P);
    std::vector<std::vector<double>> values(P);
    for (std::size_t i = 0; i < block; ++i) {
      const int owner = owner_by_directory[next[directory_of(f.cell_gid[i], P)]++];
      gids[owner].push_back(f.cell_gid[i]);
      for (int k = 0; k < components; ++k) values[owner].push_back(f.values[k][i]);
    }
    f.values.clear();
    std::vector<std::vector<double>>().swap(f.values); // the block's values are in `values` now
    got_gid = exchange(comm, gids, counts);
    gids.clear();
    got = exchange(comm, values, counts);
  }

  /// The rows received into this rank's storage order, by global id: every owned cell exactly once.
  void fill_state(const RestartCells& cells, int components, RestartPoint& r) {
    std::vector<std::pair<gid_t, index_t>> mine(cells.gid.size());
    for (std::size_t c = 0; c < cells.gid.size(); ++c) mine[c] = {cells.gid[c], static_cast<index_t>(c)};
    std::sort(mine.begin(), mine.end());
    std::vector<char> filled(cells.gid.size(), 0);
    r.state.assign(components, std::vector<real>(cells.gid.size()));
    for (std::size_t i = 0; i < got_gid.size() && error.empty(); ++i) {
      const auto it = std::lower_bound(mine.begin(), mine.end(), std::make_pair(got_gid[i], index_t(0)));
      if (it == mine.end() || it->first != got_gid[i]) {
        error = "internal: cell " + std::to_string(got_gid[i]) + " (global id) reached a rank that does not own it";
        break;
      }
      if (filled[it->second]) {
        error = "the checkpoint holds cell " + std::to_string(got_gid[i]) + " (global id) twice (damaged?)";
        break;
      }
      filled[it->second] = 1;
      for (int k = 0; k < components; ++k)
        r.state[k][it->second] = static_cast<real>(got[i * std::size_t(components) + std::size_t(k)]);
    }
    for (std::size_t c = 0; c < cells.gid.size() && error.empty(); ++c)
      if (!filled[c]) error = "the checkpoint has no cell of global id " + std::to_string(cells.gid[c]);
    agree(comm, where, error);
  }
};

} // namespace

RestartPoint read_restart(const std::string& path, const CaseConfig& cfg, const RestartCells& cells,
                          const Communicator& comm, RestartRead* read) {
  FieldFile f = read_field_file_block(path, comm);
  const std::string where = "--restart " + path;
  check_kind(f, where);
  // The state's columns, then (a run with non-reflecting boundaries) its faces' slots: either
  // checkpoint continues either case (without the slots, the solver takes the faces' state from the
  // cells; a case without such boundaries ignores them).
  const int components = static_cast<int>(f.names.size());
  const bool slots = cfg.physics.is_flow() && components == cfg.physics.components + 2 * kBoundarySlots;
  const int state_components = slots ? cfg.physics.components : components;
  const std::vector<std::string> expected = expected_columns(cfg, slots);
  check_physics(f, cfg, state_components, where);
  check_attributes(f, expected, where);
  check_mesh(f, cells, where);
  RestartPoint r = restart_point(f, path, state_components, where);

  // Everything above is the same on every rank (the same attributes); from here each rank's rows
  // differ, and so may its errors: each step ends with an agreement.
  RowExchange rows(f, comm, where);
  rows.build_directory(cells.gid);
  const std::vector<int> owner_by_directory = rows.owners_of_rows();
  rows.send_rows(components, owner_by_directory);
  rows.fill_state(cells, components, r);
  if (read) {
    read->file_rows = f.rows_total;
    read->row_begin = f.row_begin;
    read->row_end = f.row_begin + static_cast<std::int64_t>(rows.block);
    read->rows_received = static_cast<std::int64_t>(rows.got_gid.size());
  }
  return r;
}

RestartPoint read_restart(const std::string& path, const CaseConfig& cfg, const HostMesh& mesh) {
  RestartCells cells;
  cells.gid = mesh.cell_gid;
  cells.global_cells = mesh.n_cells();
  cells.fingerprint = mesh_fingerprint(mesh);
  cells.legacy_fingerprint = mesh_fingerprint_sequential(mesh);
  return read_restart(path, cfg, cells, Communicator::self());
}

} // namespace fvproxy
