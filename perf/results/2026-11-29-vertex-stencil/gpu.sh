#!/usr/bin/env bash
# The vertex stencil on a GPU (run in the device bundle: ./run.sh bash perf/results/2026-11-29-vertex-stencil/gpu.sh OUT):
#  1. channel.yaml to t = 20 unlimited with the vertex stencil (HLLC, Roe, Rusanov) and with the face
#     stencil (HLLC, expected to stop with a non-finite state), each compared at t = 20 with the same
#     run at first order (which stays at its uniform state): the departure from the uniform flow;
#  2. the cost: Taylor-Green (navier-stokes) on 64^3 x 6 jittered periodic tets, 20 steps, --profile,
#     face and vertex stencil.
set -u
out=$1
mkdir -p "$out"
F=bin/fvproxy
R=perf/results/2026-11-29-vertex-stencil
for fl in hllc roe rusanov; do
  $F run $R/channel.yaml --quiet --set operators.convection.flux=$fl --set operators.convection.order=1 \
    --set time.end_time=20 --output-dir "$out/first_$fl" >"$out/first_$fl.log" 2>&1
  $F run $R/channel.yaml --quiet --set operators.convection.flux=$fl --set operators.muscl.stencil=vertex \
    --set time.end_time=20 --output-dir "$out/vertex_$fl" >"$out/vertex_$fl.log" 2>&1
  echo "vertex $fl: exit $?"
  $F compare "$out/first_$fl" "$out/vertex_$fl" --atol 1e-11 >"$out/compare_$fl.txt" 2>&1
  echo "compare $fl: exit $?"
done
$F run $R/channel.yaml --quiet --set time.end_time=20 --output-dir "$out/face_hllc" >"$out/face_hllc.log" 2>&1
echo "face hllc: exit $?"
for st in face vertex; do
  $F run inputs/taylor_green.yaml --set "mesh.generate={cells: [64, 64, 64], element: tet, perturb: 0.15, periodic: [x, y, z]}" \
    --set "time={integrator: ssprk3, steps: 20, cfl: 0.5}" --set operators.muscl.stencil=$st --profile \
    --output-dir "$out/tg_$st" >"$out/tg_$st.log" 2>&1
  echo "tg $st: exit $?"
done
rm -rf "$out"/*/fields_* "$out"/*/mesh.h5 "$out"/*/checkpoint*
