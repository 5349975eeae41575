"""A layer in the shape of Google's ``dp_accounting``, backed by dpkit's accountants.

Code written against ``dp_accounting`` builds a ``DpEvent`` describing the training run and asks
an accountant for ε or δ::

    from dpkit import dp_accounting as dpa
    event = dpa.SelfComposedDpEvent(
        dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0)), 10_000)
    acct = dpa.PLDAccountant()
    acct.compose(event)
    acct.get_epsilon(1e-5)            # certified upper bound (6.1878...)
    acct.get_epsilon_bounds(1e-5)     # certified bracket (lower, upper)

The package ``dp_accounting`` need not be installed: the event classes here have the same names
and fields (``GaussianDpEvent(noise_multiplier)``, ``PoissonSampledDpEvent(
sampling_probability, event)``, ``SampledWithoutReplacementDpEvent(source_dataset_size,
sample_size, event)``, ``SelfComposedDpEvent(event, count)``, ``ComposedDpEvent(events)``,
``NoOpDpEvent()``, ``NonPrivateDpEvent()``, ``UnsupportedDpEvent()``). Events of a real
``dp_accounting`` installation are accepted too (converted by class name and fields).

Conventions, as in dp_accounting: ``noise_multiplier`` is the noise standard deviation divided
by the query's l2-sensitivity *under the accountant's neighbouring relation*. DP-SGD with
clipping norm C has sensitivity C for add/remove-one neighbours and 2C for replace-one.

Supported events (anything else raises :class:`UnsupportedEventError` from ``compose``, and
``supports`` returns False):

==============================================  ====================  ===================
event                                           ADD_OR_REMOVE_ONE     REPLACE_ONE
==============================================  ====================  ===================
GaussianDpEvent                                 yes                   yes
PoissonSampledDpEvent(q, GaussianDpEvent)       yes                   no (as dp_accounting)
SampledWithoutReplacementDpEvent(n, m, Gauss.)  no                    yes
Self-/ComposedDpEvent of the above, NoOp,       yes                   yes
NonPrivate (ε = ∞, δ = 1)
==============================================  ====================  ===================

dp_accounting's own PLD accountant does not support sampling without replacement; dpkit's
does (certified, replace-one). ``get_epsilon`` returns the certified upper bound; the PLD
accountant also gives the certified bracket (:meth:`PLDAccountant.get_epsilon_bounds`).
"""

from __future__ import annotations

import enum
import math
import sys
import types
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core, _dpkit
from ._results import PrivacyResult

__all__ = [
    "DpEvent", "NoOpDpEvent", "NonPrivateDpEvent", "UnsupportedDpEvent", "GaussianDpEvent",
    "LaplaceDpEvent", "PoissonSampledDpEvent", "SampledWithoutReplacementDpEvent",
    "SelfComposedDpEvent", "ComposedDpEvent", "NeighboringRelation", "PrivacyAccountant",
    "PLDAccountant", "RdpAccountant", "UnsupportedEventError", "calibrate_dp_mechanism",
    "ExplicitBracketInterval", "LowerEndpointAndGuess", "NoBracketIntervalFoundError",
    "NonEmptyAccountantError",
]


# --- events ---------------------------------------------------------------------------------
class DpEvent:
    """Base class of the events: a description of a differentially private computation."""


@dataclass(frozen=True)
class NoOpDpEvent(DpEvent):
    """A computation that touches no private data (costs nothing)."""


@dataclass(frozen=True)
class NonPrivateDpEvent(DpEvent):
    """A computation without privacy guarantee (ε = ∞, δ = 1)."""


@dataclass(frozen=True)
class UnsupportedDpEvent(DpEvent):
    """A computation no accountant supports."""


@dataclass(frozen=True)
class GaussianDpEvent(DpEvent):
    """The Gaussian mechanism with noise standard deviation ``noise_multiplier`` × sensitivity."""

    noise_multiplier: float


@dataclass(frozen=True)
class LaplaceDpEvent(DpEvent):
    """The Laplace mechanism (not supported by dpkit's accountants; listed for completeness)."""

    noise_multiplier: float


@dataclass(frozen=True)
class PoissonSampledDpEvent(DpEvent):
    """``event`` applied to a Poisson sample: each record joins with ``sampling_probability``."""

    sampling_probability: float
    event: DpEvent


@dataclass(frozen=True)
class SampledWithoutReplacementDpEvent(DpEvent):
    """``event`` applied to ``sample_size`` records drawn without replacement from
    ``source_dataset_size`` (a fixed-size batch)."""

    source_dataset_size: int
    sample_size: int
    event: DpEvent


@dataclass(frozen=True)
class SelfComposedDpEvent(DpEvent):
    """``event`` repeated ``count`` times."""

    event: DpEvent
    count: int


@dataclass(frozen=True)
class ComposedDpEvent(DpEvent):
    """The events one after another."""

    events: List[DpEvent] = field(default_factory=list)


class NeighboringRelation(enum.Enum):
    """Which datasets are neighbours: one record added or removed, or one replaced."""

    ADD_OR_REMOVE_ONE = 1
    REPLACE_ONE = 2
    REPLACE_SPECIAL = 3


class UnsupportedEventError(Exception):
    """``compose`` was given an event this accountant cannot account for."""


# --- events → dpkit phases -----------------------------------------------------------------
_NON_PRIVATE = object()


def _kind(event: Any) -> str:
    return type(event).__name__


def _finite_number(x: Any) -> bool:
    """A finite int or float (not a bool, which Python counts as an int)."""
    return (not isinstance(x, bool) and isinstance(x, (int, float, np.integer, np.floating))
            and math.isfinite(x))


def _phases(event: Any, count: int, relation: NeighboringRelation, out: list) -> Optional[str]:
    """Appends the event's phases (σ, q, scheme, steps) to ``out``, or returns why it is not
    supported. A non-private event appends _NON_PRIVATE."""
    k = _kind(event)
    if count > _dpkit.MAX_STEPS and k in ("GaussianDpEvent", "PoissonSampledDpEvent",
                                          "SampledWithoutReplacementDpEvent"):
        # A mechanism's steps (an event that releases nothing may be composed any number of
        # times).
        return (f"the composed count is {count}, but must be at most {_dpkit.MAX_STEPS} "
                "(2^53: the accountants count steps exactly in doubles)")
    if k == "NoOpDpEvent":
        return None
    if k == "NonPrivateDpEvent":
        out.append(_NON_PRIVATE)
        return None
    if k == "SelfComposedDpEvent":
        c = event.count
        if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or c < 0:
            return f"SelfComposedDpEvent.count is {c!r}, but must be an integer >= 0"
        if c == 0:
            return None
        return _phases(event.event, count * int(c), relation, out)
    if k == "ComposedDpEvent":
        for e in event.events:
            why = _phases(e, count, relation, out)
            if why is not None:
                return why
        return None
    if relation == NeighboringRelation.REPLACE_SPECIAL:
        return "neighboring_relation REPLACE_SPECIAL is not supported by dpkit's accountants"
    if k == "GaussianDpEvent":
        s = event.noise_multiplier
        if not _finite_number(s) or s < 0:
            return f"GaussianDpEvent.noise_multiplier is {s!r}, but must be a finite number >= 0"
        if s == 0:
            out.append(_NON_PRIVATE)
            return None
        # G(1/σ) under either relation: σ is relative to the relation's sensitivity.
        out.append((float(s), 1.0, "poisson", count))
        return None
    if k == "PoissonSampledDpEvent":
        if relation != NeighboringRelation.ADD_OR_REMOVE_ONE:
            return ("neighboring_relation must be ADD_OR_REMOVE_ONE for PoissonSampledDpEvent, "
                    f"found {relation.name}")
        inner = event.event
        if _kind(inner) != "GaussianDpEvent":
            return f"the subevent of PoissonSampledDpEvent must be GaussianDpEvent, found {inner}"
        q = event.sampling_probability
        if not (_finite_number(q) and (q == 0 or _core._SMALLEST_RATE <= q <= 1)):
            return (f"PoissonSampledDpEvent.sampling_probability is {q!r}, but must be 0 or in "
                    f"{_core._RATE_RANGE} (the smallest normal double: a subnormal "
                    "probability loses its precision)")
        if q == 0:
            return None
        s = inner.noise_multiplier
        if not _finite_number(s) or s < 0:
            return f"GaussianDpEvent.noise_multiplier is {s!r}, but must be a finite number >= 0"
        if s == 0:
            out.append(_NON_PRIVATE)
            return None
        out.append((float(s), float(q), "poisson", count))
        return None
    if k == "SampledWithoutReplacementDpEvent":
        if relation != NeighboringRelation.REPLACE_ONE:
            return ("neighboring_relation must be REPLACE_ONE for "
                    f"SampledWithoutReplacementDpEvent, found {relation.name}")
        inner = event.event
        if _kind(inner) != "GaussianDpEvent":
            return ("the subevent of SampledWithoutReplacementDpEvent must be GaussianDpEvent, "
                    f"found {inner}")
        n, m = event.source_dataset_size, event.sample_size
        if not (isinstance(n, (int, np.integer)) and isinstance(m, (int, np.integer))
                and 0 <= m <= n and n >= 1):
            return (f"SampledWithoutReplacementDpEvent sizes are ({n!r}, {m!r}), but must be "
                    "integers with 0 <= sample_size <= source_dataset_size")
        if m == 0:
            return None
        s = inner.noise_multiplier
        if not _finite_number(s) or s < 0:
            return f"GaussianDpEvent.noise_multiplier is {s!r}, but must be a finite number >= 0"
        if s == 0:
            out.append(_NON_PRIVATE)
            return None
        # dpkit's without-replacement phase is C_q(G(2/σ')) with σ' relative to the clipping
        # norm (replace-one sensitivity 2C); dp_accounting's σ is relative to the sensitivity
        # itself, so σ' = 2σ gives the same mechanism C_q(G(1/σ)).
        out.append((2.0 * float(s), float(Fraction(int(m), int(n))), "without-replacement",
                    count))
        return None
    return f"unsupported event {event!r}"


# --- accountants ----------------------------------------------------------------------------
class PrivacyAccountant:
    """Base class: composes events and answers ε at δ or δ at ε."""

    _supported_accountant = "pld"

    def __init__(self, neighboring_relation: NeighboringRelation
                 = NeighboringRelation.ADD_OR_REMOVE_ONE) -> None:
        if not isinstance(neighboring_relation, NeighboringRelation):
            name = getattr(neighboring_relation, "name", None)
            if name in NeighboringRelation.__members__:
                neighboring_relation = NeighboringRelation[name]
            else:
                raise ValueError(f"neighboring_relation is {neighboring_relation!r}, but must be "
                                 "a dpkit.dp_accounting.NeighboringRelation")
        self._relation = neighboring_relation
        self._events: List[Any] = []
        self._phases: List[Tuple[float, float, str, int]] = []
        self._non_private = False

    @property
    def neighboring_relation(self) -> NeighboringRelation:
        return self._relation

    @property
    def ledger(self) -> ComposedDpEvent:
        """Everything composed so far."""
        return ComposedDpEvent(list(self._events))

    def supports(self, event: Any) -> bool:
        """True when ``compose(event)`` would succeed."""
        return _phases(event, 1, self._relation, []) is None

    def compose(self, event: Any, count: int = 1) -> "PrivacyAccountant":
        """Adds ``event`` (``count`` times) to the composition; returns self.

        Raises UnsupportedEventError for events this accountant does not support."""
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
            raise ValueError(f"count is {count!r}, but must be an integer >= 1")
        out: list = []
        why = _phases(event, int(count), self._relation, out)
        if why is not None:
            raise UnsupportedEventError(f"Unsupported event: {event}. Error: {why}")
        for p in out:
            if p is _NON_PRIVATE:
                self._non_private = True
            else:
                self._phases.append(p)
        self._events.append(event if count == 1 else SelfComposedDpEvent(event, int(count)))
        return self

    def _run(self) -> List[_core.Phase]:
        """The composed events as dpkit phases (σ, q, steps, sampling)."""
        return [_core.Phase(p[0], p[1], p[3], p[2]) for p in self._phases]

    def _result(self, quantity: str, at: float) -> Optional[PrivacyResult]:
        if self._non_private or not self._phases:
            return None
        phases = self._run()
        fn = _core.epsilon if quantity == "epsilon" else _core.delta
        return fn(at, phases=phases, accountant=self._supported_accountant)

    def get_epsilon(self, target_delta: float) -> float:
        """The certified upper bound on ε at ``target_delta`` (∞ with a non-private event,
        0 for an empty composition)."""
        d = _core._delta_arg(target_delta, "target_delta")
        if self._non_private:
            return math.inf
        r = self._result("epsilon", d)
        return 0.0 if r is None else float(r)

    def get_delta(self, target_epsilon: float) -> float:
        """The certified upper bound on δ at ``target_epsilon`` (1 with a non-private event,
        0 for an empty composition)."""
        e = _core._epsilon_arg(target_epsilon, "target_epsilon")
        if self._non_private:
            return 1.0
        r = self._result("delta", e)
        return 0.0 if r is None else float(r)

    def get_privacy(self, target_delta: float) -> Optional[PrivacyResult]:
        """The labelled result at ``target_delta`` (None for an empty or non-private
        composition)."""
        d = _core._delta_arg(target_delta, "target_delta")
        return None if self._non_private else self._result("epsilon", d)


class PLDAccountant(PrivacyAccountant):
    """dp_accounting's ``PLDAccountant`` interface over dpkit's certified PLD accountant.

    ``value_discretization_interval`` is accepted for compatibility and ignored: dpkit chooses
    the grid itself until the certified bracket is ``relative_accuracy`` wide (default 1e-3).
    """

    _supported_accountant = "pld"

    def __init__(self, neighboring_relation: NeighboringRelation
                 = NeighboringRelation.ADD_OR_REMOVE_ONE,
                 value_discretization_interval: Optional[float] = None) -> None:
        if value_discretization_interval is not None:
            # Ignored, but checked: a value dp_accounting refuses is a mistake to say.
            _core._real("value_discretization_interval", value_discretization_interval,
                        lambda v: v > 0, "a finite number > 0 (or None)")
        super().__init__(neighboring_relation)

    def get_epsilon_bounds(self, target_delta: float) -> Tuple[float, float]:
        """``(lower, upper)``: certified bounds on the exact ε at ``target_delta``."""
        d = _core._delta_arg(target_delta, "target_delta")
        if self._non_private:
            return (math.inf, math.inf)
        r = self._result("epsilon", d)
        if r is None:
            return (0.0, 0.0)
        float(r)
        lo = r.lower if math.isfinite(r.lower) else r.upper if r.tight else 0.0
        return (lo, r.upper)


class RdpAccountant(PrivacyAccountant):
    """dp_accounting's ``RdpAccountant`` interface over dpkit's Rényi-DP accountant.

    Without ``orders`` dpkit optimises the order continuously (and takes the best of four
    RDP-to-(ε, δ) conversions); with ``orders``, only those orders are used (as dp_accounting
    does), still with the best conversion at each.
    """

    _supported_accountant = "rdp"

    def __init__(self, orders: Optional[Sequence[float]] = None,
                 neighboring_relation: NeighboringRelation
                 = NeighboringRelation.ADD_OR_REMOVE_ONE) -> None:
        super().__init__(neighboring_relation)
        if orders is not None:
            o = _core._reals("orders", orders, lambda x: 1 < x <= 1e6, "a number in (1, 1e6]")
            self._orders: Optional[np.ndarray] = o
        else:
            self._orders = None

    def get_epsilon_and_optimal_order(self, target_delta: float) -> Tuple[float, float]:
        """``(ε, α)``: the RDP bound on ε at ``target_delta`` and the order that gives it."""
        d = _core._delta_arg(target_delta, "target_delta")
        if self._non_private:
            return (math.inf, math.nan)
        if not self._phases:
            return (0.0, math.nan)
        if self._orders is not None:
            rdp = _core._call(_dpkit.rdp, [p._native() for p in self._run()], 0.0, self._orders)
            res = _core._call(_dpkit.rdp_epsilon_at_orders, self._orders, np.asarray(rdp), d)
            return (float(res["epsilon"]), float(res["alpha"]))
        res = _core._call(_dpkit.rdp_epsilon_run, [p._native() for p in self._run()], 0.0, d)
        return (float(res["epsilon"]), float(res["alpha"]))

    def get_epsilon(self, target_delta: float) -> float:
        if self._orders is None:
            return super().get_epsilon(target_delta)
        return self.get_epsilon_and_optimal_order(target_delta)[0]

    def get_delta(self, target_epsilon: float) -> float:
        if self._orders is None:
            return super().get_delta(target_epsilon)
        e = _core._epsilon_arg(target_epsilon, "target_epsilon")
        if self._non_private:
            return 1.0
        if not self._phases:
            return 0.0
        rdp = _core._call(_dpkit.rdp, [p._native() for p in self._run()], 0.0, self._orders)
        res = _core._call(_dpkit.rdp_delta_at_orders, self._orders, np.asarray(rdp), e)
        return float(res["delta"])


# --- calibration ----------------------------------------------------------------------------
class NoBracketIntervalFoundError(Exception):
    """No parameter value meeting the budget was found while searching for a bracket."""


class NonEmptyAccountantError(Exception):
    """``make_fresh_accountant`` returned an accountant that already holds events."""


@dataclass(frozen=True)
class ExplicitBracketInterval:
    """Search between ``endpoint_1`` and ``endpoint_2`` (the budget must hold at one end and
    fail at the other)."""

    endpoint_1: float
    endpoint_2: float


@dataclass(frozen=True)
class LowerEndpointAndGuess:
    """Search above ``lower_endpoint``, starting at ``initial_guess`` and doubling the distance
    until the budget changes sides."""

    lower_endpoint: float
    initial_guess: float


def calibrate_dp_mechanism(make_fresh_accountant: Callable[[], PrivacyAccountant],
                           make_event_from_param: Callable[[Any], Any],
                           target_epsilon: float,
                           target_delta: float,
                           bracket_interval: Optional[Union[ExplicitBracketInterval,
                                                            LowerEndpointAndGuess]] = None,
                           discrete: bool = False,
                           tol: Optional[float] = None) -> Union[float, int]:
    """The parameter value at which the event meets (target_epsilon, target_delta), searched by
    bisection, as dp_accounting's function of the same name. ε must be monotone in the
    parameter. The value returned is the end of the final bracket where the budget holds (the
    accountant's certified ε ≤ target there).

    ``discrete``: integer parameters (then ``tol`` is ignored and the search ends at adjacent
    integers). ``tol``: the width of the final bracket (default 1e-6 × the largest endpoint,
    at least 1e-12)."""
    t = _core._real("target_epsilon", target_epsilon, lambda v: v >= 0, "a finite number >= 0")
    d = _core._delta_arg(target_delta, "target_delta")

    def epsilon_at(x: Any) -> float:
        acct = make_fresh_accountant()
        if acct.ledger.events:
            raise NonEmptyAccountantError("make_fresh_accountant returned an accountant with "
                                          "events already composed")
        acct.compose(make_event_from_param(x))
        return acct.get_epsilon(d)

    def ok(x: Any) -> bool:
        return epsilon_at(x) <= t

    conv: Callable[[float], Any] = (lambda v: int(round(v))) if discrete else float

    if bracket_interval is None:
        bracket_interval = LowerEndpointAndGuess(0, 1)
    if isinstance(bracket_interval, ExplicitBracketInterval):
        a, b = conv(bracket_interval.endpoint_1), conv(bracket_interval.endpoint_2)
        oa, ob = ok(a), ok(b)
        if oa == ob:
            raise NoBracketIntervalFoundError(
                f"the budget {'holds' if oa else 'fails'} at both ends of the bracket "
                f"[{a}, {b}]")
    elif isinstance(bracket_interval, LowerEndpointAndGuess):
        lo = conv(bracket_interval.lower_endpoint)
        x = conv(bracket_interval.initial_guess)
        if not x > lo:
            raise ValueError("bracket_interval: initial_guess must be above lower_endpoint")
        olo, ox = ok(lo), ok(x)
        if olo != ox:
            a, b, oa = lo, x, olo
        else:
            for _ in range(64):
                nx = conv(lo + 2 * (x - lo))
                onx = ok(nx)
                if onx != ox:
                    a, b, oa = x, nx, ox
                    break
                x, ox = nx, onx
            else:
                raise NoBracketIntervalFoundError(
                    f"the budget {'holds' if ox else 'fails'} from {lo} up to {x}")
    else:
        raise ValueError("bracket_interval must be an ExplicitBracketInterval or a "
                         "LowerEndpointAndGuess")

    good, bad = (a, b) if oa else (b, a)
    if discrete:
        while abs(good - bad) > 1:
            mid = (good + bad) // 2
            if ok(mid):
                good = mid
            else:
                bad = mid
        return int(good)
    width = tol if tol is not None else max(1e-12, 1e-6 * max(abs(good), abs(bad)))
    while abs(good - bad) > width:
        mid = 0.5 * (good + bad)
        if ok(mid):
            good = mid
        else:
            bad = mid
    return float(good)


# --- dp_accounting's module paths -------------------------------------------------------------
# Code written for dp_accounting reaches the same names through its submodules
# (``dp_accounting.rdp.RdpAccountant``, ``from dp_accounting.pld import PLDAccountant``,
# ``dp_accounting.dp_event.GaussianDpEvent``, ...). Each is a module object here, registered in
# sys.modules so that both the attribute and the ``from ... import`` forms work, and holds the
# classes of this module (not copies).
def _submodule(name: str, *names: str) -> types.ModuleType:
    module = types.ModuleType(f"{__name__}.{name}",
                              f"dp_accounting.{name}'s names, as dpkit.dp_accounting has them.")
    for n in names:
        setattr(module, n, globals()[n])
    sys.modules[module.__name__] = module
    return module


dp_event = _submodule("dp_event", "DpEvent", "NoOpDpEvent", "NonPrivateDpEvent",
                      "UnsupportedDpEvent", "GaussianDpEvent", "LaplaceDpEvent",
                      "PoissonSampledDpEvent", "SampledWithoutReplacementDpEvent",
                      "SelfComposedDpEvent", "ComposedDpEvent")
privacy_accountant = _submodule("privacy_accountant", "NeighboringRelation", "PrivacyAccountant",
                                "UnsupportedEventError")
rdp = _submodule("rdp", "RdpAccountant")
pld = _submodule("pld", "PLDAccountant")
mechanism_calibration = _submodule("mechanism_calibration", "calibrate_dp_mechanism",
                                   "ExplicitBracketInterval", "LowerEndpointAndGuess",
                                   "NoBracketIntervalFoundError", "NonEmptyAccountantError")
