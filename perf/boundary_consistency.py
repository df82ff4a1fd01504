#!/usr/bin/python3
"""The boundary-consistency experiments of docs/physics.md#boundary-values-for-gradients, run through
the fvproxy CLI (so the same script measures any build, before and after a change):

  symmetry  the Taylor-Green vortex (Mach 0.1, t = 1, least squares, unlimited, HLLC) on the periodic
            box [-pi, pi)^3 (N^3 hexes) and on its eighth [0, pi]^3 ((N/2)^3 hexes, six symmetry
            planes): the flow is mirror-symmetric, so the eighth must equal the box's cells there.
            Prints max |u_eighth - u_box| (velocity, Euclidean) for euler and navier-stokes (mu 0.01).
  couette   inputs/couette.yaml (16 cells across) with each flux, first and second order, to the
            steady state: the wall shear on the wall at rest against mu U / h.

    /usr/bin/python3 perf/boundary_consistency.py build/host/fvproxy OUT [--sizes 16 32] [--only symmetry|couette]

Writes OUT/boundary_consistency.json with every figure, the binary's `fvproxy info --json` and the time.
"""
import argparse
import json
import os
import subprocess
import sys

import h5py
import numpy as np

PI = "3.141592653589793"
TWO_PI = "6.283185307179586"


def run(fv, case, sets, out):
    cmd = [fv, "run", case, "--quiet", "--output-dir", out]
    for s in sets:
        cmd += ["--set", s]
    env = dict(os.environ, OMP_PROC_BIND="false")
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr[-2000:]}")
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def cells(out):
    """Cell centroids (mean of the hexes' nodes) and the velocity of the last fields file, by global id."""
    with h5py.File(os.path.join(out, "mesh.h5")) as m:
        x = m["/mesh/nodes"][()]
        topo = m["/mesh/topology"][()]
        gid_mesh = m["/cells/global_id"][()]
    cent, i = [], 0
    while i < len(topo):  # XDMF mixed topology: a type (9: hexahedron) then its 8 nodes
        assert topo[i] == 9, "hexahedra only"
        cent.append(x[topo[i + 1 : i + 9]].mean(axis=0))
        i += 9
    last = sorted(f for f in os.listdir(out) if f.startswith("fields_"))[-1]  # the final state
    with h5py.File(os.path.join(out, last)) as f:
        gid = f["/cells/global_id"][()]
        u = f["/fields/velocity"][()].reshape(len(gid), 3)
    pos = dict(zip(gid_mesh, cent))
    return np.array([pos[g] for g in gid]), u


def symmetry(fv, case, n, model, out):
    common = [
        "physics={model: %s, gamma: 1.4, gas_constant: 1%s}"
        % (model, ", viscosity: {type: constant, value: 0.01}, prandtl: 0.71" if model == "navier-stokes" else ""),
        "operators={muscl: {gradient: least-squares, limiter: none}, convection: {order: 2, flux: hllc}}",
        "time={integrator: ssprk3, cfl: 0.5, end_time: 1}",
        "output={}",
    ]
    box = common + [
        f"mesh.generate={{shape: box, cells: [{n}, {n}, {n}], element: hex, lengths: [{TWO_PI}, {TWO_PI}, {TWO_PI}], "
        f"origin: [-{PI}, -{PI}, -{PI}], periodic: [x, y, z]}}"
    ]
    h = n // 2
    eighth = common + [
        f"mesh.generate={{shape: box, cells: [{h}, {h}, {h}], element: hex, lengths: [{PI}, {PI}, {PI}]}}",
        "boundary={"
        + ", ".join(f"{a}{s}: {{type: symmetry}}" for a in "xyz" for s in ("min", "max"))
        + "}",
    ]
    a_out, b_out = os.path.join(out, f"tg_box_{model}_{n}"), os.path.join(out, f"tg_eighth_{model}_{n}")
    run(fv, case, box, a_out)
    run(fv, case, eighth, b_out)
    xa, ua = cells(a_out)
    xb, ub = cells(b_out)
    key = lambda p: tuple(np.round(p * 1e6).astype(np.int64))
    at = {key(p): i for i, p in enumerate(xa)}
    idx = np.array([at[key(p)] for p in xb])
    d = np.linalg.norm(ub - ua[idx], axis=1)
    return {"n": n, "model": model, "max_du": float(d.max()), "max_u": float(np.linalg.norm(ua, axis=1).max())}


def couette(fv, case, flux, order, rec, out):
    o = os.path.join(out, f"couette_{flux}_{order}_{rec}")
    sets = [f"operators.convection.flux={flux}", f"operators.convection.order={order}", "output={}"]
    if order == 2:
        sets.append(f"operators.convection.reconstruction={rec}")
    s = run(fv, case, sets, o)
    exact = 0.05 * 0.5 * 0.1875 * 0.1875  # mu U / h times the wall's area
    shear, total = s["forces"]["ymin"]["viscous"][0], s["forces"]["ymin"]["total"][0]
    return {"flux": flux, "order": order, "reconstruction": rec if order == 2 else None, "steps": s["steps"],
            "viscous_shear": shear, "total_x_force": total, "exact": exact,
            "viscous_error": shear / exact - 1, "total_error": total / exact - 1}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("fvproxy")
    ap.add_argument("out")
    ap.add_argument("--sizes", type=int, nargs="+", default=[16, 32])
    ap.add_argument("--only", choices=["symmetry", "couette"])
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.makedirs(a.out, exist_ok=True)
    info = json.loads(subprocess.run([a.fvproxy, "info", "--json"], capture_output=True, text=True).stdout)
    res = {"info": info, "symmetry": [], "couette": []}
    if a.only != "couette":
        for model in ("euler", "navier-stokes"):
            for n in a.sizes:
                r = symmetry(a.fvproxy, os.path.join(root, "inputs/taylor_green.yaml"), n, model, a.out)
                print(f"symmetry {model:13s} N = {n:3d}: max |u_eighth - u_box| = {r['max_du']:.3e} "
                      f"(max |u| {r['max_u']:.3f})", flush=True)
                res["symmetry"].append(r)
    if a.only != "symmetry":
        for flux in ("rusanov", "hllc", "roe"):
            for order, rec in ((1, "conservative"), (2, "conservative"), (2, "primitive")):
                r = couette(a.fvproxy, os.path.join(root, "inputs/couette.yaml"), flux, order, rec, a.out)
                print(f"couette {flux:8s} order {order} {rec if order == 2 else '':12s}: wall shear / (mu U / h) - 1 = "
                      f"{r['viscous_error']:+.3e} (total x force {r['total_error']:+.3e})", flush=True)
                res["couette"].append(r)
    with open(os.path.join(a.out, "boundary_consistency.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
