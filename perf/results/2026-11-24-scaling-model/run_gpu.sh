#!/usr/bin/env bash
# The H100 points of the scaling model (h100/gpu-mpi-*/): perf/mpi_halo.py on the GPU machine at six
# sizes of the default case, 1 rank and 2 and 4 ranks time-sharing the one GPU, naive and optimized
# halo, 20 steps, median of 2. Run from the repository root with build/bundle (make bundle; the
# binary reports git fd4ea2e218e6):  bash perf/results/2026-11-24-scaling-model/run_gpu.sh OUT
# (It ran as this same sequence of commands, typed inline on the GPU machine, 2026-11-24 11:20-11:33
# UTC; the 72^3 size a second time alone after a call ran out of time.)
set -uo pipefail
out="${1:?OUT}"
export LD_LIBRARY_PATH=$PWD/build/bundle/lib OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMP_NUM_THREADS=1 OMP_PROC_BIND=false
mpi="mpirun --oversubscribe --bind-to none -x LD_LIBRARY_PATH -x OMP_NUM_THREADS -x OMP_PROC_BIND"
nvidia-smi --query-gpu=name,driver_version,memory.total,pci.bus_id --format=csv
mpirun --version | head -1
for c in 6,6,6 12,12,12 24,24,24 48,48,48 72,72,72 112,112,112; do
  echo "=== $c"
  d=$out/gpu-mpi-${c//,/x}
  python3 perf/mpi_halo.py --fvproxy build/bundle/bin/fvproxy --case build/bundle/inputs/default.yaml --out "$d" \
    --cells $c --steps 20 --ranks 2,4 --repeat 2 --mpirun "$mpi" 2>&1 | grep "ms/step"
  cp "$d/runs/np2-optimized-0/summary.json" "$d/np2-optimized-summary.json" 2>/dev/null
  rm -rf "$d/runs"
done
