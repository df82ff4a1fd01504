#pragma once
#include "app/cli.hpp"

namespace fvproxy {

/// fvproxy run: the simulation of a case (INTERFACE.md), its progress, summary and summary.json.
int cmd_run(const CliArgs& cli);

} // namespace fvproxy
