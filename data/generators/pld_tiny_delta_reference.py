#!/usr/bin/env python3
"""Two-step privacy profiles of the Poisson-subsampled Gaussian far in the tail.

Writes data/reference/pld_tiny_delta.csv: delta_2(eps) of the 2-fold
Poisson-subsampled Gaussian (remove and add direction) at epsilons where delta
lies between 1e-19 and 1e-77, at small sampling rates (1e-6 to 1e-3). There the
PLD accountant must tilt its compositions by lambda ~ 1e6 (losses ~ 1e-4,
log delta ~ -115); with lambda capped at 1e4 its brackets stayed wide
([3.5e-5, 2.1e-4] at q = 1e-4, sigma = 22.43, delta = 1e-50, exact 1.10e-4).

The model and the quadratures are those of accounting_reference.py (same
conventions; see data/generators/README.md): the x-space recursion
delta_2(eps) = int p(x) delta_1(eps - L(x)) dx, cross-checked by the event
route P^2(E) - e^eps Q^2(E) with closed-form inner probabilities (another
panel layout and another formula), agreement < 1e-24 asserted on every row.
(accounting_reference.py's third route, loss-space mp.quad, is not used here:
its default degree does not resolve these tails, 7e-7 to 1e-2 apart.)

    /usr/bin/python3 data/generators/pld_tiny_delta_reference.py [--out DIR]

Run time: a few seconds on one core. Output is deterministic.
"""

import argparse
import os
import sys

_HERE = os.path.dirname(os.path.realpath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
import accounting_reference as ar  # noqa: E402
import reference_io  # noqa: E402
from mpmath import mp, mpf  # noqa: E402
from reference_io import fin, fout, rel_err, tens  # noqa: E402

GENERATOR = ("data/generators/pld_tiny_delta_reference.py (mpmath, model and quadrature of "
             "accounting_reference.py, mp.dps = 40)")
TOL = tens(-24)

# (direction, q, sigma, epsilons): epsilons chosen so that delta_2 spans 1e-19 .. 1e-77 (the add
# direction's losses end at -log(1 - q), so its epsilons lie below 2q).
GRID = [
    ('rem', 1e-4, 22.43, (8e-5, 1.1e-4, 1.5e-4)),
    ('add', 1e-4, 22.43, (5e-5, 7.1e-5)),
    ('rem', 1e-3, 4.0, (0.01, 0.02, 0.03)),
    ('add', 1e-3, 4.0, (0.0015,)),
    ('rem', 1e-6, 1.0, (0.01, 0.03, 0.1)),
]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.normpath(os.path.join(_HERE, "..", "reference")))
    args = ap.parse_args(argv)
    rows = []
    worst = mpf(0)
    for kind, qf, sf, epsilons in GRID:
        M = ar.make_mech(kind, qf, sf, 60)
        for ef in epsilons:
            e = mpf(ef)
            with mp.workdps(ar.CFG_X.dps):
                v = M.delta_x(e, 2, ar.CFG_X)
            with mp.workdps(ar.CFG_E.dps):
                ev = M.delta2_events(e, ar.CFG_E)
            r = rel_err(ev, v)
            assert r < TOL, (kind, qf, sf, ef, v, ev, r)
            assert tens(-300) < v < tens(-19), (kind, qf, sf, ef, v)
            worst = max(worst, r)
            rows.append([str(0 if kind == 'rem' else 1), fin(qf), fin(sf), "2", fin(ef), fout(v)])
    meta = {
        "what": "privacy profile delta_2(eps) of the 2-fold Poisson-subsampled Gaussian far in the "
                "tail (delta from 1e-19 to 1e-77), remove direction (P = (1-q)N(0,s^2) + "
                "qN(1,s^2), Q = N(0,s^2)) and add direction (the reverse pair), s = sigma",
        "source": "delta_2(eps) = E_{P^2}[(1 - e^(eps - S))_+], S = sum of 2 i.i.d. privacy losses "
                  "(as pld_poisson_delta.csv)",
        "method": "x-space recursion delta_2(eps) = int p(x) delta_1(eps - L(x)) dx with the "
                  "closed-form delta_1 (40 digits, accounting_reference.py's CFG_X), cross-checked "
                  "by P^2(E) - e^eps Q^2(E) with closed-form inner event probabilities (38 digits, "
                  "CFG_E): worst relative disagreement %s" % mp.nstr(worst, 2),
        "trusted digits": 24,
        "grid": "(q, sigma, direction, eps): (1e-4, 22.43, remove, {8e-5, 1.1e-4, 1.5e-4}), "
                "(1e-4, 22.43, add, {5e-5, 7.1e-5}), (1e-3, 4, remove, {0.01, 0.02, 0.03}), "
                "(1e-3, 4, add, {0.0015}), (1e-6, 1, remove, {0.01, 0.03, 0.1})",
        "columns": "direction = 0 remove / 1 add; q, sigma = inputs (exact doubles); steps = 2; "
                   "epsilon (exact double); delta = delta_2(eps)",
    }
    os.makedirs(args.out, exist_ok=True)
    n = reference_io.write_csv(os.path.join(args.out, "pld_tiny_delta.csv"), GENERATOR, meta,
                               ["direction", "q", "sigma", "steps", "epsilon", "delta"], rows)
    print("pld_tiny_delta.csv %d rows, worst check %s" % (n, mp.nstr(worst, 2)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
