#!/usr/bin/env python3
"""dpkit's certified PLD bracket against its physical limit: the FFTs its final grid needs.

    build/ci/validation/dpkit_accounting_bench \\
        --benchmark_filter='BM_pld_epsilon|BM_fft_pair' --benchmark_format=json > limit.json
    validation/perf/fft_limit.py limit.json

A composition of one repeated step costs at least one real-to-complex FFT of the discretised
step and one complex-to-real FFT of the powered spectrum, of the size n the bracket reports; a
Poisson run composes two adjacency directions, each on both sides: 4 such pairs. The limit of
a grid case is 4 x BM_fft_pair(n), timed on the same machine in the same run. The ratio
time / limit says what the bracket costs beyond the mathematics it needs (discretisation, the
grid search, tilting, the ε query). q = 1 runs are closed forms (no FFT) and are left out.
"""
import json
import statistics
import sys

Q = [0.001, 0.01, 0.1, 1.0]
SIGMA = [0.5, 0.8, 1.0, 2.0, 5.0]
STEPS = ["1", "1e2", "1e3", "1e4", "1e5"]


def main(path):
    with open(path) as f:
        data = json.load(f)
    pair = {}
    cases = {}
    for b in data["benchmarks"]:
        name = b.get("run_name", b["name"])
        family, _, args = name.partition("/")
        if family == "BM_fft_pair":
            pair[int(args.split("/")[0])] = b["real_time"]
        elif family == "BM_pld_epsilon" and b.get("aggregate_name") in (None, "median"):
            q, s, t = (int(x) for x in args.split("/")[:3])
            cases[(q, s, t)] = (b["real_time"], int(b.get("fft", 0)), b.get("passes", 0))
    if not pair or not cases:
        sys.exit("fft_limit: the file needs both BM_pld_epsilon and BM_fft_pair")
    rows = []
    for (q, s, t), (ms, n, passes) in sorted(cases.items()):
        if n == 0 or Q[q] == 1.0:
            continue
        if n not in pair:
            sys.exit("fft_limit: no BM_fft_pair at n = %d" % n)
        limit = 4 * pair[n]
        rows.append((q, s, t, ms, n, passes, limit, ms / limit))
    ratios = [r[7] for r in rows]
    print("%d cases with an FFT: time / (4 FFT pairs at the final n): median %.1f, "
          "90th percentile %.1f, min %.1f, max %.1f"
          % (len(rows), statistics.median(ratios),
             sorted(ratios)[int(0.9 * (len(ratios) - 1))], min(ratios), max(ratios)))
    print()
    print("| q \\ T | " + " | ".join(STEPS) + " |")
    print("|---" * (len(STEPS) + 1) + "|")
    for qi, q in enumerate(Q[:3]):
        cells = []
        for ti in range(len(STEPS)):
            rs = [r[7] for r in rows if r[0] == qi and r[2] == ti]
            cells.append("%.1f×" % statistics.median(rs) if rs else "—")
        print("| %g | %s |" % (q, " | ".join(cells)))
    print()
    print("largest T (1e5), each case: q, σ, time, n, passes, limit, ratio")
    for r in rows:
        if r[2] == len(STEPS) - 1:
            print("  q = %g, σ = %g: %.1f ms, n = 2^%d, %d pass(es), limit %.1f ms, %.1f×"
                  % (Q[r[0]], SIGMA[r[1]], r[3], r[4].bit_length() - 1, r[5], r[6], r[7]))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: fft_limit.py BENCHMARK.json")
    main(sys.argv[1])
