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

--check makes the study a test (the full tier's CTest validation.coverage_study): exit 3 when a
real claim's false-violation rate is beyond its nominal level, when a reviewed refutation of the
quick tier did not reproduce at every seed, or when a self-check never caught its wrong claim
without being a listed blind spot of the quick tier (both lists from `dpkit validate --list`).
Self-check power below 1 is reported, not failed: it is a statement about the audit's size.

--ids limits the study to some scenarios, --first-seed starts it later, --real-only skips the
self-checks, and --jobs N runs N seeds side by side, each on one thread (results do not depend
on the thread count). The 320-seed study of docs/validation.md ran on a 16-core machine as

    coverage_study.py dpkit --ids lksp25-risk-sgd ... --seeds 320 --real-only --jobs 16 --work W

The runs are kept in --work (one JSON per seed and mode) and reused when present, so an
interrupted study continues where it stopped. 20 seeds take about 40 min on 2 cores.
Exit status: 0, 2 (bad input or a failed run), 3 (--check failed; each failure printed).
"""

from __future__ import annotations

import argparse
import concurrent.futures
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
        # Each term in logs: math.comb(n, j) exceeds a double's range beyond n ~ 1 030 (a
        # 1 320-seed study overflowed).
        if p <= 0.0:
            return 0.0
        if p >= 1.0:
            return 1.0
        lp, lq = math.log(p), math.log1p(-p)
        return sum(math.exp(math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1) +
                            j * lp + (n - j) * lq) for j in range(k, n + 1))

    lo, hi = 0.0, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if upper_tail(mid) < target else (lo, mid)
    return lo


def run_seed(dpkit: str, seed: int, self_check: bool, work: str, ids: List[str],
             threads: int = 0) -> List[Dict[str, object]]:
    name = os.path.join(work, f"{'self' if self_check else 'real'}_{seed}.json")
    if not (os.path.exists(name) and os.path.getsize(name) > 0):
        cmd = [dpkit, "validate"] + (ids or ["--all"]) + [
            "--seed", str(seed), "--threads", str(threads), "--no-figures", "--output-dir",
            os.path.join(work, f"{'self' if self_check else 'real'}_{seed}"), "--format",
            "json", "--output", name] + (["--self-check"] if self_check else [])
        p = subprocess.run(cmd, capture_output=True, text=True)
        # exit 3 is a verdict (a violation, a wrong claim not caught), not a failure
        if p.returncode not in (0, 3) or not os.path.exists(name):
            sys.stderr.write("coverage_study: failed: " + " ".join(cmd) + "\n" + p.stderr)
            sys.exit(2)
        print(f"seed {seed} ({'self-check' if self_check else 'real claims'}) done",
              file=sys.stderr, flush=True)
    with open(name) as f:
        return json.load(f)["results"]


def reviewed_lists(dpkit: str, work: str) -> Dict[str, Dict[str, str]]:
    """Per scenario id, its `blind_spot` and `expected_refuted` tiers from `dpkit validate --list`
    (the reviewed lists live once, in validation/scenarios/)."""
    name = os.path.join(work, "list.json")
    p = subprocess.run([dpkit, "validate", "--list", "--format", "json", "--output", name],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write("coverage_study: failed: dpkit validate --list\n" + p.stderr)
        sys.exit(2)
    with open(name) as f:
        return {r["id"]: r for r in json.load(f)["results"]}


def check(rows: List[Dict[str, object]], lists: Dict[str, Dict[str, str]], n: int,
          real_only: bool) -> List[str]:
    """What fails the study as a test, one line each (empty: it passes)."""
    failures = []
    for r in rows:
        sid = str(r["id"])
        entry = lists.get(sid, {})
        if r["false_violation_beyond_5pct"] == "yes":
            failures.append(f"{sid}: violated at {r['violated']} of {n} seeds, beyond its nominal "
                            f"5 % (Clopper-Pearson lower end {clopper_pearson_lower(int(r['violated']), n):.3f})")
        if "quick" in str(entry.get("expected_refuted", "")).split(",") and r["refuted"] != n:
            failures.append(f"{sid}: a reviewed refutation, refuted at {r['refuted']} of {n} seeds "
                            "(it must reproduce at every seed)")
        if (not real_only and r["self_check_caught"] == 0 and
                "quick" not in str(entry.get("blind_spot", "")).split(",")):
            failures.append(f"{sid}: its self-check caught the wrong claim at none of {n} seeds, "
                            "and it is not a listed blind spot")
    return failures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dpkit", help="the dpkit program")
    ap.add_argument("--seeds", type=int, default=20,
                    help="how many seeds, from --first-seed on (default 20)")
    ap.add_argument("--work", required=True, help="directory for the runs' JSON")
    ap.add_argument("--output", help="the table as CSV")
    ap.add_argument("--markdown", help="the table as a Markdown page section")
    ap.add_argument("--ids", nargs="+", default=[], help="these scenarios only (default: all)")
    ap.add_argument("--first-seed", type=int, default=1, help="the first seed (default 1)")
    ap.add_argument("--real-only", action="store_true", help="skip the self-checks")
    ap.add_argument("--jobs", type=int, default=1,
                    help="seeds run side by side, one thread each (default 1: one run at a time, "
                         "on every core)")
    ap.add_argument("--check", action="store_true",
                    help="exit 3 when a rate is beyond its level, a reviewed refutation did not "
                         "reproduce, or a self-check never caught (see the description)")
    a = ap.parse_args()
    if a.seeds < 1:
        ap.error("--seeds must be >= 1")
    if a.first_seed < 1:
        ap.error("--first-seed must be >= 1")
    if a.jobs < 1:
        ap.error("--jobs must be >= 1")
    os.makedirs(a.work, exist_ok=True)
    seeds = list(range(a.first_seed, a.first_seed + a.seeds))
    modes = [False] if a.real_only else [False, True]
    threads = 1 if a.jobs > 1 else 0
    tasks = [(seed, mode) for seed in seeds for mode in modes]
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        runs = list(pool.map(lambda t: run_seed(a.dpkit, t[0], t[1], a.work, a.ids, threads),
                             tasks))
    real: Dict[str, Dict[str, int]] = {}
    caught: Dict[str, int] = {}
    for (seed, self_check), rows_of_seed in zip(tasks, runs):
        for row in rows_of_seed:
            if self_check:
                caught.setdefault(row["id"], 0)
                caught[row["id"]] += row["verdict"] == "violated"
            else:
                real.setdefault(row["id"], {}).setdefault(row["verdict"], 0)
                real[row["id"]][row["verdict"]] += 1

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
                     "self_check_caught": caught.get(sid, 0) if not a.real_only else ""})
    if a.output:
        with open(a.output, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)
    lines = ["| scenario | holds | inconclusive | violated | refuted |" +
             ("" if a.real_only else " self-check caught |"),
             "|---|---|---|---|---|" + ("" if a.real_only else "---|")]
    for r in rows:
        flag = " **(beyond 5 %)**" if r["false_violation_beyond_5pct"] == "yes" else ""
        lines.append(f"| `{r['id']}` | {r['holds']} | {r['inconclusive']} | {r['violated']}{flag} "
                     f"| {r['refuted']} |" +
                     ("" if a.real_only else f" {r['self_check_caught']} of {n} |"))
    text = "\n".join(lines) + "\n"
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    if a.check:
        failures = check(rows, reviewed_lists(a.dpkit, a.work), n, a.real_only)
        for line in failures:
            print("coverage_study: check failed: " + line, file=sys.stderr)
        if failures:
            return 3
        print(f"coverage_study: check passed ({len(rows)} scenarios, {n} seeds)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
