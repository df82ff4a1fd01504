#pragma once
// Per-rank reports of `fvproxy run` (docs/output.md#json-output, docs/parallel.md#per-rank-reports):
// every rank's placement (host, device id, PCI bus id), owned and ghost cells, phase timers,
// halo exchange counters and kernel timers, gathered on rank 0 and summarized as min / mean / max
// over ranks with the rank that holds the max; the slowest rank is the one with the most busy
// time (time loop - output - halo wait).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/kernel_profiler.hpp"
#include "core/memory_peaks.hpp"
#include "parallel/communicator.hpp"
#include "parallel/halo.hpp"
#include "parallel/placement.hpp"

namespace fvproxy {

/// {"min", "mean", "max", "slowest_rank"} of one value per rank (slowest_rank: the max's, the
/// lowest rank on ties).
nlohmann::json over_ranks(const std::vector<double>& v);

/// host, local_rank, device, device_id (null on the host), pci_bus_id (null on the host).
nlohmann::json to_json(const RankPlacement& p);

/// The halo counters of summary.json's per-rank "halo" (docs/output.md#json-output): the totals,
/// "stages" (the run's Runge-Kutta stages: its state exchanges) and per kind of exchange ("state",
/// "gradient_limiter") the same counters with "per_stage" (each divided by the stages).
nlohmann::json halo_json(const HaloStats& h);

/// The same tree of objects as each rank's, every number replaced by over_ranks of its values
/// (keys: those of the first rank's).
nlohmann::json over_ranks_tree(const std::vector<nlohmann::json>& per_rank);

/// What one rank measured in a run.
struct RankRun {
  long long owned = 0, ghosts = 0;
  double setup = 0, time_loop = 0, io = 0;
  std::vector<KernelTime> kernels; ///< with --profile
  const Halo* halo = nullptr;      ///< none on one rank
  HaloStats halo_before;           ///< its counters before the run (set-up exchanges), left out
  MemoryPeaks memory;              ///< peaks (core/memory_peaks.hpp)
};

/// Collective. On rank 0: {"ranks": [...], "phases", "slowest_rank", "timers", "halo", "memory"}
/// (the keys of summary.json); null on the other ranks.
nlohmann::json gather_run_report(const Communicator& comm, const RankRun& mine);

/// The halo block of the end-of-run summary (several ranks): per stage and kind of exchange the
/// messages, kB, pack / wait / unpack ms and the fraction hidden, then the whole run's seconds.
void print_halo_report(const nlohmann::json& report);

/// The memory line, the per-rank table of the end-of-run summary (several ranks), the kernel timers
/// over ranks and the halo report (print_halo_report).
void print_run_report(const nlohmann::json& report, bool profile);

} // namespace fvproxy
