#pragma once
// Every rank of a job must run the same case: ranks started with different case files, --set
// values or options would otherwise wait forever in a collective the others never enter, or fail
// inside MPI with no word from fvproxy (docs/parallel.md#every-rank-runs-the-same-case).
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "core/config.hpp"
#include "parallel/communicator.hpp"

namespace fvproxy {

/// One value of a resolved case: its key path ("physics.diffusivity", "initial[0].center[1]"),
/// its value (a number in a canonical spelling: 0.010 and 1e-2 agree) and where it was given.
struct CaseEntry {
  std::string key, value, where;
};

/// The resolved tree (`src` after its --set assignments) as entries sorted by key path, then the
/// command's own options as entries named after them ("--restart").
std::vector<CaseEntry> case_entries(const ConfigSource& src, const CliArgs& cli);

/// Collective, before anything else collective: compares a digest of every rank's entries (one
/// reduction when they agree). When they differ every rank throws the same InputError (exit 2,
/// said once by rank 0), naming the lowest rank that differs from rank 0 and its first difference.
void check_ranks_agree(const std::vector<CaseEntry>& mine, const Communicator& comm);

} // namespace fvproxy
