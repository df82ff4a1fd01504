#pragma once
#include "app/cli.hpp"
#include "core/config.hpp"
#include "io/field_file.hpp"

namespace fvproxy {

/// fvproxy run: the simulation of a case (docs/inputs.md#fvproxy-run), its progress, summary and summary.json.
int cmd_run(const CliArgs& cli);

/// What every output file of `cfg` stores: the resolved case as YAML, the per-operator options
/// as JSON ("{}" for a mesh alone: parse_case_mesh) and fvproxy info --json.
FileMetadata file_metadata(const CaseConfig& cfg);

} // namespace fvproxy
