#!/usr/bin/env python3
"""Reference epsilons (and timings) of jax_privacy's amplified-BandMF accounting, computed by
Google's dp_accounting package itself: data/reference/jax_privacy_bandmf.csv.

What is computed. google-deepmind/jax_privacy (accounting.py, amplified_bandmf_event) accounts
DP-BandMF with b bands, n iterations, noise multiplier sigma and Poisson sampling probability q
(within each of the b groups) as the DP-SGD event of ceil(n / b) rounds:

    SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(sigma)), ceil(n / b))

(Choquette-Choo et al. 2023, arXiv:2306.08153), and computes epsilon for it with
dp_accounting.pld.PLDAccountant() at that package's defaults: neighbouring relation
ADD_OR_REMOVE_ONE, value_discretization_interval = 1e-4 (jax_privacy's accounting.py and
execution_plan.BandMFConfig.calibrate pass no parameters; only keras_api.py uses 1e-3, for
DP-SGD). Inside, that is PLD.from_gaussian_mechanism(sigma, sampling_prob=q) with its defaults
(pessimistic_estimate=True, use_connect_dots=True, log_mass_truncation_bound=-50),
self-composed ceil(n / b) times, then get_epsilon_for_delta(delta).

The event is built here from that definition (not imported from jax_privacy). For each case the
table holds:

* epsilon — PLDAccountant().compose(event).get_epsilon(delta), as the accountant returns it
  (pessimistic, i.e. an upper bound up to the discretisation);
* seconds — wall time of a fresh PLDAccountant's compose + get_epsilon (time.perf_counter),
  the median of 3 runs in a child process (the three epsilons are asserted equal), rounded to
  0.1 ms; machine-dependent, a guide to the cost of the computation only;
* rdp_epsilon — dp_accounting.rdp.RdpAccountant() (its default orders, ADD_OR_REMOVE_ONE)
  composed with the same event, get_epsilon(delta): the looser RDP bound, for comparison.

Grid: sigma in {0.6, 1, 2, 4} x (n, b) in {(1000, 1), (1000, 8), (3000, 16), (10000, 64)}
x q in {0.01, 0.1}, delta = 1e-6 (32 cases). A case whose first PLD run takes longer than
--max-seconds (120 s) is killed and listed in a "# skipped:" comment line instead of a row.
Sanity check before the grid: the jax_privacy docstring example (sigma = 3, 512 iterations,
q = 0.1, delta = 1e-6; num_bands = 1 here) must give epsilon 3.77 to two decimals.

Run (needs numpy, scipy, attrs, absl-py and a copy of dp_accounting's source; Debian:
python3-numpy python3-scipy python3-attr python3-absl)::

    /usr/bin/python3 data/generators/jax_privacy_bandmf_reference.py --dp-accounting DIR \\
        --out data/reference/jax_privacy_bandmf.csv [--revision COMMIT]

DIR is the folder holding the dp_accounting package (python/dp_accounting of a
google/differential-privacy checkout or export, or that checkout's root). COMMIT is the
differential-privacy commit, written into the header (found by git when DIR is in a git
checkout). One case runs at a time, single-threaded (OMP/OpenBLAS/MKL threads set to 1).
Epsilons are deterministic; the seconds column and the date line are not.
"""
import argparse
import datetime
import math
import multiprocessing
import os
import pathlib
import statistics
import subprocess
import sys
import time

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

NOISE_MULTIPLIERS = (0.6, 1.0, 2.0, 4.0)
ITERATIONS_BANDS = ((1000, 1), (1000, 8), (3000, 16), (10000, 64))
SAMPLING_PROBS = (0.01, 0.1)
DELTA = 1e-6
REPEATS = 3
JAX_PRIVACY_COMMIT = "8967688c26d46f3b74bfdfe61ef1f984b887abab"

COLUMNS = ("noise_multiplier", "iterations", "num_bands", "sampling_prob", "delta", "rounds",
           "epsilon", "seconds", "rdp_epsilon")


def package_dir(d):
    """The folder that directly holds the dp_accounting package."""
    d = pathlib.Path(d).resolve()
    for cand in (d, d / "python" / "dp_accounting"):
        if (cand / "dp_accounting" / "pld" / "pld_privacy_accountant.py").is_file():
            return cand
    sys.exit("no dp_accounting package under %s" % d)


def bandmf_event(dpa, noise_multiplier, iterations, num_bands, sampling_prob):
    """jax_privacy's amplified_bandmf_event, written from its definition."""
    if not (noise_multiplier >= 0 and iterations >= 0 and num_bands >= 1
            and 0 <= sampling_prob <= 1):
        raise ValueError("bad BandMF parameters")
    rounds = math.ceil(iterations / num_bands)
    step = dpa.PoissonSampledDpEvent(sampling_prob, dpa.GaussianDpEvent(noise_multiplier))
    return dpa.SelfComposedDpEvent(step, rounds), rounds


def pld_epsilon(dpa, event, delta):
    t0 = time.perf_counter()
    eps = dpa.pld.PLDAccountant().compose(event).get_epsilon(target_delta=delta)
    return float(eps), time.perf_counter() - t0


def run_case(pkg, case, conn):
    """Child process: REPEATS timed PLD runs (each sent as soon as done), then the RDP epsilon."""
    sys.path.insert(0, str(pkg))
    import dp_accounting as dpa
    sigma, n, b, q, delta = case
    event, rounds = bandmf_event(dpa, sigma, n, b, q)
    for _ in range(REPEATS):
        conn.send(("pld",) + pld_epsilon(dpa, event, delta))
    rdp = dpa.rdp.RdpAccountant().compose(event).get_epsilon(target_delta=delta)
    conn.send(("rdp", float(rdp), rounds))
    conn.close()


def evaluate(pkg, case, max_seconds):
    """(rounds, epsilon, median seconds, rdp_epsilon), or None when the first run is too slow."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=run_case, args=(pkg, case, child))
    proc.start()
    child.close()
    epsilons, seconds = [], []
    try:
        for i in range(REPEATS):
            # the first run must finish within max_seconds; later ones get slack for noise
            if not parent.poll(max_seconds if i == 0 else 3 * max_seconds):
                return None
            tag, eps, sec = parent.recv()
            assert tag == "pld"
            if i == 0 and sec > max_seconds:
                return None
            epsilons.append(eps)
            seconds.append(sec)
        if not parent.poll(30 * max_seconds):
            raise RuntimeError("RDP accountant did not finish for %r" % (case,))
        tag, rdp, rounds = parent.recv()
        assert tag == "rdp"
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
    assert len(set(epsilons)) == 1, epsilons   # deterministic
    return rounds, epsilons[0], statistics.median(seconds), rdp


def revision_of(pkg, given):
    if given:
        return given
    try:
        return subprocess.run(["git", "-C", str(pkg), "rev-parse", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dp-accounting", required=True,
                   help="folder holding the dp_accounting package (or the repository root)")
    p.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parent.parent
                                        / "reference" / "jax_privacy_bandmf.csv"))
    p.add_argument("--revision", default=None, help="google/differential-privacy commit")
    p.add_argument("--max-seconds", type=float, default=120.0,
                   help="skip a case whose first PLD run takes longer (default 120)")
    a = p.parse_args()
    pkg = package_dir(a.dp_accounting)
    sys.path.insert(0, str(pkg))
    import dp_accounting as dpa
    assert pathlib.Path(dpa.__file__).resolve().is_relative_to(pkg), dpa.__file__
    import numpy
    import scipy
    vfile = pkg / "VERSION"     # a docstring line, then the version
    version = vfile.read_text().strip().splitlines()[-1].strip() if vfile.is_file() else "?"
    revision = revision_of(pkg, a.revision)

    # jax_privacy's accounting.py docstring: dpsgd_event(3, 512, sampling_prob=0.1) -> 3.77
    ev, _ = bandmf_event(dpa, 3.0, 512, 1, 0.1)
    check, _ = pld_epsilon(dpa, ev, 1e-6)
    assert round(check, 2) == 3.77, check

    rows, skipped, times = [], [], []
    for sigma in NOISE_MULTIPLIERS:
        for n, b in ITERATIONS_BANDS:
            for q in SAMPLING_PROBS:
                case = (sigma, n, b, q, DELTA)
                res = evaluate(pkg, case, a.max_seconds)
                if res is None:
                    skipped.append("sigma=%r n=%d b=%d q=%r (first PLD run > %g s)"
                                   % (sigma, n, b, q, a.max_seconds))
                    print("skipped", case, flush=True)
                    continue
                rounds, eps, sec, rdp = res
                times.append(sec)
                print(case, rounds, eps, "%.3f s" % sec, rdp, flush=True)
                rows.append((repr(sigma), str(n), str(b), repr(q), repr(DELTA), str(rounds),
                             repr(eps), repr(round(sec, 4)), repr(rdp)))

    meta = [
        ("what", "epsilon of jax_privacy's amplified_bandmf_event(sigma n num_bands=b "
                 "sampling_prob=q) = SelfComposedDpEvent(PoissonSampledDpEvent(q "
                 "GaussianDpEvent(sigma)) ceil(n/b)) from dp_accounting's PLDAccountant "
                 "(defaults: ADD_OR_REMOVE_ONE; value_discretization_interval 1e-4; pessimistic "
                 "connect-the-dots Gaussian PLD) and RdpAccountant (default orders)"),
        ("source", "google/differential-privacy commit %s (dp_accounting %s; source imported "
                   "from %s); event definition from google-deepmind/jax_privacy commit %s "
                   "accounting.py; numpy %s scipy %s python %s"
                   % (revision, version, pkg, JAX_PRIVACY_COMMIT, numpy.__version__,
                      scipy.__version__, sys.version.split()[0])),
        ("generator", "data/generators/jax_privacy_bandmf_reference.py"),
        ("command", "python3 data/generators/jax_privacy_bandmf_reference.py --dp-accounting "
                    "DIR --out data/reference/jax_privacy_bandmf.csv"),
        ("date", datetime.date.today().isoformat()),
        ("method", "epsilon = PLDAccountant().compose(event).get_epsilon(delta) as returned; "
                   "seconds = wall time of compose + get_epsilon on a fresh accountant: median "
                   "of %d runs; one case at a time; single thread; rounded to 1e-4 s; "
                   "machine-dependent; rdp_epsilon = RdpAccountant().compose(event)"
                   ".get_epsilon(delta); check: the jax_privacy docstring example (3.0 512 "
                   "q=0.1 delta=1e-6) gives %r" % (REPEATS, check)),
        ("grid", "sigma in {0.6 1 2 4} x (n b) in {(1000 1) (1000 8) (3000 16) (10000 64)} "
                 "x q in {0.01 0.1}; delta = 1e-6"),
        ("columns", "noise_multiplier iterations num_bands sampling_prob delta = the case; "
                    "rounds = ceil(iterations/num_bands); epsilon (PLD); seconds; "
                    "rdp_epsilon"),
    ]
    meta += [("skipped", s) for s in skipped]
    lines = []
    for key, val in meta:
        assert "\n" not in val and "," not in val, val
        lines.append("# %s: %s" % (key, val))
    lines.append(",".join(COLUMNS))
    for r in rows:
        assert len(r) == len(COLUMNS) and all(c and "," not in c and " " not in c for c in r)
        lines.append(",".join(r))
    text = "\n".join(lines) + "\n"
    text.encode("ascii")
    with open(a.out, "w", encoding="ascii", newline="\n") as f:
        f.write(text)
    print("%d rows, %d skipped -> %s" % (len(rows), len(skipped), a.out))
    if times:
        print("seconds: median %.3f min %.3f max %.3f total %.1f"
              % (statistics.median(times), min(times), max(times), sum(times)))


if __name__ == "__main__":
    main()
