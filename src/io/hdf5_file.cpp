#include "io/hdf5_file.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <optional>
#include <system_error>
#include <thread>
#include <unistd.h>
#include <vector>

#include <hdf5.h>
#include <mpi.h>

#include "io/output_file.hpp"

namespace fvproxy::h5 {

namespace {

/// HDF5's innermost error message (the reason), collected by walking the default error stack.
std::string hdf5_reason() {
  std::string reason;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned, const H5E_error2_t* e, void* data) -> herr_t {
        auto* r = static_cast<std::string*>(data);
        if (r->empty() && e->desc) *r = e->desc;
        return 0;
      },
      &reason);
  H5Eclear2(H5E_DEFAULT);
  return reason.empty() ? "HDF5 reported a failure" : reason;
}

/// HDF5 prints its error stack to stderr by default; fvproxy prints its own messages.
void silence_hdf5() {
  static const bool done = [] {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return true;
  }();
  (void)done;
}

[[noreturn]] void fail(const std::string& what, const std::string& path, const std::string& obj = {}) {
  throw H5Failure(what + " " + path + (obj.empty() ? "" : ":" + obj) + ": " + hdf5_reason());
}

/// RAII for any hid_t with its close function.
struct Handle {
  hid_t id = -1;
  herr_t (*closer)(hid_t) = nullptr;
  Handle(hid_t i, herr_t (*c)(hid_t)) : id(i), closer(c) {}
  ~Handle() {
    if (id >= 0 && closer) closer(id);
  }
  Handle(Handle&& o) noexcept : id(o.id), closer(o.closer) { o.id = -1; }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle& operator=(Handle&&) = delete;
  operator hid_t() const { return id; }
};

hid_t native(Type t) {
  switch (t) {
  case Type::f32: return H5T_NATIVE_FLOAT;
  case Type::f64: return H5T_NATIVE_DOUBLE;
  case Type::i64: return H5T_NATIVE_INT64;
  case Type::u8: return H5T_NATIVE_UINT8;
  }
  return H5T_NATIVE_DOUBLE;
}

/// Little-endian file types, whatever the machine.
hid_t stored(Type t) {
  switch (t) {
  case Type::f32: return H5T_IEEE_F32LE;
  case Type::f64: return H5T_IEEE_F64LE;
  case Type::i64: return H5T_STD_I64LE;
  case Type::u8: return H5T_STD_U8LE;
  }
  return H5T_IEEE_F64LE;
}

/// Creates the groups on the way to `name` ("/a/b/c" -> /a, /a/b).
void make_parents(hid_t file, const std::string& name, const std::string& path) {
  for (std::size_t p = name.find('/', 1); p != std::string::npos; p = name.find('/', p + 1)) {
    const std::string g = name.substr(0, p);
    const htri_t e = H5Lexists(file, g.c_str(), H5P_DEFAULT);
    if (e < 0) fail("cannot look up", path, g);
    if (e > 0) continue;
    Handle gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
    if (gcpl < 0 || H5Pset_obj_track_times(gcpl, 0) < 0) fail("cannot create group", path, g);
    Handle grp(H5Gcreate2(file, g.c_str(), H5P_DEFAULT, gcpl, H5P_DEFAULT), H5Gclose);
    if (grp < 0) fail("cannot create group", path, g);
  }
}

/// Dataset creation properties that give the same bytes on every driver and rank count: space
/// allocated when the dataset is created (parallel HDF5 forces it for chunked datasets; the core
/// driver would allocate at the first write), never filled with fill values (every value is
/// written), no modification times in the object header.
Handle dataset_properties(const std::string& path, const std::string& name) {
  Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  if (dcpl < 0 || H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) < 0 ||
      H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0 || H5Pset_obj_track_times(dcpl, 0) < 0)
    fail("cannot create dataset", path, name);
  return dcpl;
}

Handle string_type(std::size_t n) {
  Handle t(H5Tcopy(H5T_C_S1), H5Tclose);
  if (t < 0 || H5Tset_size(t, n == 0 ? 1 : n) < 0 || H5Tset_strpad(t, H5T_STR_NULLPAD) < 0)
    throw H5Failure("cannot make a string type: " + hdf5_reason());
  return t;
}

Handle open_object(hid_t file, const std::string& obj, const std::string& path) {
  Handle o(H5Oopen(file, obj.c_str(), H5P_DEFAULT), H5Oclose);
  if (o < 0) fail("no object", path, obj);
  return o;
}

void write_attribute(hid_t file, const std::string& path, const std::string& obj, const std::string& name, hid_t ftype,
                     hid_t mtype, const void* data, hsize_t n /* 0 = scalar */) {
  Handle o = open_object(file, obj, path);
  Handle space(n == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), H5Sclose);
  if (space < 0) fail("cannot make a dataspace for attribute", path, obj + "@" + name);
  if (H5Aexists(o, name.c_str()) > 0 && H5Adelete(o, name.c_str()) < 0)
    fail("cannot replace attribute", path, obj + "@" + name);
  Handle a(H5Acreate2(o, name.c_str(), ftype, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (a < 0) fail("cannot create attribute", path, obj + "@" + name);
  if (H5Awrite(a, mtype, data) < 0) fail("cannot write attribute", path, obj + "@" + name);
}

Handle open_attribute(hid_t file, const std::string& path, const std::string& obj, const std::string& name) {
  Handle o = open_object(file, obj, path);
  const htri_t e = H5Aexists(o, name.c_str());
  if (e <= 0) throw H5Failure(path + ": attribute '" + name + "' of " + obj + " is missing");
  Handle a(H5Aopen(o, name.c_str(), H5P_DEFAULT), H5Aclose);
  if (a < 0) fail("cannot open attribute", path, obj + "@" + name);
  return a;
}

/// Number of elements of an attribute (1 for a scalar).
hssize_t attribute_size(hid_t a, const std::string& path, const std::string& what) {
  Handle space(H5Aget_space(a), H5Sclose);
  const hssize_t n = space < 0 ? -1 : H5Sget_simple_extent_npoints(space);
  if (n < 0) fail("cannot read the shape of attribute", path, what);
  return n;
}

} // namespace

// --- File -----------------------------------------------------------------------------------------

File File::create(const std::string& path, const Communicator& comm) {
  silence_hdf5();
  File f;
  f.path_ = path;
  f.comm_ = comm;
  Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  if (fapl < 0) fail("cannot create", path);
  if (comm.size() > 1) {
    if (H5Pset_fapl_mpio(fapl, comm.raw(), MPI_INFO_NULL) < 0) fail("cannot set MPI-IO access for", path);
  } else {
    // One rank: the file is built in memory and written by close() with checked POSIX calls.
    // HDF5 1.10 keeps a file whose flush failed (disk full) open and crashes when the library
    // shuts down at exit; this way HDF5 never meets the disk error, fvproxy reports it.
    if (H5Pset_fapl_core(fapl, 1 << 20, 0) < 0) fail("cannot set in-memory access for", path);
    f.in_memory_ = true;
    // Fail now, not after the work, when the file cannot be created at all.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) throw H5Failure("cannot create " + path + ": " + std::strerror(errno));
    ::close(fd);
  }
  // No modification times in the root group's header either (the bytes of a file depend only on
  // what is written).
  Handle fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
  if (fcpl < 0 || H5Pset_obj_track_times(fcpl, 0) < 0) fail("cannot create", path);
  f.id_ = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl, fapl);
  if (f.id_ < 0) fail("cannot create", path);
  return f;
}

namespace {

/// A file to open for reading must exist, not be a folder, and be HDF5 (H5Failure naming it).
void check_hdf5_file(const std::string& path) {
  silence_hdf5();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw H5Failure(path + ": no such file");
  if (std::filesystem::is_directory(path, ec)) throw H5Failure(path + ": is a folder, not an HDF5 file");
  const htri_t is = H5Fis_hdf5(path.c_str());
  if (is == 0) throw H5Failure(path + ": not an HDF5 file");
  if (is < 0) fail("cannot read", path);
}

} // namespace

File File::open(const std::string& path) {
  check_hdf5_file(path);
  File f;
  f.path_ = path;
  f.comm_ = Communicator::self();
  f.id_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f.id_ < 0) fail("cannot open", path);
  return f;
}

File File::open(const std::string& path, const Communicator& comm) {
  if (comm.size() == 1) return open(path);
  check_hdf5_file(path); // every rank sees the same file system: the checks answer alike on every rank
  Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  if (fapl < 0 || H5Pset_fapl_mpio(fapl, comm.raw(), MPI_INFO_NULL) < 0) fail("cannot set MPI-IO access for", path);
  File f;
  f.path_ = path;
  f.comm_ = comm;
  f.id_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl);
  if (f.id_ < 0) fail("cannot open", path);
  return f;
}

File::File(File&& o) noexcept
    : id_(o.id_), path_(std::move(o.path_)), final_path_(std::move(o.final_path_)), comm_(o.comm_),
      in_memory_(o.in_memory_), abandoned_(o.abandoned_) {
  o.id_ = -1;
}
File& File::operator=(File&& o) noexcept {
  if (this != &o) {
    if (id_ >= 0 && !abandoned_) H5Fclose(id_);
    id_ = o.id_;
    path_ = std::move(o.path_);
    final_path_ = std::move(o.final_path_);
    comm_ = o.comm_;
    in_memory_ = o.in_memory_;
    abandoned_ = o.abandoned_;
    o.id_ = -1;
  }
  return *this;
}
File::~File() {
  if (id_ >= 0 && !abandoned_) H5Fclose(id_);
}

void File::close() {
  if (id_ < 0 || abandoned_) return;
  if (!in_memory_) {
    // MPI-IO: the flush agreed over the ranks first (a failure on one ends the write on all), then
    // the collective close.
    agree(H5Fflush(id_, H5F_SCOPE_GLOBAL) < 0 ? "cannot write " + path_ + ": " + hdf5_reason() : std::string());
    const hid_t id = id_;
    id_ = -1;
    if (H5Fclose(id) < 0) throw H5Failure("cannot write " + path_ + ": " + hdf5_reason());
    return;
  }
  const hid_t id = id_;
  id_ = -1;
  const bool flushed = H5Fflush(id, H5F_SCOPE_GLOBAL) >= 0;
  std::string reason = flushed ? std::string() : hdf5_reason();
  std::vector<char> image;
  if (in_memory_ && flushed) {
    const ssize_t n = H5Fget_file_image(id, nullptr, 0);
    if (n >= 0) image.resize(static_cast<std::size_t>(n));
    if (n < 0 || H5Fget_file_image(id, image.data(), image.size()) != n) reason = hdf5_reason();
  }
  if (H5Fclose(id) < 0 && reason.empty()) reason = hdf5_reason();
  if (!reason.empty()) throw H5Failure("cannot write " + path_ + ": " + reason);
  if (!in_memory_) return;
  // The image to the disk: every call checked (a full disk shows as ENOSPC, a size limit as EFBIG).
  const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw H5Failure("cannot write " + path_ + ": " + std::strerror(errno));
  std::size_t done = 0;
  while (done < image.size()) {
    const ssize_t w = ::write(fd, image.data() + done, image.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const int e = w < 0 ? errno : ENOSPC;
      ::close(fd);
      throw H5Failure("cannot write " + path_ + " (" + std::to_string(done) + " of " + std::to_string(image.size()) +
                      " bytes written): " + std::strerror(e));
    }
    done += static_cast<std::size_t>(w);
  }
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
    const int e = errno;
    ::close(fd);
    throw H5Failure("cannot write " + path_ + " (fsync): " + std::strerror(e));
  }
  if (::close(fd) != 0) throw H5Failure("cannot write " + path_ + " (close): " + std::strerror(errno));
}

void File::agree(const std::string& error) {
  if (comm_.size() == 1) {
    if (!error.empty()) throw H5Failure(error);
    return;
  }
  // The lowest failing rank, on every rank. A failing rank waits a bounded time: when it failed in
  // the middle of one of HDF5's own collective steps, the others wait there for it and never
  // reach this reduction; it then ends the job itself, with its message (no hang).
  const MPI_Comm c = comm_.raw();
  const int none = comm_.size();
  int mine = error.empty() ? none : comm_.rank(), first = none;
  MPI_Request request;
  MPI_Iallreduce(&mine, &first, 1, MPI_INT, MPI_MIN, c, &request);
  if (error.empty()) {
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  } else {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(kAgreeSeconds);
    for (int done = 0;;) {
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (done) break;
      if (std::chrono::steady_clock::now() > until) {
        std::string message = error;
        const std::string& shown = final_path_.empty() ? path_ : final_path_;
        for (std::size_t at = message.find(path_); at != std::string::npos; at = message.find(path_, at + shown.size()))
          message.replace(at, path_.size(), shown);
        std::fprintf(stderr,
                     "error: writing %s failed on rank %d\n%s\n(the other ranks wait inside HDF5: ending the job)\n",
                     shown.c_str(), comm_.rank(), message.c_str());
        std::fflush(stderr);
        std::remove(path_.c_str()); // the others hold it open: nothing is left under any name
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  if (first == none) return;
  // Closing would flush collectively, and HDF5's parallel flush after a failed write can leave the
  // ranks waiting for each other: the file is left open, the error ends the job (MPI_Abort).
  abandoned_ = true;
  int n = static_cast<int>(error.size());
  MPI_Bcast(&n, 1, MPI_INT, first, c);
  std::string message = error;
  message.resize(static_cast<std::size_t>(n));
  MPI_Bcast(message.data(), n, MPI_CHAR, first, c);
  throw H5Failure(first == 0 ? message : "rank " + std::to_string(first) + ": " + message);
}

template <class F> void File::collective(F&& step) {
  std::string error;
  try {
    step();
  } catch (const H5Failure& e) {
    error = e.what();
  }
  agree(error);
}

std::int64_t File::write(const std::string& name, Type t, const void* data, std::int64_t rows, int cols) {
  long long mine = rows, total = rows, offset = 0;
  if (comm_.size() > 1) {
    MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, comm_.raw());
    MPI_Exscan(&mine, &offset, 1, MPI_LONG_LONG, MPI_SUM, comm_.raw());
    if (comm_.rank() == 0) offset = 0;
  }
  const int rank_n = cols == 1 ? 1 : 2;
  hsize_t dims[2] = {static_cast<hsize_t>(total), static_cast<hsize_t>(cols)};
  std::optional<Handle> fspace, ds;
  // Each step is agreed over the ranks: a failure on one (a full disk, a size limit) ends the
  // write on every rank with its message, instead of leaving the others waiting in the next
  // collective call.
  collective([&] {
    make_parents(id_, name, path_);
    fspace.emplace(H5Screate_simple(rank_n, dims, nullptr), H5Sclose);
    if (*fspace < 0) fail("cannot make a dataspace for", path_, name);
    // Chunked with a Fletcher-32 checksum per chunk (1M values at most), so that damaged data is
    // an error when read back instead of wrong numbers. The chunks depend on the dataset's shape
    // only, not on the ranks.
    Handle dcpl = dataset_properties(path_, name);
    if (total > 0) {
      // Equal chunks of at most ~1M values, so that the last one is not mostly empty space.
      const hsize_t n_rows = hsize_t(total), max_rows = std::max<hsize_t>(1, (hsize_t(1) << 20) / hsize_t(cols));
      const hsize_t n_chunks = (n_rows + max_rows - 1) / max_rows;
      hsize_t chunk[2] = {(n_rows + n_chunks - 1) / n_chunks, hsize_t(cols)};
      if (H5Pset_chunk(dcpl, rank_n, chunk) < 0 || H5Pset_fletcher32(dcpl) < 0)
        fail("cannot set checksums for", path_, name);
    }
    ds.emplace(H5Dcreate2(id_, name.c_str(), stored(t), *fspace, H5P_DEFAULT, dcpl, H5P_DEFAULT), H5Dclose);
    if (*ds < 0) fail("cannot create dataset", path_, name);
  });
  collective([&] {
    hsize_t start[2] = {static_cast<hsize_t>(offset), 0}, count[2] = {static_cast<hsize_t>(mine), hsize_t(cols)};
    Handle mspace(H5Screate_simple(rank_n, count, nullptr), H5Sclose);
    if (mspace < 0) fail("cannot make a dataspace for", path_, name);
    const herr_t sel = mine > 0 ? H5Sselect_hyperslab(*fspace, H5S_SELECT_SET, start, nullptr, count, nullptr)
                                : H5Sselect_none(*fspace);
    if (sel < 0 || (mine == 0 && H5Sselect_none(mspace) < 0)) fail("cannot select rows of", path_, name);
    Handle dxpl(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
    if (dxpl < 0) fail("cannot write", path_, name);
    if (!in_memory_ && H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) < 0)
      fail("cannot set collective writes for", path_, name);
    // An empty dataset has nothing to write (MPI-IO fails on its undefined address).
    if (total > 0 && H5Dwrite(*ds, native(t), mspace, *fspace, dxpl, data) < 0)
      fail("cannot write dataset", path_, name);
  });
  return offset;
}

void File::write_string(const std::string& name, const std::string& text) {
  std::optional<Handle> type, ds;
  collective([&] {
    make_parents(id_, name, path_);
    type.emplace(string_type(text.size()));
    Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    Handle dcpl = dataset_properties(path_, name);
    ds.emplace(H5Dcreate2(id_, name.c_str(), *type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT), H5Dclose);
    if (*ds < 0) fail("cannot create dataset", path_, name);
  });
  collective([&] {
    const std::string padded = text.empty() ? std::string(1, '\0') : text;
    Handle dxpl(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
    if (!in_memory_ && H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) < 0)
      fail("cannot set collective writes for", path_, name);
    if (H5Dwrite(*ds, *type, H5S_ALL, H5S_ALL, dxpl, padded.data()) < 0) fail("cannot write dataset", path_, name);
  });
}

void File::attribute(const std::string& obj, const std::string& name, double v) {
  collective([&] { write_attribute(id_, path_, obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v, 0); });
}
void File::attribute(const std::string& obj, const std::string& name, std::int64_t v) {
  collective([&] { write_attribute(id_, path_, obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v, 0); });
}
void File::attribute(const std::string& obj, const std::string& name, const std::string& v) {
  collective([&] {
    Handle type = string_type(v.size());
    const std::string padded = v.empty() ? std::string(1, '\0') : v;
    write_attribute(id_, path_, obj, name, type, type, padded.data(), 0);
  });
}
void File::attribute(const std::string& obj, const std::string& name, const std::vector<double>& v) {
  collective([&] { write_attribute(id_, path_, obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v.data(), v.size()); });
}

bool File::exists(const std::string& name) const {
  // Walk the path: H5Lexists fails (rather than answering no) when a parent group is missing.
  for (std::size_t p = name.find('/', 1);; p = name.find('/', p + 1)) {
    const std::string part = p == std::string::npos ? name : name.substr(0, p);
    const htri_t e = H5Lexists(id_, part.c_str(), H5P_DEFAULT);
    if (e < 0) fail("cannot look up", path_, part);
    if (e == 0) return false;
    if (p == std::string::npos) return true;
  }
}

std::vector<std::int64_t> File::shape(const std::string& name) const {
  if (!exists(name)) throw H5Failure(path_ + ": dataset " + name + " is missing");
  Handle ds(H5Dopen2(id_, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (ds < 0) fail("cannot open dataset", path_, name);
  Handle space(H5Dget_space(ds), H5Sclose);
  const int n = space < 0 ? -1 : H5Sget_simple_extent_ndims(space);
  if (n < 0) fail("cannot read the shape of", path_, name);
  hsize_t dims[H5S_MAX_RANK];
  if (H5Sget_simple_extent_dims(space, dims, nullptr) < 0) fail("cannot read the shape of", path_, name);
  return std::vector<std::int64_t>(dims, dims + n);
}

std::string File::stored_type(const std::string& name) const {
  Handle ds(H5Dopen2(id_, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (ds < 0) fail("cannot open dataset", path_, name);
  Handle t(H5Dget_type(ds), H5Tclose);
  if (t < 0) fail("cannot read the type of", path_, name);
  const H5T_class_t c = H5Tget_class(t);
  const std::size_t bytes = H5Tget_size(t);
  if (c == H5T_FLOAT) return "float" + std::to_string(8 * bytes);
  if (c == H5T_INTEGER) return (H5Tget_sign(t) == H5T_SGN_NONE ? "uint" : "int") + std::to_string(8 * bytes);
  if (c == H5T_STRING) return "string";
  return "other";
}

template <class V> void File::read_into(const std::string& name, Type t, V& v) const {
  const auto s = shape(name);
  std::size_t n = 1;
  for (auto d : s) n *= static_cast<std::size_t>(d);
  const std::string ty = stored_type(name);
  const bool numeric = ty.rfind("float", 0) == 0 || ty.rfind("int", 0) == 0 || ty.rfind("uint", 0) == 0;
  if (!numeric) throw H5Failure(path_ + ":" + name + ": expected numbers, found " + ty + " data");
  v.resize(n);
  if (n == 0) return;
  Handle ds(H5Dopen2(id_, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (ds < 0) fail("cannot open dataset", path_, name);
  if (H5Dread(ds, native(t), H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0) fail("cannot read dataset", path_, name);
}
template void File::read_into(const std::string&, Type, std::vector<float>&) const;
template void File::read_into(const std::string&, Type, std::vector<double>&) const;
template void File::read_into(const std::string&, Type, std::vector<std::int64_t>&) const;
template void File::read_into(const std::string&, Type, std::vector<std::uint8_t>&) const;

template <class V>
void File::read_rows_into(const std::string& name, Type t, std::int64_t begin, std::int64_t count, V& v) const {
  // The shape and type are the same on every rank: the checks fail on all ranks or on none.
  const auto s = shape(name);
  if (s.empty() || s.size() > 2) throw H5Failure(path_ + ":" + name + ": expected a dataset of rows");
  const std::string ty = stored_type(name);
  const bool numeric = ty.rfind("float", 0) == 0 || ty.rfind("int", 0) == 0 || ty.rfind("uint", 0) == 0;
  if (!numeric) throw H5Failure(path_ + ":" + name + ": expected numbers, found " + ty + " data");
  if (begin < 0 || count < 0 || begin + count > s[0])
    throw H5Failure(path_ + ":" + name + ": rows " + std::to_string(begin) + ".." + std::to_string(begin + count) +
                    " are not within its " + std::to_string(s[0]) + " rows");
  const hsize_t cols = s.size() == 2 ? hsize_t(s[1]) : 1;
  v.resize(std::size_t(count) * cols);
  Handle ds(H5Dopen2(id_, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (ds < 0) fail("cannot open dataset", path_, name);
  Handle fspace(H5Dget_space(ds), H5Sclose);
  hsize_t start[2] = {hsize_t(begin), 0}, n[2] = {hsize_t(count), cols};
  Handle mspace(H5Screate_simple(int(s.size()), n, nullptr), H5Sclose);
  if (fspace < 0 || mspace < 0) fail("cannot make a dataspace for", path_, name);
  const herr_t sel =
      count > 0 ? H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, n, nullptr) : H5Sselect_none(fspace);
  if (sel < 0 || (count == 0 && H5Sselect_none(mspace) < 0)) fail("cannot select rows of", path_, name);
  Handle dxpl(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
  if (dxpl < 0) fail("cannot read", path_, name);
  if (comm_.size() > 1 && H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) < 0)
    fail("cannot set collective reads for", path_, name);
  // An empty dataset has nothing to read (MPI-IO fails on its undefined address).
  if (s[0] > 0 && H5Dread(ds, native(t), mspace, fspace, dxpl, v.data()) < 0) fail("cannot read dataset", path_, name);
}
template void File::read_rows_into(const std::string&, Type, std::int64_t, std::int64_t, std::vector<float>&) const;
template void File::read_rows_into(const std::string&, Type, std::int64_t, std::int64_t, std::vector<double>&) const;
template void File::read_rows_into(const std::string&, Type, std::int64_t, std::int64_t,
                                   std::vector<std::int64_t>&) const;
template void File::read_rows_into(const std::string&, Type, std::int64_t, std::int64_t,
                                   std::vector<std::uint8_t>&) const;

std::string File::read_string(const std::string& name) const {
  if (!exists(name)) throw H5Failure(path_ + ": dataset " + name + " is missing");
  Handle ds(H5Dopen2(id_, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (ds < 0) fail("cannot open dataset", path_, name);
  Handle t(H5Dget_type(ds), H5Tclose);
  if (t < 0 || H5Tget_class(t) != H5T_STRING || H5Tis_variable_str(t) > 0)
    throw H5Failure(path_ + ":" + name + ": expected a fixed-length string");
  std::string s(H5Tget_size(t), '\0');
  if (H5Dread(ds, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, s.data()) < 0) fail("cannot read dataset", path_, name);
  s.resize(std::char_traits<char>::length(s.c_str()));
  return s;
}

bool File::has_attribute(const std::string& obj, const std::string& name) const {
  if (obj != "/" && !exists(obj)) return false;
  Handle o = open_object(id_, obj, path_);
  const htri_t e = H5Aexists(o, name.c_str());
  if (e < 0) fail("cannot look up attribute", path_, obj + "@" + name);
  return e > 0;
}

double File::attribute_double(const std::string& obj, const std::string& name) const {
  Handle a = open_attribute(id_, path_, obj, name);
  if (attribute_size(a, path_, name) != 1) throw H5Failure(path_ + ": attribute '" + name + "' is not one number");
  double v = 0;
  if (H5Aread(a, H5T_NATIVE_DOUBLE, &v) < 0) fail("cannot read attribute", path_, obj + "@" + name);
  return v;
}
std::int64_t File::attribute_int(const std::string& obj, const std::string& name) const {
  Handle a = open_attribute(id_, path_, obj, name);
  if (attribute_size(a, path_, name) != 1) throw H5Failure(path_ + ": attribute '" + name + "' is not one number");
  std::int64_t v = 0;
  if (H5Aread(a, H5T_NATIVE_INT64, &v) < 0) fail("cannot read attribute", path_, obj + "@" + name);
  return v;
}
std::string File::attribute_string(const std::string& obj, const std::string& name) const {
  Handle a = open_attribute(id_, path_, obj, name);
  Handle t(H5Aget_type(a), H5Tclose);
  if (t < 0 || H5Tget_class(t) != H5T_STRING || H5Tis_variable_str(t) > 0)
    throw H5Failure(path_ + ": attribute '" + name + "' is not a fixed-length string");
  std::string s(H5Tget_size(t), '\0');
  if (H5Aread(a, t, s.data()) < 0) fail("cannot read attribute", path_, obj + "@" + name);
  s.resize(std::char_traits<char>::length(s.c_str()));
  return s;
}
std::vector<double> File::attribute_doubles(const std::string& obj, const std::string& name) const {
  Handle a = open_attribute(id_, path_, obj, name);
  std::vector<double> v(static_cast<std::size_t>(attribute_size(a, path_, name)));
  if (!v.empty() && H5Aread(a, H5T_NATIVE_DOUBLE, v.data()) < 0) fail("cannot read attribute", path_, obj + "@" + name);
  return v;
}

std::vector<std::string> File::members(const std::string& group) const {
  std::vector<std::string> names;
  if (!exists(group)) return names;
  Handle g(H5Gopen2(id_, group.c_str(), H5P_DEFAULT), H5Gclose);
  if (g < 0) fail("cannot open group", path_, group);
  H5G_info_t info;
  if (H5Gget_info(g, &info) < 0) fail("cannot list group", path_, group);
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    const ssize_t len = H5Lget_name_by_idx(g, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    const ssize_t len2 =
        len >= 0 ? len : H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    if (len2 < 0) fail("cannot list group", path_, group);
    std::string s(static_cast<std::size_t>(len2) + 1, '\0');
    const H5_index_t idx = len >= 0 ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME;
    if (H5Lget_name_by_idx(g, ".", idx, H5_ITER_INC, i, s.data(), s.size(), H5P_DEFAULT) < 0)
      fail("cannot list group", path_, group);
    s.resize(static_cast<std::size_t>(len2));
    names.push_back(s);
  }
  H5Eclear2(H5E_DEFAULT);
  return names;
}

// --- AtomicFile -----------------------------------------------------------------------------------

AtomicFile::AtomicFile(const std::string& final_path, const Communicator& comm) : final_(final_path), comm_(comm) {
  namespace fs = std::filesystem;
  const fs::path p(final_path);
  // A temporary name unique to this process (mkstemp on rank 0), the same on every rank, in the
  // final file's folder: two processes writing the same file name never share a temporary file.
  int err = 0;
  std::vector<char> name;
  if (comm.rank() == 0) {
    std::string tmp;
    const int fd = make_temporary(p, tmp);
    if (fd < 0)
      err = errno;
    else
      ::close(fd);
    name.assign(tmp.begin(), tmp.end());
  }
  long long sizes[2] = {static_cast<long long>(name.size()), err};
  if (comm.size() > 1) MPI_Bcast(sizes, 2, MPI_LONG_LONG, 0, comm.raw());
  if (sizes[1] != 0)
    throw H5Failure("cannot create " + final_path +
                    " (a temporary file in its folder): " + std::strerror(static_cast<int>(sizes[1])));
  name.resize(static_cast<std::size_t>(sizes[0]));
  if (comm.size() > 1 && sizes[0] > 0) MPI_Bcast(name.data(), static_cast<int>(sizes[0]), MPI_CHAR, 0, comm.raw());
  tmp_.assign(name.begin(), name.end());
  try {
    file_.emplace(File::create(tmp_, comm));
    file_->final_path_ = final_;
  } catch (...) {
    if (comm.rank() == 0) std::remove(tmp_.c_str());
    throw;
  }
}

AtomicFile::~AtomicFile() {
  if (done_) return;
  file_.reset(); // closes, unchecked
  if (comm_.rank() == 0) std::remove(tmp_.c_str());
}

void AtomicFile::commit() {
  std::string error;
  try {
    file_->close();
  } catch (const H5Failure& e) {
    // Named by the final file: the temporary one is removed below.
    error = e.what();
    for (std::size_t at = error.find(tmp_); at != std::string::npos; at = error.find(tmp_, at + final_.size()))
      error.replace(at, tmp_.size(), final_);
  }
  // Every rank learns whether every rank closed cleanly before anything is renamed.
  if (comm_.any(!error.empty())) {
    if (comm_.rank() == 0) std::remove(tmp_.c_str());
    done_ = true;
    throw H5Failure(error.empty() ? "cannot write " + final_ + ": another rank failed" : error);
  }
  int ok = 1;
  std::string why;
  if (comm_.rank() == 0 && std::rename(tmp_.c_str(), final_.c_str()) != 0) {
    ok = 0;
    why = std::error_code(errno, std::generic_category()).message();
    std::remove(tmp_.c_str());
  }
  if (comm_.size() > 1) MPI_Bcast(&ok, 1, MPI_INT, 0, comm_.raw());
  done_ = true;
  if (!ok) throw H5Failure("cannot rename " + tmp_ + " to " + final_ + (why.empty() ? "" : ": " + why));
}

} // namespace fvproxy::h5
