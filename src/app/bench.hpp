#pragma once
#include "app/cli.hpp"

namespace fvproxy {
/// fvproxy bench: each operator alone, per variant (docs/performance.md: method and byte models).
int cmd_bench(const CliArgs& cli);
} // namespace fvproxy
