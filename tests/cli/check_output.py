#!/usr/bin/python3
"""Reads fvproxy's HDF5 + XDMF output with independent readers (Debian's h5py and meshio) and checks
that the mesh and the fields round-trip:

- `fvproxy run` on the hybrid hex/prism channel with output every 4 steps: meshio's XDMF
  time-series reader opens <case>.xdmf; its points, cells (per type) and times match mesh.h5,
  `fvproxy mesh --json` and summary.json; each step's cell field equals /fields/u0 of its file
  read by h5py; every file carries time (float64), step (int64), format_version 2, fixed-length
  strings, and root-attribute checksums that an independent FNV-1a here reproduces; cell global ids are the mesh's; the cell volumes computed here from the XDMF
  connectivity (tets, pyramids, wedges, hexes split into tets around their centre) weight the
  final field to the conserved total of summary.json, so the connectivity, its node order and the
  field order all agree with the solver's own geometry.
- `fvproxy mesh --write`: meshio's plain XDMF reader opens the mesh with its global ids.

usage: check_output.py FVPROXY CASE_DIR OUT_DIR"""
import json
import os
import shutil
import subprocess
import sys

import h5py
import meshio
import numpy as np


def fnv1a(text):
    h = 0xCBF29CE484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001B3) % (1 << 64)
    return "%016x" % h


def attribute_text(v):
    """A root attribute's value as the checksum hashes it (docs/output.md)."""
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.ndarray) and v.ndim == 1:
        return ",".join(attribute_text(x) for x in v)
    if isinstance(v, (np.floating, float)):
        return "%.17g" % v
    return str(int(v))


def verify_checksums(f, name):
    """Every root attribute but `checksums` is listed once, with the FNV-1a hash of 'name=value'."""
    listed = dict(e.rsplit(":", 1) for e in f.attrs["checksums"].decode().split())
    assert set(listed) == set(f.attrs) - {"checksums"}, (name, sorted(listed), sorted(f.attrs))
    for k, h in listed.items():
        assert fnv1a(k + "=" + attribute_text(f.attrs[k])) == h, (name, k, f.attrs[k])


exe, inputs, out = sys.argv[1], sys.argv[2], sys.argv[3]
shutil.rmtree(out, ignore_errors=True)
case = os.path.join(inputs, "hybrid_channel.yaml")
run = [exe, "run", case, "--quiet", "--output-dir", out, "--set", "time={steps: 10, cfl: 0.4}",
       "--set", "output.every={steps: 4}"]
p = subprocess.run(run, capture_output=True, text=True)
assert p.returncode == 0, p.stderr
summary = json.load(open(os.path.join(out, "summary.json")))
mesh_json = json.loads(subprocess.run([exe, "mesh", case, "--json"], capture_output=True, text=True,
                                      check=True).stdout)

xdmf = os.path.join(out, "hybrid_channel.xdmf")
with meshio.xdmf.TimeSeriesReader(xdmf) as reader:
    points, cells = reader.read_points_cells()
    steps = [reader.read_data(k) for k in range(reader.num_steps)]

with h5py.File(os.path.join(out, "mesh.h5"), "r") as m:
    nodes = m["/mesh/nodes"][()]
    cell_gid = m["/cells/global_id"][()]
    assert m.attrs["kind"] == b"mesh", m.attrs["kind"]
    verify_checksums(m, "mesh.h5")
    assert m["/fvproxy/case_yaml"].dtype.kind == "S", "case YAML is not a fixed-length string"
    assert b"hybrid_channel" in m["/fvproxy/case_yaml"][()]
    patches = {name: len(m["/patches/" + name + "/cell_global_id"]) for name in m["/patches"]}
assert np.array_equal(points, nodes)
assert points.shape == (mesh_json["nodes"], 3)
counts = {}
for b in cells:
    counts[b.type] = counts.get(b.type, 0) + len(b.data)
want = {{"hex": "hexahedron", "prism": "wedge", "tet": "tetra", "pyramid": "pyramid"}[k]: v
        for k, v in mesh_json["elements"].items() if v}
assert counts == want, (counts, want)
assert len(cell_gid) == mesh_json["cells"]
assert sum(patches.values()) == mesh_json["boundary_faces"], (patches, mesh_json["boundary_faces"])

# Times and fields, step by step.
files = summary["files"]["fields"]
assert files == ["fields_%06d.h5" % s for s in (0, 4, 8, 10)], files
assert len(steps) == len(files)
times = [t for t, _, _ in steps]
assert times == sorted(times) and times[0] == 0.0
assert abs(times[-1] - summary["time"]) <= 1e-15 * max(1.0, summary["time"]), (times[-1], summary["time"])
for (t, point_data, cell_data), name in zip(steps, files):
    with h5py.File(os.path.join(out, name), "r") as f:
        assert f.attrs["time"].dtype == np.float64 and f.attrs["step"].dtype == np.int64
        assert f.attrs["time"] == t
        assert int(f.attrs["format_version"]) == 2 and f.attrs["kind"] == b"fields"
        verify_checksums(f, name)
        for s in ("case_yaml", "variants", "build"):
            assert f["/fvproxy/" + s].dtype.kind == "S", s
        json.loads(f["/fvproxy/build"][()].decode())
        assert np.array_equal(f["/cells/global_id"][()], cell_gid)
        u = f["/fields/u0"][()]
    assert u.shape == (len(cell_gid),)
    assert not point_data
    assert np.array_equal(np.concatenate(cell_data["u0"]), u), name


# Cell volumes from the XDMF connectivity: every face split into triangles around its node
# average, each triangle with the cell's node average as a tetrahedron (the solver's own rule for
# non-planar quadrilaterals up to the centre used; exact for planar faces).
FACES = {
    "tetra": [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)],
    "pyramid": [(0, 3, 2, 1), (0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4)],
    # VTK wedge: (0,1,2) points out of the cell
    "wedge": [(0, 1, 2), (3, 5, 4), (0, 3, 4, 1), (1, 4, 5, 2), (2, 5, 3, 0)],
    "hexahedron": [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)],
}


def volumes(block):
    x = points[block.data]  # (cells, nodes, 3)
    centre = x.mean(axis=1)
    vol = np.zeros(len(x))
    for face in FACES[block.type]:
        fx = x[:, face, :]
        fc = fx.mean(axis=1)
        for i in range(len(face)):
            a, b = fx[:, i, :], fx[:, (i + 1) % len(face), :]
            vol += np.einsum("ij,ij->i", np.cross(a - fc, b - fc), fc - centre) / 6.0
    return vol


rtol = 1e-10 if summary["build"]["real"] == "double" else 1e-5  # float builds: float geometry
vol = np.concatenate([volumes(b) for b in cells])
assert (vol > 0).all(), "a cell of the XDMF connectivity is inverted (node order)"
total = float(vol.sum())
assert abs(total - mesh_json["volume"]["total"]) <= rtol * total, (total, mesh_json["volume"]["total"])
u_final = np.concatenate(steps[-1][2]["u0"]).astype(np.float64)
conserved = float((u_final * vol).sum())
want = summary["conservation"]["u0"]["final"]
assert abs(conserved - want) <= rtol * max(abs(want), 1e-300), (conserved, want)

# fvproxy mesh --write: the mesh alone, for meshio's plain reader.
mesh_file = os.path.join(out, "alone", "channel.h5")
subprocess.run([exe, "mesh", case, "--write", mesh_file], capture_output=True, text=True, check=True)
alone = meshio.read(os.path.join(out, "alone", "channel.xdmf"))
assert np.array_equal(alone.points, nodes)
assert sum(len(b.data) for b in alone.cells) == len(cell_gid)
assert np.array_equal(np.concatenate(alone.cell_data["global_id"]), cell_gid)
print("OK")
