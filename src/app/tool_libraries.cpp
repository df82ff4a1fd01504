#include "app/tool_libraries.hpp"

#include <elf.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/kokkos_compat.hpp"

namespace fvproxy {

namespace fs = std::filesystem;

namespace {

// The ELF types of this process: a library of another class (32/64-bit) or machine cannot be loaded.
#if defined(__LP64__)
using Ehdr = Elf64_Ehdr;
using Phdr = Elf64_Phdr;
constexpr unsigned char kClass = ELFCLASS64;
#else
using Ehdr = Elf32_Ehdr;
using Phdr = Elf32_Phdr;
constexpr unsigned char kClass = ELFCLASS32;
#endif
#if defined(__x86_64__)
constexpr int kMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr int kMachine = EM_AARCH64;
#elif defined(__powerpc64__)
constexpr int kMachine = EM_PPC64;
#else
constexpr int kMachine = -1; // not checked
#endif

std::string ordinal(std::size_t i) {
  static const char* const words[] = {"first", "second", "third", "fourth", "fifth"};
  return i < 5 ? words[i] : std::to_string(i + 1) + "th";
}

/// The file a name without '/' resolves to as the dynamic loader looks for it (LD_LIBRARY_PATH, then
/// the system's library folders); "" when none holds it.
std::string find_library(const std::string& name) {
  std::vector<std::string> dirs;
  if (const char* p = std::getenv("LD_LIBRARY_PATH")) {
    std::stringstream list(p);
    for (std::string d; std::getline(list, d, ':');)
      if (!d.empty()) dirs.push_back(d);
  }
  for (const char* d : {"/lib", "/usr/lib", "/lib64", "/usr/lib64", "/usr/local/lib", "/lib/x86_64-linux-gnu",
                        "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu"})
    dirs.emplace_back(d);
  std::error_code ec;
  for (const std::string& d : dirs)
    if (fs::exists(fs::path(d) / name, ec)) return (fs::path(d) / name).string();
  return "";
}

/// The ELF header and program headers of `path` (already a regular file of `size` bytes) against
/// this process; "" when they fit.
std::string elf_problem(const std::string& path, std::uintmax_t size) {
  std::ifstream in(path, std::ios::binary);
  Ehdr h{};
  if (!in.read(reinterpret_cast<char*>(&h), sizeof h) || std::memcmp(h.e_ident, ELFMAG, SELFMAG) != 0)
    return "is not a shared library (no ELF header: a text file, or damaged?)";
  if (h.e_ident[EI_CLASS] != kClass)
    return std::string("is a ") + (h.e_ident[EI_CLASS] == ELFCLASS32 ? "32" : "64") + "-bit ELF file; fvproxy is " +
           (kClass == ELFCLASS64 ? "64" : "32") + "-bit";
  if (h.e_type != ET_DYN) return "is an ELF file but not a shared object (ELF type " + std::to_string(h.e_type) + ")";
  if (kMachine >= 0 && h.e_machine != kMachine)
    return "is a shared object for another machine (ELF machine " + std::to_string(h.e_machine) + ", this one " +
           std::to_string(kMachine) + ")";
  const auto truncated = [&](std::uintmax_t end, const char* what) {
    return "is truncated: its " + std::string(what) + " end at byte " + std::to_string(end) + ", the file has " +
           std::to_string(size) + " (an interrupted copy?)";
  };
  const std::uintmax_t ph_end = std::uintmax_t(h.e_phoff) + std::uintmax_t(h.e_phnum) * h.e_phentsize;
  if (ph_end > size) return truncated(ph_end, "program headers");
  if (h.e_shoff != 0 && std::uintmax_t(h.e_shoff) + std::uintmax_t(h.e_shnum) * h.e_shentsize > size)
    return truncated(std::uintmax_t(h.e_shoff) + std::uintmax_t(h.e_shnum) * h.e_shentsize, "section headers");
  // The loaded segments: mapping one past the end of the file is what made dlopen die of SIGBUS.
  for (int i = 0; i < h.e_phnum; ++i) {
    Phdr p{};
    in.seekg(std::streamoff(h.e_phoff + std::uintmax_t(i) * h.e_phentsize));
    if (!in.read(reinterpret_cast<char*>(&p), sizeof p)) return truncated(ph_end, "program headers");
    if (p.p_type == PT_LOAD && std::uintmax_t(p.p_offset) + p.p_filesz > size)
      return truncated(std::uintmax_t(p.p_offset) + p.p_filesz, "loaded segments");
  }
  return "";
}

/// Each library of `list` (`;`-separated) from `where` (an option or a variable).
void check_list(const std::string& where, const std::string& list) {
  std::vector<std::string> libs;
  std::stringstream in(list);
  for (std::string lib; std::getline(in, lib, ';');)
    if (!lib.empty()) libs.push_back(lib);
  if (list.empty()) return; // an empty variable: no tool, as Kokkos reads it
  if (libs.empty())
    throw InputError(where, "names no library ('" + list + "')", "give the path of a Kokkos tool (.so)");
  for (std::size_t i = 0; i < libs.size(); ++i) {
    std::string path = libs[i], problem;
    if (path.find('/') == std::string::npos) {
      path = find_library(libs[i]);
      if (path.empty()) problem = "is not in LD_LIBRARY_PATH nor in the system's library folders";
    }
    if (problem.empty()) problem = shared_library_problem(path);
    if (problem.empty()) continue;
    const std::string which = libs.size() > 1 ? " (the " + ordinal(i) + " library of '" + list + "')" : "";
    throw InputError(where, "the Kokkos tool library '" + libs[i] + "'" + which + " " + problem,
                     "Kokkos would start without the tool (or die loading it): give the path of a complete tool "
                     "library (docs/performance.md#kokkos-tools)");
  }
}

} // namespace

std::string shared_library_problem(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) return "does not exist";
  if (fs::is_directory(st)) return "is a folder, not a library";
  if (!fs::is_regular_file(st)) return "is not a regular file";
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) return "cannot be read (" + ec.message() + ")";
  if (size == 0) return "is empty";
  if (!std::ifstream(path, std::ios::binary)) return "cannot be read (permissions?)";
  return elf_problem(path, size);
}

void check_tool_libraries(const std::vector<std::string>& kokkos_args) {
  // The command line wins over the environment in every Kokkos version.
  for (const std::string& a : kokkos_args)
    for (const char* option : {"--kokkos-tools-libs=", "--kokkos-tools-library="})
      if (a.rfind(option, 0) == 0) return check_list(a, a.substr(std::strlen(option)));
  for (const char* variable : kc::kToolsLibraryVariables)
    if (const char* v = std::getenv(variable)) check_list(variable, v);
}

} // namespace fvproxy
