#!/usr/bin/env python3
"""k-of-t random allocation: dpkit's certified bracket beside Feldman & Shenfeld's PLD_accounting.

For every case of data/reference/pld_accounting_k_of_t.csv (sigma x t x k x epochs, delta =
1e-5; written by data/generators/pld_accounting_k_of_t_reference.py from the peer package),
runs

    dpkit epsilon --sampling random-allocation --selected K --sampling-rate K/t --steps E*t
          --noise-multiplier S --delta D --format csv

and, where k divides t, each of the two upper-bound routes on its own through the k = 1
accountant (the composition route, dpkit's: E*k epochs of 1 of t/k steps at sigma; the
convex-order route, which it provably never beats: E epochs of 1 of t/k steps at sigma/sqrt(k)). Prints one markdown row per case and a
summary: contradictions (dpkit's certified lower end above the peer's upper bound, or, where the
peer accounts the run itself — k = 1, and k = t — its lower bound above dpkit's upper end:
impossible if both are right), dpkit's upper end against the peer's, the routes, and the times (dpkit:
the whole process, wall clock; the peer: in-process, from the CSV, measured by the generator).

    /usr/bin/python3 validation/perf/allocation_k_of_t.py --dpkit build/ci/tools/dpkit/dpkit
"""
import argparse
import csv
import math
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def dpkit_epsilon(exe, sigma, q, steps, delta, selected=1):
    cmd = [exe, "epsilon", "--sampling", "random-allocation", "--sampling-rate", repr(q),
           "--steps", str(steps), "--noise-multiplier", repr(sigma), "--delta", repr(delta),
           "--format", "csv"]
    if selected > 1:
        cmd += ["--selected", str(selected)]
    start = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if out.returncode != 0:
        return None, None, seconds, out.stderr.strip()
    row = next(csv.DictReader(line for line in out.stdout.splitlines() if line))
    return float(row["epsilon_lower"]), float(row["epsilon_upper"]), seconds, row["method"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dpkit", required=True, help="the dpkit program")
    ap.add_argument("--reference", default=os.path.join(ROOT, "data", "reference",
                                                         "pld_accounting_k_of_t.csv"))
    ap.add_argument("--no-routes", action="store_true", help="skip the per-route runs")
    args = ap.parse_args()
    rows = list(csv.DictReader(line for line in open(args.reference) if not line.startswith("#")))
    print("| sigma | t | k | E | peer upper | dpkit lower | dpkit upper | upper/peer | route "
          "| composition | convex order | peer s | dpkit s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    contradictions, ratios, widths, speed = [], [], [], []
    convex_wins = composition_wins = 0
    for r in rows:
        sigma, t, k, e = float(r["sigma"]), int(r["steps_per_epoch"]), int(r["selected"]), \
            int(r["epochs"])
        delta = float(r["delta"])
        peer = float(r["peer_upper"]) if r["peer_upper"] else None
        peer_s = float(r["peer_seconds"]) if r["peer_seconds"] else None
        lo, up, secs, method = dpkit_epsilon(args.dpkit, sigma, k / t, e * t, delta, k)
        if lo is None:
            print(f"| {sigma:g} | {t} | {k} | {e} | {peer} | refused: {method} |")
            continue
        route = ("k = 1" if k == 1 else "exact" if k == t else
                 "composition" if "composed per epoch" in method else
                 "convex order" if "sigma/sqrt(k)" in method else "?")
        comp = conv = ""
        if k > 1 and k < t and t % k == 0 and not args.no_routes:
            m = t // k
            c = dpkit_epsilon(args.dpkit, sigma, 1 / m, e * k * m, delta)[1]
            v = dpkit_epsilon(args.dpkit, sigma / math.sqrt(k), 1 / m, e * m, delta)[1] \
                if sigma / math.sqrt(k) >= 0.025 else None
            comp = f"{c:.5g}" if c is not None else "-"
            conv = f"{v:.5g}" if v is not None else "-"
            if c is not None and v is not None:
                if v < c:
                    convex_wins += 1
                else:
                    composition_wins += 1
        ratio = up / peer if peer else float("nan")
        if peer is not None:
            ratios.append(ratio)
            if lo > peer:
                contradictions.append((sigma, t, k, e, "dpkit lower", lo, "peer upper", peer))
        # Where the peer accounts the run itself (k = 1; k = t, the Gaussian), its lower bound
        # is one too and may not exceed dpkit's upper end.
        peer_lo = float(r["peer_lower"]) if r["peer_lower"] else None
        if peer_lo is not None and (k == 1 or k == t) and peer_lo > up:
            contradictions.append((sigma, t, k, e, "peer lower", peer_lo, "dpkit upper", up))
        if up > 0:
            widths.append((up - lo) / up)
        if peer_s:
            speed.append(peer_s / secs)
        print(f"| {sigma:g} | {t} | {k} | {e} | {peer if peer is not None else '-'} | {lo:.5g} "
              f"| {up:.5g} | {ratio:.4f} | {route} | {comp} | {conv} "
              f"| {peer_s if peer_s is not None else '-'} | {secs:.3f} |")
    print()
    print(f"cases: {len(rows)}; contradictions (dpkit lower > peer upper, or for k = 1 and k = t "
          f"peer lower > dpkit upper): {len(contradictions)}")
    for c in contradictions:
        print("  contradiction:", c)
    if ratios:
        print(f"dpkit upper / peer upper: median {statistics.median(ratios):.4f}, "
              f"min {min(ratios):.4f}, max {max(ratios):.4f}")
    if widths:
        print(f"dpkit bracket width (upper - lower)/upper: median {statistics.median(widths):.3f}, "
              f"max {max(widths):.3f}")
    print(f"routes (k | t, 1 < k < t): composition tighter in {composition_wins}, convex order "
          f"in {convex_wins}")
    if speed:
        print(f"peer seconds / dpkit seconds: median {statistics.median(speed):.1f}x, "
              f"min {min(speed):.2f}x, max {max(speed):.1f}x")
    return 1 if contradictions else 0


if __name__ == "__main__":
    sys.exit(main())
