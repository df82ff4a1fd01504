#pragma once
// Named steps' wall seconds in the order they ran: the breakdown of a set-up (`fvproxy mesh
// --in-parts` prints it per rank). Each lap fences the device first, so a step's kernels and
// copies count in the step that launched them.
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

namespace fvproxy {

class StepTimes {
public:
  /// The time since the last lap (or since construction) as step `name`; the same name again adds to it.
  void lap(const std::string& name) {
    Kokkos::fence();
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - start_).count();
    start_ = now;
    for (auto& step : steps_)
      if (step.first == name) {
        step.second += s;
        return;
      }
    steps_.emplace_back(name, s);
  }
  /// Restart the clock without recording (time outside the steps).
  void skip() {
    Kokkos::fence();
    start_ = std::chrono::steady_clock::now();
  }
  const std::vector<std::pair<std::string, double>>& steps() const { return steps_; }
  /// The sum of the steps.
  double total() const {
    double t = 0;
    for (const auto& step : steps_) t += step.second;
    return t;
  }

private:
  std::vector<std::pair<std::string, double>> steps_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

} // namespace fvproxy
