#!/usr/bin/env python3
"""SWX+23's Figures 2–5 on Fashion-MNIST: DP-SGD for a ReLU network (Algorithm 10) swept over the
clipping norm, the width, the number of steps and the sample size, with a verdict per figure.

Shen et al. [SWX+23] train their Algorithm 10 (DP-SGD with Poisson sampling on an L-layer ReLU
network, averaged iterate) on MNIST and read four claims off Figures 2–5 (Remark 15):

  Fig 2  the test loss is flat in the clipping norm C;
  Fig 3  it is U-shaped in the width m (an interior minimum);
  Fig 4  it is U-shaped in the number of steps T at a fixed privacy level;
  Fig 5  DP-SGD approaches non-private SGD as n grows (their gap falls).

This script runs the same sweeps with `dpkit simulate --algorithm mlp-dp-sgd --data
fashion-mnist` (docs/nonconvex.md): two classes (default T-shirt/top 0 against shirt 6, a hard
pair: labels −1/+1 for the paper's logistic loss), pixels in [0, 1] scaled to norm ≤ 1, the first
n training and 2 000 test images, L = 3 layers, Poisson rate q = 0.1, noise calibrated by the PLD
accountant to (ε, δ) = (4, 10⁻⁵) after T steps (`--calibration tight`), no projection
(`--constraint none`), a fixed step η = 0.2 (as the paper fixes η = 0.01). Base point: n = 2 000,
m = 16, T = 300, C = 4. Each point averages R replicates (fresh initialisation, batches and
noise on the same images).

  * Fig 2: C ∈ {1, 2, 4, …, 64} (the paper's range) at the fixed η.
    holds: every C's mean test loss is within ±5 % of the sweep's mean (the mean over the K
    points), interval included — an equivalence test on the two contrasts x_C − 1.05·x̄ ≤ 0 and
    0.95·x̄ − x_C ≤ 0 per point; refuted: some C is outside the band beyond its interval; else
    inconclusive.
  * Fig 3: m ∈ {2, 4, 8, 16, 64, 256};  Fig 4: T ∈ {30, 100, 300, 1 000, 3 000}.
    holds: some interior point has both ends above it beyond the intervals of the two
    differences; refuted: an end is below every interior point beyond the intervals (a
    monotone curve, its minimum at that end); else inconclusive. Every interior point is
    compared with both ends (no point is picked by its noisy mean first).
  * Fig 5: n ∈ {250, 500, 1 000, 2 000, 4 000, 8 000} with T = ⌈50 n^{2/5}⌉ and
    m = max(4, ⌈n^{1/4}/2⌉) (the paper's, its garbled width read as n^{1/4}/2), DP against
    non-private SGD (no noise, no clipping; same η and batches).
    holds: the gap DP − non-private at the smallest n exceeds that at the largest beyond the
    interval; refuted: it is smaller beyond it; else inconclusive.

Intervals: paired Student t over the R replicates (R − 1 degrees of freedom). Replicate r of
every point uses the same seed, hence the same initialisation, batches and noise draws (common
random numbers), so each statement is a contrast computed per replicate — a difference of two
points, or a point against the sweep's mean — and its interval is exact under normality whatever
the correlation between points (an unpaired Welch interval is not: it ignores the correlation,
and the sweep's mean shares noise with every point). Bonferroni over the four figures'
statements and, within a figure, over its comparisons (Fig 2: the K points; Figs 3, 4: every
interior point against both ends), so the four verdicts together are at 95 %. `--rejudge TABLE`
recomputes a stored table's verdicts from its per-replicate test losses (CTest
validation.real_data_verdicts_nonconvex pins the committed one). The metric is the logistic
test loss of the averaged iterate (the paper's); the test error is reported beside it.

What differs from the paper: Fashion-MNIST instead of MNIST (not packaged in Debian), two
classes and n ≤ 8 000 images (the paper: 10-class MNIST, n = 60 000 for Figs 2 and 4), ε = 4 and
δ = 10⁻⁵ (the paper: ε = 1, δ = 1/n² — at n ≤ 8 000 that noise leaves the network at chance),
η = 0.2 and C = 4 (the paper: 0.01 and 20, over 200 epochs), widths up to 256, R replicates on
the same images.

The quick run (--quick) checks that every path runs and prints its verdicts; its grids (three
points, 3 replicates) are too coarse for verdicts, so it exits 0 whatever they say.

Run (full tier: about 9 min on 2 cores; it prints its own estimate first; --quick is the CI
smoke run, seconds; --work is where the runs' per-replicate sample files go):

    validation/real_data/nonconvex_sweeps.py build/ci/tools/dpkit/dpkit --output sweeps.csv
    validation/real_data/nonconvex_sweeps.py build/ci/tools/dpkit/dpkit --quick

Exit status: 0 (no claim refuted; and with --quick, whatever the verdicts), 3 (a claim refuted;
with --quick too, a sweep whose best test accuracy is below the smoke floor — chance + 3.29 sd of
the test set's binomial error: the model did not learn), 2 (bad input or
a failed run), 77 (Fashion-MNIST is not installed: skipped).
"""

from __future__ import annotations

import csv
import math
import os
import statistics
import sys
import time
from typing import Dict, List, Tuple

from real_data_common import (add_run_options, announce, fashion_mnist_installed, parser,
                              simulate_samples, t975, t_quantile, write_table, check_floor)

WHO = "nonconvex_sweeps"
BAND = 0.05  # Fig 2: "flat" = within ±5 % of the sweep's mean test loss


def point(a, n: int, width: int, steps: int, clip: float, rate: float,
          private: bool = True) -> Dict[str, object]:
    """The per-replicate test losses (with their mean, sd and count) and the mean test error at
    one configuration."""
    cmd = [a.dpkit, "simulate", "--algorithm", "mlp-dp-sgd", "--data", "fashion-mnist",
           "--keep-classes", a.classes, "--dataset-size", str(n), "--test-examples",
           str(a.test_size), "--width", str(width), "--steps", str(steps), "--sampling-rate",
           repr(a.sampling_rate), "--constraint", "none", "--learning-rate", repr(rate),
           "--replicates", str(a.replicates), "--seed", str(a.seed), "--threads", str(a.threads),
           "--format", "csv"]
    if private:
        cmd += ["--clip", repr(clip), "--epsilon", repr(a.epsilon), "--delta", repr(a.delta),
                "--calibration", "tight"]
    else:  # non-private SGD: no noise, and a clipping norm no gradient reaches
        cmd += ["--clip", "1e12", "--noise-std", "0"]
    out, _ = simulate_samples(cmd, os.path.join(a.work, "nonconvex_samples.csv"),
                              ["test_loss", "test_error"], a.replicates, WHO)
    return summary(out["test_loss"]) | {"error": statistics.fmean(out["test_error"])}


def summary(losses: List[float]) -> Dict[str, object]:
    """A point as the rules read it: its per-replicate test losses, their mean, sd and count."""
    return {"losses": losses, "mean": statistics.fmean(losses), "sd": statistics.stdev(losses),
            "count": len(losses)}


# The four statements that decide the table (Figs 2, 3, 4, 5) share one 5 % error budget
# (Bonferroni), and within a figure it is split again over the comparisons its rule makes, all
# of them, so that no point is chosen by looking at the noisy means first.
CLAIMS = 4


def paired(xs: List[float], ys: List[float]) -> List[Tuple[float, float]]:
    """The replicates' pairs of two points; the points must hold the same replicates."""
    if len(xs) != len(ys):
        raise ValueError(f"paired intervals need the same replicates ({len(xs)} against "
                         f"{len(ys)})")
    return list(zip(xs, ys))


def interval(values: List[float], confidence: float) -> Tuple[float, float]:
    """Mean of per-replicate contrasts and the half-width of its t interval at `confidence`."""
    return (statistics.fmean(values),
            t_quantile(confidence, len(values) - 1) * statistics.stdev(values)
            / math.sqrt(len(values)))


def difference(p: Dict[str, object], q: Dict[str, object],
               confidence: float) -> Tuple[float, float]:
    """p − q, paired by replicate: the mean difference and its t interval's half-width."""
    return interval([x - y for x, y in paired(p["losses"], q["losses"])], confidence)


def ushape(points: List[Dict[str, object]]) -> Tuple[str, str]:
    """U-shape: holds when some interior point has both ends resolved above it; refuted when an
    end is resolved below every interior point (a monotone curve, minimum at that end). Every
    interior point against both ends: 2(K − 2) comparisons, Bonferroni within the figure."""
    k_int = len(points) - 2
    conf = 1 - 0.05 / (CLAIMS * 2 * k_int)
    best, lowest_end = None, {0: True, len(points) - 1: True}
    for j in range(1, len(points) - 1):
        d0, h0 = difference(points[0], points[j], conf)
        d1, h1 = difference(points[-1], points[j], conf)
        if d0 > h0 and d1 > h1 and (best is None or min(d0 - h0, d1 - h1) > best[1]):
            best = (j, min(d0 - h0, d1 - h1), d0, h0, d1, h1)
        lowest_end[0] &= d0 < -h0
        lowest_end[len(points) - 1] &= d1 < -h1
    if best:
        j, _, d0, h0, d1, h1 = best
        return "holds", (f"at point {j + 1} of {len(points)} both ends are above it: "
                         f"{d0:+.4f} ± {h0:.4f} and {d1:+.4f} ± {h1:.4f} "
                         f"({100 * conf:.4g} % paired intervals)")
    for end, low in lowest_end.items():
        if low:
            return "refuted", (f"the {'first' if end == 0 else 'last'} point is below every "
                               f"interior point ({100 * conf:.4g} % paired intervals): monotone")
    return "inconclusive", (f"no interior point has both ends resolved above it, and no end is "
                            f"resolved below every interior point ({100 * conf:.4g} % paired "
                            "intervals)")


def flat(points: List[Dict[str, object]]) -> Tuple[str, str]:
    """Flat: every point within ±5 % of the sweep's mean test loss x̄ (the mean over the points).
    Per point two contrasts, computed per replicate: above = x − (1 + b)x̄ and below =
    (1 − b)x̄ − x (b = 0.05); holds when both intervals lie below 0 at every point (an
    equivalence test; x̄'s own noise is in the contrasts), refuted when one lies above 0 at some
    point; Bonferroni over the K points."""
    conf = 1 - 0.05 / (CLAIMS * len(points))
    if len({len(p["losses"]) for p in points}) != 1:
        raise ValueError("paired intervals need the same replicates at every point")
    per_rep = list(zip(*(p["losses"] for p in points)))
    centre = [statistics.fmean(r) for r in per_rep]
    worst_hi, worst_lo, where = -math.inf, -math.inf, 0
    for i, p in enumerate(points):
        for contrast in ([x - (1 + BAND) * c for x, c in zip(p["losses"], centre)],
                         [(1 - BAND) * c - x for x, c in zip(p["losses"], centre)]):
            m, h = interval(contrast, conf)
            if m + h > worst_hi:
                worst_hi, where = m + h, i
            worst_lo = max(worst_lo, m - h)
    mean_centre = statistics.fmean(centre)
    v = "holds" if worst_hi < 0 else ("refuted" if worst_lo > 0 else "inconclusive")
    return v, (f"band ±{BAND * mean_centre:.4f} (5 % of the sweep's mean {mean_centre:.4f}); "
               f"the farthest point (point {where + 1} of {len(points)}) is outside the band by "
               f"at most {worst_hi:+.4f} and the largest lower end of a point's excess over the "
               f"band is {worst_lo:+.4f} ({100 * conf:.4g} % paired intervals; < 0 inside)")


def gap_falls(dp: List[Dict[str, object]], clean: List[Dict[str, object]]) -> Tuple[str, str]:
    """Fig 5: the DP-minus-non-private gap is smaller at the largest n than at the smallest: the
    per-replicate contrast (dp₀ − clean₀) − (dp_K − clean_K)."""
    conf = 1 - 0.05 / CLAIMS
    g0 = [x - y for x, y in paired(dp[0]["losses"], clean[0]["losses"])]
    g1 = [x - y for x, y in paired(dp[-1]["losses"], clean[-1]["losses"])]
    d, h = interval([x - y for x, y in paired(g0, g1)], conf)
    v = "holds" if d > h else ("refuted" if d < -h else "inconclusive")
    return v, (f"gap {statistics.fmean(g0):+.4f} at the smallest n, {statistics.fmean(g1):+.4f} "
               f"at the largest; difference {d:+.4f} ± {h:.4f} ({100 * conf:.4g} % paired "
               "interval)")


def rejudge(path: str) -> int:
    """--rejudge: the four verdicts of a stored table recomputed from its per-replicate test
    losses with today's rules; exit 3 if one differs from the verdicts its first line records."""
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    head = next((ln for ln in lines if ln.startswith("#")), "")
    rows = list(csv.DictReader(ln for ln in lines if not ln.startswith("#")))
    if not rows or "verdicts:" not in head or "losses" not in rows[0]:
        sys.stderr.write(f"{WHO}: {path} is not a table of this script's --output\n")
        return 2
    stored = dict(item.strip().split(" ", 1) for item in head.split("verdicts:")[1].split(","))

    def pts(fig: str, run_name: str = "dp") -> List[Dict[str, object]]:
        return [summary([float(x) for x in r["losses"].split()]) for r in rows
                if r["figure"] == fig and r["run"] == run_name]

    now = {"fig2": flat(pts("fig2"))[0], "fig3": ushape(pts("fig3"))[0],
           "fig4": ushape(pts("fig4"))[0], "fig5": gap_falls(pts("fig5"),
                                                            pts("fig5", "non-private"))[0]}
    changed = [f for f in now if stored.get(f) != now[f]]
    for f in changed:
        print(f"{f}: stored '{stored.get(f)}', the rule gives '{now[f]}'")
    print(f"# {path}: {len(changed)} verdict(s) differ from the stored ones "
          f"(Bonferroni over the {CLAIMS} figures and within each)")
    return 3 if changed else 0


def width_of(n: int) -> int:
    """Fig 5's width: the garbled "m=(n^14/2)" read as n^{1/4}/2, at least 4."""
    return max(4, math.ceil(n ** 0.25 / 2))


def main() -> int:
    p = parser(__doc__)
    p.add_argument("--classes", default="0,6", help="the two classes (first: label −1)")
    p.add_argument("--epsilon", type=float, default=4.0)
    p.add_argument("--delta", type=float, default=1e-5)
    p.add_argument("--sampling-rate", type=float, default=0.1)
    add_run_options(p, replicates=8, test_size=2000, train_size=False)
    p.add_argument("--quick", action="store_true",
                   help="CI smoke run: n = 500, 500 test images, three points per sweep, "
                        "3 replicates")
    p.add_argument("--rejudge", metavar="TABLE",
                   help="no training: recompute the four verdicts of a stored table (this "
                        "script's --output) from its per-replicate test losses with today's rules; "
                        "exit 3 if one differs from the verdicts the table records")
    a = p.parse_args()
    if a.rejudge:
        return rejudge(a.rejudge)
    if not fashion_mnist_installed(WHO):
        return 77
    if a.replicates < 2:
        p.error("--replicates: at least 2 (the verdicts need intervals)")
    base_n, base_m, base_t, base_c, rate = 2000, 16, 300, 4.0, 0.2
    clips = [1, 2, 4, 8, 16, 32, 64]
    widths = [2, 4, 8, 16, 64, 256]
    steps = [30, 100, 300, 1000, 3000]
    sizes = [250, 500, 1000, 2000, 4000, 8000]
    if a.quick:
        base_n, a.test_size, a.replicates = 500, 500, 3
        clips, widths, steps, sizes = [1, 4, 64], [2, 16, 64], [30, 300, 1000], [250, 500]

    # Cost estimate before the work: a step costs about 0.9 us per (batch example × hidden unit)
    # on one core at m ≥ 16 (measured: 2.7 s for 4 replicates of n = 2 000, m = 16, T = 300),
    # plus scoring the test set.
    threads = a.threads or os.cpu_count() or 1
    rounds = math.ceil(a.replicates / min(threads, a.replicates))

    def cost(n: int, m: int, t: int) -> float:
        return rounds * (t * a.sampling_rate * n * max(m, 16) * 0.9e-6 + 0.3)

    seconds = (sum(cost(base_n, base_m, base_t) for _ in clips)
               + sum(cost(base_n, m, base_t) for m in widths)
               + sum(cost(base_n, base_m, t) for t in steps)
               + 2 * sum(cost(n, width_of(n), math.ceil(50 * n ** 0.4)) for n in sizes))
    announce(f"# Algorithm 10 on Fashion-MNIST classes {a.classes}: eps = {a.epsilon}, delta = "
             f"{a.delta}, q = {a.sampling_rate}, {a.replicates} replicates per point; "
             f"{len(clips) + len(widths) + len(steps) + 2 * len(sizes)} points", seconds, threads)

    rows: List[Dict[str, object]] = []
    verdicts: Dict[str, str] = {}
    t0 = time.time()

    def record(fig: str, x_name: str, x: float, pt: Dict[str, object], run_name: str = "dp"):
        rows.append({"figure": fig, "parameter": x_name, "value": x, "run": run_name,
                     "test_loss": pt["mean"], "test_loss_sd": pt["sd"],
                     "half_width": t975(pt["count"] - 1) * pt["sd"] / math.sqrt(pt["count"]),
                     "test_error": pt["error"], "replicates": pt["count"],
                     "losses": " ".join(repr(v) for v in pt["losses"])})
        print(f"  {fig} {x_name} = {x:g} ({run_name}): test loss {pt['mean']:.4f} "
              f"(sd {pt['sd']:.4f}), test error {pt['error']:.4f}", flush=True)

    def sweep(fig: str, claim: str, name: str, values, at, rule) -> None:
        """One of Figs 2-4: a point per value (`at` gives point()'s arguments), then the verdict."""
        pts = []
        for x in values:
            pts.append(point(a, *at(x)))
            record(fig, name, x, pts[-1])
        verdicts[fig], why = rule(pts)
        print(f"{fig.replace('fig', 'Fig ')} ({claim}): {verdicts[fig]}: {why}", flush=True)

    # Fig 2: the clipping norm at the fixed η; Fig 3: the width; Fig 4: the steps at fixed (ε, δ)
    sweep("fig2", "flat in C", "clip", clips, lambda c: (base_n, base_m, base_t, c, rate), flat)
    sweep("fig3", "U-shape in m", "width", widths,
          lambda m: (base_n, m, base_t, base_c, rate), ushape)
    sweep("fig4", "U-shape in T", "steps", steps,
          lambda t: (base_n, base_m, t, base_c, rate), ushape)
    # Fig 5: the sample size, DP against non-private
    dps, cleans = [], []
    for n in sizes:
        t = math.ceil(50 * n ** 0.4)
        dp = point(a, n, width_of(n), t, base_c, rate)
        clean = point(a, n, width_of(n), t, base_c, rate, private=False)
        record("fig5", "n", n, dp, "dp")
        record("fig5", "n", n, clean, "non-private")
        dps.append(dp)
        cleans.append(clean)
    verdicts["fig5"], why = gap_falls(dps, cleans)
    print(f"Fig 5 (the DP gap falls with n): {verdicts['fig5']}: {why}", flush=True)
    print(f"# {time.time() - t0:.0f} s; verdicts: paired Student t intervals over the "
          f"replicates (common seed), Bonferroni over the {CLAIMS} figures and over each "
          "figure's comparisons", flush=True)

    if a.output:
        write_table(a.output, f"nonconvex_sweeps.py: Fashion-MNIST classes {a.classes}, eps = "
                    f"{a.epsilon}, delta = {a.delta}, q = {a.sampling_rate}, {a.replicates} "
                    f"replicates, seed {a.seed}; verdicts: "
                    + ", ".join(f"{k} {v}" for k, v in verdicts.items()), rows)
    # The floor on each sweep's best point (two classes: chance 0.5). Fig 5's points are left
    # out: at its small n (250 in the quick run) the models sit near chance by design.
    best = {f: max(1 - r["test_error"] for r in rows if r["figure"] == f)
            for f in ("fig2", "fig3", "fig4")}
    floor_ok = check_floor(WHO, {f"{f}, best point": v for f, v in best.items()}, 0.5,
                           a.test_size)
    if not floor_ok:
        return 3
    if a.quick:
        return 0
    return 3 if "refuted" in verdicts.values() else 0


if __name__ == "__main__":
    sys.exit(main())
