#!/usr/bin/env python3
"""ptxas resource report of the cuda preset, per kernel, and the local-memory gate of CI.

    ptxas_report.py build/cuda/ptxas.log [--exceptions perf/ptxas_exceptions.txt]
                    [--markdown OUT.md] [--csv OUT.csv] [--check]

Reads the `-Xptxas -v` log (cmake/gather_ptxas.cmake concatenates one block per object file),
demangles every entry function with c++filt, names it by its functor (the named functor classes
of the operators; lambdas by their enclosing function) and its launch policy, and classifies it:

  naive      fvproxy::naive::* and Naive* functors: local memory is their documented mistake
  ladder     fvproxy::ladder::* (the ablation ladder, benchmark-only): the naive mistakes removed
             one at a time, so its early steps keep local memory on purpose: reported, not gated
  fvproxy    every other fvproxy kernel (optimized operators, solver, mesh set-up): gated
  kokkos     Kokkos-internal kernels (fills, copies, sorts): reported, not gated

With --check, exits 1 when a gated kernel has a stack frame or spills and matches no line of the
exceptions file (`REGEX  # reason`, matched against the readable name), and lists them.
"""
import argparse
import collections
import csv
import re
import subprocess
import sys

Kernel = collections.namedtuple("Kernel", "name functor policy cls registers stack spill_st spill_ld mangled")


def parse(path):
    """(mangled name, registers, stack, spill stores, spill loads) per distinct kernel."""
    rows, current, props = {}, None, None
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            current, props = m.group(1), None
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and current:
            props = tuple(int(x) for x in m.groups())
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and current and props is not None:
            rows[current] = (int(m.group(1)),) + props  # the same kernel in several objects: identical
            current = None
    return rows


def demangle(names):
    if not names:
        return []
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def template_args(s, start):
    """The text between the '<' at s[start] and its matching '>'."""
    depth = 0
    for i in range(start, len(s)):
        if s[i] == "<":
            depth += 1
        elif s[i] == ">":
            depth -= 1
            if depth == 0:
                return s[start + 1:i]
    return s[start + 1:]


def split_top(args):
    parts, depth, cur = [], 0, ""
    for ch in args:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return parts


# Kokkos' wrappers around the user's functor in a kernel's first template argument, whose own
# first template argument is that functor: Kokkos 3.4's CudaFunctorAdapter<Functor, Policy, ...>,
# and Kokkos 4's CombinedFunctorReducer<Functor, FunctorAnalysis<...>::Reducer[, void]>, which
# Kokkos::Impl::ParallelReduceAdaptor (Kokkos_Parallel_Reduce.hpp, 4.x) passes to every
# ParallelReduce<CombinedFunctorReducer<...>, Policy, Space> in place of 3.4's
# ParallelReduce<Functor, Policy, Reducer, Space>. Unwrapped, a kernel has the same name on both
# versions, so perf/ptxas_exceptions.txt holds for both.
FUNCTOR_WRAPPERS = ("Kokkos::Impl::CudaFunctorAdapter<", "Kokkos::Impl::CombinedFunctorReducer<")


def unwrap(functor):
    while True:
        wrapper = next((w for w in FUNCTOR_WRAPPERS if functor.startswith(w)), None)
        if not wrapper:
            return functor
        functor = split_top(template_args(functor, len(wrapper) - 1))[0]


def describe(readable):
    """(functor, policy) of a Kokkos launch wrapper, or the function itself."""
    for wrapper in ("ParallelFor<", "ParallelReduce<", "ParallelScan<"):
        i = readable.find("Kokkos::Impl::" + wrapper)
        if i >= 0:
            args = split_top(template_args(readable, i + len("Kokkos::Impl::" + wrapper) - 1))
            functor = unwrap(args[0])
            policy = args[1] if len(args) > 1 else ""
            kind = ("MDRange" if "MDRange" in policy else "Team" if "TeamPolicy" in policy
                    else "Range" if "RangePolicy" in policy else policy.split("<")[0])
            functor = re.sub(r"\(anonymous namespace\)::", "", functor)
            functor = re.sub(r"_INTERNAL_\w+::", "", functor)
            functor = re.sub(r"^fvproxy::detail::TeamLoop<(.*)>$", r"\1", functor).strip()
            return functor, kind
    return readable, ""


def classify(functor):
    if "fvproxy" not in functor:
        return "kokkos"
    if "fvproxy::naive::" in functor or re.search(r"(^|::)Naive", functor):
        return "naive"
    if "fvproxy::ladder::" in functor:
        return "ladder"
    return "fvproxy"


def kernels(path):
    raw = parse(path)
    names = list(raw)
    out = []
    for mangled, readable in zip(names, demangle(names)):
        functor, policy = describe(readable)
        regs, stack, st, ld = raw[mangled]
        out.append(Kernel(readable, functor, policy, classify(functor), regs, stack, st, ld, mangled))
    out.sort(key=lambda k: (k.cls, k.functor, k.policy))
    return out


def read_exceptions(path):
    rules = []
    if not path:
        return rules
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        regex, _, reason = text.partition("#")
        if not reason.strip():
            sys.exit(f"{path}:{n}: error: an exception needs a reason after '#'")
        rules.append((re.compile(regex.strip()), reason.strip(), n))
    return rules


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("log")
    ap.add_argument("--exceptions")
    ap.add_argument("--markdown")
    ap.add_argument("--csv")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    ks = kernels(a.log)
    if not ks:
        sys.exit(f"{a.log}: error: no kernels found (is it a -Xptxas -v log?)")
    rules = read_exceptions(a.exceptions)
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["class", "functor", "policy", "registers", "stack_bytes", "spill_store_bytes",
                        "spill_load_bytes"])
            for k in ks:
                w.writerow([k.cls, k.functor, k.policy, k.registers, k.stack, k.spill_st, k.spill_ld])
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write("| class | kernel (functor) | policy | registers | stack (B) | spill st / ld (B) |\n")
            f.write("| --- | --- | --- | --- | --- | --- |\n")
            for k in ks:
                f.write(f"| {k.cls} | `{k.functor}` | {k.policy} | {k.registers} | {k.stack} | "
                        f"{k.spill_st} / {k.spill_ld} |\n")
    counts = collections.Counter(k.cls for k in ks)
    local = [k for k in ks if k.stack or k.spill_st or k.spill_ld]
    print(f"{len(ks)} kernels: " + ", ".join(f"{n} {c}" for c, n in sorted(counts.items())))
    print("with local memory (stack or spills):")
    for k in local:
        print(f"  [{k.cls:7}] {k.functor} ({k.policy}): {k.registers} registers, {k.stack} B stack, "
              f"{k.spill_st}/{k.spill_ld} B spills")
    if not a.check:
        return 0
    failures, used = [], set()
    for k in local:
        if k.cls != "fvproxy":
            continue
        hit = next((r for r in rules if r[0].search(k.functor)), None)
        if hit:
            used.add(hit[2])
        else:
            failures.append(k)
    for rx, reason, n in rules:
        if n not in used:
            print(f"note: exception on line {n} ({rx.pattern}) matched nothing: remove it if obsolete")
    if failures:
        print(f"FAILED: {len(failures)} gated kernel(s) use local memory and are not in the exceptions file:")
        for k in failures:
            print(f"  {k.functor} ({k.policy}): {k.stack} B stack, {k.spill_st}/{k.spill_ld} B spills")
        return 1
    print("OK: no gated kernel uses local memory outside the documented exceptions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
