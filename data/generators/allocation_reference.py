#!/usr/bin/env python3
"""High-precision references for random allocation ("balls in bins", one step of t per epoch).

Writes two files to data/reference/ (mu = 1/sigma, Y = exp(mu x - mu^2/2), x ~ N(0, 1)):

* allocation_rdp.csv — one epoch's Renyi divergences of P = (1/t) sum_j N(mu e_j, I_t) against
  Q = N(0, I_t), as (alpha - 1) D_alpha:
  - remove, log E_Q[(S/t)^alpha], S = Y_1 + ... + Y_t: the multinomial sum over all
    compositions (k_1..k_t) of alpha (not grouped by partition, unlike the library), with
    E[Y^k] = exp(k(k-1) mu^2/2);
  - add, log E_Q[(S/t)^(1 - alpha)]: for t = 2 the two-dimensional Gaussian integral itself
    (mpmath quad); for larger t the one-dimensional Laplace representation
    Gamma(a)^-1 int v^(a-1) phi(v/t)^t dv, phi(s) = E[exp(-s Y)], a = alpha - 1, at 20 digits
    (the library uses the same representation in double precision; here every integral is
    mpmath's tanh-sinh at 20 digits, cross-checked against the 2-D integral at t = 2).
* allocation_max_delta.csv — one epoch's privacy profile of the largest coordinate M under the
  allocation pair (F_P(m) = Phi(m - mu) Phi(m)^(t-1), F_Q(m) = Phi(m)^t), both directions, by
  the shuffle generator's method (shuffle_reference.profile with shifts (mu, 0)).

    /usr/bin/python3 data/generators/allocation_reference.py [--out DIR]
"""

import argparse
import itertools
import math
import os
import sys

import mpmath
from mpmath import mp, mpf

_HERE = os.path.dirname(os.path.realpath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
import reference_io  # noqa: E402
from reference_io import fin, fout, rel_err  # noqa: E402
import shuffle_reference  # noqa: E402

DPS = 20
GENERATOR = ("data/generators/allocation_reference.py (mpmath %s, mp.dps = %d)"
             % (mpmath.__version__, DPS))


def compositions(n, k):
    """All (k_1..k_k) of non-negative integers summing to n."""
    for cuts in itertools.combinations(range(n + k - 1), k - 1):
        prev, out = -1, []
        for c in cuts:
            out.append(c - prev - 1)
            prev = c
        out.append(n + k - 1 - prev - 1)
        yield out


def remove_log_moment(alpha, mu, t):
    total = mpf(0)
    fact = mp.factorial(alpha)
    # E[Y^k] / k! per part size (k = 0 contributes 1).
    factor = [mp.exp(k * (k - 1) * mu ** 2 / 2) / mp.factorial(k) for k in range(alpha + 1)]
    for ks in compositions(alpha, t):
        term = fact
        for k in ks:
            if k:
                term *= factor[k]
        total += term
    return mp.log(total) - alpha * mp.log(t)


def add_log_moment_2d(alpha, mu):
    a = alpha - 1
    y = lambda x: mp.exp(mu * x - mu ** 2 / 2)
    f = lambda x1, x2: mp.npdf(x1) * mp.npdf(x2) * ((y(x1) + y(x2)) / 2) ** (-a)
    pts = [-14, -6, -2, 0, 2, 6, 14]
    return mp.log(mp.quad(f, pts, pts))


def add_log_moment_laplace(alpha, mu, t):
    a = mpf(alpha) - 1
    y = lambda x: mp.exp(mu * x - mu ** 2 / 2)

    def psi(s):  # 1 - phi(s)
        return mp.quad(lambda x: mp.npdf(x) * -mp.expm1(-s * y(x)), [-mp.inf, -6, 0, mu, 6, mp.inf])

    def g(v):
        return v ** (a - 1) * mp.exp(t * mp.log1p(-psi(v / t)))

    return mp.log(mp.quad(g, [0, a / 4, a, 4 * a + 10, mp.inf]) / mp.gamma(a))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(_HERE, "..", "reference"))
    args = ap.parse_args()
    mp.dps = DPS
    rows = []
    for mu in (0.5, 1.0, 2.0):
        m = mpf(fin(mu))
        for t, alphas in ((2, (2, 3, 5, 10, 20)), (3, (2, 3, 5, 10)), (10, (2, 3, 5, 8)),
                          (100, (2, 3))):
            for alpha in alphas:
                rows.append([repr(mu), str(t), str(alpha), "0",
                             fout(remove_log_moment(alpha, m, t))])
        if mu == 1.0:
            # The add direction from the 2-D Gaussian integral itself (t = 2). The nested
            # 1-D Laplace representation (add_log_moment_laplace) is the library's method and
            # far too slow in mpmath for a grid; it is kept here for spot checks.
            for alpha in (2, 3, 5):
                v = add_log_moment_2d(alpha, m)
                rows.append([repr(mu), "2", str(alpha), "1", fout(v)])
                print("add", mu, 2, alpha, mp.nstr(v, 15), flush=True)
        print("mu", mu, "done", flush=True)
    meta = {
        "what": "one epoch of random allocation (one step of t, Gaussian, mu = 1/sigma): "
                "(alpha - 1) D_alpha of P = (1/t) sum_j N(mu e_j, I_t) vs Q = N(0, I_t)",
        "source": "the pair as in Feldman & Shenfeld 2025 (arXiv:2502.08202) and Chua et al. "
                  "2025 (arXiv:2412.16802)",
        "method": "remove: sum over all compositions of alpha (exact, 20 digits); add (t = 2, "
                  "mu = 1): the 2-D Gaussian integral by mpmath quad",
        "trusted digits": 12,
        "grid": "remove: mu in {0.5,1,2} x (t, alpha) in {2: 2,3,5,10,20; 3: 2,3,5,10; 10: 2,3,5,8; "
                "100: 2,3}; add: mu = 1, t = 2, alpha in {2,3,5}",
        "columns": "mu, steps_per_epoch (t), alpha = inputs; direction = 0 remove (P,Q), 1 add "
                   "(Q,P); log_moment = (alpha - 1) D_alpha",
    }
    n = reference_io.write_csv(os.path.join(args.out, "allocation_rdp.csv"), GENERATOR, meta,
                               ["mu", "steps_per_epoch", "alpha", "direction", "log_moment"], rows)
    print("allocation_rdp.csv:", n, "rows", flush=True)

    mp.dps = 50
    rows = []
    for mu in (0.5, 1.0, 2.0):
        for t in (2, 10, 100):
            for eps in (0.0, 0.5, 1.0, 2.0):
                for name in ("remove", "add"):
                    m = mpf(fin(mu))
                    v, w = shuffle_reference.profile(m, t, mpf(fin(eps)), name, shifts=(m, mpf(0)))
                    if v < mpf(10) ** -30:
                        continue
                    assert v >= 0 and rel_err(v, w) < mpf(10) ** -12, (mu, t, eps, name, v, w)
                    rows.append([repr(mu), str(t), repr(eps), "0" if name == "remove" else "1",
                                 fout(v)])
    meta = {
        "what": "one-epoch privacy profile of the largest coordinate M under random allocation "
                "(P: N(mu e_J, I_t), Q: N(0, I_t), J uniform), both directions",
        "source": "F_P(m) = Phi(m - mu) Phi(m)^(t-1), F_Q(m) = Phi(m)^t",
        "method": "as epoch_max_delta.csv (shuffle_reference.profile with shifts (mu, 0)), "
                  "mp.dps = 50",
        "trusted digits": 12,
        "columns": "mu, steps_per_epoch (t), epsilon = inputs; direction = 0 remove, 1 add; "
                   "delta = delta(eps) of one epoch",
    }
    n = reference_io.write_csv(os.path.join(args.out, "allocation_max_delta.csv"), GENERATOR,
                               meta, ["mu", "steps_per_epoch", "epsilon", "direction", "delta"],
                               rows)
    print("allocation_max_delta.csv:", n, "rows", flush=True)


if __name__ == "__main__":
    main()
