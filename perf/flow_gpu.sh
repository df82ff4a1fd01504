#!/usr/bin/env bash
# perf/flow_gpu.sh PHASE OUT: issue 16's GPU measurements of the flow solver from the bundle
# (scripts/bundle-device.sh), each phase under ten minutes (one device command):
#   a: the flow cases end to end on the GPU (inputs/sod.yaml, sod_tet.yaml, vortex.yaml, couette.yaml:
#      their errors and the Couette steady state, to compare with the CPU's), the whole flow step
#      against the sum of its kernels' minimal bytes (perf/flow-step-gpu.yaml), and the Taylor-Green
#      vortex at 64^3 to t = 20 (inputs/taylor_green.yaml: integrals.csv)
#   b: the Taylor-Green vortex at CELLS^3 (env CELLS, default 128) for at most LIMIT seconds (env
#      LIMIT, default 540: run.wall_limit stops it with a checkpoint; integrals.csv holds what it did)
# OUT/machine-PHASE.txt records the GPU, driver and fvproxy info (Kokkos, git revision).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
phase="${1:?usage: perf/flow_gpu.sh a|b OUT}"
out="${2:?usage: perf/flow_gpu.sh a|b OUT}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$here"
# shellcheck source=perf/gpu_common.sh
source perf/gpu_common.sh
step() { gpu_step "$@"; }
gpu_machine_header "phase $phase" >"$out/machine-$phase.txt" 2>&1
case "$phase" in
  a)
    for c in sod sod_tet vortex couette; do
      step "case-$c" 60 bin/fvproxy run "inputs/$c.yaml" --output-dir "$out/cases/$c" --set run.progress_interval=1000
      rm -f "$out/cases/$c"/*.h5 # the summaries are what comes back
    done
    step flow-step 240 bin/fvproxy perf perf/flow-step-gpu.yaml --output-dir "$out/flow-step"
    step tgv-64 200 bin/fvproxy run inputs/taylor_green.yaml --set "mesh.generate.cells=[64,64,64]" \
      --set run.progress_interval=30 --output-dir "$out/tgv-64"
    rm -f "$out"/tgv-64/*.h5
    ;;
  b)
    n="${CELLS:-128}"
    step "tgv-$n" "$((${LIMIT:-540} + 40))" bin/fvproxy run inputs/taylor_green.yaml \
      --set "mesh.generate.cells=[$n,$n,$n]" --set "run.wall_limit=${LIMIT:-540}" --set run.progress_interval=30 \
      --output-dir "$out/tgv-$n"
    rm -f "$out/tgv-$n"/*.h5
    ;;
  *) echo "flow_gpu.sh: phase a or b" >&2; exit 2 ;;
esac
