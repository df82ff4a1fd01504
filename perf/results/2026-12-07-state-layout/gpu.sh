#!/usr/bin/env bash
# The state's memory layout on the GPU (issue 39: the step's L2 transactions per face) and the GPU
# test run of src/parallel/ (issue 40 item 6). From an unpacked device bundle's root:
#   bash perf/results/2026-12-07-state-layout/gpu.sh OUT tests
#     the MPI tests of the decomposition and the halo at 2 and 3 ranks (../2026-12-07-piece-rows/gpu.sh tests);
#   bash .../gpu.sh OUT ab NAME=EXECUTABLE...
#     the step with the defaults (../2026-11-29-h200-ab/step-ab.yaml: scalar N = 1 and 5, euler,
#     navier-stokes on 8.43M tets and 8.49M hexes), each executable in turn, ROUNDS [2] rounds (A B C A B C);
#   bash .../gpu.sh OUT profile NAME=EXECUTABLE...
#     `fvproxy run --profile` (fenced per-kernel timers), 20 steps on 8.43M Z-ordered tets: the
#     navier-stokes Taylor-Green case (tg-profile.yaml, Venkatakrishnan) and inputs/bench.yaml's
#     scalar step at N = 1 and 5, each executable in turn.
set -u
out=${1:?usage: gpu.sh OUT tests|ab|profile ...}
part=${2:?usage: gpu.sh OUT tests|ab|profile ...}
shift 2
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source perf/gpu_common.sh
case $part in
  tests) bash "$here/../2026-12-07-piece-rows/gpu.sh" "$out/tests" tests ;; # kept in ../2026-12-07-h100-gpu-tests-9a47209
  ab)
    exes=()
    for nb in "$@"; do exes+=("${nb#*=}"); done
    gpu_machine_header "state-layout gpu.sh ab" "${exes[@]}" >"$out/machine-ab.txt" 2>&1
    for round in $(seq 1 "${ROUNDS:-2}"); do
      for nb in "$@"; do
        b=${nb%%=*} exe=${nb#*=}
        gpu_step "ab-$b-$round" 300 "$exe" perf "$here/../2026-11-29-h200-ab/step-ab.yaml" --output-dir "$out/ab-$b-$round"
      done
    done
    ;;
  profile)
    tets=(--set "mesh.generate.cells=[112,112,112]" --set mesh.generate.element=tet --set mesh.reorder=zorder)
    for nb in "$@"; do
      b=${nb%%=*} exe=${nb#*=}
      gpu_step "profile-ns-$b" 200 "$exe" run "$here/tg-profile.yaml" "${tets[@]}" \
        --set operators.muscl.limiter=venkatakrishnan --profile --output-dir "$out/profile-ns-$b"
      for n in 1 5; do
        gpu_step "profile-scalar$n-$b" 200 "$exe" run "$here/../../../inputs/bench.yaml" "${tets[@]}" \
          --set physics.components=$n --set time.steps=20 --profile --output-dir "$out/profile-scalar$n-$b"
      done
    done
    ;;
  *) echo "gpu.sh: unknown part $part" >&2; exit 2 ;;
esac
