"""Matrix-factorization mechanisms — DP-MF, banded (BandMF), BLT, DP-λCGD — the Python face of
``dpkit epsilon --strategy``.

Convention (jax_privacy's encoder convention): over T steps the mechanism releases C·G + σ·Z,
C a lower-triangular strategy, G the steps' sums of clipped gradients (clip norm 1), Z standard
Gaussian. dpkit computes C's sensitivity for the participation itself, so ``noise_multiplier``
means what it means for DP-SGD and ``strategy="identity"`` is DP-SGD exactly.

``strategy``: a spec — ``"identity"``, ``"toeplitz:c0,c1,..."`` (banded Toeplitz),
``"blt:DECAY:SCALE,..."`` (BLT: c_0 = 1, c_k = Σ_j scale_j·decay_j^(k−1)), ``"sqrt"`` or
``"sqrt:BANDS"`` (square root of the prefix-sum matrix, banded), ``"lambda:L"`` (DP-λCGD),
``"file:PATH"`` (a CSV of the T×T matrix) — or a square lower-triangular numpy array.

Participation: examples fall in ``min_separation`` = b groups; group i may take part in steps i,
i + b, i + 2b, … and does so at each with probability ``sample_rate`` (b-min-separated Poisson
participation; ``sample_rate=1``: every one of its steps; b = 1: every step, as DP-SGD).
``max_participations=k`` (with ``sample_rate=1``) instead lets an example take part in any steps
at least b apart, at most k of them (jax_privacy's multi-epoch schema).

Answers (:class:`MatrixPrivacy`) carry ``route``: ``amplified`` (C has at most b bands: ⌈T/b⌉
rounds of the Poisson-subsampled Gaussian, a certified two-sided bracket), ``gaussian``
(``sample_rate=1``: one Gaussian mechanism, exact where the sensitivity is), ``unamplified``
(more bands than b with sampling: an upper bound without amplification, and a lower bound from
the count of the example's participations) or ``conditional`` (the same case, where conditional
composition — MMCC, CGST24 — gives the smaller upper end). docs/matrix-mechanisms.md has the
formulas.

:func:`amplified_bandmf_event` builds jax_privacy's event for BandMF as a
:mod:`dpkit.dp_accounting` event, so code written for jax_privacy runs on dpkit's accountants.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, Optional

from . import _core, _dpkit, _errors

__all__ = [
    "MatrixPrivacy",
    "MatrixNoise",
    "epsilon",
    "delta",
    "calibrate",
    "sensitivity",
    "min_separation_sensitivity",
    "error",
    "describe",
    "amplified_bandmf_event",
]

_NAMES = {"sampling_rate": "sample_rate", "min_separation": "min_separation",
          "target_epsilon": "target_epsilon"}


def _options(relative_accuracy: Optional[float], max_fft_size: Optional[int]) -> Dict[str, Any]:
    o: Dict[str, Any] = {}
    if relative_accuracy is not None:
        o["relative_accuracy"] = float(relative_accuracy)
    if max_fft_size is not None:
        o["max_fft_size"] = int(max_fft_size)
    return o


def _strategy(strategy: Any) -> Any:
    if isinstance(strategy, str):
        return strategy
    import numpy as np  # here, not at import: `import dpkit` stays fast

    return np.ascontiguousarray(strategy, dtype=float)


def _int(name: str, value: Any, lo: int = 1) -> int:
    return _core._integer(name, value, lo, f"an integer >= {lo}")


@dataclass(frozen=True)
class MatrixPrivacy:
    """A certified bracket: ``lower`` ≤ the mechanism's ε at δ (or δ at ε) ≤ ``upper``.

    With ``route == "unamplified"`` the upper end ignores sampling and the bracket can be wide;
    ``conditional`` (a dict, or None where it was not tried: only the unamplified case up to
    10 000 steps) holds the conditional-composition bound whichever end won: ``value``,
    ``bad_event_probability`` (δ_E, part of δ), ``pairs``, ``tail_quantile`` (z),
    ``largest_inclusion`` (the largest posterior participation bound), ``largest_mixture``,
    ``row_types``, ``method``, and ``evaluated``/``reason``.
    ``sensitivity``: the round's column norm (amplified) or the Δ of the whole release
    (``sensitivity_lower`` ≤ Δ ≤ ``sensitivity``; ``sensitivity_exact``). ``rounds``: ⌈T/b⌉
    (amplified). ``method``: the PLD accountant's grid. ``description``: the reduction in words.
    ``float(result)`` is ``upper``.
    """

    quantity: str
    lower: float
    upper: float
    route: str
    rounds: int
    sensitivity: float
    sensitivity_lower: float
    sensitivity_exact: bool
    method: str
    description: str
    conditional: Optional[Dict[str, Any]] = None

    def __float__(self) -> float:
        return float(self.upper)


@dataclass(frozen=True)
class MatrixNoise:
    """The smallest noise multiplier whose certified ε at δ is within the target
    (``privacy``: the bracket there); ``termination``/``message`` as the accountants'."""

    noise_multiplier: float
    privacy: Optional[MatrixPrivacy]
    termination: str
    message: str

    def __float__(self) -> float:
        return float(self.noise_multiplier)


def _privacy(quantity: str, d: Dict[str, Any]) -> MatrixPrivacy:
    return MatrixPrivacy(quantity, d["lower"], d["upper"], d["route"], d["rounds"],
                         d["sensitivity"], d["sensitivity_lower"], d["sensitivity_exact"],
                         d["method"], d["description"], d.get("conditional"))


def _number(name: str, value: Any) -> float:
    """A real number (±inf allowed: the library checks the ranges and names the argument),
    else a ValueError naming the argument, not Python's float() message."""
    return _core._real(name, value, lambda x: True, "a number", allow_inf=True)


def _query(quantity: str, strategy: Any, steps: Any, noise_multiplier: Any, at: Any,
           sample_rate: Any, min_separation: Any, max_participations: Any,
           relative_accuracy: Optional[float], max_fft_size: Optional[int]) -> MatrixPrivacy:
    d = _errors.call(_dpkit.matrix_mechanism_privacy, _strategy(strategy), _int("steps", steps),
                     _number("noise_multiplier", noise_multiplier), quantity,
                     _core._delta_arg(at) if quantity == "epsilon" else
                     _core._epsilon_arg(at),
                     _int("min_separation", min_separation), _number("sample_rate", sample_rate),
                     _int("max_participations", max_participations, 0),
                     _options(relative_accuracy, max_fft_size), names=_NAMES)
    return _privacy(quantity, d)


def epsilon(strategy: Any, steps: int, noise_multiplier: float, delta: float, *,
            sample_rate: float = 1.0, min_separation: int = 1, max_participations: int = 0,
            relative_accuracy: Optional[float] = None,
            max_fft_size: Optional[int] = None) -> MatrixPrivacy:
    """The certified bracket on ε at ``delta`` of T = ``steps`` steps of the mechanism.

    >>> import dpkit.matrix_mechanism as mm
    >>> r = mm.epsilon("toeplitz:1,0.5,0.25", 999, 1.0, 1e-5, sample_rate=0.01, min_separation=3)
    >>> r.route, r.rounds, r.lower <= r.upper
    ('amplified', 333, True)
    """
    return _query("epsilon", strategy, steps, noise_multiplier, delta, sample_rate, min_separation,
                  max_participations, relative_accuracy, max_fft_size)


def delta(strategy: Any, steps: int, noise_multiplier: float, epsilon: float, *,
          sample_rate: float = 1.0, min_separation: int = 1, max_participations: int = 0,
          relative_accuracy: Optional[float] = None,
          max_fft_size: Optional[int] = None) -> MatrixPrivacy:
    """The certified bracket on δ at ``epsilon`` (arguments as :func:`epsilon`)."""
    return _query("delta", strategy, steps, noise_multiplier, epsilon, sample_rate, min_separation,
                  max_participations, relative_accuracy, max_fft_size)


def calibrate(strategy: Any, steps: int, target_epsilon: float, delta: float, *,
              sample_rate: float = 1.0, min_separation: int = 1, max_participations: int = 0,
              budget_tolerance: float = 2e-4, relative_accuracy: Optional[float] = None,
              max_fft_size: Optional[int] = None) -> MatrixNoise:
    """The smallest noise multiplier whose certified ε at ``delta`` is at most
    ``target_epsilon`` (within ``budget_tolerance`` of it)."""
    d = _errors.call(_dpkit.matrix_mechanism_calibrate, _strategy(strategy),
                     _int("steps", steps), _number("target_epsilon", target_epsilon),
                     _core._delta_arg(delta), _int("min_separation", min_separation),
                     _number("sample_rate", sample_rate),
                     _int("max_participations", max_participations, 0),
                     _number("budget_tolerance", budget_tolerance),
                     _options(relative_accuracy, max_fft_size), names=_NAMES)
    p = d.get("privacy")
    return MatrixNoise(d["noise_multiplier"], None if p is None else _privacy("epsilon", p),
                       d["termination"], d["message"])


def sensitivity(strategy: Any, steps: int, min_separation: int = 1) -> Dict[str, Any]:
    """The sensitivity of C for every example taking part in all of its group's steps:
    ``lower`` ≤ Δ ≤ ``upper`` (``exact``), ``worst_group``, ``participations``, ``method``."""
    return _errors.call(_dpkit.strategy_sensitivity, _strategy(strategy), _int("steps", steps),
                        _int("min_separation", min_separation), names=_NAMES)


def min_separation_sensitivity(strategy: Any, steps: int, min_separation: int = 1,
                               max_participations: int = 0) -> Dict[str, Any]:
    """The sensitivity under jax_privacy's schema: any steps at least ``min_separation`` apart,
    at most ``max_participations`` of them (0: as many as fit); ``lower`` ≤ Δ ≤ ``upper``."""
    return _errors.call(_dpkit.min_separation_sensitivity, _strategy(strategy),
                        _int("steps", steps), _int("min_separation", min_separation),
                        _int("max_participations", max_participations, 0), names=_NAMES)


def error(strategy: Any, steps: int, noise_multiplier: float = 1.0) -> Dict[str, float]:
    """The noise of the prefix sums estimated from the release at ``noise_multiplier``:
    ``rmse`` = σ‖A·C⁻¹‖_F/√T and ``max_error`` = σ·max_t ‖(A·C⁻¹)[t, :]‖ (clip norms)."""
    return _errors.call(_dpkit.strategy_error, _strategy(strategy), _int("steps", steps),
                        float(noise_multiplier), names=_NAMES)


def describe(strategy: Any) -> str:
    """The strategy in words ("banded Toeplitz, 3 bands")."""
    return _errors.call(_dpkit.strategy_describe, _strategy(strategy))


def amplified_bandmf_event(noise_multiplier: float, iterations: int, *, num_bands: int,
                           sampling_prob: float) -> Any:
    """jax_privacy's ``accounting.amplified_bandmf_event`` as a :mod:`dpkit.dp_accounting`
    event: ⌈iterations/num_bands⌉ rounds of the Poisson-subsampled Gaussian, the noise
    multiplier relative to a strategy whose largest column norm is 1 (jax_privacy's convention:
    divide dpkit's σ by :func:`sensitivity`'s column norm). ``dpkit.dp_accounting.PLDAccountant``
    then gives the certified bracket.
    """
    from . import dp_accounting as dpa

    rounds = _errors.call(_dpkit.amplified_rounds, _int("iterations", iterations),
                          _int("num_bands", num_bands),
                          names={"steps": "iterations", "min_separation": "num_bands"})
    if math.isnan(float(noise_multiplier)):
        raise ValueError("noise_multiplier is nan, but must be a number")
    return dpa.SelfComposedDpEvent(
        dpa.PoissonSampledDpEvent(float(sampling_prob), dpa.GaussianDpEvent(float(noise_multiplier))),
        rounds)
