#!/usr/bin/env bash
# perf/mesh_build.sh [FVPROXY] [OUT.csv]
# Benchmark (not a test): mesh build and reordering time for a few million cells, per element
# type and ordering, from `fvproxy mesh --json` (its "seconds" object: build = generate + faces +
# geometry + checks; reorder = permutation + renumbering + geometry again). Writes a CSV with the
# machine, backend and Kokkos version of the run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
exe="${1:-$root/build/host/fvproxy}"
out="${2:-/dev/stdout}"
export OMP_PROC_BIND=false
info=$("$exe" info --json)
py() { /usr/bin/python3 -c "$@"; }
meta=$(py 'import json,sys; j=json.load(sys.stdin); k=j["kokkos"]; print(f"{j[\"device\"]};{k[\"default_execution_space\"]} x{k[\"concurrency\"]};Kokkos {k[\"version\"]};{j[\"git_revision\"]}")' <<<"$info")
{
  echo "# fvproxy mesh build benchmark; device;backend;kokkos;revision = $meta; date $(date -u +%F)"
  echo "element,cells_per_axis,cells,ordering,build_s,reorder_s,faces_per_s"
  for spec in "hex 128" "tet 72" "prism 100"; do
    set -- $spec
    for o in none zorder hilbert rcm random; do
      j=$("$exe" mesh "$root/inputs/default.yaml" --json --set "mesh.generate.element=$1" \
          --set "mesh.generate.cells=[$2,$2,$2]" --set mesh.generate.perturb=0 --set "mesh.reorder=$o")
      py 'import json,sys; j=json.load(sys.stdin); s=j["seconds"]; print(f"{sys.argv[1]},{sys.argv[2]},{j[\"cells\"]},{sys.argv[3]},{s[\"build\"]:.3f},{s[\"reorder\"]:.3f},{j[\"faces\"]/(s[\"build\"]+s[\"reorder\"]):.4g}")' "$1" "$2" "$o" <<<"$j"
    done
  done
} >"$out"
