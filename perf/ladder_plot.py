#!/usr/bin/env python3
"""Waterfall plots of the ablation ladder (docs/performance.md#the-ablation-ladder-what-each-advice-buys):

    perf/ladder_plot.py OUT     reads OUT/run*/results.csv (perf/ladder_run.sh), writes
                                OUT/ladder-<element>.png and OUT/summary.md

Per element (the spec's largest mesh of it), operator and component count: each bar is one step
of the ladder, spanning the cumulative speedup over naive before and after it (log scale), labelled
with what that step alone buys (t_before / t_after). The steps run on the generator's ordering
(`none`); the last bar, "ordering", is the optimized variant's defaults in Z-order against `none`.
Where the runs have it, the dashed line marks the other order of steps 5 and 6 (`4+6-atomic`:
precomputed geometry with the atomic scatter kept).
Times are the median over runs of each run's median; a step's factor is the median of the runs'
factors (each a ratio within one run), min and max beside it in summary.md.
"""
import csv
import glob
import os
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

OPS = ["muscl", "convection", "diffusion"]
STEPS = ["naive", "1-range", "2-static", "3-registers", "4-branchless", "5-gather", "6-precomputed", "optimized"]
LABELS = ["range", "static\nsizes", "registers", "branch-\nless", "gather", "pre-\ncomputed", "defaults", "ordering"]


def load(out):
    runs = []
    for path in sorted(glob.glob(os.path.join(out, "run*", "results.csv"))):
        with open(path) as f:
            rows = list(csv.DictReader(f))
        for r in rows:
            r["ms"] = float(r["ms"])
            r["size"] = int(r["size"])
            r["components"] = int(r["components"])
        runs.append(rows)
    if not runs:
        sys.exit(f"{out}: no run*/results.csv")
    return runs


def ms(rows, element, size, ordering, n, op, variant):
    for r in rows:
        if (r["element"], r["size"], r["ordering"], r["components"], r["operator"], r["variant"]) == (
            element, size, ordering, n, op, variant):
            return r["ms"]
    return None


def factors(run, element, size, n, op):
    """Per step: t_before / t_after within one run (the 8 steps after naive), and the step times."""
    t = [ms(run, element, size, "none", n, op, v) for v in STEPS]
    tz = ms(run, element, size, "zorder", n, op, "optimized")
    if None in t or tz is None:
        return None, None
    return [t[k - 1] / t[k] for k in range(1, len(t))] + [t[-1] / tz], t + [tz]


def compact(runs, elements, comps):
    """One table per element: the median step factor per operator and N (docs/performance.md)."""
    first = runs[0]
    md = []
    for element in elements:
        size = max(r["size"] for r in first if r["element"] == element)
        cells = next(r["cells"] for r in first if r["element"] == element and r["size"] == size)
        cols = [(op, n) for n in comps for op in OPS]
        md += [f"### {element} {size}^3 ({cells} cells): step factors, median of {len(runs)} runs [min-max]", "",
               "| step | " + " | ".join(f"{op} N={n}" for op, n in cols) + " |",
               "| --- | " + " | ".join("---" for _ in cols) + " |"]
        data = {}
        for op, n in cols:
            per_run = [factors(run, element, size, n, op) for run in runs]
            data[(op, n)] = [p for p in per_run if p[0] is not None]
        names = [lab.replace("\n", " ").replace("- ", "") for lab in LABELS]
        names = [f"{k + 1} {x}" for k, x in enumerate(names[:6])] + ["optimized (defaults vs 6)",
                                                                    "ordering (Z-order vs none)"]
        for k, name in enumerate(names):
            cells_md = []
            for c in cols:
                fs = [p[0][k] for p in data[c]]
                cells_md.append(f"{statistics.median(fs):.2f} [{min(fs):.2f}-{max(fs):.2f}]" if fs else "-")
            md.append(f"| {name} | " + " | ".join(cells_md) + " |")
        tot = []
        for c in cols:
            t = [p[1][0] / p[1][6] for p in data[c]]
            tot.append(f"**{statistics.median(t):.2f}** [{min(t):.2f}-{max(t):.2f}]" if t else "-")
        md.append("| naive / step 6 | " + " | ".join(tot) + " |")
        alt = []
        for op, n in cols:
            a = [ms(run, element, size, "none", n, op, "naive") / ms(run, element, size, "none", n, op, "4+6-atomic")
                 for run in runs if ms(run, element, size, "none", n, op, "4+6-atomic")]
            alt.append(f"{statistics.median(a):.2f} [{min(a):.2f}-{max(a):.2f}]" if a else "-")
        md += ["| naive / 4+6-atomic | " + " | ".join(alt) + " |", ""]
    return md


def main():
    out = sys.argv[1]
    runs = load(out)
    first = runs[0]
    elements = sorted({r["element"] for r in first})
    comps = sorted({r["components"] for r in first})
    md = ["# The ablation ladder: what each porting advice buys", "",
          f"{len(runs)} run(s) of the spec; times in ms (median over runs of each run's median), step = "
          "t_before / t_after within a run (median over runs [min, max]), cumulative = naive / t.", ""]
    for element in elements:
        size = max(r["size"] for r in first if r["element"] == element)
        cells = next(r["cells"] for r in first if r["element"] == element and r["size"] == size)
        fig, axes = plt.subplots(len(comps), len(OPS), figsize=(4.2 * len(OPS), 3.4 * len(comps)), squeeze=False)
        for i, n in enumerate(comps):
            for j, op in enumerate(OPS):
                per_run = [factors(run, element, size, n, op) for run in runs]
                per_run = [p for p in per_run if p[0] is not None]
                ax = axes[i][j]
                if not per_run:
                    ax.set_visible(False)
                    continue
                step = [statistics.median(p[0][k] for p in per_run) for k in range(len(LABELS))]
                lo = [min(p[0][k] for p in per_run) for k in range(len(LABELS))]
                hi = [max(p[0][k] for p in per_run) for k in range(len(LABELS))]
                times = [statistics.median(p[1][k] for p in per_run) for k in range(len(LABELS) + 1)]
                alt = [ms(run, element, size, "none", n, op, "4+6-atomic") for run in runs]
                alt_f = [ms(run, element, size, "none", n, op, "naive") / a for run, a in zip(runs, alt) if a]
                level = 1.0
                levels = [1.0] + ([statistics.median(alt_f)] if alt_f else [])
                for k, f in enumerate(step):
                    top = level * f
                    color = "tab:green" if f >= 1.02 else ("tab:red" if f <= 0.98 else "tab:gray")
                    if k == len(step) - 1:
                        color = "tab:blue" if f >= 1 else "tab:purple"
                    ax.bar(k, top - level, bottom=level, color=color, width=0.7)
                    ax.text(k, max(top, level) * 1.04, f"{f:.2f}x", ha="center", va="bottom", fontsize=7)
                    level = top
                    levels.append(level)
                if alt_f:
                    a = statistics.median(alt_f)
                    ax.plot([3.6, 5.4], [a, a], "k--", lw=1)
                    ax.text(3.6, a * 1.04, f"4+6 atomic {a:.2f}x", fontsize=6.5, ha="left", va="bottom")
                ax.set_yscale("log")
                ax.set_xticks(range(len(LABELS)))
                ax.set_xticklabels(LABELS, fontsize=6.5)
                ax.axhline(1, color="black", lw=0.5)
                ax.set_ylim(min(levels) * 0.8, max(levels) * 1.5)
                ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda y, _: f"{y:g}"))
                ax.yaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(lambda y, _: f"{y:g}"))
                ax.tick_params(axis="y", which="both", labelsize=7)
                ax.set_title(f"{op}, N = {n}: naive {times[0]:.2f} ms", fontsize=9)
                if j == 0:
                    ax.set_ylabel("speedup over naive (cumulative)")
                md += [f"## {element} {size}^3 ({cells} cells), N = {n}, {op}", "",
                       "| step | ms | step factor [min, max] | cumulative |", "| --- | --- | --- | --- |",
                       f"| 0 naive (none) | {times[0]:.3f} | | 1.00 |"]
                names = STEPS[1:] + ["optimized, zorder"]
                for k, name in enumerate(names):
                    md.append(f"| {name} | {times[k + 1]:.3f} | {step[k]:.2f} [{lo[k]:.2f}, {hi[k]:.2f}] | "
                              f"{times[0] / times[k + 1]:.2f} |")
                alt_t = [a for a in alt if a]
                if alt_t:
                    ta = statistics.median(alt_t)
                    md.append(f"| (other order: 4 + precomputed, atomics kept) | {ta:.3f} | {times[4] / ta:.2f} vs "
                              f"4-branchless; gather after it: {ta / times[6]:.2f} | {times[0] / ta:.2f} |")
                rnd = [ms(run, element, size, "random", n, op, "optimized") for run in runs]
                rnd = [x for x in rnd if x is not None]
                if rnd:
                    md.append(f"| (optimized, random order) | {statistics.median(rnd):.3f} | "
                              f"{times[-2] / statistics.median(rnd):.2f} vs none | |")
                md.append("")
        fig.suptitle(f"What each advice buys: {element} {size}^3 ({cells} cells), "
                     f"{len(runs)} run(s), ordering none (last bar: Z-order)", fontsize=10)
        fig.tight_layout()
        path = os.path.join(out, f"ladder-{element}.png")
        fig.savefig(path, dpi=110)
        print(path)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(md) + "\n" + "\n".join(compact(runs, elements, comps)) + "\n")
    print(os.path.join(out, "summary.md"))


if __name__ == "__main__":
    main()
