// perf/stage_tool.cpp: a Kokkos Tools library that tells where the HOST's time of a run goes
// (issue 40 item 1: the fixed cost per Runge-Kutta stage on several GPUs, where Nsight Systems
// cannot make a report). Nothing is fenced: it timestamps, with the host's steady clock, every
// kernel launch (begin -> end of parallel_for / reduce / scan: on a GPU the launch call, not the
// kernel: the tool asks Kokkos for no fences of its own), every fence and deep copy, and every profiling region
// (fvproxy::solver::time_step, rk_stage, fvproxy::parallel::halo_start and halo_finish: src/parallel/halo.cpp), and
// adds them up per region stack. At the end each process writes FVPROXY_STAGE_LOG.<rank> (OMPI / PMI / Slurm rank, else
// the pid), one CSV line per (kind, stack, name): calls, seconds, and for regions their self seconds (inclusive minus
// nested regions, launches, fences and copies: the host's own work there: MPI calls, CUDA event records, stream waits,
// host loops). perf/stage_breakdown.py turns the files into per-stage figures. Build (no Kokkos header, no link to
// Kokkos):
//   g++ -O2 -std=c++17 -shared -fPIC perf/stage_tool.cpp -o libfvproxy_stage_tool.so
// Load: KOKKOS_TOOLS_LIBS=$PWD/libfvproxy_stage_tool.so (Kokkos 4.x), KOKKOS_PROFILE_LIBRARY (3.4).
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double now() {
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

struct Sum {
  long long calls = 0;
  double seconds = 0;
  double self = 0; // regions only
};

struct Open {
  std::string name;
  double t0;
  double inner = 0; // time of the nested regions, launches, fences and copies
};

struct Tool {
  std::map<std::tuple<std::string, std::string, std::string>, Sum> sums; // (kind, stack, name)
  std::vector<Open> regions;
  std::vector<Open> ops; // kernels, fences, copies in flight (nested only through a tool's bug)
  std::vector<std::string> op_kind;
  std::string stack() const {
    std::string s;
    for (const auto& r : regions) s += (s.empty() ? "" : "/") + r.name;
    return s.empty() ? "-" : s;
  }
  void begin_op(const char* kind, const char* name, std::uint64_t* id) {
    *id = ops.size();
    ops.push_back({name ? name : "", now()});
    op_kind.emplace_back(kind);
  }
  void end_op(std::uint64_t id) {
    if (id + 1 != ops.size()) return;
    const double dt = now() - ops.back().t0;
    Sum& s = sums[{op_kind.back(), stack(), ops.back().name}];
    ++s.calls;
    s.seconds += dt;
    ops.pop_back();
    op_kind.pop_back();
    if (ops.empty() && !regions.empty()) regions.back().inner += dt; // an op inside an op is in its time
  }
};

Tool& tool() {
  static Tool t;
  return t;
}

std::string csv(std::string s) {
  for (char& c : s)
    if (c == ',' || c == '\n') c = ';';
  return s;
}

std::string rank_id() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* r = std::getenv(v)) return r;
  return std::to_string(static_cast<long>(getpid()));
}

} // namespace

extern "C" {

struct SpaceHandle {
  char name[64];
};

struct Kokkos_Tools_ToolSettings { // Kokkos 4.x's layout (Kokkos_Profiling_C_Interface.h)
  bool requires_global_fencing;
  bool padding[255];
};

// Without this Kokkos 4.x fences the device before and after every kernel for the tool ("Kokkos
// Profile Tool Fence"): the host would wait for each kernel and the launch calls' times would be
// the kernels'. Kokkos 3.4 never asks (and never fences for a tool).
void kokkosp_request_tool_settings(const std::uint32_t, Kokkos_Tools_ToolSettings* settings) {
  settings->requires_global_fencing = false;
}

void kokkosp_init_library(const int, const std::uint64_t, const std::uint32_t, void*) {}

void kokkosp_finalize_library() {
  const char* base = std::getenv("FVPROXY_STAGE_LOG");
  if (!base) return;
  const std::string path = std::string(base) + "." + rank_id();
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return;
  std::fprintf(f, "kind,stack,name,calls,seconds,self_seconds\n");
  for (const auto& [key, s] : tool().sums)
    std::fprintf(f, "%s,%s,%s,%lld,%.9f,%.9f\n", std::get<0>(key).c_str(), csv(std::get<1>(key)).c_str(),
                 csv(std::get<2>(key)).c_str(), s.calls, s.seconds, s.self);
  std::fclose(f);
}

void kokkosp_push_profile_region(const char* name) {
  tool().regions.push_back({name, now()});
}

void kokkosp_pop_profile_region() {
  Tool& t = tool();
  if (t.regions.empty()) return;
  const Open r = t.regions.back();
  const double dt = now() - r.t0;
  const std::string name = r.name;
  t.regions.pop_back();
  Sum& s = t.sums[{"region", t.stack(), name}];
  ++s.calls;
  s.seconds += dt;
  s.self += dt - r.inner;
  if (!t.regions.empty()) t.regions.back().inner += dt;
}

void kokkosp_begin_parallel_for(const char* name, const std::uint32_t, std::uint64_t* id) {
  tool().begin_op("launch", name, id);
}
void kokkosp_end_parallel_for(const std::uint64_t id) {
  tool().end_op(id);
}
void kokkosp_begin_parallel_reduce(const char* name, const std::uint32_t, std::uint64_t* id) {
  tool().begin_op("launch", name, id);
}
void kokkosp_end_parallel_reduce(const std::uint64_t id) {
  tool().end_op(id);
}
void kokkosp_begin_parallel_scan(const char* name, const std::uint32_t, std::uint64_t* id) {
  tool().begin_op("launch", name, id);
}
void kokkosp_end_parallel_scan(const std::uint64_t id) {
  tool().end_op(id);
}
void kokkosp_begin_fence(const char* name, const std::uint32_t, std::uint64_t* id) {
  tool().begin_op("fence", name, id);
}
void kokkosp_end_fence(const std::uint64_t id) {
  tool().end_op(id);
}

void kokkosp_begin_deep_copy(SpaceHandle, const char* dst, const void*, SpaceHandle, const char*, const void*,
                             std::uint64_t) {
  std::uint64_t id;
  tool().begin_op("copy", dst, &id);
}
void kokkosp_end_deep_copy() {
  Tool& t = tool();
  if (!t.ops.empty()) t.end_op(t.ops.size() - 1);
}

} // extern "C"
