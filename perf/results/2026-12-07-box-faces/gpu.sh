#!/usr/bin/env bash
# The set-up A/B on a GPU machine (issue 40 item 5), from an unpacked device bundle's root with the
# new binary as bin/fvproxy and one before the box faces were enumerated as bin/fvproxy-old:
#   [ROUNDS=2] bash perf/results/2026-12-07-box-faces/gpu.sh OUT [CELLS] [RANKS]
# perf/setup_ranks.py with each binary in turn, ROUNDS rounds (new old new old): the scalar case on
# CELLS hexes as tets [112,112,224: 16.9M tets] on 1 rank (whole) and RANKS ranks [4] (ptscotch
# and zorder, built in parts), every rank on the one GPU, nproc / 4 OpenMP threads per rank.
set -u
out=${1:?usage: gpu.sh OUT [CELLS] [RANKS]}
cells=${2:-112,112,224}
np=${3:-4}
mkdir -p "$out"
out=$(cd "$out" && pwd)
source perf/gpu_common.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 FVPROXY_SOURCE_DIR=$PWD
gpu_machine_header "box-faces gpu.sh" bin/fvproxy bin/fvproxy-old >"$out/machine.txt" 2>&1
threads=$(($(nproc) / 4))
for round in $(seq "${ROUNDS:-2}"); do
  for b in new old; do
    exe=bin/fvproxy
    [[ $b == old ]] && exe=bin/fvproxy-old
    gpu_step "setup-$b-$round" 300 python3 perf/setup_ranks.py --fvproxy "$exe" --out "$out/setup-$b-$round" \
      --cells "$cells" --ranks "1,$np" --methods ptscotch,zorder --threads "$threads" \
      --mpirun "mpirun --bind-to none -x LD_LIBRARY_PATH -x FVPROXY_SOURCE_DIR"
  done
done
