#!/usr/bin/env python3
"""Re-derive a committed real-data table: train again, then compare the run's verdicts with the
table's — the full-tier job behind the documented real-data verdicts (docs/validation.md).

`--rejudge` (each script's, run in CI on every commit) checks that a committed table's verdicts
follow from its stored data under today's rules. It cannot notice that the data themselves would
come out differently today — a change in the simulator, the accountant that calibrates the
noise, or the data loader. This driver re-runs the training that made the table:

    validation/real_data/rederive.py DPKIT SCRIPT TABLE [SCRIPT'S OPTIONS ...]

runs `SCRIPT DPKIT --output NEW [options]` (SCRIPT: shifted_accuracy, longtail_memorisation,
nonconvex_sweeps or correlated_accuracy; its exit status 0 or 3 — a refuted claim is a result),
then compares every verdict of NEW with the verdict of the same row of TABLE (rows matched on the
columns that name them; for nonconvex_sweeps the four verdicts its first line records). Rows of
TABLE that the run does not produce (a table assembled from two runs, as the BSA24 one) are not
compared, and the count is printed. Exit 0 when every verdict is the same, 3 when one differs
(each is printed), 2 on a failed run or a table that does not match the script, 77 when the
script skips (Fashion-MNIST not installed).

The verdicts are statistical: a re-run with the same seed reproduces the data exactly only on
the same build and libraries; elsewhere a verdict near its interval's edge may flip, which is
what this job is for — it says which, and the table (and the pages that quote it) must then be
regenerated or the claim's wording revisited.

    validation/real_data/rederive.py --compare NEW TABLE SCRIPT   # the comparison alone

Registered as CTest `validation.real_data_rederive_*` (label `full`) only when the build is
configured with -DDPKIT_FULL_TIER=ON: about 70 min on 2 cores for the five runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from typing import Dict, List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from real_data_common import read_table  # noqa: E402

# The columns that name a row, and those that hold its verdicts, per script.
KEYS: Dict[str, Tuple[Tuple[str, ...], Tuple[str, ...]]] = {
    "shifted_accuracy": (("epsilon", "method"), ("verdict_vs_ours",)),
    "longtail_memorisation": (("epsilon", "run", "series"),
                              ("verdict_tail_cost", "verdict_memorisation")),
    "correlated_accuracy": (("epsilon", "lambda", "method"), ("verdict",)),
}
COMMENT_VERDICTS = {"nonconvex_sweeps"}  # verdicts on the first line: "verdicts: fig2 refuted, …"


def normal(value: str) -> str:
    """A key cell as compared: numbers by value (1.0 and 1 are one epsilon), text as is."""
    try:
        return repr(float(value))
    except ValueError:
        return value


def verdicts_of(path: str, script: str) -> Dict[Tuple[str, ...], str]:
    """{(row key..., verdict column): verdict} of a table written by `script`."""
    head, rows = read_table(path)
    if script in COMMENT_VERDICTS:
        if "verdicts:" not in head:
            raise ValueError(f"{path}: no 'verdicts:' on its first line")
        items = (item.strip().split(" ", 1) for item in head.split("verdicts:")[1].split(","))
        return {(fig, "verdict"): v for fig, v in items}
    keys, cols = KEYS[script]
    if not rows or not set(keys) | set(cols) <= set(rows[0]):
        raise ValueError(f"{path}: not a table of {script}.py (columns {', '.join(keys + cols)})")
    return {tuple(normal(r[k]) for k in keys) + (c,): r[c] for r in rows for c in cols}


def compare(new: str, table: str, script: str) -> int:
    try:
        now, stored = verdicts_of(new, script), verdicts_of(table, script)
    except (OSError, ValueError) as e:
        sys.stderr.write(f"rederive: {e}\n")
        return 2
    differ = 0
    for key, v in now.items():
        if key not in stored:
            differ += 1
            print(f"{' / '.join(key)}: the run gives '{v}', the table has no such row")
        elif stored[key] != v:
            differ += 1
            print(f"{' / '.join(key)}: the table says '{stored[key]}', the run gives '{v}'")
    unmatched = sum(1 for k in stored if k not in now)
    print(f"# {table}: {len(now)} verdicts re-derived, {differ} differ"
          + (f"; {unmatched} of the table's not produced by this run (not compared)"
             if unmatched else ""))
    return 3 if differ else 0


def main(argv: List[str]) -> int:
    if len(argv) == 4 and argv[0] == "--compare":
        return compare(argv[1], argv[2], argv[3])
    if len(argv) < 3 or argv[0].startswith("-"):
        sys.stderr.write(__doc__.split("\n\n")[2] + "\n")
        return 2
    dpkit, script, table, rest = argv[0], argv[1], argv[2], argv[3:]
    if script not in KEYS and script not in COMMENT_VERDICTS:
        sys.stderr.write(f"rederive: unknown script '{script}' (one of "
                         f"{', '.join(sorted(set(KEYS) | COMMENT_VERDICTS))})\n")
        return 2
    with tempfile.TemporaryDirectory() as work:
        new = os.path.join(work, "rederived.csv")
        cmd = [sys.executable, os.path.join(HERE, f"{script}.py"), dpkit, "--output", new,
               "--work", work] + rest
        print("#", " ".join(cmd), flush=True)
        rc = subprocess.call(cmd)
        if rc == 77:
            return 77
        if rc not in (0, 3) or not os.path.exists(new):
            sys.stderr.write(f"rederive: {script}.py failed (exit {rc})\n")
            return 2
        return compare(new, table, script)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
