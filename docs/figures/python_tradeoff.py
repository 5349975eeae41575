#!/usr/bin/env python3
"""docs/figures/python_tradeoff.{svg,png}: the certified bound on the true-positive rate of any
membership-inference test against a DP-SGD run (q = 0.01, σ = 1, 1 000 and 10 000 steps), at
false-positive rates down to 1e-10. The Python package computes the curves (dpkit.tradeoff) and
writes them as CSV (docs/figures/python_tradeoff.csv); `dpkit plot --roc` draws them.
docs/figures/make_figures.sh runs it; by hand:

    PYTHONPATH=build/release/python /usr/bin/python3 docs/figures/python_tradeoff.py \\
        --dpkit build/release/tools/dpkit/dpkit
"""
import argparse
import csv
import pathlib
import subprocess
import tempfile

import numpy as np

import dpkit

here = pathlib.Path(__file__).resolve().parent
ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--dpkit", default=str(here / "../../build/release/tools/dpkit/dpkit"),
                help="the dpkit program that draws the figure")
ap.add_argument("--review", help="also draw the figure as REVIEW/python_tradeoff_review.png")
args = ap.parse_args()

alpha = np.logspace(-10, 0, 300)
files, labels = [], []
with open(here / "python_tradeoff.csv", "w", newline="") as all_out, \
        tempfile.TemporaryDirectory() as tmp:
    writer = csv.writer(all_out)
    writer.writerow(["steps", "alpha", "beta", "beta_upper"])
    for steps in (1000, 10_000):
        t = dpkit.tradeoff(alpha, noise_multiplier=1.0, sample_rate=0.01, steps=steps)
        eps = float(dpkit.epsilon(1e-5, noise_multiplier=1.0, sample_rate=0.01, steps=steps))
        path = pathlib.Path(tmp) / f"tradeoff_{steps}.csv"
        with open(path, "w", newline="") as out:
            one = csv.writer(out)
            one.writerow(["alpha", "beta", "beta_upper"])
            for a, lo, hi in zip(alpha, t.lower, t.upper):
                one.writerow([repr(float(a)), repr(float(lo)), repr(float(hi))])
                writer.writerow([steps, repr(float(a)), repr(float(lo)), repr(float(hi))])
        files.append(str(path))
        labels += ["--label", f"T = {steps:,}".replace(",", " ") +
                   f": certified TPR bound (ε ≤ {eps:.2f} at δ = 10^{{-5}})"]
    common = [args.dpkit, "plot", *files, *labels, "--roc",
              "--title", "DP-SGD, q = 0.01, σ = 1: no membership test does better"]
    outputs = [here / "python_tradeoff.svg", here / "python_tradeoff.png"]
    if args.review:
        outputs.append(pathlib.Path(args.review) / "python_tradeoff_review.png")
    for out in outputs:
        subprocess.run(common + ["--output", str(out)], check=True, capture_output=True)
print("wrote", *outputs[:2])
