"""dpkit.opacus driven the way Opacus drives an accountant.

Opacus is not installable here (Debian packages only; its torch is 1.13), so the calls below are
Opacus's own, transcribed from pytorch/opacus (opacus/privacy_engine.py and
opacus/accountants/accountant.py at 013a071 / 01c5c4c): ``PrivacyEngine.make_private`` sets
``sample_rate = 1 / len(data_loader)`` and ``expected_batch_size = int(len(dataset) *
sample_rate)``, builds the DPOptimizer, and calls
``optimizer.attach_step_hook(self.accountant.get_optimizer_hook_fn(sample_rate=sample_rate))``
— the sample rate only; the hook reads ``optim.noise_multiplier`` and
``optim.accumulated_iterations`` at every ``DPOptimizer.step``. ``PrivacyEngine.get_epsilon(delta)``
is ``self.accountant.get_epsilon(delta)``; ``save_checkpoint`` stores
``self.accountant.state_dict()`` with ``torch.save`` and ``load_checkpoint`` hands it back to
``load_state_dict``; ``make_private_with_epsilon`` calls ``get_noise_multiplier(target_epsilon=,
target_delta=, sample_rate=, epochs=, accountant=self.accountant.mechanism(),
epsilon_tolerance=)``. The expected ε is dpkit.epsilon of the same run, an independent path
(no accountant object, no merged history, no grid reuse).
"""

import math
import sys
import types
import warnings

import pytest

import dpkit
from dpkit import opacus as dpo

N, B = 60_000, 256
LOADER_LEN = math.ceil(N / B)  # len(DataLoader(dataset, batch_size=B)): 235
Q = 1 / LOADER_LEN             # Opacus's sample rate


class StandInDPOptimizer:
    """The attributes and the step of Opacus's DPOptimizer that the accountant sees."""

    def __init__(self, noise_multiplier, expected_batch_size):
        self.noise_multiplier = noise_multiplier
        self.expected_batch_size = expected_batch_size
        self.accumulated_iterations = 1
        self.step_hook = None

    def attach_step_hook(self, fn):
        self.step_hook = fn

    def step(self):  # DPOptimizer.pre_step: clip, add noise, then the hook
        if self.step_hook:
            self.step_hook(self)


def make_private(accountant, noise_multiplier):
    """PrivacyEngine.make_private's accountant calls, in its order."""
    sample_rate = 1 / LOADER_LEN
    expected_batch_size = int(N * sample_rate)
    optimizer = StandInDPOptimizer(noise_multiplier, expected_batch_size)
    optimizer.attach_step_hook(accountant.get_optimizer_hook_fn(sample_rate=sample_rate))
    return optimizer


@pytest.mark.parametrize("make", [dpo.PLDAccountant,
                                  lambda: dpo.PLDAccountant(accountant="rdp")],
                         ids=["pld", "rdp"])
def test_the_accountant_as_privacy_engine_drives_it(make, tmp_path):
    torch = pytest.importorskip("torch")
    acct = make()
    optimizer = make_private(acct, 1.1)
    for _ in range(2 * LOADER_LEN):          # two epochs of DPOptimizer.step()
        optimizer.step()
    eps = acct.get_epsilon(1e-5)             # PrivacyEngine.get_epsilon(delta)
    mode = "pld" if acct._accountant == "pld" else "rdp"
    want = dpkit.epsilon(1e-5, noise_multiplier=1.1, sample_rate=Q, steps=2 * LOADER_LEN,
                         accountant=mode)
    assert len(acct) == 2 * LOADER_LEN
    assert acct.history == [(1.1, Q, 2 * LOADER_LEN)]
    assert eps == pytest.approx(float(want), rel=1e-3 if mode == "pld" else 1e-12)
    if mode == "pld":  # certified: inside the independent bracket's ends, widened by its width
        assert want.lower * (1 - 1e-3) <= eps <= want.upper * (1 + 1e-3)

    # A noise scheduler changes optimizer.noise_multiplier; the hook follows it.
    optimizer.noise_multiplier = 2.0
    optimizer.step()
    assert acct.history[-1] == (2.0, Q, 1)

    # save_checkpoint / load_checkpoint, through torch.save and torch.load as Opacus does.
    path = tmp_path / "checkpoint.pt"
    torch.save({"privacy_accountant_state_dict": acct.state_dict()}, path)
    fresh = make()
    fresh.load_state_dict(torch.load(path)["privacy_accountant_state_dict"])
    assert fresh.history == acct.history
    assert fresh.get_epsilon(1e-5) == acct.get_epsilon(1e-5)


def test_gradient_accumulation_multiplies_the_rate_as_opacus_does():
    acct = dpo.PLDAccountant()
    optimizer = make_private(acct, 1.0)
    optimizer.accumulated_iterations = 4
    optimizer.step()
    assert acct.history == [(1.0, 4 * Q, 1)]


def test_get_epsilon_takes_opacus_extra_arguments():
    acct = dpo.PLDAccountant()
    make_private(acct, 1.0).step()
    plain = acct.get_epsilon(1e-5)
    # RDPAccountant.get_epsilon(delta, alphas) and PRVAccountant's eps_error, by position too.
    assert acct.get_epsilon(1e-5, [2, 4, 8]) == plain
    assert acct.get_epsilon(1e-5, eps_error=0.01) == plain


def test_hook_without_a_noise_multiplier_says_so():
    acct = dpo.PLDAccountant()
    hook = acct.get_optimizer_hook_fn(sample_rate=0.01)
    with pytest.raises(ValueError, match="no noise_multiplier"):
        hook(types.SimpleNamespace())
    with pytest.raises(ValueError, match="^sample_rate is 0"):
        acct.get_optimizer_hook_fn(sample_rate=0)


def test_make_private_with_epsilon_calibration_as_opacus_calls_it():
    acct = dpo.PLDAccountant()
    sigma = dpo.get_noise_multiplier(target_epsilon=3.0, target_delta=1e-5, sample_rate=Q,
                                     epochs=10, accountant=acct.mechanism(),
                                     epsilon_tolerance=0.01)
    # The budget holds at σ for ⌈10 / q⌉ = 10 · len(loader) steps, certified.
    r = dpkit.epsilon(1e-5, noise_multiplier=sigma, sample_rate=Q, steps=10 * LOADER_LEN)
    assert r.upper <= 3.0 * (1 + 1e-3) and r.upper > 3.0 - 0.02


def _stand_in_opacus(monkeypatch):
    """A module `opacus` whose PrivacyEngine does what Opacus's does with its accountant (the
    calls listed in this file's docstring) and whose own calibration refuses dpkit's
    mechanism, as Opacus's create_accountant does."""
    calls = {}

    class IAccountant:
        pass

    class PrivacyEngine:
        def __init__(self, *, accountant="prv", secure_mode=False):
            self.accountant = types.SimpleNamespace(mechanism=lambda: accountant)
            self.secure_mode = secure_mode

        def make_private(self, *, module, optimizer, data_loader, noise_multiplier,
                         max_grad_norm, **kwargs):
            sample_rate = 1 / len(data_loader)
            opt = StandInDPOptimizer(noise_multiplier, int(N * sample_rate))
            opt.attach_step_hook(self.accountant.get_optimizer_hook_fn(sample_rate=sample_rate))
            calls["make_private"] = dict(noise_multiplier=noise_multiplier,
                                         max_grad_norm=max_grad_norm, **kwargs)
            return module, opt, data_loader

        def make_private_with_epsilon(self, **kwargs):
            raise ValueError("Unexpected accounting mechanism: dpkit-pld")

        def get_epsilon(self, delta):
            return self.accountant.get_epsilon(delta)

    pkg = types.ModuleType("opacus")
    pkg.PrivacyEngine = PrivacyEngine
    acc = types.ModuleType("opacus.accountants")
    mod = types.ModuleType("opacus.accountants.accountant")
    mod.IAccountant = IAccountant
    monkeypatch.setitem(sys.modules, "opacus", pkg)
    monkeypatch.setitem(sys.modules, "opacus.accountants", acc)
    monkeypatch.setitem(sys.modules, "opacus.accountants.accountant", mod)
    monkeypatch.setattr(dpo, "_opacus_class", None)
    monkeypatch.setattr(dpo, "_engine_class", None)
    return calls


def test_privacy_engine_make_private_accounts_with_dpkit(monkeypatch):
    _stand_in_opacus(monkeypatch)
    engine = dpo.privacy_engine()
    loader = range(LOADER_LEN)
    _, optimizer, _ = engine.make_private(module=None, optimizer=None, data_loader=loader,
                                          noise_multiplier=1.1, max_grad_norm=1.0)
    for _ in range(LOADER_LEN):
        optimizer.step()
    want = dpkit.epsilon(1e-5, noise_multiplier=1.1, sample_rate=Q, steps=LOADER_LEN)
    assert engine.get_epsilon(1e-5) == pytest.approx(float(want), rel=1e-3)
    assert engine.accountant.mechanism() == dpo.MECHANISM


def test_privacy_engine_make_private_with_epsilon_calibrates_with_dpkit(monkeypatch):
    calls = _stand_in_opacus(monkeypatch)
    engine = dpo.privacy_engine()
    loader = range(LOADER_LEN)
    engine.make_private_with_epsilon(module=None, optimizer=None, data_loader=loader,
                                     target_epsilon=3.0, target_delta=1e-5, epochs=10,
                                     max_grad_norm=1.0)
    sigma = calls["make_private"]["noise_multiplier"]
    assert calls["make_private"]["max_grad_norm"] == 1.0
    assert sigma == dpo.get_noise_multiplier(target_epsilon=3.0, target_delta=1e-5,
                                             sample_rate=Q, epochs=10)
    # Spent budget before calibrating: Opacus's warning, kept.
    engine.accountant.step(noise_multiplier=1.0, sample_rate=Q)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        engine.make_private_with_epsilon(module=None, optimizer=None, data_loader=loader,
                                         target_epsilon=3.0, target_delta=1e-5, epochs=10,
                                         max_grad_norm=1.0)
    assert any("already spent" in str(x.message) for x in w)


def test_privacy_engine_without_opacus_says_what_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "opacus", None)
    monkeypatch.setattr(dpo, "_engine_class", None)
    with pytest.raises(ImportError, match="opacus"):
        dpo.privacy_engine()
