#!/usr/bin/env bash
# gpu_bind.sh SOURCE_DIR MPIEXEC FVPROXY OUT: scripts/gpu-bind.sh's choices (docs/parallel.md#binding-ranks-to-gpus-and-cores)
# on made-up machines (a stand-in nvidia-smi, a stand-in sysfs, FVPROXY_BIND_DRY_RUN), then a real
# 2-rank run through it: each rank reports its own CPU in summary.json.
set -u
src=$1; mpiexec=$2; fv=$3; out=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out"; mkdir -p "$out/bin"
out=$(cd "$out" && pwd)
bind=$src/scripts/gpu-bind.sh
# machine NGPU LIST...: a stand-in nvidia-smi with NGPU GPUs, GPU g's local CPUs LIST[g] ("" = none said)
machine() {
  local n=$1 g
  shift
  rm -rf "$out/sys"
  : >"$out/buses"
  for ((g = 0; g < n; ++g)); do
    local bus; bus=$(printf '0000:%02x:00.0' $((16 + g)))
    echo "0000$bus" | tr a-f A-F >>"$out/buses"
    if [[ -n ${1:-} ]]; then
      mkdir -p "$out/sys/bus/pci/devices/$bus"
      echo "$1" >"$out/sys/bus/pci/devices/$bus/local_cpulist"
    fi
    shift || true
  done
  printf '#!/bin/bash\ncat %s\n' "$out/buses" >"$out/bin/nvidia-smi"
  chmod +x "$out/bin/nvidia-smi"
}
# expect RANK SIZE ALLOWED WANT: the dry run of local rank RANK of SIZE prints WANT
expect() {
  local got
  got=$(env -u OMP_NUM_THREADS PATH="$out/bin:$PATH" FVPROXY_BIND_SYSFS="$out/sys" FVPROXY_BIND_ALLOWED="$3" \
    FVPROXY_BIND_DRY_RUN=1 OMPI_COMM_WORLD_LOCAL_RANK=$1 OMPI_COMM_WORLD_LOCAL_SIZE=$2 bash "$bind" cmd)
  [[ $got == "$4 cmd" ]] || fail "rank $1 of $2 (allowed $3): got '$got', want '$4 cmd'"
}
# Four GPUs, two per NUMA node (0-7, 8-15): each rank half of its node's CPUs
machine 4 0-7 0-7 8-15 8-15
expect 0 4 0-15 "KOKKOS_DEVICE_ID=0 OMP_NUM_THREADS=4 taskset -c 0,1,2,3"
expect 1 4 0-15 "KOKKOS_DEVICE_ID=1 OMP_NUM_THREADS=4 taskset -c 4,5,6,7"
expect 2 4 0-15 "KOKKOS_DEVICE_ID=2 OMP_NUM_THREADS=4 taskset -c 8,9,10,11"
expect 3 4 0-15 "KOKKOS_DEVICE_ID=3 OMP_NUM_THREADS=4 taskset -c 12,13,14,15"
# a launcher that says the local rank but not the local size: at least rank + 1 ranks share
got=$(env -u OMP_NUM_THREADS -u OMPI_COMM_WORLD_LOCAL_SIZE -u SLURM_NTASKS_PER_NODE -u SLURM_TASKS_PER_NODE \
  -u MPI_LOCALNRANKS -u MV2_COMM_WORLD_LOCAL_SIZE -u PMI_LOCAL_SIZE PATH="$out/bin:$PATH" FVPROXY_BIND_SYSFS="$out/sys" \
  FVPROXY_BIND_ALLOWED=0-15 FVPROXY_BIND_DRY_RUN=1 OMPI_COMM_WORLD_LOCAL_RANK=1 bash "$bind" cmd)
[[ $got == "KOKKOS_DEVICE_ID=1 OMP_NUM_THREADS=4 taskset -c 4,5,6,7 cmd" ]] || fail "local size unknown: got '$got'"
# the batch system allows only 2-3 and 8-9: the shares come out of those
expect 1 4 2-3,8-9 "KOKKOS_DEVICE_ID=1 OMP_NUM_THREADS=1 taskset -c 3"
expect 2 4 2-3,8-9 "KOKKOS_DEVICE_ID=2 OMP_NUM_THREADS=1 taskset -c 8"
# Two GPUs on one node's 0-7 shared by four ranks (two per GPU): a quarter each, GPU = rank mod 2
machine 2 0-7 0-7
expect 0 4 0-63 "KOKKOS_DEVICE_ID=0 OMP_NUM_THREADS=2 taskset -c 0,1"
expect 3 4 0-63 "KOKKOS_DEVICE_ID=1 OMP_NUM_THREADS=2 taskset -c 6,7"
# No local CPU list said (a VM): all CPUs, split among the ranks
machine 2 "" ""
n=$(nproc --all)
expect 1 2 "0-$((n - 1))" "KOKKOS_DEVICE_ID=1 OMP_NUM_THREADS=$((n / 2 > 0 ? n / 2 : 1)) taskset -c $(seq -s, $((n / 2 > 0 ? n / 2 : 0)) $((n / 2 > 0 ? n - 1 : 0)))"
# A real run of 2 ranks through the wrapper, both GPUs said near every CPU this test may use (a
# container's cpuset may hold fewer than the machine has): each rank half of them, as it reports
allowed=$(taskset -cp $$ | sed 's/.*: //')
machine 2 "$allowed" "$allowed"
cd "$out" || exit 1
PATH="$out/bin:$PATH" FVPROXY_BIND_SYSFS="$out/sys" "$mpiexec" --oversubscribe --bind-to none -np 2 -x PATH \
  -x FVPROXY_BIND_SYSFS bash "$bind" "$fv" run "$src/inputs/default.yaml" --set mesh.generate.cells=[6,6,6] \
  --set 'time={steps: 2}' --set 'output={}' --output-dir run >run.log 2>&1 || { cat run.log; fail "the run through gpu-bind.sh failed"; }
python3 - "$out/run/summary.json" "$allowed" <<'PY' || fail "summary.json's ranks[].cpus"
import json, sys
def expand(text):
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out
ranks = json.load(open(sys.argv[1]))["ranks"]
cpus = expand(sys.argv[2])
half = max(1, len(cpus) // 2)
want = [cpus[:half], cpus[half:2 * half] or cpus[:1]]
got = [expand(r["cpus"]) for r in ranks]
assert got == want and [r["cpu_count"] for r in ranks] == [len(w) for w in want], (got, want)
PY
echo "OK: gpu-bind places ranks on their GPU and its cores"
