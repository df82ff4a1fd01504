#!/usr/bin/env bash
# perf/gmsh_mesh.sh [--force] [--hxt] SIZE... : generates the graded sphere-in-box tet meshes of
# mesh/sphere_in_box_graded.geo with Debian's gmsh (installed here when missing: apt-get install
# gmsh; not part of the default setup) for the ordering benchmark (perf/gmsh_order.py,
# docs/performance.md#z-order-against-a-real-mesh-numbering).
#   SIZE: small (h = 0.03, ~0.45M tets), large (h = 0.014, ~4.3M tets), or a far edge size h.
#   --hxt: Gmsh's parallel HXT mesher (Mesh.Algorithm3D = 10) instead of its default 3D Delaunay:
#   another native numbering, in files named ..._SIZE_hxt.msh.
# Writes build/gmsh/sphere_in_box_graded_SIZE.msh (MSH 4.1 binary, the format
# src/mesh/gmsh_reader.cpp reads; surface physical groups xmin ... zmax and sphere name the
# patches) and beside it SIZE.txt: gmsh's version, the command, wall seconds, peak memory, tets,
# file size. Too large to commit; an existing file is kept unless --force.
# Gmsh's own numbering (3D Delaunay, the default algorithm) is the "native" order: fvproxy keeps
# it with mesh.reorder: none.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
force=0 algo=() suffix=""
while [[ "${1:-}" == --* ]]; do
  case "$1" in
    --force) force=1 ;;
    --hxt) algo=(-setnumber Mesh.Algorithm3D 10) suffix=_hxt ;;
    *) echo "gmsh_mesh: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done
[[ $# -ge 1 ]] || { echo "usage: perf/gmsh_mesh.sh [--force] [--hxt] small|large|H..." >&2; exit 2; }
need_gmsh() { # installed on first use: an existing mesh needs no gmsh (e.g. on the GPU machine)
  command -v gmsh >/dev/null && return
  echo "gmsh_mesh: installing Debian's gmsh" >&2
  local sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends gmsh >/dev/null
}
out="$root/build/gmsh"
mkdir -p "$out"
for size in "$@"; do
  case "$size" in
    small) h=0.03 ;;
    large) h=0.014 ;;
    *)
      [[ "$size" =~ ^0?\.[0-9]+$ ]] || { echo "gmsh_mesh: size '$size': small, large or a number 0 < h < 1" >&2; exit 2; }
      h=$size ;;
  esac
  name="$size$suffix"
  msh="$out/sphere_in_box_graded_$name.msh"
  if [[ -f "$msh" && $force == 0 ]]; then
    echo "gmsh_mesh: $msh exists (--force regenerates it)"
    continue
  fi
  need_gmsh
  cmd=(gmsh -3 "$root/mesh/sphere_in_box_graded.geo" -setnumber h "$h" "${algo[@]}" -format msh41 -bin -o "$msh.tmp")
  log="$out/$name.log"
  timer=()
  [[ -x /usr/bin/time ]] && timer=(/usr/bin/time -f "%M" -o "$out/$name.peak") # peak memory (KiB)
  start=$SECONDS
  "${timer[@]}" "${cmd[@]}" >"$log" 2>&1 || { echo "gmsh_mesh: gmsh failed (log: $log)" >&2; tail -5 "$log" >&2; exit 1; }
  wall=$((SECONDS - start))
  mv "$msh.tmp" "$msh"
  peak="?"
  [[ -f "$out/$name.peak" ]] && peak=$(($(tail -1 "$out/$name.peak") / 1024)) && rm "$out/$name.peak"
  tets=$(grep -oE '[0-9]+ tetrahedra created|contains [0-9]+ tetrahedra' "$log" | tail -1 | grep -oE '[0-9]+' || true)
  {
    echo "gmsh: $(gmsh --version 2>&1 | tail -1)"
    echo "command: ${cmd[*]/%$msh.tmp/$msh}"
    echo "h: $h"
    echo "wall_seconds: $wall"
    echo "gmsh_wall_cpu_seconds: $(grep -o 'From start: Wall [0-9.]*s, CPU [0-9.]*s' "$log" | tail -1 | cut -c13- || true)"
    echo "peak_memory_mib: $peak"
    echo "tetrahedra (gmsh's log): $tets"
    echo "file_bytes: $(stat -c %s "$msh")"
    echo "cores: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  } >"$out/$name.txt"
  echo "gmsh_mesh: $msh"
  sed 's/^/  /' "$out/$name.txt"
done
