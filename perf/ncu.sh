#!/usr/bin/env bash
# perf/ncu.sh OUT: Nsight Compute on the GPU machine (from the bundle): why a RangePolicy copy
# kernel and a TeamPolicy one differ, and how the optimized gathers and scatters use DRAM.
# Sections: SpeedOfLight (DRAM and SM throughput), LaunchStats (grid, block, registers),
# Occupancy (theoretical and achieved), MemoryWorkloadAnalysis (bytes moved, cache hit rates).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?usage: perf/ncu.sh OUT}"
mkdir -p "$out"
ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[[ -n "$ncu" ]] || { echo "ncu not found" >&2; exit 1; }
cd "$here"
"$ncu" --version | tee "$out/ncu-version.txt"
./run.sh "$ncu" --target-processes all --kernel-name-base demangled \
  --kernel-name regex:'Copy|ConvectionGatherInterior|ConvectionScatterInterior|DiffusionGatherInterior|DiffusionScatterInterior' \
  --section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis \
  bin/fvproxy perf perf/ncu.yaml --output-dir "$out/perf" >"$out/ncu.txt" 2>"$out/ncu.err"
echo "ncu exit $?"
grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Memory Throughput|Block Size|Grid Size|Registers Per|Achieved Occupancy|Theoretical Occupancy" "$out/ncu.txt" | head -200
