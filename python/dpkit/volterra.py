"""Risk trajectories of one-pass noisy SGD on ridge least squares, through its diffusion surrogate
noisy HSGD (Lin: Lin, Kolaczyk, Smith & Paquette, Thm 4.2, eqs. (6)–(7)) — the Python face
of ``dpkit hsgd risk``.

The model (Lin et al. Algorithm 1): x_{k+1} = x_k − η(∇f(x_k; a_k, b_k) + σZ_k) with a fresh
example per step, f(x; a, b) = ½((aᵀx − b)² + δ‖x‖²), b = aᵀx̃ + w, Σ = E[a aᵀ].

Units and names:

``t``              time t = k/d (k SGD steps, d the dimension).
``learning_rate``  the HSGD rate γ = ηd (the paper's SGD step η = 0.05 at d = 1000 is γ = 50);
                   ``sgd_step_size`` η instead. A :class:`Schedule` gives γ(t).
``ridge``          δ ≥ 0.  ``label_noise``: E w² ≥ 0.  ``noise``: the DP noise σ ≥ 0.
``P``              P_t = E 𝒫(X_t), 𝒫(x) = ½E(aᵀx − b)² (the population risk).
``R``              R_t = P_t + (δ/2) E‖X_t‖².
``P_error``, ``R_error``  each solver's estimated absolute error (not a bound).

A :class:`Spectrum` is Σ as eigen-groups (eigenvalue, multiplicity) with three numbers of the
start x0 and target x̃ per group — ``e0_sq`` = Σ(x0,i − x̃_i)², ``xstar_sq`` = Σx̃_i² (x̃ is the
label-generating target, NOT the ridge minimiser), ``e0_xstar`` = Σ(x0,i − x̃_i)x̃_i over the
group's coordinates in the eigenbasis — plus d, ridge, label_noise and noise. Builders:
:func:`spectrum` (explicit groups), :func:`from_eigenvalues`, :func:`from_covariance`,
:func:`isotropic`, :func:`spiked`, :func:`power_law`, :func:`marchenko_pastur`,
:func:`two_level`, :func:`paper_instance`, :func:`read_spectrum`.

:func:`risk` returns a :class:`RiskCurve` whose ``termination`` is ``converged``,
``max_iterations`` (values are the best available, ``*_error`` says how good) or ``failure``
(values must not be used); ``max_kernel_norm`` ≥ 1 means the dynamics diverges (P_t grows
without bound; ``message`` says so). :func:`plateau` gives P_∞ for a constant rate.
docs/volterra.md has the equations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core, _dpkit, _errors
from ._checks import nonneg as _nonneg, pos as _pos, vector as _vector

__all__ = [
    "Spectrum",
    "Schedule",
    "RiskCurve",
    "Plateau",
    "spectrum",
    "from_eigenvalues",
    "from_covariance",
    "isotropic",
    "spiked",
    "power_law",
    "marchenko_pastur",
    "two_level",
    "paper_instance",
    "paper_start",
    "read_spectrum",
    "risk",
    "plateau",
    "kernel_norm",
    "gradient_flow_risk",
    "marchenko_pastur_cdf",
    "SOLVERS",
]

#: ``auto`` (the ODE lift by dopri5 when non-stiff, else the exponential stepper), ``ode``,
#: ``exponential``, ``trapezoid`` (the integral equations directly, O(N²)), ``closed-form``
#: (one group, constant rate: the exact isotropic solution).
SOLVERS = ("auto", "ode", "exponential", "trapezoid", "closed-form")

Array = Union[Sequence[float], np.ndarray]


def _call(fn, *args):
    return _errors.call(fn, *args, names={"params.sigma": "noise", "sigma": "noise",
                                          "energies.e0_sq": "start_error",
                                          "energies.xstar_sq": "target_norm",
                                          "energies.e0_xstar": "start_target"},
                        strip=("params.",))


def _params(ridge: Any, label_noise: Any, noise: Any) -> Dict[str, float]:
    return {"ridge": _nonneg("ridge", ridge), "label_noise": _nonneg("label_noise", label_noise),
            "sigma": _nonneg("noise", noise)}


def _energies(start_error: Any, target_norm: Any, start_target: Any) -> Dict[str, float]:
    return {"e0_sq": _nonneg("start_error", start_error),
            "xstar_sq": _nonneg("target_norm", target_norm),
            "e0_xstar": _core._real("start_target", start_target, lambda x: True,
                                    "a finite number")}


# ---- the problem -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Spectrum:
    """Σ = E[a aᵀ] as eigen-groups, with the start/target statistics and the scalar parameters.

    Attributes (arrays have one entry per eigen-group):
        eigenvalues: λ_g ≥ 0.
        multiplicities: k_g > 0 (quadrature weights for :func:`marchenko_pastur`); Σ k_g = d.
        e0_sq, xstar_sq, e0_xstar: Σ(x0,i − x̃_i)², Σx̃_i², Σ(x0,i − x̃_i)x̃_i over the group.
        d: the dimension. ridge: δ. label_noise: E w². noise: the DP noise σ.

    Build it with the module's builders (they validate it); ``dataclasses.replace(s, noise=1.5)``
    changes a parameter (validated when used).
    """

    eigenvalues: np.ndarray
    multiplicities: np.ndarray
    e0_sq: np.ndarray
    xstar_sq: np.ndarray
    e0_xstar: np.ndarray
    d: int
    ridge: float = 0.0
    label_noise: float = 0.0
    noise: float = 0.0

    @property
    def groups(self) -> int:
        return int(self.eigenvalues.size)

    @property
    def trace(self) -> float:
        """tr Σ = Σ_g k_g λ_g."""
        return float(np.dot(self.multiplicities, self.eigenvalues))

    def _dict(self) -> Dict[str, Any]:
        return {"eigenvalues": self.eigenvalues, "multiplicities": self.multiplicities,
                "e0_sq": self.e0_sq, "xstar_sq": self.xstar_sq, "e0_xstar": self.e0_xstar,
                "d": int(self.d), "ridge": _nonneg("ridge", self.ridge),
                "label_noise": _nonneg("label_noise", self.label_noise),
                "sigma": _nonneg("noise", self.noise)}

    def write(self, path: str) -> None:
        """Writes the spectrum file of ``dpkit hsgd risk --spectrum-file`` (docs/volterra.md);
        doubles round-trip exactly."""
        _call(_dpkit.volterra_write_csv, self._dict(), str(path))

    @classmethod
    def _from(cls, d: Dict[str, Any]) -> "Spectrum":
        return cls(eigenvalues=np.asarray(d["eigenvalues"]),
                   multiplicities=np.asarray(d["multiplicities"]),
                   e0_sq=np.asarray(d["e0_sq"]), xstar_sq=np.asarray(d["xstar_sq"]),
                   e0_xstar=np.asarray(d["e0_xstar"]), d=int(d["d"]), ridge=float(d["ridge"]),
                   label_noise=float(d["label_noise"]), noise=float(d["sigma"]))


def _check_spectrum(s: Any) -> Spectrum:
    if not isinstance(s, Spectrum):
        raise ValueError(f"spectrum is {type(s).__name__}, but must be a dpkit.volterra.Spectrum "
                         f"(build one with dpkit.volterra.spectrum, isotropic, ...)")
    return s


def spectrum(eigenvalues: Array, multiplicities: Array, *,
             e0_sq: Array,
             xstar_sq: Optional[Array] = None,
             e0_xstar: Optional[Array] = None,
             d: Optional[int] = None,
             ridge: float = 0.0,
             label_noise: float = 0.0,
             noise: float = 0.0) -> Spectrum:
    """A spectrum from explicit eigen-groups (kept in the given order), validated.

    Args:
        eigenvalues: λ_g ≥ 0. multiplicities: k_g > 0.
        e0_sq: Σ(x0,i − x̃_i)² per group (≥ 0). xstar_sq: Σx̃_i² (default 0). e0_xstar: the
            cross term (default 0; |e0_xstar| ≤ √(e0_sq·xstar_sq)).
        d: the dimension (default Σ k_g, which must then be an integer).
        ridge, label_noise, noise: δ, E w², σ (all ≥ 0).
    """
    lam = _vector("eigenvalues", eigenvalues)
    k = _vector("multiplicities", multiplicities, lam.size)
    e0 = _vector("e0_sq", np.broadcast_to(np.asarray(e0_sq, dtype=float), lam.shape), lam.size)
    xs = np.zeros_like(lam) if xstar_sq is None else _vector(
        "xstar_sq", np.broadcast_to(np.asarray(xstar_sq, dtype=float), lam.shape), lam.size)
    ex = np.zeros_like(lam) if e0_xstar is None else _vector(
        "e0_xstar", np.broadcast_to(np.asarray(e0_xstar, dtype=float), lam.shape), lam.size)
    if d is None:
        total = float(np.sum(k))
        if not float(total).is_integer():
            raise ValueError(f"d is required: the multiplicities sum to {total:g}, not an integer")
        dim = int(total)
    else:
        dim = _core._integer("d", d, 1, "an integer >= 1")
    p = {"eigenvalues": lam, "multiplicities": k, "e0_sq": e0, "xstar_sq": xs, "e0_xstar": ex,
         "d": dim, **_params(ridge, label_noise, noise)}
    return Spectrum._from(_call(_dpkit.volterra_from_groups, p))


def from_eigenvalues(eigenvalues: Array, x0: Array, xtilde: Array, *,
                     ridge: float = 0.0, label_noise: float = 0.0, noise: float = 0.0,
                     group_tolerance: float = 1e-10) -> Spectrum:
    """A spectrum from per-coordinate eigenvalues λ_i and x0, x̃ in the eigenbasis (u_iᵀx0,
    u_iᵀx̃), all of length d. Eigenvalues within ``group_tolerance``·λ_max are merged; groups
    come out in decreasing eigenvalue order."""
    lam = _vector("eigenvalues", eigenvalues)
    a = _vector("x0", x0, lam.size)
    b = _vector("xtilde", xtilde, lam.size)
    tol = _nonneg("group_tolerance", group_tolerance)
    return Spectrum._from(_call(_dpkit.volterra_from_eigenvalues, lam, a, b,
                                _params(ridge, label_noise, noise), tol))


def from_covariance(covariance: Any, x0: Array, xtilde: Array, *,
                    ridge: float = 0.0, label_noise: float = 0.0, noise: float = 0.0,
                    group_tolerance: float = 1e-10) -> Spectrum:
    """A spectrum from Σ = E[a aᵀ] (a symmetric PSD d×d array) and x0, x̃ in the original
    coordinates: eigendecomposition (O(d³)), then grouping as :func:`from_eigenvalues`."""
    m = np.asarray(covariance, dtype=float)
    if m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] == 0 or not np.all(np.isfinite(m)):
        raise ValueError("covariance must be a square two-dimensional array of finite numbers")
    _check_symmetric(m)
    a = _vector("x0", x0, m.shape[0])
    b = _vector("xtilde", xtilde, m.shape[0])
    tol = _nonneg("group_tolerance", group_tolerance)
    return Spectrum._from(_call(_dpkit.volterra_from_covariance, m, a, b,
                                _params(ridge, label_noise, noise), tol))


def _check_symmetric(m: np.ndarray) -> None:
    asym = float(np.max(np.abs(m - m.T))) if m.size else 0.0
    if asym > 1e-12 * float(np.max(np.abs(m))):
        raise ValueError(f"covariance must be symmetric, but max |S - S^T| is {asym:g}")


def _dim(d: Any, lo: int = 1) -> int:
    return _core._integer("d", d, lo, f"an integer >= {lo}")


def isotropic(d: int, eigenvalue: float, *,
              start_error: float = 1.0, target_norm: float = 0.0, start_target: float = 0.0,
              ridge: float = 0.0, label_noise: float = 0.0, noise: float = 0.0) -> Spectrum:
    """Σ = λI_d: one group. ``start_error`` ‖x0 − x̃‖², ``target_norm`` ‖x̃‖², ``start_target``
    ⟨x0 − x̃, x̃⟩ (the CLI's --start-error, --target-norm, --start-target)."""
    lam = _nonneg("eigenvalue", eigenvalue)
    return Spectrum._from(_call(_dpkit.volterra_family, "isotropic", _dim(d), [lam], 0,
                                _energies(start_error, target_norm, start_target),
                                _params(ridge, label_noise, noise)))


def spiked(d: int, bulk: float, spikes: Array, *,
           start_error: float = 1.0, target_norm: float = 0.0, start_target: float = 0.0,
           ridge: float = 0.0, label_noise: float = 0.0, noise: float = 0.0) -> Spectrum:
    """Σ = λ_b I + Σ_j (θ_j − λ_b)v_jv_jᵀ: one group per spike θ_j (equal spikes merged) and the
    bulk λ_b with multiplicity d − #spikes. Energies are spread by multiplicity (a
    rotation-invariant start and target)."""
    b = _nonneg("bulk", bulk)
    sp = _vector("spikes", np.atleast_1d(np.asarray(spikes, dtype=float)))
    return Spectrum._from(_call(_dpkit.volterra_family, "spiked", _dim(d), [b, *sp.tolist()], 0,
                                _energies(start_error, target_norm, start_target),
                                _params(ridge, label_noise, noise)))


def power_law(d: int, exponent: float, trace: float = 1.0, *,
              start_error: float = 1.0, target_norm: float = 0.0, start_target: float = 0.0,
              ridge: float = 0.0, label_noise: float = 0.0, noise: float = 0.0) -> Spectrum:
    """λ_j = c·j^(−exponent), j = 1..d, scaled so that tr Σ = ``trace``; one group per j."""
    e = _nonneg("exponent", exponent)
    tr = _pos("trace", trace)
    return Spectrum._from(_call(_dpkit.volterra_family, "power_law", _dim(d), [e, tr], 0,
                                _energies(start_error, target_norm, start_target),
                                _params(ridge, label_noise, noise)))


def marchenko_pastur(d: int, ratio: float, scale: float, groups: int = 200, *,
                     start_error: float = 1.0, target_norm: float = 0.0, start_target: float = 0.0,
                     ridge: float = 0.0, label_noise: float = 0.0, noise: float = 0.0) -> Spectrum:
    """The Marchenko–Pastur law with ratio c = d/n > 0 and scale s² > 0, discretised into
    ``groups`` equal-probability bins (each at its bin's mean eigenvalue; multiplicities d/G)."""
    c = _pos("ratio", ratio)
    s2 = _pos("scale", scale)
    g = _core._integer("groups", groups, 1, "an integer >= 1")
    return Spectrum._from(_call(_dpkit.volterra_family, "marchenko_pastur", _dim(d), [c, s2], g,
                                _energies(start_error, target_norm, start_target),
                                _params(ridge, label_noise, noise)))


def two_level(bulk: float, spike: float, x0: Array, xtilde: Array, *,
              ridge: float = 0.0, label_noise: float = 0.0, noise: float = 0.0) -> Spectrum:
    """Σ = λ_b I + (λ_1 − λ_b)uuᵀ with u = 𝟏/√d, x0 and x̃ in the original coordinates (their
    length is d ≥ 2): the spike group (multiplicity 1) and the bulk (d − 1), computed in O(d)."""
    a = _vector("x0", x0)
    b = _vector("xtilde", xtilde, a.size)
    return Spectrum._from(_call(_dpkit.volterra_two_level, a.size, _nonneg("bulk", bulk),
                                _nonneg("spike", spike), a, b, _params(ridge, label_noise, noise)))


def paper_start(d: int, *, x0_scale: float = 2.0, seed: int = 2) -> Tuple[np.ndarray, np.ndarray]:
    """(x0, x̃) of Lin et al. §5 as dpkit draws them (the CLI's ``--seed``/``--x0-scale``): x̃ iid
    U(0, 1/√d), then x0 ~ N(0, x0_scale² I) (2 in the released code, 1 in the paper). dpkit's
    counter-based stream, not numpy's: the instance is the paper's in law, not bit for bit."""
    s = _nonneg("x0_scale", x0_scale)
    sd = _core._integer("seed", seed, 0, "an integer >= 0")
    x0, xt = _call(_dpkit.volterra_lksp25_start, _dim(d), s, sd)
    return np.asarray(x0), np.asarray(xt)


def paper_instance(d: int, *, sigma: str = "design", x0_scale: float = 2.0, seed: int = 2,
                   ridge: float = 0.1, label_noise: float = 1e-5, noise: float = 1.5) -> Spectrum:
    """The §5 instance of Lin, Kolaczyk, Smith & Paquette 2025 [LKSP25] (the CLI's
    ``--spectrum paper-design`` / ``paper-code``): x0, x̃
    from :func:`paper_start`, and Σ = I/(12d) + 𝟏𝟏ᵀ/(4d), the design's true E[a aᵀ]
    (``sigma="design"``), or the released code's I/(12d) (``sigma="code"``). Defaults: the
    paper's δ = 0.1, E w² = 1e-5, σ = 1.5."""
    if sigma not in ("design", "code"):
        raise _core._bad("sigma", sigma, "'design' or 'code'")
    dim = _dim(d, 2)
    x0, xt = paper_start(dim, x0_scale=x0_scale, seed=seed)
    par = _params(ridge, label_noise, noise)
    if sigma == "design":
        return Spectrum._from(_call(_dpkit.volterra_lksp25_design, x0, xt, par))
    lam = np.full(dim, 1.0 / (12.0 * dim))
    return Spectrum._from(_call(_dpkit.volterra_from_eigenvalues, lam, x0, xt, par, 1e-10))


def read_spectrum(path: str, *, ridge: Optional[float] = None,
                  label_noise: Optional[float] = None, noise: Optional[float] = None) -> Spectrum:
    """Reads a spectrum file (``# d:``, ``# ridge:``, ``# label_noise:``, ``# sigma:`` header
    lines, then eigenvalue,multiplicity,e0_sq,xstar_sq,e0_xstar). ``ridge``, ``label_noise``,
    ``noise`` override the header (and supply lines it lacks)."""
    over: Dict[str, float] = {}
    if ridge is not None:
        over["ridge"] = _nonneg("ridge", ridge)
    if label_noise is not None:
        over["label_noise"] = _nonneg("label_noise", label_noise)
    if noise is not None:
        over["sigma"] = _nonneg("noise", noise)
    try:
        d = _dpkit.volterra_read_csv(str(path), over)
    except RuntimeError as e:  # file-format errors
        raise ValueError(f"path: {str(e)}") from None
    except ValueError as e:
        raise ValueError(str(e)) from None
    d.update(over)
    return Spectrum._from(_call(_dpkit.volterra_from_groups, d))


# ---- schedules ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Schedule:
    """A learning-rate schedule γ(t) of noisy HSGD (t = k/d, γ = ηd). Build with the class
    methods; :meth:`rate` and :meth:`integral` evaluate γ(t) and Γ(t) = ∫₀ᵗγ (closed form)."""

    kind: str
    params: Tuple[float, ...]
    times: Tuple[float, ...] = ()
    rates: Tuple[float, ...] = ()

    @classmethod
    def constant(cls, gamma: float) -> "Schedule":
        """γ(t) = gamma > 0."""
        return cls._checked("constant", (_pos("gamma", gamma),))

    @classmethod
    def step_decay(cls, gamma0: float, factor: float, interval: float) -> "Schedule":
        """γ(t) = gamma0·factor^⌊t/interval⌋; factor ∈ (0, 1]."""
        return cls._checked("step_decay", (_pos("gamma0", gamma0),
                                           _core._real("factor", factor, lambda x: 0 < x <= 1,
                                                       "a number in (0, 1]"),
                                           _pos("interval", interval)))

    @classmethod
    def polynomial_decay(cls, gamma0: float, time_scale: float, power: float) -> "Schedule":
        """γ(t) = gamma0/(1 + t/time_scale)^power; power ≥ 0."""
        return cls._checked("polynomial_decay", (_pos("gamma0", gamma0),
                                                 _pos("time_scale", time_scale),
                                                 _nonneg("power", power)))

    @classmethod
    def cosine(cls, gamma0: float, gamma_min: float, horizon: float) -> "Schedule":
        """γ(t) = γmin + (γ0 − γmin)(1 + cos(πt/horizon))/2 for t ≤ horizon, then γmin."""
        g0 = _pos("gamma0", gamma0)
        gmin = _core._real("gamma_min", gamma_min, lambda x: 0 <= x <= g0,
                           f"a number in [0, gamma0 = {g0:g}]")
        return cls._checked("cosine", (g0, gmin, _pos("horizon", horizon)))

    @classmethod
    def piecewise_linear(cls, times: Array, rates: Array) -> "Schedule":
        """Linear interpolation of (times[k], rates[k]): times[0] = 0, strictly increasing;
        rates ≥ 0, not all 0; constant after the last knot."""
        t = _vector("times", times)
        r = _vector("rates", rates, t.size)
        return cls._checked("piecewise_linear", (), tuple(t.tolist()), tuple(r.tolist()))

    @classmethod
    def _checked(cls, kind: str, params: Tuple[float, ...], times: Tuple[float, ...] = (),
                 rates: Tuple[float, ...] = ()) -> "Schedule":
        s = cls(kind, tuple(params), times, rates)
        s._eval(np.zeros(1))  # the library's own checks (piecewise tables)
        return s

    def _spec(self) -> Tuple[str, list, list, list]:
        return (self.kind, list(self.params), list(self.times), list(self.rates))

    def _eval(self, t: Any) -> Dict[str, Any]:
        x = np.atleast_1d(np.asarray(t, dtype=float))
        if not np.all(np.isfinite(x)) or np.any(x < 0):
            raise ValueError("t must be finite and >= 0")
        return _call(_dpkit.volterra_schedule, *self._spec(), x)

    def rate(self, t: Any) -> np.ndarray:
        """γ(t) at each t ≥ 0 (right-continuous)."""
        return np.asarray(self._eval(t)["rate"])

    def integral(self, t: Any) -> np.ndarray:
        """Γ(t) = ∫₀ᵗ γ(s) ds at each t ≥ 0 (closed form)."""
        return np.asarray(self._eval(t)["integral"])

    @property
    def is_constant(self) -> bool:
        return self.kind == "constant"

    def __str__(self) -> str:
        return str(self._eval(0.0)["description"])


def _gamma(learning_rate: Any, sgd_step_size: Any, schedule: Any, d: int) -> Schedule:
    given = [x is not None for x in (learning_rate, sgd_step_size, schedule)]
    if sum(given) != 1:
        raise ValueError("learning_rate is required (the HSGD rate gamma = eta d), or "
                         "sgd_step_size (eta), or schedule — exactly one of them")
    if schedule is not None:
        if not isinstance(schedule, Schedule):
            raise ValueError(f"schedule is {type(schedule).__name__}, but must be a "
                             f"dpkit.volterra.Schedule")
        return schedule
    if learning_rate is not None:
        return Schedule.constant(_core._real("learning_rate", learning_rate,
                                             lambda x: 0 < x < 1e300, "a number in (0, 1e300)"))
    eta = _core._real("sgd_step_size", sgd_step_size, lambda x: 0 < x < 1e300,
                      "a number in (0, 1e300)")
    return Schedule.constant(eta * d)


# ---- risks -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RiskCurve:
    """P_t and R_t of noisy HSGD at the requested times (numpy arrays of equal length).

    Attributes:
        times: t = k/d. P: E 𝒫(X_t). R: E ℛ(X_t) = P + (δ/2)E‖X_t‖².
        P_error, R_error: estimated absolute errors (NaN where the solver gives none).
        variances: w_g(t), the eigen-variance of each group (rows = times, columns = groups),
            when asked for (``variances=True``), else None.
        method: the solver used. steps: its time steps.
        max_kernel_norm: sup_t K(γ(t)) = (γ/(2d)) Σ k λ²/(λ + δ); ≥ 1 means the dynamics
            diverges (P_t grows without bound; the values are still the correct finite-time
            ones and ``message`` says so).
        termination: ``converged``, ``max_iterations`` or ``failure`` (values unusable);
        message: why.
    """

    times: np.ndarray
    P: np.ndarray
    R: np.ndarray
    P_error: np.ndarray
    R_error: np.ndarray
    variances: Optional[np.ndarray]
    method: str
    steps: int
    max_kernel_norm: float
    termination: str
    message: str

    @property
    def converged(self) -> bool:
        return self.termination == "converged"

    @property
    def diverges(self) -> bool:
        """True when sup_t K(γ(t)) ≥ 1 (P_t grows without bound)."""
        return self.max_kernel_norm >= 1


@dataclass(frozen=True)
class Plateau:
    """The long-time limit for a constant rate γ (derived in docs/volterra.md).

    P_inf = (𝒫(x⋆) + G′_∞)/(1 − K_∞), R_inf; +inf with ``stable`` False, ``termination``
    ``failure`` and a message when K_∞ ≥ 1 (P_t then grows without bound). ``kernel_norm`` is
    K_∞, ``noise_forcing`` G′_∞ = (σ²γ/(4d))Σ kλ/κ, ``P_xstar``/``R_xstar`` the risks of the
    ridge minimiser x⋆ = (Σ + δI)⁻¹Σx̃, ``variances`` w_g(∞) (empty when unstable),
    ``learning_rate`` the γ it was computed for.
    """

    P_inf: float
    R_inf: float
    kernel_norm: float
    noise_forcing: float
    P_xstar: float
    R_xstar: float
    variances: np.ndarray
    stable: bool
    termination: str
    message: str

    learning_rate: float = math.nan

    @property
    def max_stable_learning_rate(self) -> float:
        """γ/K_∞: the constant rate at which K_∞ reaches 1 (K is linear in γ); the plateau
        exists for every smaller rate."""
        return self.learning_rate / self.kernel_norm if self.kernel_norm > 0 else math.inf


def _times(times: Any) -> np.ndarray:
    t = np.atleast_1d(np.asarray(times, dtype=float))
    if t.ndim != 1 or not np.all(np.isfinite(t)) or np.any(t < 0):
        raise ValueError("times must be a one-dimensional array of finite numbers >= 0")
    if t.size > 1 and np.any(np.diff(t) < 0):
        raise ValueError("times must be nondecreasing")
    return np.ascontiguousarray(t)


def risk(spectrum: Spectrum, *,
         times: Array,
         learning_rate: Optional[float] = None,
         sgd_step_size: Optional[float] = None,
         schedule: Optional[Schedule] = None,
         solver: str = "auto",
         relative_tolerance: float = 1e-8,
         variances: bool = False,
         max_steps: Optional[int] = None) -> RiskCurve:
    """P_t and R_t of noisy HSGD (Lin et al. eqs. (6)–(7)) at each of ``times``.

    Args:
        spectrum: the problem (:class:`Spectrum`).
        times: t ≥ 0, nondecreasing (t = k/d).
        learning_rate: constant HSGD rate γ = ηd; or ``sgd_step_size`` η; or ``schedule``.
        solver: ``auto`` (default), ``ode`` (Dormand–Prince on the exact ODE lift), ``exponential``
            (stiff-stable exponential trapezoid), ``trapezoid`` (the integral equations, O(N²)),
            ``closed-form`` (one eigen-group and a constant rate: exact).
        relative_tolerance: in (0, 1). variances: also return w_g(t) (ode, exponential, auto).
        max_steps: the solver's step budget (``max_iterations`` when it runs out).

    Example:
        >>> s = dpkit.volterra.isotropic(100, 1.0, start_error=1, noise=0.5)
        >>> c = dpkit.volterra.risk(s, times=[0, 1, 10], learning_rate=0.5)
        >>> c.P, c.termination
    """
    s = _check_spectrum(spectrum)
    if solver not in SOLVERS:
        raise _core._bad("solver", solver, " or ".join(repr(x) for x in SOLVERS))
    t = _times(times)
    g = _gamma(learning_rate, sgd_step_size, schedule, int(s.d))
    tol = _core._real("relative_tolerance", relative_tolerance, lambda x: 0 < x < 1,
                      "a number in (0, 1)")
    opts: Dict[str, Any] = {"store_variances": bool(variances)}
    if max_steps is not None:
        opts["max_steps"] = _core._integer("max_steps", max_steps, 1, "an integer >= 1")
    if variances and solver in ("trapezoid", "closed-form"):
        raise ValueError(f"variances is True, but solver {solver!r} does not compute them "
                         f"(use 'auto', 'ode' or 'exponential')")
    if solver == "closed-form" and (s.groups != 1 or not g.is_constant):
        raise ValueError("solver 'closed-form' needs one eigen-group (isotropic) and a constant "
                         "learning rate")
    r = _call(_dpkit.volterra_risk, s._dict(), *g._spec(), t, solver, tol, opts)
    w = r["variances"]
    return RiskCurve(times=np.asarray(r["times"]), P=np.asarray(r["P"]), R=np.asarray(r["R"]),
                     P_error=np.asarray(r["P_error"]), R_error=np.asarray(r["R_error"]),
                     variances=None if w is None else np.asarray(w), method=str(r["method"]),
                     steps=int(r["steps"]), max_kernel_norm=float(r["max_kernel_norm"]),
                     termination=str(r["termination"]),
                     message=str(r["message"]))


def plateau(spectrum: Spectrum, *, learning_rate: Optional[float] = None,
            sgd_step_size: Optional[float] = None) -> Plateau:
    """P_∞ and R_∞ for a constant rate γ (``learning_rate``, or ``sgd_step_size`` η = γ/d).
    Divergence (K_∞ ≥ 1) is a result, not an error: ``stable`` False, P_inf = +inf."""
    s = _check_spectrum(spectrum)
    g = _gamma(learning_rate, sgd_step_size, None, int(s.d))
    r = _call(_dpkit.volterra_plateau, s._dict(), g.params[0])
    return Plateau(P_inf=float(r["P_inf"]), R_inf=float(r["R_inf"]),
                   kernel_norm=float(r["kernel_norm"]), noise_forcing=float(r["noise_forcing"]),
                   P_xstar=float(r["P_xstar"]), R_xstar=float(r["R_xstar"]),
                   variances=np.asarray(r["variances"]), stable=bool(r["stable"]),
                   termination=str(r["termination"]), message=str(r["message"]),
                   learning_rate=float(g.params[0]))


def kernel_norm(spectrum: Spectrum, *, learning_rate: float) -> float:
    """K(γ) = (γ/(2d)) Σ_g k_g λ_g²/(λ_g + δ): P_t stays bounded for a constant rate iff
    K < 1; the largest stable rate is γ/K(γ)."""
    s = _check_spectrum(spectrum)
    g = _core._real("learning_rate", learning_rate, lambda x: x > 0, "a finite number > 0")
    return float(_call(_dpkit.volterra_kernel_norm, s._dict(), g))


def gradient_flow_risk(spectrum: Spectrum, Gamma: Array) -> Tuple[np.ndarray, np.ndarray]:
    """(𝒫, ℛ) of the gradient-flow mean X^gf at intrinsic times Γ ≥ 0 (no noise terms)."""
    s = _check_spectrum(spectrum)
    g = np.atleast_1d(np.asarray(Gamma, dtype=float))
    if not np.all(np.isfinite(g)) or np.any(g < 0):
        raise ValueError("Gamma must be finite and >= 0")
    r = _call(_dpkit.volterra_gradient_flow_risk, s._dict(), g)
    return np.asarray(r["P"]), np.asarray(r["R"])


def marchenko_pastur_cdf(x: Array, ratio: float, scale: float) -> np.ndarray:
    """F(x) = P(λ ≤ x) of the Marchenko–Pastur law (ratio c = d/n, scale s²), including the atom
    of mass 1 − 1/c at 0 when c > 1."""
    c = _pos("ratio", ratio)
    s2 = _pos("scale", scale)
    xs = np.atleast_1d(np.asarray(x, dtype=float))
    if np.any(np.isnan(xs)):
        raise ValueError("x must not contain NaN")
    return np.asarray([_call(_dpkit.volterra_marchenko_pastur_cdf, float(v), c, s2) for v in xs])
