#!/usr/bin/env bash
# On a GPU (from the device bundle's root: bash perf/results/2026-11-30-corners-stencil/gpu.sh OUT):
#  1. channel.yaml to t = 20 with the corners stencil (unlimited, Venkatakrishnan, Barth-Jespersen),
#     each compared with the same run at first order (which keeps the uniform state) at 1e-11;
#  2. Toro 5 on 100 x 2 x 2 tets with Barth-Jespersen on the primitive variables (perf/shocks.py's
#     set-up): the steps taken again at first order where they failed, against the host's 5 of 399.
set -u
out=$1
mkdir -p "$out"
F=${FVPROXY_BIN:-./run.sh bin/fvproxy} # run.sh: the bundle's libraries
R=perf/results/2026-11-30-corners-stencil
$F run $R/channel.yaml --quiet --set operators.convection.order=1 --set time.end_time=20 \
  --output-dir "$out/first" >"$out/first.log" 2>&1
echo "first order: exit $?"
for lim in none venkatakrishnan barth-jespersen; do
  $F run $R/channel.yaml --quiet --set operators.muscl.stencil=corners --set operators.muscl.limiter=$lim \
    --set time.end_time=20 --output-dir "$out/corners_$lim" >"$out/corners_$lim.log" 2>&1
  echo "corners $lim: exit $?"
  $F compare "$out/first" "$out/corners_$lim" --atol 1e-11 >"$out/compare_$lim.txt" 2>&1
  echo "compare $lim: exit $?"
done
toro=(--set "mesh.generate.cells=[100,2,2]" --set "mesh.generate.lengths=[1,0.02,0.02]" --set "initial.normal=[1,0,0]"
      --set initial.position=0.8 --set "initial.left={density: 1.0, velocity: [-19.59745, 0, 0], pressure: 1000.0}"
      --set "initial.right={density: 1.0, velocity: [-19.59745, 0, 0], pressure: 0.01}" --set "time={end_time: 0.012}"
      --set "boundary={xmin: {type: supersonic-outflow}, xmax: {type: supersonic-outflow}, ymin: {type: symmetry}, ymax: {type: symmetry}, zmin: {type: symmetry}, zmax: {type: symmetry}}"
      --set "operators={muscl: {limiter: barth-jespersen}}" --set "output.every={time: 1}")
$F run inputs/sod_tet.yaml "${toro[@]}" --output-dir "$out/toro5_bj" >"$out/toro5_bj.log" 2>&1
echo "toro5 barth-jespersen: exit $?; $(grep -c 'taken again with' "$out/toro5_bj.log") steps taken again"
rm -rf "$out"/*/fields_* "$out"/*/mesh.h5 "$out"/*/checkpoint*
