#!/usr/bin/env python3
"""Run the accounting grid of issue 3 through the dpkit program and check every case.

For each (q, sigma, T) it runs

    dpkit epsilon --noise-multiplier SIGMA --sampling-rate Q --steps T --delta 1e-5 \
                  --accountant all --format csv

and checks: exit code 0; three rows (pld, rdp, clt) with the right labels (CLT an approximation for q < 1, exact and equal to the PLD for q = 1); the PLD bracket
epsilon_lower <= epsilon_upper with (upper - lower) <= accuracy * upper, unless the program
said on stderr that --max-fft-size stopped it (then the case is reported, not failed: the bracket
is still certified); RDP (an upper bound) >= the PLD lower bound. It records wall time and the
peak resident memory of each process (wait4), prints a summary and exits 1 if any case failed.

    validation/perf/accounting_grid.py --dpkit build/release/tools/dpkit/dpkit \
        [--steps 1,100,1000,10000,100000] [--jobs 2] [--output grid.csv]

Python only drives the processes; every number comes from dpkit.
"""
import argparse
import concurrent.futures
import csv
import io
import os
import statistics
import subprocess
import sys
import time

SAMPLING_RATES = [0.001, 0.01, 0.1, 1.0]
NOISE = [0.5, 0.8, 1.0, 2.0, 5.0]
STEPS = [1, 100, 1000, 10000, 100000]


def run_case(dpkit, q, sigma, steps, delta, accuracy, max_fft_size):
    args = [dpkit, "epsilon", "--noise-multiplier", repr(sigma), "--sampling-rate", repr(q),
            "--steps", str(steps), "--delta", repr(delta), "--accountant", "all",
            "--accuracy", repr(accuracy), "--format", "csv"]
    if max_fft_size:
        args += ["--max-fft-size", str(max_fft_size)]
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # child
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        for fd in (out_r, out_w, err_r, err_w):
            os.close(fd)
        os.execv(dpkit, args)
    os.close(out_w)
    os.close(err_w)
    with os.fdopen(out_r) as fo, os.fdopen(err_r) as fe:
        out = fo.read()  # dpkit's stderr is a few lines: no risk of a pipe deadlock
        err = fe.read()
    _, status, usage = os.wait4(pid, 0)
    seconds = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    return args, code, out, err, seconds, usage.ru_maxrss / 1024.0  # KiB -> MiB


def check(q, sigma, steps, code, out, err, accuracy):
    """Return (row dict, list of failures, capped flag)."""
    failures = []
    row = {"q": q, "sigma": sigma, "steps": steps}
    if code != 0:
        return row, [f"exit code {code}: {err.strip()}"], False
    rows = list(csv.DictReader(io.StringIO(out)))
    by = {r["accountant"]: r for r in rows}
    if set(by) != {"pld", "rdp", "clt"}:
        return row, [f"accountants {sorted(by)}"], False
    pld, rdp, clt = by["pld"], by["rdp"], by["clt"]
    lo, up = float(pld["epsilon_lower"]), float(pld["epsilon_upper"])
    row.update(pld_lower=lo, pld_upper=up, rdp=float(rdp["epsilon"]), clt=float(clt["epsilon"]),
               method=pld["method"])
    capped = "not reached within max_fft_size" in err
    if pld["kind"] != "upper-bound" or rdp["kind"] != "upper-bound":
        failures.append("pld/rdp not labelled upper-bound")
    if q < 1 and clt["kind"] != "approximation":
        failures.append("clt not labelled approximation")
    # q = 1: the run is a Gaussian composition, the CLT's mu is exact and must match the PLD.
    if q == 1 and abs(float(clt["epsilon"]) - up) > 1e-9 * up:
        failures.append(f"q = 1: clt {clt['epsilon']} differs from the exact pld {up}")
    if not lo <= up:
        failures.append(f"pld bracket inverted [{lo}, {up}]")
    if up - lo > accuracy * up and not capped:
        failures.append(f"pld relative gap {(up - lo) / up:.3g} > {accuracy}")
    if float(rdp["epsilon"]) < lo * (1 - 1e-12):
        failures.append(f"rdp {rdp['epsilon']} below the certified lower bound {lo}")
    return row, failures, capped


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dpkit", default="build/release/tools/dpkit/dpkit")
    ap.add_argument("--steps", default=",".join(str(t) for t in STEPS),
                    help="comma-separated step counts (default: the issue's grid)")
    ap.add_argument("--sampling-rates", default=",".join(str(q) for q in SAMPLING_RATES))
    ap.add_argument("--noise", default=",".join(str(s) for s in NOISE))
    ap.add_argument("--delta", type=float, default=1e-5)
    ap.add_argument("--accuracy", type=float, default=1e-3)
    ap.add_argument("--max-fft-size", type=int, default=0, help="passed on when given")
    ap.add_argument("--jobs", type=int, default=1,
                    help="cases run at once (timings are single-threaded per case only with 1)")
    ap.add_argument("--output", help="CSV of every case (time, memory, bracket)")
    a = ap.parse_args()
    if not os.access(a.dpkit, os.X_OK):
        sys.exit(f"accounting_grid: {a.dpkit} is not an executable (build the release preset)")
    cases = [(q, s, t) for q in map(float, a.sampling_rates.split(","))
             for s in map(float, a.noise.split(",")) for t in map(int, a.steps.split(","))]
    results = []

    def one(case):
        q, s, t = case
        _, code, out, err, sec, mib = run_case(a.dpkit, q, s, t, a.delta, a.accuracy,
                                                           a.max_fft_size)
        row, failures, capped = check(q, s, t, code, out, err, a.accuracy)
        row.update(seconds=sec, max_rss_mib=mib, capped=capped, failures="; ".join(failures))
        return row

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        for i, row in enumerate(pool.map(one, cases), 1):
            results.append(row)
            status = "FAIL " + row["failures"] if row["failures"] else (
                "capped" if row["capped"] else "ok")
            print(f"[{i:3d}/{len(cases)}] q={row['q']:<6g} sigma={row['sigma']:<4g} "
                  f"T={row['steps']:<7d} {row['seconds']:7.3f} s {row['max_rss_mib']:7.1f} MiB  "
                  f"{status}", flush=True)
    if a.output:
        fields = ["q", "sigma", "steps", "pld_lower", "pld_upper", "rdp", "clt", "seconds",
                  "max_rss_mib", "capped", "failures", "method"]
        with open(a.output, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
            w.writeheader()
            w.writerows(results)
    secs = [r["seconds"] for r in results]
    mem = [r["max_rss_mib"] for r in results]
    failed = [r for r in results if r["failures"]]
    capped = [r for r in results if r["capped"]]
    gaps = [(r["pld_upper"] - r["pld_lower"]) / r["pld_upper"] for r in results
            if "pld_upper" in r and r["pld_upper"] > 0]
    print(f"{len(results)} cases: {len(failed)} failed, {len(capped)} stopped by --max-fft-size; "
          f"process time median {statistics.median(secs):.3f} s, max {max(secs):.2f} s; "
          f"peak memory max {max(mem):.0f} MiB; largest PLD relative gap "
          f"{max(gaps) if gaps else float('nan'):.2e}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
