#include "io/field_file.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <sstream>
#include <type_traits>

#include "core/error.hpp"
#include "mesh/local_mesh.hpp"
#include "parallel/collectives.hpp"

namespace fvproxy {

namespace {

h5::Type real_h5_type() {
  return sizeof(real) == 4 ? h5::Type::f32 : h5::Type::f64;
}
const char* real_name() {
  return sizeof(real) == 4 ? "float" : "double";
}

// --- root attributes and their checksums -------------------------------------------------------
// HDF5 1.10's default format checksums no metadata, and Fletcher-32 covers datasets only: a flipped
// bit in `step` or `time` would read back as another number. Every root attribute is therefore
// listed, with the FNV-1a hash of its value as text, in the root attribute `checksums` (format
// version 2, docs/output.md): "name:hash name:hash ...", the value as text being "%.17g" for a
// float64, decimal for an int64, a list joined by ',' and a string as it is.

std::string text_of(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}
std::string text_of(std::int64_t v) {
  return std::to_string(v);
}
std::string text_of(const std::string& v) {
  return v;
}
std::string text_of(const std::vector<double>& v) {
  std::string s;
  for (double x : v) s += (s.empty() ? "" : ",") + text_of(x);
  return s;
}

/// FNV-1a, 64 bits, of "name=value", as 16 hex digits.
std::string attribute_hash(const std::string& name, const std::string& value) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : name + "=" + value) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, h);
  return buf;
}

constexpr const char* kChecksums = "checksums";

/// Writes root attributes and remembers their hashes; finish() writes the `checksums` attribute.
class CheckedAttributes {
public:
  explicit CheckedAttributes(h5::File& f) : f_(f) {}
  template <class T> void put(const std::string& name, const T& v) {
    f_.attribute("/", name, v);
    list_ += (list_.empty() ? "" : " ") + name + ":" + attribute_hash(name, text_of(v));
  }
  void finish() { f_.attribute("/", kChecksums, list_); }

private:
  h5::File& f_;
  std::string list_;
};

/// How each checksummed root attribute is stored (what the reader reads it as).
enum class AttributeType { i64, f64, f64_list, string };
AttributeType attribute_type(const std::string& name) {
  if (name == "format_version" || name == "step" || name == "cells" || name == "nodes") return AttributeType::i64;
  if (name == "time" || name == "dt" || name == "total_steps" || name == "components") return AttributeType::f64;
  if (name == "conservation_initial" || name == "residual_reference") return AttributeType::f64_list;
  return AttributeType::string;
}

/// Checks every attribute listed in `checksums` against its hash, and that `required` are listed.
/// InputError naming the file and the attribute.
void verify_checksums(const h5::File& f, const std::string& path, const std::vector<std::string>& required) {
  const std::string damaged = "the file is damaged (a changed bit?): use an intact copy";
  if (!f.has_attribute("/", kChecksums))
    throw InputError(path, "root attribute 'checksums' is missing: the root attributes cannot be verified",
                     "format version 2 files carry it; " + damaged);
  std::istringstream list(f.attribute_string("/", kChecksums));
  std::vector<std::string> listed;
  for (std::string entry; list >> entry;) {
    const std::size_t colon = entry.rfind(':');
    const std::string name = colon == std::string::npos ? entry : entry.substr(0, colon);
    const std::string hash = colon == std::string::npos ? std::string() : entry.substr(colon + 1);
    if (name.empty() || name == kChecksums || !f.has_attribute("/", name))
      throw InputError(path, "root attribute 'checksums' names no attribute of the file: '" + entry + "'", damaged);
    std::string text;
    switch (attribute_type(name)) {
    case AttributeType::i64: text = text_of(f.attribute_int("/", name)); break;
    case AttributeType::f64: text = text_of(f.attribute_double("/", name)); break;
    case AttributeType::f64_list: text = text_of(f.attribute_doubles("/", name)); break;
    case AttributeType::string: text = f.attribute_string("/", name); break;
    }
    if (hash != attribute_hash(name, text))
      throw InputError(path,
                       "root attribute '" + name + "' (= " + (text.size() > 60 ? text.substr(0, 60) + "..." : text) +
                           ") does not match its checksum",
                       damaged);
    listed.push_back(name);
  }
  for (const std::string& name : required)
    if (std::find(listed.begin(), listed.end(), name) == listed.end())
      throw InputError(path, "root attribute '" + name + "' is not covered by the checksums", damaged);
}

CheckedAttributes write_header(h5::File& f, const std::string& kind, const FileMetadata& meta) {
  CheckedAttributes a(f);
  a.put("format_version", kOutputFormatVersion);
  a.put("kind", kind);
  a.put("real", std::string(real_name()));
  f.write_string("/fvproxy/case_yaml", meta.case_yaml);
  f.write_string("/fvproxy/variants", meta.variants);
  f.write_string("/fvproxy/build", meta.build);
  return a;
}

index_t end_or(index_t e, index_t n) {
  return e < 0 ? n : std::min(e, n);
}

} // namespace

int xdmf_cell_code(CellType t) {
  switch (t) {
  case CellType::tet: return 6;
  case CellType::pyramid: return 7;
  case CellType::prism: return 8;
  case CellType::hex: return 9;
  }
  return 0;
}

void append_xdmf_cell(const HostMesh& m, index_t c, std::vector<std::int64_t>& out) {
  const CellType t = m.cell_type[c];
  out.push_back(xdmf_cell_code(t));
  const index_t* n = m.cell_nodes.data() + m.cell_node_off[c];
  if (t == CellType::prism) {
    // Gmsh: (0,1,2) points into the prism; VTK/XDMF wedge: (0,1,2) points out of it.
    static constexpr int order[6] = {0, 2, 1, 3, 5, 4};
    for (int i : order) out.push_back(n[i]);
  } else {
    for (int i = 0; i < element_info(t).n_nodes; ++i) out.push_back(n[i]);
  }
}

void append_xdmf_nodes(CellType t, const index_t* n, const std::vector<index_t>& row, std::vector<std::int64_t>& out) {
  out.push_back(xdmf_cell_code(t));
  if (t == CellType::prism) {
    static constexpr int order[6] = {0, 2, 1, 3, 5, 4};
    for (int i : order) out.push_back(row[n[i]]);
  } else {
    for (int i = 0; i < element_info(t).n_nodes; ++i) out.push_back(row[n[i]]);
  }
}

MeshFileInfo write_mesh_file(const std::string& path, const HostMesh& m, const FileMetadata& meta, const MeshSlice& s,
                             const Communicator& comm) {
  const index_t c0 = s.cell_begin, c1 = end_or(s.cell_end, m.n_cells());
  const index_t n0 = s.node_begin, n1 = end_or(s.node_end, m.n_nodes());
  const std::vector<index_t> row = node_file_rows(m);
  std::vector<index_t> node_at(m.n_nodes()); // row -> node
  for (index_t v = 0; v < m.n_nodes(); ++v) node_at[row[v]] = v;
  MeshFileRows r;
  for (index_t c = c0; c < c1; ++c) {
    append_xdmf_nodes(m.cell_type[c], m.cell_nodes.data() + m.cell_node_off[c], row, r.topology);
    r.types.push_back(static_cast<std::uint8_t>(m.cell_type[c]));
    r.cell_gid.push_back(m.cell_gid[c]);
  }
  for (index_t k = n0; k < n1; ++k) {
    const index_t v = node_at[k];
    r.x.insert(r.x.end(), m.x.begin() + 3 * std::size_t(v), m.x.begin() + 3 * std::size_t(v) + 3);
    r.node_gid.push_back(m.node_gid[v]);
  }
  for (const Patch& p : m.patches) {
    r.patch_names.push_back(p.name);
    r.patch_topology.emplace_back();
    r.patch_owner.emplace_back();
    const index_t n = p.end - p.begin;
    const index_t piece0 = p.begin + index_t(std::int64_t(n) * s.part / s.parts);
    const index_t piece1 = p.begin + index_t(std::int64_t(n) * (s.part + 1) / s.parts);
    const index_t f0 = std::max(piece0, p.begin + s.face_begin);
    const index_t f1 = std::min(piece1, s.face_end < 0 ? p.end : p.begin + s.face_end);
    for (index_t fc = f0; fc < f1; ++fc) {
      const index_t nn = m.face_node_off[fc + 1] - m.face_node_off[fc];
      r.patch_topology.back().push_back(nn == 3 ? 4 : 5); // XDMF triangle / quadrilateral
      for (index_t i = m.face_node_off[fc]; i < m.face_node_off[fc + 1]; ++i)
        r.patch_topology.back().push_back(row[m.face_nodes[i]]);
      r.patch_owner.back().push_back(m.cell_gid[m.face_owner[fc]]);
    }
  }
  return write_mesh_rows(path, r, meta, comm);
}

MeshFileInfo write_mesh_rows(const std::string& path, const MeshFileRows& r, const FileMetadata& meta,
                             const Communicator& comm) {
  MeshFileInfo info;
  try {
    h5::AtomicFile af(path, comm);
    h5::File& f = af.file();
    CheckedAttributes attrs = write_header(f, "mesh", meta);
    f.write("/mesh/nodes", r.x, 3);
    f.write("/mesh/topology", r.topology);
    f.write("/mesh/cell_types", r.types);
    f.write("/cells/global_id", r.cell_gid);
    f.write("/nodes/global_id", r.node_gid);
    for (std::size_t p = 0; p < r.patch_names.size(); ++p) {
      f.write("/patches/" + r.patch_names[p] + "/topology", r.patch_topology[p]);
      f.write("/patches/" + r.patch_names[p] + "/cell_global_id", r.patch_owner[p]);
    }
    info.cells = f.shape("/cells/global_id")[0];
    info.nodes = f.shape("/nodes/global_id")[0];
    info.topology_length = f.shape("/mesh/topology")[0];
    attrs.put("cells", info.cells);
    attrs.put("nodes", info.nodes);
    attrs.finish();
    af.commit();
  } catch (const h5::H5Failure& e) {
    throw RunError("error: writing the mesh file " + path + " failed\n" + e.what());
  }
  return info;
}

void write_field_file(const std::string& path, const FieldFile& h, index_t n, const gid_t* gid,
                      const std::vector<const real*>& columns, const Communicator& comm) {
  try {
    h5::AtomicFile af(path, comm);
    h5::File& f = af.file();
    CheckedAttributes attrs = write_header(f, h.kind, h.meta);
    attrs.put("time", h.time);
    attrs.put("step", h.step);
    for (const auto& [k, v] : h.numbers) attrs.put(k, v);
    for (const auto& [k, v] : h.vectors) attrs.put(k, v);
    for (const auto& [k, v] : h.strings) attrs.put(k, v);
    attrs.finish();
    f.write("/cells/global_id", h5::Type::i64, gid, n);
    for (std::size_t k = 0; k < columns.size(); ++k)
      f.write("/fields/" + h.names[k], real_h5_type(), columns[k], n, k < h.widths.size() ? h.widths[k] : 1);
    af.commit();
  } catch (const h5::H5Failure& e) {
    throw RunError("error: writing " + h.kind + " file " + path + " failed\n" + e.what());
  }
}

namespace {

/// The lowest failing rank's message, as an InputError about `path` on every rank, when `error` is
/// not empty on any rank (one reduction; nothing on one rank but the throw).
void agree_on_read(const Communicator& comm, const std::string& path, const std::string& error) {
  if (const FirstMessage first = first_message(comm, error))
    throw InputError(path, "cannot read this HDF5 file (damaged, truncated or not written by fvproxy)", first.text);
}

/// One file's reading, into `r`: every row (`comm` null), or this rank's block of rows over `comm`.
/// The HDF5 calls run in the same order on every rank (collective where `comm` is given).
struct FieldReader {
  const h5::File& f;
  const std::string& path;
  const Communicator* comm;
  FieldFile& r;
  std::int64_t rows = 0; ///< the rows this rank reads

  /// What the file is: InputError for a file fvproxy did not write, one of a newer format, or one
  /// whose root attributes do not match their checksums.
  void check_format() {
    if (!f.has_attribute("/", "format_version") || !f.exists("/cells/global_id"))
      throw InputError(path, "not an fvproxy fields or checkpoint file",
                       "it has no format_version attribute or no /cells/global_id dataset");
    const std::int64_t version = f.attribute_int("/", "format_version");
    if (version > kOutputFormatVersion)
      throw InputError(path, "written in output format version " + std::to_string(version),
                       "this fvproxy reads versions up to " + std::to_string(kOutputFormatVersion) +
                           ": use a newer fvproxy");
    if (version < 1)
      throw InputError(path, "root attribute 'format_version' is " + std::to_string(version) + ", not a version",
                       "fvproxy's versions start at 1 (damaged file?)");
    r.kind = f.attribute_string("/", "kind");
    if (r.kind != "fields" && r.kind != "checkpoint")
      throw InputError(path, "this is an fvproxy " + r.kind + " file, not a fields or checkpoint file");
    // Version 1 files (before the checksums) are read unverified.
    if (version >= 2) {
      std::vector<std::string> required{"format_version", "kind", "real", "time", "step"};
      if (r.kind == "checkpoint")
        required.insert(required.end(),
                        {"dt", "total_steps", "components", "conservation_initial", "mesh_fingerprint", "case"});
      verify_checksums(f, path, required);
    }
  }

  /// The step's time and number, and the real type its values were stored in.
  void read_step() {
    r.time = f.attribute_double("/", "time");
    r.step = f.attribute_int("/", "step");
    if (!std::isfinite(r.time))
      throw InputError(path, "root attribute 'time' is " + text_of(r.time) + ", not a finite number");
    if (r.step < 0) throw InputError(path, "root attribute 'step' is " + std::to_string(r.step) + ", negative");
    r.real_type = f.attribute_string("/", "real");
  }

  /// Whole: every row. By block: rows [rank·G/P, (rank+1)·G/P) of the G rows, P ranks, as the
  /// writers lay out their blocks (docs/decomposition.md#output-files).
  void locate_rows() {
    const auto gid_shape = f.shape("/cells/global_id");
    if (gid_shape.size() != 1) throw InputError(path, "/cells/global_id is not a list of cells");
    r.rows_total = gid_shape[0];
    const int part = comm ? comm->rank() : 0, parts = comm ? comm->size() : 1;
    r.row_begin = r.rows_total * part / parts;
    rows = r.rows_total * (part + 1) / parts - r.row_begin;
  }

  /// A block read fails on the ranks whose rows are damaged (Fletcher-32 per chunk): every rank
  /// learns it before its next collective read.
  template <class Out> void read_block(const std::string& name, Out& out) const {
    if (!comm) {
      out = f.read<typename std::decay_t<decltype(out)>::value_type>(name);
      return;
    }
    std::string error;
    try {
      out = f.read_rows<typename std::decay_t<decltype(out)>::value_type>(name, r.row_begin, rows);
    } catch (const h5::H5Failure& e) {
      error = e.what();
    }
    agree_on_read(*comm, path, error);
  }

  /// The fields to read (`fields`, empty: all of `present`), without the missing ones where
  /// `skip_missing` says so.
  static std::vector<std::string> datasets_to_read(const std::vector<std::string>& present,
                                                   const std::vector<std::string>& fields, bool skip_missing) {
    std::vector<std::string> datasets = fields.empty() ? present : fields;
    if (skip_missing)
      datasets.erase(std::remove_if(datasets.begin(), datasets.end(),
                                    [&](const std::string& n) {
                                      return std::find(present.begin(), present.end(), n) == present.end();
                                    }),
                     datasets.end());
    return datasets;
  }

  /// Field `name` (one of `present`, else an InputError listing them): a scalar as one column, a
  /// vector as one column per component.
  void read_field(const std::string& name, const std::vector<std::string>& present) {
    if (std::find(present.begin(), present.end(), name) == present.end()) {
      std::string list;
      for (const auto& p : present) list += (list.empty() ? "" : ", ") + p;
      throw InputError(path, "no field '" + name + "'", "fields in the file: " + (list.empty() ? "none" : list));
    }
    const auto shape = f.shape("/fields/" + name);
    if (shape.empty() || shape.size() > 2 || shape[0] != r.rows_total)
      throw InputError(path, "field " + name + " has " + std::to_string(shape.empty() ? 0 : shape[0]) +
                                 (shape.size() == 1 ? "" : " rows of") + " values for " + std::to_string(r.rows_total) +
                                 " cells");
    const std::int64_t width = shape.size() == 2 ? shape[1] : 1;
    if (width < 1 || width > 3)
      throw InputError(path, "field " + name + " has " + std::to_string(width) + " columns",
                       "fvproxy writes scalars (cells,) and vectors (cells, 3)");
    std::vector<double> v;
    read_block("/fields/" + name, v);
    if (shape.size() == 1) {
      r.names.push_back(name);
      r.values.push_back(std::move(v));
      return;
    }
    // a vector: one column per component, name[i]
    const std::size_t n = v.size() / std::size_t(width);
    for (std::int64_t i = 0; i < width; ++i) {
      r.names.push_back(name + "[" + std::to_string(i) + "]");
      std::vector<double> col(n);
      for (std::size_t c = 0; c < n; ++c) col[c] = v[c * std::size_t(width) + std::size_t(i)];
      r.values.push_back(std::move(col));
    }
  }

  /// The further root attributes (a checkpoint's) and the metadata, where present.
  void read_attributes() {
    for (const char* k : {"dt", "total_steps", "components"})
      if (f.has_attribute("/", k)) r.numbers[k] = f.attribute_double("/", k);
    for (const char* k : {"conservation_initial", "residual_reference"})
      if (f.has_attribute("/", k)) r.vectors[k] = f.attribute_doubles("/", k);
    for (const char* k : {"mesh_fingerprint", "case"})
      if (f.has_attribute("/", k)) r.strings[k] = f.attribute_string("/", k);
    if (f.exists("/fvproxy/case_yaml")) r.meta.case_yaml = f.read_string("/fvproxy/case_yaml");
    if (f.exists("/fvproxy/variants")) r.meta.variants = f.read_string("/fvproxy/variants");
    if (f.exists("/fvproxy/build")) r.meta.build = f.read_string("/fvproxy/build");
  }
};

/// read_field_file() whole (`comm` null), or this rank's block of rows over `comm`.
FieldFile read_fields(const std::string& path, const std::vector<std::string>& fields, bool skip_missing,
                      const Communicator* comm) {
  FieldFile r;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(path, "no such file");
  try {
    const h5::File f = comm ? h5::File::open(path, *comm) : h5::File::open(path);
    FieldReader in{f, path, comm, r};
    in.check_format();
    in.read_step();
    in.locate_rows();
    in.read_block("/cells/global_id", r.cell_gid);
    const std::vector<std::string> present = f.members("/fields");
    const std::vector<std::string> datasets = FieldReader::datasets_to_read(present, fields, skip_missing);
    for (const std::string& name : datasets) in.read_field(name, present);
    in.read_attributes();
  } catch (const h5::H5Failure& e) {
    const std::string w = e.what();
    throw InputError(path, "cannot read this HDF5 file (damaged, truncated or not written by fvproxy)", w);
  }
  return r;
}

} // namespace

FieldFile read_field_file(const std::string& path, const std::vector<std::string>& fields, bool skip_missing) {
  return read_fields(path, fields, skip_missing, nullptr);
}

FieldFile read_field_file_block(const std::string& path, const Communicator& comm,
                                const std::vector<std::string>& fields) {
  return read_fields(path, fields, false, &comm);
}

} // namespace fvproxy
