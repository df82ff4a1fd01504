#!/usr/bin/env bash
# Batch-job behaviour of `fvproxy run` (run.deterministic: true throughout):
#   1. SIGTERM during a run: it writes a checkpoint, summary.json says "stopped", exit code 3;
#      --restart from that checkpoint, in the same folder, completes; the first output after the
#      restart and the final fields equal a straight run's bitwise, and the XDMF series lists every
#      output time once.
#   2. run.wall_limit: the same with the clock instead of a signal.
# (A full disk while writing is tested in-process: test_io.cpp, FieldFile.DiskFullIsAnError...)
# usage: stop_and_restart.sh FVPROXY INPUTS_DIR WORK_DIR
set -uo pipefail
fv="$1" inputs="$2" work="$3"
rm -rf "$work" && mkdir -p "$work"
case_args=("$inputs/default.yaml" --set "mesh.generate.cells=[8,8,8]" --set "time={steps: 3000, cfl: 0.4}"
  --set run.deterministic=true --set "output.every={steps: 500}")
fail() { echo "FAIL: $*"; exit 1; }
status() { /usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['status'])" "$1"; }
# CHECKPOINT A_DIR B_DIR: the first output after the checkpoint's step equals the straight run's,
# bitwise (the files at the end compare thousands of steps later, when a 1-ulp error may be gone)
first_after() {
  local k next f
  k=$(basename "$1" .h5); k=$((10#${k#checkpoint_}))
  next=$(( (k / 500 + 1) * 500 ))
  f=$(printf "fields_%06d.h5" "$next")
  [[ -f $3/$f ]] || fail "no $f after the restart from step $k"
  "$fv" compare "$2/$f" "$3/$f" --rtol 0 --atol 0 >/dev/null ||
    fail "$f, the first output after the restart from step $k, differs from the straight run's"
}

"$fv" run "${case_args[@]}" --quiet --output-dir "$work/straight" || fail "straight run"

# 1. SIGTERM after the first progress report (0.02 s in: early enough on a GPU too).
"$fv" run "${case_args[@]}" --set run.progress_interval=0.02 --output-dir "$work/signal" \
  >"$work/signal.out" 2>"$work/signal.err" &
pid=$!
for _ in $(seq 1 300); do
  grep -q "^step " "$work/signal.err" 2>/dev/null && break
  sleep 0.05
done
kill -TERM "$pid"
wait "$pid"
rc=$?
[[ $rc == 3 ]] || { cat "$work/signal.err"; fail "SIGTERM: exit code $rc, expected 3"; }
grep -q "stopped at step [0-9]* of 3000" "$work/signal.err" || fail "SIGTERM: no 'stopped at step' message"
grep -q "continue with: .*--restart .*checkpoint_[0-9]*.h5" "$work/signal.err" || fail "SIGTERM: no restart hint"
[[ $(status "$work/signal/summary.json") == stopped ]] || fail "SIGTERM: summary status"
ck=$(ls "$work"/signal/checkpoint_*.h5 | tail -n 1)
[[ -n "$ck" ]] || fail "SIGTERM: no checkpoint"
echo "stopped by SIGTERM at $(basename "$ck")"
"$fv" run "${case_args[@]}" --quiet --output-dir "$work/signal" --restart "$ck" || fail "restart after SIGTERM"
[[ $(status "$work/signal/summary.json") == completed ]] || fail "restart: summary status"
first_after "$ck" "$work/straight" "$work/signal"
"$fv" compare "$work/straight" "$work/signal" --rtol 0 --atol 0 || fail "restart after SIGTERM differs from the straight run"
"$fv" compare "$work/straight/fields_001500.h5" "$work/signal/fields_001500.h5" --rtol 0 >/dev/null || fail "step 1500 differs"
n=$(grep -c '<Grid Name="step_' "$work/signal/default.xdmf")
[[ $n == 7 ]] || fail "the restarted series lists $n output times, expected 7 (0, 500, ..., 3000)"

# 2. run.wall_limit: half the straight run's own time, so that it stops midway on any machine.
limit=$(/usr/bin/python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(max(0.02, 0.5 * j['wall_seconds'] + j['setup_seconds']))" "$work/straight/summary.json")
echo "run.wall_limit = $limit s"
"$fv" run "${case_args[@]}" --quiet --set run.wall_limit="$limit" --output-dir "$work/wall" 2>"$work/wall.err"
rc=$?
[[ $rc == 3 ]] || { cat "$work/wall.err"; fail "wall_limit: exit code $rc, expected 3"; }
grep -q "run.wall_limit reached" "$work/wall.err" || fail "wall_limit: no reason given"
ck=$(ls "$work"/wall/checkpoint_*.h5 | tail -n 1)
"$fv" run "${case_args[@]}" --quiet --output-dir "$work/wall_rest" --restart "$ck" || fail "restart after wall_limit"
first_after "$ck" "$work/straight" "$work/wall_rest"
"$fv" compare "$work/straight" "$work/wall_rest" --rtol 0 --atol 0 >/dev/null || fail "restart after wall_limit differs"

echo "OK"
