#!/usr/bin/env bash
# Issue 39's targets on an H100 (they were set on one; the fused step had only been measured on
# H200s since), and the GPU check of the commits since the last one (the corners stencil's ghost
# layers and default, FaceLaunch). From an unpacked device bundle's root:
#   bash perf/results/2026-12-06-h100-step/gpu.sh OUT perf
#     fvproxy perf perf/face-pass-gpu.yaml: the scalar SSP-RK3 step at N = 1 and 5 on 8.43M Z-ordered
#     tets, separate operators against the one face pass with each accumulation, against the fused
#     minimal-bytes model (fraction_of_fused_model); perf/flow-face-pass-gpu.yaml: flow-euler-step and
#     flow-ns-step (HLLC, MUSCL on (rho, u, p)) on 8.43M tets and 8.49M hexes, ns per cell per stage;
#   bash .../gpu.sh OUT ab NAME=EXECUTABLE...
#     the step with the defaults (perf/results/2026-11-29-h200-ab/step-ab.yaml), each executable of
#     the bundle (e.g. 7e560a1=bin/fvproxy-old fe93c43=bin/fvproxy) in turn, two rounds (A B A B);
#   bash .../gpu.sh OUT tests
#     every MPI test at 2 and 3 ranks on the GPU (perf/gpu_halo.sh tests);
#   bash .../gpu.sh OUT refs [CASE...]
#     every stored reference (or those named) with every combination (perf/regress_gpu.sh).
set -u
out=${1:?usage: gpu.sh OUT perf|ab|tests|refs ...}
part=${2:?usage: gpu.sh OUT perf|ab|tests|refs ...}
shift 2
mkdir -p "$out"
out=$(cd "$out" && pwd)
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
{
  nvidia-smi -L
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  ./run.sh bin/fvproxy info
} >"$out/machine-$part.txt" 2>&1
case $part in
  perf)
    for spec in face-pass-gpu flow-face-pass-gpu; do
      SECONDS=0
      ./run.sh bin/fvproxy perf "perf/$spec.yaml" --output-dir "$out/$spec" >"$out/$spec.log" 2>&1
      echo "$spec: exit $? in $SECONDS s"
    done
    ;;
  ab)
    for round in 1 2; do
      for nb in "$@"; do
        b=${nb%%=*} exe=${nb#*=}
        ./run.sh "$exe" perf "$repo/perf/results/2026-11-29-h200-ab/step-ab.yaml" --output-dir "$out/ab-$b-$round" \
          >"$out/ab-$b-$round.log" 2>&1
        echo "$b round $round: exit $?"
      done
    done
    ;;
  tests)
    SECONDS=0
    FVPROXY_GPU_TESTS_FILTER='*' bash perf/gpu_halo.sh "$out/tests" tests
    echo "MPI tests: $SECONDS s"
    ;;
  refs)
    SECONDS=0
    bash perf/regress_gpu.sh "$out" "$@"
    echo "references: exit $? in $SECONDS s"
    ;;
  *) echo "gpu.sh: unknown part $part" >&2; exit 2 ;;
esac
