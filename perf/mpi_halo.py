#!/usr/bin/python3
"""Decomposed time step: 1 rank vs N ranks, naive vs optimized halo (a benchmark, not a test).

Runs `fvproxy run` of one case (default: inputs/default.yaml at 36 x 36 x 40 x 6 = 311,040 periodic
jittered tets, SSP-RK3, second-order limited convection + diffusion) on 1 rank, then on each rank
count of --ranks with each halo variant (parallel.halo.variant), one OpenMP thread per rank, and
reports the time per step (the run's compute time: wall - output, over the steps), the speedup
over one rank, and, where summary.json has them, the halo figures (docs/halo.md#halo-statistics):
per Runge-Kutta stage and kind of exchange (the state; the gradients and limiter values) the
messages and kB a rank sends, the whole run's pack / exposed wait / unpack / in-flight seconds
(the slowest rank's) and the fraction of the in-flight time hidden behind other work (mean over
ranks). With --staged, the optimized halo is also run with its staging path forced
(FVPROXY_HALO_STAGING=1: per-neighbour pack, copy to a host buffer, send). Each configuration
runs --repeat times; the median is reported. Every row records the machine, the backend, the
Kokkos version and the git revision (from summary.json's "build").

    /usr/bin/python3 perf/mpi_halo.py --out perf/results/<date>-<machine>/mpi_halo
    # options: --fvproxy build/host/fvproxy --case inputs/default.yaml --cells 36,36,40
    #          --steps 20 --ranks 2 --repeat 3 --staged --mpirun "mpirun --bind-to core"

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
    staged = halo == "staged"
    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false",
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env.pop("FVPROXY_HALO_STAGING", None)
    cmd = []
    if ranks > 1 or args.mpirun_always:
        cmd += args.mpirun.split() + ["-np", str(ranks)]
        if staged:
            env["FVPROXY_HALO_STAGING"] = "1"
            cmd += ["-x", "FVPROXY_HALO_STAGING"]
    cmd += [args.fvproxy, "run", args.case, "--quiet", "--output-dir", out,
            "--set", "mesh.generate.cells=[%s]" % args.cells,
            "--set", "time={steps: %d, cfl: 0.5}" % args.steps,
            "--set", "parallel.halo.variant=" + ("optimized" if staged else halo)]
    for s in args.set:
        cmd += ["--set", s]
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("mpi_halo.py: %s failed (exit %d):\n%s" % (" ".join(cmd), p.returncode, p.stderr[-3000:]))
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


KINDS = (("state", "state"), ("gradient_limiter", "grad+lim"))


def halo_figures(s):
    """The halo figures of summary.json (docs/output.md#json-output): over ranks, per stage and kind the
    mean messages and bytes a rank sends, the whole run's seconds of the slowest rank, the fraction hidden
    (mean and min over ranks). Empty when the build does not report them."""
    h = s.get("halo") or {}
    if not isinstance(h, dict) or "fraction_hidden" not in h:
        return {}
    out = {}
    for key, name in KINDS:
        ps = h[key]["per_stage"]
        out[name + "_msgs_per_stage"] = ps["messages"]["mean"]
        out[name + "_kB_per_stage"] = ps["bytes_sent"]["mean"] / 1e3
        out[name + "_hidden"] = h[key]["fraction_hidden"]["mean"]
    for k in ("pack", "wait", "unpack", "in_flight"):
        out[k + "_s"] = h["seconds_" + k]["max"]
    out["hidden_mean"] = h["fraction_hidden"]["mean"]
    out["hidden_min"] = h["fraction_hidden"]["min"]
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
    ap.add_argument("--staged", action="store_true",
                    help="also the optimized halo with its staging path forced (FVPROXY_HALO_STAGING=1)")
    ap.add_argument("--set", action="append", default=[], help="extra --set KEY=VALUE for every run")
    args = ap.parse_args()
    os.makedirs(os.path.join(args.out, "runs"), exist_ok=True)
    halos = ("naive", "optimized") + (("staged",) if args.staged else ())
    configs = [(1, "optimized")] + [(int(r), h) for r in args.ranks.split(",") for h in halos]
    load_before = os.getloadavg()  # the machine may be shared: its load is part of the measurement
    rows = []
    for ranks, halo in configs:
        per_step, figs, last = [], [], None
        for i in range(args.repeat):
            out = os.path.join(args.out, "runs", "np%d-%s-%d" % (ranks, halo, i))
            s = run_once(args, ranks, halo, out)
            per_step.append(s["cells"] / s["cell_updates_per_second"])
            figs.append(halo_figures(s))
            last = s
        b = last.get("build", {})
        row = {
            "ranks": ranks, "halo": halo if ranks > 1 else "-", "cells": last["cells"], "steps": last["steps"],
            "step_ms_median": 1e3 * statistics.median(per_step),
            "step_ms_all": " ".join("%.2f" % (1e3 * x) for x in per_step),
        }
        for k in (figs[0].keys() if ranks > 1 else ()):
            row[k] = statistics.median([f[k] for f in figs])
        row.update({
            "host": socket.gethostname(), "device": b.get("device", "?"),
            "backend": (b.get("kokkos") or {}).get("default_execution_space", "?"),
            "kokkos": (b.get("kokkos") or {}).get("version", "?"), "mpi": b.get("mpi", "?"),
            "git": b.get("git_revision", "?"),
            "transport": (last.get("operators") or {}).get("halo", "-"),
        })
        rows.append(row)
        print("np %d halo %-9s  %8.2f ms/step  (%s)%s" % (
            ranks, row["halo"], row["step_ms_median"], row["step_ms_all"],
            "  hidden %.2f" % row["hidden_mean"] if "hidden_mean" in row else ""), flush=True)
    base = rows[0]["step_ms_median"]
    for r in rows:
        r["speedup_vs_1_rank"] = base / r["step_ms_median"]
    load_after = os.getloadavg()
    load = "load average (1, 5, 15 min) %.2f %.2f %.2f before, %.2f %.2f %.2f after; %d CPUs" % (
        load_before + load_after + (os.cpu_count(),))
    fields = []
    for r in rows:
        fields += [k for k in r if k not in fields]
    with open(os.path.join(args.out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, restval="")
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"args": vars(args), "build": last.get("build", {}), "load": load, "rows": rows}, f, indent=1)
    lines = ["| ranks | halo | ms / step (median of %d) | speedup vs 1 rank | per stage: state msgs / kB | per stage: "
             "grad+lim msgs / kB | pack / wait / unpack / in flight (s, whole run, slowest rank) | hidden: state / "
             "grad+lim / all (mean over ranks; min) |" % args.repeat, "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        if "hidden_mean" not in r:
            lines.append("| %d | %s | %.2f | %.2f | - | - | - | - |" % (
                r["ranks"], r["halo"], r["step_ms_median"], r["speedup_vs_1_rank"]))
            continue
        lines.append("| %d | %s | %.2f | %.2f | %.1f / %.1f | %.1f / %.1f | %.3g / %.3g / %.3g / %.3g | "
                     "%.2f / %.2f / %.2f; %.2f |" % (
                         r["ranks"], r["halo"], r["step_ms_median"], r["speedup_vs_1_rank"],
                         r["state_msgs_per_stage"], r["state_kB_per_stage"], r["grad+lim_msgs_per_stage"],
                         r["grad+lim_kB_per_stage"], r["pack_s"], r["wait_s"], r["unpack_s"], r["in_flight_s"],
                         r["state_hidden"], r["grad+lim_hidden"], r["hidden_mean"], r["hidden_min"]))
    with open(os.path.join(args.out, "README.md"), "w") as f:
        f.write("# mpi_halo.py: %s, %s cells, %d steps\n\n" % (args.case, rows[0]["cells"], args.steps))
        f.write("host %s, device %s, backend %s, Kokkos %s, %s, git %s\n\n" % (
            rows[0]["host"], rows[0]["device"], rows[0]["backend"], rows[0]["kokkos"], rows[0]["mpi"], rows[0]["git"]))
        f.write("%s\n\n" % load)
        f.write("\n".join(lines) + "\n\nHalo transport per configuration (summary.json operators.halo):\n\n")
        for r in rows[1:]:
            f.write("- np %d %s: %s\n" % (r["ranks"], r["halo"], r["transport"]))
    print("\n".join(lines))
    print(load)


if __name__ == "__main__":
    main()
