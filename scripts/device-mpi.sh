#!/usr/bin/env bash
# scripts/device-mpi.sh [OUT]: the decomposed solver on the GPU machine from build/bundle (make
# bundle), its ranks sharing the machine's GPU (docs/parallel.md, docs/gpu.md):
#   1. fvproxy_mpi_tests at 1, 2 and 3 ranks (halo into NaN-poisoned ghosts, every operator variant
#      with both halos against one rank, whole runs; CUDA default execution space);
#   2. the default case under run.deterministic on 1 and 2 ranks: fields compared bitwise
#      (fvproxy compare --rtol 0 --atol 0) and byte for byte (cmp);
#   3. perf/mpi_halo.py: the time step at 8.4M tets on 1 rank and on 2 ranks sharing the GPU, with
#      the naive and the optimized halo (two ranks on one GPU time-share it: this measures the cost
#      of the decomposition and the exchanges, not a speedup).
# Everything lands in OUT (default ./device-out): device-mpi.log, the runs' summary.json files,
# OUT/mpi_halo/{results.csv,results.json,README.md}.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-${OUT:-$root/device-out}}"
mkdir -p "$out"
b="$root/build/bundle"
export LD_LIBRARY_PATH="$b/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OMP_PROC_BIND=false
mpi="mpirun --oversubscribe --bind-to none -x LD_LIBRARY_PATH -x OMP_NUM_THREADS -x OMP_PROC_BIND"
step() { echo; echo "=== $*"; }
run() { echo "\$ $*"; "$@"; echo "[exit $?]"; }
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,pci.bus_id --format=csv
  mpirun --version | head -n 1
  step "1. fvproxy_mpi_tests at 1, 2, 3 ranks"
  for np in 1 2 3; do run $mpi -np $np "$b/bin/fvproxy_mpi_tests" --gtest_brief=1; done
  step "2. the default case, run.deterministic, 1 rank vs 2 ranks"
  det=(--set run.deterministic=true --set "time={steps: 20, cfl: 0.5}")
  # each in a folder of its own with the same --output-dir string (the files store the resolved case)
  mkdir -p "$out/np1" "$out/np2"
  (cd "$out/np1" && run "$b/bin/fvproxy" run "$b/inputs/default.yaml" "${det[@]}" --output-dir o)
  (cd "$out/np2" && run $mpi -np 2 "$b/bin/fvproxy" run "$b/inputs/default.yaml" "${det[@]}" --output-dir o)
  run "$b/bin/fvproxy" compare "$out/np1/o" "$out/np2/o" --rtol 0 --atol 0
  for f in "$out"/np1/o/*.h5 "$out"/np1/o/*.xdmf; do run cmp "$f" "$out/np2/o/$(basename "$f")"; done
  run python3 -c "import json; s = json.load(open('$out/np2/o/summary.json')); print(json.dumps({k: s.get(k) for k in ('ranks', 'slowest_rank', 'halo', 'operators')}, indent=1))"
  step "3. perf/mpi_halo.py: 8.4M tets, 1 rank vs 2 ranks sharing the GPU, naive vs optimized halo"
  run python3 "$root/perf/mpi_halo.py" --fvproxy "$b/bin/fvproxy" --case "$b/inputs/default.yaml" \
    --out "$out/mpi_halo" --cells 112,112,112 --steps 20 --ranks 2 --repeat 2 --mpirun "$mpi"
} 2>&1 | tee "$out/device-mpi.log"
