#!/usr/bin/env bash
# Compiler launcher of the cuda preset: ptxas-log.sh DIR COMPILER ARGS...
# Runs the compiler; its stderr still reaches the build log, and the ptxas resource-usage lines
# (-Xptxas -v) are also kept in DIR/<object>.log, rewritten at each compilation of that object.
set -uo pipefail
dir="$1"; shift
obj=""
prev=""
for a in "$@"; do
  [[ "$prev" == "-o" ]] && obj="$a"
  prev="$a"
done
mkdir -p "$dir"
err=$(mktemp)
"$@" 2>"$err"
rc=$?
grep -v -E '^(ptxas info|    [0-9]+ bytes stack frame)' "$err" >&2 || true
if [[ -n "$obj" ]]; then
  { echo "# object: $obj"; grep -E '^(ptxas info|    [0-9]+ bytes stack frame)' "$err"; } >"$dir/$(basename "$obj").log" || true
fi
rm -f "$err"
exit $rc
