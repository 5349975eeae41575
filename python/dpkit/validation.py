"""Running dpkit's validation scenarios (theorem vs Monte Carlo), and auditing your own privacy
claim (:func:`audit`, ``dpkit audit``), from Python.

The reference simulator (OpenMP, optionally MPI) is not part of the extension module, so that
``import dpkit`` loads neither runtime; :func:`validate` runs the ``dpkit`` program instead and
returns its scoreboard as dicts (the JSON contract of docs/cli.md). It needs the program: pass
``program=``, set ``DPKIT_CLI``, put ``dpkit`` on PATH, or use the package from a build tree
(``build/<preset>/python``), next to which the program is found.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import tempfile
from typing import Any, Dict, List, Optional, Sequence, Union

__all__ = ["validate", "audit", "find_program", "ValidationError"]


class ValidationError(RuntimeError):
    """The dpkit program failed (bad input, or a numerical failure); the message is its
    one-line error. A scoreboard with violated verdicts is not an error: read the verdicts."""


def find_program(program: Optional[str] = None) -> str:
    """The path of the ``dpkit`` program, or FileNotFoundError saying how to provide it."""
    candidates: List[Union[str, pathlib.Path]] = []
    if program:
        candidates.append(program)
    if os.environ.get("DPKIT_CLI"):
        candidates.append(os.environ["DPKIT_CLI"])
    here = pathlib.Path(__file__).resolve().parent
    # <build>/python/dpkit/validation.py → <build>/tools/dpkit/dpkit
    candidates.append(here.parent.parent / "tools" / "dpkit" / "dpkit")
    on_path = shutil.which("dpkit")
    if on_path:
        candidates.append(on_path)
    for c in candidates:
        p = pathlib.Path(c)
        if p.is_file() and os.access(p, os.X_OK):
            return str(p)
    raise FileNotFoundError(
        "dpkit.validate needs the dpkit program (the simulator is not in the Python extension): "
        "pass program=..., set DPKIT_CLI, or put dpkit on PATH (tools/bootstrap.sh demo builds "
        "build/release/tools/dpkit/dpkit)")


def _program_message(stderr: str) -> str:
    """The program's last message, whole: from its last line that starts with "dpkit" to the
    end (a message may span lines — the one that says what to build does), in one line."""
    lines = [line.strip() for line in stderr.strip().splitlines() if line.strip()]
    if not lines:
        return "(no message)"
    starts = [i for i, line in enumerate(lines) if line.startswith("dpkit")]
    return " ".join(lines[starts[-1] if starts else len(lines) - 1:])


def validate(ids: Optional[Sequence[str]] = None,
             *,
             tier: str = "quick",
             seed: int = 2026,
             threads: int = 0,
             figures_dir: Optional[Union[str, os.PathLike]] = None,
             self_check: bool = False,
             program: Optional[str] = None,
             timeout: Optional[float] = None) -> List[Dict[str, Any]]:
    """Runs validation scenarios and returns the scoreboard: one dict per scenario with its
    ``id``, ``verdict`` (holds / violated / inconclusive / refuted), tightness, resolution and
    the rest of the JSON row (docs/validation.md).

    Args:
        ids: scenario ids (``dpkit validate --list``); None runs every scenario.
        tier: ``"quick"`` (about a minute for all on 2 cores) or ``"full"`` (paper scale).
        seed: seed of the random streams (results are identical for any thread count).
        threads: OpenMP threads, 0 for all cores.
        figures_dir: where the per-scenario JSON, CSV and SVG/PNG figures go; None: a
            temporary directory, no figures.
        self_check: audit each scenario's named wrong claim instead (each must be violated).
        program: path of the dpkit program (see :func:`find_program`).
        timeout: seconds before the run is stopped (None: no limit).
    """
    if tier not in ("quick", "full"):
        raise ValueError(f"tier is {tier!r}, but must be 'quick' or 'full'")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed is {seed!r}, but must be an integer >= 0")
    if isinstance(threads, bool) or not isinstance(threads, int) or not 0 <= threads <= 1024:
        raise ValueError(f"threads is {threads!r}, but must be an integer in [0, 1024]")
    if ids is not None and (isinstance(ids, str) or not all(isinstance(i, str) for i in ids)):
        raise ValueError("ids must be a list of scenario ids (strings), or None for all")
    exe = find_program(program)
    with tempfile.TemporaryDirectory(prefix="dpkit-validate-") as tmp:
        out_dir = str(figures_dir) if figures_dir is not None else tmp
        cmd = [exe, "validate", "--format", "json", "--tier", tier, "--seed", str(seed),
               "--threads", str(threads), "--output-dir", out_dir]
        if figures_dir is None:
            cmd.append("--no-figures")
        if self_check:
            cmd.append("--self-check")
        cmd += list(ids) if ids else ["--all"]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    # Exit 0: all as expected; 3: a verdict is violated (the scoreboard says which); 2: bad
    # input; 1: numerical failure.
    if proc.returncode not in (0, 3):
        raise ValidationError(_program_message(proc.stderr))
    data = json.loads(proc.stdout)
    return list(data.get("results", []))


def audit(*,
          mu: Optional[float] = None,
          epsilon: Optional[float] = None,
          delta: Optional[float] = None,
          tradeoff: Optional[Union[str, os.PathLike]] = None,
          risk_bound: Optional[Union[str, os.PathLike]] = None,
          renyi: Optional[Union[str, os.PathLike]] = None,
          neighbour: Optional[str] = None,
          program: Optional[str] = None,
          timeout: Optional[float] = None,
          **setting: Any) -> Dict[str, Any]:
    """Checks a privacy claim about a noisy training run against Monte Carlo runs on D and a
    neighbouring D′ (``dpkit audit``, docs/audit.md) and returns its result row: ``verdict``
    (holds / violated / inconclusive), ``reason``, ``min_gap``, ``resolution``,
    ``epsilon_lower``, ``mu_estimate`` and ``tightness`` (GDP claims), and ``tests`` (every
    threshold test with its boxes). A violated claim is a result, not an error.

    The claim, exactly one: ``mu=`` (μ-GDP), ``epsilon=`` with ``delta=``, ``tradeoff=`` (a CSV
    file with columns alpha, beta), ``renyi=`` (a CSV file with columns order, epsilon), or
    ``risk_bound=`` (a CSV file with columns t, bound: the
    expected risk E F(X_t) on D is at most bound; the row's ``tests`` are then the steps).
    ``neighbour`` (privacy claims): ``"replace-one"`` (default), ``"zero-out"``, or ``"dataset"``
    with ``neighbour_data=`` (a CSV file: D′ given as a dataset). The statistic: ``coordinate=``
    or ``direction="v1,v2,..."``. The run: keyword arguments named as ``dpkit simulate``'s
    flags with ``_`` for ``-`` (``algorithm="gd"``, ``model="quadratic"``, ``dataset_size=10``,
    ``noise_std=0.5``, ``learning_rate=0.5``, ``steps=20``, ``perturbation=1``,
    ``replicates=20000``, ``seed=...``, ``coordinate=0``, ``confidence=0.95`` ...). Real data:
    ``data="fashion-mnist"`` or ``data=IMAGES`` with ``idx_labels=LABELS`` (IDX files, plain or
    gzip), ``keep_classes=[0, 6]``, ``dataset_size=1000``, ``bias=True`` (a switch: the flag
    alone) ... (docs/sim.md, "Real data").

    Raises ValidationError (the program's one-line message) on bad input.
    """
    exe = find_program(program)
    cmd = [exe, "audit", "--format", "json"]
    claims = [(mu is not None), (epsilon is not None), (tradeoff is not None),
              (risk_bound is not None), (renyi is not None)]
    if sum(claims) != 1:
        raise ValueError("the claim: give exactly one of mu=, epsilon= (with delta=), tradeoff=, "
                         "renyi=, risk_bound=")
    if risk_bound is None:
        cmd += ["--neighbour", neighbour or "replace-one"]
    elif neighbour is not None:
        cmd += ["--neighbour", neighbour]
    if mu is not None:
        cmd += ["--mu", repr(float(mu))]
    if epsilon is not None:
        if delta is None:
            raise ValueError("epsilon= needs delta=")
        cmd += ["--epsilon", repr(float(epsilon)), "--delta", repr(float(delta))]
    elif delta is not None:
        raise ValueError("delta= goes with epsilon=")
    if tradeoff is not None:
        cmd += ["--tradeoff", os.fspath(tradeoff)]
    if risk_bound is not None:
        cmd += ["--risk-bound", os.fspath(risk_bound)]
    if renyi is not None:
        cmd += ["--renyi", os.fspath(renyi)]
    for key, value in setting.items():
        if value is None:
            continue
        flag = "--" + key.replace("_", "-")
        if isinstance(value, bool):  # a switch (bias=True): the flag alone
            if value:
                cmd.append(flag)
            continue
        if isinstance(value, (list, tuple)):  # keep_classes=[0, 6] -> --keep-classes 0,6
            cmd += [flag, ",".join(str(v) for v in value)]
            continue
        cmd += [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    # Exit 0: holds or inconclusive; 3: violated; 2: bad input; 1: numerical failure.
    if proc.returncode not in (0, 3):
        raise ValidationError(_program_message(proc.stderr))
    return json.loads(proc.stdout)["results"][0]
