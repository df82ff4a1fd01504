#pragma once
// The end of `fvproxy run`: summary.json (docs/output.md#json-output), the summary printed on
// stdout, and the message of a failed run.
#include <string>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "solver/case_config.hpp"
#include "solver/simulation.hpp"

namespace fvproxy {

/// YAML (the resolved configuration) as JSON: numbers and booleans typed, the rest strings.
nlohmann::json to_json(const YAML::Node& n);

/// h:mm:ss, or "?" when not finite.
std::string duration(double seconds);

/// summary.json of a run; `report` is gather_run_report's (rank_report.hpp).
nlohmann::json summary_json(const RunSummary& r, const CaseConfig& cfg, const nlohmann::json& report);

/// The summary printed on stdout at the end of a run (rank 0).
void print_summary(const RunSummary& r, const CaseConfig& cfg, const std::string& summary_path,
                   const nlohmann::json& report);

/// The error message of a run that stopped on a failing value (r.failure set).
std::string failure_message(const RunSummary& r, const CaseConfig& cfg, const std::string& summary_path);

} // namespace fvproxy
