#include "core/kernel_profiler.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <map>

#include <Kokkos_Core.hpp>

namespace fvproxy {

namespace {

using Clock = std::chrono::steady_clock;

/// The kernel callbacks of a tool loaded before --profile started (KOKKOS_PROFILE_LIBRARY,
/// KOKKOS_TOOLS_LIBS, --kokkos-tools-libs), per kind: for, reduce, scan. Chained: the tool still
/// sees every kernel, with the ids it gives them.
using BeginFn = void (*)(const char*, std::uint32_t, std::uint64_t*);
using EndFn = void (*)(std::uint64_t);

struct Open {
  std::string name;
  Clock::time_point t0;
  std::uint64_t id;
  int kind; // a tool may number each kind of kernel on its own: an id is matched with its kind
};

struct State {
  bool active = false;
  std::map<std::string, KernelTime> kernels;
  // Kernels in flight (host launches do not nest, but a reduction may launch internal kernels).
  std::vector<Open> open;
  std::uint64_t next_id = 0;
  std::array<BeginFn, 3> tool_begin{};
  std::array<EndFn, 3> tool_end{};
};
State& state() {
  static State s;
  return s;
}

template <int Kind> void begin_kernel(const char* name, const std::uint32_t device, std::uint64_t* id) {
  Kokkos::fence();
  auto& s = state();
  if (s.tool_begin[Kind])
    s.tool_begin[Kind](name, device, id); // the tool's id, passed back to its end callback
  else
    *id = s.next_id++;
  s.open.push_back({name, Clock::now(), *id, Kind});
}

template <int Kind> void end_kernel(const std::uint64_t id) {
  Kokkos::fence();
  auto& s = state();
  for (std::size_t i = s.open.size(); i-- > 0;) {
    if (s.open[i].id != id || s.open[i].kind != Kind) continue;
    KernelTime& k = s.kernels[s.open[i].name];
    k.label = s.open[i].name;
    k.calls += 1;
    k.seconds += std::chrono::duration<double>(Clock::now() - s.open[i].t0).count();
    s.open.erase(s.open.begin() + static_cast<std::ptrdiff_t>(i));
    break;
  }
  if (s.tool_end[Kind]) s.tool_end[Kind](id);
}

void set_kernel_callbacks(const std::array<BeginFn, 3>& begin, const std::array<EndFn, 3>& end) {
  namespace T = Kokkos::Tools::Experimental;
  T::set_begin_parallel_for_callback(begin[0]);
  T::set_end_parallel_for_callback(end[0]);
  T::set_begin_parallel_reduce_callback(begin[1]);
  T::set_end_parallel_reduce_callback(end[1]);
  T::set_begin_parallel_scan_callback(begin[2]);
  T::set_end_parallel_scan_callback(end[2]);
}

} // namespace

void KernelProfiler::start() {
  const auto tool = Kokkos::Tools::Experimental::get_callbacks();
  state() = State{};
  state().active = true;
  state().tool_begin = {tool.begin_parallel_for, tool.begin_parallel_reduce, tool.begin_parallel_scan};
  state().tool_end = {tool.end_parallel_for, tool.end_parallel_reduce, tool.end_parallel_scan};
  set_kernel_callbacks({begin_kernel<0>, begin_kernel<1>, begin_kernel<2>},
                       {end_kernel<0>, end_kernel<1>, end_kernel<2>});
}

void KernelProfiler::stop() {
  set_kernel_callbacks(state().tool_begin, state().tool_end); // the tool's own again (or none)
  state().active = false;
}

bool KernelProfiler::active() {
  return state().active;
}

std::vector<KernelTime> KernelProfiler::table() {
  std::vector<KernelTime> t;
  for (const auto& [name, k] : state().kernels) t.push_back(k);
  std::stable_sort(t.begin(), t.end(), [](const KernelTime& a, const KernelTime& b) { return a.seconds > b.seconds; });
  return t;
}

} // namespace fvproxy
