// The ablation ladder's names and checks (operators/ladder/ladder.hpp).
#include "operators/ladder/ladder.hpp"

#include "core/error.hpp"

namespace fvproxy {

const char* ladder_step_name(int step) {
  static const char* const names[kLadderSteps] = {"naive",      "range",  "static",     "registers",
                                                  "branchless", "gather", "precomputed"};
  return step >= 0 && step < kLadderSteps ? names[step] : "?";
}

void check_ladder_components(int components, const std::string& key) {
  if (components != 1 && components != 5)
    throw InputError(key, std::to_string(components) + " components: the ablation ladder is built for 1 and 5 only",
                     "time it with 1 or 5 components (the other counts run the naive and optimized variants)");
}

void check_ladder_step(long long step, const std::string& key) {
  if (step < 0 || step >= kLadderSteps)
    throw InputError(key, "ladder step " + std::to_string(step) + " out of range",
                     "0 (naive) to " + std::to_string(kLadderSteps - 1) + " (precomputed)");
}

} // namespace fvproxy
