#pragma once
// A small, checked layer over parallel HDF5 (MPI-IO). Every HDF5 return code is checked; HDF5's
// own error printing is switched off and its innermost error message is folded into fvproxy's
// (H5Failure). Datasets are 1-D or (n, cols) row-major; writes are collective slabs: each rank
// passes its own rows, the offsets come from an exclusive scan over the communicator (a
// decomposed run passes each rank's block of the one-rank order: io/output_series.hpp). Reads of
// whole datasets are the calling rank's alone; read_rows() reads each rank's rows collectively
// (a restart: io/checkpoint.hpp). Datasets
// are created with explicit properties (early allocation, no fill, no object times), so that the
// one-rank file and the N-rank file of the same rows are the same bytes.
// Strings are fixed-length (parallel HDF5 1.10 writes no variable-length data). Numeric datasets
// are chunked with a Fletcher-32 checksum per chunk: damaged data fails to read.
//
// Creating a file goes through AtomicFile: the data goes to a temporary name in the same folder,
// is flushed and closed (disk full surfaces there), and only then one rank renames it to the final
// name after a barrier. A failure or an exception leaves no file under the final name.
//
// On one rank a file is built in memory (HDF5's core driver) and written out by close() with
// checked POSIX calls: HDF5 1.10 keeps a file whose flush failed (disk full) half-open and crashes
// in its own shutdown at exit, so the disk error must not reach HDF5. Over several ranks the
// file is written through MPI-IO, collectively, each step agreed over the ranks (File::agree): a
// failure on one rank ends the write on all.
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "parallel/communicator.hpp"

namespace fvproxy::h5 {

/// An HDF5 call failed: `what()` names the operation, the file and object, and HDF5's reason.
class H5Failure : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Element types of datasets and attributes.
enum class Type { f32, f64, i64, u8 };

template <class T> constexpr Type type_of();
template <> constexpr Type type_of<float>() {
  return Type::f32;
}
template <> constexpr Type type_of<double>() {
  return Type::f64;
}
template <> constexpr Type type_of<std::int64_t>() {
  return Type::i64;
}
template <> constexpr Type type_of<std::uint8_t>() {
  return Type::u8;
}

class File {
public:
  /// Creates (truncates) `path` for writing, collectively over `comm`.
  static File create(const std::string& path, const Communicator& comm = Communicator::world());
  /// Opens an existing file read-only (on the calling rank alone). H5Failure when it does not
  /// exist, is not HDF5, or is damaged (truncated).
  static File open(const std::string& path);
  /// The same, collectively over `comm` (MPI-IO over several ranks), for read_rows().
  static File open(const std::string& path, const Communicator& comm);

  File(File&&) noexcept;
  File& operator=(File&&) noexcept;
  ~File(); ///< closes without checking (use close() to see the error)
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  /// Flushes and closes; H5Failure when the data could not be written (disk full, I/O error).
  void close();
  const std::string& path() const { return path_; }

  // --- writing (collective: every rank calls each function, in the same order) ----------------
  /// Writes `rows` rows of `cols` values; the dataset holds every rank's rows, rank order.
  /// Intermediate groups are created. Returns this rank's first row in the dataset.
  std::int64_t write(const std::string& name, Type t, const void* data, std::int64_t rows, int cols = 1);
  template <class T> std::int64_t write(const std::string& name, const std::vector<T>& v, int cols = 1) {
    return write(name, type_of<T>(), v.data(), static_cast<std::int64_t>(v.size()) / cols, cols);
  }
  /// A fixed-length string dataset (scalar); every rank passes the same text.
  void write_string(const std::string& name, const std::string& text);
  /// Attributes of object `obj` ("/" for the root); every rank passes the same value.
  void attribute(const std::string& obj, const std::string& name, double v);
  void attribute(const std::string& obj, const std::string& name, std::int64_t v);
  void attribute(const std::string& obj, const std::string& name, const std::string& v);
  void attribute(const std::string& obj, const std::string& name, const std::vector<double>& v);

  // --- reading (the calling rank alone) --------------------------------------------------------
  bool exists(const std::string& name) const;
  /// Shape of a dataset: {rows} or {rows, cols}.
  std::vector<std::int64_t> shape(const std::string& name) const;
  /// The whole dataset converted to T (HDF5 converts float32 to double exactly).
  template <class T> std::vector<T> read(const std::string& name) const {
    std::vector<T> v;
    read_into(name, type_of<T>(), v);
    return v;
  }
  /// Rows [begin, begin + count) of a numeric dataset of shape {rows} or {rows, cols}, converted to
  /// T, row-major: one hyperslab selection. Collective over the communicator the file was opened
  /// with (each rank passes its own rows, possibly none; collective MPI-IO over several ranks).
  template <class T> std::vector<T> read_rows(const std::string& name, std::int64_t begin, std::int64_t count) const {
    std::vector<T> v;
    read_rows_into(name, type_of<T>(), begin, count, v);
    return v;
  }
  std::string read_string(const std::string& name) const;
  bool has_attribute(const std::string& obj, const std::string& name) const;
  double attribute_double(const std::string& obj, const std::string& name) const;
  std::int64_t attribute_int(const std::string& obj, const std::string& name) const;
  std::string attribute_string(const std::string& obj, const std::string& name) const;
  std::vector<double> attribute_doubles(const std::string& obj, const std::string& name) const;
  /// Names of the members of a group.
  std::vector<std::string> members(const std::string& group) const;
  /// "float64", "float32", "int64", ... of a dataset's stored type.
  std::string stored_type(const std::string& name) const;

private:
  File() = default;
  template <class V> void read_into(const std::string& name, Type t, V& v) const;
  template <class V>
  void read_rows_into(const std::string& name, Type t, std::int64_t begin, std::int64_t count, V& v) const;
  /// Over several ranks: throws on every rank, with the lowest failing rank's message, when
  /// `error` is not empty on any (one reduction). On one rank: throws when it is not empty.
  /// A failing rank whose partners do not answer within kAgreeSeconds (they wait inside HDF5 for
  /// it) prints its message and ends the job (MPI_Abort). After an agreed failure the file is
  /// abandoned: never closed (see File::agree), the job is to end.
  void agree(const std::string& error);
  static constexpr int kAgreeSeconds = 20;
  /// Runs `step` (one collective part of a write) and agrees on its H5Failure, if any.
  template <class F> void collective(F&& step);
  std::int64_t id_ = -1;
  std::string path_;
  std::string final_path_;                   ///< the name it will have (AtomicFile), for messages
  Communicator comm_ = Communicator::self(); ///< the ranks that share the file
  bool in_memory_ = false;                   ///< one rank: built in memory, written by close()
  bool abandoned_ = false;                   ///< several ranks: a write failed on some rank (see agree())
  friend class AtomicFile;
};

/// A file written under a temporary name and renamed into place by commit() (collective).
class AtomicFile {
public:
  AtomicFile(const std::string& final_path, const Communicator& comm = Communicator::world());
  ~AtomicFile(); ///< without commit(): closes and removes the temporary file
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  File& file() { return *file_; }
  /// Closes (checked), then after a barrier rank 0 renames the file to its final name.
  void commit();

private:
  std::string final_, tmp_;
  Communicator comm_;
  std::optional<File> file_;
  bool done_ = false;
};

} // namespace fvproxy::h5
