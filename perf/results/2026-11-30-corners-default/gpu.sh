#!/usr/bin/env bash
# The corners stencil as the flow models' default and its ghost layers by vertices around its corner
# cells only (../2026-11-30-corners-layers), on two GPUs. From an unpacked device bundle's root:
#   bash perf/results/2026-11-30-corners-default/gpu.sh OUT
# 1. tests/cli/regress.sh: every flow reference (cylinder regenerated with the corners stencil) and
#    every variant combination (A-D: naive and optimized operators and orderings, E-G the face pass
#    and stored fluxes where the case has them), the new build;
# 2. perf/gpu_halo.sh corners: Taylor-Green (navier-stokes) on 1.57M jittered tets with slip walls on
#    y and z, stencil face, corners and vertex on 1 and 2 GPUs (the layers' cost on two GPUs);
# 3. perf/gpu_halo.sh tests with every MPI test (issue 40 item 6: src/parallel changed).
set -u
out=${1:?usage: gpu.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
nvidia-smi -L >"$out/machine.txt" 2>&1
./run.sh bin/fvproxy info >>"$out/machine.txt" 2>&1
bash perf/regress_gpu.sh "$out" cylinder inlets sod_tet sod couette taylor_green vortex
[[ ${GPU_SKIP_CORNERS:-0} == 1 ]] || bash perf/gpu_halo.sh "$out/halo" corners
[[ ${GPU_SKIP_TESTS:-0} == 1 ]] || FVPROXY_GPU_TESTS_FILTER='*' bash perf/gpu_halo.sh "$out/tests" tests
