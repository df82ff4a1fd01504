#pragma once
#include <array>
#include <csignal>

#include "app/cli.hpp"
#include "io/field_file.hpp"
#include "solver/case_config.hpp"

namespace fvproxy {

/// SIGTERM, SIGINT, SIGUSR1 and SIGUSR2 ask `fvproxy run` to stop: during set-up before anything
/// is written (exit 4), in the time loop after a checkpoint (exit 3); a second one kills it
/// (SA_RESETHAND). mpirun does not forward SIGTERM to the ranks (it kills them) but forwards
/// SIGUSR1 and SIGUSR2: `kill -USR1 <mpirun pid>` stops a decomposed run (docs/parallel.md#signals).
/// main installs them before MPI and Kokkos start; the destructor restores the previous handlers.
class StopSignals {
public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  /// The last stop signal received (0: none).
  static int received();

private:
  static constexpr std::array<int, 4> kSignals{SIGTERM, SIGINT, SIGUSR1, SIGUSR2};
  std::array<struct sigaction, 4> old_ = {};
};

/// fvproxy run: the simulation of a case (docs/running.md#fvproxy-run), its progress, summary and summary.json.
int cmd_run(const CliArgs& cli);

/// What every output file of `cfg` stores: the resolved case as YAML, the per-operator options
/// as JSON ("{}" for a mesh alone: parse_case_mesh) and fvproxy info --json.
FileMetadata file_metadata(const CaseConfig& cfg);

} // namespace fvproxy
