"""dpkit.correlated against independent values: the closed forms of WSK+26 (Thm F.12, Thm D.9,
the row sum, the leading block), numpy's SVD for ‖C‖₂, exact binomial tails and Lemma F.9's δ
in mpmath, the projected pair's hockey-stick divergences in mpmath, docs/correlated.md's table,
and the C++ CLI (`dpkit correlated ... --format json`, when DPKIT_CLI is set)."""

import json
import math
import os
import subprocess

import mpmath as mp
import numpy as np
import pytest

from dpkit import NoCertifiedValueError, correlated

mp.mp.dps = 40


def f12(lam, r, T, eps, delta, c):
    rs = (1 - lam**T) / (1 - lam)
    return math.sqrt(c * rs**2 * (r * T + math.sqrt(3 * r * T * math.log(2 / delta)))
                     * math.log(2.5 / delta)) / eps


def test_f12_closed_form_labels_and_docs_table():
    c = correlated.calibrate("f12", correlation=0.5, sample_rate=0.1, steps=1000, epsilon=1,
                             delta=1e-5)
    assert c.noise_multiplier == pytest.approx(f12(0.5, 0.1, 1000, 1, 1e-5, 8), rel=1e-13)
    assert f"{c.noise_multiplier:.7f}" == "252.6689938"           # docs/correlated.md
    assert c.validity == "valid-upper-bound" and c.conditions_met and c.closed_form
    assert float(c) == c.noise_multiplier and c.relation == "zero-out"
    half = correlated.calibrate("f12-proof-constant", correlation=0.5, sample_rate=0.1,
                                steps=1000, epsilon=1, delta=1e-5)
    assert half.noise_multiplier == pytest.approx(c.noise_multiplier / 2, rel=1e-13)
    # rT = 10 < 3 ln(2/δ): outside the theorem's conditions, no guarantee
    out = correlated.calibrate("f12", correlation=0.5, sample_rate=0.01, steps=1000,
                               epsilon=1, delta=1e-5)
    assert out.validity == "outside-conditions" and not out.conditions_met
    with pytest.raises(NoCertifiedValueError):
        float(out)
    assert correlated.f12_noise_multiplier(correlation=0.5, sample_rate=0.01, steps=1000,
                                           epsilon=1, delta=1e-5) == \
        pytest.approx(out.noise_multiplier, rel=1e-15)


def test_d9_closed_form_and_not_applicable():
    r, T, eps, delta = 0.01, 5000, 1.0, 1e-5
    k = math.sqrt(16 * r**2 * T / eps + 32 * r**2 * T * math.log(1 / delta) / eps**2)
    c = correlated.calibrate("d9", correlation=0, sample_rate=r, steps=T, epsilon=eps,
                             delta=delta)
    assert c.noise_multiplier == pytest.approx(k, rel=1e-13)
    assert c.validity == "heuristic" and c.relation == "replace-one"
    assert correlated.d9_noise_multiplier(sample_rate=r, steps=T, epsilon=eps, delta=delta) == \
        pytest.approx(k, rel=1e-15)
    na = correlated.calibrate("pld", correlation=0.5, sample_rate=r, steps=T, epsilon=eps,
                              delta=delta)
    assert na.validity == "not-applicable" and math.isnan(na.noise_multiplier)


def test_norms_against_numpy():
    lam, T = 0.9, 30
    C = np.tril(lam ** np.subtract.outer(np.arange(T), np.arange(T)).clip(0))
    C[np.triu_indices(T, 1)] = 0
    assert correlated.row_sum(lam, T) == pytest.approx(C.sum(axis=1).max(), rel=1e-14)
    sn = correlated.spectral_norm(lam, T)
    true = np.linalg.norm(C, 2)
    assert sn.lower <= true * (1 + 1e-13) and true <= sn.value
    assert sn.value == pytest.approx(true, rel=1e-10)
    for k in (0, 1, 7, 30):
        y = np.zeros(T)
        y[:k] = 1
        assert correlated.leading_block_norm(lam, T, k) == pytest.approx(np.linalg.norm(C @ y),
                                                                         rel=1e-12, abs=1e-15)


def test_binomial_tail_exact():
    for T, r, k in ((50, 0.1, 5), (1000, 0.01, 40), (20, 0.5, 19), (10, 0.3, 10)):
        exact = mp.fsum(mp.binomial(T, j) * mp.mpf(r)**j * (1 - mp.mpf(r))**(T - j)
                        for j in range(k + 1, T + 1))
        got = correlated.binomial_tail(T, r, k)
        if exact == 0:
            assert got == 0
        else:
            assert got == pytest.approx(float(exact), rel=1e-12)


def h_eps(mu, eps):
    if mu == 0:
        return mp.mpf(0)
    mu, eps = mp.mpf(mu), mp.mpf(eps)
    return mp.ncdf(mu / 2 - eps / mu) - mp.exp(eps) * mp.ncdf(-mu / 2 - eps / mu)


def f9_mp(lam, r, T, kappa, eps):
    """Lemma F.9 with the row-sum sensitivity: min_k (1 − F̄_k)h_ε(Δ_k/κ) + F̄_k."""
    rs = (1 - mp.mpf(lam)**T) / (1 - mp.mpf(lam))
    best = None
    for k in range(T + 1):
        tail = mp.fsum(mp.binomial(T, j) * mp.mpf(r)**j * (1 - mp.mpf(r))**(T - j)
                       for j in range(k + 1, T + 1))
        g = (1 - tail) * h_eps(rs * mp.sqrt(k) / kappa, eps) + tail
        best = g if best is None or g < best else best
    return best


def test_f9_delta_and_its_calibration():
    lam, r, T, eps = 0.5, 0.2, 20, 1.0
    got = correlated.f9_delta(correlation=lam, sample_rate=r, steps=T, noise_multiplier=3.0,
                              epsilon=eps, sensitivity="row-sum")
    assert got.delta == pytest.approx(float(f9_mp(lam, r, T, 3.0, eps)), rel=1e-9)
    c = correlated.calibrate("f9-row-sum", correlation=lam, sample_rate=r, steps=T,
                             epsilon=eps, delta=1e-3)
    assert c.validity == "valid-upper-bound" and c.converged
    # κ certifies δ by Lemma F.9, and a slightly smaller κ does not
    assert f9_mp(lam, r, T, c.noise_multiplier, eps) <= 1e-3
    assert f9_mp(lam, r, T, c.noise_multiplier * (1 - 1e-4), eps) > 1e-3
    assert c.certified_delta <= 1e-3


def test_projected_delta_against_mpmath():
    lam, r, T, kappa, eps = 0.5, 0.3, 6, 1.5, 1.0
    s = kappa * mp.sqrt((T - 1) * (1 - mp.mpf(lam))**2 + 1)
    w = [mp.binomial(T, k) * mp.mpf(r)**k * (1 - mp.mpf(r))**(T - k) for k in range(T + 1)]
    logp = lambda x: mp.log(mp.fsum(wk * mp.npdf(x, k, s) for k, wk in enumerate(w)))
    logq = lambda x: mp.log(mp.npdf(x, 0, s))
    loss = lambda x: logp(x) - logq(x)          # increasing in x
    x1 = mp.findroot(lambda x: loss(x) - eps, 3)
    x2 = mp.findroot(lambda x: loss(x) + eps, -3)
    sf = lambda x, m: 1 - mp.ncdf((x - m) / s)
    h1 = mp.fsum(wk * sf(x1, k) for k, wk in enumerate(w)) - mp.exp(eps) * sf(x1, 0)
    h2 = mp.ncdf(x2 / s) - mp.exp(eps) * mp.fsum(wk * mp.ncdf((x2 - k) / s)
                                                 for k, wk in enumerate(w))
    got = correlated.projected_delta(correlation=lam, sample_rate=r, steps=T,
                                     noise_multiplier=kappa, epsilon=eps)
    assert got == pytest.approx(float(max(h1, h2)), rel=1e-9)


def test_all_methods_sandwich_the_truth():
    rep = correlated.calibrate_all(correlation=0, sample_rate=0.05, steps=200, epsilon=1,
                                   delta=1e-5)
    assert [c.method for c in rep] == list(correlated.METHODS)
    lb = rep.lower
    assert lb.validity == "lower-bound" and lb.projected_delta > 1e-5
    best = rep.best
    assert best is not None and best.method == "pld"
    for c in rep:
        if c.valid:
            assert c.noise_multiplier >= lb.noise_multiplier   # no valid κ below the lower bound
            assert rep.factor(c.method) >= 1
    assert rep["f9-block"].validity == "conjecture-dependent"


CLI = os.environ.get("DPKIT_CLI")


@pytest.mark.skipif(not CLI, reason="DPKIT_CLI not set")
def test_against_cli():
    args = dict(correlation=0, sample_rate=0.05, steps=200, epsilon=1, delta=1e-5)
    out = subprocess.run([CLI, "correlated", "--correlation", "0", "--sampling-rate", "0.05",
                          "--steps", "200", "--epsilon", "1", "--delta", "1e-5", "--format",
                          "json"], check=True, capture_output=True, text=True).stdout
    rows = {r["method"]: r for r in json.loads(out)["results"]}
    rep = correlated.calibrate_all(**args)
    for c in rep:
        row = rows[c.method]
        assert row["validity"] == c.validity and row["relation"] == c.relation
        assert row["conditions_met"] == c.conditions_met and row["attainable"] == c.attainable
        if row["noise_multiplier"] is None:
            assert not math.isfinite(c.noise_multiplier)
        else:
            assert c.noise_multiplier == pytest.approx(row["noise_multiplier"], rel=1e-12)
        if row["factor"] is not None:
            assert rep.factor(c.method) == pytest.approx(row["factor"], rel=1e-12)
    assert rep.lower.noise_multiplier == pytest.approx(rows["lower-bound"]["noise_multiplier"],
                                                       rel=1e-12)


@pytest.mark.parametrize("call, name", [
    (lambda: correlated.calibrate("f12", correlation=1, sample_rate=0.1, steps=10, epsilon=1,
                                  delta=1e-5), "correlation"),
    (lambda: correlated.calibrate("f12", correlation=0, sample_rate=0, steps=10, epsilon=1,
                                  delta=1e-5), "sample_rate"),
    (lambda: correlated.calibrate("f12", correlation=0, sample_rate=0.1, steps=0, epsilon=1,
                                  delta=1e-5), "steps"),
    (lambda: correlated.calibrate("f12", correlation=0, sample_rate=0.1, steps=10, epsilon=0,
                                  delta=1e-5), "epsilon"),
    (lambda: correlated.calibrate("f12", correlation=0, sample_rate=0.1, steps=10, epsilon=1,
                                  delta=1), "delta"),
    (lambda: correlated.calibrate("f13", correlation=0, sample_rate=0.1, steps=10, epsilon=1,
                                  delta=1e-5), "method"),
    (lambda: correlated.calibrate("d9-eq19", correlation=0, sample_rate=0.1, steps=10,
                                  epsilon=1, delta=1e-5, max_order=1), "max_order"),
    (lambda: correlated.leading_block_norm(0.5, 10, 11), "k"),
    (lambda: correlated.f9_delta(correlation=0.5, sample_rate=0.1, steps=10,
                                 noise_multiplier=1, epsilon=1, sensitivity="x"), "sensitivity"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError) as e:
        call()
    msg = str(e.value)
    assert msg.startswith(name), msg
    assert "\n" not in msg
