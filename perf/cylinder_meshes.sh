#!/usr/bin/env bash
# perf/cylinder_meshes.sh [OUT_DIR]: the three meshes of the cylinder drag study (mesh/cylinder.geo
# with Debian's gmsh: edge h = 0.1, 0.05, 0.025 on the cylinder; 3.7k, 11k, 44k nodes per the two
# layers) as OUT_DIR/cylinder_H.msh (MSH 4.1 binary; default OUT_DIR build/gmsh). mesh/cylinder.msh is
# the h = 0.1 one. docs/flow-cases.md#flow-past-a-cylinder.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/build/gmsh}"
mkdir -p "$out"
command -v gmsh >/dev/null || { echo "cylinder_meshes: gmsh not found (apt-get install gmsh)" >&2; exit 1; }
for h in 0.1 0.05 0.025; do
  gmsh -3 "$root/mesh/cylinder.geo" -setnumber h "$h" -format msh41 -bin -o "$out/cylinder_$h.msh" >"$out/cylinder_$h.log" 2>&1 ||
    { echo "cylinder_meshes: gmsh failed for h = $h (log: $out/cylinder_$h.log)" >&2; exit 1; }
  echo "$out/cylinder_$h.msh: $(grep -Eo '[0-9]+ nodes [0-9]+ elements' "$out/cylinder_$h.log" | tail -n 1)"
done
