#!/usr/bin/python3
"""Partition methods at scale: time and quality of every mesh.partition method into N parts (a
benchmark, not a test).

For each N of --parts, runs once (one process, one OpenMP thread, no mpirun)

    fvproxy mesh CASE --json --partition N --compare-partitions --set mesh.generate.cells=[CELLS]

which builds the mesh and computes every method's partition and its report (docs/parallel.md,
Partitioning). Each row (method, N) gives the seconds the partition took (`seconds`: partition_cells)
and its report (`seconds_quality`), the whole command's wall time (shared by the N's rows: mesh
build + every method), and the report: imbalance, edge cut, ghost fraction, neighbours max/mean,
halo values and bytes per part and stage max/mean (bytes = values x sizeof(real)), empty parts.
Each command runs --repeat times (the partitions must agree); every time is the minimum over them.
Every row records the machine, the backend, the Kokkos and MPI versions and the git revision
(`fvproxy info --json`). The CSV feeds the scaling model (one row per method and N).

    /usr/bin/python3 perf/partition_scale.py --out perf/results/<date>-<machine>-partition
    # options: --fvproxy build/host/fvproxy --case inputs/default.yaml --cells 75,75,75
    #          --parts 2,16,128,1024,4096 --repeat 2 --mpirun-ranks 0 (ptscotch also on R ranks together)

Writes OUT/results.csv, OUT/results.json and OUT/README.md (the tables), and keeps each command's
JSON under OUT/runs/.
"""
import argparse
import csv
import json
import os
import socket
import subprocess
import sys
import time

COLUMNS = ["method", "parts", "ranks", "cells", "seconds", "seconds_quality", "command_seconds", "imbalance",
           "edge_cut", "ghost_fraction", "neighbours_max", "neighbours_mean", "halo_values_max", "halo_values_mean",
           "halo_bytes_max", "halo_bytes_mean", "empty_parts", "values_per_ghost", "blocks", "real", "host", "device",
           "backend", "kokkos", "mpi", "git"]


def env():
    return dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false", OMPI_ALLOW_RUN_AS_ROOT="1",
                OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def run(cmd, out_json):
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env(), capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit("partition_scale.py: %s failed (exit %d):\n%s" % (" ".join(cmd), p.returncode, p.stderr[-3000:]))
    j = json.loads(p.stdout)
    with open(out_json, "w") as f:
        json.dump(j, f, indent=1)
    return j, wall


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--fvproxy", default="build/host/fvproxy")
    ap.add_argument("--case", default="inputs/default.yaml")
    ap.add_argument("--cells", default="75,75,75", help="mesh.generate.cells (75^3 hexes x 6 tets = 2,531,250 cells)")
    ap.add_argument("--parts", default="2,16,128,1024,4096")
    ap.add_argument("--mpirun-ranks", type=int, default=0,
                    help="also compute ptscotch on this many ranks together (mpirun -np R fvproxy mesh ...)")
    ap.add_argument("--mpirun", default="mpirun --oversubscribe --bind-to none")
    ap.add_argument("--repeat", type=int, default=2,
                    help="commands per N; each time is the minimum over them (a shared machine's noise)")
    args = ap.parse_args()
    os.makedirs(os.path.join(args.out, "runs"), exist_ok=True)
    info = json.loads(subprocess.run([args.fvproxy, "info", "--json"], env=env(), capture_output=True, text=True,
                                     check=True).stdout)
    machine = {"real": info.get("real", "?"), "host": socket.gethostname(), "device": info.get("host_cpu", "?"),
               "backend": (info.get("kokkos") or {}).get("default_execution_space", "?"),
               "kokkos": (info.get("kokkos") or {}).get("version", "?"), "mpi": info.get("mpi", "?"),
               "git": info.get("git_revision", "?")}
    base = [args.fvproxy, "mesh", args.case, "--json", "--set", "mesh.generate.cells=[%s]" % args.cells]
    rows, builds = [], {}
    for n in [int(x) for x in args.parts.split(",")]:
        configs = [(1, ["--compare-partitions"])]
        if args.mpirun_ranks > 1:
            configs.append((args.mpirun_ranks, ["--set", "mesh.partition=ptscotch"]))
        for ranks, extra in configs:
            cmd = (args.mpirun.split() + ["-np", str(ranks)] if ranks > 1 else []) + base + ["--partition", str(n)] + extra
            reps = [run(cmd, os.path.join(args.out, "runs", "parts%d-ranks%d-%d.json" % (n, ranks, i)))
                    for i in range(args.repeat)]
            j, _ = reps[0]
            wall = min(w for _, w in reps)
            builds[(n, ranks)] = [r.get("seconds", {}) for r, _ in reps]  # the mesh's build and reorder seconds
            for qi, q in enumerate(j.get("partitions") or [j["partition"]]):
                if "error" in q:  # a method that cannot make n parts (blocks): n/a
                    continue
                again = [(r.get("partitions") or [r["partition"]])[qi] for r, _ in reps]
                if any(a["edge_cut"] != q["edge_cut"] or a["imbalance"] != q["imbalance"] for a in again):
                    sys.exit("partition_scale.py: %s at %d parts differs between runs" % (q["method"], n))
                row = {"method": q["method"], "parts": n, "ranks": ranks, "cells": j.get("cells"),
                       "seconds": min(a["seconds"] for a in again),
                       "seconds_quality": min(a["seconds_quality"] for a in again), "command_seconds": wall,
                       "imbalance": q["imbalance"], "edge_cut": q["edge_cut"], "ghost_fraction": q["ghost_fraction"],
                       "neighbours_max": q["neighbours"]["max"], "neighbours_mean": q["neighbours"]["mean"],
                       "halo_values_max": q["halo_values_per_stage"]["max"],
                       "halo_values_mean": q["halo_values_per_stage"]["mean"],
                       "halo_bytes_max": q["halo_bytes_per_stage"]["max"],
                       "halo_bytes_mean": q["halo_bytes_per_stage"]["mean"], "empty_parts": q["empty_parts"],
                       "values_per_ghost": q["values_per_ghost"],
                       "blocks": "x".join(str(b) for b in q["blocks"]) if "blocks" in q else ""}
                row.update(machine)
                rows.append(row)
                print("N %5d ranks %d %-9s %8.2f s  imbalance %.4f  cut %9d  ghosts/n %.4f  neigh %3d/%6.2f  "
                      "halo B %d/%.0f%s" % (n, ranks, row["method"], row["seconds"] + row["seconds_quality"],
                                            row["imbalance"], row["edge_cut"], row["ghost_fraction"],
                                            row["neighbours_max"], row["neighbours_mean"], row["halo_bytes_max"],
                                            row["halo_bytes_mean"],
                                            "  (%d empty)" % row["empty_parts"] if row["empty_parts"] else ""),
                      flush=True)
            print("N %5d ranks %d: whole command %.1f s" % (n, ranks, wall), flush=True)
    with open(os.path.join(args.out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"args": vars(args), "info": info,
                   "mesh_seconds": {"%d parts, %d ranks" % k: v for k, v in builds.items()}, "rows": rows}, f,
                  indent=1)
    lines = ["| N | method | ranks | seconds (partition + report) | whole command s | imbalance | edge cut | "
             "ghost fraction | neighbours max / mean | halo bytes / stage max / mean | empty parts |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        name = r["method"] + (" " + r["blocks"] if r["blocks"] else "")
        lines.append("| %d | %s | %d | %.2f + %.2f | %.1f | %.4f | %d | %.4f | %d / %.2f | %d / %.0f | %d |" % (
            r["parts"], name, r["ranks"], r["seconds"], r["seconds_quality"], r["command_seconds"], r["imbalance"],
            r["edge_cut"], r["ghost_fraction"], r["neighbours_max"], r["neighbours_mean"], r["halo_bytes_max"],
            r["halo_bytes_mean"], r["empty_parts"]))
    with open(os.path.join(args.out, "README.md"), "w") as f:
        f.write("# partition_scale.py: %s, cells [%s] (%s cells)\n\n" % (args.case, args.cells, rows[0]["cells"]))
        f.write("host %s, CPU %s, backend %s (OMP_NUM_THREADS=1), Kokkos %s, %s, real %s, git %s; each time the "
                "minimum of %d commands\n\n" % (machine["host"], machine["device"], machine["backend"],
                                                 machine["kokkos"], machine["mpi"], machine["real"], machine["git"],
                                                 args.repeat))
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
