#!/usr/bin/env python3
"""Checks `fvproxy perf` on a spec whose mesh is a Gmsh file ({file: PATH}): one row per ordering x
operator x variant, named after the file (element = its stem, size 0) with the file's cell count,
and the locality that results.json reports per ordering is that of `fvproxy mesh CASE --set
mesh.reorder=O` on the same file: `none` is the file's own numbering, the others its permutations.
usage: check_perf_file.py FVPROXY SPEC CASE"""
import csv
import json
import os
import subprocess
import sys
import tempfile

exe, spec, case = sys.argv[1], sys.argv[2], sys.argv[3]
with tempfile.TemporaryDirectory() as d:
    p = subprocess.run([exe, "perf", spec, "--output-dir", d], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    rows = list(csv.DictReader(open(os.path.join(d, "results.csv"))))
    j = json.load(open(os.path.join(d, "results.json")))
orderings = ["none", "zorder", "random"]
assert len(rows) == len(orderings) * 2 * 2, len(rows)
mesh = {o: json.loads(subprocess.run([exe, "mesh", case, "--set", f"mesh.reorder={o}", "--json"], check=True,
                                     capture_output=True, text=True).stdout) for o in orderings}
cells = mesh["none"]["cells"]
assert cells > 1000, cells
for r in rows:
    assert r["element"] == "sphere_in_box" and r["size"] == "0" and int(r["cells"]) == cells, r
    assert float(r["ms"]) > 0 and float(r["bytes"]) > 0, r
assert {(r["ordering"], r["operator"], r["variant"]) for r in rows} == \
    {(o, op, v) for o in orderings for op in ("muscl", "step") for v in ("naive", "defaults")}
loc = {L["ordering"]: L for L in j["locality"]}
assert sorted(loc) == sorted(orderings), j["locality"]
for o in orderings:
    assert loc[o]["element"] == "sphere_in_box" and loc[o]["cells"] == cells, loc[o]
    assert loc[o]["locality"] == mesh[o]["locality"], (o, loc[o]["locality"], mesh[o]["locality"])
# the file's numbering is its own: neither Z-order's nor random
assert loc["none"]["locality"] != loc["zorder"]["locality"] != loc["random"]["locality"]
assert "[perf] mesh/sphere_in_box.msh" in p.stderr.replace("../../", ""), p.stderr
print("OK")
