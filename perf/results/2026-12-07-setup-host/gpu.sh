#!/usr/bin/env bash
# The parts build's host work on a GPU machine (issue 40 item 5), from an unpacked device bundle's
# root with the new binary as bin/fvproxy and the one before as bin/fvproxy-old:
#   bash perf/results/2026-12-07-setup-host/gpu.sh OUT [PART...]
# Parts (default: all, in this order):
#   steps  `fvproxy mesh --in-parts` on 16.9M tets (112 x 112 x 224 hexes), each step's seconds per
#          rank: the new binary on 4 ranks x 4 threads (zorder, ptscotch), 4 ranks x 1 thread and
#          1 rank x 16 threads (zorder: how the host work scales with threads and with processes
#          sharing the machine); the old one on 4 x 4 (zorder), plain and with glibc's heap kept
#          through the environment (MALLOC_MMAP_MAX_=0, MALLOC_TRIM_THRESHOLD_, MALLOC_TOP_PAD_: what
#          the new binary's RetainedHeap sets in code);
#   ab     perf/setup_ranks.py (a run's set-up, slowest rank) on 4 ranks, zorder and ptscotch: new,
#          old, and old with the heap kept, in turn, ROUNDS [2] rounds.
set -u
out=${1:?usage: gpu.sh OUT [steps|ab]...}
shift
parts=("$@")
[[ ${#parts[@]} -gt 0 ]] || parts=(steps ab)
mkdir -p "$out"
out=$(cd "$out" && pwd)
source perf/gpu_common.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 FVPROXY_SOURCE_DIR=$PWD
gpu_machine_header "setup-host gpu.sh" bin/fvproxy bin/fvproxy-old >"$out/machine.txt" 2>&1
heap=(MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=68719476736 MALLOC_TOP_PAD_=268435456)
heap_x="-x MALLOC_MMAP_MAX_ -x MALLOC_TRIM_THRESHOLD_ -x MALLOC_TOP_PAD_"
box=(inputs/default.yaml --set "mesh.generate.cells=[112,112,224]" --in-parts)
for part in "${parts[@]}"; do
  case $part in
    steps)
      for m in zorder ptscotch; do
        gpu_step "steps_${m}_4x4" 200 mpirun --bind-to none -np 4 -x LD_LIBRARY_PATH -x OMP_NUM_THREADS=4 \
          bin/fvproxy mesh "${box[@]}" --set mesh.partition=$m
      done
      gpu_step "steps_old_zorder_4x4" 200 mpirun --bind-to none -np 4 -x LD_LIBRARY_PATH -x OMP_NUM_THREADS=4 \
        bin/fvproxy-old mesh "${box[@]}" --set mesh.partition=zorder
      gpu_step "steps_old_zorder_4x4_heap" 200 env "${heap[@]}" mpirun --bind-to none -np 4 -x LD_LIBRARY_PATH \
        -x OMP_NUM_THREADS=4 $heap_x bin/fvproxy-old mesh "${box[@]}" --set mesh.partition=zorder
      gpu_step "steps_zorder_4x1" 200 mpirun --bind-to none -np 4 -x LD_LIBRARY_PATH -x OMP_NUM_THREADS=1 \
        bin/fvproxy mesh "${box[@]}" --set mesh.partition=zorder
      gpu_step "steps_zorder_1x16" 200 mpirun --bind-to none -np 1 -x LD_LIBRARY_PATH -x OMP_NUM_THREADS=16 \
        bin/fvproxy mesh "${box[@]}" --set mesh.partition=zorder
      ;;
    ab)
      for round in $(seq "${ROUNDS:-2}"); do
        for b in new old heap; do
          exe=bin/fvproxy
          [[ $b != new ]] && exe=bin/fvproxy-old
          pre=()
          xs=""
          [[ $b == heap ]] && pre=(env "${heap[@]}") && xs=$heap_x
          gpu_step "setup-$b-$round" 200 "${pre[@]}" python3 perf/setup_ranks.py --fvproxy "$exe" \
            --out "$out/setup-$b-$round" --cells 112,112,224 --ranks 4 --methods zorder,ptscotch --threads 4 \
            --mpirun "mpirun --bind-to none -x LD_LIBRARY_PATH -x FVPROXY_SOURCE_DIR $xs"
        done
      done
      ;;
    *) echo "gpu.sh: unknown part $part" >&2; exit 2 ;;
  esac
done
