#!/usr/bin/env bash
# slurm_job.sh FVPROXY SOURCE_DIR OUT: fvproxy as a batch job of a real Slurm (docs/parallel.md#slurm).
# Starts a one-node cluster (scripts/slurm-cluster.sh; stopped on exit, whatever happens), then:
#  1. submits docs/slurm/fvproxy.sbatch (2 tasks, srun --mpi=pmix) with sbatch --wait: exit 0, and
#     the fields equal a one-rank run's bitwise (fvproxy compare, run.deterministic);
#  2. submits a longer run and, once it has printed its first progress line, stops it the
#     documented way, scancel --signal=USR1 JOBID: every rank gets one USR1, writes its share of
#     the checkpoint, and the job ends with exit 3 (one stop message, summary "stopped");
#  3. resubmits from that checkpoint on 1 task: the end equals the uninterrupted run bitwise;
#  4. a job that stops during set-up (exit 4; an fvproxy that exits 4 once stands in for the
#     signal) submitted with RESUBMIT=1: the script says where to continue (from the start: no
#     checkpoint) and submits it itself; that job's fields equal a one-rank run's bitwise.
# Without Slurm (slurm-wlm, munge: scripts/setup-deps.sh) it fails, unless FVPROXY_SKIP_SLURM says
# why it may be skipped here (exit 77: skipped).
set -u
fv="$1"; src="$2"; out="$3"
# Each job within 150 s (timeout exits 124): the script ends, and its trap stops the cluster, well
# before ctest's timeout would kill it and leave the daemons running.
fail() { echo "FAIL: $*"; exit 1; }
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  if [[ -n ${FVPROXY_SKIP_SLURM:-} ]]; then
    echo "SKIPPED: Slurm is not installed, and FVPROXY_SKIP_SLURM says: $FVPROXY_SKIP_SLURM"; exit 77
  fi
  fail "Slurm (slurmctld, munged) is not installed: bash scripts/setup-deps.sh installs it (or set FVPROXY_SKIP_SLURM=<why>)"
fi
rm -rf "$out"; mkdir -p "$out"
out="$(cd "$out" && pwd)"
fv="$(cd "$(dirname "$fv")" && pwd)/$(basename "$fv")"
cluster="$out/cluster"
trap 'bash "$src/scripts/slurm-cluster.sh" stop "$cluster" >/dev/null 2>&1' EXIT
bash "$src/scripts/slurm-cluster.sh" start "$cluster" >"$out/cluster.log" 2>&1 || fail "the cluster did not start: $(cat "$out/cluster.log")"
export SLURM_CONF="$cluster/slurm.conf"
sbatch_file="$src/docs/slurm/fvproxy.sbatch"
# The docs show the file as it is run.
python3 - "$src/docs/parallel.md" "$sbatch_file" <<'PY' || fail "docs/parallel.md's sbatch script differs from docs/slurm/fvproxy.sbatch"
import sys
doc, script = open(sys.argv[1]).read(), open(sys.argv[2]).read()
block = "\n".join("    " + l if l else "" for l in script.rstrip("\n").split("\n"))
sys.exit(0 if block in doc else 1)
PY
cd "$out"
# A small case: 6^3 periodic hexes, run.deterministic (bitwise on any rank count).
cat >case.yaml <<'YAML'
case: slurm
mesh:
  generate: {cells: [6, 6, 6], periodic: [x, y, z]}
physics:
  velocity: {type: uniform, value: [1, 0.5, 0.25]}
  diffusivity: 0.01
initial:
  - {type: gaussian, center: [0.5, 0.5, 0.5], width: 0.2, amplitude: 1}
time: {steps: 20, cfl: 0.4}
run: {deterministic: true, progress_interval: 0.02}
YAML
sed 's/steps: 20,/steps: 3000,/' case.yaml >long.yaml
export OMP_PROC_BIND=false
"$fv" run case.yaml --quiet --output-dir one >/dev/null 2>&1 || fail "one rank"
"$fv" run long.yaml --quiet --output-dir long_one >/dev/null 2>&1 || fail "one rank (long)"

# 1. the docs' script, 2 tasks
start=$SECONDS
timeout 150 sbatch --wait --export=ALL,FVPROXY="$fv",CASE=case.yaml,OUT=two "$sbatch_file" >submit1.log 2>&1
rc=$?
[[ $rc == 0 ]] || fail "sbatch --wait: exit $rc: $(cat submit1.log; tail -n 20 fvproxy-*.out)"
grep -q "ranks: 2," fvproxy-*.out || fail "not 2 ranks: $(grep ranks fvproxy-*.out)"
"$fv" compare one two --rtol 0 --atol 0 >compare1.log 2>&1 || fail "2 tasks differ from one rank: $(cat compare1.log)"
echo "1. sbatch --wait, 2 tasks: exit 0, bitwise one rank ($((SECONDS - start)) s)"

# 2. stopped with scancel --signal=USR1 after the first progress line
start=$SECONDS
rm -f fvproxy-*.out
timeout 150 sbatch --wait --parsable --export=ALL,FVPROXY="$fv",CASE=long.yaml,OUT=stopped "$sbatch_file" >submit2.log 2>&1 &
waiter=$!
job=""
for _ in $(seq 1 600); do
  job=$(head -n 1 submit2.log 2>/dev/null | tr -dc 0-9)
  [[ -n $job ]] && grep -q "^step " "fvproxy-$job.out" 2>/dev/null && break
  sleep 0.05
done
[[ -n $job ]] && grep -q "^step " "fvproxy-$job.out" || { scancel "$job" 2>/dev/null; fail "no progress line within 30 s"; }
scancel --signal=USR1 "$job" || fail "scancel --signal=USR1 $job"
wait "$waiter"
rc=$?
log="fvproxy-$job.out"
[[ $rc == 3 ]] || fail "scancel --signal=USR1: the job ended with exit $rc, expected 3: $(grep -v OMP_ "$log" | tail -n 8)"
n=$(grep -c "^fvproxy run: stopped at step [0-9]* of 3000 .*: stop requested" "$log")
[[ $n == 1 ]] || fail "the stop was said $n times, expected once: $(grep -v OMP_ "$log" | tail -n 8)"
python3 - stopped/summary.json <<'PY' || fail "summary.json of the stopped job"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["status"] == "stopped", j["status"]
assert [p["rank"] for p in j["ranks"]] == [0, 1], j["ranks"]
PY
ck=$(ls stopped/checkpoint_*.h5 2>/dev/null | tail -n 1)
[[ -n $ck ]] || fail "no checkpoint"
"$fv" compare "$ck" "$ck" >/dev/null 2>&1 || fail "the checkpoint cannot be read whole: $ck"
echo "2. scancel --signal=USR1 after the first progress line: exit 3, $(basename "$ck") by both ranks ($((SECONDS - start)) s)"

# 3. resubmitted from the checkpoint on another task count
start=$SECONDS
timeout 150 sbatch --wait --ntasks=1 --export=ALL,FVPROXY="$fv",CASE=long.yaml,OUT=stopped,RESTART="$ck" "$sbatch_file" \
  >submit3.log 2>&1 || fail "the restart on 1 task: exit $?: $(tail -n 8 fvproxy-*.out)"
"$fv" compare long_one stopped --rtol 0 --atol 0 >compare3.log 2>&1 ||
  fail "the restarted job differs from the uninterrupted run: $(cat compare3.log)"
echo "3. resubmitted from $(basename "$ck") on 1 task: bitwise the uninterrupted run ($((SECONDS - start)) s)"
# 4. exit 4 (a stop during set-up, nothing written): the script resubmits itself from the start
start=$SECONDS
rm -f fvproxy-*.out
cat >setup_stop.sh <<SH
#!/usr/bin/env bash
# The first job's tasks exit 4 as fvproxy does when stopped during set-up; later jobs run fvproxy.
[[ -e "$out/first_job" ]] || echo "\$SLURM_JOB_ID" >"$out/first_job"
[[ \$(cat "$out/first_job") == "\$SLURM_JOB_ID" ]] && exit 4
exec "$fv" "\$@"
SH
chmod +x setup_stop.sh
timeout 150 sbatch --wait --export=ALL,FVPROXY="$out/setup_stop.sh",CASE=case.yaml,OUT=setup4,RESUBMIT=1 \
  "$sbatch_file" >submit4.log 2>&1
rc=$?
[[ $rc == 4 ]] || fail "a set-up stop: the job ended with exit $rc, expected 4: $(cat submit4.log fvproxy-*.out)"
first=$(cat first_job)
grep -q "^fvproxy.sbatch: stopped (exit 4); continue with RESTART=(none: from the start)" "fvproxy-$first.out" ||
  fail "a set-up stop: no resubmission line: $(cat "fvproxy-$first.out")"
for _ in $(seq 1 1200); do [[ -z $(squeue -h 2>/dev/null) ]] && break; sleep 0.1; done
[[ -z $(squeue -h) ]] || fail "the resubmitted job did not end within 120 s: $(squeue)"
[[ $(ls fvproxy-*.out | wc -l) == 2 ]] || fail "a set-up stop with RESUBMIT=1: $(ls fvproxy-*.out | wc -l) jobs, expected 2"
"$fv" compare one setup4 --rtol 0 --atol 0 >compare4.log 2>&1 ||
  fail "the job the script resubmitted after a set-up stop: $(cat compare4.log; tail -n 5 fvproxy-*.out)"
echo "4. a set-up stop (exit 4) with RESUBMIT=1: resubmitted from the start by the script, bitwise one rank ($((SECONDS - start)) s)"
echo "OK: Slurm jobs"
