#!/usr/bin/env bash
# The own piece ordered by the directory's rows (issue 40 item 5) on a GPU machine, from an unpacked
# device bundle's root with the new binary as bin/fvproxy, the one before as bin/fvproxy-old and the
# new bin/fvproxy_mpi_tests:
#   bash perf/results/2026-12-07-piece-rows/gpu.sh OUT [PART...]
# Parts (default: all, in this order):
#   tests  the MPI tests of the decomposition and the halo (perf/setup_gpu.sh's filter: BuiltInParts,
#          BuiltOnRank0, Ptscotch, DistributedRun, Halo; every transport the machine has) at 2 and 3
#          ranks on this machine's GPUs (one per rank where there are enough, else sharing one): the
#          GPU test run of src/parallel/ (issue 40 item 6);
#   steps  `fvproxy mesh --in-parts` on 16.9M tets (112 x 112 x 224 hexes) on 4 ranks, ptscotch and
#          zorder: each rank's seconds per step of the build;
#   ab     ../2026-12-07-box-faces/gpu.sh: the run's set-up on 1 rank (whole) and 4 ranks in parts,
#          new and old binary in turn, ROUNDS [2] rounds;
#   ranks  ../2026-12-07-corners-prepass/gpu.sh ranks (issue 38: the corners stencil's Taylor-Green
#          case on 1, 2 and 3 ranks under run.deterministic, compared bit for bit).
set -u
out=${1:?usage: gpu.sh OUT [tests|steps|ab|ranks]...}
shift
parts=("$@")
[[ ${#parts[@]} -gt 0 ]] || parts=(tests steps ab ranks)
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source perf/gpu_common.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 FVPROXY_SOURCE_DIR=$PWD
gpu_machine_header "piece-rows gpu.sh" bin/fvproxy bin/fvproxy-old bin/fvproxy_mpi_tests >"$out/machine.txt" 2>&1
ngpu=$(nvidia-smi -L | wc -l)
cat >"$out/one_gpu_per_rank.sh" <<'WRAP'
#!/usr/bin/env bash
export CUDA_VISIBLE_DEVICES=$((OMPI_COMM_WORLD_LOCAL_RANK % $(nvidia-smi -L | wc -l)))
exec "$@"
WRAP
chmod +x "$out/one_gpu_per_rank.sh"
threads=$(($(nproc) / 4))
for part in "${parts[@]}"; do
  case $part in
    tests)
      filter='BuiltInParts.*:BuiltOnRank0.*:Ptscotch.*:DistributedRun.*:Halo.*'
      for np in 2 3; do
        gpu_step "tests_np$np" 300 mpirun --bind-to none -np "$np" -x LD_LIBRARY_PATH -x FVPROXY_SOURCE_DIR \
          -x OMP_NUM_THREADS=2 "$out/one_gpu_per_rank.sh" bin/fvproxy_mpi_tests --gtest_filter="$filter" --gtest_color=no
        grep -E "^\[ *(PASSED|FAILED)|tests ran" "$out/tests_np$np.log" | tee -a "$out/steps.txt"
      done
      echo "GPUs: $ngpu" >>"$out/steps.txt"
      ;;
    steps)
      for m in ptscotch zorder; do
        gpu_step "steps_${m}_4" 200 mpirun --bind-to none -np 4 -x LD_LIBRARY_PATH -x OMP_NUM_THREADS=$threads \
          "$out/one_gpu_per_rank.sh" bin/fvproxy mesh inputs/default.yaml --set "mesh.generate.cells=[112,112,224]" \
          --set mesh.partition=$m --in-parts
      done
      ;;
    ab) bash "$here/../2026-12-07-box-faces/gpu.sh" "$out/ab" ;;
    ranks) bash "$here/../2026-12-07-corners-prepass/gpu.sh" "$out/corners" ranks ;;
    *) echo "gpu.sh: unknown part $part" >&2; exit 2 ;;
  esac
done
