"""What the real-data scripts share: running dpkit, Student's t quantiles, the dataset check."""

from __future__ import annotations

import argparse
import csv
import math
import os
import subprocess
import sys
import time
from typing import Dict, List, Sequence, Tuple

# Two-sided 97.5% quantiles of Student's t for 1..10 degrees of freedom (then the normal's).
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228]


def t975(df: float) -> float:
    """The 97.5% quantile of Student's t (conservative: the table's value at floor(df))."""
    if df < 1:
        return T975[0]
    k = int(math.floor(df))
    return T975[k - 1] if k <= len(T975) else 1.96


def run(cmd: List[str], who: str) -> str:
    """stdout of a dpkit run; on failure the command and its stderr, and exit 2."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(f"{who}: failed: " + " ".join(cmd) + "\n" + p.stderr)
        sys.exit(2)
    return p.stdout


def fashion_mnist_installed(who: str) -> bool:
    """Whether Fashion-MNIST's files are where dpkit looks; if not, says how to install them."""
    data_dir = os.environ.get("DPKIT_FASHION_MNIST_DIR") or "/usr/share/datasets/fashion-mnist"
    if any(os.path.exists(os.path.join(data_dir, "train-images-idx3-ubyte" + z))
           for z in (".gz", "")):
        return True
    print(f"{who}: Fashion-MNIST is not in {data_dir} (apt-get install dataset-fashion-mnist, "
          "or set DPKIT_FASHION_MNIST_DIR): skipped", file=sys.stderr)
    return False


def simulate_samples(cmd: List[str], samples: str, columns: Sequence[str], replicates: int,
                     who: str) -> Tuple[Dict[str, List[float]], float]:
    """Runs `dpkit simulate ... --samples FILE` (cmd, without the flag) and returns each column's
    per-replicate values from the samples file, and the run's seconds; exit 2 if the file does
    not hold one row per replicate."""
    t0 = time.time()
    run(cmd + ["--samples", samples], who)
    seconds = time.time() - t0
    with open(samples, newline="") as f:
        rows = list(csv.DictReader(f))
    if len(rows) != replicates:
        sys.stderr.write(f"{who}: unexpected samples file {samples}\n")
        sys.exit(2)
    return {c: [float(r[c]) for r in rows] for c in columns}, seconds


def write_table(path: str, comment: str, rows: List[Dict[str, object]]) -> None:
    """The result table: one '# dpkit validation/real_data/...' provenance line, then the rows
    as CSV (the header from the first row's keys)."""
    with open(path, "w", newline="") as f:
        f.write(f"# dpkit validation/real_data/{comment}\n")
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


def parser(doc: str) -> argparse.ArgumentParser:
    """A script's argument parser: its docstring's first paragraph as the description, and the
    dpkit program as the first argument."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dpkit", help="the dpkit program")
    return p


def add_run_options(p: argparse.ArgumentParser, replicates: int, test_size: int = 0,
                    train_size: bool = True, work: bool = True) -> None:
    """The options every real-data script shares: replicates, the image caps, threads, seed,
    the output table and (scripts that read `--samples` files) their directory."""
    p.add_argument("--replicates", type=int, default=replicates)
    if train_size:
        p.add_argument("--train-size", type=int, default=0,
                       help="first N training images (0: all)")
    p.add_argument("--test-size", type=int, default=test_size,
                   help="first N test images (0: all)")
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--output", help="write the table to this CSV file")
    if work:
        p.add_argument("--work", default="/tmp", help="directory for the runs' sample files")


def announce(what: str, seconds: float, threads: int) -> None:
    """The cost estimate printed before the work (docs/cli.md, "Long runs")."""
    print(f"{what}, about {seconds / 60:.1f} min on {threads} thread(s)"
          + (" (long: more than an hour)" if seconds > 3600 else ""), flush=True)
