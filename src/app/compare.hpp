#pragma once
#include "app/cli.hpp"

namespace fvproxy {

/// fvproxy compare A B: two fields/checkpoint files or output folders, cell by cell (io/compare.hpp).
/// Exit 0 when every field is within tolerance, 1 when one is not; InputError (2) on bad input.
int cmd_compare(const CliArgs& cli);

} // namespace fvproxy
