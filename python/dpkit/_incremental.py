"""dpkit.Accountant: a training run accounted as it grows, as a training loop sees it.

The loop calls :meth:`Accountant.step` as it takes steps and asks for the certified ε (or δ) as
often as it likes. Adding steps costs nothing; a query composes the run on the grid of the
previous one with the steps it already discretised, and the steps are discretised anew only when
the grid is refined or the run outgrows a horizon that doubles: O(log T) times over T steps,
however often it is asked (docs/accounting.md, "Accounting a training loop").
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import _dpkit
from ._core import (_call, _delta_arg, _epsilon_arg, _gaussian_mu, _integer, _options,
                    _resolve_run)
from ._results import PrivacyResult
from ._run_arguments import takes_run

if TYPE_CHECKING:
    from typing import Any, Dict, Optional

__all__ = ["Accountant"]


class Accountant:
    """The certified PLD bracket of a run that grows step by step.

    Args:
        noise_multiplier: σ = noise standard deviation / clipping norm C (> 0; the
            sensitivity is C, or 2C for replace-one neighbours: :func:`dpkit.epsilon`).
        sample_rate: q ∈ (0, 1] (or ``batch_size`` and ``dataset_size``).
        sampling, neighbours, max_batch_size: as for :func:`dpkit.epsilon`.
        gaussian_mu: an extra μ-GDP mechanism composed with the run (0: none).
        relative_accuracy, max_fft_size: PLD options, as for :func:`dpkit.epsilon`.

    Example:
        >>> acc = dpkit.Accountant(noise_multiplier=1.0, batch_size=256, dataset_size=60_000)
        >>> for epoch in range(3):
        ...     acc.step(235)                  # the steps this epoch took
        ...     print(acc.steps, float(acc.epsilon(1e-5)))

    Every answer is the same certified bracket :func:`dpkit.epsilon` gives for the run so far.
    Shuffled and randomly allocated batches are answered afresh at each query (no reuse).
    Not thread-safe: one accountant per training loop.
    """

    __slots__ = ("_acc",)

    @takes_run(positional=("noise_multiplier", "sample_rate"), omit=("steps", "epochs", "phases"))
    def __init__(self,
                 run: Dict[str, Any],
                 *,
                 gaussian_mu: float = 0.0,
                 relative_accuracy: Optional[float] = None,
                 max_fft_size: Optional[int] = None) -> None:
        phases, _ = _resolve_run(dict(run, steps=1))
        self._acc = _call(_dpkit.IncrementalAccountant, phases, _gaussian_mu(gaussian_mu),
                          _options(relative_accuracy, max_fft_size))

    def step(self, count: int = 1) -> None:
        """Add ``count`` ≥ 0 steps (default one)."""
        self._acc.add_steps(_integer("count", count, 0, "an integer >= 0"))

    @property
    def steps(self) -> int:
        """The steps taken so far."""
        return int(self._acc.steps)

    @property
    def discretisations(self) -> int:
        """How many times the steps were discretised so far (O(log steps))."""
        return int(self._acc.discretisations)

    def epsilon(self, delta: float) -> PrivacyResult:
        """The certified bracket on ε at δ ∈ [1e-290, 1) of the run so far (0 before any step)."""
        d = _delta_arg(delta)
        return PrivacyResult._from_estimate(_call(self._acc.epsilon, d), "epsilon", d)

    def delta(self, epsilon: float) -> PrivacyResult:
        """The certified bracket on δ at ε ≥ 0 of the run so far (0 before any step)."""
        e = _epsilon_arg(epsilon)
        return PrivacyResult._from_estimate(_call(self._acc.delta, e), "delta", e)

    def __repr__(self) -> str:
        return f"dpkit.Accountant(steps={self.steps})"
