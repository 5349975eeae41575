#!/usr/bin/env python3
"""DP on a long-tailed Fashion-MNIST subset: test error on all data and on the tail, and
memorisation of the tail examples, clean against DP-SGD (an analogue of ZXD+26 Figure 2(a)).

Zhao et al. [ZXD+26] show that DP training costs long-tailed examples far more accuracy than
typical ones, because the network can no longer memorise them: clean training fits the rare
examples (and generalises from them), DP training cannot. Their Figure 2(a) trains LeNet on MNIST
and splits the test set by an influence score. This script runs the same comparison on a subset
of Fashion-MNIST made long-tailed by subsampling two classes (the "tail"), with softmax regression:

  * training data: the 10 classes, --head-size images of each head class and --tail-size of
    each tail class (--tail-classes; default trouser and bag, 20 each, against 500), pixels in
    [0, 1] and a bias feature; the test set is Fashion-MNIST's whole test split (balanced);
  * clean: SGD, batches of 64 drawn without replacement, T steps, no clipping, no noise;
  * DP: DP-SGD with Poisson sampling at q = 64/n, per-example gradients clipped to norm 1,
    Gaussian noise with the noise multiplier z that `dpkit calibrate` certifies for (ε, δ)
    after T steps (PLD upper bound); the noise on the mean gradient is σ = z·C/(qn);
  * measured per replicate (`dpkit simulate --samples`): the test error on all test images, the
    training and test error on the tail classes (`--tail-classes`), and the tail's memorisation
    estimate — tail test error minus tail training error. Feldman's memorisation of an example is
    the drop in accuracy on it when it is left out; averaged over the tail it is the accuracy on
    tail examples seen in training minus that on unseen ones from the same classes, which the
    tail's test images provide.

Claims checked at each target ε (t intervals over the R differences of replicate r's clean and
DP runs; both use the same seed, i.e. common random numbers, and the replicates are independent
of each other, so the paired interval is valid; Bonferroni over the table: the 2 × targets
intervals at 1 − 0.05/k each, so that the table's verdicts are wrong together with probability
at most 5 %):

  1. "DP costs the tail more": (DP − clean) tail test error exceeds (DP − clean) test error on
     all data. holds / refuted (the opposite beyond the interval) / inconclusive.
  2. "DP prevents memorisation": the tail's memorisation estimate is smaller under DP than clean.
     holds / refuted / inconclusive.

What differs from the paper: softmax regression (convex) instead of LeNet; class-level tail (rare
classes) instead of an influence-score split; Fashion-MNIST (MNIST is not packaged in Debian).

Run (full tier: about 2 min on 2 cores for the defaults; the script prints its estimate first;
--quick is the CI smoke run, seconds):

    validation/real_data/longtail_memorisation.py build/ci/tools/dpkit/dpkit --output lt.csv
    validation/real_data/longtail_memorisation.py build/ci/tools/dpkit/dpkit --quick
    validation/real_data/longtail_memorisation.py build/ci/tools/dpkit/dpkit --rejudge lt.csv

The table keeps every replicate's value of each series (`values`), so `--rejudge TABLE`
recomputes its verdicts with this rule without training and exits 3 when one differs from the
stored verdict; CTest pins the committed table this way.

Exit status: 0 (no claim refuted; and with --quick, a smoke run whose coarse verdicts are
printed, not judged), 3 (a claim is refuted; with --quick too, a test accuracy below the smoke
floor — chance + 3.29 sd of the test set's binomial error: the model did not learn), 2 (bad input or a failed run), 77 (Fashion-MNIST
is not installed: skipped).
"""

from __future__ import annotations

import csv
import io
import math
import os
import statistics
import sys
from typing import Dict, List, Tuple

from real_data_common import read_table, rewrite_table
from real_data_common import (add_run_options, fashion_mnist_installed, parser, run,
                              simulate_samples, t975, t_quantile, write_table, check_floor)

WHO = "longtail_memorisation"
CLASSES = 10
COLUMNS = ("test-error/D", "tail-error/D", "tail-test-error/D")


def calibrate(a, q: float, eps: float) -> float:
    """The noise multiplier `dpkit calibrate` certifies for (eps, delta) after a.steps steps."""
    out = run([a.dpkit, "calibrate", "--epsilon", repr(eps), "--delta", repr(a.delta),
               "--sampling-rate", repr(q), "--steps", str(a.steps), "--format", "csv"], WHO)
    rows = list(csv.DictReader(io.StringIO(out)))
    return float(rows[0]["noise_multiplier"])


def train(a, sizes: List[int], extra: List[str], tag: str) -> Tuple[Dict[str, List[float]], float]:
    """Per-replicate observables of one configuration, and the run's seconds."""
    samples = os.path.join(a.work, f"longtail_{tag}.csv")
    cmd = [a.dpkit, "simulate", "--data", "fashion-mnist", "--model", "softmax", "--bias",
           "--keep-classes", ",".join(str(k) for k in range(CLASSES)),
           "--class-sizes", ",".join(str(s) for s in sizes),
           "--tail-classes", ",".join(str(k) for k in a.tail),
           "--steps", str(a.steps), "--replicates", str(a.replicates), "--seed", str(a.seed),
           "--threads", str(a.threads)] + extra
    if a.test_size:
        cmd += ["--test-size", str(a.test_size)]
    out, seconds = simulate_samples(cmd, samples, COLUMNS, a.replicates, WHO)
    out["memorisation"] = [t - e for t, e in zip(out["tail-test-error/D"], out["tail-error/D"])]
    return out, seconds


def interval(values: List[float], confidence: float = 0.95) -> Tuple[float, float]:
    """Mean and the half-width of its t interval at `confidence` (95 %: the figure's bars)."""
    m = statistics.fmean(values)
    if len(values) < 2:
        return m, math.inf
    t = t975(len(values) - 1) if confidence == 0.95 else t_quantile(confidence, len(values) - 1)
    return m, t * statistics.stdev(values) / math.sqrt(len(values))


def verdict(mean: float, half: float) -> str:
    """holds: mean > 0 beyond the interval; refuted: < 0 beyond it; else inconclusive."""
    return "holds" if mean > half else ("refuted" if mean < -half else "inconclusive")


def claim_confidence(targets: int) -> float:
    """Each claim's confidence: 1 − 0.05/k, k = 2 claims × the targets."""
    return 1 - 0.05 / max(1, 2 * targets)


def judge(clean: Dict[str, List[float]], dp: Dict[str, List[float]],
          confidence: float) -> Tuple[Tuple[str, float, float], Tuple[str, float, float]]:
    """The two claims at one ε from the replicates' paired values: (verdict, mean, half-width)
    of the extra tail cost and of the memorisation drop."""
    cost = [(dt - da) - (ct - ca) for dt, da, ct, ca in
            zip(dp["tail-test-error/D"], dp["test-error/D"], clean["tail-test-error/D"],
                clean["test-error/D"])]
    mem = [c - d for c, d in zip(clean["memorisation"], dp["memorisation"])]
    c_mean, c_half = interval(cost, confidence)
    m_mean, m_half = interval(mem, confidence)
    return (verdict(c_mean, c_half), c_mean, c_half), (verdict(m_mean, m_half), m_mean, m_half)


SERIES = (("all", "test-error/D"), ("tail", "tail-test-error/D"), ("tail-train", "tail-error/D"),
          ("memorisation", "memorisation"))


def rejudge(path: str, output: str) -> int:
    """--rejudge: the verdicts of a stored table recomputed from its per-replicate values; each
    changed one printed; exit 3 if one changed, 0 if every stored verdict is the rule's."""
    head, rows = read_table(path)
    need = {"epsilon", "run", "series", "values", "verdict_tail_cost", "verdict_memorisation"}
    if not rows or not need <= set(rows[0]):
        sys.stderr.write(f"{WHO}: {path} is not a table of this script's --output (no rows, or "
                         "no epsilon/run/series/values/verdict columns)\n")
        return 2
    names = dict(SERIES)
    obs: Dict[Tuple[float, str], Dict[str, List[float]]] = {}
    for r in rows:
        key = names[r["series"].split(" ", 1)[1]]
        obs.setdefault((float(r["epsilon"]), r["run"]), {})[key] = [
            float(x) for x in r["values"].split()]
    targets = sorted({e for e, _ in obs})
    confidence = claim_confidence(len(targets))
    changed = 0
    for eps in targets:
        (v_cost, c_mean, c_half), (v_mem, m_mean, m_half) = judge(
            obs[(eps, "clean")], obs[(eps, "dp")], confidence)
        for r in rows:
            if float(r["epsilon"]) != eps:
                continue
            for col, v in (("verdict_tail_cost", v_cost), ("verdict_memorisation", v_mem)):
                if r[col] != v:
                    changed += 1
                    print(f"eps {eps:g} {r['series']}: stored {col} '{r[col]}', the rule gives "
                          f"'{v}'")
                r[col] = v
        print(f"eps {eps:g}: extra tail cost {c_mean:+.4f} +- {c_half:.4f}: {v_cost}; "
              f"memorisation drop {m_mean:+.4f} +- {m_half:.4f}: {v_mem}")
    print(f"# {path}: {len(targets)} targets, the claims' intervals at {100 * confidence:.4g}% "
          f"each (Bonferroni); {changed} verdict entr(y/ies) differ from the stored ones")
    if output:  # the table as the script writes it, its provenance line kept
        rewrite_table(output, head, rows)
    return 3 if changed else 0


def main() -> int:
    p = parser(__doc__)
    p.add_argument("--targets", default="1,2,4,8", help="target ε values (comma-separated)")
    p.add_argument("--delta", type=float, default=1e-5)
    p.add_argument("--tail-classes", default="1,8", help="the rare classes (stored labels)")
    p.add_argument("--head-size", type=int, default=500, help="images of each head class")
    p.add_argument("--tail-size", type=int, default=20, help="images of each tail class")
    p.add_argument("--steps", type=int, default=3000, help="T, for both runs")
    p.add_argument("--batch-size", type=int, default=64, help="b (clean) and q·n (DP)")
    p.add_argument("--clean-learning-rate", type=float, default=0.2)
    p.add_argument("--dp-learning-rate", type=float, default=0.5)
    p.add_argument("--clip", type=float, default=1.0, help="DP-SGD's clipping norm C")
    add_run_options(p, replicates=10, train_size=False)
    p.add_argument("--quick", action="store_true",
                   help="CI smoke run: 150 images per head class, 10 per tail class, T = 400, "
                        "one target ε = 4, 3 replicates, 2000 test images")
    p.add_argument("--rejudge", metavar="TABLE",
                   help="no training: recompute every verdict of a stored table (this script's "
                        "--output) from its per-replicate values with today's rule; with "
                        "--output, write the table with those verdicts; exit 3 if one differs "
                        "from the stored verdict")
    a = p.parse_args()
    if a.rejudge:
        return rejudge(a.rejudge, a.output)
    if a.quick:
        a.targets, a.head_size, a.tail_size, a.steps, a.replicates = "4", 150, 10, 400, 3
        a.test_size = 2000
    if not fashion_mnist_installed(WHO):
        return 77
    try:
        a.tail = [int(k) for k in a.tail_classes.split(",")]
        targets = [float(t) for t in a.targets.split(",")]
    except ValueError:
        p.error("--tail-classes and --targets are comma-separated numbers")
    if not a.tail or any(k < 0 or k >= CLASSES for k in a.tail) or len(set(a.tail)) != len(a.tail):
        p.error("--tail-classes: distinct classes in 0..9")
    if a.replicates < 2:
        p.error("--replicates: at least 2 (the verdicts need an interval)")
    sizes = [a.tail_size if k in a.tail else a.head_size for k in range(CLASSES)]
    n = sum(sizes)
    q = a.batch_size / n

    print(f"# long-tailed Fashion-MNIST: n = {n} ({a.head_size} per head class, {a.tail_size} "
          f"per tail class {a.tail_classes}), softmax regression, T = {a.steps}, "
          f"{a.replicates} replicates, delta = {a.delta}", flush=True)
    # Cost estimate before the work: a step of softmax regression costs about 27 us per image on
    # one core (docs/sim.md), plus reading the data and scoring 10 000 test images per replicate.
    threads = a.threads or os.cpu_count() or 1
    per_run = (a.replicates / min(threads, a.replicates)) * (
        a.steps * a.batch_size * 27e-6 + 0.5) + 1.0
    print(f"# {1 + len(targets)} training runs: about {(1 + len(targets)) * per_run / 60:.1f} min "
          f"on {threads} thread(s)", flush=True)

    clean, sec = train(a, sizes, ["--algorithm", "sgd", "--batch-size", str(a.batch_size),
                                  "--learning-rate", repr(a.clean_learning_rate)], "clean")
    print(f"clean: test error {statistics.fmean(clean['test-error/D']):.4f}, tail test error "
          f"{statistics.fmean(clean['tail-test-error/D']):.4f}, tail training error "
          f"{statistics.fmean(clean['tail-error/D']):.4f} ({sec:.0f} s)", flush=True)
    rows = []
    refuted = False
    confidence = claim_confidence(len(targets))
    for eps in targets:
        z = calibrate(a, q, eps)
        sigma = z * a.clip / (q * n)
        dp, sec = train(a, sizes, ["--algorithm", "poisson", "--sampling-rate", repr(q),
                                   "--clip", repr(a.clip), "--noise-std", repr(sigma),
                                   "--learning-rate", repr(a.dp_learning_rate)], f"dp_{eps:g}")
        (v_cost, c_mean, c_half), (v_mem, m_mean, m_half) = judge(clean, dp, confidence)
        refuted |= "refuted" in (v_cost, v_mem)
        print(f"eps {eps:g}: z = {z:.4f}, sigma = {sigma:.4g}; DP test error "
              f"{statistics.fmean(dp['test-error/D']):.4f}, tail test error "
              f"{statistics.fmean(dp['tail-test-error/D']):.4f}, tail training error "
              f"{statistics.fmean(dp['tail-error/D']):.4f} ({sec:.0f} s)", flush=True)
        print(f"  DP costs the tail more: extra tail error {c_mean:+.4f} +- {c_half:.4f}: "
              f"{v_cost}", flush=True)
        print(f"  DP prevents memorisation: clean minus DP memorisation {m_mean:+.4f} +- "
              f"{m_half:.4f}: {v_mem}", flush=True)
        for run_name, obs, ctx in (("clean", clean, None), ("dp", dp, (z, sigma))):
            for series, key in SERIES:
                mean, half = interval(obs[key])
                rows.append({"epsilon": eps, "run": run_name, "series": f"{run_name} {series}",
                             "mean": mean, "half_width": half,
                             "noise_multiplier": ctx[0] if ctx else "",
                             "sigma": ctx[1] if ctx else "",
                             "verdict_tail_cost": v_cost, "verdict_memorisation": v_mem,
                             "values": " ".join(repr(v) for v in obs[key])})
    print(f"# verdicts: t intervals over the replicates' paired clean/DP differences at "
          f"{100 * confidence:.4g}% each (Bonferroni over the {2 * len(targets)} claims); "
          "'refuted' = the opposite of the paper's claim beyond the interval")
    print("# an analogue of ZXD+26 Fig 2(a): softmax regression, rare classes as the tail, "
          "Fashion-MNIST; memorisation = tail test error - tail training error")
    if a.output:
        write_table(a.output, f"longtail_memorisation.py: Fashion-MNIST, n = {n}, tail classes "
                    f"{a.tail_classes} ({a.tail_size} each), head {a.head_size} each, T = "
                    f"{a.steps}, b = {a.batch_size}, clip {a.clip}, delta = {a.delta}, "
                    f"{a.replicates} replicates, seed {a.seed}", rows)
    # The floor on the whole test set's accuracy (10 classes: chance 0.1), clean and DP.
    floor_ok = check_floor("longtail_memorisation",
                           {f"eps {r['epsilon']:g} {r['run']}": 1 - r["mean"] for r in rows
                            if r["series"].endswith(" all")}, 0.1, a.test_size or 10000)
    return 3 if (refuted and not a.quick) or not floor_ok else 0


if __name__ == "__main__":
    sys.exit(main())
