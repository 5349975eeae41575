"""Every Python argument refuses an out-of-range, non-finite or mistyped value in the caller's
words (the argument's name, the value, the range) and with the CLI's range — found by a probe of
every public function on 2026-11-27, each case failing before: Python accepted what the CLI
refuses (δ below 1e-290, a subnormal, a G(μ) factor beyond 1e6), named an internal variable
(``epsilon`` for ``target_epsilon``, ``epochs`` for ``max_epochs``, ``steps`` for a composed
count) or passed Python's own conversion message (``could not convert string to float``,
pybind11's ``incompatible function arguments``)."""

import math

import pytest

import dpkit
import dpkit.dp_accounting as dpa
import dpkit.matrix_mechanism as mm
import dpkit.opacus as op
import dpkit.shifted as shifted

RUN = dict(noise_multiplier=1.0, sample_rate=0.01, steps=100)


def refused(call, *words):
    with pytest.raises(ValueError) as e:
        call()
    message = str(e.value)
    for w in words:
        assert w in message, (w, message)
    for internal in ("incompatible function arguments", "could not convert", "delta_floor",
                     "noise_multiplier is inf", "rho is", "tau is"):
        assert internal not in message, message
    return message


def test_delta_has_the_cli_range_on_every_path():
    # The CLI's --delta range, accounting::kSmallestDelta: one constant.
    assert dpkit._dpkit.SMALLEST_DELTA == 1e-290
    for delta in (1e-291, 1e-320, 0.0, 1.0, math.nan):
        refused(lambda: dpkit.epsilon(delta=delta, **RUN), "delta is", "[1e-290, 1)")
        refused(lambda: dpkit.calibrate_noise(target_epsilon=2.0, delta=delta, sample_rate=0.01,
                                              steps=100), "delta is")
        refused(lambda: mm.epsilon("toeplitz:1,0.5", 10, 1.0, delta), "delta is")
    # the smallest accepted δ answers (an ε bracket, not a refusal)
    r = dpkit.epsilon(delta=1e-290, **RUN)
    assert 0 < r.lower <= r.upper


def test_a_gaussian_factor_has_the_gdp_range():
    refused(lambda: dpkit.epsilon(delta=1e-5, gaussian_mu=1e30, **RUN), "gaussian_mu is 1e+30",
            "<= 1e6")
    assert dpkit.epsilon(delta=1e-5, gaussian_mu=1e6, **RUN).upper > 4e11


def test_calibration_names_its_target():
    for target in (1e30, 1e-320):
        refused(lambda: dpkit.calibrate_noise(target_epsilon=target, delta=1e-5, sample_rate=0.01,
                                              steps=100), "target_epsilon is")
        refused(lambda: op.get_noise_multiplier(target_epsilon=target, target_delta=1e-5,
                                                sample_rate=0.01, steps=100), "target_epsilon is")
    refused(lambda: dpkit.calibrate_steps(target_epsilon=1.0, delta=1e-5, noise_multiplier=1.0,
                                          sample_rate=0.01, max_epochs=math.nan),
            "max_epochs is nan")


def test_a_subnormal_is_refused_as_the_cli_refuses_it():
    refused(lambda: dpkit.gdp_mu(fpr_min=1e-320, **RUN), "fpr_min is 1e-320", "underflows")
    refused(lambda: dpkit.epsilon(delta=1e-5, noise_multiplier=1.0, sample_rate=5e-324,
                                  steps=10), "sample_rate is 5e-324")
    # The library's words (core/check.hpp): the limit written exactly, as the CLI writes it.
    refused(lambda: dpkit.gdp_mu(fpr_min=1e-320, **RUN),
            "(1e-320 underflows double precision: the smallest normal double is "
            "2.2250738585072014e-308)")
    # 2.2e-308 is below the limit: the range must not read [2.2e-308, 1].
    refused(lambda: dpkit.epsilon(delta=1e-5, noise_multiplier=1.0, sample_rate=2.2e-308,
                                  steps=10),
            "sample_rate is 2.2e-308, but must be a number in [2.2250738585072014e-308, 1]")


def test_clt_k_and_shifted_overflow_in_words():
    from dpkit import shifted
    refused(lambda: shifted.clt_k(1e30), "mu is 1e+30, but must be in [0, 26.64")


def test_matrix_mechanism_arguments_are_named():
    for bad in ("abc", None, True):
        refused(lambda: mm.epsilon("toeplitz:1,0.5", 10, bad, 1e-5), "noise_multiplier is")
        refused(lambda: mm.epsilon("toeplitz:1,0.5", 10, 1.0, 1e-5, sample_rate=bad),
                "sample_rate is")
    refused(lambda: mm.calibrate("toeplitz:1,0.5", 10, "abc", 1e-5), "target_epsilon is")


def test_dp_accounting_events_are_checked_when_composed():
    acc = dpa.PLDAccountant()
    cases = [(dpa.PoissonSampledDpEvent(1e-320, dpa.GaussianDpEvent(1.0)),
              "sampling_probability is 1e-320"),
             (dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(1.0), 10**30),
              "must be at most 9007199254740992 (2^53"),
             (dpa.GaussianDpEvent(True), "noise_multiplier is True")]
    for event, words in cases:
        with pytest.raises(dpa.UnsupportedEventError) as e:
            acc.compose(event)
        assert words in str(e.value), str(e.value)
    for bad in (math.nan, -1.0, "abc"):
        refused(lambda: dpa.PLDAccountant(value_discretization_interval=bad),
                "value_discretization_interval is")
    dpa.PLDAccountant(value_discretization_interval=1e-4)  # upstream's default: accepted


def test_audit_scores_arguments_are_named():
    ins, outs = [0.1, 0.2, 0.3, 0.9], [0.05, 0.15, 0.25, 0.35]
    for seed in (-1, 10**30, math.inf, math.nan, "abc", -0.5, True):
        refused(lambda: dpkit.audit_scores(ins, outs, seed=seed), "seed is")
    for bad in (math.nan, -1.0, math.inf):
        refused(lambda: dpkit.audit_scores(ins, outs, claim_epsilon=bad), "claim_epsilon is")
        refused(lambda: dpkit.audit_scores(ins, outs, split_fraction=bad), "split_fraction is")
    refused(lambda: dpkit.audit_scores(ins, outs, delta="abc"), "delta is 'abc'")


def test_a_contraction_derived_from_the_learning_rate_names_the_rate():
    refused(lambda: shifted.noisy_gd(sensitivity=1, dataset_size=1, noise=1, steps=10,
                                     strong_convexity=1, smoothness=2, learning_rate=1e-300),
            "learning_rate is 1e-300", "contraction")


def test_list_arguments_are_checked_element_by_element():
    # True was read as 1.0 and text passed numpy's "could not convert string to float".
    refused(lambda: dpkit.tradeoff([0.1, True], **RUN), "alpha[1] is True, but must be a number "
            "in [0, 1]")
    refused(lambda: dpkit.tradeoff([0.1, "abc"], **RUN), "alpha[1] is 'abc'")
    refused(lambda: dpkit.rdp(["abc"], **RUN), "orders[0] is 'abc', but must be a number in "
            "(1, 1e6]")
    refused(lambda: dpkit.delta_curve([1, 1e-320], **RUN), "epsilons[1] is 1e-320",
            "underflows")
    refused(lambda: dpkit.delta_curve([[1, 2], [3, 4]], **RUN), "epsilons must be a number or a "
            "non-empty one-dimensional array")
    from dpkit import dp_accounting
    refused(lambda: dp_accounting.RdpAccountant(orders=["abc"]), "orders[0] is 'abc'")
    # Numeric arrays take the fast path and come back unchanged.
    import numpy as np
    a = np.linspace(0, 1, 11)
    assert np.array_equal(dpkit.tradeoff(a, **RUN).alpha, a)


def test_list_arguments_one_number_and_plain_lists():
    # A single number is named as the argument itself, not as its element 0.
    refused(lambda: dpkit.tradeoff(2.0, **RUN), "alpha is 2.0, but must be a number in [0, 1]")
    # A plain list of numbers is taken whole, as an array is.
    assert list(dpkit.tradeoff([0.5, 0, 1], **RUN).alpha) == [0.5, 0.0, 1.0]
