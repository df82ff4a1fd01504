#pragma once
#include "app/cli.hpp"

namespace fvproxy {

/// fvproxy perf SPEC.yaml --output-dir DIR: the benchmark matrix of perf/ (docs/performance.md).
int cmd_perf(const CliArgs& cli);

} // namespace fvproxy
