#!/usr/bin/env bash
# mpi_commands.sh MPIEXEC FVPROXY INPUTS OUT: the commands besides `run` on 2 MPI ranks
# (fvproxy run: mpi_run.sh; perf: check_perf.py with MPIEXEC):
#  1. bench --json: one JSON object (rank 0), each rank's placement and cells, and per result each
#     rank's median and the slowest rank's (ms = the max), the halo exchange timed apart;
#  2. bench (text): one table;
#  3. mesh --write: the same mesh.h5 and XDMF as one rank writes (h5diff: datasets and attributes),
#     every rank exits 0, one report;
#  4. mesh: one report;
#  5. mesh --in-parts --json: every rank built its part only (owned cells add up, bench built in parts
#     says so; each rank's steps named and within its time), and a case that cannot be built in parts
#     is refused (exit 2, naming why).
set -u
mpiexec="$1"; fv="$2"; in="$3"; out="$4"
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out"; mkdir -p "$out"
mpi() { timeout 120 "$mpiexec" -np 2 --oversubscribe --bind-to none "$@"; }
small=(--set "mesh.generate.cells=[4,4,4]")

# 1. bench --json
mpi "$fv" bench "$in/bench.yaml" "${small[@]}" --repeat 3 --json >"$out/bench.json" 2>"$out/bench.err" ||
  fail "bench on 2 ranks: exit $?: $(tail -n 5 "$out/bench.err")"
python3 - "$out/bench.json" <<'PY' || fail "bench --json on 2 ranks"
import json, sys
j = json.load(open(sys.argv[1]))  # one object: rank 0 alone printed
assert j["ranks"] == 2 and [p["rank"] for p in j["per_rank"]] == [0, 1], j["per_rank"]
assert sum(p["owned_cells"] for p in j["per_rank"]) == j["cells"] == 6 * 4 ** 3, j["per_rank"]
for p in j["per_rank"]:
    assert p["ghost_cells"] > 0 and p["host"] and p["device"] in ("host", "cuda"), p
ops = {(r["operator"], r["variant"]) for r in j["results"]}
assert ops == {(o, v) for o in ("muscl", "convection", "diffusion", "halo") for v in ("naive", "optimized")}, ops
for r in j["results"]:
    ms = [x["ms"] for x in r["per_rank"]]
    assert [x["rank"] for x in r["per_rank"]] == [0, 1] and min(ms) > 0, r
    assert r["ms"] == max(ms) == ms[r["slowest_rank"]] == r["ms_over_ranks"]["max"], r
    assert r["ms_over_ranks"]["min"] == min(ms) and r["gb_per_s"] > 0, r
PY
# 2. bench (text): one table, the slowest rank's column
mpi "$fv" bench "$in/bench.yaml" "${small[@]}" --repeat 1 --operators convection >"$out/bench.txt" 2>&1 ||
  fail "bench (text) on 2 ranks"
n=$(grep -c "^  convection  optimized" "$out/bench.txt")
[[ $n == 1 ]] || fail "bench (text): $n tables rows, expected 1: $(cat "$out/bench.txt")"
grep -q "on 2 ranks" "$out/bench.txt" || fail "bench (text): the ranks are not said"
# ... with one ghost layer (the case's default is two: docs/halo.md#two-ghost-layers): the operators and the halo
mpi "$fv" bench "$in/bench.yaml" "${small[@]}" --repeat 1 --operators muscl,convection,halo \
  --set parallel.halo.layers=1 >"$out/bench_layers.txt" 2>&1 || fail "bench with one ghost layer: $(tail -n 5 "$out/bench_layers.txt")"
grep -q "^  halo" "$out/bench_layers.txt" || fail "bench with one ghost layer: no halo row: $(cat "$out/bench_layers.txt")"

# 3. mesh --write: the one-rank file
"$fv" mesh "$in/hybrid_channel.yaml" --write "$out/one/m.h5" >/dev/null 2>&1 || fail "mesh --write on 1 rank"
mpi "$fv" mesh "$in/hybrid_channel.yaml" --write "$out/two/m.h5" >"$out/mesh_write.log" 2>&1 ||
  fail "mesh --write on 2 ranks: exit $?: $(tail -n 5 "$out/mesh_write.log")"
n=$(grep -c "^wrote $out/two/m.h5 and $out/two/m.xdmf (288 cells)" "$out/mesh_write.log")
[[ $n == 1 ]] || fail "mesh --write: 'wrote' printed $n times"
h5diff "$out/one/m.h5" "$out/two/m.h5" >"$out/h5diff.log" 2>&1 ||
  fail "mesh --write on 2 ranks differs from 1 rank: $(head -n 5 "$out/h5diff.log")"
cmp -s "$out/one/m.xdmf" "$out/two/m.xdmf" || fail "the XDMF files differ"
! grep -q "MPI_ABORT" "$out/mesh_write.log" || fail "mesh --write: MPI_Abort"

# 4. mesh: one report
mpi "$fv" mesh "$in/default.yaml" "${small[@]}" >"$out/mesh.log" 2>&1 || fail "mesh on 2 ranks: $(tail -n 5 "$out/mesh.log")"
n=$(grep -c "^case default:" "$out/mesh.log")
[[ $n == 1 ]] || fail "mesh on 2 ranks: $n reports, expected 1"

# 5. mesh --in-parts
mpi "$fv" mesh "$in/default.yaml" "${small[@]}" --set mesh.partition=hilbert --in-parts --json >"$out/parts.json" \
  2>"$out/parts.err" || fail "mesh --in-parts on 2 ranks: exit $?: $(tail -n 5 "$out/parts.err")"
python3 - "$out/parts.json" <<'PY' || fail "mesh --in-parts --json on 2 ranks"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["ranks"] == 2 and j["cells"] == 6 * 4 ** 3 and j["partition"] == "hilbert", j
assert sum(p["owned_cells"] for p in j["per_rank"]) == j["cells"], j["per_rank"]
assert all(p["ghost_cells"] > 0 and p["neighbours"] == 1 and p["peak_host_bytes"] > 0 for p in j["per_rank"]), j
assert j["seconds"] > 0 and j["cells_per_second"] > 0, j
# each rank's steps (a curve partition and ordering: the slab, then the own piece ordered by its rows),
# together within the rank's time
want = ["slab piece", "slab centroids", "slab order", "directory", "partition", "places to owners", "own piece",
        "ghosts", "own piece order", "cut out", "device mesh and halo", "checks and volume"]
for p in j["per_rank"]:
    assert sorted(p["steps"]) == sorted(want), p["steps"]
    assert all(s >= 0 for s in p["steps"].values()) and sum(p["steps"].values()) <= p["seconds"] * 1.01, p
PY
mpi "$fv" bench "$in/bench.yaml" "${small[@]}" --set mesh.partition=zorder --repeat 1 --operators convection \
  >"$out/bench_parts.txt" 2>&1 || fail "bench built in parts: $(tail -n 5 "$out/bench_parts.txt")"
grep -q "mesh built in parts" "$out/bench_parts.txt" || fail "bench on 2 ranks with zorder: not built in parts"
mpi "$fv" mesh "$in/default.yaml" "${small[@]}" --set mesh.partition=metis --in-parts >"$out/parts_metis.log" 2>&1
rc=$?
[[ $rc == 2 ]] || fail "mesh --in-parts with metis: exit $rc, expected 2"
grep -q "cannot be built in parts (mesh.partition metis" "$out/parts_metis.log" || fail "mesh --in-parts with metis: no reason"

echo "OK: bench (per-rank and slowest-rank times), mesh --write (the one-rank file), mesh and mesh --in-parts on 2 ranks"
