#!/usr/bin/env python3
"""Plot Taylor-Green vortex runs (inputs/taylor_green.yaml) against the Re = 1600 reference.

    plot_taylor_green.py OUT.png LABEL=RUN/integrals.csv [LABEL=...] [--reference FILE]

Each integrals.csv (fvproxy run, output.integrals) holds step, time, kinetic_energy and
dissipation_rate (-dE/dt between rows); the reference is the 512^3 spectral DNS of the High-Order
CFD workshop kept in docs/data/taylor_green/ (see its README). Plots the kinetic energy and the
dissipation rate (central differences of the kinetic energy, which are smoother than the file's
backward ones) over time, and prints per run the dissipation peak and the RMS misfits of both
curves against the reference over the run's times.
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_REF = os.path.join(HERE, "..", "docs", "data", "taylor_green", "spectral_Re1600_512.gdiag")


def load_reference(path):
    a = np.loadtxt(path, comments="#")
    return a[:, 0], a[:, 1], a[:, 2]


def load_run(path):
    a = np.genfromtxt(path, delimiter=",", names=True)
    t, e = np.atleast_1d(a["time"]), np.atleast_1d(a["kinetic_energy"])
    rate = np.gradient(-e, t) if len(t) > 2 else np.zeros_like(t)
    return t, e, rate


def main(argv):
    ref_path = DEFAULT_REF
    if "--reference" in argv:
        i = argv.index("--reference")
        ref_path = argv[i + 1]
        del argv[i : i + 2]
    if len(argv) < 2:
        print(__doc__)
        return 2
    out, runs = argv[0], argv[1:]
    tr, er, dr = load_reference(ref_path)
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.5))
    ax[0].plot(tr, er, "k-", lw=2, label="spectral DNS 512$^3$ (HiOCFD C3.5)")
    ax[1].plot(tr, dr, "k-", lw=2, label="spectral DNS 512$^3$ (HiOCFD C3.5)")
    for spec in runs:
        label, _, path = spec.partition("=")
        if not path:
            label, path = os.path.basename(os.path.dirname(spec)) or spec, spec
        t, e, rate = load_run(path)
        ax[0].plot(t, e, lw=1.5, label=label)
        ax[1].plot(t, rate, lw=1.5, label=label)
        inside = (t >= tr[0]) & (t <= tr[-1])
        e_misfit = np.sqrt(np.mean((e[inside] - np.interp(t[inside], tr, er)) ** 2)) / er[0]
        d_misfit = np.sqrt(np.mean((rate[inside] - np.interp(t[inside], tr, dr)) ** 2)) / dr.max()
        k = int(np.argmax(rate))
        print(
            f"{label}: t up to {t[-1]:.3g}; dissipation peak {rate[k]:.5f} at t = {t[k]:.2f} "
            f"(reference {dr.max():.5f} at t = {tr[np.argmax(dr)]:.2f}); RMS misfit of the kinetic energy "
            f"{100 * e_misfit:.1f} % of E(0), of the dissipation rate {100 * d_misfit:.1f} % of its peak"
        )
    ax[0].set_xlabel("t")
    ax[0].set_ylabel("kinetic energy")
    ax[1].set_xlabel("t")
    ax[1].set_ylabel("dissipation rate -dE/dt")
    for a in ax:
        a.grid(alpha=0.3)
        a.legend(fontsize=8)
    fig.suptitle("Taylor-Green vortex, Re = 1600, Mach 0.1 (fvproxy navier-stokes, HLLC, MUSCL, SSP-RK3)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
