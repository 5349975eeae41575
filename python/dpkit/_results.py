"""Result objects of the accounting API: a value together with what it certifies.

Every privacy number carries a ``kind``:

``upper-bound``
    The true quantity is at most ``upper`` (for ε: the run is (ε, δ)-DP with ε = ``upper``).
``lower-bound``
    The true quantity is at least ``lower``.
``estimate``
    A statistical estimate with its own confidence statement.
``approximation``
    No guarantee in either direction (e.g. the Gaussian CLT).

The PLD accountant returns a certified *bracket*: ``lower ≤ true value ≤ upper``, kind
``upper-bound`` (``value == upper``). ``termination`` says how the computation ended
(``converged``, ``max_iterations``: the bracket is valid but wider than asked, ``failure``: no
value); ``message`` says why when it is not ``converged``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ._record import Record

if TYPE_CHECKING:  # annotations only: importing numpy and typing costs most of `import dpkit`
    from typing import Any, Dict, Optional

    import numpy as np

__all__ = [
    "PrivacyResult",
    "NoiseCalibration",
    "StepsCalibration",
    "EpsilonCurve",
    "DeltaCurve",
    "TradeoffCurve",
    "NoCertifiedValueError",
]


class NoCertifiedValueError(ValueError):
    """Raised by ``float(result)`` when the result certifies no upper value (an approximation,
    or a failed computation)."""


def _fmt(x: float) -> str:
    return "nan" if x != x else f"{x:.10g}"


class PrivacyResult(Record):
    """One accountant's answer: ε at a given δ (``quantity == "epsilon"``) or δ at a given ε.

    Attributes:
        quantity: ``"epsilon"`` or ``"delta"``.
        value: the reported number: the certified upper bound for bounds, the approximation
            for ``kind == "approximation"``. NaN when the computation failed.
        lower: a certified lower bound on the exact value where one exists (PLD), else NaN.
        upper: a certified upper bound (== value for bounds), NaN for approximations.
        kind: ``upper-bound``, ``lower-bound``, ``estimate`` or ``approximation``.
        accountant: ``pld``, ``rdp`` or ``clt``.
        method: how it was computed (grid, FFT size, RDP order and conversion, ...).
        tight: the value is exact for this mechanism (runs of Gaussian mechanisms).
        termination: ``converged``, ``max_iterations`` or ``failure``.
        message: why the computation did not converge (empty when it did).
        at: the δ (for ε) or ε (for δ) the question was asked at.
        log_value: log δ for δ queries (finite where δ underflows), else NaN.
        details: accountant diagnostics (PLD: grid_spacing, fft_size, passes; evaluations).
        edge_value: an edge value's exact answer (noise multiplier 0, or nothing released):
            ``value`` may be ``inf`` and is still the answer (docs/accounting.md, "Edge values").

    ``float(result)`` is the certified upper value; it raises :class:`NoCertifiedValueError`
    for approximations and failures instead of returning a number that certifies nothing.
    """

    __slots__ = _fields = ("quantity", "value", "lower", "upper", "kind", "accountant", "method",
                           "tight", "termination", "message", "at", "log_value", "details",
                           "edge_value")
    _defaults = {"log_value": math.nan, "details": dict, "edge_value": False}
    _no_compare = ("details",)
    quantity: str
    value: float
    lower: float
    upper: float
    kind: str
    accountant: str
    method: str
    tight: bool
    termination: str
    message: str
    at: float
    log_value: float
    details: Dict[str, Any]
    edge_value: bool

    @classmethod
    def _from_estimate(cls, e: Any, quantity: str, at: float) -> "PrivacyResult":
        """The result of one accountant's answer (a _dpkit.PrivacyEstimate)."""
        pld = e.pld
        details = (dict(pld, evaluations=e.evaluations) if pld is not None else {})
        return cls._make((quantity, e.value, e.lower, e.upper, e.kind, e.accountant,
                          e.method, e.tight, e.termination, e.message, at, e.log_value,
                          details, e.edge_value))

    @property
    def converged(self) -> bool:
        """True when the requested accuracy was met."""
        return self.termination == "converged"

    @property
    def certified(self) -> bool:
        """True when ``upper`` is a certified upper bound: finite, or the edge value inf
        (noise multiplier 0: no finite ε holds, exactly)."""
        return self.kind == "upper-bound" and (math.isfinite(self.upper) or self.edge_value)

    def __float__(self) -> float:
        if self.certified:
            return float(self.upper)
        if self.kind == "approximation":
            raise NoCertifiedValueError(
                f"the {self.accountant} {self.quantity} is an approximation with no guarantee "
                f"in either direction; read .value for it, or use accountant='pld' for a "
                f"certified bound")
        raise NoCertifiedValueError(
            f"no certified {self.quantity}: {self.message or 'the computation failed'}")

    def __str__(self) -> str:
        sym = "ε" if self.quantity == "epsilon" else "δ"
        at = ("δ" if self.quantity == "epsilon" else "ε") + f" = {self.at:g}"
        if self.kind == "upper-bound" and self.tight and self.lower == self.upper:
            body = f"{sym} = {_fmt(self.upper)} (exact)"
        elif self.kind == "upper-bound" and math.isfinite(self.lower):
            body = f"{sym} ≤ {_fmt(self.upper)} (certified bracket [{_fmt(self.lower)}, {_fmt(self.upper)}])"
        elif self.kind == "upper-bound":
            body = f"{sym} ≤ {_fmt(self.upper)} (upper bound)"
        else:
            body = f"{sym} ≈ {_fmt(self.value)} ({self.kind})"
        s = f"{body} at {at}, {self.accountant}: {self.method}"
        if self.termination != "converged":
            s += f" [{self.termination}: {self.message}]"
        return s


class NoiseCalibration(Record):
    """The smallest noise multiplier meeting a budget (``float(c)`` is it).

    Attributes:
        noise_multiplier: the budget holds here (certified for PLD): the safe end of the search.
        noise_multiplier_lower: the largest σ tried below it where the accountant did not
            certify the budget (NaN when none was tried below).
        epsilon: the accountant's answer at ``noise_multiplier`` (≤ the target).
        termination, message: how the search ended.
    """

    __slots__ = _fields = ("noise_multiplier", "noise_multiplier_lower", "epsilon", "termination",
                           "message")
    noise_multiplier: float
    noise_multiplier_lower: float
    epsilon: PrivacyResult
    termination: str
    message: str

    def __float__(self) -> float:
        if not math.isfinite(self.noise_multiplier):
            raise NoCertifiedValueError(f"no noise multiplier found: {self.message}")
        return float(self.noise_multiplier)

    def __str__(self) -> str:
        below = ("" if not math.isfinite(self.noise_multiplier_lower) else
                 f" (not certified at {_fmt(self.noise_multiplier_lower)})")
        return f"noise_multiplier = {_fmt(self.noise_multiplier)}{below}; {self.epsilon}"


class StepsCalibration(Record):
    """The largest number of steps within a budget (``int(c)`` is it; 0: not even one step).

    Attributes:
        steps: the largest number of steps of the last phase whose certified ε is within the
            target.
        epochs: ``steps`` in epochs when the run was given with dataset_size and batch_size
            (``steps · batch_size / dataset_size``), else NaN.
        epsilon: the accountant's answer at ``steps`` (None when steps == 0).
    """

    __slots__ = _fields = ("steps", "epochs", "epsilon", "termination", "message")
    steps: int
    epochs: float
    epsilon: Optional[PrivacyResult]
    termination: str
    message: str

    def __int__(self) -> int:
        return int(self.steps)


class EpsilonCurve(Record):
    """ε against the number of steps, as numpy arrays of equal length.

    ``upper`` holds certified upper bounds (NaN for approximations), ``lower`` certified lower
    bounds where the accountant gives them (PLD), ``value`` what each point reports; ``kind``
    and ``termination`` are per point.
    """

    __slots__ = _fields = ("steps", "value", "lower", "upper", "kind", "termination", "delta",
                           "accountant", "message")
    _no_compare = ("steps", "value", "lower", "upper")
    steps: np.ndarray
    value: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    kind: tuple
    termination: tuple
    delta: float
    accountant: str
    message: str


class DeltaCurve(Record):
    """Certified bounds on the privacy profile δ(ε) at each ε (PLD, one composition):
    ``lower[i] ≤ δ(epsilon[i]) ≤ upper[i]``; ``tight`` when exact (Gaussian runs)."""

    __slots__ = _fields = ("epsilon", "lower", "upper", "tight", "termination", "message")
    _no_compare = ("epsilon", "lower", "upper")
    epsilon: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    tight: bool
    termination: str
    message: str


class TradeoffCurve(Record):
    """The run's tradeoff curve (f-DP) at each α: ``lower[i] ≤ β(alpha[i]) ≤ upper[i]``.

    ``lower`` is the f-DP guarantee (every test at type I error α has type II error at least
    this); ``upper`` says no guarantee better than it holds. ``exact``: closed form.
    ``power_upper[i] ≥`` the true-positive rate of every test at false-positive rate
    ``alpha[i]`` ``≥ power_lower[i]`` for the best one: 1 − lower and 1 − upper, formed without
    cancellation (1 − lower in floating point is 0 wherever lower rounds to 1).
    """

    __slots__ = _fields = ("alpha", "lower", "upper", "power_upper", "power_lower", "exact",
                           "method", "termination", "message")
    _no_compare = ("alpha", "lower", "upper", "power_upper", "power_lower")
    alpha: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    power_upper: np.ndarray
    power_lower: np.ndarray
    exact: bool
    method: str
    termination: str
    message: str


class GdpMu(Record):
    """The Gaussian-DP μ a run is closest to over false-positive rates [fpr_min, 1/2]:
    ``lower ≤ μ* ≤ upper``, μ* the smallest μ with the run's tradeoff curve above G(μ) there
    (both sides certified). ``exact``: a Gaussian run (μ* = μ). ``fpr_at_max``: where the lower
    bound is attained. ``float()`` is the upper bound.
    """

    __slots__ = _fields = ("lower", "upper", "fpr_min", "fpr_at_max", "exact", "method",
                           "termination", "message")
    lower: float
    upper: float
    fpr_min: float
    fpr_at_max: float
    exact: bool
    method: str
    termination: str
    message: str

    def __float__(self) -> float:
        return float(self.upper)

    def __str__(self) -> str:
        if self.exact:
            return f"μ = {self.upper:.10g} (exact: a Gaussian run)"
        return (f"μ ∈ [{self.lower:.10g}, {self.upper:.10g}] (certified; the smallest μ-GDP "
                f"curve below the run's at false-positive rates in [{self.fpr_min:g}, 0.5])")
