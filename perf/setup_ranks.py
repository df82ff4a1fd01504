#!/usr/bin/env python3
"""Benchmark (not a test): the set-up of a run on P ranks, per partition method (issue 40 item 5).

    perf/setup_ranks.py --out DIR [--fvproxy bin/fvproxy] [--case inputs/default.yaml]
                        [--cells 112,112,224] [--ranks 1,4] [--methods ptscotch,zorder,metis]
                        [--threads 4] [--mpirun "mpirun --bind-to none"] [--wrapper CMD]

For each method and P: `mpirun -np P fvproxy run CASE` with one step and no output, from its
summary.json: the set-up seconds (every rank's, from the start to the time loop: mesh, partition,
local mesh, solver), max and mean over the ranks; the device memory per owned cell, max and mean
(the issue's bound: max <= 1.2 x mean); and the run header's mesh line (how the mesh was built,
with its seconds). P = 1 runs without mpirun. Writes DIR/results.csv (first line: machine,
backend, Kokkos version, git revision) and DIR/<method>_<P>.log.
"""
import argparse
import csv
import json
import os
import shlex
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fvproxy", default=os.path.join(ROOT, "build/host/fvproxy"))
    ap.add_argument("--case", default=os.path.join(ROOT, "inputs/default.yaml"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--cells", default="112,112,224")
    ap.add_argument("--ranks", default="1,4")
    ap.add_argument("--methods", default="ptscotch,zorder,metis")
    ap.add_argument("--threads", type=int, default=4, help="OMP_NUM_THREADS of every process")
    ap.add_argument("--mpirun", default="mpirun --bind-to none")
    ap.add_argument("--wrapper", default="", help="a command each rank runs fvproxy under")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads), OMP_PROC_BIND="false")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    rows = []
    header = None
    for p in [int(x) for x in a.ranks.split(",")]:
        for method in a.methods.split(","):
            if p == 1 and method != a.methods.split(",")[0]:
                continue  # one rank: no partition
            d = os.path.join(a.out, "run_%s_%d" % (method, p))
            cmd = shlex.split(a.wrapper) + [a.fvproxy, "run", a.case, "--set", "mesh.generate.cells=[%s]" % a.cells,
                                            "--set", "mesh.partition=" + method, "--set", "time={steps: 1}",
                                            "--set", "output={}", "--output-dir", d]
            if p > 1:
                cmd = shlex.split(a.mpirun) + ["-np", str(p), "-x", "OMP_NUM_THREADS", "-x", "OMP_PROC_BIND"] + cmd
            r = subprocess.run(cmd, capture_output=True, text=True, env=env)
            log = os.path.join(a.out, "%s_%d.log" % (method, p))
            with open(log, "w") as f:
                f.write(" ".join(cmd) + "\n" + r.stdout + r.stderr)
            if r.returncode != 0:
                print("%s on %d ranks failed (%d): see %s" % (method, p, r.returncode, log), file=sys.stderr)
                continue
            s = json.load(open(os.path.join(d, "summary.json")))
            b = s["build"]
            header = header or "# %s, %s, Kokkos %s, git %s" % (b["device"], b["kokkos"]["default_execution_space"],
                                                                b["kokkos"]["version"], b["git_revision"])
            mesh = next((l.strip() for l in r.stdout.splitlines() if l.strip().startswith("mesh:")), "")
            ph, mem = s["phases"]["setup"], s["memory"]["device_bytes_per_cell"]
            rows.append({"method": method if p > 1 else "-", "ranks": p, "cells": s["cells"],
                         "setup_s_max": "%.3f" % ph["max"], "setup_s_mean": "%.3f" % ph["mean"],
                         "device_B_per_cell_max": "%.0f" % mem["max"], "device_B_per_cell_mean": "%.0f" % mem["mean"],
                         "device_max_over_mean": "%.3f" % (mem["max"] / mem["mean"]), "mesh": mesh})
            print(rows[-1], flush=True)
            shutil.rmtree(d, ignore_errors=True)  # mesh.h5 of a large box: GBs
    with open(os.path.join(a.out, "results.csv"), "w", newline="") as f:
        f.write((header or "# no run completed") + "\n")
        if rows:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
