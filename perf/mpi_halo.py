#!/usr/bin/python3
"""Decomposed time step: 1 rank vs N ranks, naive vs optimized halo (a benchmark, not a test).

Runs `fvproxy run` of one case (default: inputs/default.yaml at 36 x 36 x 40 x 6 = 311,040 periodic
jittered tets, SSP-RK3, second-order limited convection + diffusion) on 1 rank, then on each rank
count of --ranks with each halo variant (parallel.halo.variant), one OpenMP thread per rank, and
reports the time per step (the run's compute time: wall - output, over the steps), the speedup
over one rank, and, where summary.json has them, the halo timers. Each configuration runs
--repeat times; the median is reported. Every row records the machine, the backend, the Kokkos
version and the git revision (from summary.json's "build").

    /usr/bin/python3 perf/mpi_halo.py --out perf/results/<date>-<machine>/mpi_halo
    # options: --fvproxy build/host/fvproxy --case inputs/default.yaml --cells 36,36,40
    #          --steps 20 --ranks 2 --repeat 3 --mpirun "mpirun --bind-to core"

Writes OUT/results.csv, OUT/results.json and OUT/README.md (the table), and keeps each run's
summary.json under OUT/runs/.
"""
import argparse
import csv
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys


def run_once(args, ranks, halo, out):
    cmd = []
    if ranks > 1 or args.mpirun_always:
        cmd += args.mpirun.split() + ["-np", str(ranks)]
    cmd += [args.fvproxy, "run", args.case, "--quiet", "--output-dir", out,
            "--set", "mesh.generate.cells=[%s]" % args.cells,
            "--set", "time={steps: %d, cfl: 0.5}" % args.steps,
            "--set", "parallel.halo.variant=" + halo]
    for s in args.set:
        cmd += ["--set", s]
    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false",
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("mpi_halo.py: %s failed (exit %d):\n%s" % (" ".join(cmd), p.returncode, p.stderr[-3000:]))
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def halo_seconds(s):
    """Halo timers of summary.json (rank 0's, or the slowest rank's), when the build reports them."""
    h = s.get("halo") or {}
    if not isinstance(h, dict):
        return {}
    out = {}
    for k in ("pack", "wait", "unpack"):
        v = h.get(k) if k in h else h.get("seconds_" + k)
        if isinstance(v, dict):
            v = v.get("max", v.get("mean"))
        if isinstance(v, (int, float)):
            out[k] = v
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--fvproxy", default="build/host/fvproxy")
    ap.add_argument("--case", default="inputs/default.yaml")
    ap.add_argument("--cells", default="36,36,40")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--ranks", default="2", help="rank counts besides 1, comma separated")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--mpirun", default="mpirun --bind-to core --map-by core")
    ap.add_argument("--mpirun-always", action="store_true", help="launch the 1-rank run under mpirun too")
    ap.add_argument("--set", action="append", default=[], help="extra --set KEY=VALUE for every run")
    args = ap.parse_args()
    os.makedirs(os.path.join(args.out, "runs"), exist_ok=True)
    configs = [(1, "optimized")] + [(int(r), h) for r in args.ranks.split(",") for h in ("naive", "optimized")]
    rows = []
    for ranks, halo in configs:
        per_step, halo_t, last = [], [], None
        for i in range(args.repeat):
            out = os.path.join(args.out, "runs", "np%d-%s-%d" % (ranks, halo, i))
            s = run_once(args, ranks, halo, out)
            per_step.append(s["cells"] / s["cell_updates_per_second"])
            halo_t.append(halo_seconds(s))
            last = s
        b = last.get("build", {})
        row = {
            "ranks": ranks, "halo": halo if ranks > 1 else "-", "cells": last["cells"], "steps": last["steps"],
            "step_ms_median": 1e3 * statistics.median(per_step),
            "step_ms_all": " ".join("%.2f" % (1e3 * x) for x in per_step),
            "halo_wait_s": statistics.median([h.get("wait", float("nan")) for h in halo_t]),
            "halo_pack_s": statistics.median([h.get("pack", float("nan")) for h in halo_t]),
            "halo_unpack_s": statistics.median([h.get("unpack", float("nan")) for h in halo_t]),
            "host": socket.gethostname(), "device": b.get("device", "?"),
            "backend": (b.get("kokkos") or {}).get("default_execution_space", "?"),
            "kokkos": (b.get("kokkos") or {}).get("version", "?"), "mpi": b.get("mpi", "?"),
            "git": b.get("git_revision", "?"),
        }
        rows.append(row)
        print("np %d halo %-9s  %8.2f ms/step  (%s)" % (ranks, row["halo"], row["step_ms_median"], row["step_ms_all"]),
              flush=True)
    base = rows[0]["step_ms_median"]
    for r in rows:
        r["speedup_vs_1_rank"] = base / r["step_ms_median"]
    with open(os.path.join(args.out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"args": vars(args), "build": last.get("build", {}), "rows": rows}, f, indent=1)
    lines = ["| ranks | halo | ms / step (median of %d) | speedup vs 1 rank | halo wait / pack / unpack (s, whole run) |"
             % args.repeat, "| --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append("| %d | %s | %.2f | %.2f | %.3g / %.3g / %.3g |" % (
            r["ranks"], r["halo"], r["step_ms_median"], r["speedup_vs_1_rank"], r["halo_wait_s"], r["halo_pack_s"],
            r["halo_unpack_s"]))
    with open(os.path.join(args.out, "README.md"), "w") as f:
        f.write("# mpi_halo.py: %s, %s cells, %d steps\n\n" % (args.case, rows[0]["cells"], args.steps))
        f.write("host %s, device %s, backend %s, Kokkos %s, %s, git %s\n\n" % (
            rows[0]["host"], rows[0]["device"], rows[0]["backend"], rows[0]["kokkos"], rows[0]["mpi"], rows[0]["git"]))
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
