#!/usr/bin/python3
"""Runs the bad-input corpus of tests/data/bad/ (its MANIFEST says how) and fails unless every input
is answered as recorded: the exit code, the first line of stderr (file:line or key first), and
nothing a reader must never do (a sanitizer report, an uncaught exception, a signal, a hang, files
left in the output folder by a refused run).

usage: bad_inputs.py FVPROXY CORPUS_DIR SCRATCH_DIR"""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

SUSPICIOUS = ["AddressSanitizer", "LeakSanitizer", "runtime error:", "terminate called", "bad_alloc",
              "Segmentation fault", "what():", "Kokkos::abort", "core dumped", "stack smashing"]


def first_line(err):
    """The first stderr line that is not one of Kokkos' start-up warnings."""
    for line in err.splitlines():
        s = line.strip()
        if s and not s.startswith(("Kokkos::OpenMP::", "In general", "For best")) and "OMP_PROC_BIND" not in s:
            return line
    return ""


def main():
    exe, corpus, scratch = (os.path.abspath(a) for a in sys.argv[1:4])
    shutil.rmtree(scratch, ignore_errors=True)
    work = os.path.join(scratch, "corpus")
    shutil.copytree(corpus, work)
    env = dict(os.environ, OMP_PROC_BIND="false", OMP_NUM_THREADS="1")
    failures, jobs = [], []
    for lineno, raw in enumerate(open(os.path.join(corpus, "MANIFEST")), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        fields = [f.strip() for f in (raw.rstrip("\n") + " ").split(" | ", 3)]
        if len(fields) != 4:
            failures.append("MANIFEST:%d: expected FILE | ARGUMENTS | EXIT | FIRST LINE" % lineno)
            continue
        name, args, code, pattern = fields
        if not os.path.exists(os.path.join(corpus, name)):
            failures.append("MANIFEST:%d: no file %s" % (lineno, name))
            continue
        out = os.path.join(scratch, "out%d" % lineno)
        # ARGUMENTS split on spaces, except inside {...} or [...] (a --set VALUE).
        argv, depth, cur = [], 0, ""
        for ch in args.replace("{out}", "\0"):
            depth += ch in "{[" and 1 or (ch in "}]" and -1 or 0)
            if ch == " " and depth == 0:
                argv.append(cur)
                cur = ""
            else:
                cur += ch
        argv.append(cur)
        argv = [a.replace("\0", out) for a in argv if a]
        jobs.append((lineno, name, args, code, pattern, argv, out))
    n = len(jobs)

    def execute(job):
        argv = job[5]
        # Each process its own Open MPI session folder: two isolated singletons starting together in
        # one folder can race on creating it (docs/development.md#mpi-start-up), and this driver runs
        # two at a time inside one CLI test's folder.
        with tempfile.TemporaryDirectory(prefix="fvproxy-ompi.") as ompi:
            try:
                p = subprocess.run([exe] + argv, cwd=work, env=dict(env, OMPI_MCA_orte_tmpdir_base=ompi),
                                   capture_output=True, text=True, timeout=120)
                return p.returncode, p.stdout, p.stderr
            except subprocess.TimeoutExpired:
                return None, "", ""

    # Two at a time (each is one process with one thread): the sanitizer build's runs take seconds.
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(execute, jobs))
    for (lineno, name, args, code, pattern, argv, out), (rc, stdout, stderr) in zip(jobs, results):
        if rc is None:
            failures.append("MANIFEST:%d %s: hung (120 s)" % (lineno, args))
            continue
        err = stdout + stderr
        problems = []
        if rc != int(code):
            problems.append("exit %d, expected %s" % (rc, code))
        line = first_line(stderr)
        if pattern and not re.search(pattern, line):
            problems.append("first line %r does not match /%s/" % (line, pattern))
        problems += ["output contains %r" % s for s in SUSPICIOUS if s in err]
        if rc == 2 and os.path.isdir(out) and os.listdir(out):
            problems.append("a refused run left %s in the output folder" % sorted(os.listdir(out)))
        status = "ok" if not problems else "FAIL"
        print("%-4s %-28s exit %d  %s" % (status, name, rc, line[:110]))
        if problems:
            failures.append("MANIFEST:%d fvproxy %s:\n    %s\n%s" % (lineno, " ".join(argv), "\n    ".join(problems),
                                                                   "\n".join("    | " + l for l in err.splitlines()[:8])))
    print("\n%d inputs, %d failed" % (n, len(failures)))
    for f in failures:
        print("FAIL " + f)
    return 1 if failures or n == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
