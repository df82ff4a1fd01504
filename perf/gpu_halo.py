#!/usr/bin/env python3
"""Tabulates perf/gpu_halo.sh's steps.csv: marginal time per step and two-GPU efficiency.

Usage: perf/gpu_halo.py OUT/steps.csv [MORE/steps.csv...] [--markdown OUT/README.md]

Per configuration (case, GPUs, transport asked) the two runs of different step counts give the
marginal time per step, (loop(long) - loop(short)) / (long - short): set-up and first-step costs
cancel. Efficiency: strong = t(1 GPU) / (N t(N GPUs)) on the same mesh; weak = t(1 GPU, 8.45M) /
t(2 GPUs, 16.9M) (the `weak` part's one-GPU run against the `scalar` part's two-GPU run). The
four-GPU parts: `weak_scalar` (8.45M tets per GPU) and `weak_tg` (192^3 hexes per GPU) against the
one-GPU runs at that size (weak), `weak_scalar` on every GPU also against `large_scalar` on one GPU
(strong, 33.8M tets), `large_tg` (256^3) against its one-GPU run. Several files (runs of one machine
in several calls): a configuration's two runs come from one file, the last file that has it.
"""
import csv
import sys
from collections import defaultdict


def load(path):
    runs = defaultdict(dict)  # (case, gpus, asked) -> {steps: row}
    for r in csv.DictReader(open(path)):
        if not r["loop_s"]:
            continue
        case = r["case"].rsplit("_", 1)[0]  # name without the step count
        family, asked = case.split("_")[0], r["transport_asked"]
        words = case.split("_")
        if len(words) > 1 and words[1] in ("scalar", "tg") and family != "layers":  # weak_tg_4, bind0a_scalar_4
            family = words[0] + "-" + words[1]
        if family == "layers":  # the `layers` part: layers_<tg|scalar>_<gpus>[_L<count>]
            words = case.split("_")
            family = "layers-" + words[1]
            if words[-1].startswith("L"):
                asked += ", layers " + words[-1][1:]
        runs[(family, int(r["gpus"]), asked)][int(r["steps"])] = r
    return runs


def marginal(by_steps):
    if len(by_steps) < 2:
        return None
    (s0, a), (s1, b) = sorted(by_steps.items())[:2]
    return (float(b["loop_s"]) - float(a["loop_s"])) / (s1 - s0)


def main(argv):
    md = argv[argv.index("--markdown") + 1] if "--markdown" in argv else None
    paths = [a for i, a in enumerate(argv[1:], 1) if a != "--markdown" and argv[i - 1] != "--markdown"]
    runs = {}
    for path in paths:
        runs.update(load(path))
    ms = {k: marginal(v) for k, v in runs.items()}
    lines = ["| case | cells | GPUs | transport (asked → ran) | ms / step (marginal) | efficiency | GPU overlap | exposed wait, max rank (s, long run) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for (family, gpus, asked), t in sorted(ms.items()):
        if t is None:
            continue
        long_run = max(runs[(family, gpus, asked)].items())[1]
        eff = ""
        if gpus >= 2:
            one = ms.get((family, 1, "auto"))
            if one:
                eff = "strong %.1f %%" % (100 * one / (gpus * t))
            if gpus == 2 and family == "scalar" and ms.get(("weak", 1, "auto")):
                eff += "; weak %.1f %%" % (100 * ms[("weak", 1, "auto")] / t)
            if gpus == 2 and family == "scalar" and ms.get(("weak-scalar", 1, "auto")):
                eff += "; weak %.1f %%" % (100 * ms[("weak-scalar", 1, "auto")] / t)
            ref = {"weak-scalar": "weak-scalar", "weak-tg": "tg"}.get(family)
            if ref and ms.get((ref, 1, "auto")):
                eff = "weak %.1f %%" % (100 * ms[(ref, 1, "auto")] / t)
            if family == "weak-scalar" and ms.get(("large-scalar", 1, "auto")):
                eff += "; strong (33.8M) %.1f %%" % (100 * ms[("large-scalar", 1, "auto")] / (gpus * t))
        label = {"tg": "Taylor-Green (navier-stokes)", "scalar": "scalar, 16.9M tets", "weak": "scalar, 8.45M tets",
                 "layers-tg": "Taylor-Green, ghost layers A/B", "layers-scalar": "scalar 16.9M, ghost layers A/B",
                 "stepseparate": "scalar 16.9M, step: separate", "stepfused": "scalar 16.9M, step: fused",
                 "weak-scalar": "scalar, 8.45M tets per GPU", "weak-tg": "Taylor-Green, 192^3 hexes per GPU",
                 "large-scalar": "scalar, 33.8M tets", "large-tg": "Taylor-Green 256^3",
                 "mid-scalar": "scalar, 1.08M tets", "mid-tg": "Taylor-Green 96^3 (0.88M hexes)",
                 "bind0a-tg": "Taylor-Green 192^3, unbound (a)", "bind1a-tg": "Taylor-Green 192^3, gpu-bind.sh (a)",
                 "bind0b-tg": "Taylor-Green 192^3, unbound (b)", "bind1b-tg": "Taylor-Green 192^3, gpu-bind.sh (b)",
                 "bind0a-scalar": "scalar 1.08M, unbound (a)", "bind1a-scalar": "scalar 1.08M, gpu-bind.sh (a)",
                 "bind0b-scalar": "scalar 1.08M, unbound (b)", "bind1b-scalar": "scalar 1.08M, gpu-bind.sh (b)"}
        lines.append("| %s | %s | %d | %s → %s | %.3f | %s | %s | %s |" % (
            label.get(family, family), long_run["cells"], gpus, asked, long_run["transport"], 1e3 * t, eff,
            "%.2f" % float(long_run["gpu_overlap"]) if long_run["gpu_overlap"] not in ("", "None") else "-",
            "%.3f" % float(long_run["wait_s_max"]) if long_run["wait_s_max"] else "-"))
    text = "\n".join(lines)
    print(text)
    if md:
        with open(md, "a") as f:
            f.write("\n" + text + "\n")


if __name__ == "__main__":
    main(sys.argv)
