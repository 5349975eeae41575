"""Last-iterate privacy of noisy gradient methods by shifted interpolation (BSA24: Bok, Su &
Altschuler, *Shifted Interpolation for Differential Privacy*, 2024) — the Python face of
``dpkit shifted``.

The algorithm is BSA24 eq. (2.1)::

    X_{k+1} = Π_K[X_k − η((1/b) Σ_{i∈B_k} ∇f_i(X_k) + Z_{k+1})],   Z ~ N(0, σ² I)

Units and names (the same as ``dpkit shifted``'s flags):

``sensitivity``  L, the gradient sensitivity sup‖∇f − ∇f′‖ (an L-Lipschitz loss has 2L).
``dataset_size`` n, the number of examples (CLI ``--dataset-size``).
``batch_size``   b (NoisyCGD: l = n/b batches per epoch; NoisySGD: sampling rate b/n).
``noise``        σ, the *noise rate* of (2.1): the injected noise is N(0, η²σ² I). (Not a
                 noise multiplier relative to a clipping norm.)
``learning_rate`` η; ``strong_convexity`` m; ``smoothness`` M; ``contraction`` c ∈ (0, 1]
                 (default c = max{|1 − ηm|, |1 − ηM|}, Lemma 2.8; see :func:`contraction`).
``diameter``     D of the constraint set K (None: unconstrained).
``steps``        t, the number of steps (NoisyCGD: or ``epochs`` E, t = E·n/b).
``delta``        δ at which each bound's ε is reported.

Neighbouring datasets differ in one example (replace-one).

Every bound is a :class:`ShiftedBound` whose ``kind`` says what it is:

``upper-bound``    a guarantee: the last iterate is μ-GDP / (ε, δ)-DP with these values.
``lower-bound``    no better guarantee can hold (Thm C.17, on the worst-case quadratic).
``approximation``  a CLT choice (Props C.14, C.15): no guarantee in either direction.

``lower ≤ ε ≤ upper`` brackets the exact ε of the bound's tradeoff function (exact GDP
conversion: ~1e-13 wide; NoisySGD: the PLD accountant's certified bracket); ``value`` is the end
on the certified side. ``termination``/``message`` say when a computation did not converge.

Functions: :func:`noisy_gd`, :func:`noisy_cgd`, :func:`noisy_sgd`, :func:`lmc` (each returns the
table of bounds that ``dpkit shifted`` prints, as a :class:`ShiftedReport`); :func:`bound` (one
named GDP bound), :func:`noisy_sgd_bound` (one NoisySGD bound, optionally at a given τ or with
your own shifts), :func:`mechanism` (LMC and exponential mechanisms), :func:`interpolation` (the
optimisation problem of Thm C.3 itself), :func:`contraction`, :func:`clt_k`,
:func:`exponential_mechanism_threshold`. docs/shifted.md has the formulas and sources.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core, _dpkit, _errors
from ._checks import pos as _pos
from ._results import NoCertifiedValueError, TradeoffCurve

__all__ = [
    "ShiftedBound",
    "ShiftedReport",
    "Interpolation",
    "noisy_gd",
    "noisy_cgd",
    "noisy_sgd",
    "lmc",
    "bound",
    "noisy_sgd_bound",
    "mechanism",
    "interpolation",
    "contraction",
    "clt_k",
    "exponential_mechanism_threshold",
    "BOUNDS",
    "MECHANISMS",
    "SETTINGS",
]

SETTINGS = ("strongly-convex", "convex", "constrained-convex")

#: The GDP bounds of :func:`bound`: name → (what it is, BSA24 source).
BOUNDS: Dict[str, str] = {
    "noisy_gd_composition": "NoisyGD, composition: mu = (L/(n sigma)) sqrt(t) (Thm 4.1)",
    "noisy_gd_strongly_convex": "NoisyGD, strongly convex, c in (0, 1) (Thm 4.2, exact)",
    "noisy_gd_constrained_convex": "NoisyGD, constrained convex, t >= Dn/(eta L) (Thm 4.3)",
    "noisy_gd_constrained_convex_at": "NoisyGD, constrained convex at one tau (Thm C.7)",
    "noisy_gd_constrained_convex_best_tau": "Thm C.7 minimised over tau",
    "noisy_gd_shifted": "NoisyGD, the optimisation problem of Thm C.3 solved exactly (any c, D)",
    "noisy_cgd_composition": "NoisyCGD, composition: mu = (L/(b sigma)) sqrt(E) (Thm 4.4)",
    "noisy_cgd_strongly_convex": "NoisyCGD, strongly convex, c in (0, 1) (Thm 4.5)",
    "noisy_cgd_constrained_convex": "NoisyCGD, constrained convex, E >= Db/(eta L) (Thm 4.6)",
    "noisy_cgd_constrained_convex_at":
        "NoisyCGD, constrained convex at one tau in epochs (Thm 4.6)",
    "noisy_cgd_constrained_convex_best_tau": "Thm 4.6 minimised over tau (epochs)",
    "noisy_cgd_convex": "NoisyCGD, convex, c = 1 (derived, not in the paper)",
    "noisy_cgd_strongly_convex_lower": "NoisyCGD, LOWER bound on the quadratic (Thm C.17)",
    "noisy_cgd_shifted": "NoisyCGD, the optimisation problem solved exactly (any c, D)",
}

#: The mechanisms of :func:`mechanism` (BSA24 §5).
MECHANISMS = ("lmc", "lmc_at", "exponential_mechanism", "log_concave_mechanism", "projected_lmc")

_SQRT2 = math.sqrt(2.0)
_NAN = math.nan


def _fmt(x: float) -> str:
    return "-" if x != x else f"{x:.10g}"


# ---- result objects ------------------------------------------------------------------------


@dataclass(frozen=True)
class ShiftedBound:
    """One privacy bound of the last iterate, with its label.

    Attributes:
        bound: the row's name as ``dpkit shifted`` prints it (``"shifted-interpolation"``,
            ``"composition"``, ``"lower-bound"``, ``"rdp-ys22"``, ...) or the bound's function
            name for :func:`bound`.
        kind: ``upper-bound`` (a guarantee), ``lower-bound`` (no better guarantee can hold) or
            ``approximation`` (CLT: no guarantee).
        value: ε at ``delta``, the end of [lower, upper] on the certified side (upper for
            upper bounds, lower for lower bounds). NaN when no ε could be computed.
        lower, upper: a certified bracket on the exact ε of the bound's tradeoff function
            (GDP: the exact conversion; NoisySGD: the PLD accountant; RDP: upper only).
        mu: the Gaussian-DP parameter μ (T(X_t, X′_t) ≥ G(μ)); NaN for RDP and PLD bounds.
        delta: the δ of ``value``.
        tau: where the shifted interpolation starts (NoisyCGD Thm 4.6: in epochs); None when
            the bound has no τ.
        method: the source, e.g. ``"BSA24 Thm 4.2"``.
        note: corrections, derived bounds, the composition used, ...
        termination: ``converged``, ``max_iterations`` or ``failure``.
        message: why, when not converged.
        details: extras (``alpha``: the noise split; ``steps_after_tau``: the CLT choice;
            ``rho``: the RDP slope; ``evaluations``: PLD evaluations; ``exhaustive``: every τ
            was tried).
        phases, gaussian_mu: the bound's tradeoff function as a composition (a run of
            :mod:`dpkit`, :class:`dpkit.Phase` objects): G(gaussian_mu) ⊗ the phases. None for RDP and pure-DP bounds.

    ``float(b)`` is the certified ε upper bound; it raises :class:`dpkit.NoCertifiedValueError`
    for lower bounds, approximations and failures.
    """

    bound: str
    kind: str
    value: float
    lower: float
    upper: float
    mu: float
    delta: float
    tau: Optional[int]
    method: str
    note: str = ""
    termination: str = "converged"
    message: str = ""
    details: Dict[str, Any] = field(default_factory=dict, compare=False)
    phases: Optional[Tuple[_core.Phase, ...]] = field(default=None, compare=False)
    gaussian_mu: float = field(default=0.0, compare=False)

    @property
    def epsilon(self) -> float:
        """ε at ``delta`` (same as ``value``)."""
        return self.value

    @property
    def converged(self) -> bool:
        return self.termination == "converged"

    def __float__(self) -> float:
        if self.kind == "upper-bound" and math.isfinite(self.upper):
            return float(self.upper)  # also after max_iterations: valid, only a wider bracket
        if self.kind == "upper-bound":
            raise NoCertifiedValueError(
                f"{self.bound}: no certified epsilon: {self.message or 'the computation failed'}")
        raise NoCertifiedValueError(
            f"{self.bound} is a {self.kind}, not a guarantee; read .value for its epsilon")

    def tradeoff(self, alpha: Sequence[float], *,
                 relative_accuracy: Optional[float] = None) -> TradeoffCurve:
        """The bound's tradeoff curve β(α) at each α ∈ [0, 1] (f-DP; ``dpkit shifted
        --tradeoff-points``): ``lower`` is the curve (for an upper-bound row: no test at type I
        error α has type II error below it), ``upper`` the certified other side (equal for GDP
        curves). Raises ValueError for RDP and pure-DP rows, which have no such curve here."""
        if self.phases is None:
            raise ValueError(f"bound {self.bound!r} has no tradeoff curve (an RDP or pure-DP "
                             f"bound)")
        a = np.atleast_1d(np.asarray(alpha, dtype=float))
        if a.ndim != 1 or a.size == 0 or not np.all((a >= 0) & (a <= 1)):
            raise ValueError("alpha must be a non-empty one-dimensional array of numbers in [0, 1]")
        res = _call(_dpkit.tradeoff, [p._native() for p in self.phases], float(self.gaussian_mu), a,
                    _core._options(relative_accuracy, None))
        return TradeoffCurve(alpha=a, lower=np.asarray(res["lower"]),
                             upper=np.asarray(res["upper"]),
                             power_upper=np.asarray(res["power_upper"]),
                             power_lower=np.asarray(res["power_lower"]), exact=bool(res["exact"]),
                             method=str(res["method"]), termination=str(res["termination"]),
                             message=str(res["message"]))

    def __str__(self) -> str:
        tau = "-" if self.tau is None else str(self.tau)
        s = (f"{self.bound}: mu = {_fmt(self.mu)}, epsilon = {_fmt(self.value)} at delta = "
             f"{self.delta:g} ({self.kind}), tau = {tau}, {self.method}")
        if self.termination != "converged":
            s += f" [{self.termination}: {self.message}]"
        return s


@dataclass(frozen=True)
class ShiftedReport:
    """The bounds ``dpkit shifted`` compares for one algorithm and setting.

    ``report["composition"]`` or ``report[0]`` picks a bound; iterating yields them in order;
    :attr:`best` is the smallest certified ε. ``notes`` holds the remarks the CLI prints.
    """

    algorithm: str
    setting: str
    delta: float
    bounds: Tuple[ShiftedBound, ...]
    notes: Tuple[str, ...] = ()

    def __iter__(self) -> Iterator[ShiftedBound]:
        return iter(self.bounds)

    def __len__(self) -> int:
        return len(self.bounds)

    def __getitem__(self, key: Union[int, str]) -> ShiftedBound:
        if isinstance(key, str):
            for b in self.bounds:
                if b.bound == key:
                    return b
            raise KeyError(f"no bound named {key!r}; have {[b.bound for b in self.bounds]}")
        return self.bounds[key]

    @property
    def names(self) -> Tuple[str, ...]:
        return tuple(b.bound for b in self.bounds)

    @property
    def best(self) -> Optional[ShiftedBound]:
        """The upper-bound row with the smallest finite ε (None if there is none)."""
        ok = [b for b in self.bounds if b.kind == "upper-bound" and math.isfinite(b.upper)]
        return min(ok, key=lambda b: b.upper) if ok else None

    def __str__(self) -> str:
        lines = [f"privacy of the last iterate of {self.algorithm} ({self.setting}), epsilon at "
                 f"delta = {self.delta:g}"]
        for b in self.bounds:
            tau = "-" if b.tau is None else str(b.tau)
            lines.append(f"  {b.bound:40s} mu = {_fmt(b.mu):>12s}  epsilon = {_fmt(b.value):>12s}"
                         f"  {b.kind:13s} tau = {tau:>5s}  {b.method}")
        lines.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(lines)


@dataclass(frozen=True)
class Interpolation:
    """The optimum of the shifted-interpolation problem (Thm C.3; docs/shifted.md).

    ``value`` = min Σ a_k²/σ_k² (Σ a_k² without ``noise``): the optimal μ² (divide by the
    noise σ² of the run when no per-step noise is given). ``a``, ``lambda_`` are indexed by the
    steps τ+1..t, ``z`` by τ..t (z_t = 0). ``tau``/``start_shift``/``exhaustive`` come from a
    scan over windows (``diameter`` given), else τ = 0.
    """

    value: float
    a: np.ndarray
    z: np.ndarray
    lambda_: np.ndarray
    tau: int
    start_shift: float
    exhaustive: bool
    termination: str
    message: str

    @property
    def mu(self) -> float:
        """√value: μ of G(μ) for unit noise."""
        return math.sqrt(self.value) if self.value >= 0 else _NAN


# ---- argument checks -----------------------------------------------------------------------

def _call(fn, *args):
    """The extension, with the library's argument errors as one-line ValueErrors naming the
    Python argument."""
    return _errors.call(fn, *args, names={"examples": "dataset_size", "t": "steps",
                                          "learning_rates.size()": "len(learning_rates)"})


def _opt_pos(name: str, v: Any) -> Optional[float]:
    return None if v is None else _pos(name, v)


def _int(name: str, v: Any, lo: int = 1) -> int:
    return _core._integer(name, v, lo, f"an integer >= {lo}")


def _opt_int(name: str, v: Any, lo: int = 1) -> Optional[int]:
    return None if v is None else _int(name, v, lo)


def _delta(v: Any) -> float:
    return _core._delta_arg(v)


def _setting(v: Any) -> str:
    s = str(v).replace("_", "-")
    if s not in SETTINGS:
        raise _core._bad("setting", v, "'strongly-convex', 'convex' or 'constrained-convex'")
    return s


def _contraction_arg(v: Any) -> Optional[float]:
    if v is None:
        return None
    return _core._real("contraction", v, lambda x: 0 < x <= 1, "a number in (0, 1]")


def _tau(v: Optional[int]) -> Optional[int]:
    return None if v is None or v < 0 else int(v)


def _sgd_options(relative_accuracy: Any, exhaustive_limit: Optional[int],
                 optimise_split: bool) -> Dict[str, Any]:
    o = _core._options(relative_accuracy, None)
    if exhaustive_limit is not None:
        o["exhaustive_limit"] = int(exhaustive_limit)
    o["optimise_split"] = bool(optimise_split)
    return o


# ---- building result rows ------------------------------------------------------------------

def _gdp_row(name: str, d: Dict[str, Any], delta: float) -> ShiftedBound:
    kind = str(d["kind"])
    lo, up = float(d["epsilon_lower"]), float(d["epsilon_upper"])
    value = lo if kind == "lower-bound" else up
    details: Dict[str, Any] = {}
    if "steps_after_tau" in d:
        details["steps_after_tau"] = float(d["steps_after_tau"])
    mu = float(d["mu"])
    return ShiftedBound(bound=name, kind=kind, value=value, lower=lo, upper=up, mu=mu,
                        delta=delta, tau=_tau(d["tau"]), method=str(d["source"]),
                        note=str(d["note"]), termination=str(d["termination"]),
                        message=str(d["message"]), details=details,
                        phases=(), gaussian_mu=mu)


def _sgd_row(name: str, d: Dict[str, Any], delta: float,
             exhaustive: Optional[bool] = None) -> ShiftedBound:
    e = d["estimate"]
    run = d["run"]
    alpha = float(d["alpha"])
    note = str(run["description"])
    if math.isfinite(alpha) and abs(alpha - _SQRT2) > 1e-12:
        note += f"; noise split alpha = {alpha:.10g}"
    details: Dict[str, Any] = {"alpha": alpha, "evaluations": int(d["evaluations"]),
                               "pld_method": str(e["method"])}
    if exhaustive is not None:
        details["exhaustive"] = exhaustive
    return ShiftedBound(bound=name, kind=str(e["kind"]), value=float(e["value"]),
                        lower=float(e["lower"]), upper=float(e["upper"]), mu=_NAN, delta=delta,
                        tau=_tau(d["tau"]), method=str(d["source"]), note=note,
                        termination=str(e["termination"]),
                        message=str(e["message"]), details=details,
                        phases=tuple(_core.Phase._of(p) for p in run["phases"]),
                        gaussian_mu=float(run["gaussian_mu"]))


def _setting_dict(**kw: Any) -> Dict[str, Any]:
    return {k: v for k, v in kw.items() if v is not None}


# ---- single bounds -------------------------------------------------------------------------

def contraction(learning_rate: float, strong_convexity: float, smoothness: float) -> float:
    """c = max{|1 − ηm|, |1 − ηM|} (BSA24 Lemma 2.8): the Lipschitz constant of a gradient
    step of size η on an m-strongly convex, M-smooth loss. Needs 0 ≤ m ≤ M and 0 < η ≤ 2/M."""
    eta = _pos("learning_rate", learning_rate)
    m = _core._real("strong_convexity", strong_convexity, lambda x: x >= 0, "a finite number >= 0")
    big_m = _pos("smoothness", smoothness)
    return float(_call(_dpkit.shifted_contraction, eta, m, big_m))


def clt_k(mu: float) -> float:
    """K(μ) = e^{μ²}Φ(1.5μ) + 3Φ(−0.5μ) − 2 (BSA24 Lemma A.5), 0 ≤ μ ≤ 26.64 (beyond,
    e^{μ²} overflows and the library refuses μ): the CLT constant of
    C_p(G(μ))^{⊗t} → G(√2·p√t·√K(μ))."""
    m = _core._real("mu", mu, lambda x: x >= 0, "a finite number >= 0")
    return float(_call(_dpkit.shifted_clt_k, m))


def exponential_mechanism_threshold() -> float:
    """c* ≈ 0.676390 (BSA24 §D.4): G(2√(LD)) of Cor 5.4 is not implied by the standard
    (2LD, 0)-DP of the exponential mechanism exactly when LD > c*."""
    return float(_dpkit.shifted_exponential_mechanism_threshold())


def bound(name: str, *,
          sensitivity: float,
          noise: float,
          dataset_size: Optional[int] = None,
          batch_size: Optional[int] = None,
          steps: Optional[int] = None,
          learning_rate: Optional[float] = None,
          contraction: Optional[float] = None,
          diameter: Optional[float] = None,
          tau: Optional[int] = None,
          delta: float = 1e-5) -> ShiftedBound:
    """One GDP bound of NoisyGD / NoisyCGD by name (see :data:`BOUNDS`), with ε at ``delta``.

    Args:
        name: e.g. ``"noisy_gd_strongly_convex"`` (Thm 4.2), ``"noisy_cgd_shifted"``,
            ``"noisy_gd_constrained_convex_at"`` (needs ``tau``); :data:`BOUNDS` lists all 14.
        sensitivity: L > 0. noise: σ > 0 (noise rate of (2.1)). dataset_size: n.
        batch_size: b (NoisyCGD; n must be a multiple of b and steps of l = n/b).
        steps: t. learning_rate: η. contraction: c ∈ (0, 1] (the strongly convex closed forms
            need c < 1). diameter: D > 0 (None: unconstrained).
        tau: the window start for the ``*_at`` bounds (NoisyGD: steps; NoisyCGD: epochs).
        delta: δ ∈ [1e-290, 1) for the reported ε.

    Returns:
        :class:`ShiftedBound` with ``mu`` (μ-GDP, or a lower bound on μ for
        ``noisy_cgd_strongly_convex_lower``) and ``value`` = ε(μ, δ) exactly.

    Example:
        >>> b = dpkit.shifted.bound("noisy_gd_strongly_convex", sensitivity=0.1, noise=1,
        ...                         dataset_size=1, steps=160, contraction=0.95)
        >>> b.mu, float(b)      # (0.62432948600..., 2.55683569586...)
    """
    if name not in BOUNDS:
        raise ValueError(f"name is {name!r}, but must be one of {', '.join(BOUNDS)}")
    s = _setting_dict(sensitivity=_pos("sensitivity", sensitivity), noise=_pos("noise", noise),
                      examples=_opt_int("dataset_size", dataset_size),
                      batch_size=_opt_int("batch_size", batch_size),
                      steps=_opt_int("steps", steps),
                      learning_rate=_opt_pos("learning_rate", learning_rate),
                      contraction=_contraction_arg(contraction),
                      diameter=_opt_pos("diameter", diameter))
    if name.endswith("_at"):
        if tau is None:
            raise ValueError(f"tau is required for {name}")
        t = _int("tau", tau, 0)
    else:
        if tau is not None:
            raise ValueError(f"tau applies to the *_at bounds only, not {name}")
        t = -1
    d = _delta(delta)
    return _gdp_row(name, _call(_dpkit.shifted_gdp, name, s, t, d), d)


def mechanism(name: str, *,
              sensitivity: float,
              strong_convexity: Optional[float] = None,
              learning_rate: Optional[float] = None,
              steps: Optional[int] = None,
              diameter: Optional[float] = None,
              delta: float = 1e-5) -> ShiftedBound:
    """One bound of BSA24 §5 by name (:data:`MECHANISMS`), with ε at ``delta``:

    ``lmc``                   Prop 5.1 / Cor 5.2: LMC, every t, η ≤ 2/(M + m):
                              μ = √((2 − ηm)/2)·L/√m (tight). Needs strong_convexity, learning_rate.
    ``lmc_at``                the same at step t (derived): needs steps and ηm < 1.
    ``exponential_mechanism`` Cor 5.2: π ∝ e^{−F}: μ = L/√m.
    ``log_concave_mechanism`` Cor 5.4: μ = 2√(LD). Needs diameter.
    ``projected_lmc``         Cor 5.4, projected LMC: μ = √(4LD + 2ηL²). Needs diameter and
                              learning_rate.

    Here L is the Lipschitz constant of F − F′ (``sensitivity``) and m the strong convexity.
    """
    if name not in MECHANISMS:
        raise ValueError(f"name is {name!r}, but must be one of {', '.join(MECHANISMS)}")
    L = _pos("sensitivity", sensitivity)
    m = _opt_pos("strong_convexity", strong_convexity)
    eta = _opt_pos("learning_rate", learning_rate)
    t = _opt_int("steps", steps)
    dia = _opt_pos("diameter", diameter)
    need = {"lmc": ("strong_convexity", "learning_rate"),
            "lmc_at": ("strong_convexity", "learning_rate", "steps"),
            "exponential_mechanism": ("strong_convexity",),
            "log_concave_mechanism": ("diameter",),
            "projected_lmc": ("diameter", "learning_rate")}[name]
    given = {"strong_convexity": m, "learning_rate": eta, "steps": t, "diameter": dia}
    for arg in need:
        if given[arg] is None:
            raise ValueError(f"{arg} is required for {name}")
    d = _delta(delta)
    res = _call(_dpkit.shifted_mechanism, name, L, _NAN if m is None else m,
                _NAN if eta is None else eta, 0 if t is None else t,
                _NAN if dia is None else dia, d)
    return _gdp_row(name, res, d)


def noisy_sgd_bound(name: str, *,
                    sensitivity: float,
                    dataset_size: int,
                    batch_size: int,
                    noise: float,
                    steps: int,
                    learning_rate: Optional[float] = None,
                    contraction: Optional[float] = None,
                    diameter: Optional[float] = None,
                    tau: Optional[int] = None,
                    alpha: float = _SQRT2,
                    shifts: Optional[Sequence[float]] = None,
                    optimise_split: bool = False,
                    exhaustive_tau: bool = False,
                    relative_accuracy: Optional[float] = None,
                    delta: float = 1e-5) -> ShiftedBound:
    """One NoisySGD bound (batches of b drawn uniformly from n examples), certified by the PLD
    accountant: ``value`` = ``upper`` is a certified ε at ``delta``, ``lower`` the other end of
    the PLD bracket.

    Args:
        name: ``"composition"`` (Thm 4.8), ``"strongly_convex"`` (Thm 4.9, needs contraction
            c < 1 and learning_rate), ``"constrained_convex"`` (Thm 4.10, needs diameter and
            learning_rate) or ``"shifts"`` (Thm C.13 with your ``shifts``; strongly convex).
        tau: evaluate Thm 4.9 (τ ∈ 1..t−1) / Thm 4.10 (τ ∈ 0..t−1) at this τ with the noise
            split ``alpha`` (1/α² + 1/β² = 1; √2 is the theorem). None: the smallest certified
            ε over τ (every τ for t ≤ 64 or with ``exhaustive_tau``; else a golden-section
            search — a valid bound either way), and over a grid of α with ``optimise_split``.
        shifts: Thm C.13's a_1..a_{t−1} in units of ηL/b, each in [0, 1] (Thm 4.9 is 0 before
            τ and 1 after); the running shift z_k = c z_{k−1} + ηL/b − a_k must stay ≥ 0.
        relative_accuracy: the PLD bracket's target (upper − lower)/upper (default 1e-3).
    """
    names = ("composition", "strongly_convex", "constrained_convex", "shifts")
    if name not in names:
        raise ValueError(f"name is {name!r}, but must be one of {', '.join(names)}")
    n = _int("dataset_size", dataset_size)
    b = _int("batch_size", batch_size)
    if b > n:
        raise ValueError(f"batch_size is {b}, but must be at most dataset_size ({n})")
    t = _int("steps", steps)
    s = _setting_dict(sensitivity=_pos("sensitivity", sensitivity), noise=_pos("noise", noise),
                      examples=n, batch_size=b, steps=t,
                      learning_rate=_opt_pos("learning_rate", learning_rate),
                      contraction=_contraction_arg(contraction),
                      diameter=_opt_pos("diameter", diameter))
    d = _delta(delta)
    a = _core._real("alpha", alpha, lambda x: x > 1, "a finite number > 1")
    opts = _sgd_options(relative_accuracy, (2**62 if exhaustive_tau else None), optimise_split)
    if name in ("strongly_convex", "shifts"):
        if s.get("contraction") is None or not s["contraction"] < 1:
            raise ValueError(f"contraction is {contraction!r}, but must be a number in (0, 1) "
                             f"(strongly convex)")
        if "learning_rate" not in s:
            raise ValueError(f"learning_rate is required for {name}")
    if name == "constrained_convex":
        if "diameter" not in s:
            raise ValueError("diameter is required for constrained_convex")
        if "learning_rate" not in s:
            raise ValueError("learning_rate is required for constrained_convex")
    empty = np.zeros(0)
    if name == "shifts":
        if shifts is None:
            raise ValueError("shifts is required for name='shifts' (t - 1 values in [0, 1])")
        x = np.asarray(shifts, dtype=float).ravel()
        if x.size != t - 1:
            raise ValueError(f"shifts has {x.size} values, but must have steps - 1 = {t - 1}")
        if not np.all((x >= 0) & (x <= 1)):
            raise ValueError("shifts: each value is a_k/(eta L/b) and must be in [0, 1]")
        step = s["learning_rate"] * s["sensitivity"] / b
        res = _call(_dpkit.shifted_sgd_at, "shifts", s, -1, a, x * step, d, opts)
        return _sgd_row("shifted-interpolation (C.13 shifts)", res, d)
    if shifts is not None:
        raise ValueError("shifts applies to name='shifts' only")
    if tau is not None:
        if name == "composition":
            raise ValueError("tau does not apply to the composition bound")
        tt = _int("tau", tau, 0)
        res = _call(_dpkit.shifted_sgd_at, name, s, tt, a, empty, d, opts)
        return _sgd_row(name, res, d)
    if a != _SQRT2 and name != "composition":
        raise ValueError("alpha applies with a given tau; use optimise_split=True to search it")
    res = _call(_dpkit.shifted_sgd, name, s, d, opts)
    k_range = t - 1 if name == "strongly_convex" else t
    exhaustive = None if name == "composition" else bool(exhaustive_tau or k_range <= 64)
    return _sgd_row(name, res, d, exhaustive)


def interpolation(sensitivities: Sequence[float], *,
                  contraction: float = 1.0,
                  initial_shift: float = 0.0,
                  contractions: Optional[Sequence[float]] = None,
                  noise: Optional[Sequence[float]] = None,
                  diameter: Optional[float] = None,
                  exhaustive_limit: int = 4000) -> Interpolation:
    """The shifted-interpolation optimisation problem of BSA24 Thm C.3, solved exactly:

        minimise Σ a_k²/σ_k²  s.t.  a ≥ 0, z ≥ 0, z_t = 0,  z_k = c_k z_{k−1} + s_k − a_k.

    Args:
        sensitivities: s_1..s_t ≥ 0 (the per-step bound on ‖φ_k − φ′_k‖), at least one.
        contraction: c ∈ (0, 1] for every step (ignored where ``contractions`` is given).
        initial_shift: z_0 ≥ 0 (0 when both runs start at the same point).
        contractions: per-step c_1..c_t ∈ (0, 1] (learning-rate schedules).
        noise: per-step noise scales σ_1..σ_t > 0 (default 1: ``value`` is Σ a_k²).
        diameter: D > 0: also try every window τ with z_τ = D (O(t²); golden section on τ above
            ``exhaustive_limit`` steps — still a valid bound).

    Returns:
        :class:`Interpolation`; ``mu`` = √value is μ of the bound G(μ) (unit noise).
    """
    s = np.atleast_1d(np.asarray(sensitivities, dtype=float))
    if s.ndim != 1 or s.size == 0 or not np.all(np.isfinite(s)) or np.any(s < 0):
        raise ValueError("sensitivities must be a non-empty one-dimensional array of finite "
                         "numbers >= 0")
    c = _contraction_arg(contraction)
    z0 = _core._real("initial_shift", initial_shift, lambda x: x >= 0, "a finite number >= 0")
    arrays = []
    for nm, v, ok in (("contractions", contractions, lambda a: (a > 0) & (a <= 1)),
                      ("noise", noise, lambda a: a > 0)):
        if v is None:
            arrays.append(np.zeros(0))
            continue
        a = np.atleast_1d(np.asarray(v, dtype=float))
        if a.shape != s.shape or not np.all(np.isfinite(a)) or not np.all(ok(a)):
            raise ValueError(f"{nm} must have one finite entry per step ({s.size}), "
                             + ("each in (0, 1]" if nm == "contractions" else "each > 0"))
        arrays.append(a)
    if diameter is None:
        r = _call(_dpkit.shifted_solve_interpolation, c, s, z0, arrays[0], arrays[1])
        tau, start, exh = 0, z0, True
    else:
        dia = _pos("diameter", diameter)
        lim = _int("exhaustive_limit", exhaustive_limit)
        r = _call(_dpkit.shifted_best_interpolation, c, s, dia, z0, arrays[0], arrays[1], lim)
        tau, start, exh = int(r["tau"]), float(r["start_shift"]), bool(r["exhaustive"])
    return Interpolation(value=float(r["value"]), a=np.asarray(r["a"]), z=np.asarray(r["z"]),
                         lambda_=np.asarray(r["lambda"]), tau=tau, start_shift=start,
                         exhaustive=exh, termination=str(r["termination"]),
                         message=str(r["message"]))


# ---- the tables of `dpkit shifted` ------------------------------------------------------------
# The decision tree (which bounds apply to the inputs, what each needs) is the library's
# (shifted/report.hpp, _dpkit.shifted_report), the one `dpkit shifted` uses; here the inputs'
# types are checked and the rows become ShiftedBounds.

def _report_row(d: Dict[str, Any], delta: float) -> ShiftedBound:
    run = d["run"]
    details: Dict[str, Any] = {}
    phases: Optional[Tuple[_core.Phase, ...]] = None
    mu = float(d["mu"])
    if d["pld_method"]:
        details = {"alpha": float(d["noise_split"]), "evaluations": int(d["evaluations"]),
                   "pld_method": str(d["pld_method"])}
        if d["exhaustive"] is not None:
            details["exhaustive"] = bool(d["exhaustive"])
    elif d["conversion"]:
        details = {"rho": float(d["rho"]), "alpha": float(d["rdp_order"]),
                   "conversion": str(d["conversion"])}
    elif math.isfinite(float(d["steps_after_tau"])):
        details = {"steps_after_tau": float(d["steps_after_tau"])}
    if run is not None:
        phases = tuple(_core.Phase._of(p) for p in run["phases"])
    return ShiftedBound(bound=str(d["bound"]), kind=str(d["kind"]), value=float(d["epsilon"]),
                        lower=float(d["epsilon_lower"]), upper=float(d["epsilon_upper"]), mu=mu,
                        delta=delta, tau=_tau(d["tau"]), method=str(d["source"]),
                        note=str(d["note"]), termination=str(d["termination"]),
                        message=str(d["message"]), details=details, phases=phases,
                        gaussian_mu=float(run["gaussian_mu"]) if run is not None else 0.0)


def _report(algorithm: str, setting: Any, inputs: Dict[str, Any], delta: Any) -> ShiftedReport:
    s, d = _setting(setting), _delta(delta)
    res = _call(_dpkit.shifted_report, algorithm, s, inputs, d)
    return ShiftedReport("LMC" if algorithm == "lmc" else algorithm, s, d,
                         tuple(_report_row(r, d) for r in res["rows"]), tuple(res["notes"]))


def _common(sensitivity: Any, noise: Any, dataset_size: Any, batch_size: Any, steps: Any,
            learning_rate: Any, contraction: Any, strong_convexity: Any, smoothness: Any,
            diameter: Any) -> Dict[str, Any]:
    """The inputs' types and ranges; how they combine is the library's (shifted/report.hpp)."""
    return dict(
        sensitivity=_pos("sensitivity", sensitivity),
        noise=None if noise is None else _pos("noise", noise),
        dataset_size=_opt_int("dataset_size", dataset_size),
        batch_size=_opt_int("batch_size", batch_size),
        steps=_opt_int("steps", steps),
        learning_rate=_opt_pos("learning_rate", learning_rate),
        contraction=_contraction_arg(contraction),
        strong_convexity=_opt_pos("strong_convexity", strong_convexity),
        smoothness=_opt_pos("smoothness", smoothness),
        diameter=_opt_pos("diameter", diameter),
    )


def noisy_gd(*,
             sensitivity: float,
             dataset_size: int,
             noise: float,
             steps: int,
             setting: str = "strongly-convex",
             learning_rate: Optional[float] = None,
             contraction: Optional[float] = None,
             strong_convexity: Optional[float] = None,
             smoothness: Optional[float] = None,
             diameter: Optional[float] = None,
             learning_rates: Optional[Sequence[float]] = None,
             lr_decay: Optional[float] = None,
             delta: float = 1e-5) -> ShiftedReport:
    """NoisyGD (full batch, one step's sensitivity ηL/n): the bounds of ``dpkit shifted
    noisy-gd``, each with μ and ε at ``delta``.

    Rows by setting: ``strongly-convex`` — shifted-interpolation (Thm 4.2, exact), rdp-shifted
    (the same as RDP, Lemma A.4), shifted-interpolation (with diameter) when a diameter is
    given, rdp-ys22 (YS22 with c_ys = 1 − ηm/2) when η and m are given; ``constrained-convex``
    — shifted-interpolation (the optimisation problem with z_τ = D), Thm 4.3 (when t ≥
    Dn/(ηL)), Thm C.7 at the best τ; always composition (Thm 4.1).

    Args:
        sensitivity: L > 0. dataset_size: n ≥ 1. noise: σ > 0 (noise rate). steps: t ≥ 1.
        setting: ``"strongly-convex"`` (needs ``contraction``, or ``learning_rate`` with
            ``strong_convexity`` and ``smoothness``), ``"convex"`` or ``"constrained-convex"``
            (needs ``diameter`` and ``learning_rate``).
        learning_rates: a schedule η_1..η_t (length ``steps``; needs strong_convexity and
            smoothness): adds "shifted-interpolation (schedule)", Thm C.3 with per-step
            contractions (not in the paper). ``lr_decay`` τ₀ builds η_k = η/(1 + k/τ₀).
        delta: δ ∈ [1e-290, 1).

    Example:
        >>> r = dpkit.shifted.noisy_gd(sensitivity=0.1, dataset_size=1, noise=1, steps=160,
        ...                            contraction=0.95, learning_rate=0.05, strong_convexity=1)
        >>> r["shifted-interpolation"].mu, float(r["composition"])   # 0.6243..., 5.7594...
    """
    inputs = _common(sensitivity, _pos("noise", noise), dataset_size, None, steps, learning_rate,
                     contraction, strong_convexity, smoothness, diameter)
    if lr_decay is not None:
        inputs["lr_decay"] = _pos("lr_decay", lr_decay)
    if learning_rates is not None:
        x = np.atleast_1d(np.asarray(learning_rates, dtype=float))
        if x.ndim != 1 or not np.all(np.isfinite(x)) or np.any(x <= 0):
            raise ValueError("learning_rates must be a one-dimensional array of finite numbers "
                             "> 0")
        inputs["learning_rates"] = [float(v) for v in x]
    return _report("noisy-gd", setting, inputs, delta)


def noisy_cgd(*,
              sensitivity: float,
              batch_size: int,
              noise: float,
              dataset_size: Optional[int] = None,
              batches_per_epoch: Optional[int] = None,
              steps: Optional[int] = None,
              epochs: Optional[int] = None,
              setting: str = "strongly-convex",
              learning_rate: Optional[float] = None,
              contraction: Optional[float] = None,
              strong_convexity: Optional[float] = None,
              smoothness: Optional[float] = None,
              diameter: Optional[float] = None,
              delta: float = 1e-5) -> ShiftedReport:
    """NoisyCGD (cyclic batches: l = n/b per epoch in a fixed order, one step's sensitivity
    ηL/b): the bounds of ``dpkit shifted noisy-cgd``.

    Rows: ``strongly-convex`` — shifted-interpolation (Thm 4.5), lower-bound (Thm C.17: no
    better μ can hold), rdp-ys22 (YS22 Thm 3.3); ``convex`` — shifted-interpolation (derived
    c = 1); ``constrained-convex`` — the optimisation problem, the derived c = 1 bound, Thm 4.6
    (when E ≥ Db/(ηL)) and Thm 4.6 at the best τ (τ in epochs); always composition (Thm 4.4).

    Args:
        batch_size: b; ``dataset_size`` n a multiple of b, or ``batches_per_epoch`` l (n = l·b).
        steps: t, a multiple of l — or ``epochs`` E (t = E·l). Other arguments as
            :func:`noisy_gd`.

    Example:
        >>> r = dpkit.shifted.noisy_cgd(sensitivity=1, batch_size=10, batches_per_epoch=20,
        ...                             noise=1, learning_rate=0.1, contraction=0.99, epochs=50)
    """
    inputs = _common(sensitivity, _pos("noise", noise), dataset_size, batch_size, steps,
                     learning_rate, contraction, strong_convexity, smoothness, diameter)
    inputs["epochs"] = _opt_int("epochs", epochs)
    inputs["batches_per_epoch"] = _opt_int("batches_per_epoch", batches_per_epoch)
    return _report("noisy-cgd", setting, inputs, delta)


def noisy_sgd(*,
              sensitivity: float,
              dataset_size: int,
              batch_size: int,
              noise: float,
              steps: int,
              setting: str = "strongly-convex",
              learning_rate: Optional[float] = None,
              contraction: Optional[float] = None,
              strong_convexity: Optional[float] = None,
              smoothness: Optional[float] = None,
              diameter: Optional[float] = None,
              shifts: Optional[Sequence[float]] = None,
              optimise_split: bool = False,
              exhaustive_tau: bool = False,
              relative_accuracy: float = 1e-3,
              delta: float = 1e-5) -> ShiftedReport:
    """NoisySGD (batches of b drawn uniformly from n, sampling rate b/n): the bounds of
    ``dpkit shifted noisy-sgd``, certified by the PLD accountant (``lower``/``upper`` are its
    bracket).

    Rows: shifted-interpolation (C.13 shifts) with ``shifts``; ``strongly-convex`` —
    shifted-interpolation (Thm 4.9, τ optimised; needs t ≥ 2) and its CLT choice (Prop C.14,
    an approximation); ``constrained-convex`` — Thm 4.10 and Prop C.15 (CLT); always
    composition (Thm 4.8). τ is optimised exhaustively for t ≤ 64 (or with ``exhaustive_tau``:
    one PLD evaluation per τ), else by golden-section search (a valid bound either way;
    ``details["exhaustive"]`` says which). ``optimise_split`` also searches the noise split α.

    Args:
        shifts: Thm C.13 with your shifts a_k/(ηL/b) ∈ [0, 1], t − 1 of them (strongly convex).
        relative_accuracy: PLD bracket width (upper − lower)/upper, default 1e-3.
        Other arguments as :func:`noisy_gd`.

    Example:
        >>> r = dpkit.shifted.noisy_sgd(sensitivity=1, dataset_size=1000, batch_size=100,
        ...                             noise=0.5, learning_rate=0.5, contraction=0.9, steps=400)
        >>> float(r["shifted-interpolation"]), r["shifted-interpolation"].tau
    """
    inputs = _common(sensitivity, _pos("noise", noise), dataset_size, batch_size, steps,
                     learning_rate, contraction, strong_convexity, smoothness, diameter)
    inputs["relative_accuracy"] = _core._real("relative_accuracy", relative_accuracy,
                                              lambda v: 1e-8 <= v < 1, "a number in [1e-8, 1)")
    inputs["optimise_split"] = bool(optimise_split)
    inputs["exhaustive_tau"] = bool(exhaustive_tau)
    if shifts is not None:
        inputs["shifts"] = [float(v) for v in np.asarray(shifts, dtype=float).ravel()]
    return _report("noisy-sgd", setting, inputs, delta)


def lmc(*,
        sensitivity: float,
        setting: str = "strongly-convex",
        strong_convexity: Optional[float] = None,
        learning_rate: Optional[float] = None,
        steps: Optional[int] = None,
        diameter: Optional[float] = None,
        delta: float = 1e-5) -> ShiftedReport:
    """Langevin Monte Carlo and exponential mechanisms (BSA24 §5): the bounds of ``dpkit
    shifted lmc``. ``sensitivity`` L: F − F′ is L-Lipschitz.

    Rows: ``strongly-convex`` (needs strong_convexity m and learning_rate η ≤ 2/(M + m)) —
    shifted-interpolation (Prop 5.1, every t, tight), shifted-interpolation (t steps) when
    ``steps`` is given, exponential-mechanism (Cor 5.2); ``constrained-convex`` (needs
    ``diameter`` D) — log-concave-mechanism (Cor 5.4), projected-lmc (with learning_rate),
    pure-dp (MT07): the standard (2LD, 0)-DP for comparison.

    Example:
        >>> r = dpkit.shifted.lmc(sensitivity=2, strong_convexity=1, learning_rate=0.1)
        >>> r["shifted-interpolation"].mu       # √(1.9/2)·2 = 1.9493...
    """
    inputs = _common(sensitivity, None, None, None, steps, learning_rate, None, strong_convexity,
                     None, diameter)
    return _report("lmc", setting, inputs, delta)
