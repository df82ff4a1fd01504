#!/usr/bin/env bash
# The extra CPU points of the scaling model (this 2-core VM): perf/mpi_halo.py at three small sizes.
set -euo pipefail
R="$(cd "$(dirname "$0")" && pwd)"
for c in 12,12,12 24,24,24 48,48,48; do
  nice -n 0 /usr/bin/python3 perf/mpi_halo.py --fvproxy /work/main/build/host/fvproxy --case inputs/default.yaml \
    --cells $c --steps 20 --ranks 2 --repeat 3 --out "$R/devvm-mpi-${c//,/x}"
done
