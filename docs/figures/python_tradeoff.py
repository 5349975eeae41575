#!/usr/bin/env python3
"""docs/figures/python_tradeoff.{svg,png}: the certified bound on the true-positive rate of any
membership-inference test against a DP-SGD run (q = 0.01, σ = 1, 10 000 steps), at false-positive
rates down to 1e-10, from dpkit.tradeoff. Needs dpkit and matplotlib (python3-matplotlib).

    PYTHONPATH=build/release/python /usr/bin/python3 docs/figures/python_tradeoff.py
"""
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import dpkit  # noqa: E402

out = pathlib.Path(__file__).resolve().parent
alpha = np.logspace(-10, 0, 300)
fig, ax = plt.subplots(figsize=(6.4, 4.4))
for steps, colour in ((1000, "tab:blue"), (10_000, "tab:red")):
    t = dpkit.tradeoff(alpha, noise_multiplier=1.0, sample_rate=0.01, steps=steps)
    eps = float(dpkit.epsilon(1e-5, noise_multiplier=1.0, sample_rate=0.01, steps=steps))
    ax.fill_between(alpha, 1 - t.upper, 1 - t.lower, color=colour, alpha=0.35, lw=0)
    ax.loglog(alpha, 1 - t.lower, color=colour,
              label=f"T = {steps:,}: certified TPR bound (ε ≤ {eps:.2f} at δ = 1e-5)")
ax.loglog(alpha, alpha, ":", color="grey", label="random guessing (TPR = FPR)")
ax.set_xlabel("false-positive rate α")
ax.set_ylabel("true-positive rate 1 − β(α)")
ax.set_title("DP-SGD, q = 0.01, σ = 1: no membership test does better", fontsize=11)
ax.set_xlim(1e-10, 1)
ax.set_ylim(1e-10, 1.5)
ax.grid(True, which="major", alpha=0.3)
ax.legend(loc="lower right", fontsize=9)
fig.tight_layout()
for ext in ("svg", "png"):
    fig.savefig(out / f"python_tradeoff.{ext}", dpi=110)
print("wrote", out / "python_tradeoff.svg", out / "python_tradeoff.png")
