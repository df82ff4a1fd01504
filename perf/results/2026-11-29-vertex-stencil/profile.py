#!/usr/bin/env python3
"""Sod on a tube of tets (perf/shocks.py's set-up, N cells along x, 2 x 2 across): per slab of cells
along x, the spread of the velocity, density and pressure over the slab's tets against the exact
solution, where the velocity exceeds 0.93 or the transverse velocity 0.02; then the largest overshoot.
usage: profile.py N [KEY=VALUE ...]   (run from this folder; needs h5py, numpy; writes run_tet_N/)"""
import glob, os, subprocess, sys
import h5py, numpy as np
ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "perf"))
import toro, shocks  # noqa: E402
cells, extra = int(sys.argv[1]), sys.argv[2:]
problem = shocks.SOD
sets = [s for s in toro.case_sets(problem, "x", extra) if not s.startswith(("mesh.generate.cells", "mesh.generate.lengths"))]
sets += ["mesh.generate.cells=[%d,2,2]" % cells, "mesh.generate.lengths=[1,%r,%r]" % (2.0 / cells, 2.0 / cells),
         "output.every={time: 100}"]
out = "run_tet_%d" % cells
cmd = [os.path.join(ROOT, "build", "host", "fvproxy"), "run", os.path.join(ROOT, "inputs", "sod_tet.yaml"), "--quiet",
       "--output-dir", out]
for s in sets + extra:
    cmd += ["--set", s]
p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="2", OMP_PROC_BIND="false"))
if p.returncode:
    sys.exit(p.stderr)
h = h5py.File(sorted(glob.glob(out + "/fields_*.h5"))[-1], "r")
m = h5py.File(out + "/mesh.h5", "r")
xc = m["mesh/nodes"][()][m["mesh/topology"][()].reshape(-1, 5)[:, 1:]].mean(axis=1)  # tets: the vertex mean
vel, rho, pre = h["fields/velocity"][()], h["fields/density"][()], h["fields/pressure"][()]
for i in range(cells):
    sel = (xc[:, 0] >= i / cells) & (xc[:, 0] < (i + 1) / cells)
    x = (i + 0.5) / cells
    ex = shocks.sample(problem[1], problem[2], (x - problem[3]) / problem[4])
    u, tr = vel[sel, 0], np.abs(vel[sel, 1:]).max()
    if u.max() > 0.93 or tr > 0.02:
        print("x=%.3f exact rho %.3f u %.3f p %.3f | u %.3f..%.3f rho %.3f..%.3f p %.3f..%.3f transverse %.3f" % (
            x, ex[0], ex[1], ex[2], u.min(), u.max(), rho[sel].min(), rho[sel].max(), pre[sel].min(), pre[sel].max(), tr))
umax = vel[:, 0].max()
print("max u %.4f (overshoot %.2f %% of 0.9274) transverse %.4f" % (umax, 100 * (umax - 0.92745) / 0.92745,
                                                                   np.abs(vel[:, 1:]).max()))
