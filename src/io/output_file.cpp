#include "io/output_file.hpp"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <fstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "io/hdf5_file.hpp"

namespace fvproxy {

namespace fs = std::filesystem;

void prepare_output_dir(const std::string& dir, const std::string& key) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::error_code ignored;
  if (fs::exists(dir, ignored) && !fs::is_directory(dir, ignored))
    throw InputError(key, "cannot create the output folder '" + dir + "'", "it exists and is not a folder");
  if (ec || !fs::is_directory(dir))
    throw InputError(key, "cannot create the output folder '" + dir + "'", ec ? ec.message() : "not a folder");
  const fs::path probe = fs::path(dir) / ".fvproxy-write-test";
  {
    std::ofstream f(probe);
    if (!f) throw InputError(key, "cannot write in the output folder '" + dir + "'", std::strerror(errno));
  }
  fs::remove(probe, ec);
}

int make_temporary(const fs::path& path, std::string& tmp) {
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  const std::string pattern = (dir / ("." + path.filename().string() + ".tmp.XXXXXX")).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) return -1;
  tmp = name.data();
  ::fchmod(fd, 0644); // mkstemp's 0600 would make result files unreadable to the group
  return fd;
}

void write_atomically(const fs::path& path, const std::string& text, const std::string& who) {
  auto fail = [&](const std::string& what, int e) {
    throw RunError(who + ": error: cannot write " + path.string() + ": " + std::strerror(e) +
                   (what.empty() ? "" : "\n" + what));
  };
  std::string tmp;
  const int fd = make_temporary(path, tmp);
  if (fd < 0) fail("(creating a temporary file in its folder)", errno);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t w = ::write(fd, text.data() + done, text.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const int e = w < 0 ? errno : ENOSPC;
      ::close(fd);
      ::unlink(tmp.c_str());
      fail(std::to_string(done) + " of " + std::to_string(text.size()) + " bytes written", e);
    }
    done += static_cast<std::size_t>(w);
  }
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
    const int e = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    fail("(fsync)", e);
  }
  if (::close(fd) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    fail("(close)", e);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    fail("(renaming " + tmp + ")", e);
  }
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "?";
  return buf;
}

namespace {

std::string now_text() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  char buf[64] = "?";
  if (::localtime_r(&t, &tm)) std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

/// Temporary files of runs that were killed while writing (".NAME.tmp.XXXXXX", make_temporary):
/// with the folder's lock held, no live run owns one.
void remove_stale_temporaries(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    const std::size_t at = n.rfind(".tmp.");
    if (n.size() < 2 || n[0] != '.' || at == std::string::npos || at == 0 || n.size() != at + 11) continue;
    if (n.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", at + 5) !=
        std::string::npos)
      continue;
    std::error_code ignored;
    fs::remove(e.path(), ignored);
  }
}

} // namespace

OutputLock::OutputLock(const std::string& dir, const std::string& key) : path_((fs::path(dir) / kFileName).string()) {
  std::string error, holder;
  if (Communicator::world().rank() == 0) {
    // Open, lock, then check that the locked file is still the one at the path: a run that ends
    // removes the file while it holds the lock, so a lock taken on a removed file does not count.
    for (int attempt = 0; attempt < 100 && fd_ < 0 && error.empty(); ++attempt) {
      const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
      if (fd < 0) {
        error = std::string("cannot create the lock file: ") + std::strerror(errno);
        break;
      }
      if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int e = errno;
        if (e == EWOULDBLOCK) {
          char buf[512] = {};
          const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
          holder = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
          while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\r')) holder.pop_back();
          error = "busy";
        } else {
          error = std::string("cannot lock ") + path_ + ": " + std::strerror(e);
        }
        ::close(fd);
        break;
      }
      struct stat a {
      }, b{};
      if (::fstat(fd, &a) == 0 && ::stat(path_.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
        fd_ = fd;
      } else {
        ::close(fd); // removed (or replaced) by the run that held it: try again
      }
    }
    if (fd_ < 0 && error.empty()) error = "cannot lock " + path_ + ": it keeps being replaced";
    if (fd_ >= 0) {
      const std::string me = "pid " + std::to_string(static_cast<long long>(::getpid())) + " on host " + host_name() +
                             " since " + now_text() + "\n";
      if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, me.data(), me.size(), 0) != static_cast<ssize_t>(me.size())) {
        // Only the holder's description is lost: the lock itself holds.
      } else {
        text_ = me;
      }
      remove_stale_temporaries(dir);
    }
  }
  if (!Communicator::world().any(!error.empty())) return;
  if (fd_ >= 0) {
    ::unlink(path_.c_str());
    ::close(fd_);
    fd_ = -1;
  }
  if (error == "busy")
    throw InputError(key,
                     "the output folder '" + dir + "' is in use by another fvproxy run" +
                         (holder.empty() ? std::string() : " (" + holder + ")"),
                     "two runs must not write into one folder: wait for it to end, or choose another folder "
                     "(--output-dir); a run that was killed does not hold the lock (" +
                         path_ + ")");
  throw InputError(key, "cannot lock the output folder '" + dir + "'", error.empty() ? "on another rank" : error);
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str()); // while still holding the lock (see the constructor)
  ::close(fd_);
}

} // namespace fvproxy
