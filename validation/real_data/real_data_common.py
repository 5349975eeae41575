"""What the real-data scripts share: running dpkit, Student's t quantiles, the dataset check."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from typing import List

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
