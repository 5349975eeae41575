"""dpkit.volterra against independent values: the ODE lift of LKSP25's Volterra equations
(docs/volterra.md) written out in the test as an affine linear system and solved exactly by an
mpmath matrix exponential (piecewise for a step schedule), its steady state for the plateau,
the schedules' integrals in closed form, numpy's eigendecomposition for from_covariance, and
the C++ CLI (`dpkit hsgd risk ... --format json`, when DPKIT_CLI is set)."""

import json
import math
import os
import subprocess

import mpmath as mp
import numpy as np
import pytest

from dpkit import volterra

mp.mp.dps = 30


def lift_matrix(groups, d, ridge, label_noise, sigma, gamma):
    """The ODE lift y' = M y (y = (S_g, C_g, w_g for each group, 1)) for a constant rate γ:
    Ṡ = −2γ(κS + δC), Ċ = −γ(κC + δ‖x̃‖²_g), ẇ = −2γκw + (γ²/d)(2λP + σ²),
    P = ½E w² + ½Σ λ(S + k w)."""
    G = len(groups)
    n = 3 * G + 1
    M = mp.zeros(n, n)
    g = mp.mpf(gamma)
    for i, (lam, k, e0, xs, ex) in enumerate(groups):
        kap = mp.mpf(lam) + ridge
        S, C, W = 3 * i, 3 * i + 1, 3 * i + 2
        M[S, S] = -2 * g * kap
        M[S, C] = -2 * g * ridge
        M[C, C] = -g * kap
        M[C, n - 1] = -g * ridge * mp.mpf(xs)
        M[W, W] += -2 * g * kap
        # (γ²/d)(2λP + σ²) with P = ½Ew² + ½Σ_h λ_h(S_h + k_h w_h)
        c = g**2 / d
        M[W, n - 1] += c * (mp.mpf(lam) * label_noise + mp.mpf(sigma)**2)
        for j, (lam2, k2, *_rest) in enumerate(groups):
            M[W, 3 * j] += c * lam * lam2
            M[W, 3 * j + 2] += c * lam * lam2 * k2
    return M


def risks(y, groups, ridge, label_noise):
    P = mp.mpf(label_noise) / 2
    R = mp.mpf(0)
    for i, (lam, k, e0, xs, ex) in enumerate(groups):
        S, C, W = y[3 * i], y[3 * i + 1], y[3 * i + 2]
        P += mp.mpf(lam) * (S + k * W) / 2
        R += mp.mpf(ridge) / 2 * (S + 2 * C + xs + k * W)
    return P, P + R


def exact_curve(groups, d, ridge, label_noise, sigma, pieces, times):
    """P_t, R_t for a piecewise-constant rate: pieces = [(start, gamma), ...]."""
    y0 = mp.matrix([v for (_, _, e0, _, ex) in groups for v in (e0, ex, 0)] + [1])
    out = []
    for t in times:
        y = y0
        for i, (start, gamma) in enumerate(pieces):
            end = pieces[i + 1][0] if i + 1 < len(pieces) else math.inf
            if t <= start:
                break
            dt = min(t, end) - start
            y = mp.expm(lift_matrix(groups, d, ridge, label_noise, sigma, gamma) * dt) * y
        out.append(risks(y, groups, ridge, label_noise))
    return np.array([[float(p), float(r)] for p, r in out])


PAR = dict(ridge=0.1, label_noise=0.05, noise=0.7)
TIMES = [0.0, 0.5, 2.0, 10.0]


def test_isotropic_all_solvers_match_the_exact_lift():
    s = volterra.isotropic(50, 0.8, start_error=2, target_norm=0.5, start_target=0.3, **PAR)
    groups = [(0.8, 50, 2.0, 0.5, 0.3)]
    ref = exact_curve(groups, 50, 0.1, 0.05, 0.7, [(0, 1.5)], TIMES)
    for solver, tol in (("auto", 1e-7), ("ode", 1e-7), ("exponential", 1e-7),
                        ("closed-form", 1e-10), ("trapezoid", 1e-4)):
        c = volterra.risk(s, times=TIMES, learning_rate=1.5, solver=solver)
        assert c.termination == "converged", (solver, c.message)
        assert np.allclose(c.P, ref[:, 0], rtol=tol, atol=0), solver
        assert np.allclose(c.R, ref[:, 1], rtol=tol, atol=0), solver
        assert not c.diverges and c.max_kernel_norm < 1
    # the plateau is the lift's steady state: y∞ = −A⁻¹b
    M = lift_matrix(groups, 50, mp.mpf("0.1"), mp.mpf("0.05"), mp.mpf("0.7"), 1.5)
    A, b = M[:3, :3], M[:3, 3]
    y = -(A**-1) * b
    P_inf, R_inf = risks(list(y), groups, 0.1, 0.05)
    pl = volterra.plateau(s, learning_rate=1.5)
    assert pl.stable and pl.termination == "converged"
    assert pl.P_inf == pytest.approx(float(P_inf), rel=1e-12)
    assert pl.R_inf == pytest.approx(float(R_inf), rel=1e-12)
    K = 1.5 / (2 * 50) * 50 * 0.8**2 / 0.9
    assert pl.kernel_norm == pytest.approx(K, rel=1e-14)
    assert volterra.kernel_norm(s, learning_rate=1.5) == pytest.approx(K, rel=1e-14)
    assert pl.max_stable_learning_rate == pytest.approx(1.5 / K)


def test_two_groups_with_a_step_schedule():
    s = volterra.spectrum([2.0, 0.3], [2, 8], e0_sq=[1.0, 3.0], xstar_sq=[0.4, 1.2],
                          e0_xstar=[-0.2, 0.5], **PAR)
    groups = [(2.0, 2, 1.0, 0.4, -0.2), (0.3, 8, 3.0, 1.2, 0.5)]
    sched = volterra.Schedule.step_decay(2.0, 0.5, 1.0)
    times = [0.25, 1.0, 1.5, 3.2]
    ref = exact_curve(groups, 10, 0.1, 0.05, 0.7, [(0, 2.0), (1, 1.0), (2, 0.5), (3, 0.25)],
                      times)
    c = volterra.risk(s, times=times, schedule=sched, variances=True)
    assert c.converged
    assert np.allclose(c.P, ref[:, 0], rtol=1e-7)
    assert np.allclose(c.R, ref[:, 1], rtol=1e-7)
    assert c.variances.shape == (4, 2)


def test_schedule_integrals_closed_form():
    t = np.array([0.0, 0.3, 1.0, 2.5, 7.0])
    p = volterra.Schedule.polynomial_decay(3.0, 2.0, 1.0)
    assert np.allclose(p.integral(t), 3 * 2 * np.log1p(t / 2), rtol=1e-13)
    p = volterra.Schedule.polynomial_decay(3.0, 2.0, 0.5)
    assert np.allclose(p.integral(t), 3 * 2 * ((1 + t / 2)**0.5 - 1) / 0.5, rtol=1e-13)
    c = volterra.Schedule.cosine(2.0, 0.5, 4.0)
    tt = np.minimum(t, 4.0)
    expect = 0.5 * t + 1.5 / 2 * (tt + 4 / np.pi * np.sin(np.pi * tt / 4))
    assert np.allclose(c.integral(t), expect, rtol=1e-13, atol=1e-15)
    s = volterra.Schedule.step_decay(2.0, 0.5, 1.0)
    assert np.allclose(s.rate([0, 0.99, 1.0, 2.5]), [2, 2, 1, 0.5])
    assert s.integral(2.5)[0] == pytest.approx(2 + 1 + 0.25)
    pw = volterra.Schedule.piecewise_linear([0, 1, 3], [1, 3, 0])
    assert pw.integral(3.0)[0] == pytest.approx(2 + 3) and pw.rate(5.0)[0] == 0


def test_divergence_is_reported_not_hidden():
    s = volterra.isotropic(20, 1.0, noise=0.5)
    c = volterra.risk(s, times=[0, 1, 5], learning_rate=3.0)   # K = γλ²/(2κ) = 1.5
    assert c.diverges and c.max_kernel_norm == pytest.approx(1.5)
    assert c.message
    assert c.P[-1] > c.P[1]
    pl = volterra.plateau(s, learning_rate=3.0)
    assert not pl.stable and pl.termination == "failure" and math.isinf(pl.P_inf) and pl.message


def test_builders():
    assert volterra.power_law(100, 1.5, 2.0).trace == pytest.approx(2.0, rel=1e-13)
    mpl = volterra.marchenko_pastur(200, 0.5, 2.0, groups=50)
    assert mpl.trace == pytest.approx(200 * 2.0, rel=1e-12)   # first moment exact
    assert float(np.sum(mpl.multiplicities)) == pytest.approx(200)
    sp = volterra.spiked(10, 0.1, [3.0, 2.0], start_error=10)
    assert list(sp.eigenvalues) == [3.0, 2.0, 0.1] and list(sp.multiplicities) == [1, 1, 8]
    assert np.allclose(sp.e0_sq, [1, 1, 8])   # spread by multiplicity
    rng = np.random.default_rng(3)
    a = rng.normal(size=(6, 6))
    sigma = a @ a.T / 6
    x0, xt = rng.normal(size=6), rng.normal(size=6)
    s = volterra.from_covariance(sigma, x0, xt, **PAR)
    lam, U = np.linalg.eigh(sigma)
    order = np.argsort(-lam)
    lam, U = lam[order], U[:, order]
    e, x = U.T @ (x0 - xt), U.T @ xt
    assert np.allclose(s.eigenvalues, lam, rtol=1e-12)
    assert np.allclose(s.e0_sq, e**2, rtol=1e-9)
    assert np.allclose(s.xstar_sq, x**2, rtol=1e-9)
    assert np.allclose(s.e0_xstar, e * x, rtol=1e-9, atol=1e-12)
    # the Marchenko–Pastur CDF at the edges of its support
    c, s2 = 0.5, 1.0
    assert volterra.marchenko_pastur_cdf([s2 * (1 - math.sqrt(c))**2 - 1e-9,
                                          s2 * (1 + math.sqrt(c))**2], c, s2) == \
        pytest.approx([0.0, 1.0], abs=1e-12)


def test_spectrum_file_round_trip(tmp_path):
    s = volterra.spectrum([2.0, 0.3], [2, 8], e0_sq=[1.0, 3.0], xstar_sq=[0.4, 1.2],
                          e0_xstar=[-0.2, 0.5], **PAR)
    path = tmp_path / "spec.csv"
    s.write(str(path))
    back = volterra.read_spectrum(str(path))
    for f in ("eigenvalues", "multiplicities", "e0_sq", "xstar_sq", "e0_xstar"):
        assert np.array_equal(getattr(back, f), getattr(s, f))
    assert (back.d, back.ridge, back.label_noise, back.noise) == (10, 0.1, 0.05, 0.7)
    assert volterra.read_spectrum(str(path), noise=2.0).noise == 2.0


CLI = os.environ.get("DPKIT_CLI")


@pytest.mark.skipif(not CLI, reason="DPKIT_CLI not set")
def test_against_cli():
    out = subprocess.run(
        [CLI, "hsgd", "risk", "--spectrum", "power-law:1.5", "--dimension", "40", "--ridge", "0.1",
         "--label-noise", "0.05", "--noise-std", "0.7", "--learning-rate", "2",
         "--schedule", "polynomial:2,1", "--times", "0.5,1,4", "--start-error", "2",
         "--target-norm", "0.5", "--start-target", "0.3", "--format", "json"],
        check=True, capture_output=True, text=True).stdout
    rows = json.loads(out)["results"]
    s = volterra.power_law(40, 1.5, 1.0, start_error=2, target_norm=0.5, start_target=0.3, **PAR)
    c = volterra.risk(s, times=[0.5, 1, 4],
                      schedule=volterra.Schedule.polynomial_decay(2.0, 2.0, 1.0))
    assert np.allclose(c.P, [r["P"] for r in rows], rtol=1e-13)
    assert np.allclose(c.R, [r["R"] for r in rows], rtol=1e-13)


@pytest.mark.parametrize("call, name", [
    (lambda s: volterra.risk(s, times=[1, 0], learning_rate=1), "times"),
    (lambda s: volterra.risk(s, times=[1], learning_rate=-1), "learning_rate"),
    (lambda s: volterra.risk(s, times=[1]), "learning_rate"),
    (lambda s: volterra.risk(s, times=[1], learning_rate=1, solver="rk4"), "solver"),
    (lambda s: volterra.isotropic(10, 1.0, noise=-1), "noise"),
    (lambda s: volterra.isotropic(0, 1.0), "d"),
    (lambda s: volterra.spectrum([1.0], [2], e0_sq=[1.0], d=5), "multiplicit"),
    (lambda s: volterra.spectrum([1.0], [2], e0_sq=[1.0], xstar_sq=[1.0], e0_xstar=[5.0]),
     "e0_xstar"),
    (lambda s: volterra.Schedule.step_decay(1.0, 1.5, 1.0), "factor"),
    (lambda s: volterra.Schedule.piecewise_linear([1, 2], [1, 1]), "times"),
])
def test_bad_input_names_the_argument(call, name):
    s = volterra.isotropic(10, 1.0, noise=0.5)
    with pytest.raises(ValueError) as e:
        call(s)
    msg = str(e.value)
    assert name in msg, msg
    assert "\n" not in msg and not msg.startswith(("volterra::", "from_groups", "solve_"))


def test_non_convergence_is_visible():
    s = volterra.power_law(100, 1.0, 1.0, noise=0.5)
    c = volterra.risk(s, times=[0, 10, 100], learning_rate=1.0, solver="exponential",
                      max_steps=256, relative_tolerance=1e-14)
    assert c.termination == "max_iterations" and not c.converged and "max_steps" in c.message
    assert np.all(np.isfinite(c.P_error))   # the best values, with their error estimates
