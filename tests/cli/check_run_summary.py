#!/usr/bin/env python3
"""Checks `fvproxy run`: --quiet prints nothing, summary.json holds the keys of docs/output.md#json-output with
self-consistent values, --profile fills the timers, and summary.json is replaced atomically.
usage: check_run_summary.py FVPROXY CASE [MPIEXEC NP]: with MPIEXEC, every run is `MPIEXEC -np NP ... FVPROXY run`
(the per-rank keys: ranks, phases, slowest_rank, halo, timers over ranks)."""
import json
import os
import subprocess
import sys
import tempfile

exe, case = sys.argv[1], sys.argv[2]
np = int(sys.argv[4]) if len(sys.argv) > 4 else 1
launch = [sys.argv[3], "-np", str(np), "--oversubscribe", "--bind-to", "none"] if len(sys.argv) > 4 else []


COUNTERS = ["exchanges", "messages", "values_sent", "bytes_sent", "seconds_pack", "seconds_wait", "seconds_unpack",
            "seconds_in_flight", "fraction_hidden"]
# the device timeline (docs/halo.md#halo-statistics): seconds 0 and the fraction null on host builds
GPU = ["gpu_seconds_transfer", "gpu_seconds_overlapped", "gpu_fraction_overlapped"]
REAL_BYTES = 8  # sizeof(real): set from summary.json's build below


def stat(s):  # {"min", "mean", "max", "slowest_rank"} over ranks
    assert set(s) == {"min", "mean", "max", "slowest_rank"}, s
    assert s["min"] <= s["mean"] * (1 + 1e-12) + 1e-300 and s["mean"] <= s["max"] * (1 + 1e-12) + 1e-300, s
    assert 0 <= s["slowest_rank"] < np, s


def per_rank(j, profiled):
    """The per-rank keys (docs/output.md#json-output)."""
    ranks = j["ranks"]
    assert [r["rank"] for r in ranks] == list(range(np)), ranks
    for r in ranks:
        assert r["host"] and 0 <= r["local_rank"] < r["local_size"] <= np, r
        if r["device"] == "host":
            assert r["device_id"] is None and r["pci_bus_id"] is None, r
        else:
            assert r["device"] == "cuda" and r["device_id"] >= 0 and r["pci_bus_id"], r
        s = r["seconds"]
        assert set(s) == {"setup", "time_loop", "io", "halo_wait", "busy"}, s
        assert s["time_loop"] > 0 and s["setup"] > 0 and 0 <= s["busy"] <= s["time_loop"], s
        h = r["halo"]
        assert set(h) == set(COUNTERS) | set(GPU) | {"stages", "state", "gradient_limiter"}, h
        for kind in ["state", "gradient_limiter"]:
            assert set(h[kind]) == set(COUNTERS) | set(GPU) | {"per_stage"}, h[kind]
            assert set(h[kind]["per_stage"]) == set(COUNTERS) - {"values_sent", "fraction_hidden"}, h[kind]
        for c in [h, h["state"], h["gradient_limiter"]]:
            assert set(c) - {"stages", "state", "gradient_limiter", "per_stage"} == set(COUNTERS) | set(GPU), c
            assert 0 <= c["fraction_hidden"] <= 1 and c["bytes_sent"] == c["values_sent"] * REAL_BYTES, c
            assert c["seconds_wait"] <= c["seconds_in_flight"] * (1 + 1e-9) + 1e-12, c  # exposed within in flight
            assert 0 <= c["gpu_seconds_overlapped"] <= c["gpu_seconds_transfer"] * (1 + 1e-9), c
            if r["device"] == "host" or c["gpu_seconds_transfer"] == 0:
                assert c["gpu_fraction_overlapped"] is None and c["gpu_seconds_transfer"] == 0, c
            else:
                assert 0 <= c["gpu_fraction_overlapped"] <= 1, c
        assert (r["ghost_cells"] > 0) == (np > 1) and (h["exchanges"] > 0) == (np > 1), r
        if np > 1:  # one state and one gradient + limiter exchange per stage (SSP-RK3: 3 stages per step)
            assert h["stages"] == h["state"]["exchanges"] == h["gradient_limiter"]["exchanges"] == 3 * j["steps"], h
            assert h["state"]["per_stage"]["exchanges"] == 1 and h["state"]["per_stage"]["messages"] >= 1, h
            # the gradients and limiter values: 3N + N values per row sent, against the state's N
            assert h["gradient_limiter"]["per_stage"]["bytes_sent"] == 4 * h["state"]["per_stage"]["bytes_sent"], h
            assert h["exchanges"] == 2 * h["stages"] and h["bytes_sent"] == sum(
                h[k]["bytes_sent"] for k in ("state", "gradient_limiter")), h
    assert sum(r["owned_cells"] for r in ranks) == j["cells"], ranks
    # Memory peaks (docs/output.md#json-output): the counted Kokkos allocations hold at least the
    # mesh and solver arrays (memory_bytes: this run's, rank 0's on several ranks); per owned cell.
    for r in ranks:
        m = r["memory"]
        assert set(m) == {"device_space", "device_peak_bytes", "host_peak_bytes", "device_bytes_per_cell",
                          "host_bytes_per_cell"}, m
        assert m["device_space"] == j["memory"]["device_space"], m
        assert m["device_peak_bytes"] > 0 and m["host_peak_bytes"] > 0, m
        if m["device_space"] == "Host":  # host backends: the Kokkos allocations are resident host memory
            assert m["host_peak_bytes"] >= m["device_peak_bytes"], m
        for k in ("device", "host"):
            assert abs(m[k + "_bytes_per_cell"] * r["owned_cells"] - m[k + "_peak_bytes"]) <= 1e-6 * m[k + "_peak_bytes"], m
    assert ranks[0]["memory"]["device_peak_bytes"] >= j["memory_bytes"], (ranks[0]["memory"], j["memory_bytes"])
    assert j["memory"]["device_space"] in ("Host", "Cuda"), j["memory"]
    for k in ("device_peak_bytes", "host_peak_bytes", "device_bytes_per_cell", "host_bytes_per_cell"):
        stat(j["memory"][k])
        assert j["memory"][k]["max"] == max(r["memory"][k] for r in ranks), (k, j["memory"][k])
    assert set(j["phases"]) == {"setup", "time_loop", "io", "busy"}
    for v in j["phases"].values():
        stat(v)
    assert j["slowest_rank"]["rank"] == j["phases"]["busy"]["slowest_rank"], j["slowest_rank"]
    assert j["slowest_rank"]["busy_seconds"] == j["phases"]["busy"]["max"]
    h = j["halo"]
    assert h["variant"] == ("optimized" if np > 1 else "none"), h
    host = ranks[0]["device"] == "host"
    for k in COUNTERS + GPU[:2] + ["stages"]:
        stat(h[k])
    for kind in ["state", "gradient_limiter"]:
        for k in COUNTERS + GPU[:2]:
            stat(h[kind][k])
    for c in [h, h["state"], h["gradient_limiter"]]:  # null on host builds, else over ranks
        if host or np == 1:
            assert c["gpu_fraction_overlapped"] is None, c
        else:
            stat(c["gpu_fraction_overlapped"])
    if np > 1:  # the transport that ran (host builds: MPI on the packed host buffers), the overlap on a GPU
        assert h["transport"] == ("mpi" if host else h["transport"]) and h["transport"] in ("mpi", "ipc", "staged"), h
        assert h["transport_fallback"] is None, h
        assert h["layers"] == 1, h  # the scalar model's default (docs/halo.md#two-ghost-layers)
        assert (h["gpu_overlap"] is None) == host and (host or 0 <= h["gpu_overlap"] <= 1), h
    else:
        assert "transport" not in h, h
        for v in h[kind]["per_stage"].values():
            stat(v)
    if np > 1:  # per stage two exchanges: the state, then the gradients and limiter values in one message
        # (SSP-RK3: 3 stages per step)
        assert h["exchanges"]["min"] == h["exchanges"]["max"] == 2 * 3 * j["steps"], h
    for t in j["timers"].values():
        stat({k: t[k] for k in ("min", "mean", "max", "slowest_rank")})
        assert t["seconds"] == t["max"], t
    assert bool(j["timers"]) == profiled

# One ghost layer (the case's default is two: docs/halo.md#two-ghost-layers), so that both kinds of
# exchange are in the summary: the state and the gradients + limiter values, each once per stage.
small = ["--set", "mesh.generate.cells=[6,6,6]", "--set", "time={end_time: 0.05}", "--set", "parallel.halo.layers=1"]
with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "nested", "out")
    p = subprocess.run(launch + [exe, "run", case, "--quiet", "--output-dir", out] + small, capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "", "--quiet printed: " + p.stdout
    assert "step " not in p.stderr, "--quiet printed progress"
    j = json.load(open(os.path.join(out, "summary.json")))
    for k in ["case", "steps", "time", "wall_seconds", "cell_updates_per_second", "errors", "conservation",
              "timers", "memory_bytes", "config", "build"]:
        assert k in j, k
    assert j["case"] == "default" and j["status"] == "completed"
    assert abs(j["time"] - 0.05) < 1e-12 and j["steps"] >= 1
    assert abs(j["steps"] * j["dt"] - j["time"]) < 1e-12
    assert j["cells"] == 6 * 6 * 6 * 6
    assert j["timers"] == {}, "timers without --profile"
    assert set(j["errors"]) == {"u0"} and set(j["errors"]["u0"]) == {"l1", "l2", "linf"}
    e = j["errors"]["u0"]
    assert 0 < e["l1"] <= e["l2"] <= e["linf"] < 0.5, e
    c = j["conservation"]["u0"]
    rtol = 1e-10 if j["build"]["real"] == "double" else 1e-4  # docs/output.md#tolerances: the run tolerance
    assert abs(c["final"] - c["initial"]) <= rtol * abs(c["initial"]), c
    assert j["config"]["time"]["end_time"] == 0.05 and j["config"]["mesh"]["generate"]["cells"] == [6, 6, 6]
    assert j["config"]["output"]["dir"] == out
    assert "kokkos" in j["build"] and "hdf5" in j["build"]
    assert j["memory_bytes"] > 0 and j["cell_updates_per_second"] > 0
    # Without output.every: the mesh, the final fields, the XDMF and the summary; no temporary file.
    want = {"summary.json", "mesh.h5", "default.xdmf", "fields_%06d.h5" % j["steps"]}
    assert set(os.listdir(out)) == want, os.listdir(out)
    assert j["files"] == {"fields": ["fields_%06d.h5" % j["steps"]], "checkpoints": []}, j["files"]
    REAL_BYTES = 8 if j["build"]["real"] == "double" else 4
    per_rank(j, False)

    p = subprocess.run(launch + [exe, "run", case, "--profile", "--output-dir", out] + small, capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr
    assert "fvproxy::solver::stage_update" in p.stdout and "share" in p.stdout, p.stdout
    j = json.load(open(os.path.join(out, "summary.json")))
    t = j["timers"]
    assert t["fvproxy::solver::stage_update"]["calls"] == 3 * j["steps"], t
    assert all(v["seconds"] >= 0 and v["calls"] > 0 for v in t.values())
    assert all(k.startswith("fvproxy::") for k in t), [k for k in t if not k.startswith("fvproxy::")]
    per_rank(j, True)
    assert "memory" in p.stdout and "B/cell" in p.stdout, p.stdout
    if np > 1:
        assert "ranks: %d; slowest: rank" % np in p.stdout and "halo exchange (optimized" in p.stdout, p.stdout
        assert "gradient_limiter" in p.stdout and "fraction hidden" in p.stdout, p.stdout
        assert "fvproxy::parallel::halo_pack" in t, t
print("OK")
