"""dpkit.matrix_mechanism: matrix-factorization mechanisms from Python.

* The numbers are the library's, the same as ``dpkit epsilon --strategy`` prints (one rule, two
  front ends): compared on the same run.
* jax_privacy's ``amplified_bandmf_event`` built as a :mod:`dpkit.dp_accounting` event and
  accounted by its PLDAccountant gives the mechanism's certified upper end at σ/‖c‖ (the same
  reduction, CGM+23 Thm 4).
* A dense numpy strategy agrees with the Toeplitz spec it spells out; the full-batch
  sensitivity of a nonnegative matrix is ‖C·1‖ (numpy).
* The prefix-sum error against numpy's own A·C⁻¹.
* Errors name the Python keyword.
"""

import math

import numpy as np
import pytest

import dpkit
import dpkit.dp_accounting as dpa
import dpkit.matrix_mechanism as mm
from conftest import cli_json


def _toeplitz(coef, n):
    c = np.zeros((n, n))
    for k, x in enumerate(coef):
        c += np.diag(np.full(n - k, x), -k) if k < n else 0
    return c


def test_python_and_cli_print_the_same_numbers():
    r = mm.epsilon("toeplitz:1,0.5,0.25", 999, 2.0, 1e-5, sample_rate=0.01, min_separation=3)
    doc = cli_json("epsilon", "--strategy", "toeplitz:1,0.5,0.25", "--min-separation", "3",
                   "--sampling-rate", "0.01", "--steps", "999", "--noise-multiplier", "2",
                   "--delta", "1e-5")
    row = doc["results"][0]
    assert row["epsilon"] == r.upper
    assert row["epsilon_lower"] == r.lower
    assert row["rounds"] == r.rounds == 333


def test_jax_privacy_event_gives_the_upper_end():
    coef = [1.0, 0.6, 0.3, 0.1]
    norm = math.sqrt(sum(x * x for x in coef))
    sigma = 3.0
    r = mm.epsilon("toeplitz:" + ",".join(map(str, coef)), 1000, sigma, 1e-6, sample_rate=0.02,
                   min_separation=4)
    acct = dpa.PLDAccountant()
    acct.compose(mm.amplified_bandmf_event(sigma / norm, 1000, num_bands=4, sampling_prob=0.02))
    assert acct.get_epsilon(1e-6) == pytest.approx(r.upper, rel=1e-9)
    assert r.lower <= r.upper
    ev = mm.amplified_bandmf_event(1.0, 1001, num_bands=4, sampling_prob=0.02)
    assert ev.count == 251


def test_dense_matrix_agrees_with_its_spec():
    n = 12
    coef = [1.0, -0.4, 0.2]
    c = _toeplitz(coef, n)
    for b in (1, 2, 5):
        a = mm.sensitivity(c, n, b)
        s = mm.sensitivity("toeplitz:1,-0.4,0.2", n, b)
        assert a["lower"] == pytest.approx(s["lower"], rel=1e-12)
        assert a["exact"] == s["exact"]
    assert mm.error(c, n, 2.0)["rmse"] == pytest.approx(
        mm.error("toeplitz:1,-0.4,0.2", n, 2.0)["rmse"], rel=1e-10)


def test_full_batch_sensitivity_and_error_against_numpy():
    rng = np.random.default_rng(5)
    n = 9
    c = np.tril(rng.uniform(0.1, 1.0, (n, n)))
    s = mm.sensitivity(c, n, 1)
    exact = np.linalg.norm(c @ np.ones(n))
    assert s["exact"]
    assert s["lower"] <= exact * (1 + 1e-13) and s["upper"] >= exact * (1 - 1e-13)
    b = np.tril(np.ones((n, n))) @ np.linalg.inv(c)
    e = mm.error(c, n, 1.5)
    assert e["rmse"] == pytest.approx(1.5 * np.linalg.norm(b) / math.sqrt(n), rel=1e-9)
    assert e["max_error"] == pytest.approx(1.5 * np.linalg.norm(b, axis=1).max(), rel=1e-9)
    r = mm.epsilon(c, n, 10.0, 1e-5)
    assert r.route == "gaussian"
    assert r.lower <= float(r) == r.upper


def test_calibrate_certifies_the_target():
    n = mm.calibrate("sqrt:4", 400, 2.0, 1e-5, sample_rate=0.05, min_separation=4)
    assert n.termination == "converged"
    assert n.privacy.upper <= 2.0
    assert n.privacy.upper >= 2.0 * (1 - 3e-4)
    assert mm.epsilon("sqrt:4", 400, n.noise_multiplier * 0.99, 1e-5, sample_rate=0.05,
                      min_separation=4).upper > 2.0


def test_unamplified_route_matches_dpkit_correlated_lower_bound():
    # The lower end of DP-λCGD with sampling is the projected pair of dpkit.correlated.
    r = mm.delta("lambda:0.5", 100, 5.0, 1.0, sample_rate=0.1)
    assert r.route in ("unamplified", "conditional")
    ref = dpkit.correlated.projected_delta(correlation=0.5, sample_rate=0.1, steps=100,
                                           noise_multiplier=5.0, epsilon=1.0)
    assert r.lower == pytest.approx(ref, rel=1e-9)
    e = mm.epsilon("lambda:0.5", 100, 5.0, 1e-5, sample_rate=0.1)
    full = mm.epsilon("lambda:0.5", 100, 5.0, 1e-5)
    assert 0 < e.lower <= e.upper
    # The upper end: the full-batch mechanism's (unamplified) or conditional composition's,
    # whichever is smaller.
    assert e.upper <= full.upper * (1 + 1e-12)
    if e.route == "unamplified":
        assert e.upper == pytest.approx(full.upper, rel=1e-12)


def test_conditional_route_amplifies_dp_lambda_cgd():
    e = mm.epsilon("lambda:0.5", 400, 4.0, 1e-5, sample_rate=0.01)
    full = mm.epsilon("lambda:0.5", 400, 4.0, 1e-5)
    assert e.route == "conditional"
    assert "CGST24" in e.description
    assert "conditional composition" in e.method
    assert 0 < e.lower <= e.upper < full.upper / 20
    assert e.conditional["value"] == e.upper
    assert e.conditional["bad_event_probability"] == pytest.approx(1e-6)
    # p̃ = q e^τ/(q e^τ + 1 − q) with τ ≈ z√n/σ + (n/2 + D)/σ² ≈ 2: z ≈ 6.7 for δ_E = 1e-6 over
    # ~80 000 pairs, n ≤ 1/(1 − λ²) = 4/3, σ = 4 — about 8 q.
    assert 0.05 < e.conditional["largest_inclusion"] < 0.1
    assert mm.epsilon("lambda:0.5", 400, 4.0, 1e-5).conditional is None  # full batch


def test_errors_name_the_keyword():
    with pytest.raises(ValueError, match="sample_rate is 2, but must be in"):
        mm.epsilon("identity", 10, 1.0, 1e-5, sample_rate=2)
    with pytest.raises(ValueError, match="min_separation is 0"):
        mm.epsilon("identity", 10, 1.0, 1e-5, min_separation=0)
    with pytest.raises(ValueError, match="is none of identity"):
        mm.epsilon("banded", 10, 1.0, 1e-5)
    with pytest.raises(ValueError, match="lower-triangular"):
        mm.sensitivity(np.ones((3, 3)), 3)
    with pytest.raises(ValueError, match="steps is 1.5"):
        mm.epsilon("identity", 1.5, 1.0, 1e-5)
    with pytest.raises(ValueError, match="num_bands is 0"):
        mm.amplified_bandmf_event(1.0, 10, num_bands=0, sampling_prob=0.1)


def test_min_separation_schema_against_brute_force():
    # Any steps at least b apart, at most k: the brute-force maximum of ‖C·1_S‖ for a nonnegative
    # matrix (equal gradients are worst there) lies in the bracket, and equals it when exact.
    rng = np.random.default_rng(11)
    n = 7
    c = np.tril(rng.uniform(0.0, 1.0, (n, n))) + np.eye(n)
    import itertools
    for b, k in ((1, 2), (2, 3), (3, 0)):
        kk = k or -(-n // b)
        best = 0.0
        for m in range(1, kk + 1):
            for s in itertools.combinations(range(n), m):
                if all(t2 - t1 >= b for t1, t2 in zip(s, s[1:])):
                    best = max(best, np.linalg.norm(c[:, list(s)].sum(axis=1)))
        r = mm.min_separation_sensitivity(c, n, b, k)
        assert r["lower"] <= best * (1 + 1e-13) and r["upper"] >= best * (1 - 1e-13)
    e = mm.epsilon(c, n, 10.0, 1e-5, min_separation=2, max_participations=2)
    assert e.route == "gaussian"
    with pytest.raises(ValueError, match="sample_rate is 0.5, but must be 1 with"):
        mm.epsilon(c, n, 10.0, 1e-5, sample_rate=0.5, max_participations=2)
