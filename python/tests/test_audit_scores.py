"""dpkit.audit_scores: the canary-score audit from Python.

* The numbers are the library's, the same as ``dpkit audit --scores`` prints (one rule, two
  front ends): compared on the same scores.
* The Clopper–Pearson bound against an independent 50-digit computation (mpmath): the inverse
  regularised incomplete beta function solved by bisection on mpmath.betainc, and the bound
  maximised over every threshold by this test's own loop.
* Errors name the Python keyword.
"""

import math
import subprocess

import mpmath
import numpy as np
import pytest

import dpkit
from conftest import cli, cli_json


def _scores(n, mu, seed):
    rng = np.random.default_rng(seed)
    return rng.normal(mu, 1, n), rng.normal(0, 1, n)


def test_python_and_cli_print_the_same_numbers(tmp_path):
    ins, outs = _scores(300, 1.5, 3)
    fin, fout = tmp_path / "in.csv", tmp_path / "out.csv"
    fin.write_text("score\n" + "\n".join(repr(float(x)) for x in ins) + "\n")
    fout.write_text("\n".join(repr(float(x)) for x in outs) + "\n")
    for one_run in (False, True):
        args = ["audit", "--scores", str(fin), str(fout), "--delta", "1e-6"]
        if one_run:
            args += ["--one-run", "--guesses", "60"]
        doc = cli_json(*args)
        a = dpkit.audit_scores(ins, outs, delta=1e-6, one_run=one_run,
                               guesses=60 if one_run else None)
        rows = {r["statistic"]: r for r in doc["results"]}
        assert [r["statistic"] for r in a.rows] == list(rows)
        for r in a.rows:
            for key in ("epsilon", "mu_lower", "tpr", "tpr_lower", "tpr_upper", "auroc"):
                if key in r:
                    assert rows[r["statistic"]][key] == r[key], (r["statistic"], key)
            assert rows[r["statistic"]]["kind"] == r["kind"]


def _cp_upper(k, n, tail):
    """Upper Clopper–Pearson limit: the p with P(Bin(n, p) <= k) = tail, i.e.
    1 − I_p(k + 1, n − k) = tail, by bisection at 50 digits."""
    if k == n:
        return mpmath.mpf(1)
    lo, hi = mpmath.mpf(0), mpmath.mpf(1)
    for _ in range(120):
        mid = (lo + hi) / 2
        cdf = 1 - mpmath.betainc(k + 1, n - k, 0, mid, regularized=True)
        if cdf > tail:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def test_clopper_pearson_bound_against_mpmath():
    mpmath.mp.dps = 50
    ins, outs = _scores(25, 2.0, 11)
    delta = 1e-3
    thresholds = sorted(set(ins) | set(outs))
    tail = mpmath.mpf(0.05) / (2 * len(thresholds))
    best = mpmath.mpf(0)
    for t in thresholds:
        tp = int(np.sum(ins >= t))
        fp = int(np.sum(outs >= t))
        fnr_hi = _cp_upper(len(ins) - tp, len(ins), tail)
        fpr_hi = _cp_upper(fp, len(outs), tail)
        num = 1 - fnr_hi - delta
        if num > 0:
            best = max(best, mpmath.log(num / fpr_hi))
    a = dpkit.audit_scores(ins, outs, delta=delta)
    assert a["clopper-pearson"]["kind"] == "lower-bound"
    assert a["clopper-pearson"]["epsilon"] == pytest.approx(float(best), rel=1e-9)
    assert a.epsilon_lower == a["clopper-pearson"]["epsilon"]


def test_gdp_route_is_a_lower_bound_on_mu_in_repeated_trials():
    # μ = 1.5, 60 seeds at confidence 0.9: a sound μ_lower exceeds μ in at most 10 % of them;
    # more than 13 exceedances has probability < 2 % (binomial), fixed before the run.
    exceed = sum(dpkit.audit_scores(*_scores(400, 1.5, 100 + s), confidence=0.9)["gdp"]["mu_lower"]
                 > 1.5 for s in range(60))
    assert exceed <= 13


def test_errors_name_the_keyword():
    with pytest.raises(ValueError, match=r"^delta is 1, but must be in \[0, 1\)"):
        dpkit.audit_scores([1.0, 2.0], [0.0], delta=1)
    with pytest.raises(ValueError, match=r"^threshold_strategy is 'x'"):
        dpkit.audit_scores([1.0, 2.0], [0.0], threshold_strategy="x")
    with pytest.raises(ValueError, match=r"^guesses is 1"):
        dpkit.audit_scores([1.0, 2.0], [0.0], guesses=1)
    with pytest.raises(ValueError, match=r"^in_scores is"):
        dpkit.audit_scores([], [0.0])
    with pytest.raises(ValueError, match=r"^out_scores is"):
        dpkit.audit_scores([1.0], [math.nan])
    with pytest.raises(ValueError, match=r"^in_scores is 2 dimensions"):
        dpkit.audit_scores(np.zeros((2, 2)), [0.0])
    with pytest.raises(KeyError, match="one-run"):
        dpkit.audit_scores([1.0, 2.0], [0.0])["one-run"]


def test_claim_verdict():
    ins, outs = _scores(2000, 4.0, 5)
    assert dpkit.audit_scores(ins, outs, claim_epsilon=1.0).verdict == "violated"
    assert dpkit.audit_scores(ins, outs, claim_epsilon=100.0).verdict == "inconclusive"
    assert dpkit.audit_scores(ins, outs).verdict == ""


def test_cli_exit_status_3_on_a_violated_claim(tmp_path):
    f = tmp_path / "scores.csv"
    ins, outs = _scores(2000, 4.0, 5)
    f.write_text("score,member\n" + "".join(f"{x!r},1\n" for x in ins)
                 + "".join(f"{x!r},0\n" for x in outs))
    r = subprocess.run([cli(), "audit", "--scores", str(f), "--claim-epsilon", "1"],
                       capture_output=True, text=True)
    assert r.returncode == 3
    assert "verdict: violated" in r.stdout
