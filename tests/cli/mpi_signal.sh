#!/usr/bin/env bash
# mpi_signal.sh MPIEXEC FVPROXY INPUTS OUT: stopping a decomposed run from outside (docs/parallel.md#signals).
# mpirun (Open MPI) does not forward SIGTERM to the ranks (it kills them) but forwards SIGUSR1 and
# SIGUSR2: SIGUSR1 sent to mpirun after the first progress line makes every rank write the
# checkpoint and exit 3; --restart from it (on 2 ranks) ends bitwise where the uninterrupted
# one-rank run ends (run.deterministic).
set -u
mpiexec="$1"; fv="$2"; in="$3"; out="$4"
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out"; mkdir -p "$out"
case_args=("$in/default.yaml" --set "mesh.generate.cells=[6,6,6]" --set "time={steps: 600, cfl: 0.4}"
  --set run.deterministic=true)
status() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['status'])" "$1"; }

"$fv" run "${case_args[@]}" --quiet --output-dir "$out/straight" 2>/dev/null || fail "straight run"

"$mpiexec" -np 2 --oversubscribe --bind-to none "$fv" run "${case_args[@]}" --set run.progress_interval=0.02 \
  --output-dir "$out/signal" >"$out/signal.out" 2>"$out/signal.err" &
pid=$!
for _ in $(seq 1 600); do
  grep -q "^step " "$out/signal.err" 2>/dev/null && break
  sleep 0.05
done
grep -q "^step " "$out/signal.err" || { kill -KILL "$pid"; fail "no progress line within 30 s"; }
kill -USR1 "$pid"
wait "$pid"
rc=$?
[[ $rc == 3 ]] || { tail -n 20 "$out/signal.err"; fail "SIGUSR1 to mpirun: exit code $rc, expected 3"; }
n=$(grep -c "^fvproxy run: stopped at step [0-9]* of 600 (t = .*): stop requested (SIGTERM, SIGINT, SIGUSR1 or SIGUSR2)" \
  "$out/signal.err")
[[ $n == 1 ]] || { tail -n 20 "$out/signal.err"; fail "the stop was reported $n times, expected once (rank 0)"; }
! grep -q "MPI_ABORT" "$out/signal.err" || fail "MPI_Abort"
[[ $(status "$out/signal/summary.json") == stopped ]] || fail "summary status"
ck=$(ls "$out"/signal/checkpoint_*.h5 2>/dev/null | tail -n 1)
[[ -n "$ck" ]] || fail "no checkpoint"
echo "2 ranks stopped by SIGUSR1 at $(basename "$ck")"
"$mpiexec" -np 2 --oversubscribe --bind-to none "$fv" run "${case_args[@]}" --quiet --output-dir "$out/signal" \
  --restart "$ck" >"$out/restart.log" 2>&1 || fail "restart on 2 ranks: $(tail -n 5 "$out/restart.log")"
[[ $(status "$out/signal/summary.json") == completed ]] || fail "restart: summary status"
"$fv" compare "$out/straight" "$out/signal" --rtol 0 --atol 0 >/dev/null ||
  fail "the restarted run differs from the straight one: $("$fv" compare "$out/straight" "$out/signal" --rtol 0 --atol 0 2>&1 | tail -n 4)"
echo "OK: SIGUSR1 to mpirun stops 2 ranks with a checkpoint (exit 3); the restart ends bitwise on the straight run"
