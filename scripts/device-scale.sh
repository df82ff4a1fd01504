#!/usr/bin/env bash
# scripts/device-scale.sh PART [OUT]: the scale-out measurements on the GPU machine from build/bundle
# (make cuda build && bash scripts/bundle-device.sh; carry build/bundle). docs/parallel.md,
# docs/performance.md. PART:
#   a  1. fvproxy_mpi_tests at 1, 2, 3 and 4 ranks sharing the GPU (parts built in parts and on rank
#         0 against every rank cutting its own, halo paths, restarts, PT-Scotch; CUDA);
#      2. the default case, run.deterministic, on 1 rank and on 2 and 4 ranks (hilbert: built in
#         parts; metis: built on rank 0): every file byte for byte (cmp);
#      3. perf/parts_build.py: a 12.6M-tet box (128^3 x 6) built whole on one process (1 and 16 host
#         threads) and in parts on 2, 4, 8, 16 ranks (the GPU shared; 16 host cores);
#      4. perf/mpi_halo.py: the time step at 8.4M tets on 1 rank and on 2 and 4 ranks sharing the GPU,
#         naive, optimized and optimized with the staging path forced, with the halo statistics;
#   b  5. perf/max_box.py: the largest tet and hex box that fits the GPU (estimate, then a real run;
#         ELEMENTS=hex for one element type).
# Everything lands in OUT (default ./device-out): scale-PART.log and scale-PART.tar.gz (the results
# folders), few files because the GPU machine returns at most a handful.
set -uo pipefail
part="${1:?usage: device-scale.sh a|b [OUT]}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${2:-${OUT:-$root/device-out}}"
mkdir -p "$out"
b="$root/build/bundle"
res="$(mktemp -d)"
export LD_LIBRARY_PATH="$b/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OMP_PROC_BIND=false
export FVPROXY_SOURCE_DIR="$b"
mpi="mpirun --oversubscribe --bind-to none -x LD_LIBRARY_PATH -x OMP_NUM_THREADS -x OMP_PROC_BIND"
step() { echo; echo "=== $* ($(date -u +%T))"; }
run() { echo "\$ $*"; "$@"; echo "[exit $?]"; }
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  nproc
  mpirun --version | head -n 1
  "$b/bin/fvproxy" info
  if [[ $part == a ]]; then
    step "1. fvproxy_mpi_tests at 1, 2, 3, 4 ranks"
    for np in 1 2 3 4; do run timeout 120 $mpi -np $np "$b/bin/fvproxy_mpi_tests" --gtest_brief=1; done
    step "2. default case, run.deterministic: 1 rank vs 2 and 4 ranks, byte for byte"
    det=(--set run.deterministic=true --set "time={steps: 20, cfl: 0.5}" --quiet)
    for method in hilbert metis; do
      mkdir -p "$res/det_$method/np1" "$res/det_$method/np2" "$res/det_$method/np4"
      (cd "$res/det_$method/np1" && run "$b/bin/fvproxy" run "$b/inputs/default.yaml" "${det[@]}" \
        --set mesh.partition=$method --output-dir o)
      for np in 2 4; do
        (cd "$res/det_$method/np$np" && run timeout 120 $mpi -np $np "$b/bin/fvproxy" run "$b/inputs/default.yaml" \
          "${det[@]}" --set mesh.partition=$method --output-dir o)
        n=0; bad=0
        for f in "$res/det_$method"/np1/o/*.h5 "$res/det_$method"/np1/o/*.xdmf; do
          n=$((n + 1)); cmp -s "$f" "$res/det_$method/np$np/o/$(basename "$f")" || { bad=$((bad + 1)); echo "DIFFERS: $f"; }
        done
        echo "$method, $np ranks: $n files compared, $bad differ"
      done
      rm -f "$res/det_$method"/np*/o/*.h5
    done
    step "3. perf/parts_build.py: 12.6M tets whole (1 and 16 threads) and in parts on 2..16 ranks"
    run timeout 240 python3 "$b/perf/parts_build.py" --fvproxy "$b/bin/fvproxy" --case "$b/inputs/default.yaml" \
      --out "$res/parts_build" --cells 128,128,128 --ranks 2,4,8,16 --mpirun "$mpi"
    OMP_NUM_THREADS=16 run timeout 120 python3 "$b/perf/parts_build.py" --fvproxy "$b/bin/fvproxy" \
      --case "$b/inputs/default.yaml" --out "$res/parts_build_t16" --cells 128,128,128 --ranks 16 --threads 16 \
      --mpirun "$mpi"
    step "4. perf/mpi_halo.py: 8.4M tets, 1 rank vs 2 and 4 ranks sharing the GPU"
    run timeout 300 python3 "$b/perf/mpi_halo.py" --fvproxy "$b/bin/fvproxy" --case "$b/inputs/default.yaml" \
      --out "$res/mpi_halo" --cells 112,112,112 --steps 20 --ranks 2,4 --repeat 1 --staged --mpirun "$mpi"
  else
    step "5. perf/max_box.py: the largest box on this GPU"
    # 16 host threads: the whole box is built on one process (docs/performance.md)
    mkdir -p "$res/scratch"
    OMP_NUM_THREADS=16 run timeout 500 python3 "$b/perf/max_box.py" --fvproxy "$b/bin/fvproxy" \
      --case "$b/inputs/default.yaml" --elements "${ELEMENTS:-tet,hex}" --out "$res/max_box" --timeout 200 \
      --scratch "$res/scratch"
    rm -rf "$res/scratch"
  fi
  step "done"
} 2>&1 | tee "$out/scale-$part.log"
# the results' tables and logs only (the runs' mesh and fields files stay behind)
(cd "$res" && find . -type f -size -4M \( -name '*.csv' -o -name '*.json' -o -name '*.md' -o -name '*.log' \) -print0 |
  tar --null -T - -czf "$out/scale-$part.tar.gz")
ls -la "$out"
