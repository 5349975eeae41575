"""dpkit — certified privacy accounting for DP training, from Python.

The accountants answer "what (ε, δ) does my training run have?" with honest labels: the PLD
accountant (default) returns a certified bracket ``lower ≤ ε ≤ upper``; ``float(result)`` is
the certified upper bound.

>>> import dpkit
>>> r = dpkit.epsilon(1e-5, noise_multiplier=1.0, sample_rate=0.01, steps=10_000)
>>> print(r)            # ε ≤ 6.18780 (certified bracket [6.18410, 6.18780]) ...
>>> dpkit.calibrate_noise(2.0, 1e-5, batch_size=256, dataset_size=60_000, epochs=10)

Functions: :func:`epsilon`, :func:`delta`, :func:`calibrate_noise`, :func:`calibrate_steps`, :class:`Accountant` (a training loop's run, accounted as it grows),
:func:`epsilon_curve`, :func:`delta_curve`, :func:`tradeoff`, :func:`gdp_mu`, :func:`rdp`, :func:`audit_scores` (the privacy canary scores prove). Drop-in layers:
:mod:`dpkit.opacus` (Opacus's accountant interface) and :mod:`dpkit.dp_accounting` (Google
dp_accounting's events and accountants). Theory modules: :mod:`dpkit.shifted`,
:mod:`dpkit.volterra`, :mod:`dpkit.hsgd`, :mod:`dpkit.correlated`; matrix-factorization
mechanisms (BandMF, BLT): :mod:`dpkit.matrix_mechanism`. Documentation:
docs/python.md in the repository.
"""

from ._dpkit import __git_hash__, __version__
from ._core import (ACCOUNTANTS, SAMPLING_SCHEMES, Phase, calibrate_noise, calibrate_steps,
                    delta, delta_curve, epsilon, epsilon_curve, gdp_mu, rdp, tradeoff)
from ._audit import ScoreAudit, audit_scores
from ._incremental import Accountant
from ._results import (DeltaCurve, EpsilonCurve, GdpMu, NoCertifiedValueError,
                       NoiseCalibration, PrivacyResult, StepsCalibration, TradeoffCurve)

__all__ = [
    "__version__",
    "Accountant",
    "Phase",
    "epsilon",
    "delta",
    "calibrate_noise",
    "calibrate_steps",
    "epsilon_curve",
    "delta_curve",
    "tradeoff",
    "gdp_mu",
    "rdp",
    "validate",
    "audit",
    "audit_scores",
    "ScoreAudit",
    "PrivacyResult",
    "NoiseCalibration",
    "StepsCalibration",
    "EpsilonCurve",
    "DeltaCurve",
    "TradeoffCurve",
    "GdpMu",
    "NoCertifiedValueError",
    "ACCOUNTANTS",
    "SAMPLING_SCHEMES",
]

_SUBMODULES = ("opacus", "dp_accounting", "shifted", "volterra", "hsgd", "correlated",
               "matrix_mechanism", "validation")


def validate(ids=None, **kwargs):
    """Runs validation scenarios (theorem vs Monte Carlo) through the dpkit program and returns
    the scoreboard as a list of dicts; see :func:`dpkit.validation.validate`."""
    from .validation import validate as _validate
    return _validate(ids, **kwargs)


def audit(**kwargs):
    """Checks a privacy claim (mu=, epsilon= with delta=, or tradeoff=) about a noisy training
    run against Monte Carlo runs through the dpkit program; see :func:`dpkit.validation.audit`."""
    from .validation import audit as _audit
    return _audit(**kwargs)


def __getattr__(name: str):
    # Submodules load on first use (dpkit.opacus, ...), keeping `import dpkit` fast.
    if name in _SUBMODULES:
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'dpkit' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_SUBMODULES))
