"""The functional accounting API: ε, δ, calibration and curves of a DP-SGD training run.

A run is given in one of three ways (keyword arguments, never defaults for the run itself):

* ``noise_multiplier, sample_rate, steps`` — the accountants' own units;
* ``noise_multiplier, batch_size, dataset_size, epochs`` — a training loop's units:
  sample_rate = batch_size / dataset_size and, for Poisson sampling, steps =
  ⌈epochs · dataset_size / batch_size⌉ (as TensorFlow Privacy's ``compute_dp_sgd_privacy``;
  rounding up never understates ε); for the schemes of a data loader (shuffling, random
  allocation, without replacement) an epoch is a pass of ⌈dataset_size / batch_size⌉ batches,
  steps = ⌈epochs · ⌈dataset_size / batch_size⌉⌉ (10 epochs of 60 000 in batches of 256: 2 350
  steps, where Poisson's are 2 344). Exact on the numbers as written (2.2 epochs of 1000/100 are
  22 steps) and the same rule as the CLI's (accounting/run_units.hpp). ``drop_last=True``
  (shuffling and without replacement, with ``batch_size`` and ``dataset_size``): a loader that
  drops the last, incomplete batch, ⌊dataset_size / batch_size⌋ steps per epoch.
  ``sample_rate`` with ``epochs`` (k = ⌈1/sample_rate⌉ batches per pass), or ``batch_size`` and
  ``dataset_size`` with ``steps``, work too;
* ``phases=[Phase(...), ...]`` — a heterogeneous run, each phase with its own σ, q, steps and
  sampling scheme.

``sampling`` is ``"poisson"`` (each example joins a batch independently with probability q;
add/remove neighbours, the worse direction is reported), ``"without-replacement"``
(fixed-size batches; replace-one neighbours) or ``"shuffling"`` (the data shuffled every epoch
into ⌈1/q⌉ fixed-size batches; zero-out neighbours). No tight accountant is known for
shuffling: the PLD result is a certified bracket whose ``lower`` is the lower bound of Chua et
al. 2024 (compare it with the Poisson number) and whose ``upper`` assumes no amplification.
``"random-allocation"`` (balls in bins: each example in one uniformly chosen step of each epoch
of ⌈1/q⌉ steps; add/remove neighbours) gives a tight certified bracket (the epoch's
likelihood ratio bounded from both sides in the convex order; ``accountant="rdp"``: the
epoch's Rényi DP, a looser upper bound); with ``selected=k`` each example is in k uniformly
chosen of the t = ⌈k/sample_rate⌉ steps of every epoch (k of t; ⌈k·dataset_size/batch_size⌉
from a batch size): a certified upper bound (k allocations of 1 of t/k steps) and a certified
lower bound (the epochs' sums or largest coordinates). ``"truncated-poisson"`` (Poisson batches cut to
at most ``max_batch_size`` records, over ``dataset_size`` records; as dp_accounting's truncated
event) gives ``upper`` from the dominating pair of Ganesh 2025 and ``lower`` from the rate at
which the differing record stays in the batch (PLD only). ``neighbours="replace-one"`` accounts
Poisson or truncated Poisson batches for neighbours that differ in one record's value (the
clipped sum moves by up to 2C) instead of one record added or removed.
"""

from __future__ import annotations

import math
import numbers
import operator
from typing import TYPE_CHECKING

from . import _dpkit, _errors
from ._record import Record
from ._run_arguments import RUN_NAMES, takes_run
from ._results import (DeltaCurve, EpsilonCurve, GdpMu, NoiseCalibration, PrivacyResult,
                       StepsCalibration, TradeoffCurve)

if TYPE_CHECKING:  # annotations only (numpy and typing load on first use: fast import)
    from typing import Any, Dict, List, Optional, Sequence, Tuple

    import numpy as np

__all__ = [
    "Phase",
    "epsilon",
    "delta",
    "calibrate_noise",
    "calibrate_steps",
    "epsilon_curve",
    "delta_curve",
    "tradeoff",
    "rdp",
    "ACCOUNTANTS",
    "SAMPLING_SCHEMES",
]

# The library's names (accounting/training_run.hpp and accountant.hpp), not a copy.
ACCOUNTANTS = _dpkit.ACCOUNTANTS
SAMPLING_SCHEMES = _dpkit.SAMPLING_SCHEMES
NEIGHBOURS = _dpkit.NEIGHBOURS

def _bad(name: str, value: Any, constraint: str) -> ValueError:
    return ValueError(f"{name} is {value!r}, but must be {constraint}")


def _real(name: str, value: Any, ok, constraint: str, allow_inf: bool = False) -> float:
    """value as a finite float (or +inf with allow_inf) satisfying ok, else ValueError naming
    the argument."""
    if isinstance(value, bool):
        raise _bad(name, value, constraint)
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int beyond 1.8e308
        raise _bad(name, value, constraint) from None
    if not ((math.isfinite(x) or (allow_inf and x == math.inf)) and ok(x)):
        raise _bad(name, value, constraint)
    if _dpkit.is_subnormal(x):
        # The library's rule (core/check.hpp), as the CLI refuses text that reads only as a
        # subnormal: a subnormal keeps a few digits at most, and its square is 0.
        raise ValueError(f"{name} is {value!r}, but must be {constraint} "
                         f"{_dpkit.underflow_note(repr(value))}")
    return x


def _reals(name: str, values: Any, ok, constraint: str) -> Any:
    """values (a number or a non-empty one-dimensional sequence) as a float array, every element
    checked as _real checks a scalar: a bool, text, None, a non-finite or subnormal element is
    refused naming the argument and the element (``alpha[1] is True, but must be ...``), never
    passed on as 1.0 or with numpy's "could not convert string to float"."""
    import numpy as np

    shape = ValueError(f"{name} must be a number or a non-empty one-dimensional array, each "
                       f"element {constraint}")
    if isinstance(values, (str, bytes)):
        raise _bad(name, values, constraint)
    try:
        scalar = np.ndim(values) == 0
    except ValueError:  # a ragged nesting
        raise shape from None
    if scalar:  # one number: named as the argument itself
        return np.array([_real(name, values, ok, constraint)], dtype=float)
    if isinstance(values, (list, tuple)) and all(type(v) in (float, int) for v in values):
        values = np.asarray(values, dtype=float)  # plain numbers (no bool, no text): whole
    if isinstance(values, np.ndarray) and values.dtype.kind in "fiu":
        # Numeric arrays (the common, possibly long, case): checked whole; any doubt goes to
        # the element-wise path below, which words the refusal.
        a = np.atleast_1d(values.astype(float))
        if a.ndim != 1 or a.size == 0:
            raise shape
        normal = np.isfinite(a) & ((a == 0) | (np.abs(a) >= np.finfo(float).tiny))
        if bool(normal.all()) and all(ok(x) for x in a.tolist()):
            return a
        items = a.tolist()
    else:
        try:
            items = np.atleast_1d(np.asarray(values, dtype=object))
        except ValueError:  # a ragged nesting
            raise shape from None
        if items.ndim != 1 or items.size == 0:
            raise shape
        items = items.tolist()
    return np.array([_real(f"{name}[{i}]", v, ok, constraint) for i, v in enumerate(items)],
                    dtype=float)


# The largest count the extension takes: 2^53, as the CLI (counts beyond are not exact doubles,
# and beyond 2^63 pybind11 would raise its own TypeError).
_MAX_COUNT = 2**53


def _integer(name: str, value: Any, lo: int, constraint: str) -> int:
    if isinstance(value, bool):
        raise _bad(name, value, constraint)
    if isinstance(value, numbers.Integral):
        i = int(value)
    elif isinstance(value, numbers.Real):  # float, numpy floating: only whole numbers
        x = float(value)
        if not (math.isfinite(x) and x.is_integer()):
            raise _bad(name, value, constraint)
        i = int(x)
    else:
        try:
            i = operator.index(value)
        except TypeError:
            raise _bad(name, value, constraint) from None
    if i < lo:
        raise _bad(name, value, constraint)
    if i > _MAX_COUNT:
        raise _bad(name, value, constraint + " and <= 2^53")
    return i


def _sampling(value: Any) -> str:
    s = str(value).replace("_", "-")
    if s not in SAMPLING_SCHEMES:
        raise _bad("sampling", value,
                   "'poisson', 'truncated-poisson', 'without-replacement', 'shuffling' or "
                   "'random-allocation'")
    return s


def _neighbours(value: Any) -> Optional[str]:
    """The relation's name as the library spells it, or None for the scheme's own."""
    if value is None:
        return None
    r = str(value).replace("_", "-")
    if r not in NEIGHBOURS:
        raise _bad("neighbours", value, "'add-remove' or 'replace-one'")
    return r


# The library's enums by the names users type (bind_types.cpp: member names are to_string's).
_SCHEME = _dpkit.SamplingScheme.__members__
_RELATION = _dpkit.Neighbouring.__members__
_ACCOUNTANT = _dpkit.Accountant.__members__


def _derive(sigma: Optional[float], q: Optional[float], b: Optional[int], n: Optional[int],
            t: Optional[int], e: Optional[float], scheme: str, relation: Optional[str],
            mb: Optional[int], edge: bool, drop_last: bool = False, selected: int = 1) -> Any:
    """The library's derivation of one phase from checked units (accounting/run_units.hpp: the
    combination rules, q and T, the rule the CLI uses too): a _dpkit.PhaseDerivation."""
    return _dpkit.derive_phase(sigma, q, b, n, t, e, _SCHEME[scheme],
                               None if relation is None else _RELATION[relation], mb, edge,
                               drop_last, selected)


def _accountant(value: Any, allowed: Sequence[str] = ACCOUNTANTS) -> str:
    if value not in allowed:
        raise _bad("accountant", value, " or ".join(repr(a) for a in allowed))
    return str(value)


def _delta_arg(value: Any, name: str = "delta") -> float:
    # [SMALLEST_DELTA, 1), the CLI's --delta range (accounting::kSmallestDelta): below it the
    # accountants' certified tail corrections swamp δ.
    return _real(name, value, lambda v: _SMALLEST_DELTA <= v < 1,
                 f"a number in [{_SMALLEST_DELTA:g}, 1)")


def _epsilon_arg(value: Any, name: str = "epsilon") -> float:
    return _real(name, value, lambda v: v >= 0, "a finite number >= 0")


class Phase(Record):
    """One phase of a training run: ``steps`` noisy steps with noise multiplier σ
    (noise standard deviation / clipping norm C; the sensitivity is C for add/remove and
    zero-out neighbours, 2C for replace-one) and sampling rate q ∈ (0, 1].

    ``Phase(noise_multiplier, sample_rate, steps, sampling="poisson", neighbours=None,
    dataset_size=None, max_batch_size=None)``; ``sampling``: ``"poisson"``,
    ``"truncated-poisson"`` (with ``dataset_size`` and ``max_batch_size``),
    ``"without-replacement"``, ``"shuffling"`` or ``"random-allocation"``; ``neighbours``:
    ``"add-remove"`` or ``"replace-one"`` (None: the scheme's own; see the module docstring).
    """

    __slots__ = _fields = ("noise_multiplier", "sample_rate", "steps", "sampling", "neighbours",
                           "dataset_size", "max_batch_size")
    _defaults = {"sampling": "poisson", "neighbours": None, "dataset_size": None,
                 "max_batch_size": None}
    noise_multiplier: float
    sample_rate: float
    steps: int
    sampling: str
    neighbours: Optional[str]
    dataset_size: Optional[int]
    max_batch_size: Optional[int]

    def __post_init__(self) -> None:
        _check_phase(self.noise_multiplier, self.sample_rate, self.steps, self.sampling)
        self._native()

    def _native(self) -> Any:
        """The phase as the library's type (_dpkit.TrainingPhase), checked by the library."""
        n = None if self.dataset_size is None else _integer("dataset_size", self.dataset_size, 1,
                                                            "an integer >= 1")
        mb = None if self.max_batch_size is None else _integer(
            "max_batch_size", self.max_batch_size, 1, "an integer >= 1")
        return _derive(float(self.noise_multiplier), float(self.sample_rate), None, n,
                       int(self.steps), None, _sampling(self.sampling),
                       _neighbours(self.neighbours), mb, True).phase

    @classmethod
    def _of(cls, p: Any) -> "Phase":
        """The Phase of a _dpkit.TrainingPhase."""
        relation = p.neighbours.name
        return cls(p.noise_multiplier, p.sampling_rate, p.steps, p.sampling.name,
                   None if relation == "standard" else relation, p.dataset_size or None,
                   p.max_batch_size or None)


def _sigma_arg(value: Any, edge: bool) -> float:
    """σ > 0 finite; with edge, also 0 (no noise) and inf (nothing released)."""
    if edge:
        return _real("noise_multiplier", value, _sigma_or_edge, "a number >= 1e-100, 0 or inf",
                     allow_inf=True)
    return _real("noise_multiplier", value, lambda v: v >= _SMALLEST_SIGMA,
                 "a finite number >= 1e-100 (0 and inf are edge values that only epsilon and "
                 "delta answer)" if _is_edge_number(value) else "a finite number >= 1e-100")


# The smallest positive noise multiplier the accountants take (the library's
# accounting::kSmallestNoiseMultiplier, checked by the library too).
_SMALLEST_SIGMA = _dpkit.SMALLEST_NOISE_MULTIPLIER


def _sigma_or_edge(v: float) -> bool:
    return v == 0 or v >= _SMALLEST_SIGMA


# The smallest positive sampling rate: the smallest normal double (the library's
# accounting::kSmallestSamplingRate; subnormal rates lose their precision).
_SMALLEST_RATE = _dpkit.SMALLEST_SAMPLING_RATE
_SMALLEST_DELTA = _dpkit.SMALLEST_DELTA  # accounting::kSmallestDelta, the CLI's --delta floor
# "[2.2250738585072014e-308, 1]": the limit written exactly (a rounded 2.2e-308 lies below it).
_RATE_RANGE = f"[{_dpkit.SMALLEST_NORMAL_TEXT}, 1]"


def _rate_or_edge(v: float) -> bool:
    return v == 0 or _SMALLEST_RATE <= v <= 1


def _is_edge_number(value: Any) -> bool:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return False
    return x == 0 or x == math.inf


def _check_phase(sigma: Any, q: Any, steps: Any, sampling: Any) -> None:
    # The edge values (σ = 0 or inf, q = 0) pass here; the functions that cannot answer them
    # refuse them with the library's message (only epsilon and delta do).
    _real("noise_multiplier", sigma, _sigma_or_edge, "a number >= 1e-100, 0 or inf",
          allow_inf=True)
    _real("sample_rate", q, _rate_or_edge, f"a number in {_RATE_RANGE} or 0")
    _integer("steps", steps, 1, "an integer >= 1")
    _sampling(sampling)


def _steps_from_epochs(epochs: Any, derivation: Any, name: str = "epochs") -> int:
    """T for ``epochs`` epochs of the derived phase ``derivation`` (a _dpkit.PhaseDerivation):
    the library's one rule for its scheme — ⌈E·N/B⌉ or ⌈E/q⌉ for Poisson, ⌈E·k⌉ with k batches
    per pass for a data loader's schemes — exact on the numbers as written
    (accounting/run_units.hpp)."""
    e = _real(name, epochs, lambda v: v > 0, "a finite number > 0")
    return _dpkit.steps_for_epochs_of(e, derivation)


def _resolve_run(run: Dict[str, Any],
                 *,
                 need_sigma: bool = True,
                 need_steps: bool = True,
                 edge: bool = False) -> Tuple[List[Any], Any]:
    """The run given by the run arguments ``run`` (a dict by name, _run_arguments.RUN_NAMES) as
    a list of _dpkit.TrainingPhase, and the _dpkit.PhaseDerivation of a run given in units (None
    for phases): how q and T came from them."""
    phases = run["phases"]
    if phases is not None:
        given = [n for n in RUN_NAMES if n not in ("phases", "sampling") and
                 run[n] is not None and run[n] is not False]
        if given == ["drop_last"]:
            raise ValueError("drop_last is for a run given in batch_size and dataset_size, not "
                             "in phases")
        if given:
            raise ValueError(f"{given[0]} must not be given together with phases (each phase "
                             f"has its own)")
        out = []
        for i, p in enumerate(phases):
            if not isinstance(p, Phase):
                if isinstance(p, dict):
                    p = Phase(**p)
                else:
                    try:
                        p = Phase(*p)
                    except TypeError:
                        raise ValueError(f"phases[{i}] is {p!r}, but must be a dpkit.Phase, a dict "
                                         f"or a (noise_multiplier, sample_rate, steps[, sampling]) "
                                         f"tuple") from None
            out.append(p._native())
        if not out:
            raise ValueError("phases is empty, but must hold at least one phase")
        return out, None

    noise_multiplier, sample_rate, steps = run["noise_multiplier"], run["sample_rate"], run["steps"]
    batch_size, dataset_size, epochs = run["batch_size"], run["dataset_size"], run["epochs"]
    max_batch_size = run["max_batch_size"]
    # The arguments' types here; their combination, ranges, q and T in the library
    # (dpkit._dpkit.derive_phase: accounting/run_units.hpp, the rule the CLI uses too).
    scheme = _sampling(run["sampling"])
    relation = _neighbours(run["neighbours"])
    if need_sigma:
        if noise_multiplier is None:
            raise ValueError("noise_multiplier is required (noise standard deviation / clipping "
                             "norm)")
        sigma: Optional[float] = _sigma_arg(noise_multiplier, edge)
    else:
        sigma = None if noise_multiplier is None else _real(
            "noise_multiplier", noise_multiplier, lambda v: v > 0, "a finite number > 0")
    q: Optional[float] = None
    if sample_rate is not None:
        q = (_real("sample_rate", sample_rate, _rate_or_edge, f"a number in {_RATE_RANGE} or 0")
             if edge else
             _real("sample_rate", sample_rate, lambda v: _SMALLEST_RATE <= v <= 1,
                   f"a number in {_RATE_RANGE} (0 is an edge value that only epsilon and delta "
                   "answer)" if _is_edge_number(sample_rate) else f"a number in {_RATE_RANGE}"))
    n = None if dataset_size is None else _integer("dataset_size", dataset_size, 1,
                                                   "an integer >= 1")
    b = None if batch_size is None else _integer("batch_size", batch_size, 1, "an integer >= 1")
    mb = None if max_batch_size is None else _integer("max_batch_size", max_batch_size, 1,
                                                      "an integer >= 1")
    t = None if steps is None else _integer("steps", steps, 1, "an integer >= 1")
    e = None if epochs is None else _real("epochs", epochs, lambda v: v > 0,
                                          "a finite number > 0")
    if t is None and e is None and need_steps:
        if q is None and b is None and n is None:
            raise ValueError("sample_rate is required (or batch_size and dataset_size)")
        raise ValueError("steps is required (or epochs)")
    drop_last = run["drop_last"]
    if not isinstance(drop_last, bool):
        raise ValueError(f"drop_last is {drop_last!r}, but must be True or False")
    # k of t steps per epoch (random allocation); None is the scheme's 1.
    k = 1 if run["selected"] is None else _integer("selected", run["selected"], 1,
                                                   "an integer >= 1")
    d = _derive(sigma, q, b, n, t, e, scheme, relation, mb, edge, drop_last, k)
    return [d.phase], d


def _options(relative_accuracy: Any, max_fft_size: Any) -> Dict[str, Any]:
    o: Dict[str, Any] = {}
    if relative_accuracy is not None:
        o["relative_accuracy"] = _real("relative_accuracy", relative_accuracy,
                                       lambda v: 1e-8 <= v < 1, "a number in [1e-8, 1)")
    if max_fft_size is not None:
        o["max_fft_size"] = _integer("max_fft_size", max_fft_size, 1024, "an integer >= 1024")
    return o


def _gaussian_mu(value: Any) -> float:
    return _real("gaussian_mu", value, lambda v: v >= 0, "a finite number >= 0")


def _call(fn, *args):
    """Call the extension; the library's own argument errors become one-line ValueErrors."""
    return _errors.call(fn, *args)


@takes_run()
def epsilon(delta: float,
            run: Dict[str, Any],
            *,
            gaussian_mu: float = 0.0,
            accountant: str = "pld",
            relative_accuracy: Optional[float] = None,
            max_fft_size: Optional[int] = None) -> PrivacyResult:
    """The smallest ε such that the run is (ε, δ)-DP, as a labelled result.

    Args:
        delta: δ ∈ [1e-290, 1) (the CLI's --delta range).
        noise_multiplier: σ = noise standard deviation / clipping norm C (> 0; the edge
            values 0, no noise, and ``math.inf``, nothing released, are answered exactly).
            Relative to the sensitivity it is σ for add/remove and zero-out neighbours
            (Poisson, shuffling, random allocation) and σ/2 for replace-one (without
            replacement, or ``neighbours="replace-one"``): dp_accounting's σ is that one
            (docs/report.md).
        sample_rate: q ∈ (0, 1], the probability an example joins a batch (Poisson) or the
            batch fraction (without replacement); 0 (never sampled) is an edge value.
        steps: number of noisy steps (≥ 1).
        batch_size, dataset_size, epochs: the same run in a training loop's units (module doc).
        sampling: ``"poisson"``, ``"truncated-poisson"``, ``"without-replacement"``,
            ``"shuffling"`` or ``"random-allocation"``.
        neighbours: ``"add-remove"`` or ``"replace-one"`` (poisson and truncated-poisson; None:
            the scheme's own relation).
        max_batch_size: truncated-poisson only, the largest batch B (with ``dataset_size``).
        phases: a heterogeneous run, a list of :class:`Phase` (instead of the above).
        gaussian_mu: an extra μ-GDP mechanism composed with the run (0: none).
        accountant: ``"pld"`` (certified bracket, default), ``"rdp"`` (Rényi DP upper bound) or
            ``"clt"`` (Gaussian-DP CLT: an approximation).
        relative_accuracy: PLD only, target (upper − lower)/upper (default 1e-3).
        max_fft_size: PLD only, the largest FFT in points (default 2**24, ≈ 0.7 GiB).

    Returns:
        :class:`PrivacyResult` with quantity ``"epsilon"``; ``float()`` of it is the certified
        upper bound. PLD: ``lower ≤ ε_exact ≤ upper``.

    Example:
        >>> r = dpkit.epsilon(1e-5, noise_multiplier=1.0, sample_rate=0.01, steps=10000)
        >>> float(r), r.lower   # (6.1878..., 6.1841...)
    """
    d = _delta_arg(delta)
    phases, _ = _resolve_run(run, edge=True)
    a = _accountant(accountant)
    res = _call(_dpkit.epsilon, phases, _gaussian_mu(gaussian_mu), d, _ACCOUNTANT[a],
                _options(relative_accuracy, max_fft_size))
    return PrivacyResult._from_estimate(res, "epsilon", d)


@takes_run()
def delta(epsilon: float,
          run: Dict[str, Any],
          *,
          gaussian_mu: float = 0.0,
          accountant: str = "pld",
          relative_accuracy: Optional[float] = None,
          max_fft_size: Optional[int] = None) -> PrivacyResult:
    """The smallest δ such that the run is (ε, δ)-DP, as a labelled result.

    Same run arguments as :func:`epsilon`; ``epsilon`` ≥ 0. ``log_value`` holds log of the upper
    bound, finite where δ underflows (the RDP and Gaussian closed forms: log δ's own bound; the
    PLD on subsampled runs: log of its subnormal allowance, -708.4, there). PLD:
    ``lower ≤ δ_exact ≤ upper``; an upper bound is never 0 where noise is released.
    """
    e = _epsilon_arg(epsilon)
    phases, _ = _resolve_run(run, edge=True)
    a = _accountant(accountant)
    res = _call(_dpkit.delta, phases, _gaussian_mu(gaussian_mu), e, _ACCOUNTANT[a],
                _options(relative_accuracy, max_fft_size))
    return PrivacyResult._from_estimate(res, "delta", e)


@takes_run(positional=("sample_rate", "steps"), omit=("noise_multiplier",))
def calibrate_noise(target_epsilon: float,
                    delta: float,
                    run: Dict[str, Any],
                    *,
                    gaussian_mu: float = 0.0,
                    accountant: str = "pld",
                    budget_tolerance: float = 2e-4,
                    relative_tolerance: float = 1e-9,
                    relative_accuracy: Optional[float] = None,
                    max_fft_size: Optional[int] = None) -> NoiseCalibration:
    """The smallest noise multiplier σ (common to all phases) whose certified ε at δ is at most
    ``target_epsilon``.

    The search stops as soon as the certified ε at a noise multiplier lies within
    ``budget_tolerance`` (a fraction) below the target — at most that share of the budget is
    left unused — or when its bracket on σ is ``relative_tolerance`` narrow (then
    ``termination`` is ``"max_iterations"`` and the message says how much is unused). The
    returned ``noise_multiplier`` is the safe end (the budget holds there, certified for PLD)
    and ``noise_multiplier_lower`` the largest σ tried below it where the accountant did not
    certify the budget. With ``phases`` the phases' own σ are replaced.
    """
    t = _real("target_epsilon", target_epsilon, lambda v: v > 0, "a finite number > 0")
    d = _delta_arg(delta)
    phases, _ = _resolve_run(run, need_sigma=False)
    a = _accountant(accountant)
    tol = _real("relative_tolerance", relative_tolerance, lambda v: 1e-12 <= v < 1,
                "a number in [1e-12, 1)")
    budget = _real("budget_tolerance", budget_tolerance, lambda v: 1e-12 <= v < 0.5,
                   "a number in [1e-12, 0.5)")
    res = _call(_dpkit.calibrate_noise, phases, _gaussian_mu(gaussian_mu), t, d, _ACCOUNTANT[a],
                tol, budget, _options(relative_accuracy, max_fft_size))
    return NoiseCalibration(
        noise_multiplier=float(res["noise_multiplier"]),
        noise_multiplier_lower=float(res["noise_multiplier_lower"]),
        epsilon=PrivacyResult._from_estimate(res["estimate"], "epsilon", d),
        termination=str(res["termination"]),
        message=str(res["message"]))


@takes_run(positional=("noise_multiplier", "sample_rate"), omit=("steps", "epochs"))
def calibrate_steps(target_epsilon: float,
                    delta: float,
                    run: Dict[str, Any],
                    *,
                    max_steps: Optional[int] = None,
                    max_epochs: Optional[float] = None,
                    gaussian_mu: float = 0.0,
                    accountant: str = "pld",
                    relative_accuracy: Optional[float] = None,
                    max_fft_size: Optional[int] = None) -> StepsCalibration:
    """The largest number of steps (of the last phase) whose certified ε at δ is within
    ``target_epsilon``, searched up to ``max_steps`` (or ``max_epochs``; default 10**7 steps).

    With ``phases``, the earlier phases are kept and the last phase's steps are searched.
    """
    t = _real("target_epsilon", target_epsilon, lambda v: v > 0, "a finite number > 0")
    d = _delta_arg(delta)
    if max_steps is not None and max_epochs is not None:
        raise ValueError("max_steps must not be given together with max_epochs")
    phases, derivation = _resolve_run(run, need_steps=False)
    if max_epochs is not None:
        if derivation is None:
            raise ValueError("max_epochs needs sample_rate or batch_size and dataset_size "
                             "(use max_steps with phases)")
        cap = _steps_from_epochs(max_epochs, derivation, "max_epochs")
    elif max_steps is not None:
        cap = _integer("max_steps", max_steps, 1, "an integer >= 1")
    else:
        cap = 10_000_000
    a = _accountant(accountant)
    res = _call(_dpkit.calibrate_steps, phases, _gaussian_mu(gaussian_mu), t, d, cap,
                _ACCOUNTANT[a],
                _options(relative_accuracy, max_fft_size))
    steps = int(res["steps"])
    # The epochs the steps stand for, T / (steps per epoch) as the CLI's (a training loop's
    # unit only).
    epochs = (steps / derivation.steps_per_epoch
              if derivation is not None and derivation.in_batches else math.nan)
    est = PrivacyResult._from_estimate(res["estimate"], "epsilon", d) if "estimate" in res else None
    return StepsCalibration(steps=steps, epochs=epochs, epsilon=est,
                            termination=str(res["termination"]),
                            message=str(res["message"]))


@takes_run(annotations={"steps": "Optional[Sequence[int]]",
                         "epochs": "Optional[Sequence[float]]"})
def epsilon_curve(delta: float,
                  run: Dict[str, Any],
                  *,
                  gaussian_mu: float = 0.0,
                  accountant: str = "pld",
                  relative_accuracy: Optional[float] = None,
                  max_fft_size: Optional[int] = None) -> EpsilonCurve:
    """ε at δ after each number of steps in ``steps`` (or each of ``epochs``), as arrays.

    Every point is its own certified evaluation (PLD: computed from the most steps down on the
    grid and the discretised steps of the largest run, so most points take one composition;
    RDP: equal to separate calls); ``upper`` is certified at every point. With ``phases``, the
    last phase's steps vary and the earlier phases are kept. ``steps`` need not be sorted;
    the curve comes back in the order given.
    """
    import numpy as np

    d = _delta_arg(delta)
    steps, epochs = run["steps"], run["epochs"]
    if (steps is None) == (epochs is None):
        raise ValueError("steps is required (an array of step counts), or epochs instead")
    if run["phases"] is not None and epochs is not None:
        raise ValueError("epochs must not be given together with phases (give steps)")
    # The run without its steps (the curve's own); with phases, the last phase's steps vary.
    phases, derivation = _resolve_run(dict(run, steps=None if run["phases"] is not None else 1,
                                      epochs=None))
    if epochs is not None:
        e_arr = np.atleast_1d(np.asarray(epochs, dtype=float))
        s_list = [_steps_from_epochs(e, derivation) for e in e_arr]
    else:
        s_arr = np.atleast_1d(np.asarray(steps))
        if s_arr.ndim != 1 or s_arr.size == 0:
            raise ValueError("steps must be a non-empty one-dimensional array of integers >= 1")
        s_list = [_integer("steps", s, 1, "integers >= 1") for s in s_arr.tolist()]
    a = _accountant(accountant)
    res = _call(_dpkit.epsilon_curve, phases, _gaussian_mu(gaussian_mu), s_list, d, _ACCOUNTANT[a],
                _options(relative_accuracy, max_fft_size))
    return EpsilonCurve(
        steps=np.asarray(s_list, dtype=np.int64),
        value=np.asarray(res["value"]),
        lower=np.asarray(res["lower"]),
        upper=np.asarray(res["upper"]),
        kind=tuple(res["kind"]),
        termination=tuple(res["termination"]),
        delta=d, accountant=a, message=str(res["message"]))


@takes_run()
def delta_curve(epsilons: Sequence[float],
                run: Dict[str, Any],
                *,
                gaussian_mu: float = 0.0,
                relative_accuracy: Optional[float] = None,
                max_fft_size: Optional[int] = None) -> DeltaCurve:
    """Certified bounds on δ(ε) at every ε of ``epsilons`` (≥ 0, any order) from one PLD
    composition. Accuracy is relative to the largest δ on the list."""
    import numpy as np

    e = _reals("epsilons", epsilons, lambda x: x >= 0, "a finite number >= 0")
    phases, _ = _resolve_run(run)
    order = np.argsort(e, kind="stable")
    uniq, inverse = np.unique(e[order], return_inverse=True)
    res = _call(_dpkit.delta_profile, phases, _gaussian_mu(gaussian_mu), uniq,
                _options(relative_accuracy, max_fft_size))
    lo_sorted = np.asarray(res["lower"])[inverse]
    up_sorted = np.asarray(res["upper"])[inverse]
    lower = np.empty_like(e)
    upper = np.empty_like(e)
    lower[order] = lo_sorted
    upper[order] = up_sorted
    return DeltaCurve(epsilon=e, lower=lower, upper=upper, tight=bool(res["tight"]),
                      termination=str(res["termination"]),
                      message=str(res["message"]))


@takes_run()
def tradeoff(alpha: Sequence[float],
             run: Dict[str, Any],
             *,
             gaussian_mu: float = 0.0,
             relative_accuracy: Optional[float] = None,
             max_fft_size: Optional[int] = None) -> TradeoffCurve:
    """The run's tradeoff curve β(α) (f-DP) at each α ∈ [0, 1] of any array, certified from
    both sides. α may go down to 1e-10 and below: ``power_upper`` (1 − lower, formed without
    the cancellation of 1 − β near 1) bounds the power (true-positive rate) of any
    membership-inference test at false-positive rate α."""
    import numpy as np

    a = _reals("alpha", alpha, lambda x: 0 <= x <= 1, "a number in [0, 1]")
    phases, _ = _resolve_run(run)
    res = _call(_dpkit.tradeoff, phases, _gaussian_mu(gaussian_mu), a,
                _options(relative_accuracy, max_fft_size))
    return TradeoffCurve(alpha=a, lower=np.asarray(res["lower"]), upper=np.asarray(res["upper"]),
                         power_upper=np.asarray(res["power_upper"]),
                         power_lower=np.asarray(res["power_lower"]),
                         exact=bool(res["exact"]), method=str(res["method"]),
                         termination=str(res["termination"]),
                         message=str(res["message"]))


@takes_run()
def gdp_mu(run: Dict[str, Any],
           *,
           gaussian_mu: float = 0.0,
           fpr_min: float = 1e-12,
           points: int = 4000,
           relative_accuracy: Optional[float] = None,
           max_fft_size: Optional[int] = None) -> GdpMu:
    """The Gaussian-DP μ the run is closest to: the smallest μ whose curve G(μ) lies below the
    run's tradeoff curve at every false-positive rate in [fpr_min, 1/2], certified from both
    sides (dp_accounting's ``get_gdp_parameter_estimate`` is a grid estimate of the same
    quantity with the same default range, neither bound). ``points`` grid points, uniform in
    Φ⁻¹(FPR); the bracket is at most |Φ⁻¹(fpr_min)|/(points − 1) wider than the tradeoff
    bracket makes it. Below fpr_min the curve of a subsampled run departs from any G(μ), so the
    range is part of the answer."""
    f = _real("fpr_min", fpr_min, lambda v: 0 < v < 0.5, "a number in (0, 0.5)")
    n = _integer("points", points, 2, "an integer >= 2")
    phases, _ = _resolve_run(run)
    res = _call(_dpkit.gdp_mu, phases, _gaussian_mu(gaussian_mu), f, n,
                _options(relative_accuracy, max_fft_size))
    return GdpMu(lower=float(res["mu_lower"]), upper=float(res["mu_upper"]),
                 fpr_min=float(res["alpha_min"]), fpr_at_max=float(res["alpha_at_max"]),
                 exact=bool(res["exact"]), method=str(res["method"]),
                 termination=str(res["termination"]), message=str(res["message"]))


@takes_run()
def rdp(orders: Sequence[float],
        run: Dict[str, Any],
        *,
        gaussian_mu: float = 0.0) -> np.ndarray:
    """The run's Rényi DP ε(α) at each order α ∈ (1, 1e6] (an upper bound: exact for Poisson
    and full-batch phases; without replacement, the Rényi divergence of C_q(G(2/σ)) computed
    from its privacy profile)."""
    import numpy as np

    o = _reals("orders", orders, lambda x: 1 < x <= 1e6, "a number in (1, 1e6]")
    phases, _ = _resolve_run(run)
    return np.asarray(_call(_dpkit.rdp, phases, _gaussian_mu(gaussian_mu), o))
