#!/usr/bin/env bash
# The corners stencil's pre-pass on one GPU (issue 38: the corners stencil's +7 % on the GPU). From
# an unpacked device bundle's root, with the new binary as bin/fvproxy and the one before the change
# as bin/fvproxy-old:
#   bash perf/results/2026-12-07-corners-prepass/gpu.sh OUT [PART...]
# Parts (default: all, in this order):
#   ab       `perf/gpu_halo.sh corners` (navier-stokes Taylor-Green on 64^3 x 6 = 1.57M jittered tets,
#            periodic in x, slip walls on y and z) with the face and corners stencils, 20 and 120 steps
#            (marginal ms per step), new and old binary in turn, two rounds (new old new old);
#   profile  the same case, 200 steps with `--profile` (fenced per-kernel timers), face and corners,
#            two rounds, new and old binary (../2026-11-30-corners-stencil/profile.sh);
#   tests    the operator tests of the stencils on the GPU (the pre-pass's team of 32 combines its
#            partial rows there only: host backends use teams of one) and the flow solver's corner tests;
#   ranks    the Taylor-Green case of `ab` on 24^3 x 6 tets, 10 steps, on 1, 2 and 3 ranks sharing the GPU,
#            under run.deterministic (the CUDA default's atomics add in any order: round-off apart):
#            the final fields the same bits (`fvproxy compare --atol 0 --rtol 0`);
#   refs     the stored references of the flow models whose default stencil is corners with two mirror
#            planes meeting (cylinder), and sod_tet, with every combination (perf/regress_gpu.sh).
set -u
out=${1:?usage: gpu.sh OUT [ab|profile|tests|ranks|refs]...}
shift
parts=("$@")
[[ ${#parts[@]} -gt 0 ]] || parts=(ab profile tests ranks refs)
mkdir -p "$out"
out=$(cd "$out" && pwd)
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 FVPROXY_SOURCE_DIR=$PWD
{
  nvidia-smi -L
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  ./run.sh bin/fvproxy info
  ./run.sh bin/fvproxy-old info
} >"$out/machine.txt" 2>&1
for part in "${parts[@]}"; do
  SECONDS=0
  case $part in
    ab)
      for round in 1 2; do
        for b in new old; do
          exe=bin/fvproxy
          [[ $b == old ]] && exe=bin/fvproxy-old
          FVPROXY_BIN=$exe CORNERS_STENCILS="face corners" CORNERS_STEPS="20 120" \
            bash perf/gpu_halo.sh "$out/ab-$b-$round" corners >"$out/ab-$b-$round.log" 2>&1
        done
      done
      ;;
    profile) # the earlier profile's script (two rounds, face and corners) with each binary
      for b in new old; do
        exe=bin/fvproxy
        [[ $b == old ]] && exe=bin/fvproxy-old
        bash "$repo/perf/results/2026-11-30-corners-stencil/profile.sh" "$out/profile-$b" "$exe" >"$out/profile-$b.log" 2>&1
      done
      ;;
    tests)
      ./run.sh bin/fvproxy_tests --gtest_filter='MusclVertexStencil.*:MusclPaired.*:MusclFused.*:VertexStencil.*:FlowSolver.UniformFlowAlongSlipWall*:FlowSolver.ClosedTetBox*' \
        >"$out/tests.txt" 2>&1
      echo "fvproxy_tests: exit $?" >>"$out/tests.txt"
      ;;
    ranks)
      tg=(inputs/taylor_green.yaml --set "mesh.generate.cells=[24,24,24]" --set mesh.generate.element=tet
          --set mesh.generate.perturb=0.15 --set "mesh.generate.periodic=[x]"
          --set "boundary={ymin: {type: slip-wall}, ymax: {type: slip-wall}, zmin: {type: slip-wall}, zmax: {type: slip-wall}}"
          --set "time={integrator: ssprk3, steps: 10, dt: 0.0002}" --set run.deterministic=true)
      for np in 1 2 3; do
        ./run.sh mpirun --bind-to none -np $np -x LD_LIBRARY_PATH -x FVPROXY_SOURCE_DIR -x OMP_NUM_THREADS=2 \
          bin/fvproxy run "${tg[@]}" --output-dir "/tmp/corners_ranks_$np" >"$out/ranks-np$np.txt" 2>&1
        echo "np $np: exit $?" >>"$out/ranks.txt"
      done
      for np in 2 3; do
        ./run.sh bin/fvproxy compare /tmp/corners_ranks_1 "/tmp/corners_ranks_$np" --atol 0 --rtol 0 >>"$out/ranks.txt" 2>&1
        echo "compare 1 vs $np ranks: exit $?" >>"$out/ranks.txt"
      done
      ;;
    refs)
      bash perf/regress_gpu.sh "$out/refs" cylinder sod_tet
      ;;
    *) echo "gpu.sh: unknown part $part" >&2; exit 2 ;;
  esac
  echo "$part: $SECONDS s" | tee -a "$out/parts.txt"
done
