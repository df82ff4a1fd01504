#!/usr/bin/env bash
# mpi_run.sh MPIEXEC FVPROXY INPUTS REFERENCES OUT: fvproxy run on N MPI ranks (docs/parallel.md).
#  1. run.deterministic on 2 and 3 ranks (ptscotch, metis, hilbert, blocks): every output file holds the same
#     cells and values as the one-rank run's (fvproxy compare --rtol 0 --atol 0), one summary.json
#     (rank 0) with the global cell count; with ptscotch (the default: built in parts), metis (built on
#     rank 0) and hilbert (in parts) every file (mesh.h5, fields, checkpoints, the XDMF) is byte for
#     byte the one-rank run's of the same case (cmp); blocks builds in parts too; with two ghost
#     layers (metis, hilbert; a restart from a one-layer checkpoint) the same fields; a zorder run says
#     it built the mesh in parts;
#  2. the references default, sphere_in_box, hybrid_channel and the flow models' sod, sod_tet, vortex, couette, cylinder, inlets and
#     taylor_green under mpirun -np 3 match (1e-10); Sod's waves cross the rank cuts within the reference's 20 steps and
#     the vortex is smooth across them, so a missing exchange of the gradients fails here: the flow references
#     run once more with parallel.halo.layers: 1 (their default is two layers, which exchange no gradients);
#  3. restart across rank counts: checkpoints written on 1, 2 and 3 ranks, continued on 1, 2 and 3
#     (2 -> 3, 2 -> 1, 3 -> 1, 1 -> 2, 3 -> 2), end bitwise where the uninterrupted one-rank run ends
#     (byte for byte files);
#     3b. a non-reflecting outflow's state through a restart on 1 and 3 ranks;
#  4. an unstable run fails on every rank with one message (exit 1, no MPI_Abort), and run.wall_limit
#     stops every rank at the same step with a checkpoint (exit 3);
#  5. a bad input that every rank meets is reported once (exit 2);
#  6. output.fields [u0, rank]: the rank field is the owner of each cell (0..2 on 3 ranks, all 0 on
#     one), listed in the XDMF; u0 unchanged;
#  7. a write failure (file-size limit) on 3 ranks ends every rank with exit 1, naming the file.
set -u
mpiexec="$1"; fv="$2"; in="$3"; ref="$4"; out="$5"
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out"; mkdir -p "$out"
out=$(cd "$out" && pwd) # runs below start in folders of their own
mpi() { local np=$1; shift; timeout 300 "$mpiexec" -np "$np" --oversubscribe --bind-to none "$@"; }
small=(--set "mesh.generate.cells=[6,6,6]" --set run.deterministic=true --set output.every.steps=10 --quiet)
ck=(--set checkpoint.every.steps=10 --set checkpoint.keep=5)
# DIR COMMAND...: the command run in DIR (created) with --output-dir o: the files store the resolved
# case, output.dir included, so runs to be compared byte for byte name their folder alike.
run_in() { local dir=$1; shift; mkdir -p "$dir"; (cd "$dir" && "$@" --output-dir o); }
same() { # A_DIR B_DIR: every fields file of A equals B's, bitwise
  local n=0 f
  for f in "$1"/fields_*.h5; do
    "$fv" compare "$f" "$2/$(basename "$f")" --rtol 0 --atol 0 >/dev/null 2>&1 ||
      fail "$(basename "$f"): $1 and $2 differ: $("$fv" compare "$f" "$2/$(basename "$f")" --rtol 0 --atol 0 2>&1 | tail -n 3)"
    n=$((n + 1))
  done
  [[ $n -gt 1 ]] || fail "no fields files in $1"
}
bytes() { # A_DIR B_DIR [MIN]: every .h5 and .xdmf file of A is in B, byte for byte (at least MIN files)
  local n=0 f
  for f in "$1"/*.h5 "$1"/*.xdmf; do
    [[ -e $f ]] || continue
    cmp -s "$f" "$2/$(basename "$f")" ||
      fail "$(basename "$f") of $2 is not byte for byte that of $1: $(cmp "$f" "$2/$(basename "$f")" 2>&1)"
    n=$((n + 1))
  done
  [[ $n -ge ${3:-2} ]] || fail "only $n files compared in $1"
}

# 1. deterministic runs, bitwise per global id; with ptscotch (the default), hilbert and blocks the box
#    is built in parts (no rank holds the whole mesh), with metis on rank 0; with ptscotch, metis and
#    hilbert the files are the one-rank run's of the same case, bytes and all
run_in "$out/one" "$fv" run "$in/default.yaml" "${small[@]}" "${ck[@]}" 2>/dev/null || fail "one rank failed"
for method in hilbert metis; do
  run_in "$out/one_$method" "$fv" run "$in/default.yaml" "${small[@]}" "${ck[@]}" --set mesh.partition=$method \
    2>/dev/null || fail "one rank ($method) failed"
done
for np in 2 3; do
  for method in ptscotch metis hilbert blocks; do
    d="$out/np${np}_$method"
    run_in "$d" mpi "$np" "$fv" run "$in/default.yaml" "${small[@]}" "${ck[@]}" --set mesh.partition=$method \
      >"$d.log" 2>&1 || fail "$np ranks, $method: exit $?: $(grep -v Kokkos "$d.log" | tail -n 5)"
    same "$out/one/o" "$d/o"
    [[ $method != ptscotch ]] || bytes "$out/one/o" "$d/o" 12 # the default: mesh, 6 fields, 4 checkpoints, XDMF
    [[ $method != metis ]] || bytes "$out/one_metis/o" "$d/o" 12 # built on rank 0
    [[ $method != hilbert ]] || bytes "$out/one_hilbert/o" "$d/o" 12 # built in parts
    cells=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['cells'])" "$d/o/summary.json")
    [[ $cells == 1296 ]] || fail "$np ranks: summary.json cells = $cells, expected 1296"
    ! grep -q "MPI_ABORT" "$d.log" || fail "$np ranks: MPI_Abort"
  done
done

# ... with one ghost layer (the default for this case is two: docs/halo.md#two-ghost-layers), on rank
# 0's mesh and built in parts: the same fields; and a restart with one layer from a two-layer
# checkpoint ends where the one-rank run does
for method in metis hilbert; do
  d="$out/np3_${method}_layers1"
  run_in "$d" mpi 3 "$fv" run "$in/default.yaml" "${small[@]}" "${ck[@]}" --set mesh.partition=$method \
    --set parallel.halo.layers=1 >"$d.log" 2>&1 || fail "3 ranks, $method, one ghost layer: $(grep -v Kokkos "$d.log" | tail -n 5)"
  same "$out/one/o" "$d/o"
  python3 -c "import json,sys; h=json.load(open(sys.argv[1]))['halo']; assert h['layers'] == 1, h" "$d/o/summary.json" ||
    fail "3 ranks, $method: summary.json halo.layers is not 1"
done
python3 -c "import json,sys; h=json.load(open(sys.argv[1]))['halo']; assert h['layers'] == 2, h" "$out/np2_metis/o/summary.json" ||
  fail "2 ranks, metis: summary.json halo.layers is not 2 (the default of a case that reconstructs)"
d="$out/re2to3_layers1"
run_in "$d" mpi 3 "$fv" run "$in/default.yaml" "${small[@]}" "${ck[@]}" --set parallel.halo.layers=1 \
  --restart "$out/np2_metis/o/checkpoint_000020.h5" >"$d.log" 2>&1 ||
  fail "restart 2 -> 3 with one ghost layer: $(grep -v Kokkos "$d.log" | tail -n 5)"
for f in fields_000030.h5 "$(basename "$(ls "$out/one/o"/fields_*.h5 | tail -n 1)")"; do
  "$fv" compare "$out/one/o/$f" "$d/o/$f" --rtol 0 --atol 0 >/dev/null 2>&1 ||
    fail "restart 2 -> 3 with two ghost layers: $f differs from the one-rank run's"
done

mpi 2 "$fv" run "$in/default.yaml" --set "mesh.generate.cells=[4,4,4]" --set "time={steps: 2, cfl: 0.4}" \
  --set mesh.partition=zorder --output-dir "$out/parts_said" >"$out/parts_said.log" 2>&1 ||
  fail "2 ranks, zorder: $(grep -v Kokkos "$out/parts_said.log" | tail -n 5)"
grep -q "built in parts on 2 ranks" "$out/parts_said.log" || fail "2 ranks, zorder: the mesh was not built in parts"

# 2. references under 3 ranks (the default variants: atomic scatters on some backends, so 1e-10; the
#    references are double results: a float build is compared at float's 1e-4, as regress.sh does)
rtol=1e-10
"$fv" info --json | grep -q '"real": "float"' && rtol=1e-4
# The flow models default to two ghost layers (no gradient exchange): their references run once more
# with one layer, where the gradients and limiter values are exchanged (docs/halo.md#two-ghost-layers).
# Not cylinder: its answer is the corners stencil's (the flow models' default with two layers, where
# its no-slip cylinder meets the symmetry planes), which one layer cannot hold (the face stencil then).
for run in default sphere_in_box hybrid_channel sod sod_tet vortex couette cylinder taylor_green inlets \
  sod:1 sod_tet:1 vortex:1 couette:1 taylor_green:1 inlets:1; do
  name=${run%%:*} layers=() what="reference $name on 3 ranks"
  [[ $run == *:1 ]] && layers=(--set parallel.halo.layers=1) what="$what, one ghost layer"
  args=()
  while IFS= read -r line; do [[ $line == \#* || -z $line ]] || args+=("$line"); done <"$ref/$name/command"
  args[0]="$in/../${args[0]}"
  o="$out/ref_${run/:/_layers}"
  mpi 3 "$fv" run "${args[@]}" "${layers[@]}" --quiet --output-dir "$o" >"$o.log" 2>&1 ||
    fail "$what: $(grep -v Kokkos "$o.log" | tail -n 5)"
  if [[ ${#layers[@]} -gt 0 ]]; then
    python3 -c "import json,sys; h=json.load(open(sys.argv[1]))['halo']; assert h['layers'] == 1, h" "$o/summary.json" ||
      fail "$what: summary.json halo.layers is not 1"
  fi
  "$fv" compare "$o/fields_000020.h5" "$ref/$name/fields_000020.h5" --rtol "$rtol" >/dev/null 2>&1 ||
    fail "$what: $("$fv" compare "$o/fields_000020.h5" "$ref/$name/fields_000020.h5" --rtol "$rtol" 2>&1 | tail -n 4)"
done

# 3. restart 2 -> 3, 2 -> 1, 3 -> 1, 1 -> 2 and 3 -> 2 from the step-20 checkpoints of part 1 (each
#    rank reads its block of the file's rows; on several ranks the mesh is built on rank 0, or in
#    parts for hilbert): the files written after the restart are the uninterrupted one-rank run's,
#    byte for byte
final=$(basename "$(ls "$out/one/o"/fields_*.h5 | tail -n 1)")
for from_to in 2:3 2:1 3:1 1:2 3:2; do
  from=${from_to%:*}; to=${from_to#*:}
  d="$out/re${from}to$to"
  src="$out/np${from}_metis/o"
  [[ $from != 1 ]] || src="$out/one/o"
  run_in "$d" mpi "$to" "$fv" run "$in/default.yaml" "${small[@]}" "${ck[@]}" \
    --restart "$src/checkpoint_000020.h5" >"$d.log" 2>&1 ||
    fail "restart $from -> $to: $(grep -v Kokkos "$d.log" | tail -n 5)"
  "$fv" compare "$out/one/o/$final" "$d/o/$final" --rtol 0 --atol 0 >/dev/null 2>&1 || fail "restart $from -> $to differs"
  for f in "$final" fields_000030.h5 checkpoint_000030.h5 checkpoint_000040.h5; do
    cmp -s "$out/one/o/$f" "$d/o/$f" || fail "restart $from -> $to: $f is not byte for byte the one-rank run's"
  done
done
# ... and a box built in parts (hilbert) restarted 2 -> 3 in parts: the fingerprint the ranks compute
# together matches, the files are the one-rank run's of the same case
d="$out/re2to3_hilbert"
run_in "$d" mpi 3 "$fv" run "$in/default.yaml" "${small[@]}" "${ck[@]}" --set mesh.partition=hilbert \
  --restart "$out/np2_hilbert/o/checkpoint_000020.h5" >"$d.log" 2>&1 ||
  fail "restart in parts 2 -> 3: $(grep -v Kokkos "$d.log" | tail -n 5)"
for f in "$final" fields_000030.h5 checkpoint_000030.h5 checkpoint_000040.h5; do
  cmp -s "$out/one_hilbert/o/$f" "$d/o/$f" || fail "restart in parts 2 -> 3: $f is not byte for byte the one-rank run's"
done

# 3b. a flow case with a non-reflecting outflow (the inlets reference's, 40 steps): its faces'
#     incoming characteristics travel in the checkpoint's slots, so a restart on one rank ends bitwise
#     where the uninterrupted run ends, and on 3 ranks within round-off (the 3-rank run itself differs
#     from one rank's at 1e-15: the mass-flow inlet's area is summed in another order); a checkpoint
#     without the slots (the outflow fixed) continues a non-reflecting case, and one with them a fixed case
nr=()
while IFS= read -r line; do [[ $line == \#* || -z $line ]] || nr+=("$line"); done <"$ref/inlets/command"
nr[0]="$in/../${nr[0]}"
nr+=(--set "time={steps: 40}" --set "output.every={steps: 20}" --set "checkpoint={every: {steps: 20}}"
  --set run.deterministic=true --quiet)
"$fv" run "${nr[@]}" --output-dir "$out/nr_one" >"$out/nr_one.log" 2>&1 || fail "non-reflecting: $(tail -n 3 "$out/nr_one.log")"
"$fv" run "${nr[@]}" --output-dir "$out/nr_re1" --restart "$out/nr_one/checkpoint_000020.h5" >"$out/nr_re1.log" 2>&1 ||
  fail "non-reflecting restart: $(tail -n 3 "$out/nr_re1.log")"
"$fv" compare "$out/nr_one/fields_000040.h5" "$out/nr_re1/fields_000040.h5" --rtol 0 --atol 0 >/dev/null 2>&1 ||
  fail "non-reflecting restart on one rank differs: $("$fv" compare "$out/nr_one/fields_000040.h5" "$out/nr_re1/fields_000040.h5" --rtol 0 --atol 0 2>&1 | tail -n 4)"
mpi 3 "$fv" run "${nr[@]}" --output-dir "$out/nr_re3" --restart "$out/nr_one/checkpoint_000020.h5" >"$out/nr_re3.log" 2>&1 ||
  fail "non-reflecting restart 1 -> 3: $(grep -v Kokkos "$out/nr_re3.log" | tail -n 3)"
"$fv" compare "$out/nr_one/fields_000040.h5" "$out/nr_re3/fields_000040.h5" --rtol 1e-12 >/dev/null 2>&1 ||
  fail "non-reflecting restart 1 -> 3 differs: $("$fv" compare "$out/nr_one/fields_000040.h5" "$out/nr_re3/fields_000040.h5" --rtol 1e-12 2>&1 | tail -n 4)"
"$fv" run "${nr[@]}" --set "boundary.zmax={type: subsonic-outflow, pressure: 1}" --output-dir "$out/nr_fixed" \
  --restart "$out/nr_one/checkpoint_000020.h5" >"$out/nr_fixed.log" 2>&1 || fail "a fixed case from a non-reflecting checkpoint"
"$fv" run "${nr[@]}" --output-dir "$out/nr_from_fixed" --restart "$out/nr_fixed/checkpoint_000040.h5" \
  --set "time={steps: 60}" >"$out/nr_from_fixed.log" 2>&1 || fail "a non-reflecting case from a fixed case's checkpoint"

# 4. a failure and a stop, on every rank
mpi 2 "$fv" run "$in/advection.yaml" --set "mesh.generate.cells=[8,8,8]" --set operators.convection.order=1 \
  --set "time={integrator: euler, dt: 0.5, steps: 2000}" --quiet --output-dir "$out/fail" >"$out/fail.log" 2>&1
code=$?
[[ $code == 1 ]] || fail "unstable run on 2 ranks: exit $code, expected 1: $(tail -n 5 "$out/fail.log")"
grep -Eq "^fvproxy run: error: u0 left the admissible interval .* at step [1-6] .*: cell [0-9]+ [(]global id[)] at [(]" \
  "$out/fail.log" || fail "unstable run: no error naming the step and cell: $(tail -n 3 "$out/fail.log")"
n=$(grep -c "^fvproxy run: error: " "$out/fail.log")
[[ $n == 1 ]] || fail "unstable run: the error was printed $n times"
! grep -q "MPI_ABORT" "$out/fail.log" || fail "unstable run: MPI_Abort"
mpi 2 "$fv" run "$in/default.yaml" --set "mesh.generate.cells=[6,6,6]" --set run.wall_limit=0.000001 --quiet \
  --output-dir "$out/stop" >"$out/stop.log" 2>&1
code=$?
[[ $code == 3 ]] || fail "wall-limit stop on 2 ranks: exit $code, expected 3: $(tail -n 5 "$out/stop.log")"
ls "$out/stop"/checkpoint_*.h5 >/dev/null 2>&1 || fail "the stopped run left no checkpoint"
# 5. bad input met by every rank: one message (rank 0's), exit 2
mpi 2 "$fv" run "$in/default.yaml" --set mesh.reorder=zordr --output-dir "$out/bad" >"$out/bad.log" 2>&1
code=$?
[[ $code == 2 ]] || fail "bad input on 2 ranks: exit $code, expected 2"
n=$(grep -c "error: mesh.reorder: invalid value 'zordr'" "$out/bad.log")
[[ $n == 1 ]] || fail "bad input on 2 ranks: the error was printed $n times: $(grep -v Kokkos "$out/bad.log" | head -n 5)"
# 6. the rank field: the owner of each cell, shown beside u0
rank_values() { # FILE: the /fields/rank values, one per line
  local bin
  bin=$(mktemp "$out/rank.XXXXXX")
  h5dump -d /fields/rank -b LE -o "$bin" "$1" >/dev/null 2>&1 || fail "no /fields/rank in $1"
  python3 -c "
import struct, sys
b = open(sys.argv[1], 'rb').read(); n = 1296; w = len(b) // n
assert len(b) == n * w and w in (4, 8), 'bad size %d' % len(b)
print('\n'.join('%g' % v for v in struct.unpack('<%d%s' % (n, 'd' if w == 8 else 'f'), b)))" "$bin"
  rm -f "$bin"
}
run_in "$out/rank3" mpi 3 "$fv" run "$in/default.yaml" "${small[@]}" --set "output.fields=[u0, rank]" \
  >"$out/rank3.log" 2>&1 || fail "rank field on 3 ranks: $(grep -v Kokkos "$out/rank3.log" | tail -n 5)"
counts=$(rank_values "$out/rank3/o/$final" | sort -n | uniq -c | awk '{printf "%s:%s ", $2, $1}')
[[ $counts =~ ^0:[0-9]+\ 1:[0-9]+\ 2:[0-9]+\ $ ]] || fail "rank field on 3 ranks: values $counts, expected 0, 1 and 2"
grep -q 'Attribute Name="rank"' "$out/rank3/o/default.xdmf" || fail "the XDMF does not list the rank field"
"$fv" compare "$out/one/o/$final" "$out/rank3/o/$final" --fields u0 --rtol 0 --atol 0 >/dev/null 2>&1 ||
  fail "u0 beside the rank field differs from the one-rank run's"
"$fv" run "$in/default.yaml" "${small[@]}" --set "output.fields=[rank]" --output-dir "$out/rank1" 2>/dev/null ||
  fail "rank field on one rank failed"
counts=$(rank_values "$out/rank1/$final" | sort -n | uniq -c | awk '{printf "%s:%s ", $2, $1}')
[[ $counts == "0:1296 " ]] || fail "rank field on one rank: $counts, expected 1296 zeros"
# 7. a write that fails (file-size limit, ulimit -f: like a full disk) on 3 ranks ends every rank,
#    exit 1, naming the file, leaving no temporary file (no hang: within 20 s of the failure). The
#    limit breaks Open MPI's shared-memory transport and PMIx's shared-memory store: TCP and the
#    hash store instead.
code=0
PMIX_MCA_gds=hash timeout 120 "$mpiexec" -np 3 --oversubscribe --bind-to none --mca btl self,tcp \
  bash -c "ulimit -f 16; exec '$fv' run '$in/default.yaml' --set 'mesh.generate.cells=[8,8,8]' --set 'time={steps: 2}' \
  --quiet --output-dir '$out/limit'" >"$out/limit.log" 2>&1 || code=$?
[[ $code == 1 ]] || fail "write failure on 3 ranks: exit $code, expected 1: $(grep -v Kokkos "$out/limit.log" | tail -n 5)"
grep -q "^error: writing $out/limit/mesh.h5 failed" "$out/limit.log" ||
  fail "write failure on 3 ranks: mesh.h5 not named: $(grep -v Kokkos "$out/limit.log" | head -n 5)"
! ls -A "$out/limit" | grep -q '\.tmp' || fail "write failure on 3 ranks left a temporary file: $(ls -A "$out/limit")"
[[ ! -e "$out/limit/mesh.h5" ]] || fail "write failure on 3 ranks left a mesh.h5"
echo "OK: fvproxy run on 2 and 3 ranks: bitwise the one-rank fields (metis, hilbert, blocks) and files (metis), references, restart 2->3, 2->1, 3->1, 1->2 and 3->2, failure and stop on every rank, the rank field, a failed write"
