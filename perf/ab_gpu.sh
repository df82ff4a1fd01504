#!/usr/bin/env bash
# perf/ab_gpu.sh OUT SPEC BIN_A BIN_B [ROUNDS]: the same perf spec run by two builds of fvproxy in one
# session on the GPU machine (from the bundle: scripts/bundle-device.sh; carry the second build
# beside bin/fvproxy), alternating A, B, A, B ... ROUNDS times [2] so that a drift of the machine
# shows as a difference between rounds, not between builds. Each run measures its own copy limit,
# so the figure to compare is a kernel's % of the copy limit (results.csv: fraction_of_copy_limit), a ratio
# inside one run; perf/ab_compare.py OUT prints them side by side (also in OUT/compare.txt).
# OUT/machine.txt records the GPU,
# the driver and both builds' `fvproxy info` (Kokkos, git revision).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
usage="usage: perf/ab_gpu.sh OUT SPEC BIN_A BIN_B [ROUNDS]"
out="${1:?$usage}" spec="${2:?$usage}" a="${3:?$usage}" b="${4:?$usage}" rounds="${5:-2}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$here"
# shellcheck source=perf/gpu_common.sh
source perf/gpu_common.sh
gpu_machine_header "spec $spec rounds $rounds" "$a" "$b" >"$out/machine.txt" 2>&1
for ((r = 1; r <= rounds; ++r)); do
  for side in A B; do
    bin=$a
    [[ $side == B ]] && bin=$b
    gpu_step "$side$r" 590 "$bin" perf "$spec" --output-dir "$out/$side$r"
  done
done
python3 "$here/perf/ab_compare.py" "$out" >"$out/compare.txt" 2>&1 && cat "$out/compare.txt"
