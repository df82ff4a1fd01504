#!/usr/bin/env bash
# The navier-stokes cell pass and the fused stage update on a GPU, each bundle in one session on one
# machine. Run from the repository root of the device copy:
#   bash perf/results/2026-11-29-h200-cell-pass/gpu.sh OUT NAME=BUNDLE_DIR...
# (e.g. 92a5e7f=/tmp/b0/bundle 7f65940=/tmp/b1/bundle 119a37c=/tmp/b2/bundle; the last is the new one):
#  1. fvproxy perf perf/flow-cell-pass-gpu.yaml with each bundle (flow-ns-step, flow-euler-step);
#  2. the Taylor-Green vortex on 192^3 hexes, 20 steps, --profile (per-kernel means) with each bundle,
#     navier-stokes and euler (limiter none, as inputs/taylor_green.yaml); with Venkatakrishnan's
#     limiter also on 112^3 x 6 tets (navier-stokes, euler) and the hexes (navier-stokes);
#  3. the flow references with the last bundle (tests/cli/regress.sh, recorded options).
set -u
out=$1
shift
mkdir -p "$out"
R=$PWD
tg=(--set "time={integrator: ssprk3, steps: 20, dt: 0.0002}" --profile)
hex=(--set "mesh.generate.cells=[192,192,192]")
euler=(--set "physics={model: euler, gamma: 1.4, gas_constant: 1}")
venkat=(--set "operators.muscl.limiter=venkatakrishnan")
tets=(--set "mesh.generate={shape: box, cells: [112, 112, 112], element: tet, lengths: [6.283185307179586, 6.283185307179586, 6.283185307179586], origin: [-3.141592653589793, -3.141592653589793, -3.141592653589793], periodic: [x, y, z]}")
last=
for nb in "$@"; do
  b=${nb%%=*} dir=${nb#*=}
  last=$dir
  (cd "$dir" && ./run.sh bin/fvproxy perf "$R/perf/flow-cell-pass-gpu.yaml" --output-dir "$out/perf-$b" >"$out/perf-$b.log" 2>&1)
  echo "perf $b: exit $?"
  (cd "$dir" && ./run.sh bin/fvproxy run inputs/taylor_green.yaml "${tg[@]}" "${hex[@]}" --output-dir "$out/tg-ns-$b" >"$out/profile-tg192-ns-$b.log" 2>&1)
  echo "tg ns $b: exit $?"
  (cd "$dir" && ./run.sh bin/fvproxy run inputs/taylor_green.yaml "${tg[@]}" "${hex[@]}" "${euler[@]}" --output-dir "$out/tg-euler-$b" >"$out/profile-tg192-euler-$b.log" 2>&1)
  echo "tg euler $b: exit $?"
  (cd "$dir" && ./run.sh bin/fvproxy run inputs/taylor_green.yaml "${tg[@]}" "${hex[@]}" "${venkat[@]}" --output-dir "$out/v-hex-ns-$b" >"$out/profile-venkat-hex-ns-$b.log" 2>&1)
  echo "venkat hex ns $b: exit $?"
  (cd "$dir" && ./run.sh bin/fvproxy run inputs/taylor_green.yaml "${tg[@]}" "${venkat[@]}" "${tets[@]}" --output-dir "$out/v-tet-ns-$b" >"$out/profile-venkat-tet-ns-$b.log" 2>&1)
  echo "venkat tet ns $b: exit $?"
  (cd "$dir" && ./run.sh bin/fvproxy run inputs/taylor_green.yaml "${tg[@]}" "${venkat[@]}" "${tets[@]}" "${euler[@]}" --output-dir "$out/v-tet-euler-$b" >"$out/profile-venkat-tet-euler-$b.log" 2>&1)
  echo "venkat tet euler $b: exit $?"
done
for c in couette cylinder taylor_green inlets sod_tet vortex; do
  (cd "$last" && ./run.sh bash tests/cli/regress.sh bin/fvproxy "$last" $c recorded "$out/regress-$c" >"$out/regress-$c.log" 2>&1)
  echo "regress $c: exit $?"
done
rm -rf "$out"/*/fields_* "$out"/*/mesh.h5 "$out"/*/checkpoint* "$out"/regress-*/
