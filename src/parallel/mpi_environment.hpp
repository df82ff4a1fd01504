#pragma once
// MPI start-up and shutdown for the whole program (a no-op build without MPI).
#include <string>

namespace fvproxy {

class MpiEnvironment {
public:
  MpiEnvironment(int& argc, char**& argv);
  ~MpiEnvironment();
  MpiEnvironment(const MpiEnvironment&) = delete;
  MpiEnvironment& operator=(const MpiEnvironment&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// Aborts every rank (after an error on one of them).
  [[noreturn]] static void abort(int code);
  /// The command's non-zero exit code is the same on every rank (a collective outcome, such as a
  /// run that failed or stopped everywhere at the same step): exit without MPI_Abort.
  static void set_collective_exit();
  static bool collective_exit();

private:
  int rank_ = 0, size_ = 1;
  bool owns_ = false;
};

/// "Open MPI v4.1.4, ..." (first line of MPI_Get_library_version) or "disabled".
std::string mpi_library_version();

} // namespace fvproxy
