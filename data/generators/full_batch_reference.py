#!/usr/bin/env python3
"""50-digit references for full-batch DP-SGD runs: the exact (epsilon, delta) of a run
whose every step uses the whole dataset (sampling rate 1).

Such a run of T steps with noise multiplier sigma is the composition of T Gaussian
mechanisms, i.e. exactly mu-GDP with mu = sqrt(T)/sigma (add/remove neighbours,
sensitivity 1) or mu = 2 sqrt(T)/sigma (replace-one neighbours, sensitivity 2), by
Dong, Roth & Su 2022 (Gaussian differential privacy, arXiv:1905.02383), Cor. 2.

dpkit's PLD accountant answers these runs by the closed form and labels the answer a
certified bracket [epsilon_lower, epsilon_upper] (and [delta_lower, delta_upper]); its
tests check, at 50 digits, that the exact value lies inside the bracket on every row of
these random grids (lib/tests/accounting/full_batch_bracket_test.cpp).

    /usr/bin/python3 data/generators/full_batch_reference.py [--out DIR] [--only NAME]

Conventions as in data/generators/README.md. The grids are drawn from a seeded
random.Random, so the output is deterministic.
"""

import argparse
import math
import os
import random
import sys
import time

import mpmath
from mpmath import mp, mpf

_HERE = os.path.dirname(os.path.realpath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
import reference_io  # noqa: E402
from reference_io import fin, fout  # noqa: E402
import foundation_reference as fr  # noqa: E402  (mu-GDP delta(eps), eps(delta) at 50+ digits)

mp.dps = 50
GENERATOR = ("data/generators/full_batch_reference.py (mpmath %s, mp.dps = %d)"
             % (mpmath.__version__, mp.dps))

SCHEMES = ("poisson", "without-replacement")


def exact_mu(sigma, steps, scheme):
    """mu of the run, exactly (sigma is the exact binary value of the double)."""
    with mp.workdps(120):
        c = 1 if scheme == "poisson" else 2
        return c * mp.sqrt(mpf(steps)) / mpf(sigma)


def hi_lo(v):
    """The 50-digit value v as a double-double hi + lo (hi = v rounded to nearest double,
    lo = the rest rounded to nearest), both written as repr(float): a test compares a double
    bound b with v exactly from them (b >= v iff b > hi, or b == hi and lo <= 0)."""
    with mp.workdps(60):
        v = mpf(v)
        if v == 0:
            return "0.0", "0.0"
        hi = float(v)
        if math.isinf(hi) or abs(hi) < 2.2250738585072014e-308:
            return "nan", "nan"   # outside the double range: the test uses the log column
        lo = float(v - mpf(hi))
        return repr(hi), repr(lo)


def sensitivity(scheme):
    return "1" if scheme == "poisson" else "2"


def sig4(x):
    return float("%.4g" % x)


def draw_run(rng):
    """A random run: sigma log-uniform in [0.05, 200] (4 digits), T log-uniform in [1, 3e6]."""
    sigma = sig4(10 ** rng.uniform(-1.3, 2.3))
    steps = int(round(10 ** rng.uniform(0, 6.5)))
    scheme = rng.choice(SCHEMES)
    return sigma, steps, scheme


# Runs at the edges of the accepted domain (mu <= 1e6): tiny and huge mu, delta near 0 and 1.
EXTREME_RUNS = [
    (1e4, 1, "poisson"),                  # mu = 1e-4
    (3000.0, 1, "without-replacement"),   # mu = 6.7e-4
    (0.01, 1000000, "poisson"),           # mu = 1e5
    (0.002, 1000000, "without-replacement"),  # mu = 1e6, the largest accepted
    (0.1, 1, "poisson"),                  # mu = 10, one step
    (1.0, 1, "poisson"),                  # mu = 1
    (0.8, 1000, "poisson"),
    (5.0, 100000, "without-replacement"),
]


def epsilon_rows():
    rng = random.Random(20261122)
    rows = []
    cases = []
    for _ in range(320):
        sigma, steps, scheme = draw_run(rng)
        delta = float("%.3g" % 10 ** rng.uniform(-16, -0.3))
        cases.append((sigma, steps, scheme, delta))
    for sigma, steps, scheme in EXTREME_RUNS:
        for delta in (1e-300, 1e-100, 1e-30, 1e-5, 0.5, 0.9, 0.999):
            cases.append((sigma, steps, scheme, delta))
    for sigma, steps, scheme, delta in cases:
        mu = exact_mu(sigma, steps, scheme)
        eps = fr.gdp_epsilon(mu, delta)
        rows.append([sensitivity(scheme), fin(sigma), fin(steps), fin(delta), fout(eps)]
                    + list(hi_lo(eps)))
    return rows


def delta_rows():
    rng = random.Random(18)
    cases = []
    for _ in range(320):
        sigma, steps, scheme = draw_run(rng)
        mu = float(exact_mu(sigma, steps, scheme))
        # epsilon = mu^2/2 + z mu with z ~ U(-2, 37), so that delta ~ Phi(-z) spans 1 down to
        # 1e-300 (epsilon >= 0); one row in twenty at epsilon = 0 (delta(0): the total
        # variation distance).
        z = rng.uniform(-2, 37)
        if rng.random() < 0.05:
            eps = 0.0
        else:
            eps = sig4(max(0.0, mu * mu / 2 + z * mu))
        cases.append((sigma, steps, scheme, eps))
    for sigma, steps, scheme in EXTREME_RUNS:
        mu = float(exact_mu(sigma, steps, scheme))
        for factor in (0.0, 0.01, 0.5, 1.0, 3.0, 30.0):
            cases.append((sigma, steps, scheme, sig4(factor * (mu + mu * mu / 2))))
    rows = []
    for sigma, steps, scheme, eps in cases:
        mu = exact_mu(sigma, steps, scheme)
        d, ld, _, _ = fr.gdp_delta(mu, eps)
        rows.append([sensitivity(scheme), fin(sigma), fin(steps), fin(eps), fout(d), fout(ld)]
                    + list(hi_lo(d)) + list(hi_lo(ld)))
    return rows


SOURCE = ("a full-batch run is exactly mu-GDP, mu = c sqrt(T)/sigma, c = 1 (poisson: add/remove) "
          "or 2 (without-replacement: replace-one) (Dong, Roth & Su 2022, arXiv:1905.02383, "
          "Cor. 2); delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) (Balle & Wang "
          "2018, Thm 8)")


def gen_epsilon(out):
    rows = epsilon_rows()
    meta = {
        "what": "exact epsilon(delta) of a full-batch (sampling rate 1) DP-SGD run",
        "source": SOURCE,
        "method": "mu formed at 120 digits from the exact double sigma and integer T; "
                  "epsilon by foundation_reference.gdp_epsilon (safeguarded Newton at 90 digits, "
                  "residual-implied error < 1e-40 relative, asserted)",
        "trusted digits": 40,
        "grid": "320 random runs (random.Random(20261122)): sigma = 10^U(-1.3, 2.3) to 4 digits, "
                "T = round(10^U(0, 6.5)), scheme uniform, delta = 10^U(-16, -0.3) to 3 digits; "
                "plus 8 edge runs (mu from 1e-4 to 1e6) x delta in "
                "{1e-300,1e-100,1e-30,1e-5,0.5,0.9,0.999}",
        "columns": "sensitivity (1: poisson, add/remove; 2: without-replacement, replace-one), "
                   "noise_multiplier, steps, delta = inputs (exact doubles); epsilon = exact "
                   "epsilon (0 when delta >= delta(0)); epsilon_hi + epsilon_lo = epsilon as a "
                   "double-double (hi rounded to nearest), for exact comparisons",
    }
    return reference_io.write_csv(os.path.join(out, "full_batch_epsilon.csv"), GENERATOR, meta,
                                  ["sensitivity", "noise_multiplier", "steps", "delta", "epsilon",
                                   "epsilon_hi", "epsilon_lo"],
                                  rows)


def gen_delta(out):
    rows = delta_rows()
    meta = {
        "what": "exact delta(epsilon) of a full-batch (sampling rate 1) DP-SGD run, and log delta",
        "source": SOURCE,
        "method": "mu formed at 120 digits from the exact double sigma and integer T; delta by "
                  "foundation_reference.gdp_delta (closed form at adaptive precision, doubled "
                  "until two precisions agree to 1e-45 relative)",
        "trusted digits": 45,
        "grid": "320 random runs (random.Random(18)) drawn as for full_batch_epsilon.csv, "
                "epsilon = 0 (one row in 20) or max(0, mu^2/2 + z mu), z = U(-2, 37), to 4 digits; "
                "plus the 8 edge runs x epsilon = {0,0.01,0.5,1,3,30} x (mu + mu^2/2)",
        "columns": "sensitivity (1: poisson; 2: without-replacement), noise_multiplier, steps, "
                   "epsilon = inputs (exact doubles); delta = exact delta (may underflow double: "
                   "use log_delta); log_delta = log(delta); *_hi + *_lo = the value as a "
                   "double-double (nan where delta is outside the double range)",
    }
    return reference_io.write_csv(os.path.join(out, "full_batch_delta.csv"), GENERATOR, meta,
                                  ["sensitivity", "noise_multiplier", "steps", "epsilon", "delta",
                                   "log_delta", "delta_hi", "delta_lo", "log_delta_hi",
                                   "log_delta_lo"], rows)


GENERATORS = [("full_batch_epsilon", gen_epsilon), ("full_batch_delta", gen_delta)]


def main(argv=None):
    default_out = os.path.normpath(os.path.join(_HERE, "..", "reference"))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=default_out, help="output directory (default: %(default)s)")
    ap.add_argument("--only", default=None, help="one file: full_batch_epsilon or full_batch_delta")
    args = ap.parse_args(argv)
    todo = GENERATORS
    if args.only:
        want = args.only[:-4] if args.only.endswith(".csv") else args.only
        todo = [(n, g) for n, g in GENERATORS if n == want]
        if not todo:
            ap.error("unknown --only %r" % args.only)
    os.makedirs(args.out, exist_ok=True)
    for name, gen in todo:
        t0 = time.time()
        n = gen(args.out)
        print("%s.csv: %d rows, %.1f s" % (name, n, time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
