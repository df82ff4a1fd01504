#!/usr/bin/env python3
"""Sod along x (perf/shocks.py's set-up) on hexes, tets and jittered tets at 100, 200 and 400 cells,
the defaults: the L1 error of the velocity along x (volume-weighted, against the exact solution at the
cell centroids) split into the error of each slab's mean (the cells whose centroid lies in one
1/N-wide slab along x) and the spread of the cells about their slab's mean; the standard deviation of
u over the plateau between the contact and the shock (0.70 < x < 0.835); the velocity overshoot in
% of the exact 0.92745. Environment switches of an experiment binary pass through.
  python3 perf/results/2026-12-07-rotated-flux/sod_slabs.py FVPROXY LABEL [KEY=VALUE ...]"""
import sys, os, subprocess, glob, tempfile
import numpy as np, h5py
ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "perf")); import toro, shocks  # noqa: E402
fv, label, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
L, R = (1.0, 0.0, 1.0), (0.125, 0.0, 0.1)
def tetvol(X, t):
    a, b, c, d = X[t[:, 0]], X[t[:, 1]], X[t[:, 2]], X[t[:, 3]]
    return np.abs(np.einsum('ij,ij->i', np.cross(b - a, c - a), d - a)) / 6
import concurrent.futures as cf
def one(mesh, cells):
    path, sets = shocks.case(shocks.SOD, mesh, cells)  # perf/shocks.py's set-up
    with tempfile.TemporaryDirectory() as d:
        cmd = [fv, 'run', path, '--quiet', '--output-dir', d]
        for s in sets + extra: cmd += ['--set', s]
        p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS='1', OMP_PROC_BIND='false'))
        if p.returncode: return (mesh, cells, 'exit %d %s' % (p.returncode, (p.stderr + p.stdout)[:200]))
        m = h5py.File(d + '/mesh.h5', 'r'); X = m['mesh/nodes'][()]; top = m['mesh/topology'][()]
        f = h5py.File(sorted(glob.glob(d + '/fields_*.h5'))[-1], 'r'); u = f['fields/velocity'][()][:, 0]
        n = len(u)
        if mesh == 'hex':
            t = top.reshape(n, 9)[:, 1:]; c = X[t].mean(axis=1); v = np.ones(n)
        else:
            t = top.reshape(n, 5)[:, 1:]; c = X[t].mean(axis=1); v = tetvol(X, t)
    ex = np.array([shocks.sample(L, R, (x - 0.5) / 0.2)[1] for x in c[:, 0]])
    slab = np.clip(np.floor(c[:, 0] * cells).astype(int), 0, cells - 1)
    w = np.bincount(slab, v, cells)
    mean = np.bincount(slab, v * u, cells) / w; exs = np.bincount(slab, v * ex, cells) / w
    V = v.sum()
    l1 = (v * np.abs(u - ex)).sum() / V
    l1m = (w * np.abs(mean - exs)).sum() / V
    l1d = (v * np.abs(u - mean[slab])).sum() / V
    pl = (c[:, 0] > 0.70) & (c[:, 0] < 0.835)
    over = 100 * (u.max() - 0.92745) / 0.92745
    return (mesh, cells, 'L1u %.5f slab-mean %.5f within %.5f | plateau std %.4f | overshoot %.2f %%' % (l1, l1m, l1d, u[pl].std(), over))
jobs = [(m, c) for m in ('hex', 'tet', 'tet-jitter') for c in (100, 200, 400)]
with cf.ThreadPoolExecutor(2) as ex:
    res = list(ex.map(lambda a: one(*a), jobs))
print('#', label, ' '.join(extra), os.environ.get('FV_SHEAR', ''), os.environ.get('FV_SHEAR_MODE', ''))
for r in res: print(*r)
