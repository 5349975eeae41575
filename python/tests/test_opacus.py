"""The Opacus-shaped accountant (dpkit.opacus) against closed forms and the reference tables,
its state_dict round trip, and the real-IAccountant adapter (with a stand-in for Opacus's
abstract base class where Opacus is not installed)."""

import abc
import math
import sys
import types

import pytest

import dpkit
from dpkit.opacus import PLDAccountant, get_noise_multiplier, opacus_accountant
from conftest import gdp_epsilon, reference_rows


def test_history_merges_like_opacus_and_len_counts_steps():
    a = PLDAccountant()
    for _ in range(3):
        a.step(noise_multiplier=1.0, sample_rate=0.01)
    a.step(noise_multiplier=2.0, sample_rate=0.01)
    a.step(noise_multiplier=1.0, sample_rate=0.01)
    assert a.history == [(1.0, 0.01, 3), (2.0, 0.01, 1), (1.0, 0.01, 1)]
    assert len(a) == 5
    assert PLDAccountant.mechanism() == "dpkit-pld"


def test_get_epsilon_of_full_batch_steps_is_the_closed_form():
    a = PLDAccountant()
    for _ in range(25):
        a.step(noise_multiplier=5.0, sample_rate=1.0)
    ref = float(gdp_epsilon(1.0, 1e-5))  # mu = sqrt(25)/5
    assert math.isclose(a.get_epsilon(delta=1e-5), ref, rel_tol=1e-9)
    lo, hi = a.get_epsilon_bounds(delta=1e-5)
    assert lo <= ref * (1 + 1e-12) and ref <= hi * (1 + 1e-12)


def test_get_epsilon_brackets_the_reference_of_two_subsampled_steps():
    rows = reference_rows("pld_poisson_epsilon")
    q, sigma, delta = float(rows[0]["q"]), float(rows[0]["sigma"]), float(rows[0]["delta"])
    ref = max(float(r["epsilon"]) for r in rows if (float(r["q"]), float(r["sigma"]),
                                                   float(r["delta"])) == (q, sigma, delta))
    a = PLDAccountant()
    a.step(noise_multiplier=sigma, sample_rate=q)
    lo, hi = a.get_epsilon_bounds(delta)
    assert lo <= ref <= hi and a.get_epsilon(delta) == hi


def test_empty_accountant_is_zero_like_opacus():
    assert PLDAccountant().get_epsilon(1e-5) == 0.0


def test_state_dict_round_trip_keeps_the_answer():
    a = PLDAccountant()
    for sigma in (1.0, 1.0, 1.5):
        a.step(noise_multiplier=sigma, sample_rate=0.02)
    state = a.state_dict()
    assert state["mechanism"] == "dpkit-pld" and state["history"] == a.history
    b = PLDAccountant()
    b.load_state_dict(state)
    assert b.history == a.history and len(b) == 3
    assert b.get_epsilon_bounds(1e-5) == a.get_epsilon_bounds(1e-5)
    state["history"].append((9.0, 0.5, 1))  # a copy: the accountant is unchanged
    assert len(a) == 3


@pytest.mark.parametrize("state, fragment", [
    ({}, "history"),
    ({"history": [(1.0, 0.1)], "mechanism": "dpkit-pld"}, "history[0]"),
    ({"history": [(1.0, 1.5, 3)], "mechanism": "dpkit-pld"}, "sample_rate"),
    ({"history": [], "mechanism": "rdp"}, "mechanism"),
])
def test_load_state_dict_rejects_bad_state(state, fragment):
    with pytest.raises(ValueError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        PLDAccountant().load_state_dict(state)


def test_step_rejects_bad_arguments_by_name():
    a = PLDAccountant()
    with pytest.raises(ValueError, match="^noise_multiplier"):
        a.step(noise_multiplier=-1.0, sample_rate=0.1)
    with pytest.raises(ValueError, match="^sample_rate"):
        a.step(noise_multiplier=1.0, sample_rate=2.0)
    with pytest.raises(TypeError):
        a.step(1.0, 0.1)  # keyword-only, as in Opacus


def test_get_noise_multiplier_full_batch_against_closed_form():
    import mpmath as mp
    mp.mp.dps = 50
    steps, target, delta = 400, 2.0, 1e-5
    mu_star = mp.findroot(lambda m: gdp_epsilon(m, delta) - target, (0.5, 1.5),
                          solver="anderson")
    sigma_star = float(mp.sqrt(steps) / mu_star)
    sigma = get_noise_multiplier(target_epsilon=target, target_delta=delta, sample_rate=1.0,
                                 steps=steps)
    assert sigma_star <= sigma <= sigma_star * 1.0011


def test_get_noise_multiplier_with_epochs_holds_the_budget():
    sigma = get_noise_multiplier(target_epsilon=3.0, target_delta=1e-5, sample_rate=0.004,
                                 epochs=3, epsilon_tolerance=0.01)
    steps = math.ceil(3 / 0.004)
    eps = dpkit.epsilon(1e-5, noise_multiplier=sigma, sample_rate=0.004, steps=steps)
    # Fresh accounting at σ, on a grid of its own (a bracket within 0.1 %), agrees with the
    # calibration's certificate (ε ≤ 3): its bracket reaches below 3, and above 3 only by its width.
    assert eps.lower <= 3.0 and 3.0 - 0.02 < eps.upper <= 3.0 * (1 + 1e-3)
    with pytest.raises(ValueError, match="either epochs or steps"):
        get_noise_multiplier(target_epsilon=3.0, target_delta=1e-5, sample_rate=0.004)


def test_optimizer_hook_records_accumulated_steps():
    a = PLDAccountant()
    hook = a.get_optimizer_hook_fn(sample_rate=0.01, noise_multiplier=1.0)
    optim = types.SimpleNamespace(noise_multiplier=1.2, accumulated_iterations=2)
    hook(optim)
    assert a.history == [(1.2, 0.02, 1)]


def test_adapter_is_a_real_subclass_of_opacus_iaccountant(monkeypatch):
    # Where Opacus is installed, use it; otherwise provide a stand-in with Opacus's abstract
    # interface (module path opacus.accountants.accountant.IAccountant) so that the subclass
    # mechanics (ABCMeta, abstract methods resolved by the dpkit mixin) are exercised.
    try:
        from opacus.accountants.accountant import IAccountant  # noqa: F401
    except ImportError:
        class IAccountant(abc.ABC):
            @abc.abstractmethod
            def step(self, *, noise_multiplier, sample_rate): ...

            @abc.abstractmethod
            def get_epsilon(self, delta, *args, **kwargs): ...

            @abc.abstractmethod
            def __len__(self): ...

            @classmethod
            @abc.abstractmethod
            def mechanism(cls): ...

        pkg = types.ModuleType("opacus")
        acc = types.ModuleType("opacus.accountants")
        mod = types.ModuleType("opacus.accountants.accountant")
        mod.IAccountant = IAccountant
        monkeypatch.setitem(sys.modules, "opacus", pkg)
        monkeypatch.setitem(sys.modules, "opacus.accountants", acc)
        monkeypatch.setitem(sys.modules, "opacus.accountants.accountant", mod)
        monkeypatch.setattr(dpkit.opacus, "_opacus_class", None)
    from opacus.accountants.accountant import IAccountant as Base
    a = opacus_accountant()
    assert isinstance(a, Base)
    a.step(noise_multiplier=5.0, sample_rate=1.0)
    assert math.isclose(a.get_epsilon(1e-5), float(gdp_epsilon(0.2, 1e-5)), rel_tol=1e-9)
    assert len(a) == 1 and type(a).mechanism() == "dpkit-pld"


def test_adapter_without_opacus_says_what_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "opacus", None)
    monkeypatch.setattr(dpkit.opacus, "_opacus_class", None)
    with pytest.raises(ImportError, match="opacus"):
        opacus_accountant()


def test_heterogeneous_history_against_the_gdp_closed_form():
    # Full-batch steps with different noise compose to mu = sqrt(sum 1/sigma_i^2) (GDP): the
    # accountant's bracket over a mixed history must hold the 50-digit value.
    a = PLDAccountant()
    sigmas = [2.0] * 7 + [3.0] * 20 + [2.0] * 5 + [8.0]
    for s in sigmas:
        a.step(noise_multiplier=s, sample_rate=1.0)
    assert a.history == [(2.0, 1.0, 7), (3.0, 1.0, 20), (2.0, 1.0, 5), (8.0, 1.0, 1)]
    mu = math.sqrt(sum(1 / s ** 2 for s in sigmas))
    ref = float(gdp_epsilon(mu, 1e-6))
    lo, hi = a.get_epsilon_bounds(1e-6)
    assert lo <= ref * (1 + 1e-12) and ref <= hi * (1 + 1e-12) and hi <= ref * (1 + 1e-9)


def test_mixed_subsampled_history_brackets_the_two_step_reference():
    # Two single steps recorded with different (sigma, q) entries in between that cost nothing
    # new: here two equal steps interleaved as separate history entries equal T = 2.
    rows = [r for r in reference_rows("pld_poisson_delta") if r["steps"] == "2"]
    q, sigma = float(rows[0]["q"]), float(rows[0]["sigma"])
    a = PLDAccountant()
    a.step(noise_multiplier=sigma, sample_rate=q)
    a.load_state_dict({"history": [(sigma, q, 1), (sigma, q, 1)], "mechanism": "dpkit-pld"})
    assert len(a) == 2
    delta = max(float(r["delta"]) for r in rows if (float(r["q"]), float(r["sigma"])) ==
                (q, sigma) and float(r["epsilon"]) == float(rows[0]["epsilon"]))
    # epsilon at that delta must be bracketed around the reference epsilon of the row
    lo, hi = a.get_epsilon_bounds(delta)
    eps_ref = float(rows[0]["epsilon"])
    assert lo <= eps_ref * (1 + 1e-9) and eps_ref <= hi * (1 + 1e-9)


def test_per_epoch_queries_reuse_the_grid_and_stay_certified():
    import copy
    import pickle
    acc = PLDAccountant()
    for epoch in range(1, 6):
        for _ in range(235):
            acc.step(noise_multiplier=1.1, sample_rate=256 / 60000)
        lo, hi = acc.get_epsilon_bounds(1e-5)
        fresh = dpkit.epsilon(1e-5, noise_multiplier=1.1, sample_rate=256 / 60000,
                              steps=235 * epoch)
        assert lo <= fresh.upper and fresh.lower <= hi       # both certified
        assert hi - lo <= 1e-3 * hi
    # Copies keep the history (the cached grid is rebuilt, so the bracket may sit on another
    # grid: both certified), and a new σ starts a second phase.
    copy_lo, copy_hi = pickle.loads(pickle.dumps(acc)).get_epsilon_bounds(1e-5)
    assert copy_lo <= hi and lo <= copy_hi
    assert len(pickle.loads(pickle.dumps(acc))) == 5 * 235
    other = copy.deepcopy(acc)
    other.step(noise_multiplier=2.0, sample_rate=256 / 60000)
    both = dpkit.epsilon(1e-5, phases=[dpkit.Phase(1.1, 256 / 60000, 1175),
                                       dpkit.Phase(2.0, 256 / 60000, 1)])
    assert other.get_epsilon(1e-5) == float(both)
