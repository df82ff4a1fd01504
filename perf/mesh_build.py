#!/usr/bin/env python3
"""Benchmark (not a test): mesh build and reordering time for a few million cells.

    perf/mesh_build.py [--fvproxy build/host/fvproxy] [--out results.csv] [--scale 1.0]

For each element type (about 2 million cells each at scale 1) and each ordering, runs
`fvproxy mesh --json` and records its "seconds" (build = generate + faces + geometry + checks;
reorder = permutation + renumbering + geometry again) and the locality of the ordering. The CSV's
first line records the machine, backend, Kokkos version and git revision of the run.
"""
import argparse
import csv
import datetime
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fvproxy", default=os.path.join(ROOT, "build", "host", "fvproxy"))
    ap.add_argument("--out", default="-")
    ap.add_argument("--scale", type=float, default=1.0, help="cells per axis multiplier")
    args = ap.parse_args()
    env = dict(os.environ, OMP_PROC_BIND=os.environ.get("OMP_PROC_BIND", "false"))

    def fv(*a):
        return json.loads(subprocess.run([args.fvproxy, *a], check=True, capture_output=True, text=True, env=env).stdout)

    info = fv("info", "--json")
    k = info["kokkos"]
    meta = (f"# fvproxy mesh build benchmark; device: {info['device']}; host CPU: {info.get('host_cpu', '?')}; "
            f"backend: {k['default_execution_space']} (concurrency {k['concurrency']}); Kokkos {k['version']}; "
            f"git {info['git_revision']}; {datetime.date.today().isoformat()}")
    out = sys.stdout if args.out == "-" else open(args.out, "w", newline="")
    out.write(meta + "\n")
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["element", "cells_per_axis", "cells", "faces", "ordering", "build_s", "reorder_s",
                "face_distance_median", "same_block_32"])
    case = os.path.join(ROOT, "inputs", "default.yaml")
    for element, n in (("hex", 128), ("tet", 72), ("prism", 100)):
        n = max(2, int(round(n * args.scale)))
        for order in ("none", "zorder", "hilbert", "rcm", "random"):
            j = fv("mesh", case, "--json", "--set", f"mesh.generate.element={element}",
                   "--set", f"mesh.generate.cells=[{n},{n},{n}]", "--set", "mesh.generate.perturb=0",
                   "--set", "mesh.generate.periodic=[]", "--set", f"mesh.reorder={order}")
            s, loc = j["seconds"], j["locality"]
            w.writerow([element, n, j["cells"], j["faces"], order, f"{s['build']:.3f}", f"{s['reorder']:.3f}",
                        loc["face_distance"]["median"], f"{loc['same_block_32']:.4f}"])
            out.flush()


if __name__ == "__main__":
    main()
