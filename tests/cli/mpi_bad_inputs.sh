#!/usr/bin/env bash
# mpi_bad_inputs.sh MPIEXEC FVPROXY TESTDATA OUT: bad inputs on several ranks (issue 27;
# docs/parallel.md#every-rank-runs-the-same-case, #signals, #the-report):
#  1. meshes barely larger than the ranks (3 ranks on 3 and 4 cells, 4 on 4 and 6), every partition
#     method that can make the parts: every rank owns cells (METIS leaves parts empty there: they
#     are refilled) and the fields equal one rank's bitwise;
#  2. ranks started with different cases (a --set on one rank, another case file, another component
#     count, another option) exit 2 at once on every rank, rank 0 naming the first difference, once;
#  3. SIGUSR1 to mpirun during set-up (the mesh being built): every rank exits 4, one message saying
#     nothing was written, no output folder left; the same with SIGTERM on one rank without mpirun;
#  4. ranks started in different working folders sharing a relative --output-dir: exit 2, said once;
#  5. PT-Scotch's set-up failing on one rank (FVPROXY_FAULT_PTSCOTCH_SETUP_RANK): exit 1, no hang;
#  6. operators.muscl.stencil: vertex on 2 ranks: the one-rank answer, bitwise.
set -u
mpiexec="$1"; fv="$2"; td="$3"; out="$4"
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out"; mkdir -p "$out"
mpi() { local np=$1; shift; timeout 60 "$mpiexec" -np "$np" --oversubscribe --bind-to none "$@"; }
few="$td/few_cells.yaml"

# 1. every method on meshes barely larger than the ranks
for spec in "3 [3,1,1]" "3 [2,2,1]" "4 [2,2,1]" "4 [3,2,1]"; do
  read -r np cells <<<"$spec"
  "$fv" run "$few" --quiet --set "mesh.generate.cells=$cells" --output-dir "$out/one" >/dev/null 2>&1 ||
    fail "one rank on $cells"
  for method in metis hilbert zorder ptscotch blocks; do
    log="$out/few_${method}_${np}.log"
    mpi "$np" "$fv" run "$few" --set "mesh.generate.cells=$cells" --set "mesh.partition=$method" \
      --output-dir "$out/m" >"$log" 2>&1
    rc=$?
    if [[ $method == blocks && $rc == 2 ]] && grep -q "'blocks' cannot divide the box" "$log"; then
      continue # no px x py x pz fits: refused with its reason (tests/data/bad, cli.mesh_partition_blocks_7)
    fi
    [[ $rc == 0 ]] || fail "$method, $np ranks on $cells cells: exit $rc: $(grep -v OMP_ "$log" | tail -n 5)"
    grep -q "owned cells [1-9]" "$log" || fail "$method, $np ranks on $cells: a rank owns no cell: $(grep ranks: "$log")"
    "$fv" compare "$out/one/fields_000002.h5" "$out/m/fields_000002.h5" --rtol 0 --atol 0 >/dev/null ||
      fail "$method, $np ranks on $cells cells: not bitwise one rank's fields"
  done
done
"$fv" mesh "$few" --set "mesh.generate.cells=[2,2,1]" --partition 3 --compare-partitions >"$out/refill.txt" 2>&1 ||
  fail "mesh --compare-partitions on 4 cells"
grep -q "^  metis .*(1 empty parts refilled)" "$out/refill.txt" ||
  fail "METIS' empty part is not reported as refilled: $(grep metis "$out/refill.txt")"
# More parts than cells: an error of the mesh, not of a method, with --compare-partitions too (issue 37).
for np in 1 2; do
  mpi "$np" "$fv" mesh "$few" --set "mesh.generate.cells=[2,1,1]" --partition 3 --compare-partitions \
    >"$out/too_many.txt" 2>&1
  rc=$?
  [[ $rc == 2 ]] && grep -q -- "^--partition: error: 3 parts for 2 cells" "$out/too_many.txt" ||
    fail "mesh --partition 3 --compare-partitions on 2 cells, $np rank(s): exit $rc: $(tail -n 3 "$out/too_many.txt")"
done
# Jitter that inverts a tet (issue 38): refused naming mesh.generate.perturb and the same cell on one rank, on 2
# ranks built in parts (zorder: no rank builds the whole box, each checks its own cells) and built on rank 0 (metis).
for spec in "1 metis" "2 zorder" "2 metis"; do
  read -r np method <<<"$spec"
  mpi "$np" "$fv" run "$few" --set "mesh.generate={cells: [20, 20, 3], element: tet, perturb: 0.3}" \
    --set "mesh.partition=$method" --output-dir "$out/jitter" >"$out/jitter.log" 2>&1
  rc=$?
  [[ $rc == 2 ]] && grep -q "^mesh\.generate\.perturb: error: jitter 0\.3 of the spacing turns a tet inside out: cell (global id) 3382 " \
    "$out/jitter.log" || fail "jitter 0.3 on tets, $np rank(s), $method: exit $rc: $(grep -v OMP_ "$out/jitter.log" | tail -n 3)"
  [[ $(grep -c "error:" "$out/jitter.log") == 1 ]] || fail "jitter 0.3 on tets, $np rank(s), $method: not said once"
done
echo "1. every method on 3 and 4 ranks with 3 to 6 cells: every rank owns cells, bitwise one rank; inverting jitter refused"

# 2. ranks that disagree. wrap.sh RANK ARGS... -- REST: the rank given gets ARGS added (or, with
#    --case FILE, reads FILE instead of the case file: REST is FVPROXY COMMAND CASE ...).
cat >"$out/wrap.sh" <<'SH'
#!/usr/bin/env bash
r="$1"; shift; extra=()
while [[ $1 != -- ]]; do extra+=("$1"); shift; done; shift
if [[ ${OMPI_COMM_WORLD_RANK:-0} == "$r" ]]; then
  if [[ ${extra[0]} == --case ]]; then set -- "$1" "$2" "${extra[1]}" "${@:4}"; else set -- "$@" "${extra[@]}"; fi
fi
exec "$@"
SH
chmod +x "$out/wrap.sh"
disagree() { # NP EXPECTED-REGEX WRAP-ARGS... -- COMMAND...
  local np=$1 want=$2; shift 2
  local log="$out/disagree.log" start=$SECONDS
  rm -rf "$out/d"
  mpi "$np" "$out/wrap.sh" "$@" >"$log" 2>&1
  local rc=$?
  [[ $rc == 2 ]] || fail "ranks that disagree ($*): exit $rc, expected 2: $(grep -v OMP_ "$log" | tail -n 5)"
  (( SECONDS - start < 30 )) || fail "ranks that disagree ($*): took $((SECONDS - start)) s"
  local n
  n=$(grep -c "error: the ranks were not started with the same case" "$log")
  [[ $n == 1 ]] || fail "ranks that disagree ($*): the error was printed $n times: $(grep -v OMP_ "$log" | head -n 5)"
  grep -Eq -- "$want" "$log" || fail "ranks that disagree ($*): no /$want/ in: $(grep error "$log")"
  ! grep -q "MPI_ABORT" "$log" || fail "ranks that disagree ($*): MPI_Abort, not a collective exit"
  [[ ! -e "$out/d" ]] || fail "ranks that disagree ($*): the output folder was created"
}
disagree 3 "physics\.diffusivity = 0\.01 on rank 0 \(.*few_cells\.yaml:8:16\), 0\.02 on rank 2 \(--set physics\.diffusivity=0\.02\)" \
  2 --set physics.diffusivity=0.02 -- "$fv" run "$few" --output-dir "$out/d"
disagree 2 "boundary\.xmax\.type = outflow on rank 0 \(.*few_cells\.yaml:11:16\), not set on rank 1" \
  1 --case "$td/bad/tiny.yaml" -- "$fv" run "$few" --output-dir "$out/d"
disagree 3 "physics\.components = 2 on rank 1 \(--set physics\.components=2\), not set on rank 0" \
  1 --set physics.components=2 -- "$fv" run "$few" --output-dir "$out/d"
disagree 2 "--restart = .* on rank 0 \(the command line\)|--restart = .*x\.h5 on rank 1" \
  1 --restart "$out/x.h5" -- "$fv" run "$few" --output-dir "$out/d"
disagree 2 "physics\.diffusivity = 0\.01 on rank 0 .*, 0\.5 on rank 1" \
  1 --set physics.diffusivity=0.5 -- "$fv" mesh "$few"
# the same value in two spellings agrees
mpi 2 "$out/wrap.sh" 1 --set physics.diffusivity=1e-2 -- "$fv" run "$few" --quiet --output-dir "$out/same" \
  >"$out/same.log" 2>&1 || fail "0.01 and 1e-2 on two ranks: $(grep error "$out/same.log")"
echo "2. ranks started with different cases, components or options: exit 2 at once, the difference named once"

# 3. a stop signal during set-up: exit 4 on every rank, nothing written. The mesh is sized so that
#    building it takes about 3 s on this machine (from the build time of a 50^3 box), long enough
#    for the start line to reach this script and the signal to reach the ranks during the build.
t50=$("$fv" mesh "$few" --set "mesh.generate.cells=[50,50,50]" 2>/dev/null |
  awk '/^build time/ {print $3 + $6}')
n=$(python3 -c "import sys; t = max(float(sys.argv[1] or 0.05), 0.05); print(max(70, min(200, round(50 * (3.0 / t) ** (1 / 3)))))" "$t50")
echo "3. set-up of a ${n}^3 box (a 50^3 box builds in ${t50} s here)"
setup_stop() { # NP SIGNAL
  local np=$1 sig=$2 dir="$out/setup_$2"
  rm -rf "$dir"
  local cmd=("$fv" run "$few" --set "mesh.generate.cells=[$n,$n,$n]" --set "time={steps: 2}" --output-dir "$dir")
  if [[ $np == 1 ]]; then "${cmd[@]}" >"$out/setup.out" 2>"$out/setup.err" &
  else "$mpiexec" -np "$np" --oversubscribe --bind-to none "${cmd[@]}" >"$out/setup.out" 2>"$out/setup.err" & fi
  local pid=$!
  for _ in $(seq 1 600); do grep -q "^fvproxy run: case" "$out/setup.out" 2>/dev/null && break; sleep 0.02; done
  grep -q "^fvproxy run: case" "$out/setup.out" || { kill -KILL "$pid"; fail "no start line within 12 s"; }
  grep -q "  mesh:" "$out/setup.out" && { wait "$pid"; fail "$sig on $np rank(s): the mesh was built before the signal"; }
  kill "-$sig" "$pid"
  wait "$pid"
  local rc=$?
  [[ $rc == 4 ]] || fail "$sig during set-up on $np rank(s): exit $rc, expected 4: $(grep -v OMP_ "$out/setup.err" | tail -n 5)"
  local n
  n=$(grep -c "^fvproxy run: stopped by SIG$sig during set-up, before the first step: nothing was written (exit 4)" \
    "$out/setup.err")
  [[ $n == 1 ]] || fail "$sig during set-up on $np rank(s): the stop was said $n times: $(grep -v OMP_ "$out/setup.err")"
  ! grep -q "MPI_ABORT" "$out/setup.err" || fail "$sig during set-up: MPI_Abort"
  [[ ! -e "$dir" ]] || fail "$sig during set-up on $np rank(s): left $dir: $(ls -A "$dir")"
}
setup_stop 2 USR1
setup_stop 1 TERM
echo "3. a stop signal during set-up: exit 4 on every rank, one message, nothing written"

# 4. ranks started in different working folders with a relative --output-dir (issue 37): exit 2 on
#    every rank, one message naming where each rank looked, no folder left in either.
mkdir -p "$out/cwd_a" "$out/cwd_b"
cat >"$out/cd.sh" <<SH
#!/usr/bin/env bash
if [[ \${OMPI_COMM_WORLD_RANK:-0} == 0 ]]; then cd "$out/cwd_a"; else cd "$out/cwd_b"; fi && exec "\$@"
SH
chmod +x "$out/cd.sh"
mpi 2 "$out/cd.sh" "$fv" run "$few" --output-dir o >"$out/cwd.log" 2>&1
rc=$?
[[ $rc == 2 ]] || fail "ranks in two working folders: exit $rc, expected 2: $(grep -v OMP_ "$out/cwd.log" | tail -n 5)"
[[ $(grep -c "^--output-dir: error: the ranks do not see one output folder 'o'" "$out/cwd.log") == 1 ]] ||
  fail "ranks in two working folders: not said once: $(grep -v OMP_ "$out/cwd.log" | head -n 5)"
grep -q "^  rank 1 (.*working folder .*/cwd_b) looks in .*/cwd_b/o: not rank 0's folder" "$out/cwd.log" ||
  fail "ranks in two working folders: rank 1's folder not named: $(grep -v OMP_ "$out/cwd.log" | head -n 5)"
[[ ! -e $out/cwd_a/o && ! -e $out/cwd_b/o ]] || fail "ranks in two working folders: left $(ls -d "$out"/cwd_*/o)"
echo "4. ranks in different working folders with a relative --output-dir: exit 2, each rank's folder named, none left"

# 5. PT-Scotch's set-up failing on one rank alone (injected): every rank learns it before the first
#    collective step and the job ends with exit 1 and the reason (it hung: the failing rank threw,
#    the others waited in SCOTCH_dgraphBuild).
FVPROXY_FAULT_PTSCOTCH_SETUP_RANK=1 mpi 2 -x FVPROXY_FAULT_PTSCOTCH_SETUP_RANK "$fv" mesh "$few" \
  --set "mesh.generate.cells=[4,4,4]" --set mesh.partition=ptscotch --partition 2 >"$out/scotch.log" 2>&1
rc=$?
[[ $rc == 1 ]] || fail "PT-Scotch failing on rank 1: exit $rc, expected 1 (124: hung): $(grep -v OMP_ "$out/scotch.log" | tail -n 5)"
grep -q "^error: ptscotch_parts: rank 1: SCOTCH_dgraphInit (FVPROXY_FAULT_PTSCOTCH_SETUP_RANK) failed for 64 vertices in 2 parts on 2 ranks" "$out/scotch.log" ||
  fail "PT-Scotch failing on rank 1: the reason not said: $(grep -v OMP_ "$out/scotch.log" | tail -n 5)"
echo "5. PT-Scotch's set-up failing on one rank: exit 1 on every rank with the reason, no hang"

# 6. operators.muscl.stencil: vertex on 2 ranks (issue 38): its ghost layers by vertex adjacency;
#    the same answer as one rank, bitwise (Sod on jittered tets with slip walls: mirror images).
vcase=(--set mesh.generate.element=tet --set mesh.generate.perturb=0.15 --set operators.muscl.stencil=vertex --quiet)
"$fv" run "$td/bad/tiny_flow.yaml" "${vcase[@]}" --output-dir "$out/vertex1" >"$out/vertex1.log" 2>&1 ||
  fail "stencil: vertex on 1 rank: $(tail -n 5 "$out/vertex1.log")"
mpi 2 "$fv" run "$td/bad/tiny_flow.yaml" "${vcase[@]}" --output-dir "$out/vertex2" >"$out/vertex2.log" 2>&1 ||
  fail "stencil: vertex on 2 ranks: $(grep -v OMP_ "$out/vertex2.log" | tail -n 5)"
"$fv" compare "$out/vertex1" "$out/vertex2" --rtol 0 >"$out/vertex_compare.log" 2>&1 ||
  fail "stencil: vertex on 2 ranks differs from 1 rank: $(tail -n 5 "$out/vertex_compare.log")"
echo "6. operators.muscl.stencil: vertex on 2 ranks: the one-rank answer, bitwise"
echo "OK: bad inputs on several ranks"
