#!/usr/bin/env python3
"""perf/ab_compare.py OUT: the runs of perf/ab_gpu.sh side by side.

For every configuration (element, cells, ordering, components, operator, variant, flux) it prints
the fraction of the copy limit of each run (A1 B1 A2 B2 ...), the mean of each build and B/A - 1:
the copy limit is measured inside each run, so the fraction is a ratio that two runs can compare.
"""
import csv
import os
import sys
from collections import OrderedDict


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    runs = sorted(d for d in os.listdir(out) if d[:1] in "AB" and os.path.isfile(os.path.join(out, d, "results.csv")))
    if not runs:
        sys.exit(f"ab_compare.py: no A*/results.csv or B*/results.csv under {out}")
    table = OrderedDict()
    for run in runs:
        with open(os.path.join(out, run, "results.csv")) as f:
            for row in csv.DictReader(f):
                key = (row["element"], row["cells"], row["ordering"], row["components"], row["operator"],
                       row["variant"], row.get("flux", ""))
                table.setdefault(key, {})[run] = float(row["fraction_of_copy_limit"])
    print(f"{'configuration':<64} " + " ".join(f"{r:>6}" for r in runs) + "  mean A  mean B   B/A-1")
    for key, vals in table.items():
        a = [v for r, v in vals.items() if r.startswith("A")]
        b = [v for r, v in vals.items() if r.startswith("B")]
        ma = sum(a) / len(a) if a else float("nan")
        mb = sum(b) / len(b) if b else float("nan")
        name = " ".join(k for k in key if k)
        cells = " ".join(f"{100 * vals[r]:6.1f}" if r in vals else "     -" for r in runs)
        print(f"{name:<64} {cells}  {100 * ma:6.1f}  {100 * mb:6.1f}  {100 * (mb / ma - 1):+6.1f}%")


if __name__ == "__main__":
    main()
