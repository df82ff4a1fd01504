#pragma once
// Error types. Their `what()` is the full message: one first line naming the file:line or key
// path, then detail lines. `exit_code()` follows docs/running.md#exit-codes: 2 bad input, 1 run failure.
#include <stdexcept>
#include <string>

namespace fvproxy {

/// Bad input: usage, YAML, mesh file, HDF5 file (exit code 2).
class InputError : public std::runtime_error {
public:
  /// `where` names the file:line, file offset or key path; `what` says what is wrong.
  InputError(const std::string& where, const std::string& what, const std::string& detail = {});
  /// The same error again from its full message (another rank's, received).
  static InputError from_message(const std::string& message, const std::string& where);
  const std::string& where() const { return where_; }

private:
  struct Composed {};
  InputError(Composed, const std::string& message, const std::string& where)
      : std::runtime_error(message), where_(where) {}
  std::string where_;
};

/// A run or comparison failed: non-finite state, mismatch, I/O failure (exit code 1).
class RunError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace fvproxy
