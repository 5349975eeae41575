"""An accountant with Opacus's interface, backed by dpkit's certified PLD accountant.

Drop-in for code written against ``opacus.accountants`` (``RDPAccountant``, ``PRVAccountant``,
``GaussianAccountant``): the same ``step(noise_multiplier=, sample_rate=)``,
``get_epsilon(delta)``, ``history``, ``state_dict()`` / ``load_state_dict()``, ``len()`` and
``mechanism()``, plus :meth:`PLDAccountant.get_epsilon_bounds` for the certified bracket.
Opacus need not be installed. Where it is, :func:`privacy_engine` is Opacus's ``PrivacyEngine``
with dpkit's accountant and calibration behind it (``make_private`` and
``make_private_with_epsilon`` as Opacus's), and :func:`opacus_accountant` returns an instance
of a real subclass of ``opacus.accountants.accountant.IAccountant`` (for
``privacy_engine.accountant = ...`` and ``isinstance`` checks). Opacus's calls — the step
hook from ``get_optimizer_hook_fn(sample_rate=)``, ``get_epsilon(delta)``, the checkpoint's
``state_dict`` — work as Opacus makes them (python/tests/test_opacus_engine.py)::

    from dpkit.opacus import PLDAccountant, get_noise_multiplier
    sigma = get_noise_multiplier(target_epsilon=3, target_delta=1e-5, sample_rate=256/60000,
                                 epochs=10)
    acct = PLDAccountant()
    for _ in range(steps):
        acct.step(noise_multiplier=sigma, sample_rate=256/60000)
    eps = acct.get_epsilon(delta=1e-5)            # certified upper bound
    lo, hi = acct.get_epsilon_bounds(delta=1e-5)  # certified bracket

Sampling is Poisson (Opacus's ``DPDataLoader``); the neighbouring relation is add/remove one
example, and the worse direction is reported.
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import _core
from ._incremental import Accountant
from ._results import PrivacyResult

__all__ = ["PLDAccountant", "get_noise_multiplier", "opacus_accountant", "privacy_engine",
           "MECHANISM"]

MECHANISM = "dpkit-pld"


class _AccountantMixin:
    """The accountant's behaviour, shared by the standalone class and the Opacus subclass."""

    history: List[Tuple[float, float, int]]

    def _init(self, accountant: str = "pld", relative_accuracy: Optional[float] = None) -> None:
        self.history = []
        self._accountant = _core._accountant(accountant)
        self._relative_accuracy = relative_accuracy
        self._growing = None  # (σ, q, dpkit.Accountant) while the history is one PLD phase

    def __getstate__(self) -> Dict[str, Any]:
        # Pickling and deepcopy keep the history; the grid cache is rebuilt on the next query.
        state = self.__dict__.copy()
        state["_growing"] = None
        return state

    # --- Opacus's IAccountant interface -----------------------------------------------------
    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """Record one optimisation step with noise multiplier σ and Poisson sampling rate q.

        Consecutive steps with the same (σ, q) are merged into one history entry
        ``(σ, q, num_steps)``, as Opacus's RDP accountant does.
        """
        _core._check_phase(noise_multiplier, sample_rate, 1, "poisson")
        sigma, q = float(noise_multiplier), float(sample_rate)
        if self.history and self.history[-1][0] == sigma and self.history[-1][1] == q:
            s, r, n = self.history[-1]
            self.history[-1] = (s, r, n + 1)
        else:
            self.history.append((sigma, q, 1))

    def get_privacy(self, delta: float) -> PrivacyResult:
        """The full labelled result (bracket, method, termination) at δ."""
        if not self.history:
            raise ValueError("the accountant has no steps yet (call step() first)")
        if self._accountant == "pld" and len(self.history) == 1:
            # One (σ, q) throughout, as most training loops: a dpkit.Accountant grows with the
            # history and reuses its grid between queries (docs/accounting.md, "Accounting a
            # training loop"); the bracket is the one dpkit.epsilon gives.
            sigma, q, n = self.history[0]
            g = getattr(self, "_growing", None)
            if g is None or g[0] != sigma or g[1] != q or g[2].steps > n:
                g = (sigma, q, Accountant(sigma, q, relative_accuracy=self._relative_accuracy))
                self._growing = g
            g[2].step(n - g[2].steps)
            return g[2].epsilon(delta)
        phases = [_core.Phase(s, q, n, "poisson") for s, q, n in self.history]
        return _core.epsilon(delta, phases=phases, accountant=self._accountant,
                             relative_accuracy=self._relative_accuracy)

    def get_epsilon(self, delta: float, *args: Any, **kwargs: Any) -> float:
        """The certified upper bound on ε at δ for the steps taken so far (0 before any step).

        Raises ValueError when no certified value could be computed (the message says why).
        Extra arguments (Opacus's ``eps_error``, ``alphas``, ...; ``IAccountant.get_epsilon``
        takes ``delta, *args, **kwargs``) are accepted and ignored: the PLD accountant's
        accuracy is set by ``relative_accuracy`` at construction.
        """
        if not self.history:
            _core._delta_arg(delta)
            return 0.0
        return float(self.get_privacy(delta))

    def get_epsilon_bounds(self, delta: float) -> Tuple[float, float]:
        """``(lower, upper)``: certified bounds on the exact ε of the steps taken so far."""
        if not self.history:
            _core._delta_arg(delta)
            return (0.0, 0.0)
        r = self.get_privacy(delta)
        float(r)  # raises when nothing is certified
        return (r.lower, r.upper)

    def __len__(self) -> int:
        """The number of steps taken."""
        return sum(n for _, _, n in self.history)

    @classmethod
    def mechanism(cls) -> str:
        return MECHANISM

    def state_dict(self, destination: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        """``{"history": [...], "mechanism": "dpkit-pld"}`` (into ``destination`` if given)."""
        if destination is None:
            destination = OrderedDict()
        destination["history"] = copy.deepcopy(self.history)
        destination["mechanism"] = self.__class__.mechanism()
        return destination

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restore the history saved by :meth:`state_dict` (checked entry by entry)."""
        if state_dict is None or "history" not in state_dict:
            raise ValueError("state_dict: must hold a 'history' entry (from state_dict())")
        mech = state_dict.get("mechanism", MECHANISM)
        if mech != MECHANISM:
            raise ValueError(f"state_dict: mechanism is {mech!r}, but this accountant is "
                             f"{MECHANISM!r}")
        history = []
        for i, entry in enumerate(state_dict["history"]):
            try:
                s, q, n = entry
            except (TypeError, ValueError):
                raise ValueError(f"state_dict: history[{i}] is {entry!r}, but must be "
                                 f"(noise_multiplier, sample_rate, num_steps)") from None
            _core._check_phase(s, q, n, "poisson")
            history.append((float(s), float(q), int(n)))
        self.history = history

    def get_optimizer_hook_fn(self, sample_rate: float,
                              noise_multiplier: Optional[float] = None) -> Callable[[Any], None]:
        """A hook for Opacus's ``DPOptimizer.attach_step_hook``, called as Opacus's
        ``PrivacyEngine.make_private`` calls it: ``get_optimizer_hook_fn(sample_rate=q)``.

        Each optimiser step records one step with the optimiser's ``noise_multiplier`` (read at
        every step, so noise schedulers are followed) at the sampling rate q times the
        optimiser's ``accumulated_iterations`` (gradient accumulation), as Opacus's own hook
        does. ``noise_multiplier`` here is used only by an optimiser that has none.
        """
        q = _core._real("sample_rate", sample_rate, lambda v: 0 < v <= 1, "a number in (0, 1]")

        def hook_fn(optim: Any) -> None:
            sigma = getattr(optim, "noise_multiplier", noise_multiplier)
            if sigma is None:
                raise ValueError("the optimizer has no noise_multiplier (an Opacus DPOptimizer "
                                 "has one; or pass noise_multiplier= to get_optimizer_hook_fn)")
            accumulated = getattr(optim, "accumulated_iterations", 1)
            self.step(noise_multiplier=sigma, sample_rate=q * accumulated)

        return hook_fn


class PLDAccountant(_AccountantMixin):
    """Opacus-shaped accountant with dpkit's certified PLD accountant behind it.

    Args:
        accountant: ``"pld"`` (certified bracket, default) or ``"rdp"`` (Rényi DP bound).
        relative_accuracy: PLD only, target (upper − lower)/upper (default 1e-3).
    """

    def __init__(self, accountant: str = "pld", relative_accuracy: Optional[float] = None):
        self._init(_core._accountant(accountant, ("pld", "rdp")), relative_accuracy)

    def __repr__(self) -> str:
        return f"dpkit.opacus.PLDAccountant(steps={len(self)}, phases={len(self.history)})"


def get_noise_multiplier(*,
                         target_epsilon: float,
                         target_delta: float,
                         sample_rate: float,
                         epochs: Optional[float] = None,
                         steps: Optional[int] = None,
                         accountant: str = "pld",
                         epsilon_tolerance: float = 0.01,
                         **kwargs: Any) -> float:
    """The smallest noise multiplier for which ``steps`` Poisson-sampled steps (or ``epochs``
    epochs, ⌈epochs / sample_rate⌉ steps) are (target_epsilon, target_delta)-DP, with Opacus's
    keyword names. The budget holds at the value returned (certified with ``accountant="pld"``).

    ``epsilon_tolerance`` bounds how far below the target the certified ε may end up (and
    never more than 0.02 % of the target: ``calibrate_noise``'s ``budget_tolerance``). Other
    keyword arguments of Opacus's function are accepted and ignored; ``accountant`` may also
    be this module's ``MECHANISM`` (what Opacus passes: the accountant's ``mechanism()``).
    """
    if (epochs is None) == (steps is None):
        raise ValueError("get_noise_multiplier takes either epochs or steps")
    t = _core._real("target_epsilon", target_epsilon, lambda v: v > 0, "a finite number > 0")
    tol = _core._real("epsilon_tolerance", epsilon_tolerance, lambda v: v > 0,
                      "a finite number > 0")
    budget = max(1e-12, min(2e-4, tol / t))
    if accountant == MECHANISM:  # as Opacus passes it: accountant=self.accountant.mechanism()
        accountant = "pld"
    c = _core.calibrate_noise(t, target_delta, sample_rate=sample_rate, steps=steps,
                              epochs=epochs,
                              accountant=_core._accountant(accountant, ("pld", "rdp")),
                              budget_tolerance=budget)
    return float(c)


_opacus_class: Optional[type] = None


def opacus_accountant(accountant: str = "pld", relative_accuracy: Optional[float] = None) -> Any:
    """An instance of a real ``opacus.accountants.accountant.IAccountant`` subclass backed by
    dpkit (needs Opacus installed; ImportError naming the missing package otherwise)."""
    global _opacus_class
    if _opacus_class is None:
        try:
            from opacus.accountants.accountant import IAccountant  # type: ignore
        except ImportError as e:
            raise ImportError("dpkit.opacus.opacus_accountant needs the opacus package; "
                              "dpkit.opacus.PLDAccountant has the same interface without it"
                              ) from e

        class DpkitOpacusAccountant(_AccountantMixin, IAccountant):  # type: ignore[misc, valid-type]
            """Opacus IAccountant backed by dpkit's certified PLD accountant."""

            def __init__(self, accountant: str = "pld",
                         relative_accuracy: Optional[float] = None) -> None:
                self._init(_core._accountant(accountant, ("pld", "rdp")), relative_accuracy)

            # The mixin comes first in the MRO, so its methods implement Opacus's abstract
            # ones (ABCMeta sees concrete step, get_epsilon, __len__, mechanism).

        _opacus_class = DpkitOpacusAccountant
    return _opacus_class(accountant, relative_accuracy)


_engine_class: Optional[type] = None


def privacy_engine(*, accountant: str = "pld", relative_accuracy: Optional[float] = None,
                   secure_mode: bool = False) -> Any:
    """An Opacus ``PrivacyEngine`` (an instance of a subclass) that accounts with dpkit.

    ``make_private`` is Opacus's own; its step hook records into :func:`opacus_accountant`'s
    accountant, so ``engine.get_epsilon(delta)`` is dpkit's certified upper bound.
    ``make_private_with_epsilon`` calibrates σ with :func:`get_noise_multiplier` (certified)
    instead of Opacus's (whose ``create_accountant`` knows no ``"dpkit-pld"``), at Opacus's
    sampling rate ``1 / len(data_loader)``, then calls ``make_private``. Needs Opacus
    installed (ImportError naming it otherwise).
    """
    global _engine_class
    if _engine_class is None:
        try:
            from opacus import PrivacyEngine  # type: ignore
        except ImportError as e:
            raise ImportError("dpkit.opacus.privacy_engine needs the opacus package; "
                              "dpkit.opacus.PLDAccountant has the accountant's interface "
                              "without it") from e

        class DpkitPrivacyEngine(PrivacyEngine):  # type: ignore[misc, valid-type]
            """Opacus's PrivacyEngine with dpkit's certified accountant and calibration."""

            def __init__(self, *, accountant: str = "pld",
                         relative_accuracy: Optional[float] = None,
                         secure_mode: bool = False) -> None:
                super().__init__(accountant="rdp", secure_mode=secure_mode)
                self.accountant = opacus_accountant(accountant, relative_accuracy)

            def make_private_with_epsilon(self, *, data_loader: Any, target_epsilon: float,
                                          target_delta: float, epochs: float,
                                          **kwargs: Any) -> Any:
                if len(self.accountant) > 0:
                    import warnings
                    warnings.warn("make_private_with_epsilon with privacy budget already spent: "
                                  "the noise multiplier assumes none was, so the run's ε will "
                                  "be higher than target_epsilon")
                sigma = get_noise_multiplier(
                    target_epsilon=target_epsilon, target_delta=target_delta,
                    sample_rate=1 / len(data_loader), epochs=epochs,
                    accountant=self.accountant._accountant,
                    epsilon_tolerance=kwargs.pop("epsilon_tolerance", 0.01))
                return self.make_private(data_loader=data_loader, noise_multiplier=sigma,
                                         **kwargs)

        _engine_class = DpkitPrivacyEngine
    return _engine_class(accountant=accountant, relative_accuracy=relative_accuracy,
                         secure_mode=secure_mode)
