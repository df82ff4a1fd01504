#!/usr/bin/env python3
"""Checks `fvproxy run`: --quiet prints nothing, summary.json holds the keys of docs/output.md#json-output with
self-consistent values, --profile fills the timers, and summary.json is replaced atomically."""
import json
import os
import subprocess
import sys
import tempfile

exe, case = sys.argv[1], sys.argv[2]
small = ["--set", "mesh.generate.cells=[6,6,6]", "--set", "time={end_time: 0.05}"]
with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "nested", "out")
    p = subprocess.run([exe, "run", case, "--quiet", "--output-dir", out] + small, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "", "--quiet printed: " + p.stdout
    assert "step " not in p.stderr, "--quiet printed progress"
    j = json.load(open(os.path.join(out, "summary.json")))
    for k in ["case", "steps", "time", "wall_seconds", "cell_updates_per_second", "errors", "conservation",
              "timers", "memory_bytes", "config", "build"]:
        assert k in j, k
    assert j["case"] == "default" and j["status"] == "completed"
    assert abs(j["time"] - 0.05) < 1e-12 and j["steps"] >= 1
    assert abs(j["steps"] * j["dt"] - j["time"]) < 1e-12
    assert j["cells"] == 6 * 6 * 6 * 6
    assert j["timers"] == {}, "timers without --profile"
    assert set(j["errors"]) == {"u0"} and set(j["errors"]["u0"]) == {"l1", "l2", "linf"}
    e = j["errors"]["u0"]
    assert 0 < e["l1"] <= e["l2"] <= e["linf"] < 0.5, e
    c = j["conservation"]["u0"]
    rtol = 1e-10 if j["build"]["real"] == "double" else 1e-4  # docs/output.md#tolerances: the run tolerance
    assert abs(c["final"] - c["initial"]) <= rtol * abs(c["initial"]), c
    assert j["config"]["time"]["end_time"] == 0.05 and j["config"]["mesh"]["generate"]["cells"] == [6, 6, 6]
    assert j["config"]["output"]["dir"] == out
    assert "kokkos" in j["build"] and "hdf5" in j["build"]
    assert j["memory_bytes"] > 0 and j["cell_updates_per_second"] > 0
    # Without output.every: the mesh, the final fields, the XDMF and the summary; no temporary file.
    want = {"summary.json", "mesh.h5", "default.xdmf", "fields_%06d.h5" % j["steps"]}
    assert set(os.listdir(out)) == want, os.listdir(out)
    assert j["files"] == {"fields": ["fields_%06d.h5" % j["steps"]], "checkpoints": []}, j["files"]

    p = subprocess.run([exe, "run", case, "--profile", "--output-dir", out] + small, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "fvproxy::solver::stage_update" in p.stdout and "share" in p.stdout, p.stdout
    j = json.load(open(os.path.join(out, "summary.json")))
    t = j["timers"]
    assert t["fvproxy::solver::stage_update"]["calls"] == 3 * j["steps"], t
    assert all(v["seconds"] >= 0 and v["calls"] > 0 for v in t.values())
    assert all(k.startswith("fvproxy::") for k in t), [k for k in t if not k.startswith("fvproxy::")]
print("OK")
