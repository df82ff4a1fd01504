#!/usr/bin/python3
"""`fvproxy mesh CASE --json --partition N` reports the partition with the numbers a hand count gives:
a 4x4x4 hex box (not periodic) in 2 blocks is cut by one plane of 16 faces, each part owns 32 cells
and holds 16 ghosts from one neighbour, 5 values per ghost (one component, limited second-order
convection) make 80 per stage, 80 x sizeof(real) bytes; with --compare-partitions every method is
listed, blocks 1x1x2.

usage: check_partition_json.py FVPROXY CASE.yaml"""
import json
import subprocess
import sys

exe, case = sys.argv[1], sys.argv[2]
box = ["--set", "mesh.generate={cells: [4, 4, 4], element: hex}"]
out = subprocess.run([exe, "mesh", case, "--json", "--partition", "2", "--set", "mesh.partition=blocks"] + box,
                     capture_output=True, text=True, check=True).stdout
p = json.loads(out)["partition"]
real = json.loads(subprocess.run([exe, "info", "--json"], capture_output=True, text=True, check=True).stdout)["real"]
size = {"double": 8, "float": 4}[real]
for k in ("seconds", "seconds_quality"):  # timings: present, not compared
    assert isinstance(p.pop(k), float), (k, p)
want = {"method": "blocks", "parts": 2, "blocks": [1, 1, 2], "imbalance": 1.0, "edge_cut": 16, "ghost_fraction": 0.5,
        "neighbours": {"max": 1, "mean": 1.0}, "values_per_ghost": 5,
        "halo_values_per_stage": {"max": 80, "mean": 80.0},
        "halo_bytes_per_stage": {"max": 80 * size, "mean": 80.0 * size}, "owned": {"min": 32, "max": 32},
        "ghosts": {"min": 16, "max": 16}, "empty_parts": 0, "refilled_parts": 0}
assert p == want, (p, want)
out = subprocess.run([exe, "mesh", case, "--json", "--partition", "2", "--compare-partitions"] + box,
                     capture_output=True, text=True, check=True).stdout
ps = json.loads(out)["partitions"]
assert [q["method"] for q in ps] == ["metis", "hilbert", "zorder", "blocks", "ptscotch"], ps
assert ps[-1]["ranks"] == 1, ps[-1]  # ptscotch: computed by this one process
for q in ps:
    assert q["parts"] == 2 and q["owned"]["min"] + q["owned"]["max"] == 64 and q["edge_cut"] >= 16, q
# Two components with diffusion only (no velocity): the state and its gradient, 4 x 2 per ghost.
out = subprocess.run([exe, "mesh", case, "--json", "--partition", "2", "--set", "physics.components=2",
                      "--set", "physics.velocity={type: uniform, value: [0, 0, 0]}"] + box,
                     capture_output=True, text=True, check=True).stdout
assert json.loads(out)["partition"]["values_per_ghost"] == 8, out
print("OK: partition report")
