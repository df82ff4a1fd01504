#!/usr/bin/env python3
"""Runs docs/tutorial.md as printed (issue 41): every command of its code blocks, in order, in a
scratch folder laid out like the repository root (build/host/fvproxy, inputs/, tests/ linked), and
checks the figures the tutorial prints against what the commands print, loosely.

  tutorial.py FVPROXY SOURCE_DIR OUT_DIR

A command is a code-block line starting with "$ " (its continuation lines: after a trailing
backslash, or while a quote is open); the block's other lines are the output it printed, an excerpt
("..." marks what was left out). Not run: `make ...` (the build itself) and the `ctest` of step 5
(this test is one of those); an `export` sets the variables for the commands after it. Checked, with numbers within 0.1 % (1e-6 absolute): the lines that do
not depend on the machine -- "done: N steps to t = T", the error norms "u0 L1 L2 Linf", meshio's
"t = .. u0 min .. max ..", "N cells matched by global id", "all N fields within tolerance" and
"exit N" -- each must appear in the command's output. Every command must exit 0. The commands run
with OMP_NUM_THREADS=1, as the tutorial's were; the mpirun line carries what it needs as root.
"""
import os
import re
import subprocess
import sys

CHECKED = [
    re.compile(r"^done: (\d+) steps to t = (\S+) "),
    re.compile(r"^u0\s+(\S+)\s+(\S+)\s+(\S+)$"),
    re.compile(r"^t = (\S+)\s+u0 min (\S+) max (\S+)$"),
    re.compile(r"^(\d+) cells matched by global id"),
    re.compile(r"^all (\d+) fields within tolerance$"),
    re.compile(r"^exit (\d+)$"),
]


def commands(text):
    """[(command, [expected output lines])] of the tutorial's code blocks, in order."""
    out, cmd, open_quote = [], None, False
    for raw in text.splitlines():
        if not raw.startswith("    ") and raw.strip():  # prose ends a block
            cmd = None
            continue
        line = raw.strip()
        if cmd is not None and (cmd[0].endswith("\\") or open_quote):
            cmd[0] = cmd[0][:-1] + " " + line if cmd[0].endswith("\\") else cmd[0] + "\n" + raw[4:]
            open_quote = cmd[0].count("'") % 2 == 1
            continue
        if line.startswith("$ "):
            cmd = [line[2:], []]
            out.append(cmd)
            open_quote = cmd[0].count("'") % 2 == 1
        elif cmd is not None and line:
            cmd[1].append(line)
    return [(c, e) for c, e in out]


def numbers(match):
    return [float(x) for x in match.groups()]


def close(a, b):
    return all(abs(x - y) <= max(1e-6, 1e-3 * max(abs(x), abs(y))) for x, y in zip(a, b))


def check(expected, printed):
    """The checked lines of `expected` missing from `printed` (each: the line)."""
    lines = [p.strip() for p in printed.splitlines()]
    missing = []
    for e in expected:
        for pat in CHECKED:
            m = pat.match(e)
            if not m:
                continue
            want = numbers(m)
            if not any((n := pat.match(p)) and close(numbers(n), want) for p in lines):
                missing.append(e)
            break
    return missing


def main():
    fv, src, out = (os.path.abspath(a) for a in sys.argv[1:4])
    os.makedirs(os.path.join(out, "build", "host"), exist_ok=True)
    for name, target in (("build/host/fvproxy", fv), ("inputs", os.path.join(src, "inputs")),
                         ("tests", os.path.join(src, "tests")), ("mesh", os.path.join(src, "mesh"))):
        link = os.path.join(out, name)
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(target, link)
    with open(os.path.join(src, "docs", "tutorial.md")) as f:
        cmds = commands(f.read())
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("OMP_PROC_BIND", None)  # as a user's shell: fvproxy must not print Kokkos' advice
    failed, ran = 0, 0
    for cmd, expected in cmds:
        if cmd.startswith("make ") or "ctest" in cmd:
            print(f"skip  {cmd.splitlines()[0][:100]}")
            continue
        ran += 1
        if cmd.startswith("export "):  # the shell's state for the commands after it
            for kv in cmd.split("#")[0].split()[1:]:
                k, _, v = kv.partition("=")
                env[k] = v
            print(f"ok    {cmd[:100]}")
            continue
        p = subprocess.run(["bash", "-c", cmd], cwd=out, env=env, capture_output=True, text=True, timeout=300)
        printed = p.stdout + p.stderr
        problems = []
        if p.returncode != 0:
            problems.append(f"exit {p.returncode}")
        problems += [f"not printed: {m}" for m in check(expected, printed)]
        if "OMP_PROC_BIND" in printed:
            problems.append("Kokkos' OMP_PROC_BIND advice printed")
        print(("FAIL  " if problems else "ok    ") + cmd.splitlines()[0][:100])
        if problems:
            failed += 1
            for q in problems:
                print("      " + q)
            print("      output:\n" + "\n".join("        " + l for l in printed.splitlines()[-25:]))
    if ran < 8:
        print(f"only {ran} commands found in docs/tutorial.md")
        return 1
    print("OK" if failed == 0 else f"{failed} of {ran} commands failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
