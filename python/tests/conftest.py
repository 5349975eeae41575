"""Shared helpers of the Python tests: the 50-digit reference tables of data/reference (the same
files the C++ tests read), closed forms computed with mpmath, and the CLI."""

import csv
import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "data" / "reference"


def reference_rows(name):
    """Rows of data/reference/<name>.csv as dicts of str (provenance lines skipped)."""
    with open(REFERENCE / f"{name}.csv", newline="") as f:
        lines = [line for line in f if not line.startswith("#")]
    return list(csv.DictReader(lines))


def gdp_delta(mu, eps):
    """δ(ε) of μ-GDP at 50 digits (Balle & Wang 2018, Thm 8), as an mpmath number."""
    import mpmath as mp
    mp.mp.dps = 50
    mu, eps = mp.mpf(mu), mp.mpf(eps)
    return mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2)


def gdp_epsilon(mu, delta):
    """Smallest ε ≥ 0 with δ_μ(ε) ≤ delta, at 50 digits (bisection on the decreasing δ_μ)."""
    import mpmath as mp
    mp.mp.dps = 50
    d = mp.mpf(delta)
    if gdp_delta(mu, 0) <= d:
        return mp.mpf(0)
    lo, hi = mp.mpf(0), mp.mpf(1)
    while gdp_delta(mu, hi) > d:
        lo, hi = hi, 2 * hi
    for _ in range(200):
        mid = (lo + hi) / 2
        if gdp_delta(mu, mid) > d:
            lo = mid
        else:
            hi = mid
    return hi


def cli():
    """Path of the dpkit program (env DPKIT_CLI, set by CTest), or skip."""
    path = os.environ.get("DPKIT_CLI")
    if not path or not os.path.exists(path):
        pytest.skip("DPKIT_CLI is not set: the CLI comparison runs under CTest")
    return path


def cli_json(*args):
    out = subprocess.run([cli(), *args, "--format", "json"], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-300)
