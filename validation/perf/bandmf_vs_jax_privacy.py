#!/usr/bin/env python3
"""dpkit's amplified BandMF bracket against jax_privacy's number, case by case, with timings.

For each case of data/reference/jax_privacy_bandmf.csv (jax_privacy's amplified_bandmf_event —
⌈T/b⌉ rounds of the Poisson-subsampled Gaussian — accounted by dp_accounting's PLDAccountant,
the value jax_privacy reports) it runs

    dpkit epsilon --strategy toeplitz:c,...,c --min-separation b --sampling-rate q --steps T \
                  --noise-multiplier sigma --delta delta --format csv

with c = 1/sqrt(b) (b bands, unit column norm: jax_privacy's normalisation), and prints dpkit's
certified bracket beside the peer's number, and the wall time of each (median of --repeats
runs). dpkit's time is the whole process. The peer's time is the reference file's (measured when
it was generated) unless --dp-accounting DIR names dp_accounting's source: then the peer runs
here, interleaved with dpkit, case by case (the ratio is measured in one run). The peer runs
in-process (no interpreter start), so with --python DIR (the build's python/ folder) dpkit is
timed in-process too, through its Python binding
(`dpkit.matrix_mechanism.epsilon`, the same library call as the CLI's): the like-for-like ratio.
Its bracket must equal the CLI's.

    validation/perf/bandmf_vs_jax_privacy.py --dpkit build/release/tools/dpkit/dpkit \
        [--python build/release/python] [--dp-accounting /tmp/dpa/python/dp_accounting] \
        [--repeats 3] [--accuracy 1e-3]

Exit status 1 when a case contradicts (dpkit's certified lower end above the peer's number).
"""
import argparse
import csv
import math
import os
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]


def read_reference(path):
    with open(path) as f:
        rows = [line for line in f if not line.startswith("#")]
    return list(csv.DictReader(rows))


def dpkit_case(dpkit, case, accuracy, repeats):
    b = int(case["num_bands"])
    spec = "toeplitz:" + ",".join([repr(1 / math.sqrt(b))] * b)
    args = [dpkit, "epsilon", "--strategy", spec, "--min-separation", str(b),
            "--sampling-rate", case["sampling_prob"], "--steps", case["iterations"],
            "--noise-multiplier", case["noise_multiplier"], "--delta", case["delta"],
            "--accuracy", repr(accuracy), "--format", "csv"]
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
        times.append(time.perf_counter() - t0)
    row = next(csv.DictReader(out.splitlines()))
    return float(row["epsilon_lower"]), float(row["epsilon"]), statistics.median(times)


def dpkit_in_process(directory):
    """dpkit's library call through its Python binding (the build's python/ folder)."""
    sys.path.insert(0, str(directory))
    import dpkit.matrix_mechanism as mm

    def run(case, accuracy, repeats):
        b = int(case["num_bands"])
        spec = "toeplitz:" + ",".join([repr(1 / math.sqrt(b))] * b)
        times, p = [], None
        for _ in range(repeats):
            t0 = time.perf_counter()
            p = mm.epsilon(spec, int(case["iterations"]), float(case["noise_multiplier"]),
                           float(case["delta"]), sample_rate=float(case["sampling_prob"]),
                           min_separation=b, relative_accuracy=accuracy)
            times.append(time.perf_counter() - t0)
        return float(p.lower), float(p.upper), statistics.median(times)
    return run


def peer_timer(directory):
    sys.path.insert(0, str(directory))
    import dp_accounting as dpa  # the peer, from its source

    def run(case, repeats):
        b, n = int(case["num_bands"]), int(case["iterations"])
        step = dpa.PoissonSampledDpEvent(float(case["sampling_prob"]),
                                         dpa.GaussianDpEvent(float(case["noise_multiplier"])))
        event = dpa.SelfComposedDpEvent(step, math.ceil(n / b))
        times, eps = [], None
        for _ in range(repeats):
            t0 = time.perf_counter()
            eps = dpa.pld.PLDAccountant().compose(event).get_epsilon(float(case["delta"]))
            times.append(time.perf_counter() - t0)
        return float(eps), statistics.median(times)
    return run


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dpkit", default=str(ROOT / "build/release/tools/dpkit/dpkit"))
    ap.add_argument("--reference", default=str(ROOT / "data/reference/jax_privacy_bandmf.csv"))
    ap.add_argument("--dp-accounting", default=None)
    ap.add_argument("--python", default=None,
                    help="the build's python/ folder, for dpkit's in-process timing")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--accuracy", type=float, default=1e-3)
    a = ap.parse_args()
    peer = peer_timer(a.dp_accounting) if a.dp_accounting else None
    inproc = dpkit_in_process(a.python) if a.python else None
    cases = read_reference(a.reference)
    print(f"{'sigma':>5} {'T':>6} {'b':>3} {'q':>5} {'rounds':>6}  {'dpkit lower':>11} "
          f"{'dpkit upper':>11} {'jax_privacy':>11}  {'dpkit s':>8} "
          + (f"{'in-proc s':>9} " if inproc else "") + f"{'peer s':>8}")
    ratios, ratios_in, contradictions, below = [], [], 0, 0
    for c in cases:
        lo, up, t = dpkit_case(a.dpkit, c, a.accuracy, a.repeats)
        ti = None
        if inproc:
            lo2, up2, ti = inproc(c, a.accuracy, a.repeats)
            # One rule on every path: the binding's bracket is the CLI's, to the digits it prints.
            assert math.isclose(lo2, lo, rel_tol=1e-15) and math.isclose(up2, up, rel_tol=1e-15), \
                (lo, up, lo2, up2)
        eps, pt = float(c["epsilon"]), float(c["seconds"])
        if peer:
            eps2, pt = peer(c, a.repeats)
            assert eps2 == eps, (eps2, eps)
        if lo > eps:
            contradictions += 1
        below += up <= eps
        ratios.append(pt / t)
        if ti:
            ratios_in.append(pt / ti)
        print(f"{float(c['noise_multiplier']):5g} {c['iterations']:>6} {c['num_bands']:>3} "
              f"{float(c['sampling_prob']):5g} {c['rounds']:>6}  {lo:11.6g} {up:11.6g} {eps:11.6g}"
              f"  {t:8.3f} " + (f"{ti:9.4f} " if ti else "") + f"{pt:8.3f}"
              + ("  CONTRADICTION" if lo > eps else ""))
    where = 'measured here' if peer else 'peer times from the reference file'
    print(f"{len(cases)} cases, {contradictions} contradictions, dpkit's upper end at or below "
          f"jax_privacy's number in {below}; peer/dpkit time: median "
          f"{statistics.median(ratios):.1f}x, min {min(ratios):.1f}x, max {max(ratios):.1f}x, "
          f"slower in {sum(r < 1 for r in ratios)} (dpkit's whole process; {where})")
    if ratios_in:
        print(f"peer/dpkit time, both in-process: median {statistics.median(ratios_in):.1f}x, "
              f"min {min(ratios_in):.1f}x, max {max(ratios_in):.1f}x, "
              f"slower in {sum(r < 1 for r in ratios_in)}")
    return 1 if contradictions else 0


if __name__ == "__main__":
    sys.exit(main())
