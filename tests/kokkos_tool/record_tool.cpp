// A Kokkos Tools library for the tests (tests/cli/kokkos_tool.sh): it records, per process, every
// profiling region pushed and popped and every kernel with its label and the regions it runs in,
// to FVPROXY_TOOL_LOG.<pid>. Loaded by Kokkos 3.4 through KOKKOS_PROFILE_LIBRARY, by Kokkos 4.x
// through KOKKOS_TOOLS_LIBS, by both through --kokkos-tools-libs (docs/performance.md#kokkos-tools).
// Only the C interface Kokkos looks up by name: no Kokkos header, no link to Kokkos.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct Recorder {
  std::FILE* out = nullptr;
  std::vector<std::string> regions;
  std::vector<std::string> kernels_open; // by id: the kernel's label
  void line(const std::string& s) {
    if (out) std::fprintf(out, "%s\n", s.c_str());
  }
  std::string stack() const {
    std::string s;
    for (const auto& r : regions) s += (s.empty() ? "" : "/") + r;
    return s.empty() ? "-" : s;
  }
};

Recorder& rec() {
  static Recorder r;
  return r;
}

void begin(const char* kind, const char* name, std::uint64_t* id) {
  Recorder& r = rec();
  *id = r.kernels_open.size();
  r.kernels_open.emplace_back(name);
  r.line(std::string("kernel ") + kind + " " + name + " in " + r.stack());
}

void end(std::uint64_t id) {
  Recorder& r = rec();
  if (id + 1 != r.kernels_open.size()) r.line("error: kernel end out of order: id " + std::to_string(id));
  if (id < r.kernels_open.size()) r.kernels_open.resize(id);
}

} // namespace

extern "C" {

void kokkosp_init_library(const int, const std::uint64_t, const std::uint32_t, void*) {
  const char* base = std::getenv("FVPROXY_TOOL_LOG");
  if (!base) return;
  const std::string path = std::string(base) + "." + std::to_string(static_cast<long>(getpid()));
  rec().out = std::fopen(path.c_str(), "w");
  rec().line("init");
}

void kokkosp_finalize_library() {
  Recorder& r = rec();
  r.line("finalize with " + std::to_string(r.regions.size()) + " regions open");
  if (r.out) std::fclose(r.out);
  r.out = nullptr;
}

void kokkosp_begin_parallel_for(const char* name, const std::uint32_t, std::uint64_t* id) {
  begin("for", name, id);
}
void kokkosp_end_parallel_for(const std::uint64_t id) {
  end(id);
}
void kokkosp_begin_parallel_reduce(const char* name, const std::uint32_t, std::uint64_t* id) {
  begin("reduce", name, id);
}
void kokkosp_end_parallel_reduce(const std::uint64_t id) {
  end(id);
}
void kokkosp_begin_parallel_scan(const char* name, const std::uint32_t, std::uint64_t* id) {
  begin("scan", name, id);
}
void kokkosp_end_parallel_scan(const std::uint64_t id) {
  end(id);
}

void kokkosp_push_profile_region(const char* name) {
  Recorder& r = rec();
  r.regions.emplace_back(name);
  r.line("push " + r.stack());
}

void kokkosp_pop_profile_region() {
  Recorder& r = rec();
  if (r.regions.empty()) {
    r.line("error: pop without a region");
    return;
  }
  r.line("pop " + r.stack());
  r.regions.pop_back();
}

} // extern "C"
