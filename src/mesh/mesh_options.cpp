// The `mesh` section: a generated box or a Gmsh file, its numbering and its partition
// (docs/inputs.md#mesh).
#include "mesh/mesh_options.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "core/config_reader.hpp"

namespace fvproxy {

namespace fs = std::filesystem;
using detail::Reader;

const char* to_string(ElementKind e) {
  switch (e) {
  case ElementKind::hex: return "hex";
  case ElementKind::tet: return "tet";
  case ElementKind::prism: return "prism";
  }
  return "?";
}
const char* to_string(Ordering o) {
  switch (o) {
  case Ordering::none: return "none";
  case Ordering::zorder: return "zorder";
  case Ordering::hilbert: return "hilbert";
  case Ordering::rcm: return "rcm";
  case Ordering::random: return "random";
  }
  return "?";
}
const std::vector<Ordering>& all_orderings() {
  static const std::vector<Ordering> all{Ordering::none, Ordering::zorder, Ordering::hilbert, Ordering::rcm,
                                         Ordering::random};
  return all;
}
const char* to_string(PartitionMethod m) {
  switch (m) {
  case PartitionMethod::metis: return "metis";
  case PartitionMethod::hilbert: return "hilbert";
  case PartitionMethod::zorder: return "zorder";
  case PartitionMethod::blocks: return "blocks";
  case PartitionMethod::ptscotch: return "ptscotch";
  }
  return "?";
}
const std::vector<PartitionMethod>& all_partition_methods() {
  static const std::vector<PartitionMethod> all{PartitionMethod::metis, PartitionMethod::hilbert,
                                                PartitionMethod::zorder, PartitionMethod::blocks,
                                                PartitionMethod::ptscotch};
  return all;
}

namespace {

BoxConfig parse_generate(const Reader& r, const YAML::Node& g, const std::string& path) {
  r.check_keys(g, path, {"shape", "cells", "element", "lengths", "origin", "perturb", "periodic", "seed"});
  BoxConfig b;
  if (g["shape"]) {
    const std::string shape = r.string_value(g["shape"], path + ".shape");
    if (shape != "box") r.fail(g["shape"], path + ".shape", "invalid value '" + shape + "'", "valid values: box");
  }
  const YAML::Node cells = g["cells"];
  if (!cells) r.fail(g, path + ".cells", "required key missing", "give the cell counts, e.g. cells: [16, 16, 16]");
  if (!cells.IsSequence() || cells.size() != 3)
    r.fail(cells, path + ".cells", "expected a list of 3 integers [nx, ny, nz]", "got " + Reader::describe(cells));
  for (std::size_t i = 0; i < 3; ++i) {
    const std::string p = path + ".cells[" + std::to_string(i) + "]";
    const long long v = r.int_value(cells[i], p);
    if (v < 1 || v > (1 << 20))
      r.fail(cells[i], p, "value " + std::to_string(v) + " out of range: must be 1 to 1048576");
    b.cells[i] = static_cast<int>(v);
  }
  if (g["element"])
    b.element = r.enum_value(g["element"], path + ".element",
                             std::vector<ElementKind>{ElementKind::hex, ElementKind::tet, ElementKind::prism});
  const double per_hex = box_cells_per_hex(b);
  // Cell rows and node ids of the whole box are 32-bit (index_t); what one rank holds is checked
  // against the local limits with the rank count (app/memory_check.cpp).
  const double total = per_hex * double(b.cells[0]) * b.cells[1] * b.cells[2];
  const double nodes = double(b.cells[0] + 1) * (b.cells[1] + 1) * (b.cells[2] + 1);
  if (std::max(total, nodes) > double(std::numeric_limits<std::int32_t>::max()))
    r.fail(cells, path + ".cells", "too many cells for 32-bit local indices",
           "(" + std::to_string(static_cast<long long>(total)) + " cells, " +
               std::to_string(static_cast<long long>(nodes)) + " nodes; at most 2147483647 of each in the whole box)");
  if (g["lengths"]) {
    b.lengths = r.vec3(g["lengths"], path + ".lengths");
    for (std::size_t i = 0; i < 3; ++i)
      if (!(b.lengths[i] > 0)) r.fail(g["lengths"][i], path + ".lengths[" + std::to_string(i) + "]", "must be > 0");
  }
  if (g["origin"]) b.origin = r.vec3(g["origin"], path + ".origin");
  if (g["perturb"]) {
    b.perturb = r.real_value(g["perturb"], path + ".perturb");
    r.range(g["perturb"], path + ".perturb", b.perturb, 0.0, 0.3,
            "0 <= perturb <= 0.3 (fraction of the local spacing)");
  }
  if (g["periodic"]) {
    const YAML::Node p = g["periodic"];
    if (!p.IsSequence())
      r.fail(p, path + ".periodic", "expected a list of axes, a subset of [x, y, z]", "got " + Reader::describe(p));
    for (std::size_t i = 0; i < p.size(); ++i) {
      const std::string pp = path + ".periodic[" + std::to_string(i) + "]";
      const std::string axis = r.string_value(p[i], pp);
      const int a = axis == "x" ? 0 : axis == "y" ? 1 : axis == "z" ? 2 : -1;
      if (a < 0) r.fail(p[i], pp, "invalid axis '" + axis + "'", "valid axes: x, y, z");
      if (b.periodic[a]) r.fail(p[i], pp, "axis '" + axis + "' listed twice");
      b.periodic[a] = true;
      if (b.cells[a] < 3)
        r.fail(p[i], pp, "a periodic axis needs at least 3 cells",
               "(with 1 a cell is its own periodic neighbour, with 2 the faces of the two layers have the same "
               "nodes); " +
                   r.given_at(cells[a], path + ".cells[" + std::to_string(a) + "]", std::to_string(b.cells[a])));
    }
  }
  if (g["seed"]) {
    const long long s = r.int_value(g["seed"], path + ".seed");
    if (s < 0) r.fail(g["seed"], path + ".seed", "must be >= 0");
    b.seed = static_cast<std::uint64_t>(s);
  }
  return b;
}

} // namespace

MeshConfig read_mesh_options(const Reader& r, const YAML::Node& root) {
  const YAML::Node m = root["mesh"];
  if (!m)
    r.fail(root, "mesh", "required section missing", "give mesh.generate (a box) or mesh.file (a Gmsh .msh file)");
  r.check_keys(m, "mesh", {"generate", "file", "reorder", "reorder_seed", "partition"});
  MeshConfig mc;
  const bool has_gen = bool(m["generate"]), has_file = bool(m["file"]);
  if (has_gen == has_file)
    r.fail(m, "mesh",
           has_gen ? "give exactly one of 'generate' and 'file', not both" : "one of 'generate' or 'file' is required");
  if (has_gen) {
    mc.generate = parse_generate(r, m["generate"], "mesh.generate");
  } else {
    mc.file_as_written = r.string_value(m["file"], "mesh.file");
    if (mc.file_as_written.empty()) r.fail(m["file"], "mesh.file", "empty path");
    const fs::path p(mc.file_as_written);
    mc.file = p.is_absolute() ? p.string() : (fs::path(r.src().base_dir()) / p).lexically_normal().string();
    if (fs::is_directory(mc.file))
      r.fail(m["file"], "mesh.file", "'" + mc.file_as_written + "' is a folder, not a mesh file",
             "(resolved relative to the case file's folder: " + mc.file + ")");
    if (!fs::is_regular_file(mc.file))
      r.fail(m["file"], "mesh.file", "mesh file '" + mc.file_as_written + "' not found",
             "(resolved relative to the case file's folder: " + mc.file + ")");
  }
  if (m["reorder"]) mc.reorder = r.enum_value(m["reorder"], "mesh.reorder", all_orderings());
  if (m["reorder_seed"]) {
    const long long s = r.int_value(m["reorder_seed"], "mesh.reorder_seed");
    if (s < 0) r.fail(m["reorder_seed"], "mesh.reorder_seed", "must be >= 0");
    mc.reorder_seed = static_cast<std::uint64_t>(s);
  }
  mc.partition_where = r.src().locate(m["partition"], "mesh.partition");
  // A generated box is built in parts and partitioned by the ranks together (no rank holds the
  // whole mesh: docs/decomposition.md#built-in-parts); a mesh file goes through rank 0 and METIS.
  if (mc.generate) mc.partition = PartitionMethod::ptscotch;
  if (m["partition"]) {
    mc.partition = r.enum_value(m["partition"], "mesh.partition", all_partition_methods());
    if (mc.partition == PartitionMethod::blocks && !mc.generate)
      r.fail(m["partition"], "mesh.partition",
             "'blocks' divides a generated box into px x py x pz boxes; this mesh is read from a file",
             "use metis, hilbert or zorder for a mesh read from a file");
  }
  return mc;
}

YAML::Node mesh_options_yaml(const MeshConfig& mesh) {
  YAML::Node m;
  if (mesh.generate) {
    const BoxConfig& b = *mesh.generate;
    YAML::Node g;
    g["shape"] = "box";
    g["cells"] = std::vector<int>(b.cells.begin(), b.cells.end());
    g["cells"].SetStyle(YAML::EmitterStyle::Flow);
    g["element"] = to_string(b.element);
    g["lengths"] = std::vector<double>(b.lengths.begin(), b.lengths.end());
    g["lengths"].SetStyle(YAML::EmitterStyle::Flow);
    g["origin"] = std::vector<double>(b.origin.begin(), b.origin.end());
    g["origin"].SetStyle(YAML::EmitterStyle::Flow);
    g["perturb"] = b.perturb;
    std::vector<std::string> per;
    for (int a = 0; a < 3; ++a)
      if (b.periodic[a]) per.emplace_back(std::string(1, char('x' + a)));
    g["periodic"] = per;
    g["periodic"].SetStyle(YAML::EmitterStyle::Flow);
    g["seed"] = b.seed;
    m["generate"] = g;
  } else {
    m["file"] = mesh.file;
  }
  m["reorder"] = to_string(mesh.reorder);
  m["reorder_seed"] = mesh.reorder_seed;
  m["partition"] = to_string(mesh.partition);
  return m;
}

} // namespace fvproxy
