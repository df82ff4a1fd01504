#!/usr/bin/env python3
"""code.flow_boundaries: a new flow boundary condition touches three files (docs/development.md#code-style).

The flow boundary kinds (FlowBoundaryKind, src/physics/physics_options.hpp) and their functors
(src/physics/flow_boundary.hpp) may be named, outside comments, only in their three home files:
physics_options.hpp (the kind, its config fields), physics_options.cpp (its name, keys, checks)
and flow_boundary.hpp (its functor, parameters and line in condition_functor). Elsewhere a kind
may be named only for a role listed in ROLES below (a wall's viscous flux, a mesh check), never
to map a kind to its physics. Prints the files a new condition touches; fails on any other use.

    check_flow_boundaries.py REPO
"""
import pathlib
import re
import sys

HOME = {"src/physics/physics_options.hpp", "src/physics/physics_options.cpp", "src/physics/flow_boundary.hpp"}

# file -> {kind: why it is named there}: roles, not physics
WALLS = {k: "viscous walls" for k in ("slip_wall", "symmetry", "no_slip_wall")}
ROLES = {
    "src/operators/flow/flow_viscous.cpp": WALLS,
    "src/operators/flow/flow_viscous_kernels.hpp": WALLS,
    "src/operators/flow/flow_convection.cpp": {
        "no_slip_wall": "the mirror images' velocity rule",
        "supersonic_outflow": "first order where the flow enters an extrapolating patch",
    },
    "src/solver/flow_solver.cpp": {
        "no_slip_wall": "a moving wall's velocity against the mesh; wall forces",
        "slip_wall": "wall forces",
        "velocity_inlet": "the profile's channel against the mesh",
        "subsonic_inflow": "the inflow direction against the mesh",
        "mass_flow_inlet": "the inflow direction against the mesh",
    },
}


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    options = (root / "src/physics/physics_options.hpp").read_text()
    enum = re.search(r"enum class FlowBoundaryKind[^{]*\{([^}]*)\}", options)
    kinds = [k.strip() for k in strip_comments(enum.group(1)).split(",") if k.strip()]
    boundary = strip_comments((root / "src/physics/flow_boundary.hpp").read_text())
    # the conditions' functors: the structs whose call takes the inside state
    functors = sorted(name for name, body in re.findall(r"^struct (\w+) \{(.*?)^\};", boundary, flags=re.M | re.S)
                      if re.search(r"Primitive operator\(\)\(const Primitive&", body))
    bad, touched = [], set(HOME)
    for path in sorted((root / "src").rglob("*.[ch]pp")):
        rel = path.relative_to(root).as_posix()
        if rel in HOME:
            continue
        text = strip_comments(path.read_text())
        for k in kinds:
            if re.search(r"\b(?:FlowBoundaryKind|Kind)::%s\b" % k, text):
                if k in ROLES.get(rel, {}):
                    continue
                bad.append("%s names FlowBoundaryKind::%s (no role of it listed there)" % (rel, k))
        for f in functors:
            if re.search(r"\b%s\b" % f, text):
                bad.append("%s names the functor flow::%s (kinds map to functors in condition_functor only)" % (rel, f))
    print("kinds: %d, functors: %s" % (len(kinds), ", ".join(functors)))
    print("a new flow boundary condition touches %d files: %s" % (len(touched), ", ".join(sorted(touched))))
    for b in bad:
        print("FAIL: " + b)
    return 1 if bad or len(kinds) < 10 or not functors else 0


if __name__ == "__main__":
    sys.exit(main())
