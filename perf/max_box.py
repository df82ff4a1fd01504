#!/usr/bin/env python3
"""Benchmark (not a test): the largest generated box that fits one GPU (or, on host backends, the
memory given), per element type, found by bisection on the cells per axis.

    perf/max_box.py [--fvproxy build/host/fvproxy] [--case inputs/default.yaml] [--elements tet,hex]
                    [--steps 2] [--available BYTES] [--beyond-estimate] [--timeout S] [--out DIR]
                    [--set KEY=VALUE]...

For each element type, on an n x n x n box of the case (its physics and operators):
  1. the memory estimate alone (`fvproxy run` refuses a case that cannot fit before building
     anything: docs/running.md#memory; asked with FVPROXY_AVAILABLE_MEMORY=1, it prints the bytes the
     case needs in well under a second): the largest n whose estimate fits the available memory
     and whose counts fit 32-bit local indices, by bisection;
  2. an actual run of that box (`fvproxy run`, a couple of steps): it must complete; if it does not
     (the estimate was too low), the largest n that runs, by 10 % steps down and a bisection;
  3. with --beyond-estimate, the largest n that actually runs when the estimate's refusal is
     switched off (FVPROXY_AVAILABLE_MEMORY huge), by bisection with actual runs above it, up to
     the first n whose estimate is 1.3 x the available memory (the estimate was measured 0 to 17 %
     above the peak). A run that does not fit then fails in an allocation (CUDA: exit 1). On a host
     backend this is refused unless --rlimit-as caps the address space (the kernel's OOM killer
     must not be the judge).
The available memory: --available, else the GPU's free memory (nvidia-smi), else the host's
MemAvailable. Each completed run records the measured peaks of summary.json's "memory" (device
bytes of Kokkos allocations, host resident set) per cell, its set-up and time-loop seconds.
Output: OUT/max_box.json, OUT/max_box.csv (first line: machine, backend, Kokkos version, git
revision), OUT/probes.log (every probe, its command and outcome).
"""
import argparse
import csv
import datetime
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UNITS = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3, "TiB": 1024 ** 4}


def parse_bytes(text):
    v, unit = text.split()
    return float(v) * UNITS[unit]


def available_memory(args, log):
    if args.available:
        return float(args.available), "--available"
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.free", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, check=True, timeout=60).stdout.split()
        if out:
            return float(out[0]) * 1024 ** 2, "nvidia-smi free memory of GPU 0"
    except (OSError, subprocess.SubprocessError):
        pass
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return float(line.split()[1]) * 1024, "host MemAvailable"
    log("cannot tell the available memory: give --available")
    sys.exit(2)


class Prober:
    def __init__(self, args, available, log):
        self.args, self.available, self.log = args, available, log
        self.env = dict(os.environ, OMP_PROC_BIND=os.environ.get("OMP_PROC_BIND", "false"))
        self.estimates = {}

    def command(self, element, n, out_dir):
        c = [self.args.fvproxy, "run", self.args.case, "--quiet", "--output-dir", out_dir,
             "--set", f"mesh.generate.element={element}", "--set", f"mesh.generate.cells=[{n},{n},{n}]",
             "--set", f"time={{steps: {self.args.steps}}}"]
        for s in self.args.set or []:
            c += ["--set", s]
        return c

    def estimate(self, element, n):
        """(bytes the run needs by the estimate, None) or (None, why it is refused before memory)."""
        key = (element, n)
        if key in self.estimates:
            return self.estimates[key]
        with tempfile.TemporaryDirectory() as d:
            env = dict(self.env, FVPROXY_AVAILABLE_MEMORY="1")
            p = subprocess.run(self.command(element, n, os.path.join(d, "o")), capture_output=True, text=True,
                               env=env, timeout=120)
        text = p.stdout + p.stderr
        m = re.search(r"needs about ([0-9.]+ [KMGT]?i?B) of (device )?memory", text)
        if m:
            r = (parse_bytes(m.group(1)), None)
        elif "32-bit local indices" in text:
            r = (None, "too large for 32-bit local indices")
        else:
            self.log(f"estimate {element} n={n}: unexpected answer (exit {p.returncode}):\n{text[-2000:]}")
            sys.exit(1)
        self.log(f"estimate {element} n={n}: " + (f"{r[0] / 2**30:.3f} GiB" if r[0] is not None else r[1]))
        self.estimates[key] = r
        return r

    def fits_estimate(self, element, n):
        need, _ = self.estimate(element, n)
        return need is not None and need <= self.available

    def run(self, element, n, beyond=False):
        """Runs the box; returns summary facts when it completed, None when it did not fit."""
        d = tempfile.mkdtemp(prefix="max_box_", dir=self.args.scratch)
        env = dict(self.env)
        if beyond:
            env["FVPROXY_AVAILABLE_MEMORY"] = str(10 ** 18)
        elif self.args.available:
            env["FVPROXY_AVAILABLE_MEMORY"] = str(int(float(self.args.available)))
        cmd = self.command(element, n, os.path.join(d, "o"))
        limit = self.args.rlimit_as

        def cap():
            if limit:
                resource.setrlimit(resource.RLIMIT_AS, (int(float(limit)), int(float(limit))))

        t0 = time.time()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=self.args.timeout,
                               preexec_fn=cap)
            rc, text = p.returncode, p.stdout + p.stderr
        except subprocess.TimeoutExpired:
            rc, text = "timeout", ""
        seconds = time.time() - t0
        summary = os.path.join(d, "o", "summary.json")
        ok = rc == 0 and os.path.exists(summary)
        facts = None
        if ok:
            j = json.load(open(summary))
            mem = j["memory"]
            facts = {"element": element, "n": n, "cells": j["cells"], "steps": j["steps"],
                     "estimate_bytes": self.estimate(element, n)[0],
                     "device_space": mem["device_space"],
                     "device_peak_bytes": mem["device_peak_bytes"]["max"],
                     "host_peak_bytes": mem["host_peak_bytes"]["max"],
                     "device_bytes_per_cell": mem["device_bytes_per_cell"]["max"],
                     "host_bytes_per_cell": mem["host_bytes_per_cell"]["max"],
                     "setup_seconds": j["setup_seconds"], "loop_seconds": j["wall_seconds"],
                     "command_seconds": round(seconds, 2), "beyond_estimate": beyond}
        shutil.rmtree(d, ignore_errors=True)
        why = "" if ok else " | " + " ".join(text.strip().splitlines()[-3:])[:400]
        self.log(f"run {element} n={n}{' (estimate off)' if beyond else ''}: "
                 f"{'completed' if ok else 'did not fit (exit %s)' % rc} in {seconds:.1f} s{why}")
        return facts


def largest(lo, hi, ok):
    """The largest n in [lo, hi) with ok(n), given ok(lo) and not ok(hi) (monotone)."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid
    return lo


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fvproxy", default=os.path.join(ROOT, "build", "host", "fvproxy"))
    ap.add_argument("--case", default=os.path.join(ROOT, "inputs", "default.yaml"))
    ap.add_argument("--elements", default="tet,hex")
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--available", help="bytes available (default: the GPU's free memory, else MemAvailable)")
    ap.add_argument("--beyond-estimate", action="store_true",
                    help="also find the largest box that runs with the estimate's refusal switched off")
    ap.add_argument("--rlimit-as", help="cap each run's address space (bytes): host testing of --beyond-estimate")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per run")
    ap.add_argument("--min-n", type=int, default=4)
    ap.add_argument("--max-n", type=int, default=4096)
    ap.add_argument("--scratch", default=None, help="folder for the runs' output (default: the system's temp)")
    ap.add_argument("--out", default="max_box_out")
    ap.add_argument("--set", action="append", help="further --set for every run")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    logf = open(os.path.join(args.out, "probes.log"), "w")

    def log(s):
        line = f"[{datetime.datetime.now().strftime('%H:%M:%S')}] {s}"
        print(line, flush=True)
        logf.write(line + "\n")
        logf.flush()

    env = dict(os.environ, OMP_PROC_BIND=os.environ.get("OMP_PROC_BIND", "false"))
    info = json.loads(subprocess.run([args.fvproxy, "info", "--json"], check=True, capture_output=True, text=True,
                                     env=env).stdout)
    k = info["kokkos"]
    on_host = k["default_execution_space"] in ("OpenMP", "Serial", "Threads")
    if args.beyond_estimate and on_host and not args.rlimit_as:
        log("--beyond-estimate on a host backend needs --rlimit-as (an out-of-memory run must fail in an "
            "allocation, not bring the machine down)")
        sys.exit(2)
    available, source = available_memory(args, log)
    meta = (f"# fvproxy max_box; device: {info['device']}; host CPU: {info.get('host_cpu', '?')}; "
            f"backend: {k['default_execution_space']} (concurrency {k['concurrency']}); Kokkos {k['version']}; "
            f"git {info['git_revision']}; real {info['real']}; available {available / 2**30:.3f} GiB ({source}); "
            f"case {os.path.relpath(args.case, ROOT)}; steps {args.steps}; sets {args.set or []}; "
            f"{datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}")
    log(meta)
    pr = Prober(args, available, log)
    results = []
    for element in args.elements.split(","):
        # 1. The estimate alone: instant probes.
        if not pr.fits_estimate(element, args.min_n):
            log(f"{element}: even n={args.min_n} does not fit the estimate")
            continue
        hi = args.min_n
        while hi < args.max_n and pr.fits_estimate(element, hi):
            hi = min(2 * hi, args.max_n)
        if pr.fits_estimate(element, hi):
            n_est = hi
            log(f"{element}: n={hi} (--max-n) still fits the estimate")
        else:
            n_est = largest(hi // 2 if hi > args.min_n else args.min_n, hi, lambda n: pr.fits_estimate(element, n))
        need, _ = pr.estimate(element, n_est)
        log(f"{element}: estimate: largest n = {n_est} ({need / 2**30:.3f} GiB of {available / 2**30:.3f})")
        # 2. An actual run of it; below it if it does not fit.
        runs = {}

        def runs_ok(n, beyond=False):
            key = (n, beyond)
            if key not in runs:
                runs[key] = pr.run(element, n, beyond)
            return runs[key] is not None

        n_run = n_est
        if not runs_ok(n_est):
            # Down by 10 % steps (the estimate is close) to one that runs, then bisect.
            hi, lo = n_est, max(args.min_n, int(n_est * 0.9))
            while lo > args.min_n and not runs_ok(lo):
                hi, lo = lo, max(args.min_n, int(lo * 0.9))
            if not runs_ok(lo):
                log(f"{element}: even n={lo} does not run")
                continue
            n_run = largest(lo, hi, runs_ok)
        best = dict(runs[(n_run, False)], limit="estimate", estimate_largest_n=n_est)
        results.append(best)
        # 3. Beyond the estimate: actual runs with the refusal off.
        if args.beyond_estimate:
            top = n_est + 1
            while top < args.max_n:
                need_top, why = pr.estimate(element, top)
                if why or need_top > 1.3 * available:
                    break
                top += max(1, top // 32)
            top = min(top, args.max_n)
            if not runs_ok(n_run, True):
                log(f"{element}: n={n_run} does not run with the estimate off")
                continue
            if runs_ok(top, True):
                n_true, note = top, f"the search's upper bound {top} runs: the limit is higher"
            else:
                n_true, note = largest(n_run, top, lambda n: runs_ok(n, True)), f"n={top} does not run"
            results.append(dict(runs[(n_true, True)], limit="actual", estimate_largest_n=n_est))
            log(f"{element}: largest n that runs with the estimate off: {n_true} ({note})")
    doc = {"meta": meta, "available_bytes": available, "available_source": source, "results": results}
    with open(os.path.join(args.out, "max_box.json"), "w") as f:
        json.dump(doc, f, indent=2)
    cols = ["element", "limit", "n", "cells", "estimate_largest_n", "estimate_bytes", "device_space",
            "device_peak_bytes", "host_peak_bytes", "device_bytes_per_cell", "host_bytes_per_cell", "setup_seconds",
            "loop_seconds", "command_seconds"]
    with open(os.path.join(args.out, "max_box.csv"), "w", newline="") as f:
        f.write(meta + "\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(cols)
        for r in results:
            w.writerow([r[c] if not isinstance(r[c], float) else f"{r[c]:.6g}" for c in cols])
    for r in results:
        log(f"{r['element']} ({r['limit']}): n = {r['n']}: {r['cells']} cells; device peak "
            f"{r['device_peak_bytes'] / 2**30:.3f} GiB ({r['device_bytes_per_cell']:.0f} B/cell), host peak "
            f"{r['host_peak_bytes'] / 2**30:.3f} GiB ({r['host_bytes_per_cell']:.0f} B/cell)")


if __name__ == "__main__":
    main()
