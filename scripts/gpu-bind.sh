#!/usr/bin/env bash
# scripts/gpu-bind.sh COMMAND...: runs one MPI rank of a multi-GPU node on its GPU and on the CPU
# cores near that GPU (docs/parallel.md#binding-ranks-to-gpus-and-cores), e.g.
#   mpirun -np 4 --bind-to none scripts/gpu-bind.sh fvproxy run case.yaml
#   srun -n 4 --cpu-bind=none scripts/gpu-bind.sh fvproxy run case.yaml
# The rank's GPU is its local rank mod the GPUs of the node (what Kokkos picks anyway; given to
# Kokkos as KOKKOS_DEVICE_ID so that Kokkos 3.4 and 4.x agree). Every GPU stays visible, so that
# ranks can still open each other's memory (the halo's CUDA IPC transport: docs/halo.md). The
# cores: the GPU's NUMA-local CPUs (/sys/bus/pci/devices/<bus>/local_cpulist), split evenly among
# the local ranks whose GPUs share that list; the rank is pinned to its share with taskset, and
# OMP_NUM_THREADS (unless set), OMP_PROC_BIND=close and OMP_PLACES=cores (unless set) place its
# OpenMP threads there. FVPROXY_BIND_VERBOSE=1 prints each rank's choice on stderr.
# Without GPUs (no nvidia-smi or none listed) the command runs unchanged. For tests
# (tests/cli/gpu_bind.sh): FVPROXY_BIND_SYSFS replaces /sys, FVPROXY_BIND_ALLOWED the CPUs this
# process may use, and FVPROXY_BIND_DRY_RUN=1 prints the choice instead of running the command.
set -euo pipefail
[[ $# -gt 0 ]] || { echo "usage: scripts/gpu-bind.sh COMMAND..." >&2; exit 2; }

local_rank=${OMPI_COMM_WORLD_LOCAL_RANK:-${SLURM_LOCALID:-${MPI_LOCALRANKID:-${MV2_COMM_WORLD_LOCAL_RANK:-${PMI_LOCAL_RANK:-0}}}}}
local_size=${OMPI_COMM_WORLD_LOCAL_SIZE:-${SLURM_NTASKS_PER_NODE:-${SLURM_TASKS_PER_NODE:-${MPI_LOCALNRANKS:-${MV2_COMM_WORLD_LOCAL_SIZE:-${PMI_LOCAL_SIZE:-1}}}}}}
local_size=${local_size%%(*} # SLURM_TASKS_PER_NODE may read "4(x2)"
[[ $local_size -gt $local_rank ]] || local_size=$((local_rank + 1)) # a size the launcher did not say

buses=()
if command -v nvidia-smi >/dev/null 2>&1; then
  mapfile -t buses < <(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader 2>/dev/null || true)
fi
[[ ${#buses[@]} -gt 0 ]] || exec "$@"

# cpulist_of BUS: the NUMA-local CPUs of a GPU ("" when the system does not say)
cpulist_of() {
  local b=${1: -12} # "00000000:18:00.0" -> "0000:18:00.0"
  b=${b,,}
  cat "${FVPROXY_BIND_SYSFS:-/sys}/bus/pci/devices/$b/local_cpulist" 2>/dev/null || true
}
# expand LIST: "0-3,8" -> "0 1 2 3 8"
expand() {
  local part out=()
  IFS=, read -ra parts <<<"$1"
  for part in "${parts[@]}"; do
    if [[ $part == *-* ]]; then
      out+=($(seq "${part%-*}" "${part#*-}"))
    elif [[ -n $part ]]; then
      out+=("$part")
    fi
  done
  echo "${out[@]}"
}

ngpu=${#buses[@]}
gpu=$((local_rank % ngpu))
mine=$(cpulist_of "${buses[$gpu]}")
[[ -n $mine ]] || mine="0-$(($(nproc --all) - 1))"
# the local ranks sharing this GPU's CPU list, and this rank's place among them
sharing=0
place=0
for ((r = 0; r < local_size; ++r)); do
  other=$(cpulist_of "${buses[$((r % ngpu))]}")
  [[ -n $other ]] || other="0-$(($(nproc --all) - 1))"
  if [[ $other == "$mine" ]]; then
    [[ $r -lt $local_rank ]] && place=$((place + 1))
    sharing=$((sharing + 1))
  fi
done
read -ra cpus <<<"$(expand "$mine")"
# only the CPUs this process may use (a batch system's cgroup may hold fewer)
allowed=${FVPROXY_BIND_ALLOWED:-$(taskset -cp $$ 2>/dev/null | sed 's/.*: //')}
if [[ -n $allowed ]]; then
  read -ra ok <<<"$(expand "$allowed")"
  declare -A is_ok=()
  for c in "${ok[@]}"; do is_ok[$c]=1; done
  kept=()
  for c in "${cpus[@]}"; do [[ -n ${is_ok[$c]:-} ]] && kept+=("$c"); done
  [[ ${#kept[@]} -gt 0 ]] && cpus=("${kept[@]}")
fi
share=$((${#cpus[@]} / (sharing > 0 ? sharing : 1)))
[[ $share -ge 1 ]] || share=1
first=$((place * share % ${#cpus[@]}))
slice=("${cpus[@]:$first:$share}")
list=$(IFS=,; echo "${slice[*]}")

export KOKKOS_DEVICE_ID=$gpu
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-${#slice[@]}}
export OMP_PROC_BIND=${OMP_PROC_BIND:-close} OMP_PLACES=${OMP_PLACES:-cores}
if [[ ${FVPROXY_BIND_VERBOSE:-0} == 1 ]]; then
  echo "gpu-bind: local rank $local_rank/$local_size -> GPU $gpu (${buses[$gpu]}), CPUs $list" \
    "(GPU's list $mine shared by $sharing ranks), OMP_NUM_THREADS=$OMP_NUM_THREADS" >&2
fi
if [[ ${FVPROXY_BIND_DRY_RUN:-0} == 1 ]]; then
  echo "KOKKOS_DEVICE_ID=$gpu OMP_NUM_THREADS=$OMP_NUM_THREADS taskset -c $list $*"
  exit 0
fi
exec taskset -c "$list" "$@"
