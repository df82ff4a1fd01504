#pragma once
// fvproxy's HDF5 files (layout, names and core datasets: docs/file-format.md#file-layout-format-version-2).
//
//   mesh.h5        the mesh once: /mesh/nodes (nodes, 3), /mesh/topology (XDMF mixed
//                  connectivity in storage order), /mesh/cell_types, /cells/global_id,
//                  /nodes/global_id, /patches/<name>/{topology, cell_global_id}
//   fields_*.h5    /cells/global_id, /fields/<FIELD> (cells,), root attributes time, step
//   checkpoint_*.h5  the same with every component and what a restart needs (dt, steps, the
//                  mesh fingerprint, the initial conserved totals)
//
// Every file carries root attributes format_version, kind and real, and /fvproxy/case_yaml,
// /fvproxy/variants, /fvproxy/build (fixed-length strings). Writes are collective over the ranks
// and atomic (io/hdf5_file.hpp); each rank passes its own cells.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "io/hdf5_file.hpp"
#include "mesh/host_mesh.hpp"

namespace fvproxy {

/// Version of the layout above; readers refuse files of a newer version. Version 2 adds the root
/// attribute `checksums` (a hash of every other root attribute), verified on reading; version 1
/// files are still read, unverified.
inline constexpr std::int64_t kOutputFormatVersion = 2;

/// Stored with every file.
struct FileMetadata {
  std::string case_yaml; ///< the resolved case (defaults filled in)
  std::string variants;  ///< JSON: what runs per operator
  std::string build;     ///< JSON: fvproxy info --json
};

/// The part of a mesh this rank writes (the whole mesh on one rank). Node numbers in the file
/// are the mesh's local node numbers: a rank holding the whole mesh may write any slice of it
/// (the collective writer's tests split the cells of one mesh over two ranks).
struct MeshSlice {
  index_t cell_begin = 0, cell_end = -1; ///< -1: to the end
  index_t node_begin = 0, node_end = -1;
  /// Boundary faces [face_begin, face_end) of every patch (the rank's share); -1: all.
  index_t face_begin = 0, face_end = -1;
  /// Further, each patch's faces divided into `parts` equal contiguous pieces: piece `part`.
  int part = 0, parts = 1;
};

/// XDMF mixed-topology cell code (tet 6, pyramid 7, wedge 8, hex 9) and node order (the wedge's
/// triangles run the other way round in XDMF/VTK than in Gmsh).
int xdmf_cell_code(CellType t);
/// Appends cell c's XDMF entry (code, then its nodes) to `out`.
void append_xdmf_cell(const HostMesh& m, index_t c, std::vector<std::int64_t>& out);

/// Appends a cell's XDMF entry (code, then the rows `row` gives its nodes, XDMF's node order).
void append_xdmf_nodes(CellType t, const index_t* nodes, const std::vector<index_t>& row,
                       std::vector<std::int64_t>& out);

/// Sizes an XDMF file needs to describe the mesh file.
struct MeshFileInfo {
  std::int64_t cells = 0, nodes = 0, topology_length = 0;
};

/// One rank's rows of each mesh.h5 dataset; the file holds every rank's rows after the lower ranks'.
/// Node rows are the nodes in ascending global id (topologies refer to them).
struct MeshFileRows {
  std::vector<double> x; ///< 3 per node
  std::vector<std::int64_t> node_gid, topology, cell_gid;
  std::vector<std::uint8_t> types;
  std::vector<std::string> patch_names; ///< every patch, on every rank, in patch order
  std::vector<std::vector<std::int64_t>> patch_topology, patch_owner;
};

/// Writes mesh.h5 from each rank's rows (collective, atomic). Returns the totals over the ranks.
MeshFileInfo write_mesh_rows(const std::string& path, const MeshFileRows& rows, const FileMetadata& meta,
                             const Communicator& comm = Communicator::world());

/// Writes mesh.h5 (collective, atomic). Returns the totals over the ranks.
MeshFileInfo write_mesh_file(const std::string& path, const HostMesh& m, const FileMetadata& meta,
                             const MeshSlice& slice = {}, const Communicator& comm = Communicator::world());

/// A fields or checkpoint file, as written (this rank's cells) or as read (all cells, or one
/// rank's block of rows).
struct FieldFile {
  std::string kind = "fields"; ///< fields | checkpoint
  double time = 0;
  std::int64_t step = 0;
  std::vector<gid_t> cell_gid;
  std::int64_t rows_total = 0; ///< as read: the file's cells (rows)
  std::int64_t row_begin = 0;  ///< as read: the first row of cell_gid and values
  /// As written: the datasets (u0, u1, ...; density, momentum, ...). As read: one column per
  /// component, a (cells, 3) dataset `v` read as the three columns v[0], v[1], v[2].
  std::vector<std::string> names;
  std::vector<int> widths;                 ///< as written, per name: 1, or 3 for a vector; empty: all 1
  std::vector<std::vector<double>> values; ///< as read (converted to double; exact for float)
  std::string real_type;                   ///< "double" | "float" as stored
  std::map<std::string, double> numbers;   ///< further root attributes (checkpoint: dt, ...)
  std::map<std::string, std::vector<double>> vectors;
  std::map<std::string, std::string> strings;
  FileMetadata meta;
};

/// Writes a fields or checkpoint file (collective, atomic): `columns[k]` points to this rank's
/// `n` values of field `names[k]` (n rows of widths[k] values, row-major), stored in the build's real type.
void write_field_file(const std::string& path, const FieldFile& header, index_t n, const gid_t* gid,
                      const std::vector<const real*>& columns, const Communicator& comm = Communicator::world());

/// Reads a fields or checkpoint file whole. InputError (naming the file and what is wrong) for a
/// missing, non-HDF5, damaged or foreign file, one of a newer format, or one whose root attributes
/// do not match their checksums (format version 2). `fields` (empty: all) selects which fields to
/// read (dataset names: `velocity` selects its three columns); a missing one is an InputError
/// listing those present, or with `skip_missing` left out.
FieldFile read_field_file(const std::string& path, const std::vector<std::string>& fields = {},
                          bool skip_missing = false);

/// The same checks, but each rank of `comm` reads only its block of the file's G rows, rows
/// [rank·G/P, (rank+1)·G/P) of /cells/global_id and of the fields (one collective hyperslab per
/// dataset, the writers' layout in reverse; `row_begin` and `rows_total` say which); collective.
/// A damaged block (a Fletcher-32 failure on some rank) is an InputError on every rank.
FieldFile read_field_file_block(const std::string& path, const Communicator& comm,
                                const std::vector<std::string>& fields = {});

} // namespace fvproxy
