"""dpkit.hsgd against independent values: the law's P_t against the exact ODE lift (matrix
exponential in mpmath, as in test_volterra), the Rényi divergence against a dense Gaussian
formula built in the test from LKSP25 eqs. (11)–(13) (the jump X⁺ = C_i X + h b_i a_i + e,
then the common dynamics), the discrete mixture against its finite sum, the continuous one
against Gauss–Legendre quadrature, and the C++ CLI (`dpkit hsgd privacy --data ...`, when
DPKIT_CLI is set)."""

import json
import math
import os
import subprocess

import mpmath as mp
import numpy as np
import pytest

from dpkit import hsgd, volterra

def _test_volterra():
    """test_volterra.py of this directory (its exact ODE lift), loaded by path so that it works
    whatever pytest's import mode."""
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).with_name("test_volterra.py")
    spec = importlib.util.spec_from_file_location("_dpkit_test_volterra_lift", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


D = 5
RIDGE, NOISE2, SIGMA, GAMMA = 0.1, 0.02, 0.8, 1.5
LAM = np.array([1.2, 0.9, 0.5, 0.3, 0.1])


@pytest.fixture(scope="module")
def setup():
    rng = np.random.default_rng(7)
    x0 = rng.normal(size=D)
    xt = rng.normal(size=D) * 0.5
    n = 10                       # horizon T = n/d = 2
    feats = rng.normal(size=(n, D)) * np.sqrt(LAM)
    labels = feats @ xt + 0.1 * rng.normal(size=n)
    law = hsgd.law(x0=x0, xtilde=xt, eigenvalues=LAM, ridge=RIDGE, label_noise=NOISE2,
                   noise=SIGMA, learning_rate=GAMMA, horizon=n / D)
    return law, x0, xt, feats, labels


def test_law_P_matches_exact_lift(setup):
    law, x0, xt, *_ = setup
    assert law.termination == "converged" and law.dimension == D and law.horizon == 2
    tv = _test_volterra()   # the exact ODE lift
    groups = [(float(l), 1, float((x0[i] - xt[i])**2), float(xt[i]**2),
               float((x0[i] - xt[i]) * xt[i])) for i, l in enumerate(LAM)]
    ref = tv.exact_curve(groups, D, mp.mpf(RIDGE), mp.mpf(NOISE2), mp.mpf(SIGMA),
                         [(0, GAMMA)], [0.3, 1.0, 2.0])
    assert np.allclose(law.P([0.3, 1.0, 2.0]), ref[:, 0], rtol=1e-8)
    # the mean is the gradient flow: m = x⋆ + e^{−κΓ}(x0 − x⋆), x⋆ = λ x̃/(λ + δ)
    xstar = LAM * xt / (LAM + RIDGE)
    assert np.allclose(law.xstar, xstar, rtol=1e-13)
    assert np.allclose(law.mean(1.0), xstar + np.exp(-(LAM + RIDGE) * GAMMA) * (x0 - xstar),
                       rtol=1e-12)


def dense_renyi(law, rec1, rec2, t, s, alpha):
    """D_α(process 1 ‖ process 2) from the model itself (identity basis: eigen = original)."""
    h = GAMMA / D
    beta = 1 - h * RIDGE
    psi = np.exp(-(LAM + RIDGE) * (law.Gamma(t)[0] - law.Gamma(s)[0]))
    ws, wt, ms, mt = law.variances(s), law.variances(t), law.mean(s), law.mean(t)
    means, covs = [], []
    for a, b in (rec1, rec2):
        C = beta * np.eye(D) - h * np.outer(a, a)
        jump_cov = C @ np.diag(ws) @ C.T + h**2 * SIGMA**2 * np.eye(D)
        V = np.diag(psi) @ jump_cov @ np.diag(psi) + np.diag(wt - psi**2 * ws)
        m = mt + psi * (C @ ms + h * b * a - ms)
        means.append(m)
        covs.append(V)
    (m1, m2), (V1, V2) = means, covs
    M = alpha * V2 + (1 - alpha) * V1
    dm = m1 - m2
    ld = lambda A: np.linalg.slogdet(A)[1]
    return (alpha / 2 * dm @ np.linalg.solve(M, dm)
            - (ld(M) - (1 - alpha) * ld(V1) - alpha * ld(V2)) / (2 * (alpha - 1)))


def test_renyi_divergence_matches_dense_gaussian_formula(setup):
    law, _, _, f, y = setup
    r1, r2 = (f[0], y[0]), (f[3], y[3])
    for t, s, alpha in ((1.0, 0.4, 2.0), (2.0, 0.1, 4.0), (1.5, 1.5, 1.5)):
        ours = hsgd.renyi_divergence(law, first=r1, second=r2, t=t, s=s, alpha=alpha)
        ref = dense_renyi(law, r1, r2, t, s, alpha)
        assert ours == pytest.approx(ref, rel=1e-9, abs=1e-14)
        paper = hsgd.renyi_divergence(law, first=r1, second=r2, t=t, s=s, alpha=alpha,
                                      order="paper")
        assert paper == pytest.approx(dense_renyi(law, r2, r1, t, s, alpha), rel=1e-9)
    # after t the processes coincide
    assert hsgd.renyi_divergence(law, first=r1, second=r2, t=0.5, s=0.7, alpha=2) == 0


def test_discrete_and_continuous_mixtures(setup):
    law, _, _, f, y = setup
    n, alpha, t = 10, 2.0, 1.5
    pair = np.array([[0, 3]])
    res = hsgd.rdp(law, f, y, pairs=pair, times=[t], alpha=alpha, mixture="discrete",
                   delta=1e-5)
    assert res.kind == "approximation" and res.converged
    # The result says what it is not, in the words the CLI prints (one text, from the library).
    assert "not a worst-case dp guarantee" in res.caveat.lower()
    assert "fixed pair" in res.caveat and "twice" in res.caveat
    r1, r2 = (f[0], y[0]), (f[3], y[3])

    def sup(s):
        return max(hsgd.renyi_divergence(law, first=r1, second=r2, t=t, s=s, alpha=alpha),
                   hsgd.renyi_divergence(law, first=r2, second=r1, t=t, s=s, alpha=alpha))

    total = sum(math.expm1((alpha - 1) * sup((l - 1) / D)) for l in range(1, n + 1)
                if (l - 1) / D < t)
    expect = math.log1p(total / n) / (alpha - 1)
    assert res.epsilon_alpha[0, 0] == pytest.approx(expect, rel=1e-10)
    assert res.epsilon is not None and res.epsilon[0] > 0
    # continuous: (1/T)∫₀ᵗ expm1((α − 1) sup D) ds by Gauss–Legendre on 6 pieces
    cont = hsgd.rdp(law, f, y, pairs=pair, times=[t], alpha=alpha, relative_tolerance=1e-10)
    x, w = np.polynomial.legendre.leggauss(40)
    integral = 0.0
    edges = np.linspace(0, t, 7)
    for a, b in zip(edges[:-1], edges[1:]):
        integral += sum(wi * math.expm1((alpha - 1) * sup((b - a) / 2 * xi + (a + b) / 2))
                        for xi, wi in zip(x, w)) * (b - a) / 2
    expect = math.log1p(integral / law.horizon) / (alpha - 1)
    assert cont.epsilon_alpha[0, 0] == pytest.approx(expect, rel=1e-6)
    assert cont.abs_error[0, 0] < 1e-6 * expect


def test_releases_and_pairs(setup):
    law, _, _, f, y = setup
    assert hsgd.all_pairs(4).tolist() == [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
    ext = hsgd.extreme_label_pairs(y, 2)
    order = np.argsort(-y)
    assert set(ext[:, 0]) == set(order[:2]) and set(ext[:, 1]) == set(order[-2:])
    last = hsgd.rdp(law, f, y, pairs="extreme:2", times=[1.0, 2.0], alpha=[2.0, 4.0],
                    delta=1e-5)
    assert last.epsilon_alpha.shape == (2, 2) and np.all(last.epsilon_alpha > 0)
    assert np.all(last.epsilon_alpha[1] >= last.epsilon_alpha[0])   # ε_α increases in α
    it = hsgd.rdp(law, f, y, pairs="extreme:2", times=[1.0, 2.0], alpha=2.0, release="iterates")
    # releasing both iterates leaks at least as much as the last one alone
    assert it.epsilon_alpha[0, 0] >= last.epsilon_alpha[0, 1] * (1 - 1e-6)
    av = hsgd.rdp(law, f, y, pairs="extreme:2", times=[1.0, 2.0], alpha=2.0, release="average")
    assert av.epsilon_alpha[0, 0] <= it.epsilon_alpha[0, 0] * (1 + 1e-6)   # post-processing
    gaps = hsgd.mean_gap_proxy(law, f, y, "all", s=0.0)
    top = hsgd.top_pairs_by_proxy(law, f, y, "all", s=0.0, count=3)
    allp = hsgd.all_pairs(10)
    best = allp[np.argsort(-gaps, kind="stable")[:3]]
    assert top.tolist() == best.tolist()


def test_epsilon_delta_conversion():
    # ε_α = αμ²/2 (μ-GDP): the best conversion is no worse than the classic one at any order
    mu = 0.5
    alphas = np.array([2.0, 4.0, 8.0, 16.0, 32.0])
    e = hsgd.epsilon_delta(alphas, alphas * mu**2 / 2, 1e-5)
    classic = min(a * mu**2 / 2 + math.log(1e5) / (a - 1) for a in alphas)
    assert e.kind == "approximation" and 0 < e.epsilon <= classic
    assert e.caveat == hsgd.rdp.__globals__["_dpkit"].hsgd_privacy_caveat


CLI = os.environ.get("DPKIT_CLI")


@pytest.mark.skipif(not CLI, reason="DPKIT_CLI not set")
def test_against_cli(tmp_path):
    d, n = 8, 16
    x0, xt = volterra.paper_start(d, x0_scale=2, seed=2)
    rng = np.random.default_rng(11)
    f = rng.uniform(0, 1 / math.sqrt(d), size=(n, d))
    y = f @ xt + 0.01 * rng.normal(size=n)
    path = tmp_path / "data.csv"
    np.savetxt(path, np.column_stack([f, y]), delimiter=",", fmt="%.17g",
               header=",".join([f"a{i}" for i in range(d)] + ["b"]), comments="")
    out = subprocess.run(
        [CLI, "hsgd", "privacy", "--spectrum", "paper-code", "--dimension", str(d), "--data",
         str(path), "--ridge", "0.1", "--label-noise", "1e-5", "--noise-std", "1.5",
         "--learning-rate", "5", "--orders", "2,4", "--times", "0.5,1,2", "--pairs", "extreme:3",
         "--delta", "1e-5", "--format", "json"], check=True, capture_output=True,
        text=True).stdout
    rows = json.loads(out)["results"]
    law = hsgd.law(x0=x0, xtilde=xt, covariance="paper-code", ridge=0.1, label_noise=1e-5,
                   noise=1.5, learning_rate=5, horizon=n / d)
    res = hsgd.rdp(law, f, y, pairs="extreme:3", times=[0.5, 1, 2], alpha=[2, 4], delta=1e-5)
    def same(ours, theirs):   # the CLI writes +inf (a vacuous order) as null
        if theirs is None:
            assert not math.isfinite(ours)
        else:
            assert ours == pytest.approx(theirs, rel=1e-12)

    assert len(rows) == 3
    for j, row in enumerate(rows):
        same(res.epsilon_alpha[0, j], row["eps_alpha=2"])
        same(res.epsilon_alpha[1, j], row["eps_alpha=4"])
        same(res.epsilon[j], row["epsilon"])


@pytest.mark.parametrize("call, name", [
    (lambda s: hsgd.law(x0=[0, 0], xtilde=[0, 0], eigenvalues=[1, 1], noise=-1,
                        learning_rate=1, horizon=1), "noise"),
    (lambda s: hsgd.law(x0=[0, 0], xtilde=[0, 0], eigenvalues=[1, -1], noise=1,
                        learning_rate=1, horizon=1), "eigenvalues"),
    (lambda s: hsgd.law(x0=[0, 0], xtilde=[0, 0], noise=1, learning_rate=1, horizon=1),
     "covariance"),
    (lambda s: hsgd.rdp(s[0], s[3], s[4], pairs="bogus", times=[1], alpha=2), "pairs"),
    (lambda s: hsgd.rdp(s[0], s[3], s[4], pairs=[[0, 0]], times=[1], alpha=2), "pairs"),
    (lambda s: hsgd.rdp(s[0], s[3], s[4], pairs="all", times=[1], alpha=1), "alpha"),
    (lambda s: hsgd.rdp(s[0], s[3], s[4], pairs="all", times=[5], alpha=2), "times"),
    (lambda s: hsgd.rdp(s[0], s[3][:, :2], s[4], pairs="all", times=[1], alpha=2), "features"),
    (lambda s: hsgd.rdp(s[0], s[3], s[4], pairs="all", times=[1], alpha=2, order="x"), "order"),
    (lambda s: hsgd.renyi_divergence(s[0], first=(s[3][0], 1.0), second=(s[3][1], 2.0), t=1,
                                     s=0.5, alpha=2, release="average"), "times"),
])
def test_bad_input_names_the_argument(setup, call, name):
    with pytest.raises(ValueError) as e:
        call(setup)
    msg = str(e.value)
    assert name in msg, msg
    assert "\n" not in msg and "gaussian_law" not in msg
