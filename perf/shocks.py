#!/usr/bin/env python3
"""Shock quality of the flow models on hexes and tets (issue 38, docs/physics.md#shocks-on-tets):
Sod's shock tube and Toro's five Riemann problems (perf/toro.py's set-up: N cells along the axis,
2 x 2 across, cubic cells, transmissive ends, symmetry planes on the sides) run with fvproxy and
compared cell by cell with the exact solution (Toro 2009, chapter 4, computed here):

  overshoot_<q>  (max over cells of q - max of the exact q) / (exact range of q), in %
  undershoot_<q> (min of the exact q - min over cells of q) / (exact range of q), in %
  transverse     max |velocity across the axis| / max |exact velocity| (Sod: 0.927)
  l1_<q>         fvproxy's own L1 errors (summary.json)
  retried        steps taken again (time.retries; summary.json)

  python3 perf/shocks.py [--problems sod,toro1,...] [--meshes hex,tet,tet-jitter] [--cells 100,200,400]
                         [--axes x] [--set KEY=VALUE ...] [--out shocks.csv]

tet-jitter: the tets with mesh.generate.perturb 0.15 (seed 1). Records the git revision, the
machine and the arguments in the CSV's first comment line; two runs at a time, one thread each.
"""
import argparse
import concurrent.futures as cf
import csv
import glob
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import toro  # noqa: E402  (the problems and their --set overrides)

ROOT = toro.ROOT
SOD = ("sod", (1.0, 0.0, 1.0), (0.125, 0.0, 0.1), 0.5, 0.2)
PROBLEMS = [SOD] + toro.PROBLEMS
GAMMA = 1.4


# --- the exact Riemann solver (Toro 2009, sections 4.2-4.5) ---------------------------------------
def _f(p, rho, pk, a, g):
    if p > pk:  # shock
        A, B = 2 / ((g + 1) * rho), (g - 1) / (g + 1) * pk
        s = math.sqrt(A / (p + B))
        return (p - pk) * s, s * (1 - 0.5 * (p - pk) / (p + B))
    r = p / pk  # rarefaction
    return 2 * a / (g - 1) * (r ** ((g - 1) / (2 * g)) - 1), 1 / (rho * a) * r ** (-(g + 1) / (2 * g))


def star(L, R, g=GAMMA):
    (rl, ul, pl), (rr, ur, pr) = L, R
    al, ar = math.sqrt(g * pl / rl), math.sqrt(g * pr / rr)
    p = max(1e-8, 0.5 * (pl + pr))
    for _ in range(200):
        fl, dl = _f(p, rl, pl, al, g)
        fr, dr = _f(p, rr, pr, ar, g)
        q = p - (fl + fr + ur - ul) / (dl + dr)
        q = max(q, 1e-3 * p)
        if abs(q - p) <= 1e-14 * (q + p):
            p = q
            break
        p = q
    fl, _ = _f(p, rl, pl, al, g)
    fr, _ = _f(p, rr, pr, ar, g)
    return p, 0.5 * (ul + ur) + 0.5 * (fr - fl)


def sample(L, R, s, g=GAMMA):
    """(rho, u, p) at x/t = s."""
    ps, us = star(L, R, g)
    if s <= us:  # left of the contact
        rho, u, p = L
        a = math.sqrt(g * p / rho)
        if ps > p:
            S = u - a * math.sqrt((g + 1) / (2 * g) * ps / p + (g - 1) / (2 * g))
            if s <= S:
                return L
            return rho * (ps / p + (g - 1) / (g + 1)) / ((g - 1) / (g + 1) * ps / p + 1), us, ps
        ast = a * (ps / p) ** ((g - 1) / (2 * g))
        if s <= u - a:
            return L
        if s >= us - ast:
            return rho * (ps / p) ** (1 / g), us, ps
        c = 2 / (g + 1) + (g - 1) / ((g + 1) * a) * (u - s)
        return rho * c ** (2 / (g - 1)), 2 / (g + 1) * (a + (g - 1) / 2 * u + s), p * c ** (2 * g / (g - 1))
    rho, u, p = R
    a = math.sqrt(g * p / rho)
    if ps > p:
        S = u + a * math.sqrt((g + 1) / (2 * g) * ps / p + (g - 1) / (2 * g))
        if s >= S:
            return R
        return rho * (ps / p + (g - 1) / (g + 1)) / ((g - 1) / (g + 1) * ps / p + 1), us, ps
    ast = a * (ps / p) ** ((g - 1) / (2 * g))
    if s >= u + a:
        return R
    if s <= us + ast:
        return rho * (ps / p) ** (1 / g), us, ps
    c = 2 / (g + 1) - (g - 1) / ((g + 1) * a) * (u - s)
    return rho * c ** (2 / (g - 1)), 2 / (g + 1) * (-a + (g - 1) / 2 * u + s), p * c ** (2 * g / (g - 1))


def exact_range(problem, n=20001):
    """(min, max) of rho, u, p of the exact solution at the end time over [0, 1]."""
    _, L, R, x0, t = problem
    vals = [sample(L, R, (i / (n - 1) - x0) / t) for i in range(n)]
    return [(min(v[k] for v in vals), max(v[k] for v in vals)) for k in range(3)]


# --- runs ------------------------------------------------------------------------------------------
def case(problem, mesh, cells, axis="x", extra=()):
    """The case file and --set values of `problem` (a PROBLEMS row) on `mesh` (hex, tet, tet-jitter):
    `cells` along `axis`, 2 x 2 across, cubic cells, the final state only (also used by
    perf/results/2026-12-07-rotated-flux/sod_slabs.py)."""
    pr = (problem[0], problem[1], problem[2], problem[3], problem[4])
    sets = toro.case_sets(pr, axis, extra)
    a = toro.AXES[axis]
    n = [2, 2, 2]
    n[a] = cells
    lengths = [2.0 / cells] * 3
    lengths[a] = 1
    sets = [s for s in sets if not s.startswith(("mesh.generate.cells", "mesh.generate.lengths"))]
    sets += ["mesh.generate.cells=[%d,%d,%d]" % tuple(n), "mesh.generate.lengths=[%r,%r,%r]" % tuple(lengths),
             "output.every={time: 100}"]
    if mesh == "tet-jitter":
        sets += ["mesh.generate.perturb=0.15", "mesh.generate.seed=1"]
    return os.path.join(ROOT, "inputs", ("sod" if mesh == "hex" else "sod_tet") + ".yaml"), sets


def run(fv, problem, mesh, cells, axis, extra):
    path, sets = case(problem, mesh, cells, axis, extra)
    a = toro.AXES[axis]
    row = {"exit": "", "steps": ""}
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [fv, "run", path, "--quiet", "--output-dir", tmp]
        for s in sets + list(extra):
            cmd += ["--set", s]
        env = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false")
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        row["exit"] = p.returncode
        if p.returncode != 0:
            row["message"] = ((p.stderr + p.stdout).strip().splitlines() or [""])[0][:200]
            return row
        import h5py  # the measurement needs h5py (python3-h5py)
        with open(os.path.join(tmp, "summary.json")) as f:
            j = json.load(f)
        row["steps"] = j.get("steps", "")
        row["retried"] = (j.get("time_step") or {}).get("retried", "")
        for k in ("density", "velocity", "pressure"):
            row["l1_" + k] = (j.get("errors") or {}).get(k, {}).get("l1", "")
        last = sorted(glob.glob(os.path.join(tmp, "fields_*.h5")))[-1]
        with h5py.File(last, "r") as h:
            rho = h["fields/density"][()]
            vel = h["fields/velocity"][()]
            pre = h["fields/pressure"][()]
    (rlo, rhi), (ulo, uhi), (plo, phi) = exact_range(problem)
    un = vel[:, a]
    across = [vel[:, i] for i in range(3) if i != a]
    for name, q, lo, hi in (("density", rho, rlo, rhi), ("velocity", un, ulo, uhi), ("pressure", pre, plo, phi)):
        r = hi - lo
        row["overshoot_" + name] = 100 * (q.max() - hi) / r
        row["undershoot_" + name] = 100 * (lo - q.min()) / r
    umag = max(abs(ulo), abs(uhi))
    row["transverse"] = max(abs(x).max() for x in across) / umag if umag > 0 else ""
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fvproxy", default=os.path.join(ROOT, "build", "host", "fvproxy"))
    ap.add_argument("--problems", default="sod")
    ap.add_argument("--meshes", default="hex,tet,tet-jitter")
    ap.add_argument("--cells", default="100,200,400")
    ap.add_argument("--axes", default="x")
    ap.add_argument("--orders", default="2")
    ap.add_argument("--set", action="append", default=[], help="one more --set for every run")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default="-")
    args = ap.parse_args()
    probs = {p[0]: p for p in PROBLEMS}
    jobs = []
    for name in args.problems.split(","):
        for mesh in args.meshes.split(","):
            for axis in args.axes.split(","):
                for order in args.orders.split(","):
                    for n in args.cells.split(","):
                        extra = ["operators.convection.order=%s" % order] + args.set
                        jobs.append(((name, mesh, axis, order, int(n)), probs[name], mesh, int(n), axis, extra))
    keys = ["problem", "mesh", "axis", "order", "cells"]
    rows = []
    with cf.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        futs = {ex.submit(run, args.fvproxy, p, m, n, a, e): k for k, p, m, n, a, e in jobs}
        for f in cf.as_completed(futs):
            r = dict(zip(keys, futs[f]))
            r.update(f.result())
            rows.append(r)
    rows.sort(key=lambda r: tuple(r[k] for k in keys))
    out = sys.stdout if args.out == "-" else open(args.out, "w")
    rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout
    out.write("# perf/shocks.py %s; git %s; %s, %d cores\n" % (" ".join(toro.portable(a) for a in sys.argv[1:]),
                                                           rev.strip(), os.uname().nodename, os.cpu_count() or 0))
    fields = keys + ["exit", "steps", "retried"] + ["%s_%s" % (w, q) for w in ("overshoot", "undershoot")
                                         for q in ("density", "velocity", "pressure")]
    fields += ["transverse", "l1_density", "l1_velocity", "l1_pressure", "message"]
    w = csv.DictWriter(out, fieldnames=fields, extrasaction="ignore")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("%.4g" % v if isinstance(v, float) else v) for k, v in r.items()})


if __name__ == "__main__":
    main()
