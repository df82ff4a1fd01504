#include "core/kernel_profiler.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>

#include <Kokkos_Core.hpp>

namespace fvproxy {

namespace {

using Clock = std::chrono::steady_clock;

struct State {
  bool active = false;
  std::map<std::string, KernelTime> kernels;
  // Kernels in flight (host launches do not nest, but a reduction may launch internal kernels).
  std::vector<std::pair<std::string, Clock::time_point>> open;
};
State& state() {
  static State s;
  return s;
}

void begin_kernel(const char* name, const std::uint32_t, std::uint64_t* id) {
  Kokkos::fence();
  auto& s = state();
  *id = s.open.size();
  s.open.emplace_back(name, Clock::now());
}

void end_kernel(const std::uint64_t id) {
  Kokkos::fence();
  auto& s = state();
  if (id >= s.open.size()) return;
  const auto [name, t0] = s.open[id];
  s.open.resize(id);
  KernelTime& k = s.kernels[name];
  k.label = name;
  k.calls += 1;
  k.seconds += std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Installs (or, with nullptrs, removes) the same begin/end pair for every kind of kernel.
void set_kernel_callbacks(void (*begin)(const char*, std::uint32_t, std::uint64_t*), void (*end)(std::uint64_t)) {
  namespace T = Kokkos::Tools::Experimental;
  T::set_begin_parallel_for_callback(begin);
  T::set_end_parallel_for_callback(end);
  T::set_begin_parallel_reduce_callback(begin);
  T::set_end_parallel_reduce_callback(end);
  T::set_begin_parallel_scan_callback(begin);
  T::set_end_parallel_scan_callback(end);
}

} // namespace

void KernelProfiler::start() {
  state() = State{};
  state().active = true;
  set_kernel_callbacks(begin_kernel, end_kernel);
}

void KernelProfiler::stop() {
  set_kernel_callbacks(nullptr, nullptr);
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
