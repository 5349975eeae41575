"""The dp_accounting-shaped layer (dpkit.dp_accounting) against closed forms, the reference
tables and an RDP conversion computed here."""

import math

import pytest

import dpkit
from dpkit import dp_accounting as dpa
from conftest import gdp_delta, gdp_epsilon, reference_rows


def poisson_event(q, sigma, steps):
    return dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)),
                                   steps)


def test_gaussian_events_compose_to_the_gdp_closed_form():
    acct = dpa.PLDAccountant()
    acct.compose(dpa.GaussianDpEvent(2.0), 3).compose(
        dpa.ComposedDpEvent([dpa.GaussianDpEvent(4.0), dpa.NoOpDpEvent()]))
    mu = math.sqrt(3 / 4.0 + 1 / 16.0)
    assert math.isclose(acct.get_epsilon(1e-6), float(gdp_epsilon(mu, 1e-6)), rel_tol=1e-9)
    assert math.isclose(acct.get_delta(1.0), float(gdp_delta(mu, 1.0)), rel_tol=1e-9)


def test_poisson_events_bracket_the_reference():
    rows = reference_rows("pld_poisson_delta")
    cases = {}
    for r in rows:
        k = (float(r["q"]), float(r["sigma"]), int(r["steps"]), float(r["epsilon"]))
        cases[k] = max(cases.get(k, 0.0), float(r["delta"]))
    for (q, sigma, steps, eps), ref in list(cases.items())[::7]:
        acct = dpa.PLDAccountant().compose(poisson_event(q, sigma, steps))
        assert ref <= acct.get_delta(eps)
        # the same run through the functional API gives the lower side too
        r = dpkit.delta(eps, noise_multiplier=sigma, sample_rate=q, steps=steps)
        assert r.lower <= ref and acct.get_delta(eps) == r.upper


def test_epsilon_bounds_of_a_poisson_event():
    acct = dpa.PLDAccountant().compose(poisson_event(0.01, 1.0, 10000))
    lo, hi = acct.get_epsilon_bounds(1e-5)
    r = dpkit.epsilon(1e-5, noise_multiplier=1.0, sample_rate=0.01, steps=10000)
    assert (lo, hi) == (r.lower, r.upper) and acct.get_epsilon(1e-5) == hi


def test_sampled_without_replacement_under_replace_one_is_cp_of_g_one_over_sigma():
    # dp_accounting's noise_multiplier is relative to the replace-one sensitivity: the event
    # (n, m, Gaussian(sigma)) is C_{m/n}(G(1/sigma)); the table holds C_p(G(mu))^T.
    for r in reference_rows("pld_symmetric_delta")[::5]:
        p, mu, steps = float(r["p"]), float(r["mu"]), int(r["steps"])
        n = 1000
        m = round(p * n)
        if abs(m / n - p) > 1e-15:
            continue
        ev = dpa.SelfComposedDpEvent(
            dpa.SampledWithoutReplacementDpEvent(n, m, dpa.GaussianDpEvent(1.0 / mu)), steps)
        acct = dpa.PLDAccountant(dpa.NeighboringRelation.REPLACE_ONE).compose(ev)
        ref = float(r["delta"])
        assert ref <= acct.get_delta(float(r["epsilon"])) * (1 + 1e-12)


def test_unsupported_events_raise_and_supports_says_so():
    add_remove = dpa.PLDAccountant()
    replace = dpa.PLDAccountant(dpa.NeighboringRelation.REPLACE_ONE)
    laplace = dpa.LaplaceDpEvent(1.0)
    wor = dpa.SampledWithoutReplacementDpEvent(100, 10, dpa.GaussianDpEvent(1.0))
    pois = dpa.PoissonSampledDpEvent(0.1, dpa.GaussianDpEvent(1.0))
    assert not add_remove.supports(laplace)
    assert not add_remove.supports(wor) and replace.supports(wor)
    assert add_remove.supports(pois) and not replace.supports(pois)
    with pytest.raises(dpa.UnsupportedEventError, match="REPLACE_ONE"):
        add_remove.compose(wor)
    with pytest.raises(dpa.UnsupportedEventError):
        add_remove.compose(dpa.ComposedDpEvent([pois, laplace]))
    # a failed compose leaves the accountant unchanged
    assert add_remove.ledger.events == [] and add_remove.get_epsilon(1e-5) == 0.0
    assert not dpa.RdpAccountant().supports(dpa.UnsupportedDpEvent())


def test_non_private_and_no_op_events():
    acct = dpa.PLDAccountant().compose(dpa.NonPrivateDpEvent())
    assert acct.get_epsilon(1e-5) == math.inf and acct.get_delta(1.0) == 1.0
    assert dpa.PLDAccountant().compose(dpa.NoOpDpEvent()).get_epsilon(1e-5) == 0.0
    assert dpa.PLDAccountant().compose(dpa.GaussianDpEvent(0.0)).get_epsilon(1e-5) == math.inf


def test_rdp_accountant_with_orders_between_exact_and_mironov_conversion():
    # G(mu) has RDP alpha mu^2/2. With given orders the epsilon is a valid bound (>= exact) and
    # at most Mironov's conversion min_alpha (rho alpha + log(1/delta)/(alpha - 1)), which the
    # best-of-four conversion can only improve on.
    orders = [1.5, 2, 3, 4, 8, 16, 32, 64]
    sigma, delta = 3.0, 1e-5
    acct = dpa.RdpAccountant(orders).compose(dpa.GaussianDpEvent(sigma), 10)
    mu = math.sqrt(10) / sigma
    rho = mu * mu / 2
    mironov = min(rho * a + math.log(1 / delta) / (a - 1) for a in orders)
    eps, order = acct.get_epsilon_and_optimal_order(delta)
    assert float(gdp_epsilon(mu, delta)) <= eps <= mironov * (1 + 1e-12)
    assert order in orders
    assert acct.get_delta(eps) <= delta * (1 + 1e-9)


def test_rdp_accountant_without_orders_matches_functional_rdp():
    acct = dpa.RdpAccountant().compose(poisson_event(0.01, 1.0, 1000))
    r = dpkit.epsilon(1e-5, noise_multiplier=1.0, sample_rate=0.01, steps=1000,
                      accountant="rdp")
    eps, order = acct.get_epsilon_and_optimal_order(1e-5)
    assert eps == acct.get_epsilon(1e-5) == r.upper and order > 1


def test_calibrate_noise_multiplier_like_dp_accounting():
    import mpmath as mp
    mp.mp.dps = 50
    steps, target, delta = 100, 1.0, 1e-5
    sigma = dpa.calibrate_dp_mechanism(
        dpa.PLDAccountant, lambda s: dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(s), steps),
        target, delta)
    mu_star = mp.findroot(lambda m: gdp_epsilon(m, delta) - target, (0.1, 0.5),
                          solver="anderson")
    sigma_star = float(mp.sqrt(steps) / mu_star)
    assert sigma >= sigma_star and sigma <= sigma_star * (1 + 1e-5)


def test_calibrate_discrete_steps():
    sigma, target, delta = 10.0, 1.0, 1e-5
    steps = dpa.calibrate_dp_mechanism(
        dpa.PLDAccountant, lambda t: dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(sigma), t),
        target, delta, bracket_interval=dpa.LowerEndpointAndGuess(0, 10), discrete=True)
    # epsilon increases with steps: the largest count within budget
    assert isinstance(steps, int)
    assert float(gdp_epsilon(math.sqrt(steps) / sigma, delta)) <= target
    assert float(gdp_epsilon(math.sqrt(steps + 1) / sigma, delta)) > target


def test_calibration_errors():
    with pytest.raises(dpa.NoBracketIntervalFoundError):
        dpa.calibrate_dp_mechanism(
            dpa.PLDAccountant, lambda s: dpa.GaussianDpEvent(s), 1.0, 1e-5,
            bracket_interval=dpa.ExplicitBracketInterval(10, 20))

    def stale():
        return dpa.PLDAccountant().compose(dpa.GaussianDpEvent(1.0))

    with pytest.raises(dpa.NonEmptyAccountantError):
        dpa.calibrate_dp_mechanism(stale, lambda s: dpa.GaussianDpEvent(s), 1.0, 1e-5)


def test_bad_arguments():
    with pytest.raises(ValueError, match="^target_delta"):
        dpa.PLDAccountant().get_epsilon(0.0)
    with pytest.raises(ValueError, match="^count"):
        dpa.PLDAccountant().compose(dpa.GaussianDpEvent(1.0), 0)
    with pytest.raises(ValueError, match="^orders"):
        dpa.RdpAccountant([0.5])


def test_dp_accountings_module_paths_run_unchanged():
    # Code written for dp_accounting names its submodules: `dp_accounting.rdp.RdpAccountant()`,
    # `from dp_accounting.pld import PLDAccountant`, `dp_accounting.dp_event.GaussianDpEvent`,
    # `dp_accounting.privacy_accountant.NeighboringRelation`,
    # `dp_accounting.mechanism_calibration.calibrate_dp_mechanism`. With `import
    # dpkit.dp_accounting as dp_accounting` the same lines run, on the same classes, and give the
    # functional API's numbers.
    import dpkit.dp_accounting as dp_accounting
    from dpkit.dp_accounting.pld import PLDAccountant
    from dpkit.dp_accounting.rdp import RdpAccountant
    from dpkit.dp_accounting.dp_event import GaussianDpEvent, PoissonSampledDpEvent
    from dpkit.dp_accounting.privacy_accountant import NeighboringRelation

    event = PoissonSampledDpEvent(0.01, GaussianDpEvent(1.0))
    rdp = dp_accounting.rdp.RdpAccountant()
    rdp.compose(event, 1000)
    assert rdp.get_epsilon(1e-5) == dpkit.epsilon(1e-5, 1.0, 0.01, 1000, accountant="rdp").upper
    pld = PLDAccountant(neighboring_relation=NeighboringRelation.ADD_OR_REMOVE_ONE)
    pld.compose(event, 1000)
    assert pld.get_epsilon(1e-5) == dpkit.epsilon(1e-5, 1.0, 0.01, 1000).upper
    sigma = dp_accounting.mechanism_calibration.calibrate_dp_mechanism(
        dp_accounting.pld.PLDAccountant,
        lambda s: dp_accounting.dp_event.SelfComposedDpEvent(
            PoissonSampledDpEvent(0.01, GaussianDpEvent(s)), 1000),
        2.0, 1e-5)
    assert dpkit.epsilon(1e-5, sigma, 0.01, 1000).upper <= 2.0
    assert RdpAccountant is dp_accounting.RdpAccountant
    assert dp_accounting.dp_event.GaussianDpEvent is dp_accounting.GaussianDpEvent
