#!/usr/bin/python3
"""`fvproxy mesh CASE --json --partition N` reports the partition with the numbers a hand count gives:
a 4x4x4 hex box (not periodic) in 2 blocks is cut by one plane of 16 faces, each part owns 32 cells
and holds 16 ghosts from one neighbour, 5 values per ghost (one component, limited second-order
convection) make 80 per stage; with --compare-partitions every method is listed, blocks 1x1x2.

usage: check_partition_json.py FVPROXY CASE.yaml"""
import json
import subprocess
import sys

exe, case = sys.argv[1], sys.argv[2]
box = ["--set", "mesh.generate={cells: [4, 4, 4], element: hex}"]
out = subprocess.run([exe, "mesh", case, "--json", "--partition", "2", "--set", "mesh.partition=blocks"] + box,
                     capture_output=True, text=True, check=True).stdout
p = json.loads(out)["partition"]
want = {"method": "blocks", "parts": 2, "blocks": [1, 1, 2], "imbalance": 1.0, "edge_cut": 16, "ghost_fraction": 0.5,
        "neighbours": {"max": 1, "mean": 1.0}, "values_per_ghost": 5,
        "halo_values_per_stage": {"max": 80, "mean": 80.0}, "owned": {"min": 32, "max": 32},
        "ghosts": {"min": 16, "max": 16}, "empty_parts": 0}
assert p == want, (p, want)
out = subprocess.run([exe, "mesh", case, "--json", "--partition", "2", "--compare-partitions"] + box,
                     capture_output=True, text=True, check=True).stdout
ps = json.loads(out)["partitions"]
assert [q["method"] for q in ps] == ["metis", "hilbert", "zorder", "blocks"], ps
for q in ps:
    assert q["parts"] == 2 and q["owned"]["min"] + q["owned"]["max"] == 64 and q["edge_cut"] >= 16, q
# Two components with diffusion only (no velocity): the state and its gradient, 4 x 2 per ghost.
out = subprocess.run([exe, "mesh", case, "--json", "--partition", "2", "--set", "physics.components=2",
                      "--set", "physics.velocity={type: uniform, value: [0, 0, 0]}"] + box,
                     capture_output=True, text=True, check=True).stdout
assert json.loads(out)["partition"]["values_per_ghost"] == 8, out
print("OK: partition report")
