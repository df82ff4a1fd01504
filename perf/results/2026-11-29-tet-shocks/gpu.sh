#!/usr/bin/env bash
# The fixes of this folder on a GPU (run in the device bundle: ./run.sh bash perf/results/2026-11-29-tet-shocks/gpu.sh OUT):
#  1. entering.yaml (unlimited MUSCL, flow entering through a supersonic-outflow) to t = 10 at second
#     and at first order: they must agree (the uniform state) to round-off;
#  2. Toro 5 on jittered tets at 200 cells with the defaults (perf/shocks.py's set-up, the --set list
#     in toro5-tet-jitter-200.sets): completes with one step taken again (time.retries), and stops at
#     step 572 with time.retries: 0.
set -u
out=$1
mkdir -p "$out"
F=bin/fvproxy
R=perf/results/2026-11-29-tet-shocks
$F run $R/entering.yaml --quiet --output-dir "$out/entering2" >"$out/entering2.log" 2>&1
echo "entering, order 2: exit $?"
$F run $R/entering.yaml --quiet --set operators.convection.order=1 --output-dir "$out/entering1" >"$out/entering1.log" 2>&1
echo "entering, order 1: exit $?"
$F compare "$out/entering1" "$out/entering2" --atol 1e-11 >"$out/entering_compare.txt" 2>&1
echo "entering compare: exit $?"
args=()
while IFS= read -r s; do args+=(--set "$s"); done <$R/toro5-tet-jitter-200.sets
$F run inputs/sod_tet.yaml "${args[@]}" --output-dir "$out/toro5" >"$out/toro5.log" 2>&1
echo "toro5 retries 3: exit $?"
$F run inputs/sod_tet.yaml "${args[@]}" --set time.retries=0 --output-dir "$out/toro5_noretry" >"$out/toro5_noretry.log" 2>&1
echo "toro5 retries 0: exit $?"
rm -rf "$out"/*/fields_* "$out"/*/mesh.h5 "$out"/*/checkpoint*
