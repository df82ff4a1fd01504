#!/usr/bin/env bash
# Issue 41 item 6 for the flow boundary conditions resolved once (flow::FlowCondition,
# condition_functor): the same answers and the same speed on a GPU. From an unpacked device bundle
# whose bin/ holds the new build (fvproxy) and the old one (fvproxy-old):
#   bash gpu.sh OUT
# 1. perf/ab_runs.sh OUT/ab bin/fvproxy-old bin/fvproxy: the cylinder (launch-bound, farfield and
#    walls), Taylor-Green 128^3 (navier-stokes) and the scalar default case, A B A B.
# 2. tests/cli/regress.sh with the new build for the flow references (inlets: a parabolic velocity
#    inlet, a mass-flow inlet, a non-reflecting subsonic outflow, isothermal walls; cylinder: farfield
#    and walls; sod_tet, sod, couette, taylor_green, vortex) and every variant combination (A-D: the naive
#    and optimized operators, E-G the face pass and stored fluxes where the case has them).
set -u
out=${1:?usage: gpu.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
nvidia-smi -L >"$out/machine.txt" 2>&1
for b in fvproxy-old fvproxy; do ./run.sh bin/$b info >>"$out/machine.txt" 2>&1; done
bash perf/ab_runs.sh "$out/ab" bin/fvproxy-old bin/fvproxy
bash perf/regress_gpu.sh "$out" inlets cylinder sod_tet sod couette taylor_green vortex
