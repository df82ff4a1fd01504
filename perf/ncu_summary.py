#!/usr/bin/env python3
"""perf/ncu_summary.py NCU_TXT [--csv OUT.csv]: one row per profiled kernel launch of a
perf/ncu.sh report (ncu's text output with the SpeedOfLight, MemoryWorkloadAnalysis, LaunchStats
and Occupancy sections): the kernel (functor name), grid x block, registers per thread, duration,
DRAM, L2 and L1 throughput (% of peak), DRAM bytes/s, L2 hit rate, theoretical and achieved
occupancy. Repeated launches of one kernel are averaged. What bounds a kernel is read off the
row: the unit whose throughput is highest (DRAM, L2 or L1) near 80-90% means that unit; all of
them low with low achieved occupancy means latency."""
import argparse
import csv
import gzip
import re
import sys

METRICS = {
    "Duration": "duration",
    "DRAM Throughput": "dram_pct",
    "L2 Cache Throughput": "l2_pct",
    "L1/TEX Cache Throughput": "l1_pct",
    "Compute (SM) Throughput": "sm_pct",
    "L2 Hit Rate": "l2_hit_pct",
    "Registers Per Thread": "registers",
    "Theoretical Occupancy": "occupancy_theoretical_pct",
    "Achieved Occupancy": "occupancy_achieved_pct",
    "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active": "fp64_pct",  # with NCU_EXTRA=--metrics ...
}
HEADER = re.compile(r"^  (?:void )?(\S.*?)\s+\((\d+), (\d+), (\d+)\)x\((\d+), (\d+), (\d+)\), Context")


def short_name(name):
    """The functor of a Kokkos launch: ParallelFor<FUNCTOR, POLICY...> -> FUNCTOR (+ team policy)."""
    m = re.search(r"Parallel(?:For|Reduce)<(.*?), (RangePolicy|TeamPolicy|MDRangePolicy)", name)
    if not m:
        return name[:80]
    functor = m.group(1).replace("detail::TeamLoop<unnamed>::", "").replace("optimized::", "")
    functor = functor.replace("(anonymous namespace)::", "").replace("unnamed>::", "")
    return f"{functor.rstrip('>') if functor.endswith('Copy>') else functor} [{m.group(2)}]"


def parse(path):
    rows, cur = [], None
    opener = gzip.open if path.endswith(".gz") else open
    for line in opener(path, "rt", errors="replace"):
        h = HEADER.match(line)
        if h:
            cur = {"kernel": short_name(h.group(1)), "grid": int(h.group(2)) * int(h.group(3)) * int(h.group(4)),
                   "block": int(h.group(5)) * int(h.group(6)) * int(h.group(7))}
            rows.append(cur)
            continue
        if cur is None:
            continue
        for label, key in METRICS.items():
            m = re.match(r"^\s{4}" + re.escape(label) + r"\s+(\S+)?\s+([\d.,]+)\s*$", line)
            if m and key not in cur:
                unit, value = m.group(1) or "", float(m.group(2).replace(",", ""))
                if key == "duration":
                    value *= {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}.get(unit, 1.0)  # -> ms
                cur[key] = value
        m = re.match(r"^\s{4}Memory Throughput\s+Tbyte/s\s+([\d.]+)", line)
        if m:
            cur["dram_tb_s"] = float(m.group(1))
        m = re.match(r"^\s{4}Memory Throughput\s+Gbyte/s\s+([\d.]+)", line)
        if m:
            cur["dram_tb_s"] = float(m.group(1)) / 1e3
    return rows


def average(rows):
    """One row per (kernel, grid, block): the mean of its launches."""
    groups = {}
    for r in rows:
        groups.setdefault((r["kernel"], r["grid"], r["block"]), []).append(r)
    out = []
    for (kernel, grid, block), rs in groups.items():
        row = {"kernel": kernel, "grid": grid, "block": block, "launches": len(rs)}
        for key in list(METRICS.values()) + ["dram_tb_s"]:
            vals = [r[key] for r in rs if key in r]
            row[key] = sum(vals) / len(vals) if vals else float("nan")
        out.append(row)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ncu_txt")
    ap.add_argument("--csv")
    args = ap.parse_args()
    rows = average(parse(args.ncu_txt))
    if not rows:
        sys.exit(f"ncu_summary: no kernel launches found in {args.ncu_txt}")
    cols = ["kernel", "grid", "block", "launches", "registers", "duration", "dram_pct", "l2_pct", "l1_pct", "sm_pct",
            "dram_tb_s", "l2_hit_pct", "occupancy_theoretical_pct", "occupancy_achieved_pct", "fp64_pct"]
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=cols)
            w.writeheader()
            for r in rows:
                w.writerow({c: (round(r[c], 4) if isinstance(r[c], float) else r[c]) for c in cols})
    print("| kernel | block | regs | ms | DRAM % | L2 % | L1 % | SM % | FP64 pipe % | DRAM TB/s | L2 hit % | "
          "occupancy th./ach. % |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['kernel']} | {r['block']} | {r['registers']:.0f} | {r['duration']:.3f} | {r['dram_pct']:.1f} | "
              f"{r['l2_pct']:.1f} | {r['l1_pct']:.1f} | {r['sm_pct']:.1f} | {r['fp64_pct']:.1f} | {r['dram_tb_s']:.2f} | "
              f"{r['l2_hit_pct']:.1f} | "
              f"{r['occupancy_theoretical_pct']:.0f} / {r['occupancy_achieved_pct']:.0f} |")


if __name__ == "__main__":
    main()
