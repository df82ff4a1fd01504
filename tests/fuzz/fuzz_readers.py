#!/usr/bin/env python3
"""Bounded mutation fuzzing of fvproxy's readers: YAML case files, Gmsh meshes (MSH 4.1 ASCII and
binary, 2.2 ASCII) and HDF5 fields/checkpoint files (compare and run --restart).

Each iteration takes a good input, applies 1-3 random mutations (bit flips, truncations, token
substitutions, huge counts, nan/inf, duplicated lines and keys, second documents, ...), runs the
binary on it with a timeout and flags what a reader must never do:

  - die by a signal, exit with a code other than the command's (0/1/2; 1 only where a run or a
    comparison may legitimately fail), or hang past the timeout;
  - print a sanitizer report, "terminate called", std::bad_alloc or an uncaught exception's
    "error: <what>" (an exception that is not one of fvproxy's InputError/RunError);
  - exit 2 without a first error line ("...: error: ...");
  - accept damaged data silently: compare of a damaged file against its original exiting 1 (a
    difference the checksums should have refused), or a restart from a damaged checkpoint that
    completes with results other than the intact checkpoint's (run.deterministic: bitwise).

Not run by CTest. Usage (tests/fuzz/README.md):

    python3 tests/fuzz/fuzz_readers.py build/host/fvproxy [--count 100] [--kinds yaml,msh,h5]
        [--seed 1] [--max-seconds 900] [--work out/fuzz]

Every flagged input is kept in WORK/findings/ with the command and its output; the summary counts
inputs, exit codes and findings per kind.
"""
import argparse
import collections
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

SUSPICIOUS = [
    "AddressSanitizer", "LeakSanitizer", "runtime error:", "terminate called", "bad_alloc",
    "Segmentation fault", "what():", "Assertion", "Kokkos::abort", "core dumped", "stack smashing",
]

# Values a reader must survive where a number (or any scalar) stands.
SPECIAL_NUMBERS = [
    "nan", "-nan", "NaN", "inf", "-inf", "Infinity", "1e308", "-1e308", "1e309", "1e-320", "0", "-0", "-1",
    "2147483647", "2147483648", "-2147483649", "4294967297", "9223372036854775807", "9223372036854775808",
    "-9223372036854775808", "18446744073709551617", "99999999999999999999999", "2000000000", "0x10", "1_000",
    "1.5", "3e9",
]
SPECIAL_YAML = SPECIAL_NUMBERS + [
    ".nan", ".NaN", ".inf", "-.inf", "~", "null", "[]", "{}", '""', "[1, 2]", "{a: 1}", "true", "yes", "*x",
    "&x 1", "!!binary AAAA", '"\\0"', "[[[[[[[[", "? x", "- -", "|", ">", "'", "{", "]", "&a [*a]",
]

NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def run(cmd, timeout, env):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, env=env)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"), time.time() - t0
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace")
        err = (e.stderr or b"").decode(errors="replace")
        return "timeout", out, err, time.time() - t0


def first_error_line(err):
    """The first stderr line that is not a Kokkos start-up warning."""
    for line in err.splitlines():
        s = line.strip()
        if not s or s.startswith("Kokkos::OpenMP::") or s.startswith("In general") or s.startswith("For best"):
            continue
        if "OMP_PROC_BIND" in s or "OMP_PLACES" in s:
            continue
        return line
    return ""


def problems(rc, out, err, allowed, run_failure_ok):
    """What is wrong with one result (empty: nothing)."""
    p = []
    both = out + err
    if rc == "timeout":
        p.append("timeout (hang?)")
    elif rc < 0:
        p.append("killed by signal %d" % -rc)
    elif rc not in allowed:
        p.append("exit code %d" % rc)
    for s in SUSPICIOUS:
        if s in both:
            p.append("output contains '%s'" % s)
    if rc == 1 and not run_failure_ok(both):
        p.append("exit 1 without a run failure: %s" % first_error_line(err)[:200])
    for line in err.splitlines():
        if line.startswith("error: ") and rc != 0:
            p.append("an uncaught exception's message: %s" % line[:200])
            break
    if rc == 2 and "error:" not in first_error_line(err):
        p.append("exit 2 without a first error line: %r" % first_error_line(err)[:200])
    return p


# --- mutations ------------------------------------------------------------------------------------

def flip_bits(data, rng, n=None, lo=0, hi=None):
    b = bytearray(data)
    hi = len(b) if hi is None else min(hi, len(b))
    for _ in range(n or rng.randint(1, 3)):
        if hi <= lo:
            break
        i = rng.randrange(lo, hi)
        b[i] ^= 1 << rng.randrange(8)
    return bytes(b)


def truncate(data, rng):
    return data[: rng.randrange(0, max(1, len(data)))]


def lines_op(data, rng):
    lines = data.split(b"\n")
    if len(lines) < 2:
        return data
    i = rng.randrange(len(lines))
    op = rng.choice(["dup", "del", "swap", "dup_block"])
    if op == "dup":
        lines.insert(i, lines[i])
    elif op == "del":
        del lines[i]
    elif op == "swap":
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    else:
        j = min(len(lines), i + rng.randint(2, 6))
        lines[j:j] = lines[i:j]
    return b"\n".join(lines)


def replace_number(data, rng, values):
    matches = list(NUMBER.finditer(data))
    if not matches:
        return data
    m = rng.choice(matches)
    return data[: m.start()] + rng.choice(values).encode() + data[m.end():]


def replace_number_after(data, rng, values, marker):
    """Replaces the first number after a section header (a count) with one of `values`."""
    at = data.find(marker)
    if at < 0:
        return replace_number(data, rng, values)
    m = NUMBER.search(data, at + len(marker))
    if not m:
        return data
    return data[: m.start()] + rng.choice(values).encode() + data[m.end():]


def mutate_yaml(text, rng):
    for _ in range(rng.randint(1, 3)):
        op = rng.choice(["flip", "truncate", "lines", "number", "scalar", "scalar", "dupkey", "document", "tab",
                         "indent", "nest", "alias", "word"])
        if op == "flip":
            text = flip_bits(text, rng)
        elif op == "truncate":
            text = truncate(text, rng)
        elif op == "lines":
            text = lines_op(text, rng)
        elif op == "number":
            text = replace_number(text, rng, SPECIAL_NUMBERS)
        elif op == "scalar":
            # A value after a colon replaced by a special YAML scalar or collection.
            ms = list(re.finditer(rb": ([^\n#{}\[\],]+)", text))
            if ms:
                m = rng.choice(ms)
                text = text[: m.start(1)] + rng.choice(SPECIAL_YAML).encode() + text[m.end(1):]
        elif op == "dupkey":
            ms = list(re.finditer(rb"(?m)^( *)([a-z_]+):.*$", text))
            if ms:
                m = rng.choice(ms)
                text = text[: m.end()] + b"\n" + m.group(0) + text[m.end():]
            ms = list(re.finditer(rb"\{([a-z_]+): ([^,}]+)", text))
            if ms and rng.random() < 0.5:
                m = rng.choice(ms)
                text = text[: m.end()] + b", " + m.group(1) + b": " + m.group(2) + text[m.end():]
        elif op == "document":
            lines = text.split(b"\n")
            i = rng.randrange(len(lines) + 1)
            lines.insert(i, rng.choice([b"---", b"--- x", b"...", b"---\nmesh: 1", b"%YAML 1.2\n---"]))
            text = b"\n".join(lines)
        elif op == "tab":
            i = rng.randrange(len(text) + 1)
            text = text[:i] + b"\t" + text[i:]
        elif op == "indent":
            lines = text.split(b"\n")
            i = rng.randrange(len(lines))
            lines[i] = (b" " * rng.choice([1, 2, 3, 4])) + lines[i] if rng.random() < 0.5 else lines[i].lstrip()
            text = b"\n".join(lines)
        elif op == "nest":
            depth = rng.choice([50, 500, 5000, 100000])
            text += b"\nx: " + b"[" * depth + b"]" * depth + b"\n"
        elif op == "alias":
            # Aliases fanning out (a "billion laughs" tree) where a section should be.
            bomb = [b"a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
            for k in range(1, 9):
                bomb.append(b"a%d: &a%d [" % (k, k) + b", ".join([b"*a%d" % (k - 1)] * 10) + b"]")
            text = b"\n".join(bomb) + b"\n" + text + b"\nphysics: *a8\n"
        else:
            words = re.findall(rb"[a-z_]{3,}", text)
            if words:
                w, v = rng.choice(words), rng.choice(words)
                text = text.replace(w, v, 1)
    return text


def mutate_msh_ascii(data, rng):
    for _ in range(rng.randint(1, 3)):
        op = rng.choice(["flip", "truncate", "lines", "number", "number", "count", "coord", "section"])
        if op == "flip":
            data = flip_bits(data, rng)
        elif op == "truncate":
            data = truncate(data, rng)
        elif op == "lines":
            data = lines_op(data, rng)
        elif op == "number":
            data = replace_number(data, rng, SPECIAL_NUMBERS)
        elif op == "count":
            marker = rng.choice([b"$Nodes\n", b"$Elements\n", b"$Entities\n", b"$PhysicalNames\n"])
            data = replace_number_after(data, rng, ["2000000000", "4294967296", "-1", "0", "999999999999"], marker)
        elif op == "coord":
            # A node coordinate (a token with a decimal point or exponent inside $Nodes).
            a, b = data.find(b"$Nodes"), data.find(b"$EndNodes")
            if 0 <= a < b:
                ms = [m for m in NUMBER.finditer(data, a, b) if b"." in m.group(0) or b"e" in m.group(0)]
                if ms:
                    m = rng.choice(ms)
                    v = rng.choice(["nan", "inf", "-inf", "1e308", "-1e308", "1e300", "NAN", "infinity"])
                    data = data[: m.start()] + v.encode() + data[m.end():]
        else:
            secs = re.findall(rb"(?s)\$(\w+)\n.*?\$End\1\n", data)
            if secs:
                name = rng.choice(secs)
                m = re.search(rb"(?s)\$" + name + rb"\n.*?\$End" + name + rb"\n", data)
                data = data[: m.end()] + m.group(0) + data[m.end():] if rng.random() < 0.5 else data[: m.start()] + data[m.end():]
    return data


def mutate_msh_binary(data, rng):
    start = data.find(b"$Entities")
    start = start if start >= 0 else 0
    for _ in range(rng.randint(1, 3)):
        op = rng.choice(["flip", "flip", "truncate", "word", "word", "nan"])
        if op == "flip":
            data = flip_bits(data, rng, lo=start)
        elif op == "truncate":
            data = truncate(data, rng)
        elif op == "word":
            # 4 or 8 bytes replaced by a huge or negative count.
            i = rng.randrange(start, max(start + 1, len(data) - 8))
            w = rng.choice([struct.pack("<q", 2000000000), struct.pack("<q", -1), struct.pack("<Q", 1 << 63),
                            struct.pack("<Q", 1 << 40), struct.pack("<i", -7), struct.pack("<i", 2147483647),
                            struct.pack("<i", 99)])
            data = data[:i] + w + data[i + len(w):]
        else:
            # A double somewhere in the data replaced by NaN, +-Inf or a huge value (aligned to the
            # node section's 8-byte fields when the offset lands there).
            a = data.find(b"$Nodes")
            b = data.find(b"$EndNodes")
            lo, hi = (a, b) if 0 <= a < b else (start, len(data))
            i = rng.randrange(lo, max(lo + 1, hi - 8))
            v = rng.choice([float("nan"), float("inf"), float("-inf"), 1e308, -1e300])
            data = data[:i] + struct.pack("<d", v) + data[i + 8:]
    return data


def mutate_h5(data, rng):
    op = rng.choice(["flip", "flip", "flip_meta", "flip_attr", "flip_attr", "truncate", "bytes", "append"])
    if op == "flip":
        return flip_bits(data, rng, n=1), op
    if op == "flip_meta":
        return flip_bits(data, rng, n=1, hi=4096), op
    if op == "flip_attr":
        # One bit of a root attribute's value: HDF5 stores an attribute's name, then its datatype
        # and dataspace, then the value, within ~100 bytes after the name.
        names = [b"step\0", b"time\0", b"dt\0", b"total_steps\0", b"components\0", b"format_version\0",
                 b"conservation_initial\0", b"kind\0", b"real\0", b"checksums\0", b"mesh_fingerprint\0"]
        hits = [m.start() for n in names for m in re.finditer(re.escape(n), data)]
        if hits:
            at = rng.choice(hits)
            return flip_bits(data, rng, n=1, lo=at, hi=at + 120), op
        return flip_bits(data, rng, n=1), op
    if op == "truncate":
        return truncate(data, rng), op
    if op == "bytes":
        i = rng.randrange(len(data))
        n = rng.choice([1, 4, 8, 16])
        return data[:i] + bytes([rng.choice([0, 0xFF])]) * n + data[i + n:], op
    return data + bytes(rng.randrange(256) for _ in range(rng.randint(1, 64))), op


# --- the campaign ---------------------------------------------------------------------------------

class Campaign:
    def __init__(self, args):
        self.fv = os.path.abspath(args.fvproxy)
        self.rng = random.Random(args.seed)
        self.work = os.path.abspath(args.work)
        self.timeout = args.timeout
        self.deadline = time.time() + args.max_seconds
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(os.path.join(self.work, "findings"))
        self.env = dict(os.environ, OMP_PROC_BIND="false", OMP_NUM_THREADS="1", OMP_WAIT_POLICY="passive")
        self.stats = collections.defaultdict(collections.Counter)
        self.findings = []
        self.n = 0

    def out_dir(self):
        d = os.path.join(self.work, "run")
        shutil.rmtree(d, ignore_errors=True)
        return d

    def check(self, kind, name, payload, cmd, allowed=(0, 2), run_failure_ok=lambda s: False, extra=None):
        rc, out, err, dt = run(cmd, self.timeout, self.env)
        self.stats[kind]["exit %s" % rc] += 1
        p = problems(rc, out, err, allowed, run_failure_ok)
        if extra:
            p += extra(rc, out, err)
        if p:
            self.n += 1
            base = os.path.join(self.work, "findings", "%s_%03d_%s" % (kind, self.n, name))
            with open(base + ".input", "wb") as f:
                f.write(payload)
            with open(base + ".txt", "w") as f:
                f.write("command: %s\nexit: %s (%.1f s)\nproblems:\n  %s\n--- stdout\n%s\n--- stderr\n%s\n"
                        % (" ".join(cmd), rc, dt, "\n  ".join(p), out[-4000:], err[-4000:]))
            self.findings.append((kind, base, p))
            print("FINDING %s: %s (%s)" % (kind, "; ".join(p), base), flush=True)
        return rc, out, err

    def time_left(self):
        return time.time() < self.deadline

    # YAML: the cases of inputs/ made small, run by `fvproxy run` (every section is read).
    def yaml(self, count):
        seeds = []
        for f in sorted(os.listdir(os.path.join(ROOT, "inputs"))):
            if not f.endswith(".yaml"):
                continue
            t = open(os.path.join(ROOT, "inputs", f), "rb").read()
            t = re.sub(rb"cells: \[[^\]]*\]", b"cells: [4, 4, 4]", t)
            t = re.sub(rb"end_time: [0-9.e-]+", b"steps: 3", t)
            t = re.sub(rb"steps: \d+", b"steps: 3", t)
            t = t.replace(b"../mesh/", os.path.join(ROOT, "mesh").encode() + b"/")
            seeds.append((f, t))
        for i in range(count):
            if not self.time_left():
                break
            name, text = self.rng.choice(seeds)
            mutant = mutate_yaml(text, self.rng)
            path = os.path.join(self.work, "case.yaml")
            with open(path, "wb") as f:
                f.write(mutant)
            cmd = [self.fv, "run", path, "--quiet", "--output-dir", self.out_dir()]
            self.check("yaml", name, mutant, cmd, allowed=(0, 1, 2),
                       run_failure_ok=lambda s: "non-finite value" in s or "not enough memory" in s)
            self.stats["yaml"]["inputs"] += 1

    # Gmsh: the meshes of mesh/ in the three formats, `fvproxy mesh`, then a 2-step run when read.
    def msh(self, count):
        seeds = [("sphere_in_box.msh", "sphere_in_box.yaml", False), ("hybrid_channel.msh", "hybrid_channel.yaml", False),
                 ("sphere_in_box_bin.msh", "sphere_in_box.yaml", True),
                 ("sphere_in_box_v22.msh", "sphere_in_box.yaml", False)]
        data = {s[0]: open(os.path.join(ROOT, "mesh", s[0]), "rb").read() for s in seeds}
        for i in range(count):
            if not self.time_left():
                break
            name, case, binary = self.rng.choice(seeds)
            mutant = mutate_msh_binary(data[name], self.rng) if binary else mutate_msh_ascii(data[name], self.rng)
            path = os.path.join(self.work, "mesh.msh")
            with open(path, "wb") as f:
                f.write(mutant)
            case_path = os.path.join(ROOT, "inputs", case)
            rc, _, _ = self.check("msh", name, mutant, [self.fv, "mesh", case_path, "--set", "mesh.file=" + path])
            self.stats["msh"]["inputs"] += 1
            if rc == 0:
                self.check("msh", name + "_run", mutant,
                           [self.fv, "run", case_path, "--set", "mesh.file=" + path, "--set", "time={steps: 2}",
                            "--quiet", "--output-dir", self.out_dir()], allowed=(0, 1, 2),
                           run_failure_ok=lambda s: "non-finite value" in s)
                self.stats["msh"]["runs"] += 1

    # HDF5: fields and checkpoint files written by the tool (and a reference file of format 1),
    # read by compare (against the intact file) and by run --restart (result checked bitwise).
    def h5(self, count):
        case = os.path.join(self.work, "tiny.yaml")
        with open(case, "w") as f:
            f.write("case: tiny\nmesh:\n  generate: {cells: [4, 4, 4], element: tet, periodic: [x, y, z]}\n"
                    "physics:\n  components: 2\n  velocity: {type: uniform, value: [1, 0.5, 0]}\n"
                    "  diffusivity: 0.01\ninitial:\n  - {type: gaussian, center: [0.5, 0.5, 0.5], width: 0.2, "
                    "amplitude: 1}\ntime: {steps: 6, cfl: 0.4}\noutput:\n  every: {steps: 2}\n"
                    "checkpoint:\n  every: {steps: 2}\n  keep: 3\nrun: {deterministic: true}\n")
        seed_dir = os.path.join(self.work, "seed")
        rc, out, err, _ = run([self.fv, "run", case, "--quiet", "--output-dir", seed_dir], 120, self.env)
        if rc != 0:
            sys.exit("fuzz_readers: the seed run failed:\n" + out + err)
        clean = {}
        for step in (2, 4):
            d = os.path.join(self.work, "clean%d" % step)
            rc, out, err, _ = run([self.fv, "run", case, "--quiet", "--output-dir", d, "--restart",
                                   os.path.join(seed_dir, "checkpoint_%06d.h5" % step)], 120, self.env)
            if rc != 0:
                sys.exit("fuzz_readers: the clean restart failed:\n" + out + err)
            clean[step] = os.path.join(d, "fields_000006.h5")
        seeds = [os.path.join(seed_dir, f) for f in ("fields_000002.h5", "fields_000006.h5", "checkpoint_000002.h5",
                                                     "checkpoint_000004.h5")]
        seeds.append(os.path.join(ROOT, "tests", "reference", "advection", "fields_000020.h5"))
        data = {s: open(s, "rb").read() for s in seeds}
        for i in range(count):
            if not self.time_left():
                break
            seed = self.rng.choice(seeds)
            mutant, op = mutate_h5(data[seed], self.rng)
            name = os.path.basename(seed)[:-3] + "_" + op
            path = os.path.join(self.work, "mutant.h5")
            with open(path, "wb") as f:
                f.write(mutant)
            self.stats["h5"]["inputs"] += 1
            # compare against the intact file: 0 (the damage touched nothing read) or 2 (refused).
            self.check("h5", name, mutant, [self.fv, "compare", path, seed, "--rtol", "0"], allowed=(0, 2))
            if "checkpoint" in seed:
                step = int(seed[-9:-3])
                out_dir = self.out_dir()

                def same_result(rc, out, err, out_dir=out_dir, step=step):
                    if rc != 0:
                        return []
                    r = run([self.fv, "compare", os.path.join(out_dir, "fields_000006.h5"), clean[step], "--rtol",
                             "0", "--atol", "0"], 60, self.env)
                    return [] if r[0] == 0 else ["the restart from a damaged checkpoint completed with other "
                                                 "results:\n" + r[1][-1500:] + r[2][-1500:]]

                self.check("h5", name + "_restart", mutant,
                           [self.fv, "run", case, "--quiet", "--output-dir", out_dir, "--restart", path],
                           allowed=(0, 2), extra=same_result)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("fvproxy")
    ap.add_argument("--count", type=int, default=100, help="inputs per kind [100]")
    ap.add_argument("--kinds", default="yaml,msh,h5")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60, help="seconds per command [60]")
    ap.add_argument("--max-seconds", type=float, default=1800, help="stop starting new inputs after this [1800]")
    ap.add_argument("--work", default="out/fuzz")
    args = ap.parse_args()
    c = Campaign(args)
    t0 = time.time()
    for kind in args.kinds.split(","):
        getattr(c, kind)(args.count)
    print("\nfuzz_readers: %.0f s, seed %d" % (time.time() - t0, args.seed))
    for kind, s in sorted(c.stats.items()):
        print("  %-5s %s" % (kind, ", ".join("%s %d" % (k, v) for k, v in sorted(s.items()))))
    print("  findings: %d (in %s)" % (len(c.findings), os.path.join(c.work, "findings")))
    for kind, base, p in c.findings:
        print("    %s %s: %s" % (kind, os.path.basename(base), p[0][:150]))
    return 1 if c.findings else 0


if __name__ == "__main__":
    sys.exit(main())
