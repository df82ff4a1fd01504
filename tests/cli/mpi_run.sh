#!/usr/bin/env bash
# mpi_run.sh MPIEXEC FVPROXY INPUTS REFERENCES OUT: fvproxy run on N MPI ranks (docs/parallel.md).
#  1. run.deterministic on 2 and 3 ranks (metis, hilbert, blocks): every output file holds the same
#     cells and values as the one-rank run's (fvproxy compare --rtol 0 --atol 0), one summary.json
#     (rank 0) with the global cell count;
#  2. the references default, sphere_in_box and hybrid_channel under mpirun -np 3 match (1e-10);
#  3. restart across rank counts: a checkpoint written on 2 ranks, continued on 3 and on 1, ends
#     bitwise where the uninterrupted one-rank run ends;
#  4. an unstable run fails on every rank with one message (exit 1, no MPI_Abort), and run.wall_limit
#     stops every rank at the same step with a checkpoint (exit 3);
#  5. a bad input that every rank meets is reported once (exit 2).
set -u
mpiexec="$1"; fv="$2"; in="$3"; ref="$4"; out="$5"
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out"; mkdir -p "$out"
mpi() { local np=$1; shift; timeout 300 "$mpiexec" -np "$np" --oversubscribe --bind-to none "$@"; }
small=(--set "mesh.generate.cells=[6,6,6]" --set run.deterministic=true --set output.every.steps=10 --quiet)
same() { # A_DIR B_DIR: every fields file of A equals B's, bitwise
  local n=0 f
  for f in "$1"/fields_*.h5; do
    "$fv" compare "$f" "$2/$(basename "$f")" --rtol 0 --atol 0 >/dev/null 2>&1 ||
      fail "$(basename "$f"): $1 and $2 differ: $("$fv" compare "$f" "$2/$(basename "$f")" --rtol 0 --atol 0 2>&1 | tail -n 3)"
    n=$((n + 1))
  done
  [[ $n -gt 1 ]] || fail "no fields files in $1"
}

# 1. deterministic runs, bitwise per global id
"$fv" run "$in/default.yaml" "${small[@]}" --output-dir "$out/one" 2>/dev/null || fail "one rank failed"
for np in 2 3; do
  for method in metis hilbert blocks; do
    d="$out/np${np}_$method"
    mpi "$np" "$fv" run "$in/default.yaml" "${small[@]}" --set mesh.partition=$method --output-dir "$d" \
      >"$d.log" 2>&1 || fail "$np ranks, $method: exit $?: $(grep -v Kokkos "$d.log" | tail -n 5)"
    same "$out/one" "$d"
    cells=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['cells'])" "$d/summary.json")
    [[ $cells == 1296 ]] || fail "$np ranks: summary.json cells = $cells, expected 1296"
    ! grep -q "MPI_ABORT" "$d.log" || fail "$np ranks: MPI_Abort"
  done
done

# 2. references under 3 ranks (the default variants: atomic scatters on some backends, so 1e-10)
for name in default sphere_in_box hybrid_channel; do
  args=()
  while IFS= read -r line; do [[ $line == \#* || -z $line ]] || args+=("$line"); done <"$ref/$name/command"
  args[0]="$in/../${args[0]}"
  mpi 3 "$fv" run "${args[@]}" --quiet --output-dir "$out/ref_$name" >"$out/ref_$name.log" 2>&1 ||
    fail "reference $name on 3 ranks: $(grep -v Kokkos "$out/ref_$name.log" | tail -n 5)"
  "$fv" compare "$out/ref_$name/fields_000020.h5" "$ref/$name/fields_000020.h5" --rtol 1e-10 >/dev/null 2>&1 ||
    fail "reference $name on 3 ranks: $("$fv" compare "$out/ref_$name/fields_000020.h5" "$ref/$name/fields_000020.h5" --rtol 1e-10 2>&1 | tail -n 4)"
done

# 3. restart 2 -> 3 and 2 -> 1
ck=(--set checkpoint.every.steps=10 --set checkpoint.keep=5)
mpi 2 "$fv" run "$in/default.yaml" "${small[@]}" "${ck[@]}" --output-dir "$out/ck2" >"$out/ck2.log" 2>&1 ||
  fail "checkpointing run on 2 ranks: $(tail -n 5 "$out/ck2.log")"
[[ -f "$out/ck2/checkpoint_000020.h5" ]] || fail "no checkpoint_000020.h5 from 2 ranks"
final=$(ls "$out/one"/fields_*.h5 | tail -n 1)
mpi 3 "$fv" run "$in/default.yaml" "${small[@]}" --output-dir "$out/re3" --restart "$out/ck2/checkpoint_000020.h5" \
  >"$out/re3.log" 2>&1 || fail "restart on 3 ranks: $(grep -v Kokkos "$out/re3.log" | tail -n 5)"
"$fv" compare "$final" "$out/re3/$(basename "$final")" --rtol 0 --atol 0 >/dev/null 2>&1 || fail "restart 2 -> 3 differs"
"$fv" run "$in/default.yaml" "${small[@]}" --output-dir "$out/re1" --restart "$out/ck2/checkpoint_000020.h5" \
  2>/dev/null || fail "restart on 1 rank failed"
"$fv" compare "$final" "$out/re1/$(basename "$final")" --rtol 0 --atol 0 >/dev/null 2>&1 || fail "restart 2 -> 1 differs"

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
echo "OK: fvproxy run on 2 and 3 ranks: bitwise the one-rank fields (metis, hilbert, blocks), references, restart 2->3 and 2->1, failure and stop on every rank"
