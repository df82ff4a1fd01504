#!/usr/bin/env python3
"""Toro's five Riemann problems (Toro 2009, section 10.8, table 10.1) run with fvproxy along any
axis, on hexes or tets, with any flux, order, reconstruction, limiter, integrator and CFL, against
the exact solution: the measurements behind tests/test_flow_solver.cpp's Toro bounds and the flow
models' default CFL (docs/physics.md#the-flow-defaults).

  python3 perf/toro.py matrix [--fvproxy build/host/fvproxy] [--out toro.csv]
      every problem x axis (x, y, z) x mesh (hex, tet) x flux (hllc, roe, rusanov) x order (1, 2)
      with the defaults otherwise: status, steps, L1 errors per field.
  python3 perf/toro.py bounds MATRIX.csv
      the C++ rows of tests/test_flow_solver.cpp's kToroErrors from a matrix CSV: per problem, mesh,
      flux and order the largest L1 error over the axes of density, velocity and pressure.
  python3 perf/toro.py cfl [--integrators euler,ssprk2,ssprk3] [--cfls 0.5,0.6,...] [--out cfl.csv]
      the largest CFL per integrator at which every Toro problem (x and z, hexes and tets, each
      flux, orders 1 and 2) and every flow case of inputs/ completes with positive density and
      pressure (the inputs/ cases shortened to their first steps: --input-steps).

Each run is `fvproxy run inputs/sod.yaml` (or sod_tet.yaml) with --set overrides: 100 cells along
the axis, 2 x 2 across (lengths 1 and 0.02: cubic cells), transmissive (supersonic-outflow) ends, symmetry
planes on the sides. Two runs at a time, one thread each. Records the git revision and the
machine in the CSV's first comment lines.
"""
import argparse
import concurrent.futures as cf
import csv
import json
import os
import platform
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (name, left (rho, u, p), right (rho, u, p), position, end time): Toro (2009), table 10.1.
PROBLEMS = [
    ("toro1", (1.0, 0.75, 1.0), (0.125, 0.0, 0.1), 0.3, 0.2),
    ("toro2", (1.0, -2.0, 0.4), (1.0, 2.0, 0.4), 0.5, 0.15),
    ("toro3", (1.0, 0.0, 1000.0), (1.0, 0.0, 0.01), 0.5, 0.012),
    ("toro4", (5.99924, 19.5975, 460.894), (5.99242, -6.19633, 46.0950), 0.4, 0.035),
    ("toro5", (1.0, -19.59745, 1000.0), (1.0, -19.59745, 0.01), 0.8, 0.012),
]
AXES = {"x": 0, "y": 1, "z": 2}
PATCHES = [("xmin", "xmax"), ("ymin", "ymax"), ("zmin", "zmax")]


def case_sets(problem, axis, extra=(), time=""):
    """The --set overrides of one Toro problem along `axis` (the tests build the same list); `time`:
    more keys of the time section (e.g. "integrator: euler, cfl: 0.8")."""
    name, left, right, position, end = problem
    a = AXES[axis]
    cells = [2, 2, 2]
    cells[a] = 100
    lengths = [0.02, 0.02, 0.02]  # cubic cells: 0.01 along the axis and across
    lengths[a] = 1
    normal = [0, 0, 0]
    normal[a] = 1

    def state(s):
        v = [0, 0, 0]
        v[a] = s[1]
        return "{density: %r, velocity: [%r, %r, %r], pressure: %r}" % (s[0], v[0], v[1], v[2], s[2])

    sets = [
        "mesh.generate.cells=[%d,%d,%d]" % tuple(cells),
        "mesh.generate.lengths=[%r,%r,%r]" % tuple(lengths),
        "initial.normal=[%d,%d,%d]" % tuple(normal),
        "initial.position=%r" % position,
        "initial.left=" + state(left),
        "initial.right=" + state(right),
        "time={end_time: %r%s}" % (end, ", " + time if time else ""),
        "output.every={time: 1}",
    ]
    # inputs/sod.yaml's boundary section, replaced: transmissive ends, symmetry planes on the sides
    b = []
    for i, (lo, hi) in enumerate(PATCHES):
        t = "supersonic-outflow" if i == a else "symmetry"
        b.append("%s: {type: %s}, %s: {type: %s}" % (lo, t, hi, t))
    sets.append("boundary={" + ", ".join(b) + "}")
    # sod.yaml's operators and time sections name their choices: back to the defaults unless given
    sets += ["operators={}"]
    return sets + list(extra)


def run_one(fv, case, sets):
    """`case`: hex | tet (a Toro problem on sod.yaml or sod_tet.yaml) or an inputs/ case's name."""
    case = {"hex": "sod", "tet": "sod_tet"}.get(case, case)
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [fv, "run", os.path.join(ROOT, "inputs", case + ".yaml"), "--quiet", "--output-dir", tmp]
        for s in sets:
            cmd += ["--set", s]
        env = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false")
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        row = {"exit": p.returncode, "steps": "", "l1_density": "", "l1_velocity": "", "l1_pressure": "",
               "message": ""}
        try:
            with open(os.path.join(tmp, "summary.json")) as f:
                j = json.load(f)
            row["steps"] = j.get("steps", "")
            for k in ("density", "velocity", "pressure"):
                row["l1_" + k] = (j.get("errors") or {}).get(k, {}).get("l1", "")
        except (OSError, ValueError):
            pass
        if p.returncode != 0:
            lines = [l for l in (p.stderr + p.stdout).splitlines() if l.strip()]
            row["message"] = lines[0][:200] if lines else ""
        return row


def portable(path):
    """A path as the record keeps it: relative to the repository when inside it, else its file name (no
    machine's absolute paths in files the repository carries, e.g. tests/toro_errors.inc)."""
    if not os.path.isabs(path):
        return path
    rel = os.path.relpath(path, ROOT)
    return rel if not rel.startswith("..") else os.path.basename(path)


def header(out, args):
    rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout
    out.write("# perf/toro.py %s; git %s; %s, %d cores; fvproxy %s\n" %
              (" ".join(portable(a) for a in sys.argv[1:]), rev.strip(), platform.node(), os.cpu_count() or 0,
               portable(args.fvproxy)))


def matrix(args, time=""):
    jobs = []
    if not args.problems:
        return jobs
    for pr in [p for p in PROBLEMS if p[0] in args.problems.split(",")]:
        for axis in args.axes.split(","):
            for mesh in args.meshes.split(","):
                for flux in args.fluxes.split(","):
                    for order in args.orders.split(","):
                        extra = ["operators.convection={flux: %s, order: %s}" % (flux, order)] + args.set
                        jobs.append(((pr[0], axis, mesh, flux, order), mesh, case_sets(pr, axis, extra, time)))
    return jobs


def run_jobs(args, jobs, keys):
    rows = []
    with cf.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        futs = {ex.submit(run_one, args.fvproxy, mesh, sets): key for key, mesh, sets in jobs}
        for f in cf.as_completed(futs):
            r = dict(zip(keys, futs[f]))
            r.update(f.result())
            rows.append(r)
            if r["exit"] != 0:
                print("FAIL", futs[f], r["message"], file=sys.stderr)
    rows.sort(key=lambda r: tuple(str(r[k]) for k in keys))
    return rows


def bounds(path, out):
    with open(path) as f:
        comment = f.readline().strip()
        rows = list(csv.DictReader(f))
    worst = {}
    for r in rows:
        if r["exit"] != "0":
            sys.exit("bounds: a failed run in %s: %s" % (path, r))
        key = (r["problem"], {"hex": "sod", "tet": "sod_tet"}[r["mesh"]], r["flux"], r["order"])
        e = [float(r["l1_density"]), float(r["l1_velocity"]), float(r["l1_pressure"])]
        worst[key] = [max(a, b) for a, b in zip(worst.get(key, e), e)]
    out.write("      // %s\n" % comment.lstrip("# "))
    for (pr, mesh, flux, order), e in sorted(worst.items()):
        out.write('      {"%s", "%s", "%s", %s, %.4g, %.4g, %.4g},\n' % (pr, mesh, flux, order, e[0], e[1], e[2]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["matrix", "cfl", "bounds"])
    ap.add_argument("csv", nargs="?", help="bounds: the matrix CSV")
    ap.add_argument("--fvproxy", default=os.path.join(ROOT, "build", "host", "fvproxy"))
    ap.add_argument("--out", default="-")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--problems", default=",".join(p[0] for p in PROBLEMS), help="empty: none (cfl: inputs/ only)")
    ap.add_argument("--axes", default="x,y,z")
    ap.add_argument("--meshes", default="hex,tet")
    ap.add_argument("--fluxes", default="hllc,roe,rusanov")
    ap.add_argument("--orders", default="1,2")
    ap.add_argument("--set", action="append", default=[], help="one more --set for every run")
    ap.add_argument("--integrators", default="euler,ssprk2,ssprk3")
    ap.add_argument("--cfls", default="0.5,0.6,0.7,0.8,0.9,1.0,1.1,1.2")
    ap.add_argument("--inputs", default="sod,sod_tet,couette,subsonic_channel,vortex,taylor_green,cylinder")
    ap.add_argument("--input-steps", type=int, default=200)
    ap.add_argument("--keep-going", action="store_true", help="cfl: try every CFL, not only up to the first failing")
    args = ap.parse_args()
    out = sys.stdout if args.out == "-" else open(args.out, "w")
    if args.mode == "bounds":
        return bounds(args.csv, out)
    header(out, args)
    if args.mode == "matrix":
        keys = ["problem", "axis", "mesh", "flux", "order"]
        rows = run_jobs(args, matrix(args), keys)
    else:
        keys = ["integrator", "cfl", "problem", "axis", "mesh", "flux", "order"]
        rows = []
        for integ in args.integrators.split(","):
            for cfl in args.cfls.split(","):
                jobs = []
                for key, mesh, sets in matrix(args, "integrator: %s, cfl: %s" % (integ, cfl)):
                    jobs.append(((integ, cfl) + key, mesh, sets))
                for name in filter(None, args.inputs.split(",")):
                    sets = ["time={integrator: %s, cfl: %s, steps: %d}" % (integ, cfl, args.input_steps),
                            "output.every={steps: 100000}"] + args.set
                    jobs.append(((integ, cfl, name, "-", "-", "-", "-"), name, sets))
                got = run_jobs(args, jobs, keys)
                rows += got
                bad = [r for r in got if r["exit"] != 0]
                print("%s cfl %s: %d of %d runs failed" % (integ, cfl, len(bad), len(got)), file=sys.stderr)
                if bad and not args.keep_going:
                    break
    w = csv.DictWriter(out, fieldnames=keys + ["exit", "steps", "l1_density", "l1_velocity", "l1_pressure",
                                               "message"])
    w.writeheader()
    w.writerows(rows)


if __name__ == "__main__":
    main()
