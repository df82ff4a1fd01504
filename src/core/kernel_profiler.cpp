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

} // namespace

void KernelProfiler::start() {
  namespace T = Kokkos::Tools::Experimental;
  auto& s = state();
  s = State{};
  s.active = true;
  T::set_begin_parallel_for_callback(begin_kernel);
  T::set_end_parallel_for_callback(end_kernel);
  T::set_begin_parallel_reduce_callback(begin_kernel);
  T::set_end_parallel_reduce_callback(end_kernel);
  T::set_begin_parallel_scan_callback(begin_kernel);
  T::set_end_parallel_scan_callback(end_kernel);
}

void KernelProfiler::stop() {
  namespace T = Kokkos::Tools::Experimental;
  T::set_begin_parallel_for_callback(nullptr);
  T::set_end_parallel_for_callback(nullptr);
  T::set_begin_parallel_reduce_callback(nullptr);
  T::set_end_parallel_reduce_callback(nullptr);
  T::set_begin_parallel_scan_callback(nullptr);
  T::set_end_parallel_scan_callback(nullptr);
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
