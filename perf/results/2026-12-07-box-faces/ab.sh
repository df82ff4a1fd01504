#!/usr/bin/env bash
# A/B of the set-up on the 2-core VM: OLD and NEW fvproxy binaries in turn (two rounds), each
# through perf/parts_build.py: the whole box on one process and in parts on 2 ranks, one thread
# per process, ptscotch and zorder partitions, 64^3 hexes as 1.57M tets.
#   bash perf/results/2026-12-07-box-faces/ab.sh OUT OLD_FVPROXY NEW_FVPROXY [CELLS]
set -eu
out=${1:?usage: ab.sh OUT OLD NEW [CELLS]}
old=$2 new=$3 cells=${4:-64,64,64}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$out"
for round in 1 2; do
  for b in old new; do
    exe=$old
    [[ $b == new ]] && exe=$new
    for part in ptscotch zorder; do
      /usr/bin/python3 "$here/perf/parts_build.py" --fvproxy "$exe" --out "$out/$b-$part-$round" --cells "$cells" \
        --ranks 2 --partition "$part" >"$out/$b-$part-$round.txt" 2>&1
    done
  done
done
grep -H -E "whole|parts, 2" "$out"/*.txt
