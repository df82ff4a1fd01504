#pragma once
// Result files: the output folder created and checked writable before any work starts (a typo
// should not cost a finished run), locked against a second run writing into it at the same time,
// and each file written so that a reader never sees it half-written: a temporary file with a name
// unique to the process (mkstemp) in the same folder, written with checked calls (a full disk
// shows as ENOSPC, a file-size limit as EFBIG), flushed, then renamed over the final name.
#include <filesystem>
#include <string>

#include "core/error.hpp"

namespace fvproxy {

/// Creates `dir` (with its parents) and checks that a file can be written there; InputError
/// naming `key` (the option or case key that gave the folder) otherwise.
void prepare_output_dir(const std::string& dir, const std::string& key);

/// Writes `text` to `path` through a unique temporary file and a rename; RunError naming `who`
/// and `path` (with the reason: disk full, file too large, ...) when it cannot, leaving nothing.
void write_atomically(const std::filesystem::path& path, const std::string& text, const std::string& who);

/// "DIR/.NAME.tmp.XXXXXX" as created by mkstemp (an empty file, mode 0644, unique to this
/// process): the temporary name for a file to be renamed to `path`. -1 and errno when it fails.
int make_temporary(const std::filesystem::path& path, std::string& tmp);

/// This host's name ("?" when unknown), for messages.
std::string host_name();

/// An exclusive lock on an output folder, held while the object lives: `DIR/.fvproxy.lock`,
/// flock()ed and holding "pid P on host H since T". The kernel drops the lock when the process
/// dies, so the file a killed run leaves behind blocks nobody; a run that ends removes it. With
/// the lock taken, temporary files that killed runs left in the folder (".NAME.tmp.XXXXXX") are
/// removed. Taken on rank 0 (collective over MPI_COMM_WORLD).
class OutputLock {
public:
  /// InputError naming `key` (the option or case key that gave the folder), the folder and the
  /// holder when another process holds the lock.
  OutputLock(const std::string& dir, const std::string& key);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  static constexpr const char* kFileName = ".fvproxy.lock";

  /// The lock file's path, and on rank 0 the text written into it (empty elsewhere).
  const std::string& path() const { return path_; }
  const std::string& text() const { return text_; }

private:
  int fd_ = -1;
  std::string path_, text_;
};

} // namespace fvproxy
