#!/usr/bin/env bash
# perf/setup_gpu.sh OUT [CELLS] [RANKS]: on a GPU machine, from the bundle's root
# (scripts/bundle-device.sh): the set-up of the scalar case on 1..P ranks per partition method
# (perf/setup_ranks.py; issue 40 item 5: the 16.9M-tet box, 112x112x224, on 4 ranks), then the MPI
# tests that cover the decomposition and the halo (BuiltInParts, BuiltOnRank0, Ptscotch,
# DistributedRun, Halo) at 2 and 3 ranks on this machine's GPUs (one rank per GPU where there are
# enough, else sharing one): the GPU test run of a change under src/parallel/ (issue 40 item 6).
set -u
out=${1:?OUT}
cells=${2:-112,112,224}
ranks=${3:-1,2,4}
mkdir -p "$out"
source perf/gpu_common.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 FVPROXY_SOURCE_DIR=$PWD
gpu_machine_header "setup_gpu.sh" bin/fvproxy >"$out/machine.txt" 2>&1
ngpu=$(nvidia-smi -L | wc -l)
cat >"$out/one_gpu_per_rank.sh" <<'EOF'
#!/usr/bin/env bash
export CUDA_VISIBLE_DEVICES=$((OMPI_COMM_WORLD_LOCAL_RANK % $(nvidia-smi -L | wc -l)))
exec "$@"
EOF
chmod +x "$out/one_gpu_per_rank.sh"
cores=$(nproc)
threads=$((cores / 4))
[[ $threads -ge 1 ]] || threads=1
gpu_step setup 420 python3 perf/setup_ranks.py --fvproxy bin/fvproxy --out "$out/setup" --cells "$cells" \
  --ranks "$ranks" --threads "$threads" --mpirun "mpirun --bind-to none -x LD_LIBRARY_PATH -x FVPROXY_SOURCE_DIR" \
  --wrapper "$out/one_gpu_per_rank.sh"
# Where a build in parts spends its time: `fvproxy mesh --in-parts` on the largest rank count prints
# each rank's slab step (keys, sample sort, partition), piece step and device copy.
np=${ranks##*,}
for m in ptscotch zorder; do
  gpu_step "in_parts_${m}_$np" 300 mpirun --bind-to none -np "$np" -x LD_LIBRARY_PATH -x OMP_NUM_THREADS=$threads \
    "$out/one_gpu_per_rank.sh" bin/fvproxy mesh inputs/default.yaml --set "mesh.generate.cells=[$cells]" \
    --set mesh.partition=$m --in-parts
done
if [[ -x bin/fvproxy_mpi_tests ]]; then
  filter='BuiltInParts.*:BuiltOnRank0.*:Ptscotch.*:DistributedRun.*:Halo.*'
  for np in 2 3; do
    gpu_step "tests_np$np" 300 mpirun --bind-to none -np "$np" -x LD_LIBRARY_PATH -x FVPROXY_SOURCE_DIR \
      -x OMP_NUM_THREADS=2 "$out/one_gpu_per_rank.sh" bin/fvproxy_mpi_tests --gtest_filter="$filter" --gtest_color=no
    grep -E "^\[ *(PASSED|FAILED)" "$out/tests_np$np.log" | tee -a "$out/steps.txt"
  done
fi
echo "GPUs: $ngpu" >>"$out/steps.txt"
