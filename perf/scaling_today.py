"""The scaling model of today's halo (issue 40 item 4): `perf/scaling_model.py today --out OUT`.

Unlike `scaling_model.py model` (2026-11-24: per-step launch overhead and a staged halo that was
not hidden, fitted before any run on two GPUs), this model is built from what the runs of
2026-11-29 measured on H200s, per Runge-Kutta stage, on the slowest rank:

    t_stage(P) = max(H_P, D_P) + max(0, C_P - w D_P)            (S = 3 stages per step)
    D_P  = c (I n + rho g) + d                                  the device's work per stage
    H_1  = h1;   H_P = h1 + E (h_e + h_n m)                     the host's calls per stage
    C_P  = ipc:    m alpha_ipc + B / beta_ipc                   the exchange of B bytes per rank
           staged: m alpha_st + B / beta_st                     (through pinned host memory)
           across nodes: the on-node share as above, the off-node share f B through host memory
           and the network (alpha_net, beta_net) or, CUDA-aware with GPUDirect, the network alone

n = N / P owned cells (I: max / mean, measured per run), g ghost cells of the slowest rank (two
layers; measured per run, else g = a n^(2/3) fitted on the runs), m neighbours, B bytes per
exchange and rank (measured, else g times the model's bytes per ghost), E = 1 exchange per stage
(two ghost layers, every case here). One GPU: t_stage = max(h1, c n + d).

Which measurement sets which parameter (the *fit* points), and which points only check it (the
*validation* points, never used to fit):

- c, d per model: the one-GPU runs of the four-GPU machine (2026-11-29-h200x4-four: scalar 1.08M
  to 33.8M tets, Taylor-Green 0.88M to 16.8M hexes), least squares on the relative error.
- h1, h_e, h_n: the host breakdown of 2026-11-29-h200x2-fixed-cost (stage_tool.cpp): one GPU's
  stage 30 us of host calls; a decomposed stage adds ~5 launches at 4-5 us (each operator's inner
  and frontier parts, the first ghost layer's gradients) and the exchange's calls, ~35 us with the
  device timeline sampled, of which per neighbour the IPC copies and their events 7, the waits on
  the neighbours' events 4, the MPI message and its wait 2 (h_n = 13, h_e = 25 + 22 = 47: 90 us of
  host per stage on two GPUs, where the tool runs measured 85-100).
- rho (the ghost cells' share of work) per model: the two-GPU runs of the large cases on the
  four-GPU machine (scalar 16.9M tets, Taylor-Green 192^3).
- w (the share of a stage the exchange can hide behind: the inner cells' work) = 1 - g_frontier/n,
  taken as 0.8.
- alpha_st, beta_st: the two-GPU staged runs of 2026-11-29-h200x2-fixed-cost (scalar and
  Taylor-Green, small and mid), least squares on the exposed time per stage.
- Validation: every other two-GPU run of both machines, and every four-GPU run (ipc and staged).

The network (InfiniBand NDR 400: alpha 3 us, 40 GB/s reached) and the host copies across nodes
(the staged path's pinned copies at beta_st) are assumptions for the predictions, not measured here.
"""
import csv
import glob
import json
import math
import os

S = 3
X4 = "perf/results/2026-11-29-h200x4-four"
X2 = "perf/results/2026-11-29-h200x2-fixed-cost/0593b2d"
HOST = {"h1": 30e-6, "h_e": 47e-6, "h_n": 13e-6}
W_HIDE = 0.8
ALPHA_IPC, BETA_IPC = 10e-6, 300e9  # NV18: a peer copy and its event; ~300 GB/s reached (not binding)
NET = {"alpha": 3e-6, "beta": 40e9, "what": "InfiniBand NDR 400 Gb/s, one NIC per GPU (assumed)"}
GPUS_PER_NODE = 4


def model_of(case_or_name):
    return "navier-stokes" if ("tg" in case_or_name or "taylor" in case_or_name or case_or_name.startswith("ns")) \
        else "scalar"


def summary_facts(path):
    """Owned cells (max, mean), ghosts max, neighbours max, bytes per exchange (max rank) of a run."""
    d = json.load(open(path))
    owned = [r["owned_cells"] for r in d["ranks"]]
    ghosts = [r["ghost_cells"] for r in d["ranks"]]
    f = {"cells": d["cells"], "ranks": len(owned), "owned_max": max(owned), "owned_mean": sum(owned) / len(owned),
         "ghosts_max": max(ghosts) if len(owned) > 1 else 0}
    h = d.get("halo") or {}
    ex = (h.get("exchanges") or {}).get("max") or 0
    if ex:
        f["neighbours"] = h["messages"]["max"] / ex
        f["bytes"] = h["bytes_sent"]["max"] / ex
    return f


def points_x4(root):
    """Marginal ms per step and the facts of every configuration of the four-GPU session."""
    pts = []
    for call in sorted(glob.glob(os.path.join(root, X4, "call*"))):
        rows = {}
        for r in csv.DictReader(open(os.path.join(call, "steps.csv"))):
            if not r["loop_s"]:
                continue
            key = r["case"].rsplit("_", 1)[0]
            rows.setdefault(key, []).append(r)
        for key, rs in rows.items():
            if len(rs) < 2 or key.startswith("bind"):
                continue
            rs.sort(key=lambda r: int(r["steps"]))
            a, b = rs[0], rs[-1]
            t = (float(b["loop_s"]) - float(a["loop_s"])) / (int(b["steps"]) - int(a["steps"]))
            facts = summary_facts(os.path.join(call, b["case"] + ".summary.json"))
            pts.append(dict(facts, name="%s/%s" % (os.path.basename(call), key), source="4 x H200",
                            model=model_of(key), gpus=int(b["gpus"]), transport=b["transport"], step=t))
    return pts


def points_x2(root):
    rows = {}
    for r in csv.DictReader(open(os.path.join(root, X2, "steps.csv"))):
        if r["name"].endswith("-tool") or "layers1" in r["name"]:
            continue
        rows.setdefault(r["name"], []).append(r)
    pts = []
    for name, rs in rows.items():
        rs.sort(key=lambda r: int(r["steps"]))
        a, b = rs[0], rs[-1]
        t = (float(b["loop_s"]) - float(a["loop_s"])) / (int(b["steps"]) - int(a["steps"]))
        facts = summary_facts(os.path.join(root, X2, "%s-%s.summary.json" % (name, b["steps"])))
        pts.append(dict(facts, name="x2/" + name, source="2 x H200", model=model_of(name), gpus=int(b["gpus"]),
                        transport=b["transport"] if int(b["gpus"]) > 1 else "-", step=t))
    return pts


def fit_affine(xs, ys):
    """y = d + c x, least squares on the relative error."""
    w = [1 / (y * y) for y in ys]
    sw, sx, sy = sum(w), sum(a * x for a, x in zip(w, xs)), sum(a * y for a, y in zip(w, ys))
    sxx, sxy = sum(a * x * x for a, x in zip(w, xs)), sum(a * x * y for a, x, y in zip(w, xs, ys))
    c = (sw * sxy - sx * sy) / (sw * sxx - sx * sx)
    return (sy - c * sx) / sw, c


class Model:
    def __init__(self, p):
        self.p = p  # per model: c, d, rho; shared: h1, h_e, h_n, alpha_st, beta_st

    def device(self, model, n_max, ghosts):
        q = self.p[model]
        return q["c"] * (n_max + q["rho"] * ghosts) + q["d"]

    def host(self, ranks, neighbours):
        p = self.p
        return p["h1"] if ranks == 1 else p["h1"] + p["h_e"] + p["h_n"] * neighbours

    def comm(self, transport, neighbours, nbytes, off_node=0.0, network=None):
        p = self.p
        on = (1 - off_node) * nbytes
        if transport == "staged":
            t_on = neighbours * p["alpha_st"] + on / p["beta_st"]
        else:
            t_on = neighbours * ALPHA_IPC + on / BETA_IPC
        if off_node <= 0:
            return t_on
        off = off_node * nbytes
        if network == "gpudirect":
            t_off = NET["alpha"] * neighbours + off / NET["beta"]
        else:  # through pinned host memory on both sides, then the network
            t_off = neighbours * p["alpha_st"] + off / p["beta_st"] + NET["alpha"] * neighbours + off / NET["beta"]
        return max(t_on, t_off)

    def stage(self, model, ranks, n_max, ghosts=0, neighbours=0, nbytes=0, transport="ipc", off_node=0.0,
              network=None):
        d = self.device(model, n_max, ghosts if ranks > 1 else 0)
        h = self.host(ranks, neighbours)
        if ranks == 1:
            return max(h, d)
        c = self.comm(transport, neighbours, nbytes, off_node, network)
        return max(h, d) + max(0.0, c - W_HIDE * d)

    def step(self, pt, **kw):
        return S * self.stage(pt["model"], pt["ranks"], pt["owned_max"], pt.get("ghosts_max", 0),
                              pt.get("neighbours", 0), pt.get("bytes", 0), pt["transport"], **kw)


def calibrate(x4, x2):
    p = dict(HOST)
    used = set()
    for model in ("scalar", "navier-stokes"):
        one = [q for q in x4 if q["model"] == model and q["gpus"] == 1]
        d, c = fit_affine([q["cells"] for q in one], [q["step"] / S for q in one])
        p[model] = {"c": c, "d": max(d, 0.0), "rho": 0.0}
        used.update(q["name"] for q in one)
    # rho: the large two-GPU runs of the four-GPU machine (their exposed wait is < 1 %)
    for model, key in (("scalar", "call1/scalar_2"), ("navier-stokes", "call1/tg_2")):
        q = next(q for q in x4 if q["name"] == key)
        work = q["step"] / S - p[model]["d"]
        p[model]["rho"] = max(0.0, (work / p[model]["c"] - q["owned_max"]) / q["ghosts_max"])
        used.add(key)
    # alpha_st, beta_st: the exposed time per stage of the two-GPU staged runs over their ipc twins
    xs, ys = [], []
    for q in x2:
        if q["transport"] != "staged":
            continue
        twin = next(t for t in x2 if t["name"] == q["name"].replace("staged", "ipc"))
        m = Model(p)
        dev = m.device(q["model"], q["owned_max"], q["ghosts_max"])
        exposed = max(1e-7, (q["step"] - twin["step"]) / S)
        # exposed = alpha m + B / beta - w D: fit alpha, 1/beta on exposed + w D
        xs.append((q["neighbours"], q["bytes"]))
        ys.append(exposed + W_HIDE * dev)
        used.add(q["name"])
    # two-parameter least squares (no intercept): y = alpha * m + B * inv_beta
    a11 = sum(x[0] * x[0] for x in xs)
    a12 = sum(x[0] * x[1] for x in xs)
    a22 = sum(x[1] * x[1] for x in xs)
    b1 = sum(x[0] * y for x, y in zip(xs, ys))
    b2 = sum(x[1] * y for x, y in zip(xs, ys))
    det = a11 * a22 - a12 * a12
    alpha = (b1 * a22 - b2 * a12) / det
    inv_beta = (a11 * b2 - a12 * b1) / det
    p["alpha_st"] = max(alpha, 1e-6)
    p["beta_st"] = 1 / inv_beta if inv_beta > 0 else 1e12
    return p, used


def ghost_law(points):
    """g = a n^(2/3) per model (two layers), fitted on the multi-GPU runs."""
    law = {}
    for model in ("scalar", "navier-stokes"):
        qs = [q for q in points if q["model"] == model and q["ranks"] > 1 and q["ghosts_max"]]
        a = math.exp(sum(math.log(q["ghosts_max"]) - 2 / 3 * math.log(q["owned_max"]) for q in qs) / len(qs))
        bpg = sum(q["bytes"] / q["ghosts_max"] for q in qs) / len(qs)  # bytes sent per ghost received
        law[model] = {"a": a, "bytes_per_ghost": bpg}
    return law


def predict(model_obj, law, model, cells, gpus, scenario):
    if gpus == 1:
        return S * model_obj.stage(model, 1, cells)
    n = cells / gpus
    g = law[model]["a"] * n ** (2 / 3)
    nb = min(gpus - 1, 6 if gpus <= 8 else 13)
    nbytes = g * law[model]["bytes_per_ghost"]
    nodes = 1 if scenario.startswith("one node") else max(1, gpus // GPUS_PER_NODE)
    off = 0.0 if nodes == 1 else 1 - GPUS_PER_NODE ** (-1 / 3)
    transport = "staged" if scenario == "one node, staged" else "ipc"
    network = "gpudirect" if scenario == "nodes, CUDA-aware GPUDirect" else None
    return S * model_obj.stage(model, gpus, 1.01 * n, g, nb, nbytes, transport, off, network)


SCENARIOS = ["one node, ipc", "one node, staged", "nodes, staged (today)", "nodes, CUDA-aware GPUDirect"]
CASES = [("scalar", 33718272, "scalar 33.8M tets"), ("scalar", 1081344, "scalar 1.08M tets"),
         ("navier-stokes", 16777216, "Taylor-Green 256^3"), ("navier-stokes", 7077888, "Taylor-Green 192^3")]


def run(root, out, check=False):
    x4, x2 = points_x4(root), points_x2(root)
    p, used = calibrate(x4, x2)
    m = Model(p)
    law = ghost_law(x4 + x2)
    rows = []
    for q in x2 + x4:
        if q["gpus"] == 1 and q["source"] == "2 x H200":
            continue  # the other machine's one-GPU runs: c, d are the four-GPU machine's
        t = m.step(q)
        rows.append({"point": q["name"], "machine": q["source"], "model": q["model"], "cells": q["cells"],
                     "gpus": q["gpus"], "transport": q["transport"], "measured_ms": 1e3 * q["step"],
                     "modelled_ms": 1e3 * t, "error": t / q["step"] - 1, "role": "fit" if q["name"] in used
                     else "validation"})
    val = [r for r in rows if r["role"] == "validation"]
    lines = ["# Scaling model of today's halo (`perf/scaling_model.py today`)", "",
             "Generated from the committed measurements (%s, %s); docs/parallel.md#scaling-model-of-todays-halo." % (X4, X2),
             "", "## Parameters", "", "| parameter | value | from |", "| --- | --- | --- |"]
    for model in ("scalar", "navier-stokes"):
        q = p[model]
        lines.append("| %s: c (device s per cell and stage) | %.3e | one-GPU runs, 4 x H200 (fit) |" % (model, q["c"]))
        lines.append("| %s: d (device s per stage) | %.1f us | same |" % (model, 1e6 * q["d"]))
        lines.append("| %s: rho (the decomposed stage's extra device work per ghost cell, in owned cells: the ghosts' unpack and first-layer gradients, the inner/frontier split, the pack) | %.2f | two-GPU large run, 4 x H200 (fit) |" % (model, q["rho"]))
    lines += ["| h1, h_e, h_n (host per stage, per exchange, per neighbour) | %.0f, %.0f, %.0f us | stage_tool.cpp breakdown, 2 x H200 |"
              % (1e6 * p["h1"], 1e6 * p["h_e"], 1e6 * p["h_n"]),
              "| staged: alpha_st per neighbour, beta_st | %.1f us, %.2f GB/s | two-GPU staged runs, 2 x H200 (fit) |"
              % (1e6 * p["alpha_st"], p["beta_st"] / 1e9),
              "| w (share of a stage an exchange can hide behind) | %.1f | assumed |" % W_HIDE,
              "| ghost law g = a n^(2/3), bytes per ghost | scalar a = %.2f, %.0f B; navier-stokes a = %.2f, %.0f B | the multi-GPU runs |"
              % (law["scalar"]["a"], law["scalar"]["bytes_per_ghost"], law["navier-stokes"]["a"],
                 law["navier-stokes"]["bytes_per_ghost"]),
              "| network between nodes | %s: %.0f us, %.0f GB/s | assumed |" % (NET["what"], 1e6 * NET["alpha"], NET["beta"] / 1e9),
              "", "## Measured against modelled (ms per step)", "",
              "| point | machine | model | cells | GPUs | transport | measured | modelled | error | role |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in sorted(rows, key=lambda r: (r["role"], r["machine"], r["model"], r["cells"], r["gpus"])):
        lines.append("| %s | %s | %s | %d | %d | %s | %.3f | %.3f | %+.1f %% | %s |" % (
            r["point"], r["machine"], r["model"], r["cells"], r["gpus"], r["transport"], r["measured_ms"],
            r["modelled_ms"], 100 * r["error"], r["role"]))
    errs = sorted(abs(r["error"]) for r in val)
    med = errs[len(errs) // 2]
    lines += ["", "Validation points: %d; |error| median %.1f %%, max %.1f %%." % (len(val), 100 * med, 100 * errs[-1]), ""]
    lines += ["## Predictions (modelled, not measured): strong efficiency", "",
              "Nodes of %d GPUs; across nodes a rank's off-node share of its halo 1 - G^(-1/3)." % GPUS_PER_NODE, ""]
    gpus_list = [1, 2, 4, 8, 16, 32, 64]
    lines.append("| case | scenario | " + " | ".join("%d GPUs" % g for g in gpus_list) + " |")
    lines.append("| --- | --- | " + " | ".join("---" for _ in gpus_list) + " |")
    preds = {}
    for model, cells, label in CASES:
        t1 = predict(m, law, model, cells, 1, SCENARIOS[0])
        for sc in SCENARIOS:
            effs = []
            for g in gpus_list:
                if sc.startswith("one node") and g > GPUS_PER_NODE * 2:
                    effs.append(None)
                    continue
                effs.append(t1 / (g * predict(m, law, model, cells, g, sc)))
            preds[(label, sc)] = effs
            lines.append("| %s | %s | %s |" % (label, sc, " | ".join("-" if e is None else "%.0f %%" % (100 * e)
                                                                      for e in effs)))
    lines += ["", "## Cells per GPU at 80 % strong efficiency (n_0.8), modelled", "",
              "| model | 2 GPUs, ipc | 8 GPUs (2 nodes), staged | 8 GPUs (2 nodes), GPUDirect |", "| --- | --- | --- | --- |"]
    for model in ("scalar", "navier-stokes"):
        cols = []
        for g, sc in ((2, SCENARIOS[0]), (8, SCENARIOS[2]), (8, SCENARIOS[3])):
            n = 1e4
            while n < 1e9:
                if predict(m, law, model, n * g, 1, sc) / (g * predict(m, law, model, n * g, g, sc)) >= 0.8:
                    break
                n *= 1.05
            cols.append("%.2fM" % (n / 1e6) if n < 1e9 else "> 1000M")
        lines.append("| %s | %s |" % (model, " | ".join(cols)))
    text = "\n".join(lines) + "\n"
    os.makedirs(out, exist_ok=True)
    open(os.path.join(out, "today.md"), "w").write(text)
    json.dump({"parameters": p, "ghost_law": law, "rows": rows,
               "predictions": {"%s | %s" % k: v for k, v in preds.items()}},
              open(os.path.join(out, "today.json"), "w"), indent=1)
    print(text)
    if check:
        # The model must reproduce what it was not fitted on: every validation point of the four-GPU
        # machine (the fit's revision; ipc and staged, 2 and 4 GPUs) within 15 %, all validation
        # points' median within 10 %, and the staged four-GPU Taylor-Green run far slower than its
        # ipc twin (as measured: 8.4 against 3.5 ms).
        bad = [r for r in val if r["machine"] == "4 x H200" and abs(r["error"]) > 0.15]
        st = [r for r in val if r["transport"] == "staged" and r["gpus"] == 4 and r["model"] == "navier-stokes"]
        ipc = [r for r in rows if r["point"] == "call3/tg_4"]
        if bad or med > 0.10 or not st or not ipc or st[0]["modelled_ms"] < 1.5 * ipc[0]["modelled_ms"]:
            print("check failed: median %.3f; %s" % (med, bad or st))
            return 1
        print("check: the four-GPU machine's validation points within 15 %, the median within 10 %, "
              "staged four-GPU Taylor-Green slower than ipc")
    return 0
