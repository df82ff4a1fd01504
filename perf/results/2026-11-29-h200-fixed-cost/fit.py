#!/usr/bin/env python3
"""The fixed cost of a step on one GPU from gpu.sh's runs: marginal ms per step (the 600-step run's
busy time -- the time loop without output -- minus the 200-step run's, over 400 steps) per size, its least-squares line
t = a + b * cells over the sizes (a: the fixed cost per step, b: per cell), the size where the
fixed part is 20 % of the step (n0.8 on one GPU: t(n) = a / 0.2), and from the --profile runs the
kernel launches per stage and the sum of the kernels' mean times per stage.

  python3 fit.py OUT [--csv steps.csv]
"""
import glob
import json
import os
import sys


def loop(path):
    """(the time loop's busy seconds: without output, summary.json's phases.busy, and the cells)."""
    with open(os.path.join(path, "summary.json")) as f:
        j = json.load(f)
    return j["phases"]["busy"]["max"], j["cells"]


def kernels(path):
    """(kernel launches per stage, the fenced kernels' seconds per stage in ms) of a --profile run:
    every fvproxy:: kernel of summary.json's timers (20 steps x 3 stages)."""
    with open(os.path.join(path, "summary.json")) as f:
        t = json.load(f)["timers"]
    calls = sum(v["calls"] for k, v in t.items() if k.startswith("fvproxy::"))
    sec = sum(v["seconds"] for k, v in t.items() if k.startswith("fvproxy::"))
    return calls / 60.0, 1e3 * sec / 60.0


def main():
    out = sys.argv[1]
    rows = []
    for model in ("ns", "scalar"):
        pts = []
        for d in sorted(glob.glob(os.path.join(out, f"{model}-*-200")), key=lambda p: int(p.split("-")[-2])):
            n = d.split("-")[-2]
            t200, cells = loop(d)
            t600, _ = loop(os.path.join(out, f"{model}-{n}-600"))
            ms = 1e3 * (t600 - t200) / 400
            launches, kms = kernels(os.path.join(out, f"{model}-{n}-profile"))
            pts.append((cells, ms))
            rows.append((model, n, cells, ms, launches, kms))
        k = len(pts)
        sx = sum(c for c, _ in pts); sy = sum(t for _, t in pts)
        sxx = sum(c * c for c, _ in pts); sxy = sum(c * t for c, t in pts)
        b = (k * sxy - sx * sy) / (k * sxx - sx * sx)
        a = (sy - b * sx) / k
        # the fit is dominated by the largest sizes: the fixed cost also from the two smallest
        small = pts[0][1] - pts[0][0] * b
        print(f"{model}: t = {a:.4f} ms + {b * 1e6:.2f} ns x cells per step (fixed cost from the smallest size: "
              f"{small:.4f} ms); fixed part 20 % at {4 * a / b / 1e6:.2f}M cells")
    print("model size cells ms_per_step launches_per_stage kernel_ms_per_stage(fenced)")
    for r in rows:
        print("%s %s %d %.4f %.1f %.4f" % r)


if __name__ == "__main__":
    main()
