#pragma once
// Writing a result file so that a reader never sees it half-written: a temporary file in the same
// folder, flushed and checked, then renamed over the final name.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"

namespace fvproxy {

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
