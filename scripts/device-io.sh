#!/usr/bin/env bash
# scripts/device-io.sh [OUT]: output, restart and compare on the GPU machine, from build/bundle
# (make bundle): the reference regression (every case of tests/reference/ with every variant
# combination of tests/cli/regress.sh, run by the CUDA build, compared with the host-made
# references), SIGTERM / wall_limit stops with bitwise restarts (tests/cli/stop_and_restart.sh),
# the collective writer at 2 ranks, and the cost of writing output at scale (8.4M tets: io_seconds
# of a run writing the fields every 5 steps and a checkpoint, against its compute time).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-${OUT:-$root/device-out}}"
mkdir -p "$out"
b="$root/build/bundle"
fails=0
{
  echo "--- reference regression (CUDA build vs host references)"
  for c in "$b"/tests/reference/*/; do
    c=$(basename "$c")
    for combo in recorded A B C D; do
      if "$b/run.sh" bash tests/cli/regress.sh "$b/bin/fvproxy" "$b" "$c" "$combo" "$out/ref/$c/$combo" >"$out/ref-$c-$combo.log" 2>&1; then
        echo "ok   $c $combo: $(grep -E '^  u[0-9] ' "$out/ref-$c-$combo.log" | awk '{print $1" max|a-b|/max|b| "$3}' | tr '\n' ' ')"
      else
        echo "FAIL $c $combo"; cat "$out/ref-$c-$combo.log"; fails=$((fails + 1))
      fi
    done
  done
  echo "--- stop and restart"
  "$b/run.sh" bash tests/cli/stop_and_restart.sh "$b/bin/fvproxy" "$b/inputs" "$out/stop" || fails=$((fails + 1))
  echo "--- collective writer, 2 ranks"
  [[ -x "$b/bin/fvproxy_mpi_io_test" ]] && "$b/run.sh" mpirun -np 2 --oversubscribe bin/fvproxy_mpi_io_test "$out/mpi_io"
  echo "--- output at scale"
  "$b/run.sh" bin/fvproxy run inputs/default.yaml --set "mesh.generate.cells=[112,112,112]" \
    --set "time={steps: 20}" --set "output.every={steps: 5}" --set "checkpoint.every={steps: 20}" \
    --output-dir "$out/scale"
  grep -E '"(wall_seconds|io_seconds|cell_updates_per_second)"' "$out/scale/summary.json"
  ls -la "$out/scale"
  echo "device-io: $fails failures"
} 2>&1 | tee "$out/device-io.log"
