"""The privacy a real training run's canary scores prove (``dpkit.audit_scores``).

The computation is the library's (dpkit/audit/canary_scores.hpp, the one ``dpkit audit
--scores`` prints); this module converts the arrays and wraps the rows. docs/audit.md, "Audit a
real run from canary scores", says which number to report.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from . import _core, _dpkit, _errors


class ScoreAudit:
    """The audit's rows, each a dict with ``statistic`` (``clopper-pearson``, ``gdp``,
    ``one-run``, ``one-run-fdp``, ``tpr-at-fpr``, ``auroc``), ``kind`` (``lower-bound``: ε of
    every (ε, δ)-DP guarantee of the run is at least ``epsilon`` with probability ≥
    ``confidence``; or ``estimate``), ``epsilon`` at ``delta``, ``mu_lower`` (the GDP rows: a
    lower bound on μ of every μ-GDP guarantee), ``tpr``/``tpr_lower``/``tpr_upper`` at ``fpr``,
    ``auroc``, and ``method`` in words. ``audit["one-run"]`` is the row of that statistic.

    ``verdict``: with ``claim_epsilon``, ``"violated"`` when the primary lower bound
    (``primary``: one-run with ``one_run=True``, else clopper-pearson) exceeds the claim, else
    ``"inconclusive"`` (scores never prove a claim); ``""`` without a claim.
    """

    def __init__(self, raw: Dict[str, Any]):
        self.rows: List[Dict[str, Any]] = list(raw["rows"])
        self.n_in: int = raw["n_in"]
        self.n_out: int = raw["n_out"]
        self.primary: str = raw["primary"]
        self.verdict: str = raw["verdict"]

    def __getitem__(self, statistic: str) -> Dict[str, Any]:
        for row in self.rows:
            if row["statistic"] == statistic:
                return row
        raise KeyError(f"{statistic!r}: this audit has "
                       + ", ".join(r["statistic"] for r in self.rows))

    @property
    def epsilon_lower(self) -> float:
        """The primary row's ε: the lower bound to set beside the accountant's upper bound."""
        return float(self[self.primary]["epsilon"])

    def __repr__(self) -> str:
        lines = [f"ScoreAudit({self.n_in} inserted, {self.n_out} held out"
                 + (f", verdict {self.verdict}" if self.verdict else "") + ")"]
        for r in self.rows:
            value = ", ".join(f"{k}={r[k]:.6g}" for k in ("epsilon", "mu_lower", "tpr", "auroc")
                              if k in r)
            lines.append(f"  {r['statistic']:>15} {r['kind']:>11}  {value}")
        return "\n".join(lines)


def audit_scores(in_scores: Any, out_scores: Any, *, delta: float = 1e-5,
                 confidence: float = 0.95, threshold_strategy: str = "bonferroni",
                 split_fraction: float = 0.5, seed: int = 0, two_sided: bool = False,
                 fpr: float = 0.01, one_run: bool = False, guesses: Optional[int] = None,
                 claim_epsilon: Optional[float] = None) -> ScoreAudit:
    """Empirical privacy from canary scores (larger = more likely a member).

    ``in_scores``: scores of the canaries inserted in training; ``out_scores``: of those held
    out (1-D arrays). Independent runs (default): Clopper–Pearson ε lower bound and the GDP
    route. ``one_run=True``: the scores come from one run with m canaries, each inserted by a
    fair coin — adds the one-run bounds of Steinke et al. (2023) and Mahloujifar et al.
    (2024); ``guesses=K`` fixes the number of guesses (the K highest scores) in advance.
    ``claim_epsilon``: a claimed ε at ``delta`` to check (``verdict``).

    >>> import numpy as np, dpkit
    >>> rng = np.random.default_rng(0)
    >>> a = dpkit.audit_scores(rng.normal(2, 1, 1000), rng.normal(0, 1, 1000))
    >>> a["clopper-pearson"]["kind"]
    'lower-bound'
    """
    import numpy as np  # here, not at import: `import dpkit` stays fast

    ins = np.ascontiguousarray(in_scores, dtype=float)
    outs = np.ascontiguousarray(out_scores, dtype=float)
    def number(name: str, value: Any) -> float:
        # Converted here, so a wrong type names its argument; the library checks the ranges.
        return _core._real(name, value, lambda v: True, "a number")

    claim = (None if claim_epsilon is None else
             _core._real("claim_epsilon", claim_epsilon, lambda v: v >= 0,
                         "a finite number >= 0 (or None: no claim)"))
    raw = _errors.call(_dpkit.audit_canary_scores, ins, outs, number("delta", delta),
                       number("confidence", confidence), str(threshold_strategy),
                       number("split_fraction", split_fraction),
                       _core._integer("seed", seed, 0, "an integer >= 0"),
                       bool(two_sided), number("fpr", fpr), bool(one_run),
                       None if guesses is None else
                       _core._integer("guesses", guesses, 1, "an integer >= 1"), claim)
    return ScoreAudit(raw)
