#!/usr/bin/env bash
# A/B of the step with the defaults, two bundles alternating A B A B on one GPU in one session:
#   bash perf/results/2026-11-29-h200-ab/gpu.sh OUT A=BUNDLE_DIR B=BUNDLE_DIR
set -u
out=$1
shift
mkdir -p "$out"
R=$PWD
for round in 1 2; do
  for nb in "$@"; do
    b=${nb%%=*} dir=${nb#*=}
    (cd "$dir" && ./run.sh bin/fvproxy perf "$R/perf/results/2026-11-29-h200-ab/step-ab.yaml" --output-dir "$out/$b-$round" \
       >"$out/$b-$round.log" 2>&1)
    echo "$b round $round: exit $?"
  done
done
