#!/usr/bin/env python3
"""Checks that the documentation stands alone in a clone of the repository.

1. Every relative link of README.md, docs/**/*.md, perf/README.md and mesh/README.md --
   [text](target) and ![alt](target) -- names a file or folder that exists, and a `#section`
   anchor on a Markdown target names one of its headings (GitHub's anchor rules).
2. Every repository path those pages mention in plain text (`src/...`, `docs/...`, `tests/...`,
   ...; `*` as a wildcard, `<...>` placeholders skipped) exists.
3. Every file of the repository that cites a docs/ page (`docs/output.md`, or with a section:
   `docs/output.md#tolerances`) names a page, and a section, that exist.
4. No file of the repository cites the development notes that live outside it (the folder
   ../shared and the notes named in NOTE_NAMES below): their content is in docs/. The one thing
   of ../shared the repository may name is a Kokkos release archive (../shared/kokkos-X.Y.Z.tar.gz,
   CI's Kokkos 4 job: docs/development.md#another-kokkos), a build input rather than a note.

Usage: check_doc_links.py [REPO_ROOT]   (default: the repository holding this script)
Prints one line per problem (file:line: what) and exits 1 if there is any, else prints OK.
"""
import glob
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))

# Notes outside the repository that users do not have (built from parts, so this file does not
# match itself).
NOTE_NAMES = ["DESIGN", "INTERFACE", "GPU", "MPI-NOTES"]
FORBIDDEN = re.compile(r"\.\./shared\b(?!/kokkos-[0-9.]+\.tar\.gz\b)|/work/shared\b|(?<![\w/-])(?:" + "|".join(NOTE_NAMES) + r")\.md\b")

SKIP_DIRS = {".git", "build", "out", "__pycache__", "node_modules"}
TEXT_SUFFIXES = (".md", ".cpp", ".hpp", ".h", ".cc", ".sh", ".py", ".txt", ".cmake", ".yaml", ".yml", ".json",
                 ".supp", ".geo", "Makefile", ".clang-format", ".gitignore", "run")

# A path from the repository root mentioned in plain text, and a citation of a docs/ page.
PLAIN_PATH = re.compile(r"(?<![\w./$-])((?:src|docs|tests|perf|inputs|mesh|scripts|cmake|\.ci)/[\w./*-]*[\w/*])")
DOC_CITATION = re.compile(r"(?<![\w./-])(docs/[\w/-]+\.md)(?:#([\w-]+))?")
LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def markdown_files():
    out = [os.path.join(ROOT, "README.md")]
    for sub in ("perf", "mesh"):
        p = os.path.join(ROOT, sub, "README.md")
        if os.path.exists(p):
            out.append(p)
    for d, dirs, files in os.walk(os.path.join(ROOT, "docs")):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS)
        out += [os.path.join(d, f) for f in sorted(files) if f.endswith(".md")]
    return out


def slug(heading):
    """GitHub's anchor of a heading: lower case, markup and punctuation dropped, spaces to '-'."""
    h = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links keep their text
    h = h.replace("`", "").replace("*", "").strip().lower()
    h = re.sub(r"[^\w\- ]", "", h, flags=re.UNICODE)
    return h.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen, result, fenced = {}, set(), False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if FENCE.match(line):
                    fenced = not fenced
                    continue
                m = None if fenced else HEADING.match(line)
                if m:
                    s = slug(m.group(2))
                    n = seen.get(s, 0)
                    seen[s] = n + 1
                    result.add(s if n == 0 else f"{s}-{n}")
        cache[path] = result
    return cache[path]


def exists(path):
    return bool(glob.glob(path)) if "*" in path else os.path.exists(path)


def check_links(problems):
    count = 0
    for md in markdown_files():
        rel = os.path.relpath(md, ROOT)
        fenced = False
        with open(md, encoding="utf-8") as f:
            lines = f.readlines()
        for no, line in enumerate(lines, 1):
            # Paths in plain text (also in code spans and blocks): from the root, or from the page.
            for m in PLAIN_PATH.finditer(line):
                p = m.group(1)
                if line[m.end():m.end() + 1] in ("<", "{") or p.endswith("/*"):
                    continue  # a placeholder (src/operators/<op>/...), not a path
                count += 1
                if not exists(os.path.join(ROOT, p)) and not exists(os.path.join(os.path.dirname(md), p)):
                    problems.append(f"{rel}:{no}: names '{p}', which does not exist")
            if FENCE.match(line):
                fenced = not fenced
                continue
            if fenced:
                continue
            text = re.sub(r"`[^`]*`", "", line)  # code spans are not links
            for m in LINK.finditer(text):
                target = m.group(1)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:
                    continue
                count += 1
                path, _, frag = target.partition("#")
                dest = md if not path else os.path.normpath(os.path.join(os.path.dirname(md), path))
                if not os.path.exists(dest):
                    problems.append(f"{rel}:{no}: broken link '{target}': {os.path.relpath(dest, ROOT)} does not exist")
                elif os.path.commonpath([dest, ROOT]) != ROOT:
                    problems.append(f"{rel}:{no}: link '{target}' leaves the repository")
                elif frag and dest.endswith(".md") and frag not in anchors(dest):
                    problems.append(f"{rel}:{no}: broken link '{target}': no heading with anchor '#{frag}' in "
                                    f"{os.path.relpath(dest, ROOT)}")
    return count


def check_files(problems):
    """Citations of docs/ pages and of notes outside the repository, in every text file."""
    me = os.path.abspath(__file__)
    count = 0
    for d, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and not x.startswith("build"))
        for name in sorted(files):
            path = os.path.join(d, name)
            if os.path.abspath(path) == me or not name.endswith(TEXT_SUFFIXES):
                continue
            try:
                with open(path, encoding="utf-8") as f:
                    lines = f.readlines()
            except (UnicodeDecodeError, OSError):
                continue
            count += 1
            rel = os.path.relpath(path, ROOT)
            for no, line in enumerate(lines, 1):
                m = FORBIDDEN.search(line)
                if m:
                    problems.append(f"{rel}:{no}: cites '{m.group(0)}', a note outside the repository: cite the "
                                    "docs/ page that holds it")
                for c in DOC_CITATION.finditer(line):
                    page = os.path.join(ROOT, c.group(1))
                    if not os.path.exists(page):
                        problems.append(f"{rel}:{no}: cites {c.group(1)}, which does not exist")
                    elif c.group(2) and c.group(2) not in anchors(page):
                        problems.append(f"{rel}:{no}: cites {c.group(0)}: no heading with anchor "
                                        f"'#{c.group(2)}' in {c.group(1)}")
    return count


def main():
    problems = []
    links = check_links(problems)
    files = check_files(problems)
    for p in problems:
        print(p)
    if problems:
        print(f"FAIL: {len(problems)} problem(s) ({links} links and paths, {files} files scanned)")
        return 1
    print(f"OK: {links} relative links and paths resolve; docs/ citations resolve and no note outside the repository is cited in {files} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
