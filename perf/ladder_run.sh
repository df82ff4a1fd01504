#!/usr/bin/env bash
# perf/ladder_run.sh OUT [RUNS] [SPEC]: the ablation ladder (docs/performance.md#the-ablation-ladder-what-each-advice-buys)
# RUNS times (default 3) with build/host/fvproxy on SPEC (default perf/ladder-cpu.yaml), into
# OUT/run<i>/ (results.csv, results.json, perf.log), with the machine, the build (fvproxy info
# --json: backend, Kokkos, git) and the load before and after each run in OUT/machine.txt; then
# perf/ladder_plot.py OUT (matplotlib). On the GPU machine, from the bundle: ./run.sh env
# FVPROXY=bin/fvproxy perf/ladder_run.sh OUT 3 perf/ladder-gpu.yaml. The environment's OMP_* settings
# win over the defaults below.
set -euo pipefail
out="${1:?usage: perf/ladder_run.sh OUT [RUNS] [SPEC]}"
runs="${2:-3}"
spec="${3:-perf/ladder-cpu.yaml}"
exe="${FVPROXY:-build/host/fvproxy}"
mkdir -p "$out"
export OMP_PROC_BIND="${OMP_PROC_BIND:-spread}" OMP_PLACES="${OMP_PLACES:-threads}" OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}"
{
  echo "date: $(date -u +%FT%TZ)"
  echo "host: $(hostname); $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); $(nproc --all) CPUs"
  echo "spec: $spec; OMP_NUM_THREADS=$OMP_NUM_THREADS OMP_PROC_BIND=$OMP_PROC_BIND OMP_PLACES=$OMP_PLACES"
} > "$out/machine.txt"
"$exe" info --json > "$out/info.json"
for i in $(seq 1 "$runs"); do
  echo "run$i before: $(uptime)" >> "$out/machine.txt"
  rm -rf "$out/run$i"
  "$exe" perf "$spec" --output-dir "$out/run$i" 2> "$out/run$i.log"
  mv "$out/run$i.log" "$out/run$i/perf.log"
  echo "run$i after:  $(uptime)" >> "$out/machine.txt"
done
/usr/bin/python3 perf/ladder_plot.py "$out" || echo "ladder_run.sh: plot on the development machine: perf/ladder_plot.py $out" >&2
