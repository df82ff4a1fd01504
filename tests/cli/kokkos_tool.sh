#!/usr/bin/env bash
# kokkos_tool.sh FVPROXY TOOL_LIBRARY KOKKOS_MAJOR MPIEXEC TESTDATA OUT: fvproxy's kernels and
# profiling regions reach a Kokkos tool (tests/kokkos_tool/record_tool.cpp; docs/performance.md#kokkos-tools):
#  1. loaded through the environment variable of the linked Kokkos (3.x: KOKKOS_PROFILE_LIBRARY,
#     4.x: KOKKOS_TOOLS_LIBS), a scalar run on one rank: the set-up regions, each time step, each
#     Runge-Kutta stage inside it, the mesh, fields and checkpoint output, and the step's kernels
#     inside the stages, with their labels; every region popped;
#  2. loaded with --kokkos-tools-libs (both versions), a flow run on 2 ranks: the halo's regions
#     inside the stages on each rank;
#  3. with --profile as well: the tool still sees every kernel (chained), and the table is printed;
#  4. a library that cannot be a tool (missing, a folder, a text or empty file, a truncated copy of
#     the tool, a missing second library of an A;B list), through the variable and the option:
#     exit 2 before Kokkos starts, naming the variable or option and the library, nothing written.
set -u
fv="$1"; tool="$2"; major="$3"; mpiexec="$4"; td="$5"; out="$6"
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out"; mkdir -p "$out"
[[ -f $tool ]] || fail "no tool library $tool"
var=KOKKOS_TOOLS_LIBS
[[ $major -lt 4 ]] && var=KOKKOS_PROFILE_LIBRARY
check() { # LOG-BASE WHAT REQUIRED-REGIONS...
  python3 - "$@" <<'PY'
import glob, sys
base, what, required = sys.argv[1], sys.argv[2], sys.argv[3:]
logs = sorted(glob.glob(base + ".*"))
if not logs:
    sys.exit("FAIL: %s: the tool wrote no log (was it loaded?)" % what)
for log in logs:
    lines = open(log).read().splitlines()
    assert lines and lines[0] == "init", (log, lines[:3])
    assert lines[-1] == "finalize with 0 regions open", (log, lines[-1])
    errors = [l for l in lines if l.startswith("error")]
    assert not errors, (log, errors[:3])
    pushed = {l.split(" ", 1)[1] for l in lines if l.startswith("push ")}
    names = {p.split("/")[-1] for p in pushed}
    for r in required:
        if "/" in r:  # a nesting: the region inside the one(s) before it
            assert any(p.endswith(r) or ("/" + r + "/") in ("/" + p + "/") for p in pushed), (log, r, sorted(pushed)[:20])
        else:
            assert r in names, (log, r, sorted(names))
    for n in names:
        assert n.startswith("fvproxy::") and n.count("::") == 2, (log, "region name", n)
    kernels = [l for l in lines if l.startswith("kernel ")]
    stage = [k for k in kernels if "fvproxy::solver::rk_stage" in k.split(" in ", 1)[1]]
    assert stage, (log, "no kernel inside a Runge-Kutta stage")
    unlabelled = [k for k in stage if not k.split(" ")[2].startswith("fvproxy::")]
    assert not unlabelled, (log, "kernels of a stage without fvproxy's label", unlabelled[:3])
print("%s: %d log(s), regions and kernels as expected" % (what, len(logs)))
PY
}
steps=(fvproxy::run::setup fvproxy::solver::setup fvproxy::io::write_mesh
  fvproxy::solver::time_step/fvproxy::solver::rk_stage fvproxy::io::write_checkpoint fvproxy::io::write_fields)
export OMP_PROC_BIND=false

# 1. the environment variable of this Kokkos
env "$var=$tool" FVPROXY_TOOL_LOG="$out/env" "$fv" run "$td/bad/tiny.yaml" --output-dir "$out/run1" >"$out/run1.log" 2>&1 ||
  fail "$var: exit $?: $(tail -n 5 "$out/run1.log")"
check "$out/env" "$var on 1 rank" "${steps[@]}" || fail "$var on 1 rank"

# 2. --kokkos-tools-libs on 2 ranks, the flow model: the halo inside the stages
FVPROXY_TOOL_LOG="$out/opt" timeout 120 "$mpiexec" -np 2 --oversubscribe --bind-to none -x FVPROXY_TOOL_LOG \
  "$fv" run "$td/bad/tiny_flow.yaml" --output-dir "$out/run2" "--kokkos-tools-libs=$tool" >"$out/run2.log" 2>&1 ||
  fail "--kokkos-tools-libs on 2 ranks: exit $?: $(tail -n 5 "$out/run2.log")"
[[ $(ls "$out"/opt.* | wc -l) == 2 ]] || fail "--kokkos-tools-libs on 2 ranks: $(ls "$out"/opt.* | wc -l) logs, expected 2"
check "$out/opt" "--kokkos-tools-libs on 2 ranks" fvproxy::run::setup fvproxy::solver::rk_stage/fvproxy::parallel::halo_start \
  fvproxy::solver::rk_stage/fvproxy::parallel::halo_finish fvproxy::io::write_fields || fail "--kokkos-tools-libs on 2 ranks"

# 3. --profile with the tool loaded: chained
env "$var=$tool" FVPROXY_TOOL_LOG="$out/prof" "$fv" run "$td/bad/tiny.yaml" --profile --output-dir "$out/run3" \
  >"$out/run3.log" 2>&1 || fail "--profile with a tool: exit $?: $(tail -n 5 "$out/run3.log")"
check "$out/prof" "--profile with $var" "${steps[@]}" || fail "--profile with a tool"
grep -q "fvproxy::" "$out/run3.log" || fail "--profile with a tool: no kernel table"
# the face fluxes: one face pass (the default) or the convection operator's kernels
n_tool=$(grep -cE "^kernel .* fvproxy::(convection|face_pass)::" "$out"/prof.*)
n_none=$(grep -cE "^kernel .* fvproxy::(convection|face_pass)::" "$out"/env.*)
[[ $n_tool == "$n_none" && $n_tool -gt 0 ]] ||
  fail "--profile with a tool: the tool saw $n_tool face-flux kernels, $n_none without --profile"
# 4. libraries that cannot be tools are refused before Kokkos loads them (issue 37)
mkdir -p "$out/bad"
: >"$out/bad/empty.so"
echo "not a library" >"$out/bad/text.so"
head -c 20000 "$tool" >"$out/bad/truncated.so" # the ELF header and program headers, not the segments
refused() { # EXPECTED-FIRST-LINE-REGEX COMMAND...: exit 2, that first line, no output folder
  local want=$1; shift
  rm -rf "$out/refused"
  "$@" --output-dir "$out/refused" >"$out/bad.log" 2>&1
  local rc=$?
  [[ $rc == 2 ]] || fail "$*: exit $rc, expected 2: $(tail -n 3 "$out/bad.log")"
  grep -v -E "OMP_PROC_BIND|^ *(In general|For best)" "$out/bad.log" | head -n 1 | grep -q -E "$want" ||
    fail "$*: first line '$(head -n 1 "$out/bad.log")' does not match /$want/"
  [[ ! -e $out/refused ]] || fail "$*: left $out/refused behind"
}
tiny=(run "$td/bad/tiny.yaml")
refused "^$var: error: the Kokkos tool library '$out/bad/missing.so' does not exist" \
  env "$var=$out/bad/missing.so" "$fv" "${tiny[@]}"
refused "^$var: error: the Kokkos tool library '$out/bad' is a folder" env "$var=$out/bad" "$fv" "${tiny[@]}"
refused "^$var: error: the Kokkos tool library '$out/bad/empty.so' is empty" env "$var=$out/bad/empty.so" "$fv" "${tiny[@]}"
refused "^$var: error: the Kokkos tool library '$out/bad/text.so' is not a shared library \\(no ELF header" \
  env "$var=$out/bad/text.so" "$fv" "${tiny[@]}"
refused "^$var: error: the Kokkos tool library '$out/bad/truncated.so' is truncated: its (section headers|loaded segments) end at byte" \
  env "$var=$out/bad/truncated.so" "$fv" "${tiny[@]}"
refused "^$var: error: the Kokkos tool library '$out/bad/missing.so' \\(the second library of '$tool;$out/bad/missing.so'\\) does not exist" \
  env "$var=$tool;$out/bad/missing.so" "$fv" "${tiny[@]}"
refused "^--kokkos-tools-(libs|library)=$out/bad/truncated.so: error: the Kokkos tool library '$out/bad/truncated.so' is truncated" \
  "$fv" "${tiny[@]}" "--kokkos-tools-libs=$out/bad/truncated.so"
refused "^--kokkos-tools-(libs|library)=no_such_tool.so: error: the Kokkos tool library 'no_such_tool.so' is not in LD_LIBRARY_PATH" \
  "$fv" "${tiny[@]}" "--kokkos-tools-libs=no_such_tool.so"
echo "OK: Kokkos tool ($var, --kokkos-tools-libs, --profile chained; 8 unusable libraries refused)"
