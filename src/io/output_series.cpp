#include "io/output_series.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "core/error.hpp"
#include "io/checkpoint.hpp"
#include "io/field_file.hpp"
#include "io/output_file.hpp"

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

std::string step_file_name(const std::string& prefix, long long step) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "_%06lld.h5", step);
  return prefix + buf;
}

OutputSeries::OutputSeries(const std::string& dir, const CaseConfig& cfg, const HostMesh& mesh, FileMetadata meta)
    : dir_(dir), cfg_(cfg), mesh_(mesh), meta_(std::move(meta)) {
  for (int k = 0; k < cfg.physics.components; ++k) all_fields_.push_back("u" + std::to_string(k));
  fields_ = cfg.output.fields.empty() ? all_fields_ : cfg.output.fields;
}

std::string OutputSeries::xdmf_path() const {
  return (fs::path(dir_) / (cfg_.name + ".xdmf")).string();
}
std::string OutputSeries::mesh_path() const {
  return (fs::path(dir_) / "mesh.h5").string();
}

void OutputSeries::write_mesh() {
  // Decomposed: rank 0 writes the global mesh, the others no part of it (the file of one rank).
  MeshSlice slice;
  if (comm_ && comm_->rank() != 0) slice = MeshSlice{0, 0, 0, 0, 0, 0};
  mesh_info_ = write_mesh_file(mesh_path(), mesh_, meta_, slice);
  write_xdmf();
}

void OutputSeries::write_xdmf() const {
  if (h5::rank() != 0) return;
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
      if (f.shape("/cells/global_id")[0] != mesh_info_.cells) continue; // another mesh's output
      steps_.push_back(x);
    } catch (const h5::H5Failure&) {
      continue; // not ours or damaged: left out of the series
    }
  }
  write_xdmf();
}

void OutputSeries::set_decomposition(const Communicator& comm, std::vector<index_t> global_of_owned) {
  comm_ = comm;
  global_of_owned_ = std::move(global_of_owned);
  const int n = static_cast<int>(global_of_owned_.size()), P = comm.size();
  counts_.assign(P, 0);
  MPI_Gather(&n, 1, MPI_INT, counts_.data(), 1, MPI_INT, 0, comm.raw());
  displs_.assign(P, 0);
  for (int r = 1; r < P; ++r) displs_[r] = displs_[r - 1] + counts_[r - 1];
  if (comm.rank() == 0) gathered_.resize(std::size_t(displs_.back() + counts_.back()));
  MPI_Gatherv(global_of_owned_.data(), n, MPI_INT32_T, gathered_.data(), counts_.data(), displs_.data(), MPI_INT32_T, 0,
              comm.raw());
  if (comm.rank() == 0 && gathered_.size() != std::size_t(mesh_.n_cells()))
    throw RunError("error: the ranks own " + std::to_string(gathered_.size()) + " cells of " +
                   std::to_string(mesh_.n_cells()));
}

std::string OutputSeries::write_step_file(FieldFile header, const std::string& prefix, long long step, double time,
                                          ConstView2<real> u, const std::vector<std::string>& names) const {
  const HostState h = to_host(u);
  header.time = time;
  header.step = step;
  header.names = names;
  header.meta = meta_;
  const std::string path = (fs::path(dir_) / step_file_name(prefix, step)).string();
  if (!comm_) {
    std::vector<const real*> cols;
    for (const auto& name : names) cols.push_back(&h(0, std::stoi(name.substr(1)))); // u<k>: column k
    write_field_file(path, header, mesh_.n_cells(), mesh_.cell_gid.data(), cols);
    return path;
  }
  // Decomposed: each selected column's owned rows to rank 0, placed at their global rows; rank 0
  // writes the whole file in the global mesh's order, the others take part with no rows.
  const bool root = comm_->rank() == 0;
  const int n_owned = static_cast<int>(global_of_owned_.size());
  std::vector<std::vector<real>> global(names.size());
  std::vector<real> mine(static_cast<std::size_t>(n_owned));
  std::vector<real> all(root ? gathered_.size() : 0);
  for (std::size_t j = 0; j < names.size(); ++j) {
    const int k = std::stoi(names[j].substr(1));
    for (int c = 0; c < n_owned; ++c) mine[c] = h(c, k);
    MPI_Gatherv(mine.data(), n_owned, mpi_real(), all.data(), counts_.data(), displs_.data(), mpi_real(), 0,
                comm_->raw());
    if (root) {
      global[j].resize(gathered_.size());
      for (std::size_t i = 0; i < gathered_.size(); ++i) global[j][gathered_[i]] = all[i];
    }
  }
  std::vector<const real*> cols;
  for (const auto& g : global) cols.push_back(g.data());
  write_field_file(path, header, root ? mesh_.n_cells() : 0, mesh_.cell_gid.data(), cols);
  return path;
}

std::string OutputSeries::write_fields(long long step, double time, ConstView2<real> u) {
  FieldFile header;
  header.kind = "fields";
  const std::string path = write_step_file(header, "fields", step, time, u, fields_);
  steps_.erase(std::remove_if(steps_.begin(), steps_.end(), [&](const XdmfStep& s) { return s.step >= step; }),
               steps_.end());
  steps_.push_back({fs::path(path).filename().string(), time, step, fields_});
  write_xdmf();
  return path;
}

std::string OutputSeries::write_checkpoint(long long step, double time, ConstView2<real> u,
                                           const CheckpointInfo& info) {
  FieldFile header;
  header.kind = "checkpoint";
  header.numbers["dt"] = info.dt;
  header.numbers["total_steps"] = double(info.total_steps);
  header.numbers["components"] = cfg_.physics.components;
  header.vectors["conservation_initial"] = info.conservation_initial;
  if (fingerprint_.empty()) fingerprint_ = mesh_fingerprint(mesh_); // once: O(cells log cells)
  header.strings["mesh_fingerprint"] = fingerprint_;
  header.strings["case"] = cfg_.name;
  const std::string path = write_step_file(header, "checkpoint", step, time, u, all_fields_);
  if (h5::rank() == 0) {
    auto all = step_files(dir_, "checkpoint");
    for (std::size_t i = 0; i + std::size_t(cfg_.checkpoint.keep) < all.size(); ++i) {
      std::error_code ec;
      fs::remove(all[i].second, ec);
    }
  }
  return path;
}

} // namespace fvproxy
