#!/usr/bin/env bash
# perf/round2_gpu.sh PHASE OUT: issue 15's GPU measurements from the bundle (both Kokkos builds:
# FVPROXY_KOKKOS_ARCHIVE=... make bundle), in two phases of under ten minutes each (one device command):
#   a: the GPU unit tests of the fused MUSCL, the ladder and the flow physics, fused against two-pass MUSCL (perf/muscl-fused-gpu.yaml), Kokkos 3.4.01 against 4.6.01
#      (perf/kokkos-gpu.yaml on the bundle's two builds, bundle_fvproxy in perf/gpu_common.sh), the ablation ladder
#      (perf/ladder-gpu.yaml, one run)
#   c: the compressible model's operators (issue 16: perf/flow-gpu.yaml, then Nsight Compute on
#      their kernels with the FP64 pipe's utilization, perf/ncu-flow.yaml)
#   b: the orderings on the Gmsh meshes (perf/gmsh-order-gpu.yaml; the meshes of perf/gmsh_mesh.sh
#      must lie in the bundle's build/gmsh/), then Nsight Compute on the MUSCL kernels
#      (perf/ncu.sh with perf/ncu-muscl.yaml)
# OUT/machine.txt records the GPU, driver, fvproxy info (Kokkos, git revision) of both builds.
# Each step runs under `timeout` so that what finished comes back even if a later step does not.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
phase="${1:?usage: perf/round2_gpu.sh a|b|c OUT}"
out="${2:?usage: perf/round2_gpu.sh a|b|c OUT}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$here"
# shellcheck source=perf/gpu_common.sh
source perf/gpu_common.sh
k3=$(bundle_fvproxy 3.4.01) || k3=""
k4=$(bundle_fvproxy 4.6.01) || k4=""
step() { gpu_step "$@"; }
gpu_machine_header "phase $phase" bin/fvproxy $k3 $k4 >"$out/machine-$phase.txt" 2>&1
case "$phase" in
  a)
    [[ -x bin/fvproxy_tests ]] && step gpu-tests 90 bin/fvproxy_tests \
      --gtest_filter='MusclFused.*:Muscl*:Ladder.*:FlowPhysics.*:ExactRiemann.*:FlowBoundary.*:Viscous.*:FlowSolutions.*'
    step fused 150 bin/fvproxy perf perf/muscl-fused-gpu.yaml --output-dir "$out/fused"
    [[ -n $k3 ]] && step kokkos-3.4.01 130 "$k3" perf perf/kokkos-gpu.yaml --output-dir "$out/kokkos/kokkos-3.4.01"
    [[ -n $k4 ]] && step kokkos-4.6.01 130 "$k4" perf perf/kokkos-gpu.yaml --output-dir "$out/kokkos/kokkos-4.6.01"
    step ladder 170 env FVPROXY=bin/fvproxy perf/ladder_run.sh "$out/ladder" 1 perf/ladder-gpu.yaml
    ;;
  b)
    ls -la build/gmsh >"$out/gmsh-files.txt" 2>&1
    step gmsh-order 370 bin/fvproxy perf perf/gmsh-order-gpu.yaml --output-dir "$out/gmsh-order"
    step ncu-muscl 160 perf/ncu.sh "$out/ncu-muscl" perf/ncu-muscl.yaml 'Copy|GradientGather|LimiterGather|FusedMuscl'
    ;;
  c)
    [[ -x bin/fvproxy_tests ]] && step gpu-tests 120 bin/fvproxy_tests --gtest_filter='Flow*:ExactRiemann.*:Viscous.*'
    step flow 240 bin/fvproxy perf perf/flow-gpu.yaml --output-dir "$out/flow"
    step ncu-flow 200 env NCU_EXTRA="--metrics sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active" \
      perf/ncu.sh "$out/ncu-flow" perf/ncu-flow.yaml 'Flow|Viscous|Copy'
    ;;
  *) echo "round2_gpu.sh: phase a, b or c" >&2; exit 2 ;;
esac
