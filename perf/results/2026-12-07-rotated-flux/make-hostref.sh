#!/usr/bin/env bash
# The host build's outputs that gpu.sh's `sod` part compares the GPU's with, from the repository root:
#   bash perf/results/2026-12-07-rotated-flux/make-hostref.sh FVPROXY DIR
# DIR/NAME-rotated-{true,false}/ for NAME = sod_tet (inputs/sod_tet.yaml) and sod100 (sod-tet-100.sets);
# copy DIR into the unpacked bundle's root as hostref/.
set -eu
fv=${1:?usage: make-hostref.sh FVPROXY DIR} dir=${2:?usage: make-hostref.sh FVPROXY DIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
sod100=()
while read -r kv; do sod100+=(--set "$kv"); done <"$here/sod-tet-100.sets"
for rot in true false; do
  "$fv" run inputs/sod_tet.yaml --quiet --set operators.convection.rotated=$rot --output-dir "$dir/sod_tet-rotated-$rot"
  "$fv" run inputs/sod_tet.yaml "${sod100[@]}" --quiet --set operators.convection.rotated=$rot \
    --output-dir "$dir/sod100-rotated-$rot"
done
