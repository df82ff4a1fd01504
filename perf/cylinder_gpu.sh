#!/usr/bin/env bash
# perf/cylinder_gpu.sh MESH_DIR OUT [H...]: the cylinder drag study on the GPU machine, from the
# bundle: inputs/cylinder.yaml (Re = 20, Mach 0.2) on MESH_DIR/cylinder_H.msh (perf/cylinder_meshes.sh;
# default H = 0.1 0.05 0.025) to t = 80, each stopped cleanly at LIMIT wall seconds (env, default
# 170: run.wall_limit, the summary and the history kept); OUT/H/ gets summary.json (the force on
# the cylinder) and integrals.csv (its history). docs/flow-cases.md#flow-past-a-cylinder.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
meshes="$(cd "${1:?usage: perf/cylinder_gpu.sh MESH_DIR OUT}" && pwd)"
out="${2:?usage: perf/cylinder_gpu.sh MESH_DIR OUT}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$here"
# shellcheck source=perf/gpu_common.sh
source perf/gpu_common.sh
gpu_machine_header >"$out/machine.txt" 2>&1
sizes=("${@:3}")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(0.1 0.05 0.025)
limit="${LIMIT:-170}"
for h in "${sizes[@]}"; do
  start=$SECONDS
  timeout "$((limit + 60))" ./run.sh bin/fvproxy run inputs/cylinder.yaml --set "mesh.file=$meshes/cylinder_$h.msh" \
    --set run.progress_interval=30 --set "run.wall_limit=$limit" --output-dir "$out/$h" >"$out/$h.log" 2>&1
  echo "cylinder $h: exit $? in $((SECONDS - start)) s" | tee -a "$out/steps.txt"
  rm -f "$out/$h"/*.h5
done
