#!/usr/bin/env python3
"""Reference epsilons of self-composed mixtures of Gaussians, computed by Google's dp_accounting
package itself: data/reference/dp_accounting_mixture.csv.

What is computed. dp_accounting's MixtureOfGaussiansDpEvent(sigma, sensitivities c, probabilities
p) is the pair N(0, sigma^2) against sum_i p_i N(c_i, sigma^2) (Choquette-Choo, Ganesh, Steinke &
Thakurta 2024, arXiv:2310.15526: the rows of their conditional composition). For each case the
table holds epsilon = PLDAccountant().compose(SelfComposedDpEvent(event, count)).get_epsilon(delta)
at the package's defaults (ADD_OR_REMOVE_ONE, value_discretization_interval 1e-4, pessimistic
connect-the-dots PLD: an upper bound up to its discretisation), and the wall time of that call
(time.perf_counter, one run; machine-dependent, a guide only). dpkit's test
(lib/tests/accounting/matrix_mmcc_test.cpp) composes the same mixtures with its own
subsampling::gaussian_mixture_loss and PLD accountant.

Columns c0..c5 and p0..p5 hold the atoms (atoms = how many are used; the rest are 0).

Run (needs numpy, scipy, attrs, absl-py and a copy of dp_accounting's source; Debian:
python3-numpy python3-scipy python3-attr python3-absl)::

    /usr/bin/python3 data/generators/dp_accounting_mixture_reference.py --dp-accounting DIR \\
        --out data/reference/dp_accounting_mixture.csv [--revision COMMIT]

DIR is the folder holding the dp_accounting package (python/dp_accounting of a
google/differential-privacy checkout or export). Epsilons are deterministic; the seconds column
and the date line are not.
"""
import argparse
import datetime
import pathlib
import sys
import time

# (sigma, sensitivities, probabilities, counts): two to six atoms, from a Poisson-subsampled
# Gaussian (two atoms) to spread-out rows like the conditional bound's.
MIXTURES = (
    (1.0, (0.0, 1.0, 2.0), (0.5, 0.3, 0.2), (1, 10)),
    (2.0, (0.0, 0.5, 1.3, 2.1), (0.9, 0.05, 0.03, 0.02), (1, 50, 500)),
    (0.8, (0.0, 1.0), (0.99, 0.01), (10, 1000)),
    (3.0, (0.0, 0.2, 0.4, 0.6, 0.8, 1.0), (0.5, 0.2, 0.1, 0.1, 0.05, 0.05), (100,)),
)
DELTAS = (1e-5, 1e-9)
MAX_ATOMS = 6


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dp-accounting", required=True, help="folder holding the dp_accounting package")
    p.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parent.parent
                                        / "reference" / "dp_accounting_mixture.csv"))
    p.add_argument("--revision", default="unknown", help="google/differential-privacy commit")
    a = p.parse_args()
    sys.path.insert(0, str(pathlib.Path(a.dp_accounting).resolve()))
    import dp_accounting as dpa
    import numpy
    import scipy
    # Sanity: two atoms are the Poisson-subsampled Gaussian, which the package computes by
    # another constructor; the two must agree to the grid.
    mix = dpa.dp_event.MixtureOfGaussiansDpEvent(0.8, [0.0, 1.0], [0.99, 0.01])
    sub = dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(0.8))
    e1 = dpa.pld.PLDAccountant().compose(dpa.SelfComposedDpEvent(mix, 100)).get_epsilon(1e-5)
    e2 = dpa.pld.PLDAccountant().compose(dpa.SelfComposedDpEvent(sub, 100)).get_epsilon(1e-5)
    assert abs(e1 - e2) <= 1e-3 * e2, (e1, e2)

    header = ["standard_deviation", "atoms"] + ["c%d" % i for i in range(MAX_ATOMS)] + \
             ["p%d" % i for i in range(MAX_ATOMS)] + ["count", "delta", "epsilon", "seconds"]
    rows = []
    for sigma, c, w, counts in MIXTURES:
        for count in counts:
            for delta in DELTAS:
                event = dpa.SelfComposedDpEvent(dpa.dp_event.MixtureOfGaussiansDpEvent(sigma, list(c), list(w)),
                                                count)
                t0 = time.perf_counter()
                eps = float(dpa.pld.PLDAccountant().compose(event).get_epsilon(delta))
                sec = time.perf_counter() - t0
                pad = MAX_ATOMS - len(c)
                rows.append([repr(sigma), str(len(c))] + [repr(x) for x in c] + ["0"] * pad +
                            [repr(x) for x in w] + ["0"] * pad +
                            [str(count), repr(delta), repr(eps), repr(round(sec, 4))])
                print(sigma, c, w, count, delta, eps, "%.3f s" % sec, flush=True)
    meta = [
        ("what", "epsilon of SelfComposedDpEvent(MixtureOfGaussiansDpEvent(sigma c p) count) from "
                 "dp_accounting's PLDAccountant (defaults: ADD_OR_REMOVE_ONE; "
                 "value_discretization_interval 1e-4; pessimistic connect-the-dots)"),
        ("source", "google/differential-privacy commit %s; numpy %s scipy %s python %s"
                   % (a.revision, numpy.__version__, scipy.__version__, sys.version.split()[0])),
        ("generator", "data/generators/dp_accounting_mixture_reference.py"),
        ("command", "python3 data/generators/dp_accounting_mixture_reference.py --dp-accounting DIR "
                    "--out data/reference/dp_accounting_mixture.csv"),
        ("date", datetime.date.today().isoformat()),
    ]
    with open(a.out, "w") as f:
        for k, v in meta:
            f.write("# %s: %s\n" % (k, v))
        f.write(",".join(header) + "\n")
        for r in rows:
            f.write(",".join(r) + "\n")


if __name__ == "__main__":
    main()
