#!/usr/bin/env bash
# scripts/device-check.sh [OUT]: what we run on the GPU machine from build/bundle (make bundle):
# the library check, `fvproxy info`, `fvproxy mesh` on the inputs, the test executable, an MPI
# start at 2 ranks and the mesh benchmark. Logs and results go to OUT (default: ./device-out).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-${OUT:-$root/device-out}}"
mkdir -p "$out"
b="$root/build/bundle"
run() { echo "\$ $*"; "$b/run.sh" "$@"; echo "[exit $?]"; }
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  echo "--- libraries not found (none expected):"
  LD_LIBRARY_PATH="$b/lib" ldd "$b/bin/fvproxy" "$b/bin/fvproxy_tests" | grep "not found" || echo "none"
  run bin/fvproxy info
  run bin/fvproxy info --json >"$out/info.json"
  run bin/fvproxy mesh inputs/default.yaml --compare-orderings
  run bin/fvproxy mesh inputs/sphere_in_box.yaml
  run bin/fvproxy mesh inputs/hybrid_channel.yaml --json
  run bin/fvproxy mesh inputs/default.yaml --set mesh.generate.cells=[160,160,160] --set mesh.generate.element=hex \
    --set mesh.generate.periodic=[] --compare-orderings
  echo "--- test executable (CUDA default execution space)"
  run bin/fvproxy_tests --gtest_brief=1
  echo "--- MPI start at 2 ranks (the machine's Open MPI)"
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np 2 --oversubscribe "$b/run.sh" bin/fvproxy info | grep -E "Kokkos|device|MPI"
  echo "[mpirun exit $?]"
  echo "--- mesh benchmark"
  LD_LIBRARY_PATH="$b/lib" python3 "$root/perf/mesh_build.py" --fvproxy "$b/bin/fvproxy" --out "$out/mesh_build.csv"
  cat "$out/mesh_build.csv"
} 2>&1 | tee "$out/device-check.log"
