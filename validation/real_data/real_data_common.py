"""What the real-data scripts share: running dpkit, Student's t quantiles, the dataset check."""

from __future__ import annotations

import argparse
import csv
import math
import os
import statistics
import subprocess
import sys
import time
from typing import Dict, List, Sequence, Tuple

# Student's t in closed form for integer degrees of freedom (Abramowitz & Stegun 26.7.3-4), so
# that the scripts need neither SciPy (not in the Debian set dpkit installs) nor the simulator's
# statistics (Boost.Math, in dpkit_sim, which the Python extension does not link): the scripts'
# intervals at any Bonferroni level come from here.
def t_two_sided(t: float, df: int) -> float:
    """P(|T| <= t) for Student's t with df >= 1 degrees of freedom (integer), exactly."""
    if df < 1:
        raise ValueError("df must be >= 1")
    theta = math.atan(abs(t) / math.sqrt(df))
    c2, s = math.cos(theta) ** 2, math.sin(theta)
    if df % 2:  # odd: (2/π)(θ + sinθ cosθ (1 + 2/3 cos²θ + 2·4/(3·5) cos⁴θ + …))
        term, total = 1.0, 1.0 if df > 1 else 0.0
        for k in range(1, (df - 1) // 2):
            term *= 2 * k / (2 * k + 1) * c2
            total += term
        return 2 / math.pi * (theta + s * math.cos(theta) * total)
    term, total = 1.0, 1.0  # even: sinθ (1 + 1/2 cos²θ + 1·3/(2·4) cos⁴θ + …)
    for k in range(1, df // 2):
        term *= (2 * k - 1) / (2 * k) * c2
        total += term
    return s * total


def t_quantile(confidence: float, df: int) -> float:
    """The two-sided Student t multiplier t with P(|T| <= t) = confidence (bisection to 1e-12)."""
    if not 0 < confidence < 1:
        raise ValueError("confidence must be in (0, 1)")
    lo, hi = 0.0, 1.0
    while t_two_sided(hi, df) < confidence:
        hi *= 2
    while hi - lo > 1e-12 * max(1.0, hi):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t_two_sided(mid, df) < confidence else (lo, mid)
    return hi


def z_quantile(confidence: float) -> float:
    """The two-sided normal multiplier z with P(|Z| <= z) = confidence."""
    return statistics.NormalDist().inv_cdf((1 + confidence) / 2)


def t975(df: float) -> float:
    """The 95 % two-sided Student t multiplier (conservative at non-integer df: floor(df))."""
    return t_quantile(0.95, max(1, int(math.floor(df))))


# The accuracy floor of a smoke run: a model that learned nothing scores chance on the test set,
# so its accuracy stays below chance + z·sqrt(chance·(1 − chance)/n_test) with probability
# 0.9995 (z = 3.29, two-sided 99.9 %). A training path that runs but does not learn (a sign error,
# labels shuffled against images, noise on the wrong scale) fails it; one that learns clears it by
# far. Fixed by that reading, not by a run.
FLOOR_Z = 3.29


def accuracy_floor(chance: float, n_test: int) -> float:
    """The lowest test accuracy a smoke run accepts (FLOOR_Z above chance)."""
    return chance + FLOOR_Z * math.sqrt(chance * (1 - chance) / n_test)


def check_floor(who: str, accuracies: Dict[str, float], chance: float, n_test: int) -> bool:
    """Prints each accuracy against the floor; False (and a line on stderr) if one is below."""
    floor = accuracy_floor(chance, n_test)
    ok = True
    for name, acc in accuracies.items():
        if not acc >= floor:
            sys.stderr.write(f"{who}: {name}: test accuracy {acc:.4f} is below the smoke floor "
                             f"{floor:.4f} (chance {chance:g} + {FLOOR_Z} sd of a "
                             f"{n_test}-image test set): the model did not learn\n")
            ok = False
    print(f"# smoke floor: every accuracy >= {floor:.4f} (chance {chance:g} on {n_test} test "
          f"images + {FLOOR_Z} sd): " + ("met" if ok else "NOT met"), flush=True)
    return ok


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


def read_table(path: str) -> Tuple[str, List[Dict[str, str]]]:
    """A table written by write_table: its provenance line ('' if none) and its rows."""
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    head = next((ln for ln in lines if ln.startswith("#")), "")
    return head, list(csv.DictReader(ln for ln in lines if not ln.startswith("#")))


def rewrite_table(path: str, head: str, rows: List[Dict[str, object]]) -> None:
    """write_table with a provenance line read by read_table (a re-judged table)."""
    write_table(path, head.removeprefix("# dpkit validation/real_data/"), rows)


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
