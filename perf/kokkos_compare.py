#!/usr/bin/env python3
"""perf/kokkos_compare.py DIR_A DIR_B [--md OUT.md]: two `fvproxy perf` results (the same spec, e.g.
perf/kokkos-gpu.yaml on two Kokkos builds; docs/performance.md#kokkos-3401-vs-4601) side by side:
per element, component count, operator and variant the median ms of each, A/B (> 1: B faster) and
each one's fraction of its own run's copy limit. The two runs' copy limits and builds are printed first."""
import argparse
import json
import os


def load(d):
    j = json.load(open(os.path.join(d, "results.json")))
    return j, {(r["element"], r["components"], r["operator"], r["variant"]): r for r in j["results"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--md")
    args = ap.parse_args()
    (ja, a), (jb, b) = load(args.a), load(args.b)
    lines = []
    for name, j in ((args.a, ja), (args.b, jb)):
        build = j.get("build", {})
        lines.append(f"- {name}: Kokkos {build.get('kokkos', {}).get('version', '?')}, git {build.get('git_revision', '?')}, "
                     f"copy limit {j['copy_limit_gb_per_s']:.1f} GB/s")
    lines += ["", "| element | N | operator | variant | A ms | B ms | A/B | A % copy | B % copy |",
              "|---|---|---|---|---|---|---|---|---|"]
    for k, ra in a.items():
        rb = b.get(k)
        if rb is None:
            continue
        lines.append(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {ra['ms']:.3f} | {rb['ms']:.3f} | "
                     f"{ra['ms'] / rb['ms']:.3f} | {100 * ra['fraction_of_copy_limit']:.1f} | "
                     f"{100 * rb['fraction_of_copy_limit']:.1f} |")
    text = "\n".join(lines) + "\n"
    if args.md:
        open(args.md, "w").write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
