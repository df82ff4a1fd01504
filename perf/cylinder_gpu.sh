#!/usr/bin/env bash
# perf/cylinder_gpu.sh MESH_DIR OUT: the cylinder drag study on the GPU machine, from the bundle:
# inputs/cylinder.yaml (Re = 20, Mach 0.2) on MESH_DIR/cylinder_{0.1,0.05,0.025}.msh
# (perf/cylinder_meshes.sh) to t = 80, each under a time limit; OUT/H/ gets summary.json (the
# force coefficients) and integrals.csv (the force history). docs/physics.md#flow-past-a-cylinder.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
meshes="$(cd "${1:?usage: perf/cylinder_gpu.sh MESH_DIR OUT}" && pwd)"
out="${2:?usage: perf/cylinder_gpu.sh MESH_DIR OUT}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$here"
{
  echo "date: $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>/dev/null
  ./run.sh bin/fvproxy info --json
} >"$out/machine.txt" 2>&1
for h in 0.1 0.05 0.025; do
  start=$SECONDS
  timeout "${LIMIT:-400}" ./run.sh bin/fvproxy run inputs/cylinder.yaml --set "mesh.file=$meshes/cylinder_$h.msh" \
    --set run.progress_interval=30 --output-dir "$out/$h" >"$out/$h.log" 2>&1
  echo "cylinder $h: exit $? in $((SECONDS - start)) s" | tee -a "$out/steps.txt"
  rm -f "$out/$h"/*.h5
done
