#!/usr/bin/env python3
"""Benchmark (not a test): Z-order and the other reorderings against a real mesh's own numbering.

    /usr/bin/python3 perf/gmsh_order.py OUT [--size small|large] [--runs 3] [--fvproxy build/host/fvproxy]
                                            [--spec perf/gmsh-order-cpu.yaml] [--first K] [--summarize-only]

1. perf/gmsh_mesh.sh generates the spec's graded sphere-in-box tet meshes with Gmsh (once, into
   build/gmsh/): their numbering (Gmsh's 3D Delaunay; HXT for the *_hxt files) is the native
   order `none`.
2. `fvproxy perf` on the spec (default: perf/gmsh-order-small.yaml for --size small,
   perf/gmsh-order-cpu.yaml for large) --runs times into OUT/runK/, each run with the orderings in
   a rotated sequence so that a load change does not always hit the same ordering; `uptime`
   before and after each run goes to OUT/load.txt. fvproxy perf also reports the locality of every
   ordering (results.json "locality"; OUT/locality.csv).
3. OUT/summary.csv: per component count, operator, variant and ordering, each run's time, and the
   speedup over the native numbering (native ms / ordering ms) of each run (the ratios are taken
   within one run), their median, min and max, beside the ordering's locality; OUT/summary.md the
   same as tables; OUT/summary.png the speedups (when matplotlib is there: /usr/bin/python3).
OUT/machine.txt records the machine, the backend, the Kokkos version and the git revision.
"""
import argparse
import csv
import datetime
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORDERINGS = ["none", "zorder", "hilbert", "rcm", "random"]
OPERATORS = ["muscl", "convection", "diffusion", "step"]


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def spec_for_run(template, run, out):
    """The spec with absolute paths (it is written into OUT) and the orderings rotated by `run`."""
    base = os.path.dirname(os.path.abspath(template))
    text = open(template).read()
    text = re.sub(r"^case: *(\S+)", lambda m: "case: " + os.path.join(base, m.group(1)), text, flags=re.M)
    text = re.sub(r"\{file: *([^}\s]+)\}", lambda m: "{file: " + os.path.normpath(os.path.join(base, m.group(1))) + "}",
                  text)
    m = re.search(r"^orderings: *\[([^\]]*)\]", text, flags=re.M)
    orders = [o.strip() for o in m.group(1).split(",")]
    k = run % len(orders)
    rotated = orders[k:] + orders[:k]
    text = text[:m.start()] + "orderings: [" + ", ".join(rotated) + "]" + text[m.end():]
    path = os.path.join(out, f"spec-run{run + 1}.yaml")
    open(path, "w").write(text)
    return path


def summarize(out, runs):
    rows = []
    for k in range(runs):
        f = os.path.join(out, f"run{k + 1}", "results.csv")
        if os.path.exists(f):
            rows += [dict(r, run=k + 1) for r in csv.DictReader(open(f))]
    loc_rows = []
    for k in range(runs):
        f = os.path.join(out, f"run{k + 1}", "results.json")
        if os.path.exists(f):
            for L in json.load(open(f)).get("locality", []):
                loc_rows.append({"mesh": L["element"], "cells": L["cells"], "ordering": L["ordering"],
                                 "mean": L["locality"]["face_distance"]["mean"],
                                 "median": L["locality"]["face_distance"]["median"],
                                 "bandwidth": L["locality"]["bandwidth"],
                                 "same_block_32": L["locality"]["same_block_32"],
                                 "same_block_128": L["locality"]["same_block_128"]})
            break  # the orderings are deterministic: every run has the same
    if loc_rows:
        with open(os.path.join(out, "locality.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(loc_rows[0].keys()), lineterminator="\n")
            w.writeheader()
            w.writerows(loc_rows)
    loc = {(L["mesh"], str(L["cells"]), L["ordering"]): L for L in loc_rows}
    ms = {}
    for r in rows:
        ms[(r["element"], r["cells"], int(r["components"]), r["operator"], r["variant"], r["ordering"], r["run"])] = \
            float(r["ms"])
    meshes = sorted({(r["element"], r["cells"]) for r in rows}, key=lambda m: int(m[1]))
    comps = sorted({int(r["components"]) for r in rows})
    variants = [v for v in ["defaults", "naive"] if any(r["variant"] == v for r in rows)]
    done_runs = sorted({r["run"] for r in rows})
    summary = []
    for (el, cells) in meshes:
        for n in comps:
            for v in variants:
                for op in OPERATORS:
                    for o in ORDERINGS:
                        times, ratios = [], []
                        for k in done_runs:
                            t = ms.get((el, cells, n, op, v, o, k))
                            t0 = ms.get((el, cells, n, op, v, "none", k))
                            times.append(t)
                            if t and t0:
                                ratios.append(t0 / t)
                        if not any(times):
                            continue
                        L = loc.get((el, cells, o), {})
                        summary.append({
                            "mesh": el, "cells": cells, "components": n, "variant": v, "operator": op, "ordering": o,
                            **{f"ms_run{k}": (f"{t:.4f}" if t else "") for k, t in zip(done_runs, times)},
                            "ms_median": f"{statistics.median([t for t in times if t]):.4f}",
                            "speedup_over_native_median": f"{statistics.median(ratios):.3f}" if ratios else "",
                            "speedup_min": f"{min(ratios):.3f}" if ratios else "",
                            "speedup_max": f"{max(ratios):.3f}" if ratios else "",
                            "runs": len(ratios),
                            "face_distance_mean": L.get("mean", ""), "face_distance_median": L.get("median", ""),
                            "bandwidth": L.get("bandwidth", ""), "same_block_32": L.get("same_block_32", ""),
                            "same_block_128": L.get("same_block_128", "")})
    if not summary:
        print("gmsh_order: no results yet", file=sys.stderr)
        return
    with open(os.path.join(out, "summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(summary[0].keys()), lineterminator="\n")
        w.writeheader()
        w.writerows(summary)
    md = []
    for (el, cells) in meshes:
        md.append(f"### {el}, {int(cells):,} cells: speedup over the native (Gmsh) numbering, median of "
                  f"{len(done_runs)} runs (min-max)\n")
        for v in variants:
            md.append(f"| {v} | N | " + " | ".join(ORDERINGS[1:]) + " | native ms |")
            md.append("| --- | --- |" + " --- |" * len(ORDERINGS))
            for op in OPERATORS:
                for n in comps:
                    cells_ = []
                    base = [s for s in summary if (s["mesh"], s["cells"], s["components"], s["variant"], s["operator"],
                                                   s["ordering"]) == (el, cells, n, v, op, "none")]
                    for o in ORDERINGS[1:]:
                        s = [s for s in summary if (s["mesh"], s["cells"], s["components"], s["variant"],
                                                    s["operator"], s["ordering"]) == (el, cells, n, v, op, o)]
                        cells_.append(f"{s[0]['speedup_over_native_median']} ({s[0]['speedup_min']}-"
                                      f"{s[0]['speedup_max']})" if s and s[0]["speedup_over_native_median"] else "")
                    md.append(f"| {op} | {n} | " + " | ".join(cells_) + f" | {base[0]['ms_median'] if base else ''} |")
            md.append("")
    md.append("### Locality of each ordering (interior faces, |owner - neighbour| in the numbering)\n")
    md.append("| mesh | ordering | mean | median | bandwidth | same block of 32 | same block of 128 |")
    md.append("| --- | --- | --- | --- | --- | --- | --- |")
    for L in loc_rows:
        md.append(f"| {L['mesh']} {int(L['cells']):,} | {L['ordering']} | {float(L['mean']):.0f} | "
                  f"{float(L['median']):.0f} | {L['bandwidth']} | {float(L['same_block_32']):.3f} | "
                  f"{float(L['same_block_128']):.3f} |")
    open(os.path.join(out, "summary.md"), "w").write("\n".join(md) + "\n")
    print("\n".join(md))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("gmsh_order: no matplotlib (run with /usr/bin/python3 for the plot)", file=sys.stderr)
        return
    el, cells = meshes[-1]
    fig, axes = plt.subplots(1, len(comps) * len(variants), figsize=(max(7, 5 * len(comps) * len(variants)), 4.5),
                             squeeze=False, sharey=True)
    i = 0
    for v in variants:
        for n in comps:
            ax = axes[0][i]
            i += 1
            width = 0.8 / (len(ORDERINGS) - 1)
            for j, o in enumerate(ORDERINGS[1:]):
                ys, lo, hi = [], [], []
                for op in OPERATORS:
                    s = [s for s in summary if (s["mesh"], s["cells"], s["components"], s["variant"], s["operator"],
                                                s["ordering"]) == (el, cells, n, v, op, o)]
                    y = float(s[0]["speedup_over_native_median"]) if s and s[0]["speedup_over_native_median"] else 0
                    ys.append(y)
                    lo.append(y - float(s[0]["speedup_min"]) if y else 0)
                    hi.append(float(s[0]["speedup_max"]) - y if y else 0)
                ax.bar([x + j * width for x in range(len(OPERATORS))], ys, width, yerr=[lo, hi], label=o, capsize=2)
            ax.axhline(1.0, color="k", lw=0.8)
            ax.set_xticks([x + width * (len(ORDERINGS) - 2) / 2 for x in range(len(OPERATORS))], OPERATORS)
            ax.set_title(f"{v}, N = {n}")
            if i == 1:
                ax.set_ylabel("speedup over Gmsh's numbering")
    axes[0][0].legend(fontsize=8)
    fig.suptitle(f"{el}, {int(cells):,} tets, CPU\ntime in Gmsh's numbering / time in the ordering "
                 f"(median of {len(done_runs)} runs, bars: min-max)", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "summary.png"), dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--size", default="large", choices=["small", "large"])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--first", type=int, default=1, help="number of the first run (to add runs to OUT later)")
    ap.add_argument("--fvproxy", default=os.path.join(ROOT, "build", "host", "fvproxy"))
    ap.add_argument("--spec", default="")
    ap.add_argument("--summarize-only", action="store_true", help="only rebuild summary.* from OUT's runs")
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    if args.summarize_only:
        summarize(out, args.runs)
        return
    spec = args.spec or os.path.join(ROOT, "perf", "gmsh-order-small.yaml" if args.size == "small"
                                     else "gmsh-order-cpu.yaml")
    env = dict(os.environ, OMP_PROC_BIND=os.environ.get("OMP_PROC_BIND", "false"))
    exe = os.path.abspath(args.fvproxy)
    # The spec's meshes, generated when missing: build/gmsh/sphere_in_box_graded_SIZE[_hxt].msh
    names = re.findall(r"sphere_in_box_graded_(\w+)\.msh", open(spec).read())
    for name in names:
        size, hxt = (name[:-4], ["--hxt"]) if name.endswith("_hxt") else (name, [])
        subprocess.run(["bash", os.path.join(ROOT, "perf", "gmsh_mesh.sh"), *hxt, size], check=True)
    with open(os.path.join(out, "machine.txt"), "a") as f:  # one block per invocation
        f.write(f"date: {datetime.datetime.utcnow().strftime('%Y-%m-%dT%H:%M:%SZ')}\n")
        f.write(f"host: {os.uname().nodename}\n")
        cpu = [l for l in open("/proc/cpuinfo") if l.startswith("model name")]
        f.write(f"{cpu[0].strip() if cpu else 'model name: ?'}\ncores: {os.cpu_count()}\n")
        f.write(f"OMP_NUM_THREADS={env.get('OMP_NUM_THREADS', '')} OMP_PROC_BIND={env['OMP_PROC_BIND']}\n")
        f.write(f"spec: {os.path.relpath(spec, ROOT)}\n--- fvproxy info\n")
        f.write(sh([exe, "info"], env=env))
        for name in names:
            gm = os.path.join(ROOT, "build", "gmsh", f"{name}.txt")
            if os.path.exists(gm):
                f.write(f"--- mesh {name} ({os.path.relpath(gm, ROOT)})\n" + open(gm).read())
    load = open(os.path.join(out, "load.txt"), "a")
    for run in range(args.first - 1, args.first - 1 + args.runs):
        path = spec_for_run(spec, run, out)
        up = sh(["uptime"]).strip()
        load.write(f"run {run + 1} start: {up}\n")
        load.flush()
        print(f"gmsh_order: run {run + 1} ({up})", flush=True)
        d = os.path.join(out, f"run{run + 1}")
        with open(os.path.join(out, f"run{run + 1}.log"), "w") as log:
            subprocess.run([exe, "perf", path, "--output-dir", d], check=True, stderr=log, env=env)
        up = sh(["uptime"]).strip()
        load.write(f"run {run + 1} end:   {up}\n")
        load.flush()
        summarize(out, run + 1)


if __name__ == "__main__":
    main()
