#!/usr/bin/env bash
# flow_run.sh MPIEXEC FVPROXY INPUTS OUT: `fvproxy run` of a flow model (docs/physics.md#running-a-flow)
# on a small Sod shock tube (40 x 2 x 2 hexes, HLLC, MUSCL on primitives, variable time step):
#  1. one rank: exit 0, summary.json with the model, the variable time step, errors by field
#     (density, velocity, pressure), conservation by field (momentum a list of 3), residuals; fields
#     files at t = 0, 0.05, ..., 0.2 exactly; momentum and velocity (cells, 3) vectors in the XDMF;
#     integrals.csv rows at the same times with -dE/dt between them and the walls' forces (p A,
#     exact while no wave reaches them), the same forces in summary.json;
#  2. 3 ranks (run.deterministic): every fields file bitwise the one-rank run's (fvproxy compare
#     --rtol 0 --atol 0, cells matched by global id);
#  3. restart from the checkpoint at t = 0.1 on 1 and on 3 ranks: the final fields bitwise those of
#     the uninterrupted run; in the run's own folder integrals.csv ends byte for byte as it was;
#  4. an unstable run (a fixed step of about twice the stable one, no limiter) stops on 1 and on 3
#     ranks with exit 1, naming the step,
#     the cell and its state, and writes the last good state (summary.json "last_good_state");
#  5. a scalar-model boundary type in a flow case is bad input (exit 2, naming the key).
set -u
mpiexec="$1"; fv="$2"; in="$3"; out="$4"
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out"; mkdir -p "$out"
mpi() { local np=$1; shift; timeout 300 "$mpiexec" -np "$np" --oversubscribe --bind-to none "$@"; }
py=/usr/bin/python3
small=(--set "mesh.generate.cells=[40,2,2]" --set "mesh.generate.lengths=[1,0.05,0.05]" --set run.deterministic=true
  --set checkpoint.every.time=0.1 --set checkpoint.keep=5 --set output.integrals.time=0.05 --quiet)
same() { # A B: the two fields files equal bitwise
  "$fv" compare "$1" "$2" --rtol 0 --atol 0 >/dev/null 2>&1 ||
    fail "$1 and $2 differ: $("$fv" compare "$1" "$2" --rtol 0 --atol 0 2>&1 | tail -n 4)"
}

# 1. one rank
"$fv" run "$in/sod.yaml" "${small[@]}" --output-dir "$out/one" 2>"$out/one.log" || fail "one rank: exit $?: $(tail -n 3 "$out/one.log")"
$py - "$out/one" <<'PY' || fail "one rank: summary.json or the files"
import json, sys, glob, re, os
d = sys.argv[1]
j = json.load(open(d + "/summary.json"))
assert j["model"] == "euler" and j["status"] == "completed", (j["model"], j["status"])
assert j["time"] == 0.2 and j["time_step"]["variable"], j["time_step"]
assert set(j["errors"]) == {"density", "velocity", "pressure"}, j["errors"].keys()
assert 0 < j["errors"]["density"]["l1"] < 0.02, j["errors"]["density"]
c = j["conservation"]
assert set(c) == {"density", "momentum", "total_energy"}, c.keys()
assert len(c["momentum"]["initial"]) == 3 and len(c["momentum"]["final"]) == 3
rel = 1e-13 if j["build"].get("real") == "double" else 1e-4  # a run's round-off (docs/output.md#tolerances)
assert abs(c["density"]["final"] - c["density"]["initial"]) <= rel * c["density"]["initial"], c["density"]
assert set(j["residuals"]) == {"density", "momentum", "total_energy"}
steps = sorted(int(re.findall(r"(\d+)", os.path.basename(f))[0]) for f in glob.glob(d + "/fields_*.h5"))
assert len(steps) == 5 and steps[0] == 0, steps
x = open(d + "/sod.xdmf").read()
for v in ("momentum", "velocity"):
    assert re.search(r'<Attribute Name="%s" AttributeType="Vector" Center="Cell">\s*<DataItem Dimensions="160 3"' % v, x), v
times = [float(t) for t in re.findall(r'<Time Value="([^"]+)"', x)]
assert times == [0.0, 0.05, 0.1, 0.15, 0.2], times
rows = [l.split(",") for l in open(d + "/integrals.csv").read().split()]
assert rows[0] == ["step", "time", "kinetic_energy", "dissipation_rate"] + [
    w + c for w in ("xmin", "xmax") for c in ("_fx", "_fy", "_fz")], rows[0]
# the slip walls' forces: p A out of the tube (p = 1 at xmin, 0.1 at xmax: no wave reaches them by t = 0.2)
A = 0.05 * 0.05
for r in rows[1:]:
    assert abs(float(r[4]) + A) < 1e-6 * A and abs(float(r[7]) - 0.1 * A) < 1e-6 * A, r  # float builds: 1e-6
f = j["forces"]
assert abs(f["xmin"]["total"][0] + A) < 1e-6 * A and abs(f["xmax"]["pressure"][0] - 0.1 * A) < 1e-6 * A, f
assert f["xmin"]["viscous"] == [0, 0, 0], f
assert [float(r[1]) for r in rows[1:]] == times, rows
assert rows[1][3] == "" and float(rows[1][2]) == 0 and all(float(r[2]) > 0 for r in rows[2:]), rows  # Sod starts at rest
for a, b in zip(rows[1:], rows[2:]):  # the rate is -dE/dt between rows
    rate = -(float(b[2]) - float(a[2])) / (float(b[1]) - float(a[1]))
    assert abs(rate - float(b[3])) <= 1e-9 * abs(rate), (a, b)
PY
last=$(ls "$out"/one/fields_*.h5 | tail -n 1)
"$fv" compare "$last" "$last" --fields velocity 2>&1 | grep -q "velocity\[2\]" || fail "compare does not read velocity's components"

# 2. three ranks, bitwise
mpi 3 "$fv" run "$in/sod.yaml" "${small[@]}" --output-dir "$out/three" >"$out/three.log" 2>&1 ||
  fail "3 ranks: $(grep -v Kokkos "$out/three.log" | tail -n 5)"
for f in "$out"/one/fields_*.h5; do same "$f" "$out/three/$(basename "$f")"; done

# 3. restart at t = 0.1 on 1 and 3 ranks
ck=$(ls "$out"/one/checkpoint_*.h5 | head -n 1)
[[ -n $ck ]] || fail "no checkpoint"
"$fv" run "$in/sod.yaml" "${small[@]}" --output-dir "$out/restart1" --restart "$ck" 2>"$out/restart1.log" ||
  fail "restart on 1 rank: $(tail -n 3 "$out/restart1.log")"
same "$last" "$out/restart1/$(basename "$last")"
# in the run's own folder: integrals.csv keeps its rows up to the checkpoint and ends as it did
cp -r "$out/one" "$out/again"
"$fv" run "$in/sod.yaml" "${small[@]}" --output-dir "$out/again" --restart "$out/again/$(basename "$ck")" \
  2>"$out/again.log" || fail "restart in the run's folder: $(tail -n 3 "$out/again.log")"
cmp -s "$out/one/integrals.csv" "$out/again/integrals.csv" ||
  fail "integrals.csv after a restart differs: $(diff "$out/one/integrals.csv" "$out/again/integrals.csv" | head -n 4)"
mpi 3 "$fv" run "$in/sod.yaml" "${small[@]}" --output-dir "$out/restart3" --restart "$ck" >"$out/restart3.log" 2>&1 ||
  fail "restart on 3 ranks: $(grep -v Kokkos "$out/restart3.log" | tail -n 5)"
same "$last" "$out/restart3/$(basename "$last")"

# 4. the non-physical stop, on 1 and 3 ranks
bad=(--set "mesh.generate.cells=[40,2,2]" --set "mesh.generate.lengths=[1,0.05,0.05]"
  --set "time={end_time: 0.2, dt: 0.03}" --set operators.muscl.limiter=none --quiet)
"$fv" run "$in/sod.yaml" "${bad[@]}" --output-dir "$out/bad1" 2>"$out/bad1.log"
rc=$?
[[ $rc == 1 ]] || fail "unstable run on 1 rank: exit $rc, expected 1"
grep -Eq "error: non-(finite value|positive) .* at step [0-9]+ .*: cell [0-9]+ \(global id\) at" "$out/bad1.log" ||
  fail "unstable run: message: $(head -n 3 "$out/bad1.log")"
grep -q "its state: density = " "$out/bad1.log" || fail "unstable run: no state in the message"
$py - "$out/bad1" <<'PY' || fail "unstable run: summary.json"
import json, sys, os
d = sys.argv[1]
j = json.load(open(d + "/summary.json"))
assert j["status"] in ("non-physical", "non-finite"), j["status"]
e = j.get("non_physical") or j.get("non_finite")
assert e["cell_global_id"] >= 0 and len(e["position"]) == 3 and "density" in e["state"], e
assert os.path.exists(os.path.join(d, e["last_good_state"])), e
PY
mpi 3 "$fv" run "$in/sod.yaml" "${bad[@]}" --output-dir "$out/bad3" >"$out/bad3.log" 2>&1
rc=$?
[[ $rc == 1 ]] || fail "unstable run on 3 ranks: exit $rc, expected 1"
[[ $(grep -c "error: non-" "$out/bad3.log") == 1 ]] || fail "unstable run on 3 ranks: not one message"

# 5. bad input
"$fv" run "$in/sod.yaml" --set 'boundary.xmin={type: dirichlet, value: 1}' --quiet --output-dir "$out/badin" 2>"$out/badin.log"
rc=$?
[[ $rc == 2 ]] && grep -q "boundary.xmin.type: invalid value 'dirichlet'" "$out/badin.log" ||
  fail "a scalar boundary type in a flow case: exit $rc: $(head -n 2 "$out/badin.log")"
echo "OK: flow run (euler, Sod): summary, output times, vectors, 1 vs 3 ranks bitwise, restart on 1 and 3 ranks bitwise, the non-physical stop on 1 and 3 ranks, bad input"
