#!/usr/bin/env bash
# Regenerates the .msh files of this folder from their .geo sources with Debian's gmsh
# (apt-get install gmsh; files here were made with gmsh 4.8.4):
#   sphere_in_box.msh (MSH 4.1 ASCII), sphere_in_box_bin.msh (MSH 4.1 binary),
#   sphere_in_box_v22.msh (MSH 2.2 ASCII) — one mesh in three encodings (the reader test checks
#   they give identical meshes) —, hybrid_channel.msh (MSH 4.1 ASCII, prisms + hexahedra) and
#   cylinder.msh (MSH 4.1 binary, prisms; h = 0.1).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
command -v gmsh >/dev/null || { echo "gmsh not found: apt-get install gmsh" >&2; exit 1; }
gmsh -3 sphere_in_box.geo -format msh41 -o sphere_in_box.msh >/dev/null
# The other encodings re-save the same mesh, so node and element numbering are identical.
gmsh sphere_in_box.msh -save -format msh41 -bin -o sphere_in_box_bin.msh >/dev/null
gmsh sphere_in_box.msh -save -format msh22 -o sphere_in_box_v22.msh >/dev/null
gmsh -3 hybrid_channel.geo -format msh41 -o hybrid_channel.msh >/dev/null
gmsh -3 cylinder.geo -setnumber h 0.1 -format msh41 -bin -o cylinder.msh >/dev/null
ls -l ./*.msh
