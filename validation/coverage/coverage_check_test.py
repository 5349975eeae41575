#!/usr/bin/env python3
"""CTest validation.coverage_check: the coverage study's --check rule on constructed runs, so that
the full tier's study (validation.coverage_study, hours) fails for the right reasons. Each case
writes 20 seeds of verdicts into a fresh work directory (the study reuses stored runs) and runs

    coverage_study.py DPKIT --seeds 20 --work DIR --check

whose scenario list, reviewed refutations and blind spots come from DPKIT's `validate --list`.
The counts at the edge are the Clopper-Pearson rule's own: 3 violations of 20 have a lower end of
3.21 %, 4 of 20 5.73 % (beyond 5 %).

    validation/coverage/coverage_check_test.py build/ci/tools/dpkit/dpkit
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = 20


def scenario_lists(dpkit, work):
    name = os.path.join(work, "list.json")
    subprocess.run([dpkit, "validate", "--list", "--format", "json", "--output", name], check=True,
                   capture_output=True)
    with open(name) as f:
        return json.load(f)["results"]


def run_case(dpkit, scenarios, real_verdict, self_verdict):
    """Exit status of the study on runs where scenario `id` at seed `s` has verdict
    real_verdict(id, s) and self-check verdict self_verdict(id, s)."""
    with tempfile.TemporaryDirectory() as work:
        for seed in range(1, SEEDS + 1):
            for mode, verdict in (("real", real_verdict), ("self", self_verdict)):
                rows = [{"id": s["id"], "verdict": verdict(s["id"], seed)} for s in scenarios]
                with open(os.path.join(work, f"{mode}_{seed}.json"), "w") as f:
                    json.dump({"results": rows}, f)
        return subprocess.call([sys.executable, os.path.join(HERE, "coverage_study.py"), dpkit,
                                "--seeds", str(SEEDS), "--work", work, "--check"],
                               stdout=subprocess.DEVNULL)


def main(dpkit):
    with tempfile.TemporaryDirectory() as work:
        scenarios = scenario_lists(dpkit, work)
    refuted = {s["id"] for s in scenarios if "quick" in s["expected_refuted"].split(",")}
    blind = {s["id"] for s in scenarios if "quick" in s["blind_spot"].split(",")}
    plain = sorted({s["id"] for s in scenarios} - refuted - blind)
    if not refuted or not blind or not plain:
        print(f"coverage_check: the lists changed shape: {len(refuted)} reviewed refutations, "
              f"{len(blind)} blind spots, {len(plain)} others (each case needs one)")
        return 1
    one, a_refuted, a_blind = plain[0], sorted(refuted)[0], sorted(blind)[0]

    def real(violated_at=frozenset(), missed_at=frozenset()):
        def verdict(sid, seed):
            if sid in refuted:
                return "inconclusive" if sid == a_refuted and seed in missed_at else "refuted"
            return "violated" if sid == one and seed in violated_at else "holds"
        return verdict

    def self_check(never=frozenset()):
        return lambda sid, seed: "inconclusive" if sid in never else "violated"

    cases = [
        ("every claim as expected", real(), self_check(), 0),
        (f"{one} violated at 3 of 20 (within 5 %)", real(violated_at={2, 9, 17}), self_check(), 0),
        (f"{one} violated at 4 of 20 (beyond 5 %)", real(violated_at={2, 9, 17, 20}), self_check(),
         3),
        (f"{a_refuted} (reviewed) not refuted at seed 7", real(missed_at={7}), self_check(), 3),
        (f"{one}'s self-check never caught", real(), self_check(never={one}), 3),
        (f"{a_blind}'s self-check never caught (a listed blind spot)", real(),
         self_check(never={a_blind}), 0),
    ]
    failed = 0
    for name, real_verdict, self_verdict, want in cases:
        got = run_case(dpkit, scenarios, real_verdict, self_verdict)
        ok = got == want
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: exit {got} (expected {want})")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
