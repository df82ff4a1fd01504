#!/usr/bin/env python3
"""The cylinder drag study (inputs/cylinder.yaml; perf/cylinder_gpu.sh): drag and lift coefficients.

    cylinder_drag.py OUT.png LABEL=RUN_DIR [LABEL=RUN_DIR ...] [--area A] [--reference CD]

RUN_DIR holds a run's summary.json (its "forces") and integrals.csv (cylinder_fx, _fy over time).
C = F / (rho U^2 A / 2) with rho = U = 1 and A = D t = 0.5 (--area). Prints per run the final C_D
(split into pressure and viscous parts), C_L, the drift of C_D over the run's last quarter (how
steady it is), and the difference from the literature value (--reference, default 2.045: Dennis &
Chang 1970, J. Fluid Mech. 42, 471, steady Navier-Stokes at Re = 20; published values at Re = 20
range from 2.00 to 2.09); plots the C_D histories.
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def main(argv):
    area, ref = 0.5, 2.045
    for opt in ("--area", "--reference"):
        if opt in argv:
            i = argv.index(opt)
            val = float(argv[i + 1])
            del argv[i : i + 2]
            if opt == "--area":
                area = val
            else:
                ref = val
    if len(argv) < 2:
        print(__doc__)
        return 2
    out, runs = argv[0], argv[1:]
    q = 0.5 * area
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for spec in runs:
        label, _, d = spec.partition("=")
        if not d:
            label, d = os.path.basename(spec.rstrip("/")), spec
        j = json.load(open(os.path.join(d, "summary.json")))
        f = j["forces"]["cylinder"]
        cd, cl = f["total"][0] / q, f["total"][1] / q
        cdp, cdv = f["pressure"][0] / q, f["viscous"][0] / q
        a = np.genfromtxt(os.path.join(d, "integrals.csv"), delimiter=",", names=True)
        t, hist = a["time"], a["cylinder_fx"] / q
        late = t >= 0.75 * t[-1]
        drift = hist[late].max() - hist[late].min()
        print(
            f"{label}: {j['cells']} cells, t = {j['time']:.4g} ({j['steps']} steps): C_D = {cd:.4f} "
            f"(pressure {cdp:.4f} + viscous {cdv:.4f}), C_L = {cl:.2e}; C_D over the last quarter within "
            f"{drift:.2e}; {100 * (cd / ref - 1):+.2f} % from {ref}"
        )
        ax.plot(t, hist, label=f"{label}: C_D = {cd:.3f}")
    ax.axhline(ref, color="k", lw=1, ls="--", label=f"Dennis & Chang (1970): {ref}")
    ax.axhspan(0.95 * ref, 1.05 * ref, color="k", alpha=0.08, label="±5 %")
    ax.set_ylim(0.8 * ref, 1.5 * ref)
    ax.set_xlabel("t (D / U)")
    ax.set_ylabel("drag coefficient")
    ax.set_title("Cylinder at Re = 20, Mach 0.2 (fvproxy navier-stokes, prisms from Gmsh)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
