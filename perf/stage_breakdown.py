#!/usr/bin/env python3
"""perf/stage_breakdown.py OUT: the tables of perf/fixed_cost.sh's results (issue 40 item 1).

Per configuration (case, size, GPUs, transport): the marginal time per step and per Runge-Kutta
stage from the two tool-free runs (OUT/steps.csv), and, from the tool run's files
(OUT/<name>-tool.stage.<rank>, perf/stage_tool.cpp), where each rank's HOST time goes per stage:
kernel launch calls (the stage's own, the halo's pack and unpack), the halo calls' own host work
(events, copies queued, MPI: start) and their wait plus the same kind of work (finish), fences,
copies and the rest. Writes OUT/breakdown.md and prints it."""
import collections
import csv
import glob
import json
import os
import sys

STAGE = "fvproxy::solver::rk_stage"
START = "fvproxy::parallel::halo_start"
FINISH = "fvproxy::parallel::halo_finish"


def marginal(out):
    """name -> (ms per step, stages per step) from the S1 and S2 runs of steps.csv."""
    runs = collections.defaultdict(dict)
    meta = {}
    with open(os.path.join(out, "steps.csv")) as f:
        for r in csv.DictReader(f):
            if r["name"].endswith("-tool") or not r["loop_s"]:
                continue
            runs[r["name"]][int(r["steps"])] = float(r["loop_s"])
            meta[r["name"]] = r
    res = {}
    for name, by in runs.items():
        if len(by) < 2:
            continue
        (s1, t1), (s2, t2) = sorted(by.items())[:2]
        res[name] = ((t2 - t1) / (s2 - s1) * 1e3, meta[name])
    return res


def host(out, name):
    """Per rank: the host's microseconds per stage in each category (the tool's files)."""
    ranks = {}
    for path in sorted(glob.glob(os.path.join(out, name + "-tool.stage.*"))):
        rank = path.rsplit(".", 1)[1]
        rows = list(csv.DictReader(open(path)))
        stages = sum(int(r["calls"]) for r in rows if r["kind"] == "region" and r["name"] == STAGE)
        if not stages:
            continue
        c = collections.Counter()
        n_launch = 0
        for r in rows:
            stack, kind, sec = r["stack"], r["kind"], float(r["seconds"])
            if "time_step" not in stack and r["name"] != "fvproxy::solver::time_step":
                continue  # set-up, output
            if kind == "region" and r["name"].startswith("fvproxy::parallel::halo_") and r["name"] not in (START, FINISH):
                c["sub " + r["name"].rsplit("::", 1)[1]] += sec  # inclusive: its launches and copies too
                continue
            if kind == "region":
                key = {STAGE: "stage", START: "halo_start self", FINISH: "halo_finish self",
                       "fvproxy::solver::time_step": "step self"}.get(r["name"], "other regions self")
                c[key] += float(r["self_seconds"])
                if r["name"] == STAGE:
                    c["stage total"] += sec
                    c["stage"] -= 0
                continue
            where = "halo " if (START in stack or FINISH in stack) else ""
            if STAGE not in stack:
                where = "step "
            c[where + kind] += sec
            if kind == "launch" and STAGE in stack:
                n_launch += int(r["calls"])
        us = {k: v / stages * 1e6 for k, v in c.items()}
        us["launches per stage"] = n_launch / stages
        ranks[rank] = us
    return ranks


def halo_wait(out, name, steps):
    """The tool run's exposed halo wait (summary.json halo.seconds_wait, mean over ranks) per stage, us."""
    for path in glob.glob(os.path.join(out, name + "-tool-*.summary.json")):
        h = json.load(open(path)).get("halo", {})
        w, st = h.get("seconds_wait", {}), h.get("stages", {})
        if isinstance(w, dict) and isinstance(st, dict) and st.get("max"):
            return "%.1f" % (w["mean"] / st["max"] * 1e6)
    return "-"


def main():
    out = sys.argv[1]
    m = marginal(out)
    lines = ["| configuration | cells | GPUs | transport | ms/step | us/stage | host us/stage (rank 0): stage | "
             "launch calls (n) | halo launches | halo_start own | halo_finish own (wait incl.) | of which wait W | stage own | "
             "per-step rest |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name in sorted(m, key=lambda n: (n.split("-")[0], n.split("-")[1], n)):
        ms, r = m[name]
        hr = host(out, name)
        h = hr.get("0") or (next(iter(hr.values())) if hr else {})  # one process without MPI: its pid
        g = lambda k: "%.1f" % h[k] if k in h else "-"
        step_rest = sum(h.get(k, 0) for k in ("step self", "step launch", "step fence", "step copy"))
        lines.append("| %s | %s | %s | %s | %.3f | %.1f | %s | %s (%s) | %s | %s | %s | %s | %s | %.1f |" % (
            name, r["cells"], r["gpus"], r["transport"], ms, ms / 3 * 1e3, g("stage total"), g("launch"),
            "%.1f" % h["launches per stage"] if h else "-", g("halo launch"), g("halo_start self"),
            g("halo_finish self"), halo_wait(out, name, r["steps"]), g("stage"), step_rest))
    # The halo calls' host time by step (perf/stage_tool.cpp's sub-regions of src/parallel/halo.cpp)
    subs = ["halo_timeline", "halo_fork", "halo_copy", "halo_post", "halo_wait", "halo_device_wait", "halo_join"]
    lines += ["", "Halo calls, rank 0, host us per stage: " + ", ".join(subs) + " (inclusive), then what is left "
              "of halo_start / halo_finish (the pack / unpack launch, the staged copies, the rest)", "",
              "| configuration | " + " | ".join(subs) + " | start rest | finish rest |",
              "| --- |" + " --- |" * (len(subs) + 2)]
    for name in sorted(m, key=lambda n: (n.split("-")[0], n.split("-")[1], n)):
        hr = host(out, name)
        h = hr.get("0") or (next(iter(hr.values())) if hr else {})
        if not any(k.startswith("sub ") for k in h):
            continue
        lines.append("| %s | %s | %.1f | %.1f |" % (name, " | ".join("%.1f" % h.get("sub " + k, 0) for k in subs),
                                                  h.get("halo_start self", 0),
                                                  h.get("halo_finish self", 0)))
    text = "\n".join(lines) + "\n"
    open(os.path.join(out, "breakdown.md"), "w").write(text)
    print(text)


if __name__ == "__main__":
    main()
