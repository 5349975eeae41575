"""dpkit.shifted against independent values: the closed forms of BSA24 evaluated in mpmath,
the exact GDP conversion solved in mpmath, the KKT conditions of the optimisation problem, and
the C++ CLI (`dpkit shifted ... --format json`, when DPKIT_CLI is set)."""

import json
import math
import os
import subprocess

import mpmath as mp
import numpy as np
import pytest

import dpkit
from dpkit import shifted

mp.mp.dps = 40


def gdp_delta(mu, eps):
    mu, eps = mp.mpf(mu), mp.mpf(eps)
    return mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2)


def gdp_epsilon(mu, delta):
    """ε with δ_μ(ε) = δ (Balle & Wang 2018 Thm 8), by mpmath root finding."""
    if gdp_delta(mu, 0) <= delta:
        return 0.0
    f = lambda e: mp.log(gdp_delta(mu, e)) - mp.log(delta)
    hi = mp.mpf(1)
    while f(hi) > 0:
        hi *= 2
    return float(mp.findroot(f, (mp.mpf(0), hi), solver="anderson"))


def rel(a, b):
    return abs(a - b) / abs(b)


# ---- NoisyGD ---------------------------------------------------------------------------------

def test_noisy_gd_strongly_convex_matches_thm_4_2_and_docs():
    r = shifted.noisy_gd(sensitivity=0.1, dataset_size=1, noise=1, contraction=0.95,
                         learning_rate=0.05, strong_convexity=1, steps=160)
    assert r.names == ("shifted-interpolation", "rdp-shifted", "rdp-ys22", "composition")
    c, t, L, n, s = mp.mpf("0.95"), 160, mp.mpf("0.1"), 1, 1
    mu = mp.sqrt((1 - c**t) / (1 + c**t) * (1 + c) / (1 - c)) * L / (n * s)
    b = r["shifted-interpolation"]
    assert b.kind == "upper-bound" and b.tau == 0 and b.method == "BSA24 Thm 4.2"
    assert rel(b.mu, float(mu)) < 1e-13
    assert rel(float(b), gdp_epsilon(mu, 1e-5)) < 1e-9
    assert b.lower <= b.upper and rel(b.lower, b.upper) < 1e-9
    # docs/shifted.md's table (printed to 10 digits)
    assert f"{b.mu:.9f}" == "0.624329486" and f"{b.value:.9f}" == "2.556835696"
    comp = r["composition"]
    assert rel(comp.mu, 0.1 * math.sqrt(160)) < 1e-14
    assert f"{float(comp):.8f}" == "5.75948147"
    assert r.best is b
    # the RDP rows are upper bounds above the exact GDP conversion
    assert r["rdp-shifted"].upper > b.upper and math.isnan(r["rdp-shifted"].mu)


def test_bound_by_name_closed_forms():
    L, n, sigma, t, eta, D = 1.0, 100, 0.1, 1000, 1.0, 1.0
    kw = dict(sensitivity=L, dataset_size=n, noise=sigma, steps=t, learning_rate=eta, diameter=D)
    # Thm 4.3: (1/σ)√(3LD/(ηn) + (L/n)²⌈Dn/(ηL)⌉)
    k = math.ceil(D * n / (eta * L))
    b = shifted.bound("noisy_gd_constrained_convex", **kw)
    assert rel(b.mu, math.sqrt(3 * L * D / (eta * n) + (L / n) ** 2 * k) / sigma) < 1e-14
    assert b.tau == t - k
    # Thm C.7 at τ: (1/σ)(L√(t − τ)/n + D/(η√(t − τ)))
    b = shifted.bound("noisy_gd_constrained_convex_at", tau=900, **kw)
    assert rel(b.mu, (L * math.sqrt(100) / n + D / (eta * math.sqrt(100))) / sigma) < 1e-14
    best = shifted.bound("noisy_gd_constrained_convex_best_tau", **kw)
    brute = min((L * math.sqrt(kk) / n + D / (eta * math.sqrt(kk))) / sigma
                for kk in range(1, t + 1))
    assert rel(best.mu, brute) < 1e-14
    # the optimisation problem with a diameter is never worse than C.7 at the best τ
    assert shifted.bound("noisy_gd_shifted", contraction=1, **kw).mu <= best.mu * (1 + 1e-12)


def test_noisy_cgd_closed_forms():
    L, b, l, sigma, c, E = 1.0, 10, 20, 1.0, 0.99, 50
    r = shifted.noisy_cgd(sensitivity=L, batch_size=b, batches_per_epoch=l, noise=sigma,
                          learning_rate=0.1, contraction=c, epochs=E)
    assert r.names == ("shifted-interpolation", "lower-bound", "rdp-ys22", "composition")
    c = mp.mpf(c)
    one = L / (b * sigma)
    thm45 = one * mp.sqrt(1 + c**(2 * l - 2) * (1 - c**2) / (1 - c**l)**2
                          * (1 - c**(l * (E - 1))) / (1 + c**(l * (E - 1))))
    c17 = one * mp.sqrt((1 - c**(l * E)) / (1 + c**(l * E)) * (1 - c**2) / (1 - c**l)**2)
    assert rel(r["shifted-interpolation"].mu, float(thm45)) < 1e-12
    lo = r["lower-bound"]
    assert lo.kind == "lower-bound" and rel(lo.mu, float(c17)) < 1e-12
    assert lo.value == lo.lower and lo.mu <= r["shifted-interpolation"].mu
    with pytest.raises(dpkit.NoCertifiedValueError):
        float(lo)
    assert rel(r["composition"].mu, one * math.sqrt(E)) < 1e-14
    # convex: the derived (L/(bσ))√(1 + (E − 1)/l)
    conv = shifted.noisy_cgd(sensitivity=L, batch_size=b, dataset_size=b * l, noise=sigma,
                             steps=E * l, setting="convex")
    assert conv.names == ("shifted-interpolation (derived c = 1)", "composition")
    assert rel(conv[0].mu, one * math.sqrt(1 + (E - 1) / l)) < 1e-14
    assert conv.notes and "convex without a diameter" in conv.notes[0]


# ---- LMC ---------------------------------------------------------------------------------------

def test_lmc_closed_forms():
    r = shifted.lmc(sensitivity=2, strong_convexity=1, learning_rate=0.1, steps=50)
    assert r.names == ("shifted-interpolation", "shifted-interpolation (t steps)",
                       "exponential-mechanism")
    assert rel(r[0].mu, math.sqrt((2 - 0.1) / 2) * 2) < 1e-15
    c = 1 - 0.1
    mu_t = math.sqrt((1 - c**50) / (1 + c**50) * (2 - 0.1) / 0.1) * 2 * math.sqrt(0.1 / 2)
    assert rel(r[1].mu, mu_t) < 1e-13
    assert r[2].mu == 2.0
    r = shifted.lmc(sensitivity=1, setting="constrained-convex", diameter=2, learning_rate=0.1)
    assert r.names == ("log-concave-mechanism", "projected-lmc", "pure-dp (MT07)")
    assert rel(r[0].mu, 2 * math.sqrt(2)) < 1e-15
    assert rel(r[1].mu, math.sqrt(8 + 0.2)) < 1e-15
    assert r[2].value == 4.0 and math.isnan(r[2].mu)


def test_exponential_mechanism_threshold_and_clt_k():
    # e^{2x} = (1 − Φ(−√x))/Φ(−√x)
    root = mp.findroot(lambda x: 2 * x - mp.log(mp.ncdf(mp.sqrt(x)) / mp.ncdf(-mp.sqrt(x))), 0.7)
    assert abs(shifted.exponential_mechanism_threshold() - float(root)) < 1e-9
    mu = 0.7
    k = mp.exp(mu**2) * mp.ncdf(1.5 * mu) + 3 * mp.ncdf(-0.5 * mu) - 2
    assert rel(shifted.clt_k(mu), float(k)) < 1e-13


def test_contraction_lemma_2_8():
    assert shifted.contraction(0.1, 1, 10) == pytest.approx(max(abs(1 - 0.1), abs(1 - 1.0)))
    assert shifted.contraction(0.19, 1, 10) == pytest.approx(0.9)   # the |1 - eta M| term


# ---- NoisySGD ----------------------------------------------------------------------------------

def test_noisy_sgd_full_batch_is_exact_gaussian_composition():
    # b = n: C_1(G(L/(bσ)))^{⊗t} = G(√t·L/(bσ)), certified by PLD from both sides
    L, b, sigma, t = 1.0, 50, 20.0, 40
    r = shifted.noisy_sgd_bound("composition", sensitivity=L, dataset_size=b, batch_size=b,
                                noise=sigma, steps=t, delta=1e-5)
    exact = gdp_epsilon(math.sqrt(t) * L / (b * sigma), 1e-5)
    assert r.lower <= exact * (1 + 1e-9) and exact <= r.upper * (1 + 1e-9)
    assert rel(float(r), exact) < 2e-3


def test_noisy_sgd_table_and_labels():
    r = shifted.noisy_sgd(sensitivity=1, dataset_size=1000, batch_size=100, noise=0.5,
                          learning_rate=0.5, contraction=0.9, steps=40)
    assert r.names == ("shifted-interpolation", "shifted-interpolation (CLT)", "composition")
    si = r["shifted-interpolation"]
    assert si.kind == "upper-bound" and si.converged and si.lower <= si.upper
    assert 1 <= si.tau <= 39 and si.details["exhaustive"] is True
    assert si.phases and si.gaussian_mu > 0   # G(·) ⊗ subsampled phases
    clt = r["shifted-interpolation (CLT)"]
    assert clt.kind == "approximation" and "CLT choice" in clt.note
    with pytest.raises(dpkit.NoCertifiedValueError):
        float(clt)
    # the optimum over τ is no worse than any single τ
    at = shifted.noisy_sgd_bound("strongly_convex", sensitivity=1, dataset_size=1000,
                                 batch_size=100, noise=0.5, learning_rate=0.5, contraction=0.9,
                                 steps=40, tau=20)
    assert at.tau == 20 and float(si) <= float(at) * (1 + 1e-3)
    # Thm C.13 with the shifts of Thm 4.9 at τ (0 before τ, 1 after) is Thm 4.9 at τ
    shifts = [0.0] * 19 + [1.0] * 20
    c13 = shifted.noisy_sgd_bound("shifts", shifts=shifts, sensitivity=1, dataset_size=1000,
                                  batch_size=100, noise=0.5, learning_rate=0.5, contraction=0.9,
                                  steps=40)
    assert rel(float(c13), float(at)) < 2e-3


def test_gdp_tradeoff_curve_is_the_gaussian_one():
    b = shifted.bound("noisy_gd_composition", sensitivity=1, dataset_size=10, noise=1, steps=25)
    alpha = np.array([0.0, 0.01, 0.3, 0.9, 1.0])
    curve = b.tradeoff(alpha)
    mu = b.mu   # 0.5
    expect = [float(mp.ncdf(mp.sqrt(2) * mp.erfinv(1 - 2 * mp.mpf(a)) - mu)) if 0 < a < 1
              else (1.0 if a == 0 else 0.0) for a in alpha]
    assert np.allclose(curve.lower, expect, atol=1e-9)


# ---- the optimisation problem ------------------------------------------------------------------

def test_interpolation_closed_form_and_feasibility():
    c, s, t = 0.9, 0.3, 25
    sol = shifted.interpolation([s] * t, contraction=c)
    c_ = mp.mpf(c)
    closed = s**2 * (1 + c_) * (1 - c_**t) / ((1 - c_) * (1 + c_**t))   # Lemma C.6 / Thm 4.2
    assert rel(sol.value, float(closed)) < 1e-12
    a, z = sol.a, sol.z
    assert np.all(a >= -1e-15) and np.all(z >= -1e-15) and abs(z[-1]) < 1e-14
    assert np.allclose(z[1:], c * z[:-1] + s - a, atol=1e-14)
    assert rel(float(np.sum(a**2)), sol.value) < 1e-12
    # a random feasible schedule (λ_k ∈ [0, 1], λ_t = 1) never beats the optimum
    rng = np.random.default_rng(1)
    for _ in range(50):
        lam = rng.uniform(size=t)
        lam[-1] = 1
        zz, cost = 0.0, 0.0
        for k in range(t):
            ak = lam[k] * (c * zz + s)
            zz = (1 - lam[k]) * (c * zz + s)
            cost += ak**2
        assert cost >= sol.value * (1 - 1e-12)


# ---- the CLI -------------------------------------------------------------------------------------

CLI = os.environ.get("DPKIT_CLI")


def cli_rows(*args):
    out = subprocess.run([CLI, "shifted", *args, "--format", "json"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["results"]


def assert_same(report, rows):
    assert [r["bound"] for r in rows] == list(report.names)
    for b, row in zip(report, rows):
        assert row["kind"] == b.kind
        assert row["tau"] == b.tau
        if row["mu"] is None:
            assert math.isnan(b.mu)
        else:
            assert b.mu == pytest.approx(row["mu"], rel=1e-14)
        assert b.value == pytest.approx(row["epsilon"], rel=1e-12)
        if "epsilon_lower" in row:
            assert b.lower == pytest.approx(row["epsilon_lower"], rel=1e-12)


@pytest.mark.skipif(not CLI, reason="DPKIT_CLI not set")
def test_against_cli():
    assert_same(shifted.noisy_gd(sensitivity=1, dataset_size=100, noise=0.1, learning_rate=1,
                                 diameter=1, steps=1000, setting="constrained-convex"),
                cli_rows("noisy-gd", "--setting", "constrained-convex", "--sensitivity", "1",
                         "--dataset-size", "100", "--noise-std", "0.1", "--learning-rate", "1", "--diameter",
                         "1", "--steps", "1000"))
    assert_same(shifted.noisy_gd(sensitivity=0.5, dataset_size=10, noise=1, steps=30,
                                 learning_rate=0.1, strong_convexity=1, smoothness=5,
                                 lr_decay=10),
                cli_rows("noisy-gd", "--sensitivity", "0.5", "--dataset-size", "10", "--noise-std", "1",
                         "--steps", "30", "--learning-rate", "0.1", "--strong-convexity", "1",
                         "--smoothness", "5", "--lr-decay", "10"))
    assert_same(shifted.noisy_cgd(sensitivity=1, batch_size=10, batches_per_epoch=20, noise=1,
                                  learning_rate=0.1, diameter=2, epochs=5,
                                  setting="constrained-convex"),
                cli_rows("noisy-cgd", "--setting", "constrained-convex", "--sensitivity", "1",
                         "--batch-size", "10", "--batches-per-epoch", "20", "--noise-std", "1",
                         "--learning-rate", "0.1", "--diameter", "2", "--epochs", "5"))
    assert_same(shifted.noisy_sgd(sensitivity=1, dataset_size=1000, batch_size=100, noise=0.5,
                                  learning_rate=0.5, contraction=0.9, steps=30),
                cli_rows("noisy-sgd", "--sensitivity", "1", "--dataset-size", "1000", "--batch-size", "100",
                         "--noise-std", "0.5", "--learning-rate", "0.5", "--contraction", "0.9",
                         "--steps", "30"))
    assert_same(shifted.lmc(sensitivity=2, strong_convexity=1, learning_rate=0.1, steps=50),
                cli_rows("lmc", "--sensitivity", "2", "--strong-convexity", "1",
                         "--learning-rate", "0.1", "--steps", "50"))


# ---- bad input -----------------------------------------------------------------------------------

@pytest.mark.parametrize("call, name", [
    (lambda: shifted.noisy_gd(sensitivity=-1, dataset_size=1, noise=1, steps=10,
                              contraction=0.9), "sensitivity"),
    (lambda: shifted.noisy_gd(sensitivity=1, dataset_size=0, noise=1, steps=10,
                              contraction=0.9), "dataset_size"),
    (lambda: shifted.noisy_gd(sensitivity=1, dataset_size=1, noise=1, steps=10,
                              contraction=1.0), "contraction"),
    (lambda: shifted.noisy_gd(sensitivity=1, dataset_size=1, noise=1, steps=10,
                              contraction=0.9, delta=2), "delta"),
    (lambda: shifted.noisy_gd(sensitivity=1, dataset_size=1, noise=1, steps=10,
                              setting="weird"), "setting"),
    (lambda: shifted.noisy_gd(sensitivity=1, dataset_size=1, noise=1, steps=10,
                              setting="constrained-convex", learning_rate=1), "diameter"),
    (lambda: shifted.noisy_cgd(sensitivity=1, batch_size=10, dataset_size=200, noise=1,
                               steps=25, setting="convex"), "steps"),
    (lambda: shifted.noisy_sgd(sensitivity=1, dataset_size=10, batch_size=100, noise=1,
                               steps=10, setting="convex"), "batch_size"),
    (lambda: shifted.contraction(1, 1, 10), "learning_rate"),
    (lambda: shifted.bound("nope", sensitivity=1, noise=1), "name"),
    (lambda: shifted.noisy_sgd_bound("shifts", shifts=[2.0], sensitivity=1, dataset_size=10,
                                     batch_size=1, noise=1, steps=2, learning_rate=1,
                                     contraction=0.5), "shifts"),
    (lambda: shifted.interpolation([1.0, -1.0]), "sensitivities"),
    (lambda: shifted.mechanism("lmc", sensitivity=1, strong_convexity=1, learning_rate=3),
     "learning_rate"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError) as e:
        call()
    msg = str(e.value)
    assert msg.startswith(name) or f" {name}" in msg, msg
    assert "\n" not in msg and not msg.startswith(("noisy_", "lmc:", "contraction:"))


def test_clt_choice_prop_c14_and_its_range():
    L, n, b, sigma, c = 1.0, 1000, 100, 0.5, 0.9
    r = shifted.noisy_sgd(sensitivity=L, dataset_size=n, batch_size=b, noise=sigma,
                          learning_rate=0.5, contraction=c, steps=5)
    clt = r["shifted-interpolation (CLT)"]
    c_ = mp.mpf(c)
    k1 = mp.exp((2 * L / (b * sigma))**2) * mp.ncdf(1.5 * 2 * L / (b * sigma)) \
        + 3 * mp.ncdf(-0.5 * 2 * L / (b * sigma)) - 2
    k = -mp.log(b**2 * sigma * (1 - c_) * mp.sqrt(k1)
                / (2 * mp.sqrt(2) * n * L * mp.sqrt(-mp.log(c_)))) / (-mp.log(c_)) - 1
    mu = mp.sqrt(8 * (L / (b * sigma) * c_**(k + 1) / (1 - c_))**2 + 2 * b**2 / n**2 * k * k1)
    assert clt.details["steps_after_tau"] == pytest.approx(float(k), rel=1e-12)
    assert clt.mu == pytest.approx(float(mu), rel=1e-12)
    # t − τ ≈ 38.5 does not fit in a run of 5 steps: the row says so
    assert "outside this run" in clt.note
