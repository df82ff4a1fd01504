#!/usr/bin/env bash
# Stored face fluxes against per-face atomics and the per-cell gather on a GPU (issue 39,
# docs/operators/face-pass.md#accumulation). Run from the repository root of the device copy:
#   bash perf/results/2026-11-29-h200-stored-fluxes/gpu.sh OUT BUNDLE_DIR
#  1. fvproxy perf perf/face-accumulation-gpu.yaml (scalar step N = 1, 5; euler and navier-stokes steps;
#     8.4M tets and hexes; atomic, stored, gather);
#  2. the Taylor-Green vortex on 112^3 x 6 tets with Venkatakrishnan's limiter, 20 steps, --profile
#     (per-kernel means), euler and navier-stokes, atomic (the default) and stored;
#  3. the references with the stored fluxes (tests/cli/regress.sh G) and the recorded options.
set -u
out=$1 dir=$2
mkdir -p "$out"
R=$PWD
tg=(--set "time={integrator: ssprk3, steps: 20, dt: 0.0002}" --profile --set "operators.muscl.limiter=venkatakrishnan")
euler=(--set "physics={model: euler, gamma: 1.4, gas_constant: 1}")
stored=(--set operators.convection.scatter=stored --set operators.diffusion.scatter=stored)
tets=(--set "mesh.generate={shape: box, cells: [112, 112, 112], element: tet, lengths: [6.283185307179586, 6.283185307179586, 6.283185307179586], origin: [-3.141592653589793, -3.141592653589793, -3.141592653589793], periodic: [x, y, z]}")
(cd "$dir" && ./run.sh bin/fvproxy perf "$R/perf/face-accumulation-gpu.yaml" --output-dir "$out/perf" >"$out/perf.log" 2>&1)
echo "perf: exit $?"
for m in ns euler; do
  extra=()
  [ $m = euler ] && extra=("${euler[@]}")
  (cd "$dir" && ./run.sh bin/fvproxy run inputs/taylor_green.yaml "${tg[@]}" "${tets[@]}" "${extra[@]}" --output-dir "$out/tg-$m-atomic" >"$out/profile-tet-$m-atomic.log" 2>&1)
  echo "tg $m atomic: exit $?"
  (cd "$dir" && ./run.sh bin/fvproxy run inputs/taylor_green.yaml "${tg[@]}" "${tets[@]}" "${extra[@]}" "${stored[@]}" --output-dir "$out/tg-$m-stored" >"$out/profile-tet-$m-stored.log" 2>&1)
  echo "tg $m stored: exit $?"
done
for c in default hybrid_channel sod_tet vortex couette cylinder taylor_green inlets; do
  (cd "$dir" && ./run.sh bash tests/cli/regress.sh bin/fvproxy "$dir" $c G "$out/regress-$c" >"$out/regress-$c-G.log" 2>&1)
  echo "regress $c G: exit $?"
done
rm -rf "$out"/*/fields_* "$out"/*/mesh.h5 "$out"/*/checkpoint* "$out"/regress-*/
