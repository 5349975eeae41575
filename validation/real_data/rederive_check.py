#!/usr/bin/env python3
"""CTest validation.real_data_rederive_compare: rederive.py's comparison on every committed
real-data table — each against itself (every verdict found, none differing: exit 0) and against
a copy with one verdict changed (exit 3). Catches a table format and the driver drifting apart.

    validation/real_data/rederive_check.py docs/figures
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TABLES = (("shifted_accuracy", "shifted_accuracy_fashion_mnist", "inconclusive", "holds"),
          ("nonconvex_sweeps", "nonconvex_fashion_mnist", "fig3 holds", "fig3 refuted"),
          ("correlated_accuracy", "kan_correlated_accuracy", ",inconclusive,", ",holds,"),
          ("longtail_memorisation", "longtail_fashion_mnist", ",holds,holds,", ",holds,refuted,"))


def compare(new, table, script):
    return subprocess.call([sys.executable, os.path.join(HERE, "rederive.py"), "--compare", new,
                            table, script], stdout=subprocess.DEVNULL)


def main(figures):
    failed = 0
    for script, name, old, new in TABLES:
        table = os.path.join(figures, f"{name}.csv")
        same = compare(table, table, script)
        with open(table) as f:
            text = f.read()
        if old not in text:
            print(f"{name}: no '{old}' to change")
            failed += 1
            continue
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
            f.write(text.replace(old, new, 1))
        changed = compare(f.name, table, script)
        os.unlink(f.name)
        ok = same == 0 and changed == 3
        failed += not ok
        print(f"{name}: against itself exit {same} (0 expected), one verdict changed exit "
              f"{changed} (3 expected): {'ok' if ok else 'FAILED'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
