#include "io/checkpoint.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include <mpi.h>

#include "core/error.hpp"
#include "io/field_file.hpp"

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

RestartPoint read_restart(const std::string& path, const CaseConfig& cfg, const HostMesh& mesh) {
  FieldFile f = read_field_file(path);
  const std::string where = "--restart " + path;
  if (f.kind != "checkpoint")
    throw InputError(where, "this is a fields file, not a checkpoint",
                     "restart from a checkpoint_<step>.h5 file (checkpoint.every, run.wall_limit, SIGTERM)");
  const char* real_name = sizeof(real) == 4 ? "float" : "double";
  if (f.real_type != real_name)
    throw InputError(where, "the checkpoint holds " + f.real_type + " values, this fvproxy computes in " + real_name,
                     "restart with a build of the same real type (FVPROXY_REAL)");
  const int components = static_cast<int>(f.names.size());
  if (components != cfg.physics.components)
    throw InputError(where, "the checkpoint holds " + std::to_string(components) + " components, the case has " +
                                std::to_string(cfg.physics.components) + " (physics.components)");
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
    if (f.names[k] != "u" + std::to_string(k))
      throw InputError(where,
                       "the checkpoint's field " + std::to_string(k) + " is '" + f.names[k] + "', not 'u" +
                           std::to_string(k) + "'",
                       "the checkpoint is damaged");
  if (f.numbers.count("components") && f.numbers["components"] != double(f.names.size()))
    bad("components", f.numbers["components"],
        "the checkpoint holds " + std::to_string(f.names.size()) + " fields (u0, u1, ...)");
  if (!f.strings.count("mesh_fingerprint") || !f.vectors.count("conservation_initial"))
    throw InputError(where, "the checkpoint lacks its mesh fingerprint or conserved totals (damaged?)");
  if (f.cell_gid.size() != std::size_t(mesh.n_cells()))
    throw InputError(where, "the checkpoint is of another mesh: " + std::to_string(f.cell_gid.size()) +
                                " cells, the case's mesh has " + std::to_string(mesh.n_cells()));
  const std::string fp = mesh_fingerprint(mesh);
  // Checkpoints of earlier versions hold the sequential fingerprint (still accepted).
  if (f.strings["mesh_fingerprint"] != fp && f.strings["mesh_fingerprint"] != mesh_fingerprint_sequential(mesh))
    throw InputError(where, "the checkpoint is of another mesh (same cell count, different cells or nodes)",
                     "mesh fingerprint " + f.strings["mesh_fingerprint"] + " in the file, " + fp + " for the case");
  // Global id -> the file's row.
  std::vector<std::pair<gid_t, index_t>> file_rows(f.cell_gid.size());
  for (std::size_t i = 0; i < f.cell_gid.size(); ++i) file_rows[i] = {f.cell_gid[i], static_cast<index_t>(i)};
  std::sort(file_rows.begin(), file_rows.end());
  RestartPoint r;
  r.file = path;
  r.step = f.step;
  r.time = f.time;
  r.dt = f.numbers["dt"];
  r.total_steps = static_cast<long long>(f.numbers["total_steps"]);
  r.conservation_initial = f.vectors["conservation_initial"];
  if (int(r.conservation_initial.size()) != components)
    throw InputError(where, "the checkpoint's conserved totals do not match its components (damaged?)");
  r.state.assign(components, std::vector<real>(mesh.n_cells()));
  for (index_t c = 0; c < mesh.n_cells(); ++c) {
    const auto it = std::lower_bound(file_rows.begin(), file_rows.end(), std::make_pair(mesh.cell_gid[c], index_t(0)));
    if (it == file_rows.end() || it->first != mesh.cell_gid[c])
      throw InputError(where, "the checkpoint has no cell of global id " + std::to_string(mesh.cell_gid[c]));
    for (int k = 0; k < components; ++k) r.state[k][c] = static_cast<real>(f.values[k][it->second]);
  }
  (void)cfg;
  return r;
}

} // namespace fvproxy
