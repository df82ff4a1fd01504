#pragma once
// Kokkos Tools libraries checked before Kokkos loads them (docs/performance.md#kokkos-tools): a
// missing file, a folder, a text or empty file made Kokkos print an error and run on without the
// tool (exit 0), a truncated shared object killed the run with SIGBUS inside dlopen, and the
// libraries after the first of an `A;B` list (which the first tool loads itself) were never looked at.
#include <string>
#include <vector>

namespace fvproxy {

/// Every library named by the Kokkos arguments (`--kokkos-tools-libs=` / `--kokkos-tools-library=`,
/// as check_kokkos_args passes them on) or, without one, by the environment variables this Kokkos
/// reads (KOKKOS_TOOLS_LIBS, KOKKOS_PROFILE_LIBRARY): each entry of its `;` list must be a regular,
/// complete ELF shared object of this machine's kind (a name without `/` is looked up where the
/// dynamic loader looks: LD_LIBRARY_PATH and the system's library folders). InputError naming the
/// option or variable, the library and what is wrong with it.
void check_tool_libraries(const std::vector<std::string>& kokkos_args);

/// What is wrong with `path` as a shared library for this process ("" when nothing is).
std::string shared_library_problem(const std::string& path);

} // namespace fvproxy
