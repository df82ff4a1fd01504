#!/usr/bin/env python3
"""src/ is layered without upward includes (docs/architecture.md#layout): a folder includes only
itself and the folders below it. Usage: check_layers.py REPO; exits 1 naming every upward include."""
import re
import sys
from pathlib import Path

# What each folder may include besides itself (its floors below, docs/architecture.md).
ALLOWED = {
    "core": set(),
    "mesh": {"core"},
    "physics": {"core"},
    "operators": {"core", "mesh", "physics"},
    "parallel": {"core", "mesh"},
    "solver": {"core", "mesh", "physics", "operators", "parallel"},
    "io": {"core", "mesh", "physics", "operators", "parallel", "solver"},
    "app": {"core", "mesh", "physics", "operators", "parallel", "solver", "io"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')


def main():
    src = Path(sys.argv[1]) / "src"
    bad = []
    for path in sorted(src.rglob("*.[ch]pp")):
        layer = path.relative_to(src).parts[0]
        if layer not in ALLOWED:
            bad.append(f"{path}: folder '{layer}' is not a known layer (add it to {__file__})")
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            m = INCLUDE.match(line)
            if m and m.group(1) != layer and m.group(1) not in ALLOWED[layer]:
                bad.append(f"{path.relative_to(src.parent)}:{n}: {layer}/ includes {m.group(1)}/ (a floor above it)")
    for b in bad:
        print(b)
    print(f"{'FAIL' if bad else 'OK'}: {len(bad)} upward include(s) in src/")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
