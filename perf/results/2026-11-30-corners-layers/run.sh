#!/usr/bin/env bash
# The ghost layers of the three stencils on 2 and 3 ranks (issue 38: the corners stencil's layers by
# vertices where mirror planes meet only). The channel of ../2026-11-29-vertex-stencil (periodic in x,
# slip walls on y and z, uniform flow) on 24^3 x 6 = 82944 jittered tets, 10 steps, one thread per rank.
#   bash run.sh [FVPROXY] > ghosts.txt
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
fv="${1:-$here/../../../build/host/fvproxy}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "# $("$fv" info 2>/dev/null | grep -m1 -i 'git' || true)"
echo "partition ranks stencil ghosts_per_rank setup_s_max loop_s_max device_B_per_cell_max entries"
for part in ptscotch zorder; do
for np in 2 3; do
  for s in face corners vertex; do
    mpirun --oversubscribe --bind-to none -np $np "$fv" run "$here/../2026-11-29-vertex-stencil/channel.yaml" \
      --set "mesh.generate.cells=[24, 24, 24]" --set operators.muscl.stencil=$s --set mesh.partition=$part --set "time={integrator: ssprk3, cfl: 0.8, steps: 10}" \
      --set output.dir="$tmp/o" > "$tmp/log" 2>&1 ||
      { cat "$tmp/log" >&2; exit 1; }
    ghosts=$(grep -o 'ghosts [0-9]*\.\.[0-9]*' "$tmp/log" | awk '{print $2}' || true)
    setup=$(grep -o 'set-up [0-9.]* / [0-9.]* / [0-9.]*' "$tmp/log" | awk '{print $6}' || true)
    loop=$(grep -o 'time loop [0-9.]* / [0-9.]* / [0-9.]*' "$tmp/log" | awk '{print $7}' || true)
    mem=$(grep -o '= [0-9]* / [0-9]* / [0-9]* B/cell' "$tmp/log" | head -1 | awk '{print $6}' || true)
    entries=$(grep -o '[a-z]* stencil ([^)]*)' "$tmp/log" | head -1 | tr ' ' '_' || true)
    echo "$part $np $s $ghosts $setup $loop $mem ${entries:--}"
  done
done
done
