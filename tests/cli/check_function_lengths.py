#!/usr/bin/env python3
"""No function in src/ is longer than the project's limit (80 lines, docs/development.md#code-style).

Functions are found by Universal Ctags (C++ kind `f`, with their end line): a function's length
runs from its first line (the signature) to its closing brace. Usage:

    check_function_lengths.py REPO [--limit N] [--list]

exits 1 naming every longer function (longest first); --list prints every function's length.
"""
import argparse
import shutil
import subprocess
import sys
from pathlib import Path


def find_ctags():
    for name in ("ctags-universal", "universal-ctags", "ctags"):
        exe = shutil.which(name)
        if exe and "Universal Ctags" in subprocess.run([exe, "--version"], capture_output=True, text=True).stdout:
            return exe
    sys.exit("check_function_lengths.py: Universal Ctags not found (apt package universal-ctags; "
             "scripts/setup-deps.sh installs it)")


def functions(repo: Path):
    out = subprocess.run([find_ctags(), "-R", "--languages=C++", "--langmap=C++:+.hpp", "--c++-kinds=f",
                          "--fields=+ne", "-x", "--_xformat=%{line} %{end} %F %N", "src"],
                         cwd=repo, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        first, end, path, name = line.split(" ", 3)
        if end == "-":  # a declaration ctags could not close
            continue
        yield int(end) - int(first) + 1, path, int(first), name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("repo", type=Path)
    ap.add_argument("--limit", type=int, default=80)
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    found = sorted(functions(a.repo), reverse=True)
    if not found:
        sys.exit("check_function_lengths.py: ctags found no function in src/")
    if a.list:
        for n, path, line, name in found:
            print(f"{n:5d} {path}:{line} {name}")
        return 0
    long = [f for f in found if f[0] > a.limit]
    for n, path, line, name in long:
        print(f"{path}:{line}: {name} is {n} lines (the limit is {a.limit}: split it into named parts)")
    print(f"{len(found)} functions in src/, {len(long)} longer than {a.limit} lines; longest {found[0][0]} "
          f"({found[0][3]})")
    return 1 if long else 0


if __name__ == "__main__":
    sys.exit(main())
