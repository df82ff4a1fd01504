#!/usr/bin/env python3
"""Checks `fvproxy perf` on a tiny spec: results.csv and results.json hold one row per mesh x
ordering x components x operator x variant with consistent values (bandwidth = bytes / time,
fraction = bandwidth / copy limit, speedup = naive time / time), and the copy limit is measured.
usage: check_perf.py FVPROXY SPEC [MPIEXEC NP]: with MPIEXEC, `MPIEXEC -np NP ... FVPROXY perf`: every row also
has each rank's time and the slowest rank's (docs/performance.md)."""
import csv
import json
import os
import subprocess
import sys
import tempfile

exe, spec = sys.argv[1], sys.argv[2]
np = int(sys.argv[4]) if len(sys.argv) > 4 else 1
launch = [sys.argv[3], "-np", str(np), "--oversubscribe", "--bind-to", "none"] if len(sys.argv) > 4 else []
with tempfile.TemporaryDirectory() as d:
    p = subprocess.run(launch + [exe, "perf", spec, "--output-dir", d], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    rows = list(csv.DictReader(open(os.path.join(d, "results.csv"))))
    j = json.load(open(os.path.join(d, "results.json")))
    assert len(rows) == 2 * 2 * 2 * 4 * 6 == len(j["results"]), len(rows)
    limit = j["copy_limit_gb_per_s"]
    assert limit > 0 and {c["method"] for c in j["copy"]} >= {"deep_copy", "copy kernel, range"}, j["copy"]
    assert abs(limit - max(c["gb_per_s"] for c in j["copy"])) < 1e-9 * limit
    assert "kokkos" in j["build"]
    assert j["ranks"] == np, j["ranks"]
    for r in j["results"]:
        assert r["ranks"] == np and len(r["ms_per_rank"]) == np, r
        assert r["ms"] == max(r["ms_per_rank"]) and r["ms_per_rank"][r["slowest_rank"]] == r["ms"], r
    assert p.stderr.count("[perf] copy deep_copy") == 1, "printed by rank 0 only"
    keys = set()
    for r in rows:
        ms, b, gbs = float(r["ms"]), float(r["bytes"]), float(r["gb_per_s"])
        assert ms > 0 and b > 0 and float(r["flops"]) > 0, r
        assert abs(gbs - b / (ms * 1e-3) / 1e9) <= 1e-6 * gbs, r
        assert abs(float(r["fraction_of_copy_limit"]) - gbs / limit) <= 1e-6 * gbs / limit, r
        fb, ff = float(r["fused_model_bytes"]), float(r["fraction_of_fused_model"])
        assert (fb < b) if r["operator"] == "step" else (fb == b), r  # the step's fused model moves less
        assert abs(ff - fb / (ms * 1e-3) / 1e9 / limit) <= 1e-6 * ff, r
        naive = [x for x in rows if all(x[k] == r[k] for k in ("element", "ordering", "components", "operator"))
                 and x["variant"] == "naive"]
        assert len(naive) == 1
        assert abs(float(r["speedup_over_naive"]) - float(naive[0]["ms"]) / ms) <= 1e-6 * float(r["speedup_over_naive"])
        keys.add((r["element"], r["ordering"], r["components"], r["operator"], r["variant"]))
    assert len(keys) == len(rows), "duplicate rows"
    cells = {(r["element"], r["ordering"]): int(r["cells"]) for r in rows}
    assert cells[("tet", "random")] == cells[("tet", "zorder")] == 6 * 4 ** 3 and cells[("hex", "zorder")] == 5 ** 3
    # the byte model grows with the component count
    b = {(r["element"], r["components"], r["operator"]): float(r["bytes"]) for r in rows}
    assert all(b[(e, "2", o)] > b[(e, "1", o)] for (e, n, o) in b if n == "1")
    assert "[perf] copy deep_copy" in p.stderr
    # `defaults: true` takes the case's own options (convection atomic, team), the others override
    conv = {r["variant"]: r["kernels"] for r in rows if r["operator"] == "convection"}
    assert conv["defaults"] == "optimized/atomic/team", conv
    assert conv["gather-range"] == "optimized/gather/range" and conv["naive"].startswith("naive"), conv
    # `fused: true`: the muscl operator's gradient and limiter in one kernel (operators.muscl.fused)
    muscl = {r["variant"]: r["kernels"] for r in rows if r["operator"] == "muscl"}
    assert muscl["fused"] == "optimized/fused/range + fused (in the gradient kernel)", muscl
    assert "fused" not in muscl["gather-range"], muscl
    # the case's default muscl is the fused kernel; {defaults: true, fused: false} keeps the two passes
    assert muscl["defaults"] == muscl["fused"], muscl
    assert muscl["defaults-two-pass"] == "optimized/gather/range + optimized/range", muscl
print("OK")
