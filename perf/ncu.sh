#!/usr/bin/env bash
# perf/ncu.sh OUT [SPEC [REGEX]]: Nsight Compute on the GPU machine (from the bundle): why a RangePolicy copy
# kernel and a TeamPolicy one differ, and how the optimized gathers and scatters use DRAM.
#   SPEC: the perf spec to profile (default perf/ncu.yaml: convection and diffusion);
#   REGEX: the demangled kernel names to profile (default: the copy kernels, convection and
#   diffusion). perf/ncu-muscl.yaml with 'Copy|GradientGather|LimiterGather|FusedMuscl' profiles
#   the two-pass and the fused MUSCL kernels (issue 15's evidence of what bounds them).
#   FVPROXY=bin/kokkos-3.4.01/fvproxy profiles the bundle's other build; NCU_EXTRA adds ncu
#   options (e.g. --metrics sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active).
# Sections: SpeedOfLight (DRAM and SM throughput), LaunchStats (grid, block, registers),
# Occupancy (theoretical and achieved), MemoryWorkloadAnalysis (bytes moved, cache hit rates).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?usage: perf/ncu.sh OUT [SPEC [REGEX]]}"
spec="${2:-perf/ncu.yaml}"
regex="${3:-Copy|ConvectionGatherInterior|ConvectionScatterInterior|DiffusionGatherInterior|DiffusionScatterInterior}"
mkdir -p "$out"
ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[[ -n "$ncu" ]] || { echo "ncu not found" >&2; exit 1; }
cd "$here"
"$ncu" --version | tee "$out/ncu-version.txt"
./run.sh "$ncu" --target-processes all --kernel-name-base demangled \
  --kernel-name regex:"$regex" \
  --section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis ${NCU_EXTRA:-} \
  "${FVPROXY:-bin/fvproxy}" perf "$spec" --output-dir "$out/perf" >"$out/ncu.txt" 2>"$out/ncu.err"
echo "ncu exit $?"
# one row per kernel: what bounds it (perf/ncu_summary.py), also as OUT/ncu-summary.csv
python3 "$here/perf/ncu_summary.py" "$out/ncu.txt" --csv "$out/ncu-summary.csv" || true
