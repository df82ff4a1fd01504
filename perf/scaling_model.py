#!/usr/bin/python3
"""Scaling model of the decomposed time step (issue 13, "Modelled"): a model, not a measurement.

Two sub-commands:

    # 1. partition sweep (runs `fvproxy mesh --partition N --json --compare-partitions` on periodic
    #    jittered tet boxes of the default case at about fixed cells per part, and on the meshes of
    #    the measured runs); minutes on the 2-core VM:
    /usr/bin/python3 perf/scaling_model.py partitions --out perf/results/2026-11-24-scaling-model
    # 2. the model: fits, validation against every measured run, predictions, plots, markdown:
    /usr/bin/python3 perf/scaling_model.py model --out perf/results/2026-11-24-scaling-model
    # 3. the model of today's halo (perf/scaling_today.py), from the 2026-11-29 runs on 2 and 4 H200:
    /usr/bin/python3 perf/scaling_model.py today --out perf/results/2026-11-29-scaling-today [--check]

`model` reads OUT/partitions.csv (from `partitions`) and the measured `perf/mpi_halo.py` results
listed in MEASURED below (results.csv of each folder), and writes OUT/model.md (every table of
docs/parallel.md#scaling-model), OUT/model.json (parameters, fits, validation, predictions) and
the plots OUT/*.png. Plots need matplotlib (`apt-get install python3-matplotlib`); without it the
tables are still written.

The model of one time step on P ranks (one GPU each), on the slowest rank (docs/parallel.md#scaling-model):

    T(P)       = L_P + c * n_max + S * sum_e (t_stage,e + t_net,e - t_hidden,e) + t_coll
    n_max      = imbalance * N / P                      (owned cells of the largest part)
    L_P        = L (P = 1), k * L (P > 1)               (per-step overhead; k = launches per step,
                                                          decomposed / one rank: `kernels`)
    B_e        = ghosts_max * v_e * 8 bytes             (v = 1: the state; 4: gradients + limiter)
    t_stage,e  = 2 * (alpha_pcie + B_e / beta_pcie)     (staged through host memory: MPI not
                                                          CUDA-aware; 0 with CUDA-aware MPI)
    t_net,e    = max(m_on alpha_on + (1-f) B_e / beta_on, m_off alpha_off + f B_e / beta_off)
    t_hidden,e = min(h * t_net,e, w_e * (c n_max / S) * (1 - frontier / n_max))
    t_coll     = (1 + 3/16) * ceil(log2 P) * alpha_coll (the per-step flag reduction, and every 16
                                                          steps the failure check's three)

c and L are fitted on the one-rank H100 runs (L + c n); halo figures come from the partition report
(docs/parallel.md#partitioning): ghosts (max, mean), neighbours (max), imbalance, extrapolated with
ghosts = a * n^(2/3), neighbours = min(P - 1, m_max), imbalance = constant, fitted at about fixed
cells per part n; f = G^(-1/3) of a rank's halo leaves its node of G GPUs (node-aware placement).
The measured points of the validation use their own partitions (the `measured` rows) and, for
ranks sharing one GPU (time-sliced), shared_gpu_time; for CPU ranks, cpu_time.
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


# ---------------------------------------------------------------------------------------------
# 1. The partition sweep
# ---------------------------------------------------------------------------------------------

# (target cells per part, part counts): meshes up to ~4.2M cells on the 2-core VM.
SWEEP = [
    (1000, [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096]),
    (4000, [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]),
    (16000, [2, 4, 8, 16, 32, 64, 128, 256]),
    (64000, [2, 4, 8, 16, 32, 64]),
    (256000, [2, 4, 8, 16]),
]
# The meshes of the measured runs (nx, ny, nz of the default case's tet box) and their part counts.
MEASURED_MESHES = [((36, 36, 40), [2, 4, 8, 16]), ((6, 6, 6), [2, 4]), ((12, 12, 12), [2, 4]), ((24, 24, 24), [2, 4]),
                   ((48, 48, 48), [2, 4]), ((72, 72, 72), [2, 4]), ((112, 112, 112), [2, 4])]

FIELDS = ["set", "nx", "ny", "nz", "cells", "parts", "method", "cells_per_part", "imbalance", "edge_cut",
          "ghost_fraction", "ghosts_mean", "ghosts_min", "ghosts_max", "neighbours_mean", "neighbours_max",
          "values_per_ghost", "halo_values_max", "halo_values_mean", "empty_parts", "blocks", "seconds"]


def partition_rows(fv, case, dims, parts, tag, timeout):
    """Every method's report for one mesh and part count (one `fvproxy mesh` call), as CSV rows."""
    cmd = [fv, "mesh", case, "--set", "mesh.generate.cells=[%d,%d,%d]" % dims, "--partition", str(parts),
           "--json", "--compare-partitions"]
    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false")
    t0 = time.time()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        print("  timeout after %d s: %s" % (timeout, " ".join(cmd)), flush=True)
        return []
    if p.returncode != 0:
        print("  failed (exit %d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr[-2000:]), flush=True)
        return []
    j = json.loads(p.stdout)
    sec = time.time() - t0
    rows = []
    for q in j["partitions"]:
        if "error" in q:  # a method that cannot make this many parts (blocks): n/a
            print("  %s: n/a (%s)" % (q["method"], q["error"]), flush=True)
            continue
        n = j["cells"]
        rows.append({
            "set": tag, "nx": dims[0], "ny": dims[1], "nz": dims[2], "cells": n, "parts": parts,
            "method": q["method"], "cells_per_part": n / parts, "imbalance": q["imbalance"],
            "edge_cut": q["edge_cut"], "ghost_fraction": q["ghost_fraction"],
            "ghosts_mean": q["ghost_fraction"] * n / parts, "ghosts_min": q["ghosts"]["min"],
            "ghosts_max": q["ghosts"]["max"], "neighbours_mean": q["neighbours"]["mean"],
            "neighbours_max": q["neighbours"]["max"], "values_per_ghost": q["values_per_ghost"],
            "halo_values_max": q["halo_values_per_stage"]["max"],
            "halo_values_mean": q["halo_values_per_stage"]["mean"], "empty_parts": q["empty_parts"],
            "blocks": "x".join(str(b) for b in q.get("blocks", [])), "seconds": round(sec, 2)})
    return rows


def cmd_partitions(args):
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "partitions.csv")
    done = set()
    rows = []
    if os.path.exists(path) and not args.fresh:  # resume: keep what a cut-short sweep measured
        with open(path) as f:
            rows = list(csv.DictReader(f))
        done = {(r["set"], int(r["nx"]), int(r["ny"]), int(r["nz"]), int(r["parts"])) for r in rows}
    jobs = []
    for dims, parts_list in MEASURED_MESHES:
        for parts in parts_list:
            jobs.append(("measured", dims, parts))
    for target, parts_list in SWEEP:
        for parts in parts_list:
            a = max(2, round((target * parts / 6.0) ** (1.0 / 3.0)))
            jobs.append(("sweep-%d" % target, (a, a, a), parts))
    for tag, dims, parts in jobs:
        if (tag, dims[0], dims[1], dims[2], parts) in done:
            continue
        print("%s: %dx%dx%d x6 tets, %d parts" % (tag, dims[0], dims[1], dims[2], parts), flush=True)
        new = partition_rows(args.fvproxy, args.case, dims, parts, tag, args.timeout)
        for r in new:
            print("  %-8s imbalance %.4f ghosts max %d mean %.0f neighbours max %d mean %.2f (%.1f s)" % (
                r["method"], r["imbalance"], r["ghosts_max"], r["ghosts_mean"], r["neighbours_max"],
                r["neighbours_mean"], r["seconds"]), flush=True)
        rows += new
        with open(path, "w", newline="") as f:  # rewritten after each mesh: a cut-short sweep keeps its rows
            w = csv.DictWriter(f, fieldnames=FIELDS)
            w.writeheader()
            w.writerows(rows)


# ---------------------------------------------------------------------------------------------
# 2. The model
# ---------------------------------------------------------------------------------------------

S = 3  # SSP-RK3 stages per step
# Exchanges per stage of the optimized schedule (src/solver/scalar_solver.cpp overlapped_rate) and
# the values per ghost each carries, default case (1 component): the state; then the gradients (3)
# and the limiter (1) in one message per neighbour. 5 values per ghost per stage in all.
EXCHANGES = [1, 4]
BYTES = 8  # double
# Fraction of a stage's kernel time that is the work overlapping exchange e when every cell is inner:
# exchange 1 hides the gradients + limiter (muscl), exchange 2 convection + diffusion. H200 harness,
# 8.43M Z-ordered tets, N = 1, defaults (perf/results/2026-11-22-h200/harness): muscl 1.09 ms,
# convection 0.53 + diffusion 0.42 ms, of a 6.33 ms step (2.11 ms a stage).
OVERLAP_WORK = [1.09 / 2.11, 0.95 / 2.11]
BYTES_PER_CELL = 629  # device memory per owned cell on 2 ranks (fvproxy run's memory line, H100 log)
GPU_MEMORY = 80e9

# Measured runs (perf/mpi_halo.py results.csv), relative to the repository root or OUT.
MEASURED = [
    # (label, machine, folder, relative to, note)
    ("devvm idle", "cpu", "perf/results/2026-11-24-devvm-mpi", "root",
     "2-core VM, otherwise idle, fd4ea2e (the published figure)"),
    ("devvm loaded", "cpu", "devvm-mpi-12x12x12", "out", "2-core VM under load 2-8 (other builds), fd45736"),
    ("devvm loaded", "cpu", "devvm-mpi-24x24x24", "out", "2-core VM under load 2-8 (other builds), fd45736"),
    ("devvm loaded", "cpu", "devvm-mpi-48x48x48", "out", "2-core VM under load 2-8 (other builds), fd45736"),
    ("Xeon 16 cores", "cpu", "xeon16/cpu16-mpi-36x36x40", "out",
     "the GPU machine's 16-core Xeon VM, idle, one core per rank, host build 51ba60f-dirty, median of 3"),
    ("Xeon 16 cores", "cpu", "xeon16/cpu16-mpi-36x36x40-r5", "out",
     "the GPU machine's 16-core Xeon VM, idle, one core per rank, host build 51ba60f-dirty, median of 5"),
    ("H100 shared", "gpu", "perf/results/2026-11-24-h100-mpi", "root", "H100, R ranks time-share it, fd4ea2e"),
    ("H100 shared", "gpu", "h100/gpu-mpi-6x6x6", "out", "H100, R ranks time-share it, fd4ea2e"),
    ("H100 shared", "gpu", "h100/gpu-mpi-12x12x12", "out", "H100, R ranks time-share it, fd4ea2e"),
    ("H100 shared", "gpu", "h100/gpu-mpi-24x24x24", "out", "H100, R ranks time-share it, fd4ea2e"),
    ("H100 shared", "gpu", "h100/gpu-mpi-48x48x48", "out", "H100, R ranks time-share it, fd4ea2e"),
    ("H100 shared", "gpu", "h100/gpu-mpi-72x72x72", "out", "H100, R ranks time-share it, fd4ea2e"),
    ("H100 shared", "gpu", "h100/gpu-mpi-112x112x112", "out", "H100, R ranks time-share it, fd4ea2e"),
]
# Points of the shared-GPU model that its fitted parameters come from (cells, ranks, halo).
GPU_FIT_POINTS = {"sigma": (1296, 2, "optimized"), "sigma_naive": (1296, 2, "naive"),
                  "beta_pageable": (663552, 2, "naive")}

# Parameters of the interconnect (vendor figures and typical MPI results, not measured here).
LINKS = {
    "nvlink": (3e-6, 300e9, "NVLink 4 (H100 SXM): 450 GB/s per direction per GPU, ~300 GB/s reached by MPI; ~3 us"),
    "ib400": (3e-6, 40e9, "InfiniBand NDR 400 Gb/s, one NIC per GPU: 50 GB/s, ~40 GB/s reached; ~3 us"),
    "ib200": (3e-6, 20e9, "InfiniBand HDR 200 Gb/s, one NIC per GPU: 25 GB/s, ~20 GB/s reached; ~3 us"),
    "shm": (1e-6, 10e9, "host shared memory between ranks of a node (Open MPI vader, single copy); ~1 us"),
    "pcie": (10e-6, 25e9, "PCIe 5 x16 pinned copy ~25 GB/s; ~10 us per copy with its synchronization"),
    "devvm": (1e-6, 5e9, "the 2-core VM's shared memory (assumed, not measured)"),
    "nvlink18": (10e-6, 400e9, "NV18 NVLink 4 between two H200: 477 GB/s per direction, ~400 GB/s assumed for a peer "
                                "cudaMemcpyAsync; ~10 us with its event wait and 4-byte MPI message (CUDA IPC transport)"),
}

# Two GPUs of one node, measured (perf/gpu_halo.sh: steps.csv and the runs' summary.json): the
# one-GPU points calibrate c and L of that GPU, the two-GPU points validate the model with each
# transport. Values per ghost and stage of each exchange, per case family (the state; then the
# gradients, limiter values and, navier-stokes, the viscous gradients: FlowSolver::halo_values_per_ghost).
TWO_GPU = [("2 x H200 (NV18)", "perf/results/2026-11-26-h200x2-halo")]
TWO_GPU_EXCHANGES = {"scalar": [1, 4], "weak": [1, 4], "tg": [5, 32]}
# The ghost-layer A/B (perf/gpu_halo.sh parts layers, layers-staged): per family and layer count the
# exchanges per stage; two layers exchange the state of twice the ghosts once, the inner cells'
# gradients beside it (the first part of a stage's inner work).
TWO_GPU_LAYERS = ("2 x H200 (NV18)", "perf/results/2026-11-26-h200x2-layers")
LAYER_EXCHANGES = {("scalar", 1): [1, 4], ("scalar", 2): [1], ("tg", 1): [5, 32], ("tg", 2): [5]}


def scenario(name, **kw):
    """A machine and software configuration of the model; every field documented in model.md."""
    s = dict(name=name, G=8, staged=True, staged_hidden=False, intra="shm", inter="ib400", h=0.8, f_off=None,
             k_launch=None, exchanges=EXCHANGES, alpha_coll=3e-6, overlap_work=None)
    s.update(kw)
    return s


SCENARIOS = [
    scenario("today (not CUDA-aware), 8 GPU/node", G=8, staged=True, intra="shm"),
    scenario("today (not CUDA-aware), 4 GPU/node", G=4, staged=True, intra="shm"),
    scenario("CUDA-aware + GPUDirect, 8 GPU/node", G=8, staged=False, intra="nvlink"),
    scenario("CUDA-aware + GPUDirect, 4 GPU/node, IB 200", G=4, staged=False, intra="nvlink", inter="ib200"),
    scenario("today, no overlap (h = 0)", G=8, staged=True, intra="shm", h=0.0),
    scenario("today, rank placement unaware of nodes (f_off = 1)", G=8, staged=True, intra="shm", f_off=1.0),
    scenario("CUDA-aware, decomposed launch overhead as 1 rank (k = 1)", G=8, staged=False, intra="nvlink",
             k_launch=1.0),
    scenario("CUDA-aware, k = 1, 1 exchange per stage", G=8, staged=False, intra="nvlink", exchanges=[5],
             k_launch=1.0),
]
MAIN = [0, 2]  # the scenarios of the plots
# Decomposed over one-rank kernel launches per step (OUT/kernel_counts.json, `kernels`); the per-step
# overhead L is taken to scale with them. Set by cmd_model.
K_LAUNCH = {"value": None}


def wls_affine(xs, ys):
    """y = a + b x, least squares on the relative error (weights 1/y^2)."""
    w = [1.0 / (y * y) for y in ys]
    sw = sum(w)
    sx = sum(wi * x for wi, x in zip(w, xs))
    sy = sum(wi * y for wi, y in zip(w, ys))
    sxx = sum(wi * x * x for wi, x in zip(w, xs))
    sxy = sum(wi * x * y for wi, x, y in zip(w, xs, ys))
    b = (sw * sxy - sx * sy) / (sw * sxx - sx * sx)
    return (sy - b * sx) / sw, b


def fit_power(ns, gs, exponent=None):
    """g = a n^b in log space; b fixed when given."""
    lx = [math.log(n) for n in ns]
    ly = [math.log(g) for g in gs]
    if exponent is None:
        mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
        b = sum((x - mx) * (y - my) for x, y in zip(lx, ly)) / sum((x - mx) ** 2 for x in lx)
    else:
        b = exponent
    a = math.exp(sum(y - b * x for x, y in zip(lx, ly)) / len(lx))
    return a, b


def load_measured(out):
    rows = []
    for label, machine, folder, rel, note in MEASURED:
        path = os.path.join(ROOT if rel == "root" else out, folder, "results.csv")
        if not os.path.exists(path):
            print("scaling_model.py: missing %s (skipped)" % path, file=sys.stderr)
            continue
        with open(path) as f:
            for r in csv.DictReader(f):
                rows.append({"label": label, "machine": machine, "source": os.path.relpath(path, ROOT),
                             "note": note, "cells": int(r["cells"]), "ranks": int(r["ranks"]),
                             "halo": r["halo"], "ms": float(r["step_ms_median"]),
                             "halo_wait_s": float(r["halo_wait_s"] or "nan"), "steps": int(r["steps"])})
    return rows


class Law:
    """Halo figures of a metis part at n cells per part and P parts, from the sweep's fit."""

    def __init__(self, a_max, a_mean, neigh_max, neigh_mean, imbalance, small):
        self.a_max, self.a_mean = a_max, a_mean
        self.neigh_max, self.neigh_mean, self.imbalance = neigh_max, neigh_mean, imbalance
        self.small = small  # P -> (a_max, a_mean, imbalance) for P < 8: slabs and columns, not 3-D parts

    def part(self, N, P):
        if P == 1:
            return dict(n_max=N, n_mean=N, ghosts_max=0, ghosts_mean=0, neighbours_max=0)
        n = N / P
        a_max, a_mean, imb = self.small.get(P, (self.a_max, self.a_mean, self.imbalance))
        return dict(n_max=imb * n, n_mean=n, ghosts_max=a_max * n ** (2 / 3),
                    ghosts_mean=a_mean * n ** (2 / 3), neighbours_max=min(P - 1, self.neigh_max))


def link_time(link, messages, nbytes):
    alpha, beta, _ = LINKS[link]
    return messages * alpha, nbytes / beta


def step_time(sc, gpu, N, P, part):
    """One time step on P GPUs (one rank each) of scenario sc: the total and its parts (seconds)."""
    c, L1 = gpu["c"], gpu["L"]
    n_ideal = N / P
    b = dict(compute=c * n_ideal, imbalance=c * (part["n_max"] - n_ideal),
             overhead=L1 * ((sc["k_launch"] or K_LAUNCH["value"]) if P > 1 else 1.0), staging=0.0, latency=0.0, bandwidth=0.0,
             hidden=0.0, collective=0.0)
    if P > 1:
        m = part["neighbours_max"]
        G = sc["G"]
        f_off = 0.0 if P <= G else (sc["f_off"] if sc["f_off"] is not None else G ** (-1.0 / 3.0))
        frontier = min(part["ghosts_max"], part["n_max"])  # owned cells next to a ghost ~ ghosts
        stage_work = c * part["n_max"] / S
        for e, v in enumerate(sc["exchanges"]):
            B = part["ghosts_max"] * v * BYTES
            staging = 0.0
            if sc["staged"]:  # pack -> D2H, H2D -> unpack: hidden only with staged_hidden (the halo of
                # 2026-11-26 queues them on its own stream; before, start/finish blocked on them)
                la, bw = link_time("pcie", 2, 2 * B)
                staging = la + bw
                b["staging"] += S * staging
            # network: the on-node and the off-node messages go at once; the slower bounds the exchange
            parts_t = []
            m_off = math.ceil(m * f_off) if f_off > 0 else 0
            if m - m_off > 0:
                parts_t.append(link_time(sc["intra"], m - m_off, (1 - f_off) * B))
            if m_off > 0:
                parts_t.append(link_time(sc["inter"], m_off, f_off * B))
            la, bw = max(parts_t, key=lambda t: t[0] + t[1])
            ow = sc["overlap_work"] or OVERLAP_WORK  # the share of a stage's inner work beside each exchange
            w = ow[e] if len(sc["exchanges"]) == len(ow) else sum(OVERLAP_WORK)
            inner = w * stage_work * (1 - frontier / part["n_max"])
            hidden = min(sc["h"] * (la + bw + (staging if sc["staged_hidden"] else 0.0)), inner)
            b["latency"] += S * la
            b["bandwidth"] += S * bw
            b["hidden"] -= S * hidden
        # the per-step flag reduction (and every 16 steps the failure check's 3): a tree of latencies
        b["collective"] = (1 + 3 / 16) * math.ceil(math.log2(P)) * sc["alpha_coll"]
    b["total"] = sum(b.values())
    return b


def shared_gpu_time(gpu, shared, N, R, halo, part):
    """R ranks time-sharing one GPU (the measured H100 points): their kernels serialize; each
    exchange costs every rank a context switch (sigma, fitted); halo rows staged through pinned
    memory (optimized) or whole arrays through pageable host memory (naive); host MPI between them."""
    c, L1 = gpu["c"], gpu["L"]
    t = c * N + R * L1 * (1 if (R == 1 or halo == "naive") else K_LAUNCH["value"])
    if R == 1:
        return t
    E = len(EXCHANGES)
    m = part["neighbours_max"]
    for v in EXCHANGES:
        B = part["ghosts_mean"] * v * BYTES
        la, bw = link_time("shm", m, B)
        if halo == "naive":  # whole local arrays D2H and back, per rank at once (pageable, fresh mirror)
            local = (part["n_mean"] + part["ghosts_mean"]) * v * BYTES
            t += S * (2 * local / shared["beta_pageable"] + la + bw)
        else:  # the ranks' staging copies go one after the other through the one GPU
            pla, pbw = link_time("pcie", 2, 2 * B)
            t += S * (R * (pla + pbw) + la + bw)
    t += S * E * R * (shared["sigma_naive"] if halo == "naive" else shared["sigma"])
    return t


def cpu_time(c, N, P, halo, part):
    """P ranks on P cores of one host (the VM): compute at the one-rank rate per cell, exchanges
    through shared memory, not overlapped (the host computes the inner cells itself: MPI makes no
    progress meanwhile, and the naive halo blocks)."""
    t = c * part["n_max"]
    if P > 1:
        for v in EXCHANGES:
            la, bw = link_time("devvm", part["neighbours_max"], part["ghosts_max"] * v * BYTES)
            t += S * (la + bw)
        t += (1 + 3 / 16) * math.ceil(math.log2(P)) * 1e-6
    return t


def load_two_gpu(folder):
    """Marginal seconds per step per (family, gpus, transport asked) of perf/gpu_halo.sh's
    steps.csv (perf/gpu_halo.py's grouping and marginal time), with the partition each run used
    (owned and ghost cells per rank from its summary.json)."""
    import gpu_halo  # perf/gpu_halo.py, beside this script
    out = []
    for (family, gpus, asked), by in sorted(gpu_halo.load(os.path.join(ROOT, folder, "steps.csv")).items()):
        t = gpu_halo.marginal(by)
        if t is None:
            continue
        long_run = max(by.items())[1]
        path = os.path.join(ROOT, folder, long_run["case"] + ".summary.json")
        if not os.path.exists(path):  # the partition is the same in the configuration's other run
            path = os.path.join(ROOT, folder, min(by.items())[1]["case"] + ".summary.json")
        if not os.path.exists(path):  # ... and with any transport (the layers folder kept some only)
            # (one GPU: any run of the family gives the cell count; its partition is the whole mesh)
            same = [f for f in sorted(os.listdir(os.path.join(ROOT, folder))) if f.endswith(".summary.json") and
                    f.startswith(family.replace("layers-", "layers_") + ("_" if gpus == 1 else "_%d_" % gpus)) and
                    (("_L" not in long_run["case"]) or long_run["case"].rsplit("_", 2)[-2] in f)]
            if not same:
                print("scaling_model.py: no summary.json for %s in %s (skipped)" % (long_run["case"], folder),
                      file=sys.stderr)
                continue
            path = os.path.join(ROOT, folder, same[0])
        summ = json.load(open(path))
        owned = [x["owned_cells"] for x in summ["ranks"]]
        ghosts = [x["ghost_cells"] for x in summ["ranks"]]
        if gpus == 1 and len(owned) > 1:  # another run's summary: the whole mesh on one GPU
            owned, ghosts = [summ["cells"]], [0]
        part = dict(n_max=max(owned), n_mean=sum(owned) / len(owned), ghosts_max=max(ghosts),
                    ghosts_mean=sum(ghosts) / len(ghosts), neighbours_max=1 if gpus > 1 else 0)
        out.append(dict(family=family, gpus=gpus, asked=asked, ran=long_run["transport"], cells=summ["cells"], s=t,
                        part=part, overlap=summ["halo"].get("gpu_overlap")))
    return out


def fmt_ms(s):
    return "%.3g" % (1e3 * s) if s < 1 else "%.4g" % (1e3 * s)


def cmd_model(args):
    out = args.out
    with open(os.path.join(out, "partitions.csv")) as f:
        prow = [dict(r) for r in csv.DictReader(f)]
    for r in prow:
        for k in ("cells", "parts", "ghosts_min", "ghosts_max", "neighbours_max", "edge_cut", "empty_parts"):
            r[k] = int(r[k])
        for k in ("cells_per_part", "imbalance", "ghost_fraction", "ghosts_mean", "neighbours_mean"):
            r[k] = float(r[k])
    res = {"partition_fit": {}, "validation": [], "predictions": {}, "crossovers": [], "parameters": {}}
    with open(os.path.join(out, "kernel_counts.json")) as f:
        kc = json.load(f)
    K_LAUNCH["value"] = kc["ratio"]
    res["parameters"]["kernel_launches_per_step"] = {"1 rank": kc["1"]["calls_per_step"],
                                                     "2 ranks": kc["2"]["calls_per_step"], "ratio": kc["ratio"]}
    md = []

    # --- 2a. the surface-to-volume law, per method; fit on the smaller parts, verified on the larger
    fit_sets = {"sweep-1000", "sweep-4000", "sweep-16000"}
    check_sets = {"sweep-64000", "sweep-256000"}
    laws = {}
    md.append("### Halo law: ghosts = a * (cells/part)^(2/3), fitted on the partition sweep\n")
    md.append("Fitted on %s with P >= 8 parts; verified on %s (P >= 8), not used in the fit. "
              "Imbalance and neighbours: mean and max of the fit rows at P >= 64."
              % (", ".join(sorted(fit_sets)), ", ".join(sorted(check_sets))))
    md.append("")
    md.append("| method | a (max) | a (mean) | free exponent (max) | imbalance (mean of max/mean) | neighbours max | "
              "neighbours mean | verification: ghosts max, model/measured - 1 (min .. max) |")
    md.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for method in ("metis", "hilbert", "blocks"):
        fit = [r for r in prow if r["method"] == method and r["set"] in fit_sets and r["parts"] >= 8]
        chk = [r for r in prow if r["method"] == method and r["set"] in check_sets and r["parts"] >= 8]
        if len(fit) < 3:
            continue
        ns = [r["cells_per_part"] for r in fit]
        a_max, _ = fit_power(ns, [r["ghosts_max"] for r in fit], 2 / 3)
        a_mean, _ = fit_power(ns, [r["ghosts_mean"] for r in fit], 2 / 3)
        _, b_free = fit_power(ns, [r["ghosts_max"] for r in fit])
        big = [r for r in fit if r["parts"] >= 64] or fit
        imb = sum(r["imbalance"] for r in big) / len(big)
        nmax = max(r["neighbours_max"] for r in big)
        nmean = sum(r["neighbours_mean"] for r in big) / len(big)
        small = {}
        for P in (2, 4):  # every sweep row at P parts: the same law with its own coefficient
            rs = [r for r in prow if r["method"] == method and r["set"].startswith("sweep") and r["parts"] == P]
            ns_p = [r["cells_per_part"] for r in rs]
            small[P] = (fit_power(ns_p, [r["ghosts_max"] for r in rs], 2 / 3)[0],
                        fit_power(ns_p, [r["ghosts_mean"] for r in rs], 2 / 3)[0],
                        sum(r["imbalance"] for r in rs) / len(rs))
        laws[method] = Law(a_max, a_mean, nmax, nmean, imb, small)
        errs = []
        for r in chk:
            errs.append(a_max * r["cells_per_part"] ** (2 / 3) / r["ghosts_max"] - 1)
        fit_errs = [a_max * r["cells_per_part"] ** (2 / 3) / r["ghosts_max"] - 1 for r in fit]
        res["partition_fit"][method] = dict(
            a_max=a_max, a_mean=a_mean, free_exponent_max=b_free, imbalance=imb, neighbours_max=nmax,
            neighbours_mean=nmean, small_P={P: dict(a_max=v[0], a_mean=v[1], imbalance=v[2]) for P, v in small.items()},
            fit_points=len(fit), fit_error_range=[min(fit_errs), max(fit_errs)],
            check_points=len(chk), check_errors=[dict(cells_per_part=r["cells_per_part"], parts=r["parts"],
                                                      ghosts_max=r["ghosts_max"], error=e)
                                                 for r, e in zip(chk, errs)])
        md.append("| %s | %.3f | %.3f | %.3f | %.4f | %d | %.1f | %s (%d points; fit rows %+.0f%% .. %+.0f%%) |" % (
            method + " (P = 2: a = %.2f, P = 4: a = %.2f)" % (small[2][0], small[4][0]), a_max, a_mean, b_free,
            imb, nmax, nmean,
            ("%+.0f%% .. %+.0f%%" % (100 * min(errs), 100 * max(errs))) if errs else "-", len(chk),
            100 * min(fit_errs), 100 * max(fit_errs)))
    law = laws["metis"]
    md.append("")

    # --- 2b. calibration and validation against every measured point
    meas = load_measured(out)
    measured_parts = {(r["cells"], r["parts"]): r for r in prow if r["set"] == "measured" and r["method"] == "metis"}

    def part_of(cells, P):
        if P == 1:
            return dict(n_max=cells, n_mean=cells, ghosts_max=0, ghosts_mean=0, neighbours_max=0)
        r = measured_parts[(cells, P)]
        return dict(n_max=r["imbalance"] * cells / P, n_mean=cells / P, ghosts_max=r["ghosts_max"],
                    ghosts_mean=r["ghosts_mean"], neighbours_max=r["neighbours_max"])

    gpu1 = [r for r in meas if r["machine"] == "gpu" and r["ranks"] == 1]
    L, c = wls_affine([r["cells"] for r in gpu1], [r["ms"] * 1e-3 for r in gpu1])
    gpu = {"c": c, "L": L}
    res["parameters"]["gpu"] = dict(c_seconds_per_cell_step=c, L_seconds_per_step=L, points=len(gpu1),
                                    source="H100 one-rank runs (fvproxy run, 20 steps), affine fit, relative LSQ")

    def find(cells, ranks, halo):
        for r in meas:
            if r["machine"] == "gpu" and r["cells"] == cells and r["ranks"] == ranks and r["halo"] == halo:
                return r
        raise KeyError((cells, ranks, halo))

    # shared-GPU parameters, each from one measured point, solved for the parameter
    shared = {"sigma": 0.0, "sigma_naive": 0.0, "beta_pageable": 5e9}
    for _ in range(3):  # sigma and beta_pageable interact weakly: a few rounds of one-point solves
        for key, (cells, R, halo) in GPU_FIT_POINTS.items():
            r = find(cells, R, halo)
            part = part_of(cells, R)
            target = r["ms"] * 1e-3
            if key.startswith("sigma"):
                shared[key] = 0.0
                base = shared_gpu_time(gpu, shared, cells, R, halo, part)
                shared[key] = max(0.0, (target - base) / (S * len(EXCHANGES) * R))
            else:
                lo, hi = 1e8, 1e12
                for _ in range(100):  # bisection: time decreases with bandwidth
                    mid = math.sqrt(lo * hi)
                    shared[key] = mid
                    if shared_gpu_time(gpu, shared, cells, R, halo, part) > target:
                        lo = mid
                    else:
                        hi = mid
    res["parameters"]["shared_gpu"] = dict(shared, fitted_on={k: list(v) for k, v in GPU_FIT_POINTS.items()})

    cpu_c = {}
    for r in meas:
        if r["machine"] == "cpu" and r["ranks"] == 1:
            cpu_c[(r["source"], r["cells"])] = r["ms"] * 1e-3 / r["cells"]
    vrows = []
    for r in meas:
        part = part_of(r["cells"], r["ranks"])
        if r["machine"] == "cpu":
            c_run = cpu_c[(r["source"], r["cells"])]
            model = cpu_time(c_run, r["cells"], r["ranks"], r["halo"], part)
            role = "calibration (c = t / cells)" if r["ranks"] == 1 else "validation"
        else:
            model = shared_gpu_time(gpu, shared, r["cells"], r["ranks"], r["halo"], part)
            role = "calibration (L + c n fit)" if r["ranks"] == 1 else "validation"
            for key, (cells, R, halo) in GPU_FIT_POINTS.items():
                if (r["cells"], r["ranks"], r["halo"]) == (cells, R, halo):
                    role = "fit of %s" % key
        err = model / (r["ms"] * 1e-3) - 1
        v = dict(r, model_ms=model * 1e3, error=err, role=role)
        vrows.append(v)
    res["validation"] = vrows

    md.append("### Validation: every measured point\n")
    md.append("Error = model / measured - 1. CPU: per-cell cost from the same run's one-rank time; GPU: "
              "L + c n fitted on the one-rank H100 points (L = %.3f ms per step, c = %.3f ns per cell and step); "
              "shared-GPU parameters each solved from the one point named in the role column: sigma = %.3f ms "
              "(optimized), %.3f ms (naive) per exchange and rank, pageable whole-array copies at %.2f GB/s per rank."
              % (L * 1e3, c * 1e9, shared["sigma"] * 1e3, shared["sigma_naive"] * 1e3,
                 shared["beta_pageable"] / 1e9))
    md.append("")
    md.append("| machine | cells | ranks | halo | measured ms/step | model ms/step | error | role | source |")
    md.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for v in vrows:
        md.append("| %s | %d | %d | %s | %s | %s | %+.0f%% | %s | %s |" % (
            v["label"], v["cells"], v["ranks"], v["halo"], fmt_ms(v["ms"] * 1e-3), fmt_ms(v["model_ms"] * 1e-3),
            100 * v["error"], v["role"], v["source"].replace("perf/results/", "")))
    md.append("")
    for grp in ("devvm idle", "devvm loaded", "Xeon 16 cores", "H100 shared"):
        errs = [abs(v["error"]) for v in vrows if v["label"] == grp and v["role"] == "validation"]
        if errs:
            md.append("- %s: %d validation points, |error| median %.0f%%, max %.0f%%" % (
                grp, len(errs), 100 * sorted(errs)[len(errs) // 2], 100 * max(errs)))
    md.append("")

    # --- 2b'. two GPUs of one node: c and L of that GPU from its one-GPU points, each two-GPU point
    # predicted with the transport it ran (ipc: device to device over NVLink, nothing staged; staged:
    # two PCIe copies per exchange and host shared memory), the halo hidden up to h of the inner work
    res["validation_two_gpus"] = []
    for label, folder in TWO_GPU:
        if not os.path.exists(os.path.join(ROOT, folder, "steps.csv")):
            print("scaling_model.py: missing %s (skipped)" % folder, file=sys.stderr)
            continue
        pts = load_two_gpu(folder)
        one = sorted((p for p in pts if p["gpus"] == 1 and p["family"] in ("scalar", "weak")), key=lambda p: p["cells"])
        L2, c2 = wls_affine([p["cells"] for p in one], [p["s"] for p in one])
        res["parameters"]["two_gpus"] = dict(machine=label, c_seconds_per_cell_step=c2, L_seconds_per_step=L2,
                                             points=len(one), source=folder)
        md.append("### Validation: two GPUs of one node (%s, `%s`)\n" % (label, folder))
        md.append("The scalar default case's one-GPU points give this GPU's L = %.3f ms per step and c = %.3f ns "
                  "per cell and step (%d points); the navier-stokes Taylor-Green vortex has one point, so its "
                  "c is its one-GPU time per cell (L folded in). Each two-GPU point is then predicted with the "
                  "partition it ran (owned and ghost cells per rank from its summary.json) and the transport it "
                  "ran: `ipc` (nothing staged, link nvlink18), `staged` (two PCIe copies per exchange, host "
                  "shared memory, the copies hidden like the messages: staged_hidden); h = 0.8, the decomposed "
                  "launch overhead k = %.2f L. Error = model / measured - 1." % (L2 * 1e3, c2 * 1e9, len(one),
                                                                                  K_LAUNCH["value"]))
        md.append("")
        md.append("| case | cells | GPUs | transport | measured ms/step | model ms/step | error | efficiency "
                  "measured | efficiency model | measured GPU overlap |")
        md.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for p in pts:
            gpu2 = dict(c=c2, L=L2)
            if p["family"] == "tg":
                t1 = next(q["s"] for q in pts if q["family"] == "tg" and q["gpus"] == 1)
                gpu2 = dict(c=t1 / p["cells"], L=0.0)
            sc = scenario("two GPUs", G=2, staged=p["ran"] == "staged", staged_hidden=True,
                          intra="nvlink18" if p["ran"] == "ipc" else "shm",
                          exchanges=TWO_GPU_EXCHANGES[p["family"]])
            model = step_time(sc, gpu2, p["cells"], p["gpus"], p["part"])["total"]
            one_model = step_time(sc, gpu2, p["cells"], 1, dict(n_max=p["cells"], n_mean=p["cells"], ghosts_max=0,
                                                                 ghosts_mean=0, neighbours_max=0))["total"]
            one_meas = next((q["s"] for q in pts if q["family"] == p["family"] and q["gpus"] == 1), None)
            row = dict(machine=label, family=p["family"], cells=p["cells"], gpus=p["gpus"], transport=p["ran"],
                       measured_ms=p["s"] * 1e3, model_ms=model * 1e3, error=model / p["s"] - 1,
                       efficiency_measured=one_meas / (p["gpus"] * p["s"]) if one_meas else None,
                       efficiency_model=one_model / (p["gpus"] * model), gpu_overlap=p["overlap"],
                       role="calibration (L + c n fit)" if p["gpus"] == 1 and p["family"] != "tg" else
                       ("calibration (c = t / cells)" if p["gpus"] == 1 else "validation"))
            res["validation_two_gpus"].append(row)
            md.append("| %s | %d | %d | %s | %s | %s | %+.0f%% | %s | %.1f%% | %s |" % (
                {"scalar": "scalar", "weak": "scalar", "tg": "Taylor-Green"}[p["family"]], p["cells"], p["gpus"],
                p["ran"], fmt_ms(p["s"]), fmt_ms(model), 100 * row["error"],
                "%.1f%%" % (100 * row["efficiency_measured"]) if row["efficiency_measured"] else "-",
                100 * row["efficiency_model"], "%.2f" % p["overlap"] if p["overlap"] is not None else "-"))
        errs = [abs(r["error"]) for r in res["validation_two_gpus"] if r["role"] == "validation"]
        if errs:
            md.append("")
            md.append("- %d validation points, |error| median %.0f%%, max %.0f%%" % (
                len(errs), 100 * sorted(errs)[len(errs) // 2], 100 * max(errs)))
        md.append("")

    # --- 2b''. the ghost-layer A/B on two GPUs: c from each family's one-GPU time (L folded in), the
    # exchanges of LAYER_EXCHANGES, the two-layer partition (twice the ghosts) from its summary.json
    label, folder = TWO_GPU_LAYERS
    res["validation_ghost_layers"] = []
    if os.path.exists(os.path.join(ROOT, folder, "steps.csv")):
        pts = load_two_gpu(folder)
        md.append("### Validation: one or two ghost layers (%s, `%s`)\n" % (label, folder))
        md.append("`parallel.halo.layers` 1 against 2 (docs/halo.md#two-ghost-layers) on two GPUs: c of each "
                  "case from its one-GPU time (L folded in), two layers one exchange per stage of the state "
                  "(twice the ghosts: the partition from summary.json) beside the inner cells' gradients only. "
                  "Error = model / measured - 1.")
        md.append("")
        md.append("| case | GPUs | layers | transport | measured ms/step | model ms/step | error |")
        md.append("| --- | --- | --- | --- | --- | --- | --- |")
        for p in pts:
            fam = p["family"].replace("layers-", "")
            layers = 2 if p["asked"].endswith("layers 2") else 1
            t1 = next(q["s"] for q in pts if q["family"] == p["family"] and q["gpus"] == 1)
            if p["gpus"] == 1:
                continue
            ex = LAYER_EXCHANGES[(fam, layers)]
            sc = scenario("two GPUs, %d layers" % layers, G=2, staged=p["ran"] == "staged", staged_hidden=True,
                          intra="nvlink18" if p["ran"] == "ipc" else "shm", exchanges=ex,
                          overlap_work=[OVERLAP_WORK[0]] if layers == 2 else None)
            model = step_time(sc, dict(c=t1 / p["cells"], L=0.0), p["cells"], p["gpus"], p["part"])["total"]
            row = dict(machine=label, family=fam, layers=layers, gpus=p["gpus"], transport=p["ran"],
                       measured_ms=p["s"] * 1e3, model_ms=model * 1e3, error=model / p["s"] - 1)
            res["validation_ghost_layers"].append(row)
            md.append("| %s | %d | %d | %s | %s | %s | %+.0f%% |" % (
                {"scalar": "scalar 16.9M", "tg": "Taylor-Green 192^3"}[fam], p["gpus"], layers, p["ran"],
                fmt_ms(p["s"]), fmt_ms(model), 100 * row["error"]))
        errs = [abs(r["error"]) for r in res["validation_ghost_layers"]]
        if errs:
            md.append("")
            md.append("- %d points, |error| median %.0f%%, max %.0f%%" % (
                len(errs), 100 * sorted(errs)[len(errs) // 2], 100 * max(errs)))
        md.append("")

    # --- 2c. predictions
    Ps = [2 ** k for k in range(13)]
    cases = [("strong 128M cells", "strong", 128e6), ("strong 1B cells", "strong", 1e9),
             ("weak 8M cells/GPU", "weak", 8e6), ("weak 64M cells/GPU", "weak", 64e6)]
    md.append("### Predictions (H100: c and L measured; network and overlap modelled)\n")
    md.append("Efficiency: strong E = T1 / (P T(P)), with T1 = L + c N the one-GPU time at the measured rate "
              "(a 1B-cell case does not fit one GPU: T1 is then hypothetical); weak E = T(1, n) / T(P, n P). "
              "Halo figures from the metis law above. P_min: fewest 80 GB GPUs that hold the case at %d bytes "
              "per cell." % BYTES_PER_CELL)
    md.append("")
    for si, sc in enumerate(SCENARIOS):
        res["predictions"][sc["name"]] = {}
        for cname, kind, size in cases:
            rows = []
            for P in Ps:
                N = size if kind == "strong" else size * P
                b = step_time(sc, gpu, N, P, law.part(N, P))
                t1 = step_time(sc, gpu, size, 1, law.part(size, 1))["total"]
                eff = t1 / (P * b["total"]) if kind == "strong" else t1 / b["total"]
                rows.append(dict(P=P, N=N, efficiency=eff, **{k: v for k, v in b.items()}))
            res["predictions"][sc["name"]][cname] = rows
            below = next((r for r in rows if r["efficiency"] < 0.5), None)
            why = "-"
            if below:
                losses = {k: below[k] for k in ("imbalance", "overhead", "staging", "latency", "bandwidth",
                                                "collective")}
                losses["latency"] += below["hidden"] * (below["latency"] / max(1e-30, below["latency"] +
                                                                                 below["bandwidth"]))
                losses["bandwidth"] += below["hidden"] * (below["bandwidth"] / max(1e-30, below["latency"] +
                                                                                     below["bandwidth"]))
                # the loss is T(P) - T1 / P (strong) or T(P) - T1 (weak); T1 holds one overhead L,
                # which strong scaling spreads over the P GPUs
                losses["overhead"] -= gpu["L"] / below["P"] if kind == "strong" else gpu["L"]
                tot = sum(max(0, x) for x in losses.values())
                why = ", ".join("%s %.0f%%" % (k, 100 * x / tot) for k, x in
                                sorted(losses.items(), key=lambda kv: -kv[1]) if x > 0.05 * tot)
            res["crossovers"].append(dict(scenario=sc["name"], case=cname,
                                          P_below_half=below["P"] if below else None,
                                          cells_per_gpu=below["N"] / below["P"] if below else None,
                                          losses=why))
    md.append("#### Parallel efficiency, per scenario and case (P = 1 .. 4096)\n")
    hdr = "| scenario | case | " + " | ".join(str(P) for P in Ps) + " |"
    md.append(hdr)
    md.append("| --- | --- | " + " | ".join("---" for _ in Ps) + " |")
    for sc in SCENARIOS:
        for cname, kind, size in cases:
            rows = res["predictions"][sc["name"]][cname]
            cells = []
            for r in rows:
                s = "%.2f" % r["efficiency"]
                if r["N"] * BYTES_PER_CELL / r["P"] > GPU_MEMORY:
                    s += "*"
                cells.append(s)
            md.append("| %s | %s | %s |" % (sc["name"], cname, " | ".join(cells)))
    md.append("")
    md.append("\\* the case does not fit in the P GPUs' memory (%d bytes per cell, 80 GB per GPU)." % BYTES_PER_CELL)
    md.append("")
    md.append("#### Where efficiency drops below 50%, and what the step's loss is made of there\n")
    md.append("| scenario | case | first P below 50% | cells per GPU there | what the lost time is (share of T(P) - T1/P, strong; T(P) - T1, weak) |")
    md.append("| --- | --- | --- | --- | --- |")
    for x in res["crossovers"]:
        md.append("| %s | %s | %s | %s | %s |" % (
            x["scenario"], x["case"], x["P_below_half"] if x["P_below_half"] else "none up to 4096",
            "%.3g" % x["cells_per_gpu"] if x["cells_per_gpu"] else "-", x["losses"]))
    md.append("")
    md.append("#### Time per step and its parts, main scenarios (ms)\n")
    md.append("| scenario | case | P | cells/GPU | total | compute c N/P | imbalance | overhead | staging | latency | "
              "bandwidth | hidden | collective | efficiency |")
    md.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for si in MAIN:
        sc = SCENARIOS[si]
        for cname, kind, size in cases:
            for r in res["predictions"][sc["name"]][cname]:
                if r["P"] not in (1, 8, 64, 512, 4096):
                    continue
                md.append("| %s | %s | %d | %.3g | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.2f |" % (
                    sc["name"], cname, r["P"], r["N"] / r["P"], fmt_ms(r["total"]), fmt_ms(r["compute"]),
                    fmt_ms(r["imbalance"]), fmt_ms(r["overhead"]), fmt_ms(r["staging"]), fmt_ms(r["latency"]),
                    fmt_ms(r["bandwidth"]), fmt_ms(r["hidden"]), fmt_ms(r["collective"]), r["efficiency"]))
    md.append("")
    md.append("#### Scenarios\n")
    md.append("| scenario | GPUs/node | staged through host | on-node link | off-node link | hidden fraction h | "
              "off-node share of a rank's halo | decomposed launch overhead | exchanges per stage (values/ghost) |")
    md.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for sc in SCENARIOS:
        md.append("| %s | %d | %s | %s | %s | %.1f | %s | %.2f L | %s |" % (
            sc["name"], sc["G"], "yes (PCIe)" if sc["staged"] else "no", sc["intra"], sc["inter"], sc["h"],
            "%.2f" % sc["f_off"] if sc["f_off"] is not None else "G^(-1/3) = %.2f" % sc["G"] ** (-1 / 3),
            sc["k_launch"] or K_LAUNCH["value"], ", ".join(str(v) for v in sc["exchanges"])))
    md.append("")
    md.append("| link | latency | bandwidth | source |")
    md.append("| --- | --- | --- | --- |")
    for k, (a, bw, src) in LINKS.items():
        md.append("| %s | %.0f us | %.0f GB/s | %s |" % (k, a * 1e6, bw / 1e9, src))
    md.append("")
    res["parameters"]["links"] = {k: dict(alpha=a, beta=bw, source=s) for k, (a, bw, s) in LINKS.items()}
    res["parameters"]["scenarios"] = SCENARIOS
    res["parameters"]["model_constants"] = dict(stages=S, exchanges=EXCHANGES, bytes=BYTES,
                                                overlap_work=OVERLAP_WORK, bytes_per_cell=BYTES_PER_CELL)
    with open(os.path.join(out, "model.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(out, "model.json"), "w") as f:
        json.dump(res, f, indent=1, default=float)
    print("\n".join(md))
    try:
        plots(out, res, prow, laws, vrows)
    except ImportError as e:
        print("scaling_model.py: no plots (%s); apt-get install python3-matplotlib" % e, file=sys.stderr)
    if args.check:
        sys.exit(check(res))


def check(res):
    """The claims docs/parallel.md makes of the model, as conditions (exit 1 when one fails): the
    halo law holds on the parts it was not fitted on, the idle VM's CPU ranks and the 4 ranks
    sharing the H100 at the two smallest sizes are predicted within 10 %."""
    fails = []
    fit = res["partition_fit"]["metis"]
    for e in fit["check_errors"]:
        if abs(e["error"]) > 0.25:
            fails.append("halo law off by %+.0f%% at %d cells per part, %d parts" % (
                100 * e["error"], e["cells_per_part"], e["parts"]))
    if not 0.55 < fit["free_exponent_max"] < 0.75:
        fails.append("free exponent %.3f, not near 2/3" % fit["free_exponent_max"])
    for v in res["validation"]:
        tight = (v["label"] == "devvm idle" and v["ranks"] > 1) or (
            v["label"] == "H100 shared" and v["ranks"] == 4 and v["halo"] == "optimized" and v["cells"] < 20000)
        if tight and abs(v["error"]) > 0.10:
            fails.append("%s, %d cells, %d ranks, %s: model %+.0f%%" % (
                v["label"], v["cells"], v["ranks"], v["halo"], 100 * v["error"]))
    for f in fails:
        print("scaling_model.py check: " + f, file=sys.stderr)
    print("scaling_model.py check: %s" % ("FAILED" if fails else "ok"), file=sys.stderr)
    return 1 if fails else 0


def plots(out, res, prow, laws, vrows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [SCENARIOS[i]["name"] for i in MAIN]
    styles = ["-", "--"]
    # efficiency, strong and weak
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, kind in zip(axes, ("strong", "weak")):
        for si, name in enumerate(names):
            for cname, rows in res["predictions"][name].items():
                if not cname.startswith(kind):
                    continue
                ax.plot([r["P"] for r in rows], [r["efficiency"] for r in rows], styles[si], marker="o", ms=3,
                        label="%s, %s" % (cname, name))
        ax.axhline(0.5, color="grey", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("GPUs (H100)")
        ax.set_ylabel("parallel efficiency (model)")
        ax.set_title("%s scaling (modelled)" % kind)
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "efficiency.png"), dpi=110)
    plt.close(fig)
    # time breakdown: each part's share of the step, per case and main scenario
    keys = ["compute", "imbalance", "overhead", "staging", "latency", "bandwidth", "collective"]
    fig, axes = plt.subplots(2, 4, figsize=(16, 7.5), sharey=True)
    for row, si in enumerate(MAIN):
        name = SCENARIOS[si]["name"]
        for ax, (cname, rows) in zip(axes[row], res["predictions"][name].items()):
            Ps = [r["P"] for r in rows]
            bottom = [0.0] * len(rows)
            for k in keys:
                vals = []
                for r in rows:
                    v = r[k]
                    if k in ("latency", "bandwidth"):  # the exposed part: the hidden time shared pro rata
                        lb = r["latency"] + r["bandwidth"]
                        v = r[k] + (r["hidden"] * r[k] / lb if lb > 0 else 0)
                    vals.append(v / r["total"])
                ax.bar(range(len(Ps)), vals, bottom=bottom, label=k)
                bottom = [b + v for b, v in zip(bottom, vals)]
            ax.plot(range(len(Ps)), [r["efficiency"] for r in rows], "k.-", lw=1, label="efficiency")
            ax.set_xticks(range(len(Ps)))
            ax.set_xticklabels([str(p) for p in Ps], rotation=90, fontsize=7)
            ax.set_ylim(0, 1.0)
            ax.set_title("%s\n%s" % (cname, name), fontsize=8)
            ax.set_xlabel("GPUs")
            ax.text(0.02, 0.02, "T(%d) = %s ms" % (rows[-1]["P"], fmt_ms(rows[-1]["total"])), fontsize=7,
                    transform=ax.transAxes, color="white")
        axes[row][0].set_ylabel("share of the step time (model)")
    axes[0][0].legend(fontsize=7, loc="center left")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "breakdown.png"), dpi=110)
    plt.close(fig)
    # the halo law
    fig, ax = plt.subplots(figsize=(6, 4.5))
    law = laws["metis"]
    for sets, mk, lab in (({"sweep-1000", "sweep-4000", "sweep-16000"}, "o", "fitted"),
                          ({"sweep-64000", "sweep-256000"}, "s", "verification (not fitted)")):
        rs = [r for r in prow if r["method"] == "metis" and r["set"] in sets and r["parts"] >= 8]
        ax.scatter([r["cells_per_part"] for r in rs], [r["ghosts_max"] for r in rs], marker=mk, label=lab, s=14)
    ns = [10 ** (k / 10) for k in range(25, 80)]
    ax.plot(ns, [law.a_max * n ** (2 / 3) for n in ns], "k-", lw=0.8, label="%.2f n^(2/3)" % law.a_max)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("cells per part n")
    ax.set_ylabel("ghosts of the largest halo (metis)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "halo_law.png"), dpi=110)
    plt.close(fig)
    # validation
    fig, ax = plt.subplots(figsize=(6, 5))
    for i, (lab, mk) in enumerate((("devvm idle", "o"), ("devvm loaded", "^"), ("Xeon 16 cores", "D"),
                                   ("H100 shared", "s"))):
        col = "C%d" % i
        vs = [v for v in vrows if v["label"] == lab and v["role"] == "validation"]
        ax.scatter([v["ms"] for v in vs], [v["model_ms"] for v in vs], marker=mk, color=col, s=16,
                   label=lab + " (validation)")
        vs = [v for v in vrows if v["label"] == lab and v["role"] != "validation"]
        ax.scatter([v["ms"] for v in vs], [v["model_ms"] for v in vs], marker=mk, facecolors="none",
                   edgecolors=col, s=16, label=lab + " (calibration, fit)")
    lo = min(min(v["ms"], v["model_ms"]) for v in vrows) / 1.5
    hi = max(max(v["ms"], v["model_ms"]) for v in vrows) * 1.5
    ax.plot([lo, hi], [lo, hi], "k-", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("measured ms / step")
    ax.set_ylabel("model ms / step")
    ax.set_title("model vs measured, every point")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "validation.png"), dpi=110)
    plt.close(fig)


def cmd_kernels(args):
    """Kernel launches per step on 1 and on 2 ranks (`fvproxy run --profile`, a small mesh): the ratio
    scales the one-rank per-step overhead L to the decomposed step's (kernel counts do not depend on
    the backend, so the host build counts them)."""
    os.makedirs(args.out, exist_ok=True)
    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false", OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    steps = 16
    res = {}
    for ranks in (1, 2):
        d = os.path.join(args.out, "kernels-np%d" % ranks)
        cmd = (["mpirun", "-np", str(ranks), "--oversubscribe", "--bind-to", "none"] if ranks > 1 else []) + [
            args.fvproxy, "run", args.case, "--set", "mesh.generate.cells=[12,12,12]", "--set",
            "time={steps: %d, cfl: 0.5}" % steps, "--profile", "--quiet", "--output-dir", d]
        subprocess.run(cmd, env=env, check=True, capture_output=True)
        with open(os.path.join(d, "summary.json")) as f:
            t = json.load(f)["timers"]
        res[str(ranks)] = {"calls_per_step": sum(v["calls"] for v in t.values()) / steps,
                           "kernels": {k: v["calls"] / steps for k, v in t.items()}}
        subprocess.run(["rm", "-rf", d])
    res["ratio"] = res["2"]["calls_per_step"] / res["1"]["calls_per_step"]
    res["command"] = "fvproxy run inputs/default.yaml (12^3 x 6 tets, %d steps) --profile on 1 and 2 ranks" % steps
    with open(os.path.join(args.out, "kernel_counts.json"), "w") as f:
        json.dump(res, f, indent=1)
    print(json.dumps(res, indent=1))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("partitions", help="the partition sweep: OUT/partitions.csv")
    p.add_argument("--out", required=True)
    p.add_argument("--fvproxy", default="build/host/fvproxy")
    p.add_argument("--case", default=os.path.join(ROOT, "inputs/default.yaml"))
    p.add_argument("--timeout", type=int, default=900, help="seconds per fvproxy mesh call")
    p.add_argument("--fresh", action="store_true", help="start over instead of resuming OUT/partitions.csv")
    k = sub.add_parser("kernels", help="kernel launches per step on 1 and 2 ranks: OUT/kernel_counts.json")
    k.add_argument("--out", required=True)
    k.add_argument("--fvproxy", default="build/host/fvproxy")
    k.add_argument("--case", default=os.path.join(ROOT, "inputs/default.yaml"))
    m = sub.add_parser("model", help="fits, validation, predictions, plots: OUT/model.md, model.json, *.png")
    m.add_argument("--out", required=True)
    m.add_argument("--check", action="store_true",
                   help="exit 1 unless the halo law and the tight validation points hold (see check())")
    t = sub.add_parser("today", help="the model of today's halo from the 2026-11-29 H200 runs: OUT/today.md, today.json")
    t.add_argument("--out", required=True)
    t.add_argument("--check", action="store_true",
                   help="exit 1 unless the model reproduces the validation points (scaling_today.run)")
    args = ap.parse_args()
    if args.cmd == "today":
        sys.path.insert(0, HERE)
        import scaling_today
        sys.exit(scaling_today.run(ROOT, args.out, args.check))
    if args.cmd == "partitions":
        cmd_partitions(args)
    elif args.cmd == "kernels":
        cmd_kernels(args)
    else:
        cmd_model(args)


if __name__ == "__main__":
    main()
