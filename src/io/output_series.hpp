#pragma once
// The files of one run's output folder (docs/output.md): mesh.h5 once, fields_<step>.h5 per output
// time, <case>.xdmf describing the series (rewritten, atomically, after each fields file), and
// checkpoint_<step>.h5 (the newest checkpoint.keep kept). Checkpoints also hold what a restart
// needs (io/checkpoint.hpp reads them back).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "io/field_file.hpp"
#include "io/xdmf.hpp"
#include "mesh/host_mesh.hpp"
#include "mesh/local_mesh.hpp"
#include "parallel/communicator.hpp"
#include "solver/case_config.hpp"
#include "solver/simulation.hpp"

namespace fvproxy {

/// The first of the rows [start(r), start(r+1)) that part r of `parts` holds of n rows: n*r/parts.
index_t block_start(index_t n, int r, int parts);
/// This rank's rows of mesh.h5 from the ranks' parts of a mesh built in parts (no whole mesh):
/// owned cells' rows from local.global_cell, node rows from local.node_row (or the global ids),
/// boundary faces in the whole mesh's order; every node of the mesh must belong to a cell. The same rows, bitwise, as
/// write_mesh_file of the whole mesh with the cell blocks of OutputSeries. Collective.
MeshFileRows mesh_rows_of_parts(const LocalMesh& local, const Communicator& comm);
/// "fields_000012.h5" style names (6 digits, more when the step needs them).
std::string step_file_name(const std::string& prefix, long long step);
/// The files "<prefix>_<digits>.h5" of `dir` as (step, path), by step (none when `dir` is not a
/// readable folder).
std::vector<std::pair<long long, std::filesystem::path>> step_files(const std::string& dir, const std::string& prefix);

class OutputSeries {
public:
  /// `mesh` must outlive the series; `meta` is stored in every file.
  OutputSeries(const std::string& dir, const CaseConfig& cfg, const HostMesh& mesh, FileMetadata meta);
  /// A mesh built in parts (parallel/parts.hpp): no rank holds the whole mesh; `local` (which must
  /// outlive the series) is this rank's part, local.global_cell its owned cells' rows. The files are
  /// those of the whole mesh, byte for byte. Collective; no set_decomposition needed.
  OutputSeries(const std::string& dir, const CaseConfig& cfg, const LocalMesh& local, const Communicator& comm,
               FileMetadata meta);

  /// On N ranks (each holding the global `mesh` and computing its part of it): `global_of_owned`
  /// lists the global cell (row of `mesh`) of each of this rank's owned cells, in its storage order.
  /// The files then hold every cell once, in the global mesh's order, written collectively: rank r
  /// writes the rows [r*G/P, (r+1)*G/P) of each dataset, which MPI_Alltoallv brings to it from
  /// their owners (one message per pair of ranks and file). Collective.
  void set_decomposition(const Communicator& comm, std::vector<index_t> global_of_owned);
  /// The same with the owned cells' global ids given (the series' mesh is not the whole mesh).
  void set_decomposition(const Communicator& comm, std::vector<index_t> global_of_owned,
                         const std::vector<gid_t>& gid_of_owned, index_t n_global);
  /// Writes mesh.h5 (and an XDMF with the series so far).
  void write_mesh();
  /// After a restart from step `step`: the fields files already in the folder up to that step
  /// stay in the series (files after it are rewritten or dropped).
  void adopt_existing(long long step);
  /// fields_<step>.h5 with output.fields, then the XDMF; `u` holds the columns of
  /// output_field_layout (the scalar state; the flow models' derived fields). Returns the path.
  std::string write_fields(long long step, double time, ConstView2<real> u);
  /// checkpoint_<step>.h5 with the state (checkpoint_field_layout); removes the oldest beyond checkpoint.keep.
  std::string write_checkpoint(long long step, double time, ConstView2<real> u, const CheckpointInfo& info);

  std::string xdmf_path() const;
  std::string mesh_path() const;

private:
  /// The mesh's fingerprint (io/checkpoint.hpp), computed once; collective on a mesh in parts.
  const std::string& fingerprint();
  void write_xdmf() const;
  /// `header` (kind and extra attributes) completed with time, step, `names` and the metadata,
  /// written as <prefix>_<step>.h5 with the columns of `u` the names select (u<k>: column k).
  std::string write_step_file(FieldFile header, const std::string& prefix, long long step, double time,
                              ConstView2<real> u, const std::vector<std::string>& names,
                              const std::vector<FieldLayout>& layout) const;
  std::string dir_;
  const CaseConfig& cfg_;
  const HostMesh& mesh_;             ///< the whole mesh, or this rank's part when local_ is set
  const LocalMesh* local_ = nullptr; ///< built in parts
  FileMetadata meta_;
  MeshFileInfo mesh_info_;
  std::vector<FieldLayout> output_layout_;     ///< the fields over the columns write_fields receives
  std::vector<FieldLayout> checkpoint_layout_; ///< the fields over the state (checkpoints)
  std::vector<std::string> fields_;            ///< output.fields (fields files)
  std::vector<XdmfStep> steps_;
  std::string fingerprint_;              ///< of the mesh, computed at the first fields file or checkpoint
  std::optional<Communicator> comm_;     ///< set on a decomposed run
  index_t row_begin_ = 0, row_end_ = -1; ///< this rank's rows of every file (-1: all cells)
  // The redistribution of owned rows into file rows (decomposed runs):
  std::vector<index_t> send_rows_; ///< the owned row sent in each send slot, by destination rank
  std::vector<int> send_counts_, send_displs_, recv_counts_, recv_displs_;
  std::vector<index_t> recv_block_row_; ///< each received value's row in this rank's block
  std::vector<real> rank_of_row_;       ///< the `rank` field of this rank's block (the owner)
  std::vector<gid_t> block_gid_;        ///< the global id of each row of this rank's block
};

} // namespace fvproxy
