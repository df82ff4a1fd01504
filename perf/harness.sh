#!/usr/bin/env bash
# perf/harness.sh [--cpu] OUT: the benchmark matrix in one go (docs/performance.md).
#   GPU (default; run from the bundle of scripts/bundle-device.sh on the GPU machine):
#     bin/fvproxy (double) and bin/fvproxy-float run perf/matrix-gpu.yaml into OUT/double, OUT/float
#   --cpu (from a checkout): build/host/fvproxy and build/float/fvproxy on perf/matrix-cpu.yaml
# OUT also gets machine.txt (GPU, driver, CUDA runtime, fvproxy info with Kokkos and the git
# revision) and the ptxas report when present. A second build against another Kokkos, when present
# (bin/kokkos-X.Y.ZZ/fvproxy from bundle-device.sh --also; build/host-kokkos-X.Y.ZZ/fvproxy with
# --cpu; docs/development.md#another-kokkos), runs the same matrix into OUT/double-kokkos-X.Y.ZZ. Plots are drawn afterwards: perf/plot.py OUT.
# On several MPI ranks: FVPROXY_LAUNCH="mpirun -np 2" perf/harness.sh ... runs each `fvproxy perf`
# under that launcher (every rank times its part; docs/performance.md#on-several-ranks); the
# script itself runs once, not under mpirun.
set -uo pipefail
if [[ ${OMPI_COMM_WORLD_SIZE:-1} != 1 || ${PMI_SIZE:-1} != 1 || ${SLURM_STEP_NUM_TASKS:-1} != 1 ]]; then
  echo "perf/harness.sh: error: started as one of several MPI ranks: every rank would run the whole matrix into" \
    "the same folders; run the script once and give the launcher in FVPROXY_LAUNCH (FVPROXY_LAUNCH=\"mpirun -np 2\")" >&2
  exit 2
fi
read -r -a launch <<<"${FVPROXY_LAUNCH:-}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mode=gpu
[[ "${1:-}" == "--cpu" ]] && { mode=cpu; shift; }
out="${1:?usage: perf/harness.sh [--cpu] OUT}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
if [[ $mode == gpu ]]; then
  runner=("$here/run.sh"); spec=perf/matrix-gpu.yaml
  builds=("double:bin/fvproxy" "float:bin/fvproxy-float")
else
  runner=(env OMP_PROC_BIND="${OMP_PROC_BIND:-spread}" OMP_PLACES="${OMP_PLACES:-threads}"); spec=perf/matrix-cpu.yaml
  builds=("double:build/host/fvproxy" "float:build/float/fvproxy")
fi
if [[ $mode == gpu ]]; then second="bin/kokkos-*/fvproxy"; else second="build/host-kokkos-*/fvproxy"; fi
for exe in "$here"/$second; do
  if [[ -x $exe ]]; then
    d=$(basename "$(dirname "$exe")")
    builds+=("double-kokkos-${d#*kokkos-}:${exe#"$here"/}")
  fi
done
cd "$here"
{
  date -u +"date: %Y-%m-%dT%H:%M:%SZ"
  echo "host: $(hostname)"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv
  grep -m1 "model name" /proc/cpuinfo
  echo "cores: $(nproc)"
  [[ ${#launch[@]} -gt 0 ]] && echo "launcher: ${launch[*]}"
} >"$out/machine.txt"
status=0
for b in "${builds[@]}"; do
  name=${b%%:*} exe=${b#*:}
  if [[ ! -x $exe ]]; then echo "harness: $exe missing: the $name build is skipped" | tee -a "$out/machine.txt"; continue; fi
  echo "--- $name: $exe info" >>"$out/machine.txt"
  "${runner[@]}" "$exe" info >>"$out/machine.txt" 2>&1
  echo "harness: $name build, $spec -> $out/$name"
  start=$SECONDS
  "${launch[@]}" "${runner[@]}" "$exe" perf "$spec" --output-dir "$out/$name" 2>"$out/$name.log" || status=1
  echo "harness: $name done in $((SECONDS - start)) s (log: $out/$name.log)"
done
[[ -f ptxas.log ]] && cp ptxas.log "$out/"
exit $status
