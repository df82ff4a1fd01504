#!/usr/bin/env python3
"""Checks that `fvproxy mesh --json --compare-orderings` prints one JSON object with the keys of
docs/output.md#json-output and self-consistent values."""
import json
import subprocess
import sys

exe, case = sys.argv[1], sys.argv[2]
p = subprocess.run([exe, "mesh", case, "--json", "--compare-orderings", "--set", "mesh.generate.cells=[6,6,6]"],
                   capture_output=True, text=True, check=True)
j = json.loads(p.stdout)
real = json.loads(subprocess.run([exe, "info", "--json"], capture_output=True, text=True, check=True).stdout)["real"]
tol = 1e-12 if real == "double" else 1e-5  # docs/output.md#tolerances: float builds scale them
for k in ["cells", "faces", "boundary_faces", "nodes", "elements", "volume", "non_orthogonality", "ordering", "locality", "orderings"]:
    assert k in j, k
assert j["cells"] == 6 * 6 * 6 * 6, j["cells"]
assert j["elements"] == {"tet": j["cells"]}
assert abs(j["volume"]["total"] - 1.0) < tol, j["volume"]
assert j["volume"]["min"] <= j["volume"]["max"]
assert set(j["orderings"]) == {"none", "zorder", "hilbert", "rcm", "random"}
for o in j["orderings"].values():
    assert set(o) == {"face_distance", "bandwidth", "same_block_32", "same_block_128"}
    assert set(o["face_distance"]) == {"mean", "median", "max"}
    assert 0 <= o["same_block_32"] <= o["same_block_128"] <= 1
assert j["locality"] == j["orderings"][j["ordering"]], "the case's ordering must match its row"
print("OK")
