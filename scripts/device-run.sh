#!/usr/bin/env bash
# scripts/device-run.sh [OUT]: the solver on the GPU machine from build/bundle (make bundle): the
# test executable (CUDA default execution space: atomics, team sizes, reductions exercised), the
# default case, and the time step at scale (8.4M Z-ordered tets, 20 SSP-RK3 steps): every operator
# optimized vs every operator naive vs optimized on a random numbering, each unfenced (cell-updates/s)
# and fenced (--profile: per-kernel table). summary.json of each run lands in OUT/<name>/.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-${OUT:-$root/device-out}}"
mkdir -p "$out"
b="$root/build/bundle"
run() { echo "\$ $*"; "$b/run.sh" "$@"; echo "[exit $?]"; }
big=(--set "mesh.generate.cells=[112,112,112]" --set "time={integrator: ssprk3, steps: 20}")
naive=(--set "operators.muscl={variant: naive}" --set "operators.convection={variant: naive}"
       --set "operators.diffusion={variant: naive}")
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  run bin/fvproxy info
  echo "--- test executable"
  run bin/fvproxy_tests --gtest_brief=1
  echo "--- the default case"
  run bin/fvproxy run inputs/default.yaml --output-dir "$out/default"
  echo "--- time step at scale"
  for p in "" --profile; do
    tag=${p:+-profile}
    run bin/fvproxy run inputs/default.yaml "${big[@]}" $p --output-dir "$out/optimized$tag"
    run bin/fvproxy run inputs/default.yaml "${big[@]}" "${naive[@]}" $p --output-dir "$out/naive$tag"
    run bin/fvproxy run inputs/default.yaml "${big[@]}" --set mesh.reorder=random $p --output-dir "$out/random$tag"
    run bin/fvproxy run inputs/default.yaml "${big[@]}" --set "operators.convection.scatter=atomic" \
      --set "operators.diffusion.scatter=atomic" --set "operators.muscl.scatter=atomic" $p --output-dir "$out/atomic$tag"
  done
} 2>&1 | tee "$out/device-run.log"
