#!/usr/bin/env python3
"""Benchmark (not a test): building a generated box whole on one rank vs in parts on P ranks.

    perf/parts_build.py --fvproxy build/host/fvproxy --out DIR [--cells 128,128,128] [--element tet]
                        [--ranks 1,2,4,8,16] [--partition hilbert] [--reorder zorder]
                        [--mpirun "mpirun --oversubscribe --bind-to none"] [--threads 1]

For the whole build: `fvproxy mesh CASE --json` (one process, OMP_NUM_THREADS=--threads): its
build and reorder seconds. For each P: `mpirun -np P fvproxy mesh CASE --in-parts --json`: the
slowest rank's seconds (slab sort, piece, device copy per rank) and its peak host memory. Writes
DIR/results.csv (first line: machine, backend, Kokkos version, git revision) and DIR/results.json.
Cells per second = the whole mesh's cells over the slowest rank's time (docs/decomposition.md#built-in-parts).
"""
import argparse
import csv
import datetime
import json
import os
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_json(cmd, env):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr[-2000:]))
    out = p.stdout
    return json.loads(out[out.index("{"):])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fvproxy", default=os.path.join(ROOT, "build/host/fvproxy"))
    ap.add_argument("--case", default=os.path.join(ROOT, "inputs/default.yaml"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--cells", default="128,128,128")
    ap.add_argument("--element", default="tet")
    ap.add_argument("--ranks", default="1,2,4,8,16")
    ap.add_argument("--partition", default="hilbert")
    ap.add_argument("--reorder", default="zorder")
    ap.add_argument("--threads", type=int, default=1, help="OMP_NUM_THREADS of every process")
    ap.add_argument("--mpirun", default="mpirun --oversubscribe --bind-to none")
    ap.add_argument("--no-whole", action="store_true", help="skip the whole build on one rank")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads), OMP_PROC_BIND="false")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    sets = ["--set", "mesh.generate.cells=[%s]" % a.cells, "--set", "mesh.generate.element=%s" % a.element,
            "--set", "mesh.partition=%s" % a.partition, "--set", "mesh.reorder=%s" % a.reorder]
    info = run_json([a.fvproxy, "info", "--json"], env)
    rows = []
    if not a.no_whole:
        j = run_json([a.fvproxy, "mesh", a.case, "--json"] + sets, env)
        s = j["seconds"]
        total = s["build"] + s.get("reorder", 0.0)
        rows.append({"mode": "whole", "ranks": 1, "cells": j["cells"], "seconds": total,
                     "seconds_build": s["build"], "seconds_reorder": s.get("reorder", 0.0),
                     "cells_per_second": j["cells"] / total, "peak_host_mb_max": ""})
        print("whole, 1 rank: %.2f s (%.3g cells/s)" % (total, j["cells"] / total), flush=True)
    mpirun = shlex.split(a.mpirun)
    for p in [int(x) for x in a.ranks.split(",")]:
        extra = []
        if "mpirun" in os.path.basename(mpirun[0]) or "mpiexec" in os.path.basename(mpirun[0]):
            extra = ["-x", "OMP_NUM_THREADS", "-x", "OMP_PROC_BIND"]
            if "LD_LIBRARY_PATH" in env:
                extra += ["-x", "LD_LIBRARY_PATH"]
        j = run_json(mpirun + extra + ["-np", str(p), a.fvproxy, "mesh", a.case, "--in-parts", "--json"] + sets, env)
        ranks = j["per_rank"]
        slowest = max(ranks, key=lambda r: r["seconds"])
        rows.append({"mode": "parts", "ranks": p, "cells": j["cells"], "seconds": j["seconds"],
                     "seconds_sort": slowest["seconds_sort"], "seconds_piece": slowest["seconds_piece"],
                     "seconds_device": slowest["seconds_device"], "cells_per_second": j["cells_per_second"],
                     "owned_max": max(r["owned_cells"] for r in ranks), "ghost_max": max(r["ghost_cells"] for r in ranks),
                     "peak_host_mb_max": max(r["peak_host_bytes"] for r in ranks) / 1e6})
        print("parts, %d ranks: %.2f s (%.3g cells/s; slowest rank: sort %.2f, piece %.2f, device %.2f s; "
              "peak host %.0f MB)" % (p, j["seconds"], j["cells_per_second"], slowest["seconds_sort"],
                                      slowest["seconds_piece"], slowest["seconds_device"],
                                      rows[-1]["peak_host_mb_max"]), flush=True)
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "machine": os.uname().nodename, "cpu_count": os.cpu_count(), "threads": a.threads,
            "backend": info["kokkos"]["default_execution_space"], "device": info.get("device"),
            "kokkos": info["kokkos"]["version"], "git": info.get("git_revision"), "case": a.case,
            "cells": a.cells, "element": a.element, "partition": a.partition, "reorder": a.reorder}
    keys = ["mode", "ranks", "cells", "seconds", "cells_per_second", "seconds_build", "seconds_reorder",
            "seconds_sort", "seconds_piece", "seconds_device", "owned_max", "ghost_max", "peak_host_mb_max"]
    with open(os.path.join(a.out, "results.csv"), "w", newline="") as f:
        f.write("# " + json.dumps(meta) + "\n")
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
