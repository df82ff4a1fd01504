#!/usr/bin/env bash
# gmsh_bad_values.sh FVPROXY SOURCE_DIR OUT: Gmsh files with a non-finite node coordinate (MSH 4.1
# and 2.2 ASCII) or a node count far beyond the file's size are refused by `fvproxy mesh` with exit 2
# and the file:line first (they used to be accepted and crash `run`, or end in std::bad_alloc). The
# files are made from the repository's meshes by changing one line.
set -u
fv="$1" src="$2" out="$3"
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out"; mkdir -p "$out"
check() { # NAME SED_SCRIPT SOURCE_MESH EXPECTED_REGEX
  local name=$1 script=$2 mesh=$3 want=$4
  sed "$script" "$src/mesh/$mesh" > "$out/$name.msh"
  printf 'case: %s\nmesh:\n  file: %s.msh\n' "$name" "$name" > "$out/$name.yaml"
  local msg code
  msg=$(OMP_PROC_BIND=false timeout 60 "$fv" mesh "$out/$name.yaml" 2>&1); code=$?
  printf '%s\n' "$msg" | grep -v Kokkos | head -n 3
  [[ $code == 2 ]] || fail "$name: exit $code, expected 2"
  grep -Eq -- "$want" <<<"$msg" || fail "$name: message does not match /$want/"
}
# sphere_in_box.msh line 55 holds node 1's coordinates "0 0 1"; line 52 the $Nodes header.
check nan_41 '55s/^0 0 1$/0 nan 1/' sphere_in_box.msh "nan_41.msh:55: error: node 1: coordinate y is nan, not a finite number"
check inf_41 '55s/^0 0 1$/0 0 inf/' sphere_in_box.msh "inf_41.msh:55: error: node 1: coordinate z is inf, not a finite number"
# sphere_in_box_v22.msh line 17: node 1 "1 0 0 1"
check inf_22 '17s/^1 0 0 1$/1 -inf 0 1/' sphere_in_box_v22.msh "inf_22.msh:17: error: node 1: coordinate x is -inf"
check count_41 '52s/^31 893 1 893$/31 2000000000 1 2000000000/' sphere_in_box.msh \
  "count_41.msh:52: error: number of nodes 2000000000 cannot be right: the rest of the file"
echo "OK: non-finite coordinates and impossible counts refused with file:line"
