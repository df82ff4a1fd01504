#!/usr/bin/env bash
# Regenerates the reference outputs of tests/reference/ (docs/output.md, "Reference outputs").
#   bash tests/reference/regenerate.sh [FVPROXY] [CASE...]
# Each tests/reference/<case>/command lists the arguments of `fvproxy run` that made the reference
# (one per line, paths relative to the repository root). The run writes into a temporary folder;
# its final fields file and summary.json replace the reference's. Regenerate only when the
# numerics change on purpose (and say why in the commit): the regression tests compare every
# variant combination against these files.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
fv="${1:-$root/build/host/fvproxy}"
shift || true
cd "$root"
cases=("$@")
if [[ ${#cases[@]} == 0 ]]; then
  for d in tests/reference/*/; do cases+=("$(basename "$d")"); done
fi
for c in "${cases[@]}"; do
  dir="tests/reference/$c"
  mapfile -t args < <(grep -v '^#' "$dir/command")
  tmp=$(mktemp -d)
  OMP_PROC_BIND=false "$fv" run "${args[@]}" --quiet --output-dir "$tmp"
  rm -f "$dir"/fields_*.h5
  cp "$tmp"/fields_*.h5 "$tmp/summary.json" "$dir/"
  rm -rf "$tmp"
  echo "$c: $(ls "$dir"/fields_*.h5)"
done
