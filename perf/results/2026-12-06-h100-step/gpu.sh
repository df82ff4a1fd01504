#!/usr/bin/env bash
# Issue 39's targets on an H100 (they were set on one; the fused step has only been measured on
# H200s until now). From an unpacked device bundle's root:
#   bash perf/results/2026-12-06-h100-step/gpu.sh OUT
# 1. fvproxy perf perf/face-pass-gpu.yaml: the scalar SSP-RK3 step at N = 1 and 5 on 8.43M
#    Z-ordered tets, separate operators against the one face pass with each accumulation, against the
#    fused minimal-bytes model (fraction_of_fused_model);
# 2. fvproxy perf perf/flow-face-pass-gpu.yaml: flow-euler-step and flow-ns-step (HLLC, MUSCL on
#    (rho, u, p)) on 8.43M tets and 8.49M hexes, ns per cell per RK stage.
set -u
out=${1:?usage: gpu.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
nvidia-smi -L >"$out/machine.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv >>"$out/machine.txt" 2>&1
./run.sh bin/fvproxy info >>"$out/machine.txt" 2>&1
for spec in face-pass-gpu flow-face-pass-gpu; do
  ./run.sh bin/fvproxy perf "perf/$spec.yaml" --output-dir "$out/$spec" >"$out/$spec.log" 2>&1
  echo "$spec: exit $?"
done
