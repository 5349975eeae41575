#!/usr/bin/env python3
"""The coverage study behind every "95 %" of the scoreboard: each quick-tier scenario at many
seeds, its real claim and its self-check's wrong claim (docs/validation.md, "Coverage").

For each seed S in 1..--seeds it runs

    dpkit validate --all --seed S              (the claims as stated)
    dpkit validate --all --self-check --seed S (each scenario's named wrong claim)

and tabulates, per scenario: how often the real claim was violated (a false violation when the
claim is true: its nominal rate is at most 5 %, the scenario's family-wise level), refuted,
inconclusive or held, and how often the self-check's wrong claim was caught (the audit's power).
A rate is beyond its nominal level when the Clopper-Pearson 95 % interval of the count lies wholly
above 5 % (with 20 seeds: 4 or more violations). Expected refutations (validation/scenarios/
expected_refutations.cpp) are counted apart: for them a seed without the refutation is a miss.

    validation/coverage/coverage_study.py build/ci/tools/dpkit/dpkit --seeds 20 --work DIR \\
        --output coverage.csv --markdown coverage.md

The runs are kept in --work (one JSON per seed and mode) and reused when present, so an
interrupted study continues where it stopped. 20 seeds take about 40 min on 2 cores.
Exit status: 0, 2 (bad input or a failed run).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import subprocess
import sys
from typing import Dict, List


def clopper_pearson_lower(k: int, n: int, confidence: float = 0.95) -> float:
    """The lower end of the two-sided Clopper-Pearson interval of k successes in n (bisection on
    the binomial tail, exact: P[Bin(n, p) >= k] = (1 - confidence)/2)."""
    if k == 0:
        return 0.0
    target = (1 - confidence) / 2

    def upper_tail(p: float) -> float:
        return sum(math.comb(n, j) * p ** j * (1 - p) ** (n - j) for j in range(k, n + 1))

    lo, hi = 0.0, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if upper_tail(mid) < target else (lo, mid)
    return lo


def run_seed(dpkit: str, seed: int, self_check: bool, work: str) -> List[Dict[str, object]]:
    name = os.path.join(work, f"{'self' if self_check else 'real'}_{seed}.json")
    if not (os.path.exists(name) and os.path.getsize(name) > 0):
        cmd = [dpkit, "validate", "--all", "--seed", str(seed), "--no-figures", "--output-dir",
               os.path.join(work, f"{'self' if self_check else 'real'}_{seed}"), "--format",
               "json", "--output", name] + (["--self-check"] if self_check else [])
        p = subprocess.run(cmd, capture_output=True, text=True)
        # exit 3 is a verdict (a violation, a wrong claim not caught), not a failure
        if p.returncode not in (0, 3) or not os.path.exists(name):
            sys.stderr.write("coverage_study: failed: " + " ".join(cmd) + "\n" + p.stderr)
            sys.exit(2)
    with open(name) as f:
        return json.load(f)["results"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dpkit", help="the dpkit program")
    ap.add_argument("--seeds", type=int, default=20, help="seeds 1..N (default 20)")
    ap.add_argument("--work", required=True, help="directory for the runs' JSON")
    ap.add_argument("--output", help="the table as CSV")
    ap.add_argument("--markdown", help="the table as a Markdown page section")
    a = ap.parse_args()
    if a.seeds < 1:
        ap.error("--seeds must be >= 1")
    os.makedirs(a.work, exist_ok=True)
    real: Dict[str, Dict[str, int]] = {}
    caught: Dict[str, int] = {}
    for seed in range(1, a.seeds + 1):
        for row in run_seed(a.dpkit, seed, False, a.work):
            real.setdefault(row["id"], {}).setdefault(row["verdict"], 0)
            real[row["id"]][row["verdict"]] += 1
        for row in run_seed(a.dpkit, seed, True, a.work):
            caught.setdefault(row["id"], 0)
            caught[row["id"]] += row["verdict"] == "violated"
        print(f"seed {seed} of {a.seeds} done", file=sys.stderr, flush=True)

    n = a.seeds
    rows = []
    for sid in sorted(real):
        v = real[sid]
        violated = v.get("violated", 0)
        lower = clopper_pearson_lower(violated, n)
        rows.append({"id": sid, "seeds": n, "holds": v.get("holds", 0),
                     "inconclusive": v.get("inconclusive", 0), "violated": violated,
                     "refuted": v.get("refuted", 0),
                     "false_violation_beyond_5pct": "yes" if lower > 0.05 else "no",
                     "self_check_caught": caught.get(sid, 0)})
    if a.output:
        with open(a.output, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)
    lines = ["| scenario | holds | inconclusive | violated | refuted | self-check caught |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        flag = " **(beyond 5 %)**" if r["false_violation_beyond_5pct"] == "yes" else ""
        lines.append(f"| `{r['id']}` | {r['holds']} | {r['inconclusive']} | {r['violated']}{flag} "
                     f"| {r['refuted']} | {r['self_check_caught']} of {n} |")
    text = "\n".join(lines) + "\n"
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
