#!/usr/bin/env bash
# ParaView opens fvproxy's output (tests/cli/check_paraview.py, run by ParaView's pvbatch) on the
# hybrid hex/prism channel. Skipped (exit 77) where ParaView is not installed: it is not part of
# the project's dependencies (Debian: apt-get install paraview python3-paraview).
# usage: check_paraview.sh FVPROXY INPUTS_DIR OUT_DIR
set -euo pipefail
command -v pvbatch >/dev/null || { echo "pvbatch not found: skipped"; exit 77; }
fv="$1" inputs="$2" out="$3"
rm -rf "$out"
"$fv" run "$inputs/hybrid_channel.yaml" --quiet --output-dir "$out" --set "time={steps: 10, cfl: 0.4}" \
  --set "output.every={steps: 4}"
pvbatch "$(dirname "${BASH_SOURCE[0]}")/check_paraview.py" "$out" hybrid_channel
