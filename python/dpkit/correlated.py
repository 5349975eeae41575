"""Noise calibration for DP-λCGD — DP-SGD with correlated Gaussian noise
ξ_t = κ(Z_t − λZ_{t−1}) (Wang et al. 2026 Algorithm 1) — the Python face of ``dpkit correlated``.

The question: the smallest noise multiplier κ (noise standard deviation / clipping norm) for
which T steps at sampling rate r = B/n are (ε, δ)-DP. Every method answers with a label of what
its κ certifies (``validity``):

``valid-upper-bound``     proven: the algorithm is (ε, δ)-DP at κ.
``conjecture-dependent``  valid if the leading-block maximiser conjecture holds (f9-block; docs/correlated.md).
``heuristic``             a closed form resting on an asymptotic constant (d9): no guarantee.
``outside-conditions``    a theorem used outside its stated conditions (f12 when ε > 1 or
                          rT < 3 ln(2/δ)): no guarantee.
``not-applicable``        the method does not apply (pld, d9, ... need λ = 0): no κ (NaN).
``lower-bound``           (:func:`lower_bound` only) the mechanism is NOT (ε, δ)-DP at any κ at
                          or below this one.

Methods (:data:`METHODS`): ``f12`` (Thm F.12 as stated, constant 8), ``f12-proof-constant``
(constant 2), ``f9-row-sum``, ``f9-exact``, ``f9-block`` (Lemma F.9 with exact tails and
hockey-stick, three sensitivities), ``pld`` (λ = 0: certified PLD, zero-out), ``d9`` (Thm D.9
closed form, replace-one, heuristic), ``d9-eq19`` (eq. (19) RDP, replace-one; may have no finite
κ: ``attainable`` False), ``pld-replace-one`` (λ = 0, the tight replace-one reference).
``relation`` says which neighbouring relation a κ is for: ``zero-out`` (Def F.1) or
``replace-one`` (§D.1, stronger, so valid for zero-out too).

Functions: :func:`calibrate` (one method), :func:`calibrate_all` (every method and the lower
bound, as the CLI's table), :func:`lower_bound`, and the ingredients :func:`row_sum`,
:func:`spectral_norm`, :func:`leading_block_norm`, :func:`binomial_tail`, :func:`f9_delta`,
:func:`projected_delta`, :func:`f12_noise_multiplier`, :func:`d9_noise_multiplier`,
:func:`eq19_epsilon`. docs/correlated.md has the formulas and the comparison tables.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, Iterator, Optional, Tuple, Union

from . import _core, _dpkit, _errors
from ._results import NoCertifiedValueError

__all__ = [
    "CorrelatedNoise",
    "NoiseLowerBound",
    "CorrelatedReport",
    "SpectralNorm",
    "F9Delta",
    "calibrate",
    "calibrate_all",
    "lower_bound",
    "row_sum",
    "spectral_norm",
    "leading_block_norm",
    "binomial_tail",
    "f9_delta",
    "projected_delta",
    "f12_noise_multiplier",
    "d9_noise_multiplier",
    "eq19_epsilon",
    "METHODS",
    "VALIDITIES",
]

METHODS: Tuple[str, ...] = ("f12", "f12-proof-constant", "f9-row-sum", "f9-exact", "f9-block",
                            "pld", "d9", "d9-eq19", "pld-replace-one")
VALIDITIES = ("valid-upper-bound", "conjecture-dependent", "heuristic", "outside-conditions",
              "not-applicable", "lower-bound")


def _call(fn, *args):
    return _errors.call(fn, *args)


def _setting(correlation: Any, sample_rate: Any, steps: Any) -> Tuple[float, float, int]:
    lam = _core._real("correlation", correlation, lambda x: 0 <= x < 1, "a number in [0, 1)")
    r = _core._real("sample_rate", sample_rate, lambda x: 0 < x <= 1, "a number in (0, 1]")
    t = _core._integer("steps", steps, 1, "an integer >= 1")
    return lam, r, t


def _eps(v: Any) -> float:
    return _core._real("epsilon", v, lambda x: x > 0, "a finite number > 0")


def _delta(v: Any) -> float:
    return _core._delta_arg(v)


def _kappa(v: Any) -> float:
    return _core._real("noise_multiplier", v, lambda x: x > 0, "a finite number > 0")


@dataclass(frozen=True)
class CorrelatedNoise:
    """One method's noise multiplier κ for DP-λCGD at (ε, δ).

    Attributes:
        method: the method's name (:data:`METHODS`).
        noise_multiplier: κ = noise std / clipping norm. NaN when not applicable or failed;
            +inf when the route certifies the budget at no finite κ (``attainable`` False).
        noise_multiplier_lower: numerical routes (pld, pld-replace-one, d9-eq19): the other end
            of the final bracket (the budget is not certified there); else NaN.
        validity: what κ certifies (see the module docstring).
        relation: ``zero-out`` or ``replace-one``.
        closed_form: f12, f12-proof-constant, d9.
        conditions_met, conditions: the method's conditions, each marked "holds" / "FAILS".
        attainable: False when no finite κ meets the budget by this route (d9-eq19's floor).
        label, source, details: for people (e.g. "valid upper bound (closed form)", "Wang et al. 2026
            Thm F.12", the split, sensitivity, grid spacing, order).
        split, sensitivity, tail_probability: F.12: τ and Δ₂; F.9: the minimising k, Δ_k and
            P(Bin(T, r) > k). NaN otherwise.
        alpha: d9, d9-eq19: the Rényi order of ``certified_epsilon``.
        certified_epsilon: pld routes, d9-eq19, d9: the ε their accountant certifies at κ.
        certified_delta: F.* routes: the δ Lemma F.9 certifies at κ.
        epsilon, delta, correlation, sample_rate, steps: the question.
        termination, message: how the computation ended.

    ``float(c)`` is κ when it is a proven upper bound; it raises
    :class:`dpkit.NoCertifiedValueError` otherwise (read ``noise_multiplier`` directly).
    """

    method: str
    noise_multiplier: float
    noise_multiplier_lower: float
    validity: str
    relation: str
    closed_form: bool
    conditions_met: bool
    attainable: bool
    label: str
    source: str
    conditions: str
    details: str
    split: float
    sensitivity: float
    tail_probability: float
    alpha: float
    certified_epsilon: float
    certified_delta: float
    epsilon: float
    delta: float
    correlation: float
    sample_rate: float
    steps: int
    termination: str
    message: str

    @property
    def valid(self) -> bool:
        """κ is a proven upper bound on the noise needed (finite)."""
        return self.validity == "valid-upper-bound" and math.isfinite(self.noise_multiplier)

    @property
    def converged(self) -> bool:
        return self.termination == "converged"

    def __float__(self) -> float:
        if self.valid:
            return float(self.noise_multiplier)
        raise NoCertifiedValueError(
            f"{self.method}: kappa = {self.noise_multiplier:g} is {self.validity}, not a proven "
            f"upper bound" + (f" ({self.message})" if self.message else "")
            + "; read .noise_multiplier for it")

    def __str__(self) -> str:
        s = (f"{self.method}: kappa = {self.noise_multiplier:.10g} ({self.validity}, "
             f"{self.relation}) — {self.label}")
        if self.termination != "converged" or not self.attainable:
            s += f" [{self.termination}: {self.message}]"
        return s


@dataclass(frozen=True)
class NoiseLowerBound:
    """κ_LB: the mechanism (with the worst-case loss, Poisson sampling, zero-out neighbours) is
    NOT (ε, δ)-DP at any κ ≤ ``noise_multiplier`` (validity ``lower-bound``). 0 when the
    projection gives no lower bound. ``noise_multiplier_upper``: the other end of the bracket
    (δ₁ ≤ δ there — not a certificate of privacy). ``projected_delta``: δ₁(ε) at κ_LB (> δ);
    ``projection_norm`` ‖v‖ = √((T − 1)(1 − λ)² + 1)."""

    noise_multiplier: float
    noise_multiplier_upper: float
    projection_norm: float
    projected_delta: float
    validity: str
    epsilon: float
    delta: float
    termination: str
    message: str


@dataclass(frozen=True)
class CorrelatedReport:
    """Every method's κ and the lower bound, as ``dpkit correlated`` prints them.

    ``report["f9-exact"]`` picks a method; :attr:`best` is the smallest valid upper bound;
    :meth:`factor` is κ / best (the CLI's factor column).
    """

    methods: Tuple[CorrelatedNoise, ...]
    lower: NoiseLowerBound

    def __iter__(self) -> Iterator[CorrelatedNoise]:
        return iter(self.methods)

    def __len__(self) -> int:
        return len(self.methods)

    def __getitem__(self, key: Union[int, str]) -> CorrelatedNoise:
        if isinstance(key, str):
            for c in self.methods:
                if c.method == key:
                    return c
            raise KeyError(f"no method {key!r}; have {[c.method for c in self.methods]}")
        return self.methods[key]

    @property
    def best(self) -> Optional[CorrelatedNoise]:
        ok = [c for c in self.methods if c.valid]
        return min(ok, key=lambda c: c.noise_multiplier) if ok else None

    def factor(self, method: str) -> float:
        b = self.best
        k = self[method].noise_multiplier
        return k / b.noise_multiplier if b is not None and math.isfinite(k) else math.nan


def _options(relative_accuracy: Any, relative_tolerance: Any, max_fft_size: Any,
             max_order: Any) -> Dict[str, Any]:
    o = _core._options(relative_accuracy, max_fft_size)
    o["relative_tolerance"] = _core._real("relative_tolerance", relative_tolerance,
                                          lambda x: 0 < x < 1, "a number in (0, 1)")
    o["max_order"] = _core._integer("max_order", max_order, 2, "an integer >= 2")
    return o


def _noise(d: Dict[str, Any], eps: float, delta: float, lam: float, r: float,
           t: int) -> CorrelatedNoise:
    return CorrelatedNoise(
        method=str(d["method"]), noise_multiplier=float(d["noise_multiplier"]),
        noise_multiplier_lower=float(d["noise_multiplier_lower"]), validity=str(d["validity"]),
        relation=str(d["relation"]), closed_form=bool(d["closed_form"]),
        conditions_met=bool(d["conditions_met"]), attainable=bool(d["attainable"]),
        label=str(d["label"]), source=str(d["source"]), conditions=str(d["conditions"]),
        details=str(d["details"]), split=float(d["split"]), sensitivity=float(d["sensitivity"]),
        tail_probability=float(d["tail_probability"]), alpha=float(d["alpha"]),
        certified_epsilon=float(d["certified_epsilon"]),
        certified_delta=float(d["certified_delta"]), epsilon=eps, delta=delta, correlation=lam,
        sample_rate=r, steps=t, termination=str(d["termination"]),
        message=str(d["message"]))


def calibrate(method: str, *,
              correlation: float,
              sample_rate: float,
              steps: int,
              epsilon: float,
              delta: float,
              relative_accuracy: float = 1e-3,
              relative_tolerance: float = 1e-3,
              max_fft_size: int = 1 << 24,
              max_order: int = 10000) -> CorrelatedNoise:
    """The noise multiplier κ of one method for T = ``steps`` steps of DP-λCGD at sampling rate
    r = ``sample_rate`` (= B/n) to be (``epsilon``, ``delta``)-DP, with its validity label.

    Args:
        method: one of :data:`METHODS`.
        correlation: λ ∈ [0, 1) (0: independent noise, DP-SGD).
        sample_rate: r ∈ (0, 1]. steps: T ≥ 1. epsilon: ε > 0. delta: δ ∈ [1e-290, 1).
        relative_accuracy: pld routes: PLD bracket width. relative_tolerance: pld routes and
            d9-eq19: the width of the final κ bracket (κ is its safe end). max_fft_size: PLD.
        max_order: d9, d9-eq19: the largest integer Rényi order.

    A method that does not apply is a result with ``validity == "not-applicable"`` and NaN κ,
    never an exception; a numerical failure is ``termination == "failure"``.

    Example:
        >>> c = dpkit.correlated.calibrate("f9-exact", correlation=0.9, sample_rate=0.1,
        ...                                steps=1000, epsilon=1, delta=1e-5)
        >>> c.noise_multiplier, c.validity, c.split    # 455.4..., 'valid-upper-bound', 147.0
    """
    if method not in METHODS:
        raise _core._bad("method", method, "one of " + ", ".join(METHODS))
    lam, r, t = _setting(correlation, sample_rate, steps)
    e, d = _eps(epsilon), _delta(delta)
    o = _options(relative_accuracy, relative_tolerance, max_fft_size, max_order)
    return _noise(_call(_dpkit.correlated_calibrate, lam, r, t, e, d, method, o), e, d, lam, r, t)


def lower_bound(*, correlation: float, sample_rate: float, steps: int, epsilon: float,
                delta: float, relative_tolerance: float = 1e-3) -> NoiseLowerBound:
    """κ_LB: DP-λCGD (Poisson sampling, zero-out) is not (ε, δ)-DP at any κ ≤ κ_LB — Thm F.8's
    dominating pair is attained by a linear loss, and its projection on v = C^{−T}𝟏 gives the
    one-dimensional pair Σ_k Bin(T, r)(k) N(k, s²) vs N(0, s²), s = κ‖v‖. The true smallest κ
    lies between κ_LB and the smallest valid upper bound."""
    lam, r, t = _setting(correlation, sample_rate, steps)
    e, d = _eps(epsilon), _delta(delta)
    tol = _core._real("relative_tolerance", relative_tolerance, lambda x: 0 < x < 1,
                      "a number in (0, 1)")
    res = _call(_dpkit.correlated_lower_bound, lam, r, t, e, d, tol)
    return NoiseLowerBound(noise_multiplier=float(res["noise_multiplier"]),
                           noise_multiplier_upper=float(res["noise_multiplier_upper"]),
                           projection_norm=float(res["projection_norm"]),
                           projected_delta=float(res["projected_delta"]), validity="lower-bound",
                           epsilon=e, delta=d, termination=str(res["termination"]),
                           message=str(res["message"]))


def calibrate_all(*, correlation: float, sample_rate: float, steps: int, epsilon: float,
                  delta: float, relative_accuracy: float = 1e-3, relative_tolerance: float = 1e-3,
                  max_fft_size: int = 1 << 24, max_order: int = 10000) -> CorrelatedReport:
    """Every method (:data:`METHODS`, in the CLI's order) and the lower bound: the table of
    ``dpkit correlated --method all``. Arguments as :func:`calibrate`."""
    lam, r, t = _setting(correlation, sample_rate, steps)
    e, d = _eps(epsilon), _delta(delta)
    o = _options(relative_accuracy, relative_tolerance, max_fft_size, max_order)
    rows = tuple(_noise(_call(_dpkit.correlated_calibrate, lam, r, t, e, d, m, o), e, d, lam, r, t)
                 for m in METHODS)
    lb = lower_bound(correlation=lam, sample_rate=r, steps=t, epsilon=e, delta=d,
                     relative_tolerance=o["relative_tolerance"])
    return CorrelatedReport(methods=rows, lower=lb)


# ---- ingredients -------------------------------------------------------------------------------

def row_sum(correlation: float, steps: int) -> float:
    """(1 − λ^T)/(1 − λ): the maximum row sum of C (C_{t,u} = λ^{t−u}), WSK+26's bound on
    ‖C‖₂ (Lemma F.11); 1 at λ = 0... T at λ → 1."""
    lam, _, t = _setting(correlation, 1.0, steps)
    return float(_call(_dpkit.correlated_row_sum, lam, t))


@dataclass(frozen=True)
class SpectralNorm:
    """A certified bracket lower ≤ ‖C‖₂ ≤ value (value never above the row sum)."""

    value: float
    lower: float
    termination: str
    message: str


def spectral_norm(correlation: float, steps: int) -> SpectralNorm:
    """‖C‖₂ = 1/σ_min(C⁻¹), certified from both sides (Sturm bisection on the Golub–Kahan
    matrix of the bidiagonal C⁻¹, padded by the backward error)."""
    lam, _, t = _setting(correlation, 1.0, steps)
    r = _call(_dpkit.correlated_spectral_norm, lam, t)
    return SpectralNorm(value=float(r["value"]), lower=float(r["lower"]),
                        termination=str(r["termination"]), message=str(r["message"]))


def leading_block_norm(correlation: float, steps: int, k: int) -> float:
    """‖C·(1, …, 1, 0, …, 0)‖₂ with k ones, 0 ≤ k ≤ T: Δ_k² = Σ_{t≤k} a_t² + a_k²Σ_{j=1}^{T−k}λ^{2j},
    a_t = (1 − λ^t)/(1 − λ) (the conjectured maximiser of ‖Cy‖ over ‖y‖₀ ≤ k)."""
    lam, _, t = _setting(correlation, 1.0, steps)
    kk = _core._integer("k", k, 0, "an integer >= 0")
    if kk > t:
        raise ValueError(f"k is {kk}, but must be at most steps ({t})")
    return float(_call(_dpkit.correlated_leading_block_norm, lam, t, kk))


def binomial_tail(steps: int, sample_rate: float, k: int) -> float:
    """P(Bin(T, r) > k), exact (relatively accurate far into the tail); 0 for k ≥ T."""
    _, r, t = _setting(0.0, sample_rate, steps)
    kk = _core._integer("k", k, 0, "an integer >= 0")
    return float(_call(_dpkit.correlated_binomial_tail, t, r, kk))


@dataclass(frozen=True)
class F9Delta:
    """Lemma F.9 at κ: ``delta`` = min_k g_k(κ) (certified; conjecture-dependent for the
    leading-block sensitivity), at the minimising ``split`` k with Δ_k = ``sensitivity`` and
    F̄_k = ``tail_probability``."""

    delta: float
    split: int
    sensitivity: float
    tail_probability: float


def f9_delta(*, correlation: float, sample_rate: float, steps: int, noise_multiplier: float,
             epsilon: float, sensitivity: str = "spectral") -> F9Delta:
    """The δ that Lemma F.9 certifies at κ: min over k of (1 − F̄_k)·h_ε(Δ_k/κ) + F̄_k, F̄_k =
    P(Bin(T, r) > k), h_ε the Gaussian hockey-stick. ``sensitivity``: ``row-sum`` (Lemma F.11),
    ``spectral`` (‖C‖₂√k, certified) or ``leading-block`` (conjecture-dependent)."""
    lam, r, t = _setting(correlation, sample_rate, steps)
    kappa = _core._real("noise_multiplier", noise_multiplier, lambda x: x >= 0,
                        "a finite number >= 0")
    e = _core._real("epsilon", epsilon, lambda x: x >= 0, "a finite number >= 0")
    if sensitivity not in ("row-sum", "spectral", "leading-block"):
        raise _core._bad("sensitivity", sensitivity, "'row-sum', 'spectral' or 'leading-block'")
    res = _call(_dpkit.correlated_f9_delta, lam, r, t, kappa, e, sensitivity)
    return F9Delta(delta=float(res["delta"]), split=int(res["split"]),
                   sensitivity=float(res["sensitivity"]),
                   tail_probability=float(res["tail_probability"]))


def projected_delta(*, correlation: float, sample_rate: float, steps: int,
                    noise_multiplier: float, epsilon: float) -> float:
    """δ₁(ε) of the projected pair at κ: a LOWER bound on the δ(ε) of DP-λCGD (Poisson
    sampling, zero-out) at noise multiplier κ."""
    lam, r, t = _setting(correlation, sample_rate, steps)
    e = _core._real("epsilon", epsilon, lambda x: x >= 0, "a finite number >= 0")
    return float(_call(_dpkit.correlated_projected_delta, lam, r, t, _kappa(noise_multiplier), e))


def f12_noise_multiplier(*, correlation: float, sample_rate: float, steps: int, epsilon: float,
                         delta: float, constant: float = 8.0) -> float:
    """Thm F.12's κ = √(c·((1 − λ^T)/(1 − λ))²·(rT + √(3rT ln(2/δ)))·ln(2.5/δ))/ε, c = 8 as
    stated (2 from its proof), without checking the theorem's conditions (ε ≤ 1,
    rT ≥ 3 ln(2/δ)); :func:`calibrate` labels them."""
    lam, r, t = _setting(correlation, sample_rate, steps)
    c = _core._real("constant", constant, lambda x: x > 0, "a finite number > 0")
    return float(_call(_dpkit.correlated_f12, lam, r, t, _eps(epsilon), _delta(delta), c))


def d9_noise_multiplier(*, sample_rate: float, steps: int, epsilon: float,
                        delta: float) -> float:
    """Thm D.9's κ = √(16r²T/ε + 32r²T log(1/δ)/ε²) (λ = 0; heuristic constant)."""
    _, r, t = _setting(0.0, sample_rate, steps)
    return float(_call(_dpkit.correlated_d9, 0.0, r, t, _eps(epsilon), _delta(delta)))


def eq19_epsilon(*, sample_rate: float, steps: int, noise_multiplier: float, delta: float,
                 max_order: int = 10000) -> Tuple[float, float]:
    """(ε, α): eq. (19)'s RDP of one without-replacement subsampled Gaussian step, composed over
    T steps and converted by Lemma D.2, minimised over integer orders α ∈ [2, max_order]
    (replace-one, λ = 0). A valid upper bound; it has a positive floor as κ → ∞."""
    _, r, t = _setting(0.0, sample_rate, steps)
    mo = _core._integer("max_order", max_order, 2, "an integer >= 2")
    res = _call(_dpkit.correlated_eq19_epsilon, 0.0, r, t, _kappa(noise_multiplier),
                _delta(delta), mo)
    return float(res["epsilon"]), float(res["alpha"])
