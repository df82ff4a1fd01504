#!/usr/bin/env bash
# The fixed cost of a time step on one GPU (issue 40 item 1, the one-GPU part): the navier-stokes
# Taylor-Green vortex (hexes) and the scalar default case (tets) at six sizes each, every size run
# for 200 and 600 steps (marginal ms per step from the two: set-up and the first steps cancel) and
# once with --profile (the kernels per stage and their mean times). Run from the repository root of
# the device copy:  bash perf/results/2026-11-29-h200-fixed-cost/gpu.sh OUT BUNDLE_DIR
# then, here:       python3 perf/results/2026-11-29-h200-fixed-cost/fit.py OUT
set -u
out=$1 dir=$2
mkdir -p "$out"
run() { # name case steps extra...
  local name=$1 case=$2 steps=$3
  shift 3
  (cd "$dir" && ./run.sh bin/fvproxy run "$case" --quiet --output-dir "$out/$name" \
     --set "time={integrator: ssprk3, steps: $steps, dt: 0.0002}" "$@" \
     >"$out/$name.log" 2>&1)
  echo "$name: exit $?"
}
for n in 16 24 32 48 64 96 128; do
  for s in 200 600; do run "ns-$n-$s" inputs/taylor_green.yaml $s --set "mesh.generate.cells=[$n,$n,$n]"; done
  run "ns-$n-profile" inputs/taylor_green.yaml 20 --set "mesh.generate.cells=[$n,$n,$n]" --profile
done
for n in 8 12 16 24 32 48 64; do
  for s in 200 600; do run "scalar-$n-$s" inputs/default.yaml $s --set "mesh.generate.cells=[$n,$n,$n]"; done
  run "scalar-$n-profile" inputs/default.yaml 20 --set "mesh.generate.cells=[$n,$n,$n]" --profile
done
# keep the summaries and logs only
find "$out" -name 'fields_*' -delete -o -name 'mesh.h5' -delete -o -name '*.xdmf' -delete
