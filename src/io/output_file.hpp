#pragma once
// Result files: the output folder created and checked writable before any work starts (a typo
// should not cost a finished run), and each file written so that a reader never sees it
// half-written: a temporary file in the same folder, flushed and checked, then renamed over the
// final name.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"

namespace fvproxy {

/// Creates `dir` (with its parents) and checks that a file can be written there; InputError
/// naming `key` (the option or case key that gave the folder) otherwise.
inline void prepare_output_dir(const std::string& dir, const std::string& key) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw InputError(key, "cannot create the output folder '" + dir + "'", ec ? ec.message() : "not a folder");
  const fs::path probe = fs::path(dir) / ".fvproxy-write-test";
  {
    std::ofstream f(probe);
    if (!f) throw InputError(key, "cannot write in the output folder '" + dir + "'", std::strerror(errno));
  }
  fs::remove(probe, ec);
}

/// RunError naming `who` and the path when the file cannot be written or renamed.
inline void write_atomically(const std::filesystem::path& path, const std::string& text, const std::string& who) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    f << text;
    f.flush();
    if (!f) throw RunError(who + ": error: cannot write " + tmp.string() + "\n" + std::strerror(errno));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw RunError(who + ": error: cannot rename " + tmp.string() + " to " + path.string() + "\n" + ec.message());
}

} // namespace fvproxy
