#!/usr/bin/env python3
"""The verdict rules of nonconvex_sweeps.py on constructed per-replicate test losses (no
training): each rule's verdict where the answer is known by construction, and the rate at which
"flat" and the U-shape say something false at the boundary of their claims, against the level
their Bonferroni share promises (5 % over the four figures: 1.25 % each).

Exit 0 when every check passes, 1 otherwise (CTest validation.nonconvex_rules, quick).
"""

from __future__ import annotations

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nonconvex_sweeps import flat, gap_falls, summary, ushape  # noqa: E402

R = 8  # replicates per point, as the committed run
failures = []


def check(what: str, ok: bool) -> None:
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def sweep(means, rng, common: float, own: float):
    """Points whose replicate r shares a common draw c_r (sd `common`: the common seed) and adds
    its own noise (sd `own`)."""
    shared = [rng.gauss(0, common) for _ in range(R)]
    return [summary([m + c + rng.gauss(0, own) for c in shared]) for m in means]


rng = random.Random(2026)

# Known verdicts. A large common-mode noise (sd 0.3) with a small own noise (sd 0.003): the
# paired contrasts see through it, an interval that ignored the pairing would not.
check("U-shape with common-mode noise: holds",
      ushape(sweep([1.0, 0.6, 0.5, 0.6, 1.0], rng, 0.3, 0.003))[0] == "holds")
check("monotone decreasing: refuted (the last point is below every interior one)",
      ushape(sweep([1.0, 0.9, 0.8, 0.7, 0.6], rng, 0.3, 0.003))[0] == "refuted")
check("monotone increasing: refuted",
      ushape(sweep([0.6, 0.7, 0.8, 0.9, 1.0], rng, 0.3, 0.003))[0] == "refuted")
check("flat within 1 %, common-mode noise: holds",
      flat(sweep([1.0, 1.01, 0.99, 1.0, 1.005, 0.995, 1.0], rng, 0.3, 0.002))[0] == "holds")
check("one point 20 % above the others: refuted",
      flat(sweep([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.2], rng, 0.3, 0.002))[0] == "refuted")
check("one point 20 % below the others: refuted",
      flat(sweep([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.8], rng, 0.3, 0.002))[0] == "refuted")
check("noise far wider than the band: inconclusive",
      flat(sweep([1.0] * 7, rng, 0.0, 0.5))[0] == "inconclusive")
dp = sweep([0.8, 0.5], rng, 0.3, 0.003)
clean = sweep([0.5, 0.45], rng, 0.3, 0.003)
check("the DP gap falls from 0.3 to 0.05: holds", gap_falls(dp, clean)[0] == "holds")
check("the DP gap grows: refuted", gap_falls(clean, dp)[0] == "refuted")

# The false-verdict rate at the boundary. Flat: the last point exactly on the band's upper
# edge, c = 1.05 · mean (c = 6.3/5.95 with six points at 1): "refuted" is false there, and the
# rule must say it at most at the claim's share of the level. U-shape: the middle point level
# with the first end and far below the last, where "holds" is false and rests on one contrast
# alone (the worst case: a rule without its Bonferroni split says it at 2.5 %). 2 000
# constructed tables each, own noise only (sd 0.05) and half common-mode; fixed before any run:
# fail when the count exceeds 1.25 % of 2 000 = 25.
N, SHARE = 2000, 0.05 / 4
edge = 6.3 / 5.95
for common in (0.0, 0.05):
    wrong = sum(flat(sweep([1.0] * 6 + [edge], rng, common, 0.05))[0] == "refuted"
                for _ in range(N))
    check(f"flat at the band's edge (common-mode sd {common}): refuted {wrong} of {N} "
          f"<= {SHARE * N:g}", wrong <= SHARE * N)
    wrong = sum(ushape(sweep([1.0, 1.0, 2.0], rng, common, 0.05))[0] == "holds" for _ in range(N))
    check(f"U-shape level with one end (common-mode sd {common}): holds {wrong} of {N} <= "
          f"{SHARE * N:g}", wrong <= SHARE * N)

print(f"# {len(failures)} failed")
sys.exit(1 if failures else 0)
