#!/usr/bin/env python3
"""Random allocation against Poisson sampling (and against its RDP bound), through the program.

For each (q, sigma, epochs) of the grid it runs, at the same noise, sampling rate and steps
(T = epochs / q),

    dpkit epsilon --sampling random-allocation ...               (the certified PLD bracket)
    dpkit epsilon ...                                             (Poisson, the certified bracket)
    dpkit epsilon --sampling random-allocation --accountant rdp  (the RDP upper bound)

and prints, per case, both brackets, the relative gap between allocation's upper end and
Poisson's lower end (negative: allocation certified more private than Poisson can be), the
RDP bound's excess over the PLD upper end, the bracket width and the wall time of the
allocation call. It exits 1 if a bracket is inverted or wider than the requested accuracy.

    validation/perf/allocation_vs_poisson.py --dpkit build/ci/tools/dpkit/dpkit [--output F.csv]

Python only drives the processes; every number comes from dpkit.
"""
import argparse
import csv
import io
import subprocess
import sys
import time

SAMPLING_RATES = [0.001, 0.01, 0.1]
SIGMAS = [0.5, 0.8, 1.0, 2.0, 5.0]
EPOCHS = [1, 10, 50]


def epsilon_row(dpkit, args):
    out = subprocess.run([dpkit, "epsilon", "--format", "csv", "--delta", "1e-5", *args],
                         capture_output=True, text=True, check=True).stdout
    return next(csv.DictReader(io.StringIO(out)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dpkit", required=True)
    parser.add_argument("--output", help="CSV of the cases")
    parser.add_argument("--accuracy", type=float, default=1e-3)
    a = parser.parse_args()
    rows, failed = [], 0
    for q in SAMPLING_RATES:
        for sigma in SIGMAS:
            for epochs in EPOCHS:
                steps = round(1 / q) * epochs
                base = ["--noise-multiplier", str(sigma), "--sampling-rate", str(q),
                        "--steps", str(steps)]
                start = time.perf_counter()
                alloc = epsilon_row(a.dpkit, base + ["--sampling", "random-allocation"])
                seconds = time.perf_counter() - start
                poisson = epsilon_row(a.dpkit, base)
                rdp = epsilon_row(a.dpkit, base + ["--sampling", "random-allocation",
                                                   "--accountant", "rdp"])
                al, au = float(alloc["epsilon_lower"]), float(alloc["epsilon_upper"])
                pl, pu = float(poisson["epsilon_lower"]), float(poisson["epsilon_upper"])
                ru = float(rdp["epsilon"])
                width = (au - al) / au
                ok = al <= au and width <= a.accuracy
                failed += not ok
                rows.append({"q": q, "sigma": sigma, "epochs": epochs, "steps": steps,
                             "allocation_lower": al, "allocation_upper": au,
                             "poisson_lower": pl, "poisson_upper": pu, "rdp_upper": ru,
                             "allocation_vs_poisson": au / pl - 1, "rdp_vs_pld": ru / au - 1,
                             "width": width, "seconds": seconds})
                print(f"q={q:<6} sigma={sigma:<4} epochs={epochs:<3} allocation "
                      f"[{al:.5f}, {au:.5f}] poisson [{pl:.5f}, {pu:.5f}] "
                      f"upper/poisson lower {au / pl - 1:+.2%}  rdp/pld {ru / au - 1:+.1%}  "
                      f"width {width:.1e}  {seconds:.2f} s{'' if ok else '  FAILED'}",
                      flush=True)
    below = sum(r["allocation_upper"] < r["poisson_lower"] for r in rows)
    print(f"{len(rows)} cases: allocation's certified upper end below Poisson's certified "
          f"lower end in {below}; largest width {max(r['width'] for r in rows):.1e}; "
          f"allocation time max {max(r['seconds'] for r in rows):.2f} s")
    if a.output:
        with open(a.output, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
