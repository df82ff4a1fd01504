#!/usr/bin/env bash
# output_lock.sh FVPROXY INPUTS OUT: two runs into one output folder. While a run holds the folder
# a second one is refused (exit 2, naming the folder and the first run's pid and host); a run that
# stops (SIGTERM, exit 3) or ends removes its lock; a run killed with SIGKILL leaves a lock file
# that blocks nobody, and its temporary files are removed by the next run.
set -u
fv="$1"; in="$2"; out="$3"
fail() { echo "FAIL: $*"; exit 1; }
trap 'for j in $(jobs -p); do kill -9 "$j" 2>/dev/null; done' EXIT # no run outlives the test
rm -rf "$out"; mkdir -p "$out"
long=("$in/default.yaml" --set mesh.generate.cells=[8,8,8] --set "time={steps: 100000000}" --quiet --output-dir "$out")
short=("$in/default.yaml" --set mesh.generate.cells=[4,4,4] --set "time={steps: 2}" --quiet --output-dir "$out")

wait_for_lock() { # PID: until the lock file names it (the run has taken the folder)
  local until=$((SECONDS + 30))
  while ((SECONDS < until)); do
    grep -q "^pid $1 on host " "$out/.fvproxy.lock" 2>/dev/null && return 0
    kill -0 "$1" 2>/dev/null || fail "run $1 ended before taking the lock"
    sleep 0.1
  done
  fail "run $1 did not take the lock"
}
refused_while() { # PID: a second run is refused, naming the folder and PID
  local msg code
  msg=$("$fv" run "${short[@]}" 2>&1); code=$?
  printf '%s\n' "$msg" | head -n 3
  [[ $code == 2 ]] || fail "second run: exit $code, expected 2"
  grep -Eq "^--output-dir: error: the output folder '$out' is in use by another fvproxy run \(pid $1 on host [^ ]+ since " \
    <<<"$msg" || fail "second run: message does not name the folder and pid $1"
}

# 1. A run holds the folder; a second is refused; SIGTERM stops the first (exit 3), lock removed.
"$fv" run "${long[@]}" 2>/dev/null & first=$!
wait_for_lock $first
refused_while $first
kill -TERM $first; wait $first; code=$?
[[ $code == 3 ]] || fail "the first run stopped with exit $code, expected 3"
[[ ! -e "$out/.fvproxy.lock" ]] || fail "the lock file outlived the stopped run"

# 2. After it, a new run works and leaves no lock behind.
"$fv" run "${short[@]}" || fail "a run after the first one ended failed"
[[ ! -e "$out/.fvproxy.lock" ]] || fail "the lock file outlived a finished run"

# 3. A run killed with SIGKILL: its lock file stays but blocks nobody; stale temporary files go.
"$fv" run "${long[@]}" 2>/dev/null & killed=$!
wait_for_lock $killed
refused_while $killed
kill -KILL $killed; wait $killed 2>/dev/null
[[ -e "$out/.fvproxy.lock" ]] || fail "expected the killed run's lock file to remain"
echo "half a file" >"$out/.fields_000099.h5.tmp.Ab12Cd"
"$fv" run "${short[@]}" || fail "the killed run's lock file blocked a new run"
[[ ! -e "$out/.fvproxy.lock" ]] || fail "the lock file outlived a finished run"
stray=$(ls -A "$out" | grep -E '\.tmp' || true)
[[ -z "$stray" ]] || fail "temporary files left in $out: $stray"
echo "OK: second run refused while the first ran; lock released on stop, end and kill"
