#!/usr/bin/env python3
"""Plots of a perf/harness.sh result folder (run on the development machine, /usr/bin/python3):

    perf/plot.py OUT        reads OUT/<double|float>/results.csv, writes OUT/*.png and OUT/summary.md

speedup.png   optimized (best option) over naive per operator, per element and N, largest mesh,
              Z-order, double
fraction.png  effective bandwidth as a fraction of the copy limit per variant and operator,
              largest tet mesh, Z-order, N = 1, double (the targets: 80 % per operator, 70 % step)
ordering.png  time of the optimized step (best option) per ordering, per element and N, largest
              meshes, double and float
summary.md    the tables behind the plots
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

OPS = ["muscl", "convection", "diffusion", "step"]


def load(out):
    rows = []
    for real in ("double", "float"):
        path = os.path.join(out, real, "results.csv")
        if os.path.exists(path):
            with open(path) as f:
                for r in csv.DictReader(f):
                    for k in ("ms", "bytes", "flops", "gb_per_s", "fraction_of_copy_limit", "speedup_over_naive"):
                        r[k] = float(r[k])
                    for k in ("size", "cells", "components"):
                        r[k] = int(r[k])
                    rows.append(r)
    if not rows:
        sys.exit(f"{out}: no results.csv under double/ or float/")
    return rows


def pick(rows, **kw):
    return [r for r in rows if all(r[k] == v for k, v in kw.items())]


def largest(rows, element):
    sizes = [r["size"] for r in rows if r["element"] == element]
    return max(sizes) if sizes else None


def best_optimized(rows):
    opt = [r for r in rows if r["variant"] != "naive"]
    return min(opt, key=lambda r: r["ms"]) if opt else None


def main():
    out = sys.argv[1]
    rows = load(out)
    elements = sorted({r["element"] for r in rows})
    comps = sorted({r["components"] for r in rows})
    md = ["# Benchmark summary (perf/plot.py)", ""]

    # speedup of the best optimized option over naive
    fig, axes = plt.subplots(1, len(elements), figsize=(6 * len(elements), 4), squeeze=False)
    md += ["## Optimized (best option) over naive: largest mesh, Z-order, double", "",
           "| element | N | operator | naive ms | best optimized | ms | speedup |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for ax, e in zip(axes[0], elements):
        n_big = largest(rows, e)
        width = 0.8 / len(comps)
        for j, n in enumerate(comps):
            ys = []
            for op in OPS:
                sel = pick(rows, real="double", element=e, size=n_big, ordering="zorder", components=n, operator=op)
                naive = next((r for r in sel if r["variant"] == "naive"), None)
                best = best_optimized(sel)
                s = naive["ms"] / best["ms"] if naive and best else 0
                ys.append(s)
                if naive and best:
                    md.append(f"| {e} | {n} | {op} | {naive['ms']:.3f} | {best['variant']} | {best['ms']:.3f} | {s:.2f}x |")
            ax.bar([i + j * width for i in range(len(OPS))], ys, width, label=f"N = {n}")
        ax.axhline(1, color="k", lw=0.8)
        ax.set_xticks([i + width * (len(comps) - 1) / 2 for i in range(len(OPS))], OPS)
        ax.set_ylabel("speedup over naive")
        ax.set_title(f"{e}, {pick(rows, element=e, size=n_big)[0]['cells']:,} cells, Z-order, double")
        ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "speedup.png"), dpi=120)

    # fraction of the copy limit per variant
    e = "tet" if "tet" in elements else elements[0]
    n_big = largest(rows, e)
    variants = []
    for r in rows:
        if r["variant"] not in variants:
            variants.append(r["variant"])
    fig, ax = plt.subplots(figsize=(9, 4))
    width = 0.8 / len(variants)
    md += ["", f"## Fraction of the copy limit: {e}, largest mesh, Z-order, N = 1, double", "",
           "| operator | " + " | ".join(variants) + " |", "| --- |" + " --- |" * len(variants)]
    table = {op: [] for op in OPS}
    for j, v in enumerate(variants):
        ys = []
        for op in OPS:
            sel = pick(rows, real="double", element=e, size=n_big, ordering="zorder", components=1, operator=op, variant=v)
            ys.append(100 * sel[0]["fraction_of_copy_limit"] if sel else 0)
            table[op].append(f"{ys[-1]:.0f} %")
        ax.bar([i + j * width for i in range(len(OPS))], ys, width, label=v)
    for op in OPS:
        md.append(f"| {op} | " + " | ".join(table[op]) + " |")
    ax.axhline(80, color="g", ls="--", lw=0.8, label="target, operators (80 %)")
    ax.axhline(70, color="b", ls=":", lw=0.8, label="target, step (70 %)")
    ax.set_xticks([i + width * (len(variants) - 1) / 2 for i in range(len(OPS))], OPS)
    ax.set_ylabel("% of the measured copy bandwidth")
    ax.set_title(f"{e}, {pick(rows, element=e, size=n_big)[0]['cells']:,} cells, Z-order, N = 1, double")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fraction.png"), dpi=120)

    # effect of the ordering on the optimized step
    orderings = [o for o in ("random", "none", "zorder") if any(r["ordering"] == o for r in rows)]
    reals = sorted({r["real"] for r in rows})
    fig, ax = plt.subplots(figsize=(9, 4))
    labels, groups = [], []
    md += ["", "## Optimized step (best option) per ordering, largest meshes", "",
           "| real | element | N | " + " | ".join(f"{o} ms" for o in orderings) + " | zorder over random |",
           "| --- | --- | --- |" + " --- |" * (len(orderings) + 1)]
    for real in reals:
        for e in elements:
            for n in comps:
                ms = []
                for o in orderings:
                    best = best_optimized(pick(rows, real=real, element=e, size=largest(rows, e), ordering=o,
                                               components=n, operator="step"))
                    ms.append(best["ms"] if best else 0)
                labels.append(f"{real}\n{e} N={n}")
                groups.append(ms)
                ratio = ms[0] / ms[-1] if ms[-1] else 0
                md.append(f"| {real} | {e} | {n} | " + " | ".join(f"{x:.3f}" for x in ms) + f" | {ratio:.2f}x |")
    width = 0.8 / len(orderings)
    for j, o in enumerate(orderings):
        ax.bar([i + j * width for i in range(len(groups))], [g[j] for g in groups], width, label=o)
    ax.set_xticks([i + width * (len(orderings) - 1) / 2 for i in range(len(groups))], labels, fontsize=7)
    ax.set_ylabel("ms per step (optimized, best option)")
    ax.set_yscale("log")
    ax.set_title("effect of the cell ordering on a full SSP-RK3 step, largest meshes")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "ordering.png"), dpi=120)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print(f"wrote speedup.png, fraction.png, ordering.png and summary.md in {out}")


if __name__ == "__main__":
    main()
