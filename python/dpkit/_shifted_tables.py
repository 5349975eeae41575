"""The four tables of ``dpkit shifted`` (noisy GD, noisy cyclic GD, noisy SGD, LMC) as
functions: every bound the command prints for an algorithm, as rows of a ShiftedReport.

Split from :mod:`dpkit.shifted` (which re-exports these functions) along its seam: that module
holds the result types, the argument checks and the single bounds; this one assembles the
tables from them.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from . import _core, _dpkit
from .shifted import (
    ShiftedBound, ShiftedReport, _NAN, _call, _contraction_arg, _delta, _gdp_row, _opt_int,
    _opt_pos, _pos, _rdp_row, _setting, _setting_dict, _sgd_options, _sgd_row, contraction,
    exponential_mechanism_threshold, mechanism, noisy_sgd_bound)


# ---- the tables of `dpkit shifted` ------------------------------------------------------------

class _Args:
    """The checked arguments of a table call."""

    def __init__(self, **kw: Any) -> None:
        self.__dict__.update(kw)


def _resolve_contraction(a: _Args, strongly: bool, is_lmc: bool) -> float:
    c = a.contraction
    if c is None and strongly and not is_lmc:
        if a.strong_convexity is None or a.smoothness is None or a.learning_rate is None:
            raise ValueError("setting='strongly-convex' needs contraction, or learning_rate with "
                             "strong_convexity and smoothness (c = max{|1 - eta m|, |1 - eta M|})")
        c = contraction(a.learning_rate, a.strong_convexity, a.smoothness)
    if c is None:
        c = 1.0
    if strongly and not is_lmc and not c < 1:
        raise ValueError(f"contraction is {c:.10g}, but must be < 1 for "
                         f"setting='strongly-convex'")
    return c


def _table(algorithm: str, a: _Args) -> ShiftedReport:
    """The rows of `dpkit shifted ALGORITHM` (tools/dpkit/shifted.cpp run_shifted)."""
    cyclic, stochastic, is_lmc = (algorithm == "noisy-cgd", algorithm == "noisy-sgd",
                                  algorithm == "lmc")
    setting = a.setting
    strongly, constrained = setting == "strongly-convex", setting == "constrained-convex"
    c = _resolve_contraction(a, strongly, is_lmc)
    if constrained and a.diameter is None:
        raise ValueError("diameter is required for setting='constrained-convex'")
    delta = a.delta
    rows: List[ShiftedBound] = []
    notes: List[str] = []

    if is_lmc:
        L = a.sensitivity
        if strongly:
            if a.strong_convexity is None:
                raise ValueError("strong_convexity is required for LMC")
            if a.learning_rate is None:
                raise ValueError("learning_rate is required for LMC")
            kw = dict(sensitivity=L, strong_convexity=a.strong_convexity,
                      learning_rate=a.learning_rate, delta=delta)
            rows.append(_rename(mechanism("lmc", **kw), "shifted-interpolation"))
            if a.steps is not None:
                rows.append(_rename(mechanism("lmc_at", steps=a.steps, **kw),
                                    "shifted-interpolation (t steps)"))
            rows.append(_rename(mechanism("exponential_mechanism", sensitivity=L,
                                          strong_convexity=a.strong_convexity, delta=delta),
                                "exponential-mechanism"))
        elif constrained:
            rows.append(_rename(mechanism("log_concave_mechanism", sensitivity=L,
                                          diameter=a.diameter, delta=delta),
                                "log-concave-mechanism"))
            if a.learning_rate is not None:
                rows.append(_rename(mechanism("projected_lmc", sensitivity=L, diameter=a.diameter,
                                              learning_rate=a.learning_rate, delta=delta),
                                    "projected-lmc"))
            eps = 2 * L * a.diameter
            rows.append(ShiftedBound(
                bound="pure-dp (MT07)", kind="upper-bound", value=eps, lower=_NAN, upper=eps,
                mu=_NAN, delta=delta, tau=None,
                method="exponential mechanism, standard analysis",
                note=("(2LD, 0)-DP. As tradeoff curves, G(2 sqrt(LD)) is not implied by it "
                      f"exactly when LD > {exponential_mechanism_threshold():.10g} (Bok "
                      "D.4); at one delta either epsilon can be the smaller")))
        else:
            raise ValueError("setting='convex': Bok has no LMC bound without strong "
                             "convexity or a diameter (use 'strongly-convex' or "
                             "'constrained-convex')")
        return ShiftedReport("LMC", setting, delta, tuple(rows), tuple(notes))

    b = a.batch_size
    if (cyclic or stochastic) and b is None:
        raise ValueError(f"batch_size is required for {algorithm}")
    if a.batches_per_epoch is not None and not cyclic:
        raise ValueError("batches_per_epoch applies to noisy_cgd only")
    if cyclic and a.batches_per_epoch is not None and a.dataset_size is None:
        n = a.batches_per_epoch * b
    else:
        if a.dataset_size is None:
            raise ValueError("dataset_size is required (the number of examples n)")
        n = a.dataset_size
    if cyclic and a.batches_per_epoch is not None and a.batches_per_epoch * b != n:
        raise ValueError(f"batches_per_epoch is {a.batches_per_epoch}, but must be n/b = "
                         f"{n / b:.10g}")
    if a.epochs is not None and a.steps is not None:
        raise ValueError("steps must not be given together with epochs")
    if a.epochs is not None:
        if not cyclic:
            raise ValueError("epochs applies to noisy_cgd (use steps)")
        if n % b != 0:
            raise ValueError(f"dataset_size is {n}, but must be a multiple of batch_size ({b})")
        t = a.epochs * (n // b)
    else:
        if a.steps is None:
            raise ValueError("steps is required" + (" (or epochs)" if cyclic else ""))
        t = a.steps
    if (constrained or strongly) and a.learning_rate is None and (
            constrained or stochastic or cyclic or a.contraction is None):
        raise ValueError(f"learning_rate is required for setting={setting!r}")
    s = _setting_dict(sensitivity=a.sensitivity, noise=a.noise, examples=n, batch_size=b,
                      steps=t, learning_rate=a.learning_rate, contraction=c, diameter=a.diameter)

    def gdp(name: str, row: str) -> ShiftedBound:
        return _gdp_row(row, _call(_dpkit.shifted_gdp, name, s, -1, delta), delta)

    schedule = getattr(a, "learning_rates", None)
    if schedule is not None:
        if algorithm != "noisy-gd" or a.strong_convexity is None or a.smoothness is None:
            raise ValueError("learning_rates / lr_decay apply to noisy_gd and need "
                             "strong_convexity and smoothness (per-step contractions)")
        if schedule.size != t:
            raise ValueError(f"learning_rates has {schedule.size} values, but must have "
                             f"steps = {t}")
        res = _call(_dpkit.shifted_gd_schedule, s, schedule, a.strong_convexity, a.smoothness,
                    delta)
        rows.append(_gdp_row("shifted-interpolation (schedule)", res, delta))

    if algorithm == "noisy-gd":
        if strongly and schedule is not None:
            pass  # the constant-eta closed forms do not apply to a schedule
        elif strongly:
            ours = gdp("noisy_gd_strongly_convex", "shifted-interpolation")
            rows.append(ours)
            rows.append(_rdp_row("rdp-shifted",
                                 "BSA24 Thm 4.2 + Lemma A.4 (RDP, as in its Figure 1)",
                                 _call(_dpkit.shifted_rdp_linear, ours.mu * ours.mu / 2, delta),
                                 delta))
            if a.diameter is not None:
                rows.append(gdp("noisy_gd_shifted", "shifted-interpolation (with diameter)"))
            if a.strong_convexity is not None and a.learning_rate is not None:
                c_ys = 1 - a.learning_rate * a.strong_convexity / 2
                rows.append(_rdp_row(
                    "rdp-ys22", "YS22 Thm D.6 (as in the paper's code)",
                    _call(_dpkit.shifted_ys22, "noisy_gd", s, c_ys, delta), delta,
                    "c_ys = 1 - eta m/2 (inferred; Bok Fig. 1 uses 0.975)"))
        elif constrained:
            k = a.diameter * n / (a.learning_rate * a.sensitivity)
            rows.append(gdp("noisy_gd_shifted", "shifted-interpolation"))
            if t >= k:
                rows.append(gdp("noisy_gd_constrained_convex", "shifted-interpolation (Thm 4.3)"))
            rows.append(gdp("noisy_gd_constrained_convex_best_tau",
                            "shifted-interpolation (Thm C.7 at best tau)"))
        rows.append(gdp("noisy_gd_composition", "composition"))
    elif cyclic:
        if strongly:
            rows.append(gdp("noisy_cgd_strongly_convex", "shifted-interpolation"))
            rows.append(gdp("noisy_cgd_strongly_convex_lower", "lower-bound"))
            rows.append(_rdp_row("rdp-ys22", "YS22 Thm 3.3 (as in the paper's code)",
                                 _call(_dpkit.shifted_ys22, "noisy_cgd", s, 0.5, delta), delta))
        else:
            if constrained:
                rows.append(gdp("noisy_cgd_shifted", "shifted-interpolation"))
            rows.append(gdp("noisy_cgd_convex", "shifted-interpolation (derived c = 1)"))
            if constrained:
                k = a.diameter * b / (a.learning_rate * a.sensitivity)
                E = t / (n // b)
                if E >= k:
                    rows.append(gdp("noisy_cgd_constrained_convex",
                                    "shifted-interpolation (Thm 4.6)"))
                rows.append(gdp("noisy_cgd_constrained_convex_best_tau",
                                "shifted-interpolation (Thm 4.6 at best tau)"))
        rows.append(gdp("noisy_cgd_composition", "composition"))
    else:  # noisy-sgd
        if b > n:
            raise ValueError(f"batch_size is {b}, but must be at most dataset_size ({n})")
        opts = _sgd_options(a.relative_accuracy, 2**62 if a.exhaustive_tau else None,
                            a.optimise_split)
        common = dict(sensitivity=a.sensitivity, dataset_size=n, batch_size=b, noise=a.noise,
                      steps=t, learning_rate=a.learning_rate, contraction=c,
                      diameter=a.diameter, relative_accuracy=a.relative_accuracy, delta=delta)
        if a.shifts is not None:
            if not strongly:
                raise ValueError("shifts applies to setting='strongly-convex' (Thm C.13)")
            rows.append(noisy_sgd_bound("shifts", shifts=a.shifts, **common))
        exhaustive = bool(a.exhaustive_tau)
        if strongly and t < 2:
            notes.append("Thm 4.9 needs t >= 2 (tau in 1..t-1); at t = 1 composition is exact "
                         "(Bok et al. §C.4.1)")
        elif strongly or constrained:
            name = "strongly_convex" if strongly else "constrained_convex"
            res = _call(_dpkit.shifted_sgd, name, s, delta, opts)
            k_range = t - 1 if strongly else t
            rows.append(_sgd_row("shifted-interpolation", res, delta,
                                 exhaustive or k_range <= 64))
            clt = _gdp_row("shifted-interpolation (CLT)",
                           _call(_dpkit.shifted_clt, name, s, delta), delta)
            k_clt = clt.details["steps_after_tau"]
            note = f"CLT choice t - tau = {k_clt:.10g}; an approximation"
            if not 1 <= k_clt <= k_range:
                # Props C.14/C.15 do not depend on t: the library does not clamp the choice.
                note += (f"; outside this run (t - tau must be in 1..{k_range}), so the CLT "
                         f"value describes a longer run, not t = {t}")
            clt = dataclasses.replace(clt, note=note)
            rows.append(clt)
        rows.append(_sgd_row("composition", _call(_dpkit.shifted_sgd, "composition", s, delta,
                                                  opts), delta))

    if not strongly and not constrained:
        notes.append("convex without a diameter: Bok gives no convergent bound here"
                     + (" except the derived c = 1 bound for cyclic batches" if cyclic
                        else "; composition is the bound"))
    return ShiftedReport(algorithm, setting, delta, tuple(rows), tuple(notes))


def _rename(b: ShiftedBound, name: str) -> ShiftedBound:
    return dataclasses.replace(b, bound=name)


def _common(sensitivity: Any, noise: Any, dataset_size: Any, batch_size: Any, steps: Any,
            learning_rate: Any, contraction: Any, strong_convexity: Any, smoothness: Any,
            diameter: Any, setting: Any, delta: Any) -> Dict[str, Any]:
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
        setting=_setting(setting),
        delta=_delta(delta),
        epochs=None, batches_per_epoch=None, learning_rates=None, shifts=None,
        relative_accuracy=None, optimise_split=False, exhaustive_tau=False)


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
    a = _Args(**_common(sensitivity, _pos("noise", noise), dataset_size, None, steps,
                        learning_rate, contraction, strong_convexity, smoothness, diameter,
                        setting, delta))
    if a.dataset_size is None:
        raise ValueError("dataset_size is required (the number of examples n)")
    if a.steps is None:
        raise ValueError("steps is required")
    if learning_rates is not None and lr_decay is not None:
        raise ValueError("learning_rates must not be given together with lr_decay")
    if lr_decay is not None:
        tau0 = _pos("lr_decay", lr_decay)
        if a.learning_rate is None:
            raise ValueError("lr_decay needs learning_rate (eta_k = eta/(1 + k/lr_decay))")
        a.learning_rates = a.learning_rate / (1 + np.arange(a.steps, dtype=float) / tau0)
    elif learning_rates is not None:
        x = np.atleast_1d(np.asarray(learning_rates, dtype=float))
        if x.ndim != 1 or not np.all(np.isfinite(x)) or np.any(x <= 0):
            raise ValueError("learning_rates must be a one-dimensional array of finite numbers "
                             "> 0")
        a.learning_rates = x
    return _table("noisy-gd", a)


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
    a = _Args(**_common(sensitivity, _pos("noise", noise), dataset_size, batch_size, steps,
                        learning_rate, contraction, strong_convexity, smoothness, diameter,
                        setting, delta))
    a.epochs = _opt_int("epochs", epochs)
    a.batches_per_epoch = _opt_int("batches_per_epoch", batches_per_epoch)
    return _table("noisy-cgd", a)


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
    a = _Args(**_common(sensitivity, _pos("noise", noise), dataset_size, batch_size, steps,
                        learning_rate, contraction, strong_convexity, smoothness, diameter,
                        setting, delta))
    a.relative_accuracy = _core._real("relative_accuracy", relative_accuracy,
                                      lambda v: 1e-8 <= v < 1, "a number in [1e-8, 1)")
    a.optimise_split = bool(optimise_split)
    a.exhaustive_tau = bool(exhaustive_tau)
    a.shifts = None if shifts is None else np.asarray(shifts, dtype=float)
    if a.dataset_size is None:
        raise ValueError("dataset_size is required (the number of examples n)")
    if a.steps is None:
        raise ValueError("steps is required")
    return _table("noisy-sgd", a)


def lmc(*,
        sensitivity: float,
        setting: str = "strongly-convex",
        strong_convexity: Optional[float] = None,
        learning_rate: Optional[float] = None,
        steps: Optional[int] = None,
        diameter: Optional[float] = None,
        delta: float = 1e-5) -> ShiftedReport:
    """Langevin Monte Carlo and exponential mechanisms (Bok et al. §5): the bounds of ``dpkit
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
    a = _Args(**_common(sensitivity, None, None, None, steps, learning_rate, None,
                        strong_convexity, None, diameter, setting, delta))
    return _table("lmc", a)
