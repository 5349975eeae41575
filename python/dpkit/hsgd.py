"""Rényi DP of one-pass noisy SGD on least squares through noisy HSGD (Lin et al. §4.2, Thms
4.3–4.5) — the Python face of ``dpkit hsgd privacy``.

Noisy SGD is replaced by its high-dimensional diffusion surrogate, noisy HSGD; its linearisation
is a Gaussian process N(m(t), V(t)) (:func:`law`). Two datasets that differ in one record give
two Gaussian processes, and their Rényi divergence D_α is computed exactly. With the record's
position uniform over the pass, s ~ U(0, T), T = n/d (or the SGD step ℓ ~ U{1..n}):

    ε_α(t) = 1/(α − 1) · log1p((1/T) ∫₀ᵗ expm1((α − 1) sup_θ D_α(t; s, θ)) ds)

**What the numbers are.** Every privacy number of this module has ``kind == "approximation"``:
exact (up to the reported quadrature error) for the linearised HSGD surrogate, a supremum over
the *candidate pairs given* only (the other records enter as the diffusion's average), and its
transfer to noisy SGD rests on Lin et al.'s unproven Conjecture 3.1. They are not worst-case DP
guarantees,
nor the privacy of a fixed pair of datasets: the HSGD law counts the fluctuation of the other
records as noise, and for a fixed pair (the other records shared) noisy SGD's exact μ was about
twice the HSGD μ in dpkit's validation (docs/hsgd.md, "A fixed pair of datasets").

Units and names: time t = k/d (k SGD steps, d the dimension); ``learning_rate`` the HSGD rate
γ = ηd (the paper's η = 0.05 at d = 1000 is γ = 50); ``noise`` the DP noise σ (> 0) of
g = ∇f + σZ; ``ridge`` δ; ``label_noise`` E w²; ``horizon`` T = n/d (one pass); ``alpha`` the
Rényi order(s) α > 1; ``features`` the n×d records a_iᵀ and ``labels`` b_i, in the original
coordinates; ``pairs`` the candidate neighbouring pairs (record i in one dataset, j in the
other).

Functions: :func:`law` (the Gaussian law, reused across calls), :func:`rdp` (ε_α(t) of the last
iterate, or of several iterates / their average, and ε at δ), :func:`renyi_divergence` (one
pair, one position), :func:`epsilon_delta`, :func:`all_pairs`, :func:`extreme_label_pairs`,
:func:`mean_gap_proxy`, :func:`top_pairs_by_proxy`. docs/hsgd.md has the derivations and the
paper's corrections (the argument order of Lemma C.2, the pre-s blocks of Thms 4.4/4.5).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core, _dpkit, _errors
from ._checks import nonneg as _nonneg, pos as _pos, vector as _vector, choice as _choice
from .volterra import Schedule, Spectrum, _check_symmetric, _gamma

__all__ = [
    "Law",
    "RdpResult",
    "EpsilonDelta",
    "law",
    "rdp",
    "renyi_divergence",
    "epsilon_delta",
    "all_pairs",
    "extreme_label_pairs",
    "mean_gap_proxy",
    "top_pairs_by_proxy",
    "RELEASES",
    "ORDERS",
    "MIXTURES",
]

#: ``last`` (X_t at each time, Thm 4.3), ``iterates`` (X_{t_1..t_J} jointly, Thm 4.4),
#: ``average`` ((1/J) Σ X_{t_j}, Thm 4.5).
RELEASES = ("last", "iterates", "average")
#: ``symmetric`` (max of both argument orders: an unordered pair; default), ``forward``
#: (D_α(P₁‖P₂), the correct reading), ``paper`` (the printed formula, = D_α(P₂‖P₁)).
ORDERS = ("symmetric", "forward", "paper")
#: ``continuous`` (s ~ U(0, T), the paper's integral), ``discrete`` (step ℓ ~ U{1..n}, an
#: exact sum; needs T·d whole).
MIXTURES = ("continuous", "discrete")

Array = Union[Sequence[float], np.ndarray]


def _call(fn, *args):
    return _errors.call(fn, *args, names={"params.sigma": "noise", "data.features": "features",
                                          "data.labels": "labels",
                                          "law.problem().sigma": "noise",
                                          "sigma_matrix": "covariance"}, strip=("params.",))


# ---- the law ----------------------------------------------------------------------------------


class Law:
    """The Gaussian law N(m(t), V(t)) of linearised noisy HSGD (Lin et al. eq. (10)) on
    [0, horizon], in the eigenbasis of Σ. Built by :func:`law`; building solves the risk ODE
    once, and every privacy call reuses it.

    ``termination``/``message``: the risk solve's status (privacy results inherit a failure);
    ``interpolation_error``: the estimated relative error of the interpolated eigen-variances.
    """

    def __init__(self, handle: Any) -> None:
        self._h = handle

    @property
    def dimension(self) -> int:
        return int(self._h.dimension)

    @property
    def horizon(self) -> float:
        return float(self._h.horizon)

    @property
    def termination(self) -> str:
        return str(self._h.termination)

    @property
    def message(self) -> str:
        return str(self._h.message)

    @property
    def interpolation_error(self) -> float:
        return float(self._h.interpolation_error)

    @property
    def spectrum(self) -> Spectrum:
        """The eigen-groups as :mod:`dpkit.volterra` sees them (decreasing eigenvalue)."""
        return Spectrum._from(self._h.problem)

    @property
    def x0(self) -> np.ndarray:
        """x0 in eigen-coordinates."""
        return np.asarray(self._h.x0)

    @property
    def xstar(self) -> np.ndarray:
        """The ridge minimiser x⋆ = (Σ + δI)⁻¹Σx̃ in eigen-coordinates."""
        return np.asarray(self._h.xstar)

    def to_eigen(self, x: Array) -> np.ndarray:
        """Uᵀx: original → eigen-coordinates."""
        return np.asarray(_call(self._h.to_eigen, _vector("x", x, self.dimension)))

    def _t(self, t: Any) -> np.ndarray:
        x = np.atleast_1d(np.asarray(t, dtype=float))
        if not np.all((x >= 0) & (x <= self.horizon)):
            raise ValueError(f"t must be in [0, horizon] = [0, {self.horizon:g}]")
        return x

    def P(self, t: Any) -> np.ndarray:
        """P_t = E 𝒫(X_t) (Lin et al. eq. (6)) at each t."""
        return np.asarray([self._h.P(float(v)) for v in self._t(t)])

    def Gamma(self, t: Any) -> np.ndarray:
        """Γ(t) = ∫₀ᵗ γ at each t."""
        return np.asarray([self._h.Gamma(float(v)) for v in self._t(t)])

    def mean(self, t: float) -> np.ndarray:
        """m(t) in eigen-coordinates (the gradient-flow mean)."""
        return np.asarray(self._h.mean(float(self._t(t)[0])))

    def variances(self, t: float) -> np.ndarray:
        """The diagonal of V(t) in eigen-coordinates (length d)."""
        return np.asarray(self._h.variances(float(self._t(t)[0])))

    def __repr__(self) -> str:
        return (f"<dpkit.hsgd.Law d={self.dimension} horizon={self.horizon:g} "
                f"groups={int(self._h.group_count)} {self.termination}>")


def law(*,
        x0: Array,
        xtilde: Array,
        noise: float,
        horizon: float,
        covariance: Any = None,
        eigenvalues: Optional[Array] = None,
        eigenvectors: Any = None,
        two_level: Optional[Tuple[float, float]] = None,
        ridge: float = 0.0,
        label_noise: float = 0.0,
        learning_rate: Optional[float] = None,
        schedule: Optional[Schedule] = None,
        grid_intervals: int = 1024,
        relative_tolerance: float = 1e-10,
        group_tolerance: float = 1e-10) -> Law:
    """The Gaussian law of linearised noisy HSGD for Σ = E[a aᵀ] given in one of four ways:

    * ``covariance``: a symmetric PSD d×d array (eigendecomposition, O(d³)), or
      ``"paper-design"`` (Lin et al. 2025 [LKSP25]'s true Σ = I/(12d) + 𝟏𝟏ᵀ/(4d)) or
      ``"paper-code"`` (the released code's I/(12d)) — the CLI's ``--spectrum`` values (the
      names of dpkit 0.1, ``"seed-design"`` and ``"seed-code"``, are still accepted);
    * ``eigenvalues`` λ (length d) with ``eigenvectors`` U (columns; None: Σ is diagonal);
    * ``two_level=(bulk, spike)``: Σ = λ_b I + (λ_1 − λ_b)uuᵀ, u = 𝟏/√d (O(d) per vector).

    Args:
        x0, xtilde: the start x0 and label-generating target x̃, original coordinates (length d).
        noise: σ > 0, the DP noise. horizon: T > 0 (one pass over n records: n/d).
        ridge, label_noise: δ, E w² ≥ 0. learning_rate: constant γ = ηd, or ``schedule``.
        grid_intervals, relative_tolerance, group_tolerance: the law's time grid, the risk
            solve's tolerance and the eigenvalue grouping (docs/hsgd.md).
    """
    a = _vector("x0", x0)
    d = a.size
    b = _vector("xtilde", xtilde, d)
    sigma = _pos("noise", noise)
    T = _pos("horizon", horizon)
    params = {"ridge": _nonneg("ridge", ridge), "label_noise": _nonneg("label_noise", label_noise),
              "sigma": sigma}
    g = _gamma(learning_rate, None, schedule, d)
    opts = {"grid_intervals": _core._integer("grid_intervals", grid_intervals, 2,
                                             "an integer >= 2"),
            "relative_tolerance": _core._real("relative_tolerance", relative_tolerance,
                                              lambda x: 0 < x < 1, "a number in (0, 1)"),
            "group_tolerance": _nonneg("group_tolerance", group_tolerance)}
    ways = [x is not None for x in (covariance, eigenvalues, two_level)]
    if sum(ways) != 1:
        raise ValueError("covariance is required (a d x d array, 'paper-design' or 'paper-code'), "
                         "or eigenvalues, or two_level — exactly one of them")
    if eigenvectors is not None and eigenvalues is None:
        raise ValueError("eigenvectors must be given together with eigenvalues")
    spec = g._spec()
    if isinstance(covariance, str):
        family = {"seed-design": "paper-design", "seed-code": "paper-code"}.get(covariance,
                                                                               covariance)
        if family == "paper-design":
            two_level = (1.0 / (12.0 * d), 0.25 + 1.0 / (12.0 * d))
        elif family == "paper-code":
            eigenvalues = np.full(d, 1.0 / (12.0 * d))
        else:
            raise _core._bad("covariance", covariance,
                             "a d x d array, 'paper-design' or 'paper-code'")
        covariance = None
    if covariance is not None:
        m = np.asarray(covariance, dtype=float)
        if m.shape != (d, d) or not np.all(np.isfinite(m)):
            raise ValueError(f"covariance must be a finite {d} x {d} array (d = len(x0))")
        _check_symmetric(m)
        h = _call(_dpkit.hsgd_law_covariance, m, a, b, params, spec, T, opts)
    elif two_level is not None:
        try:
            bulk, spike = (float(v) for v in two_level)
        except (TypeError, ValueError):
            raise ValueError("two_level must be a pair (bulk, spike) of numbers >= 0") from None
        if d < 2:
            raise ValueError("x0 must have at least 2 entries for two_level")
        h = _call(_dpkit.hsgd_law_two_level, _nonneg("bulk", bulk), _nonneg("spike", spike),
                  a, b, params, spec, T, opts)
    else:
        lam = _vector("eigenvalues", eigenvalues, d)
        u = None
        if eigenvectors is not None:
            u = np.asarray(eigenvectors, dtype=float)
            if u.shape != (d, d):
                raise ValueError(f"eigenvectors must be a {d} x {d} array (columns)")
        h = _call(_dpkit.hsgd_law_eigen, lam, u, a, b, params, spec, T, opts)
    return Law(h)


def _check_law(v: Any) -> Law:
    if not isinstance(v, Law):
        raise ValueError(f"law is {type(v).__name__}, but must be a dpkit.hsgd.Law (see "
                         f"dpkit.hsgd.law)")
    return v


def _dataset(lw: Law, features: Any, labels: Any) -> Tuple[np.ndarray, np.ndarray]:
    f = np.asarray(features, dtype=float)
    if f.ndim != 2 or f.shape[1] != lw.dimension or not np.all(np.isfinite(f)):
        raise ValueError(f"features must be a finite n x d array with d = {lw.dimension}")
    y = _vector("labels", labels, f.shape[0])
    return f, y


# ---- candidate pairs --------------------------------------------------------------------------

def all_pairs(n: int) -> np.ndarray:
    """All unordered pairs i < j < n, shape (n(n−1)/2, 2) (with the symmetric order they cover
    every ordered pair)."""
    return np.asarray(_call(_dpkit.hsgd_all_pairs, _core._integer("n", n, 2, "an integer >= 2")))


def extreme_label_pairs(labels: Array, count: int) -> np.ndarray:
    """The released code's screen: the ``count`` largest-label records × the ``count``
    smallest-label ones (count² pairs, largest first); 1 ≤ count ≤ n/2."""
    y = _vector("labels", labels)
    k = _core._integer("count", count, 1, "an integer >= 1")
    return np.asarray(_call(_dpkit.hsgd_extreme_pairs, np.zeros((y.size, 1)), y, k))


def _pairs(pairs: Any, lw: Optional[Law], f: np.ndarray, y: np.ndarray) -> np.ndarray:
    n = y.size
    if isinstance(pairs, str):
        kind, _, arg = pairs.partition(":")
        if kind == "all" and not arg:
            return all_pairs(n)
        if kind in ("extreme", "proxy") and arg:
            try:
                k = int(arg)
            except ValueError:
                k = 0
            if k < 1:
                raise ValueError(f"pairs is {pairs!r}, but K must be an integer >= 1")
            if kind == "extreme":
                return extreme_label_pairs(y, k)
            return top_pairs_by_proxy(lw, f, y, all_pairs(n), s=0.0, count=k)
        raise ValueError(f"pairs is {pairs!r}, but must be 'all', 'extreme:K', 'proxy:K' or an "
                         f"array of shape (k, 2)")
    p = np.asarray(pairs)
    if p.ndim == 1 and p.size == 2:
        p = p.reshape(1, 2)
    if p.ndim != 2 or p.shape[1] != 2 or p.shape[0] == 0 or not np.issubdtype(p.dtype, np.integer):
        raise ValueError("pairs must be 'all', 'extreme:K', 'proxy:K' or an integer array of shape "
                         "(k, 2)")
    if np.any(p < 0) or np.any(p >= n) or np.any(p[:, 0] == p[:, 1]):
        raise ValueError(f"pairs must hold record indices in [0, {n}) with first != second")
    return np.ascontiguousarray(p, dtype=np.int64)


def mean_gap_proxy(law: Law, features: Any, labels: Array, pairs: Any, s: float) -> np.ndarray:
    """The exact mean-gap proxy h‖r₁a₁ − r₂a₂‖ (h = γ(s)/d, r_i = b_i − a_iᵀm(s)) of each pair
    at time s: the gap of the two processes' means just after the differing step."""
    lw = _check_law(law)
    f, y = _dataset(lw, features, labels)
    p = _pairs(pairs, lw, f, y)
    return np.asarray(_call(_dpkit.hsgd_mean_gap, lw._h, f, y, p, float(s)))


def top_pairs_by_proxy(law: Law, features: Any, labels: Array, pairs: Any, *, s: float = 0.0,
                       count: int) -> np.ndarray:
    """The ``count`` pairs of ``pairs`` with the largest :func:`mean_gap_proxy` at s."""
    lw = _check_law(law)
    f, y = _dataset(lw, features, labels)
    p = _pairs(pairs, lw, f, y)
    k = _core._integer("count", count, 1, "an integer >= 1")
    return np.asarray(_call(_dpkit.hsgd_top_pairs, lw._h, f, y, p, float(s), k))


# ---- divergences and RDP -----------------------------------------------------------------------

def renyi_divergence(law: Law, *, first: Tuple[Array, float], second: Tuple[Array, float],
                     s: float, alpha: float, t: Optional[float] = None,
                     times: Optional[Array] = None, release: str = "last",
                     order: str = "forward") -> float:
    """D_α between the two neighbouring processes: process 1 uses record ``first`` = (a, b) at
    time s, process 2 ``second``; a in original coordinates. ``release`` ``last`` compares X_t
    (give ``t``); ``iterates``/``average`` the joint release of, or the average over, ``times``.
    0 when s is after the release; +inf when M_α is not positive definite (α too large)."""
    lw = _check_law(law)
    rel = _choice("release", release, RELEASES)
    o = _choice("order", order, ("forward", "paper", "symmetric"))
    recs = []
    for nm, r in (("first", first), ("second", second)):
        try:
            av, bv = r
        except (TypeError, ValueError):
            raise ValueError(f"{nm} must be a record (a, b)") from None
        recs.append((_vector(f"{nm}[0]", av, lw.dimension),
                     _core._real(f"{nm}[1]", bv, lambda x: True, "a finite number")))
    al = _core._real("alpha", alpha, lambda x: x > 1, "a finite number > 1")
    if rel == "last":
        if t is None or times is not None:
            raise ValueError("t is required for release='last' (and times is not used)")
        ts = [float(_core._real("t", t, lambda x: x >= 0, "a finite number >= 0"))]
    else:
        if times is None or t is not None:
            raise ValueError(f"times is required for release={rel!r} (and t is not used)")
        ts = _vector("times", times).tolist()
    return float(_call(_dpkit.hsgd_renyi, lw._h, recs[0][0], recs[0][1], recs[1][0], recs[1][1],
                       ts, _nonneg("s", s), al, o, rel))


@dataclass(frozen=True)
class EpsilonDelta:
    """ε at δ from RDP at several orders (best of four conversions). kind: approximation
    (inherits the RDP values' label)."""

    epsilon: float
    delta: float
    alpha: float
    conversion: str
    kind: str
    termination: str
    message: str

    @property
    def caveat(self) -> str:
        """What this number is and is not (the library's text, as ``dpkit hsgd privacy`` prints
        it): an approximation for the HSGD surrogate, not a DP guarantee."""
        return _dpkit.hsgd_privacy_caveat


def epsilon_delta(alphas: Array, rdp: Array, delta: float) -> EpsilonDelta:
    """(ε, δ) from ε_α at several orders α (orders with ε_α = +inf are skipped; +inf if all
    are), by the best of dpkit's RDP conversions. Labelled approximation (HSGD's RDP values are)."""
    a = np.atleast_1d(np.asarray(alphas, dtype=float))
    e = np.atleast_1d(np.asarray(rdp, dtype=float))
    if a.ndim != 1 or a.size == 0 or not np.all((a > 1) & np.isfinite(a)):
        raise ValueError("alphas must be a non-empty one-dimensional array of finite orders > 1")
    if e.shape != a.shape or np.any(np.isnan(e)) or np.any(e < 0):
        raise ValueError("rdp must have one value >= 0 (or +inf) per order")
    d = _core._delta_arg(delta)
    r = _call(_dpkit.hsgd_epsilon_delta, a.tolist(), e.tolist(), d)
    return EpsilonDelta(epsilon=float(r["epsilon"]), delta=d, alpha=float(r["alpha"]),
                        conversion=str(r["conversion"]), kind=str(r["kind"]),
                        termination=str(r["termination"]),
                        message=str(r["message"]))


@dataclass(frozen=True)
class RdpResult:
    """The HSGD surrogate's Rényi divergence (ε_α) at several orders and release times — an
    approximation, not a DP guarantee (kind ``approximation``; ``caveat``).

    Attributes:
        times: the release times (``last``: one column per time; ``iterates``/``average``: one
            column, t_J).
        alphas: the orders.
        epsilon_alpha: ε_α, shape (orders, columns); +inf where M_α is not positive definite
            (α too large: a vacuous bound, not a failure).
        abs_error: the quadrature's estimated absolute error (0 for the discrete mixture).
        law_error: the estimated effect of the law's interpolation (an estimate, not a bound).
        epsilon: ε at ``delta`` per column by the best RDP conversion over the orders (None
            when no delta was given); ``epsilon_alpha_used`` the winning order.
        pair_epsilons: with ``per_pair``: each candidate pair's own ε_α, shape
            (orders, columns, pairs); else None.
        pairs: the candidate pairs used, shape (k, 2).
        kind: always ``approximation`` (see the module docstring); ``caveat`` says what the
            numbers are and are not, in the words ``dpkit hsgd privacy`` prints.
        release, order, mixture: how it was computed.
        termination: the worst over all orders and times; message: the first non-empty one.
    """

    times: np.ndarray
    alphas: np.ndarray
    epsilon_alpha: np.ndarray
    abs_error: np.ndarray
    law_error: np.ndarray
    epsilon: Optional[np.ndarray]
    epsilon_alpha_used: Optional[np.ndarray]
    delta: Optional[float]
    pair_epsilons: Optional[np.ndarray]
    pairs: np.ndarray
    kind: str
    release: str
    order: str
    mixture: str
    termination: str
    message: str

    @property
    def converged(self) -> bool:
        return self.termination == "converged"

    @property
    def caveat(self) -> str:
        """What these numbers are and are not (the library's text, as ``dpkit hsgd privacy``
        prints it): an approximation for the HSGD surrogate, not a DP guarantee; for a fixed
        pair of datasets noisy SGD's exact μ was about twice the HSGD μ."""
        return _dpkit.hsgd_privacy_caveat


_SEVERITY = {"converged": 0, "max_iterations": 1, "failure": 2}


def rdp(law: Law, features: Any, labels: Array, *,
        pairs: Any,
        times: Array,
        alpha: Union[float, Array] = 2.0,
        release: str = "last",
        order: str = "symmetric",
        mixture: str = "continuous",
        delta: Optional[float] = None,
        relative_tolerance: float = 1e-6,
        absolute_tolerance: float = 0.0,
        max_intervals: int = 2000,
        per_pair: bool = False) -> RdpResult:
    """ε_α of noisy HSGD for the dataset (``features``, ``labels``) against neighbours that swap
    one record for another (Lin et al. Thm 4.3 eq. (15); Thms 4.4, 4.5 for the other releases).

    Args:
        law: from :func:`law` (its Σ, x0, x̃, schedule and horizon T; the position mixture is
            over [0, T]).
        features: n×d records a_iᵀ (original coordinates). labels: b_i (length n).
        pairs: candidate pairs: ``"all"``, ``"extreme:K"`` (K largest × K smallest labels, the
            released code's screen), ``"proxy:K"`` (top K by the mean-gap proxy at s = 0), or
            an integer array of shape (k, 2) of record indices.
        times: release times in [0, T] (``last``: each is a separate release; ``iterates``,
            ``average``: strictly increasing in (0, T], one joint release).
        alpha: one order α > 1 or several (then ε at δ uses the best conversion over them).
        release: ``last``, ``iterates`` or ``average``. order: ``symmetric`` (default),
            ``forward`` or ``paper``. mixture: ``continuous`` or ``discrete``.
        delta: also convert to ε at this δ ∈ (0, 1) per time.
        relative_tolerance, absolute_tolerance, max_intervals: the adaptive quadrature
            (``max_iterations`` when the interval budget runs out).
        per_pair: also integrate each pair's own ε_α.

    Returns:
        :class:`RdpResult` (kind ``approximation``).
    """
    lw = _check_law(law)
    f, y = _dataset(lw, features, labels)
    p = _pairs(pairs, lw, f, y)
    rel = _choice("release", release, RELEASES)
    opts: Dict[str, Any] = {
        "order": _choice("order", order, ORDERS),
        "mixture": _choice("mixture", mixture, MIXTURES),
        "relative_tolerance": _core._real("relative_tolerance", relative_tolerance,
                                          lambda x: 0 < x < 1, "a number in (0, 1)"),
        "absolute_tolerance": _nonneg("absolute_tolerance", absolute_tolerance),
        "max_intervals": _core._integer("max_intervals", max_intervals, 1, "an integer >= 1"),
        "per_pair": bool(per_pair)}
    al = np.atleast_1d(np.asarray(alpha, dtype=float))
    if al.ndim != 1 or al.size == 0 or not np.all(np.isfinite(al) & (al > 1)):
        raise ValueError("alpha must be an order > 1 or a one-dimensional array of them")
    ts = np.atleast_1d(np.asarray(times, dtype=float))
    if ts.ndim != 1 or ts.size == 0 or not np.all((ts >= 0) & (ts <= lw.horizon)):
        raise ValueError(f"times must be a non-empty array of times in [0, horizon] = "
                         f"[0, {lw.horizon:g}]")
    if rel != "last" and (np.any(np.diff(ts) <= 0) or ts[0] <= 0):
        raise ValueError("times must be strictly increasing in (0, horizon] for "
                         f"release={rel!r}")
    d = None if delta is None else _core._real("delta", delta, lambda x: 0 < x < 1,
                                               "a number in (0, 1)")
    cols = ts.size if rel == "last" else 1
    eps = np.full((al.size, cols), np.nan)
    abs_err = np.full_like(eps, np.nan)
    law_err = np.full_like(eps, np.nan)
    pair_eps = np.full((al.size, cols, p.shape[0]), np.nan) if per_pair else None
    worst, message = "converged", ""
    for i, a in enumerate(al):
        r = _call(_dpkit.hsgd_rdp, lw._h, f, y, p, ts.tolist(), float(a), rel, opts)
        for j, v in enumerate(r["values"]):
            eps[i, j] = v["epsilon"]
            abs_err[i, j] = v["abs_error"]
            law_err[i, j] = v["law_error"]
            if pair_eps is not None and len(v["pair_epsilons"]) == p.shape[0]:
                pair_eps[i, j, :] = np.asarray(v["pair_epsilons"])
            if _SEVERITY.get(v["termination"], 2) > _SEVERITY[worst]:
                worst = str(v["termination"])
            if not message and v["message"]:
                message = f"alpha {a:g}, t {v['time']:g}: {str(v['message'])}"
        if _SEVERITY.get(r["termination"], 2) > _SEVERITY[worst]:
            worst = str(r["termination"])
        if not message and r["message"]:
            message = f"alpha {a:g}: {str(r['message'])}"
    epsilon = used = None
    if d is not None:
        epsilon = np.full(cols, np.nan)
        used = np.full(cols, np.nan)
        for j in range(cols):
            col = eps[:, j]
            if np.any(np.isnan(col)):
                continue
            e = epsilon_delta(al, col, d)
            epsilon[j], used[j] = e.epsilon, e.alpha
    return RdpResult(times=ts if rel == "last" else ts[-1:], alphas=al, epsilon_alpha=eps,
                     abs_error=abs_err, law_error=law_err, epsilon=epsilon,
                     epsilon_alpha_used=used, delta=d, pair_epsilons=pair_eps, pairs=p,
                     kind=str(r["kind"]), release=rel, order=opts["order"],
                     mixture=opts["mixture"], termination=worst, message=message)
