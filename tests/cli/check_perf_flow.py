#!/usr/bin/env python3
"""Checks `fvproxy perf` on the compressible model's operators (tests/data/perf_flow.yaml): one
flow-convection row per mesh x flux x variant and one flow-viscous row per mesh x variant, at 5
components only (the scalar convection at 1 and 5); the flux column names the flux of the
flow-convection rows; each speedup is over the naive row of the same operator and flux; the
optimized kernels are described as such.
usage: check_perf_flow.py FVPROXY SPEC"""
import csv
import os
import subprocess
import sys
import tempfile

exe, spec = sys.argv[1], sys.argv[2]
with tempfile.TemporaryDirectory() as d:
    p = subprocess.run([exe, "perf", spec, "--output-dir", d], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    rows = list(csv.DictReader(open(os.path.join(d, "results.csv"))))
    flow_c = [r for r in rows if r["operator"] == "flow-convection"]
    flow_v = [r for r in rows if r["operator"] == "flow-viscous"]
    conv = [r for r in rows if r["operator"] == "convection"]
    assert len(flow_c) == 2 * 2 * 3, len(flow_c)  # meshes x fluxes x variants
    assert len(flow_v) == 2 * 3, len(flow_v)
    assert len(conv) == 2 * 2 * 3, len(conv)  # meshes x components x variants
    assert all(r["components"] == "5" for r in flow_c + flow_v)
    assert {r["flux"] for r in flow_c} == {"rusanov", "roe"} and all(r["flux"] == "" for r in flow_v + conv)
    for r in flow_c + flow_v:
        ms, b = float(r["ms"]), float(r["bytes"])
        assert ms > 0 and b > 0, r
        naive = [x for x in rows if x["operator"] == r["operator"] and x["flux"] == r["flux"] and
                 x["element"] == r["element"] and x["variant"] == "naive"]
        assert len(naive) == 1, r
        assert abs(float(r["speedup_over_naive"]) - float(naive[0]["ms"]) / ms) <= 1e-6 * float(r["speedup_over_naive"])
        expected = "naive/" if r["variant"] == "naive" else "optimized/"
        assert r["kernels"].startswith(expected), r
    # the perf_case's convection is atomic with a team policy; the flow operators take the same options
    assert all(r["kernels"] == "optimized/atomic/team" for r in flow_c if r["variant"] == "defaults"), flow_c
    assert "flow-convection/roe" in p.stderr
print("OK")
