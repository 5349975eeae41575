#!/usr/bin/env python3
"""Summarises a Google Benchmark JSON file of the accounting grid (accounting_bench.cpp).

    build/release/validation/dpkit_accounting_bench --benchmark_format=json > grid.json
    validation/perf/grid_summary.py grid.json

Per benchmark family: the number of grid cases, the median, 90th percentile and maximum of the
per-case median times (ms), the slowest case, and the largest PLD relative gap
(epsilon_upper - epsilon_lower)/epsilon_upper where the counter exists.
"""
import json
import statistics
import sys


def percentile(values, p):
    s = sorted(values)
    k = (len(s) - 1) * p
    lo, hi = int(k), min(int(k) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def main(path):
    with open(path) as f:
        data = json.load(f)
    families = {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name") not in (None, "median"):
            continue
        name = b.get("run_name", b["name"])
        family, _, args = name.partition("/")
        entry = families.setdefault(family, {})
        entry.setdefault(args, b)
    for family, cases in families.items():
        times = {a: c["real_time"] for a, c in cases.items()}
        slowest = max(times, key=times.get)
        gaps = [c.get("relative_gap", 0.0) for c in cases.values()]
        print("%s: %d cases, median %.3g ms, p90 %.3g ms, max %.3g ms (case %s), max relative gap %.2g"
              % (family, len(times), statistics.median(times.values()),
                 percentile(list(times.values()), 0.9), times[slowest], slowest, max(gaps)))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: grid_summary.py BENCHMARK.json")
    main(sys.argv[1])
