#!/usr/bin/env python3
"""Peer reference: Feldman & Shenfeld's PLD_accounting epsilon bounds for Gaussian random
allocation "k of t": data/reference/pld_accounting_k_of_t.csv.

What is computed. In every epoch each example is used in k of the t steps, the k steps chosen
uniformly at random; a step is the Gaussian mechanism with L2 sensitivity 1 and noise standard
deviation sigma (sigma is the noise multiplier: PLD_accounting's Gaussian factors are
lognormal(s = 1/sigma, scale = exp(+-1/(2 sigma^2))), i.e. privacy loss N(+-1/(2 sigma^2),
1/sigma^2), random_allocation_gaussian.py:200-203, 279; its Poisson initial guess also calls
dp_accounting's from_gaussian_mechanism(standard_deviation=sigma, sensitivity=1),
adaptive_random_allocation.py:204-210). For each case of the grid

    sigma in {0.5, 1, 2, 5} x t in {10, 100, 1000} x k in {1, 2, 4, 10} x epochs in {1, 10},
    delta = 1e-5 (96 cases)

the table holds what the package's public adaptive entry point returns,

    from PLD_accounting.random_allocation_api import gaussian_allocation_epsilon_range
    upper, lower = gaussian_allocation_epsilon_range(delta, sigma, num_steps=t,
                                                     num_selected=k, num_epochs=epochs,
                                                     epsilon_accuracy=a)

Peer: moshenfeld/PLD_accounting (package version 0.3.0) at commit
952e91a36230e81bfa7c072e74dc89bb89750b0f (2026-04-13), paper arXiv:2602.17284. It needs
Google's dp_accounting; the table was made with the source of google/differential-privacy
commit b5b0286e313b64a692abfc8c528d54ef47d960a0 (python/dp_accounting, dp_accounting 0.6.0).

What upper and lower mean (read from the peer's code):
* epsilon_accuracy is an ABSOLUTE target for the gap upper - lower
  (random_allocation_api.py:59-60). The adaptive loop (adaptive_random_allocation.py:111-158)
  starts at loss_discretization = epsilon_accuracy / 2 and tail_truncation = 0.1 delta, builds a
  dominating (upper) and a dominated (lower) discretised PLD, keeps the best of each across
  iterations, stops when upper - lower < epsilon_accuracy, otherwise halves the discretisation
  and divides the tail by 10, at most 10 iterations (then a RuntimeWarning, "not converged").
  A negative epsilon_accuracy means 10% of an epsilon estimated from Poisson subsampling with
  rate k/t over t * epochs rounds, raised to 10% of the current lower bound
  (adaptive_random_allocation.py:87-99, 146-147, 239-257).
* For k = 1 the pair brackets the epsilon of 1-out-of-t random allocation composed over the
  epochs (up to the discretisation and tail-truncation accounting).
* For k > 1 the package does NOT account k-of-t itself: it replaces it by the composition of
  (k - r) * epochs copies of 1-out-of-floor(t/k) and r * epochs copies of 1-out-of-(floor(t/k)+1),
  r = t - k floor(t/k) (random_allocation_accounting.py:103-147; README "Internal
  composition"), an upper bound on k-of-t. Both numbers are bounds on that composed mechanism,
  so "lower" is a lower bound on the composition, not on k-of-t random allocation.
* k = t gives floor(t/k) = 1, i.e. plain composition of k * epochs Gaussian mechanisms.
* The package rejects k > t (validation.py:122-123); k does not have to divide t.

Accuracy asked for (per case, in one child process, stopping as soon as the relative gap
(upper - lower) / upper is <= 1%):
  1. epsilon_accuracy = -1 (the package's automatic "about 10%");
  2. then, if the gap is still above 1%, epsilon_accuracy = rel * lower, lower taken from the
     previous run, rel from {0.01, 0.02, 0.03, 0.05}: among those with rel * lower below the
     previous gap and a predicted run time (previous time x (previous gap / (0.5 rel lower))^2,
     from the cost of the peer's O(n^2) geometric convolution) of at most 0.8 x what is left of
     the case's budget, the loosest expected to reach a 1% gap (0.5 rel lower <= 1% of upper,
     i.e. 0.02, or 0.01 when the gap is already below 2%), else the tightest. The first
     iteration typically gives a gap of 0.3-0.5 x epsilon_accuracy. Repeated while the gap is
     above 1% and a tighter rel is left.
The row holds the last run that finished. Each case has a wall-clock budget (--case-seconds,
default 60 s) for all its runs together; the child is killed at the budget. A case with no run
finished in time has empty peer_upper / peer_lower / peer_seconds and a note saying so.
peer_seconds is the in-process wall time (time.perf_counter) of the recorded call alone (the
Poisson guess of step 1 included when step 1 is the recorded one), after an untimed warm-up call
in the same process (numba compilation / cache load, imports). It depends on the machine and on
its load; the header records the load average.

numba. PLD_accounting imports "from numba import njit" (cache=True decorators on its inner
loops: geometric_convolution.py, distribution_discretization.py, utils.py). Two ways:
* default: the generator writes a stand-in package into a temporary directory
  (<tmp>/shim/numba/__init__.py, njit = a decorator that returns the function unchanged, for
  both @njit and @njit(...)) and puts it first on the children's sys.path; nothing is
  installed. Pure Python is slow: the cheapest case with geometric convolutions
  (sigma = 1, t = 10, k = 1, epochs = 1, accuracy -1) takes about 2 minutes instead of 4 s.
* --numba-dir DIR: a directory holding a real numba (and llvmlite) package, put first on the
  children's sys.path instead; e.g. Debian's packages unpacked without installing them
  (needs libllvm14, which Debian's clang-14 pulls in):
      apt-get download python3-numba python3-llvmlite
      dpkg-deb -x python3-numba_*.deb DIR0; dpkg-deb -x python3-llvmlite_*.deb DIR0
      --numba-dir DIR0/usr/lib/python3/dist-packages
  numba's cache goes to <tmp>/numba_cache (NUMBA_CACHE_DIR). The kernels use no fastmath, so
  results agree with the pure-Python stand-in (checked bit for bit on (1, 10, 1, 1) and
  (2, 10, 4, 1) at accuracy -1).
The package also lists random_allocation (Feldman & Shenfeld's earlier package) as a dependency
in pyproject.toml, but no module of PLD_accounting imports it, so nothing is provided for it.

Run (Debian: /usr/bin/python3 with python3-numpy, python3-scipy, python3-absl)::

    git --git-dir=MIRROR archive 952e91a36230e81bfa7c072e74dc89bb89750b0f | tar -x -C PLDDIR
    /usr/bin/python3 data/generators/pld_accounting_k_of_t_reference.py \\
        --pld-accounting PLDDIR --dp-accounting DPDIR \\
        --output data/reference/pld_accounting_k_of_t.csv \\
        [--numba-dir DIR] [--jobs 2] [--case-seconds 60]

PLDDIR is the folder holding the PLD_accounting package (the repository root); DPDIR the folder
holding the dp_accounting package (python/dp_accounting of a google/differential-privacy
checkout or export, its parent python/, or the checkout root). --pld-accounting-commit and
--dp-accounting-commit override the commits written into the header (found by git when the
folder is a git checkout). --jobs cases run at once, each in its own child process, single
threaded (OMP/OpenBLAS/MKL threads = 1). The bounds are deterministic for a given accuracy;
which accuracy a case reaches within its budget, the seconds column and the date line are not.
"""
import argparse
import concurrent.futures
import datetime
import json
import math
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

SIGMAS = (0.5, 1.0, 2.0, 5.0)
STEPS_PER_EPOCH = (10, 100, 1000)
SELECTED = (1, 2, 4, 10)
EPOCHS = (1, 10)
DELTA = 1e-5

PLD_ACCOUNTING_COMMIT = "952e91a36230e81bfa7c072e74dc89bb89750b0f"
DP_ACCOUNTING_COMMIT = "b5b0286e313b64a692abfc8c528d54ef47d960a0"

TARGET_REL_GAP = 0.01          # stop refining a case once (upper - lower) / upper <= this
LADDER = (0.01, 0.02, 0.03, 0.05)  # later runs: epsilon_accuracy = rel * previous lower
GAP_PER_TARGET = 0.5           # observed: first-iteration gap ~ 0.4-0.5 x epsilon_accuracy
PREDICT_SAFETY = 0.8           # a later run is started only if predicted <= 0.8 x time left

COLUMNS = ("sigma", "steps_per_epoch", "selected", "epochs", "delta",
           "peer_upper", "peer_lower", "peer_seconds", "note")

SHIM_SOURCE = '''"""Stand-in for numba: njit returns the function unchanged."""


def njit(*args, **kwargs):
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]

    def decorator(func):
        return func
    return decorator


jit = njit
'''


# ----------------------------------------------------------------------------------------------
# paths
# ----------------------------------------------------------------------------------------------

def dp_package_dir(d):
    """The folder that directly holds the dp_accounting package."""
    d = pathlib.Path(d).resolve()
    for cand in (d, d / "dp_accounting", d / "python" / "dp_accounting"):
        if (cand / "dp_accounting" / "pld" / "privacy_loss_distribution.py").is_file():
            return cand
    sys.exit("no dp_accounting package under %s" % d)


def pld_package_dir(d):
    """The folder that directly holds the PLD_accounting package."""
    d = pathlib.Path(d).resolve()
    if (d / "PLD_accounting" / "random_allocation_api.py").is_file():
        return d
    sys.exit("no PLD_accounting package under %s" % d)


def git_head(d, marker):
    """HEAD of the git checkout whose root holds `marker` and contains d, else None."""
    try:
        top = subprocess.run(["git", "-C", str(d), "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True, timeout=30)
        head = subprocess.run(["git", "-C", str(d), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=30)
    except OSError:
        return None
    if top.returncode != 0 or head.returncode != 0:
        return None
    if not (pathlib.Path(top.stdout.strip()) / marker).exists():
        return None
    head = head.stdout.strip()
    return head if len(head) == 40 else None


# ----------------------------------------------------------------------------------------------
# child process: one case (or the warm-up)
# ----------------------------------------------------------------------------------------------

def child_setup(a):
    sys.path[:0] = [a.child_numba_path, a.child_dp_path, a.child_pld_path]
    from PLD_accounting.random_allocation_api import gaussian_allocation_epsilon_range
    return gaussian_allocation_epsilon_range


def call_peer(fn, sigma, t, k, epochs, accuracy):
    """(upper, lower, seconds, converged) of one call of the peer's adaptive API."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        upper, lower = fn(DELTA, sigma, num_steps=t, num_selected=k, num_epochs=epochs,
                          epsilon_accuracy=accuracy)
        seconds = time.perf_counter() - t0
    converged = not any("did not converge" in str(w.message) for w in caught)
    return float(upper), float(lower), seconds, converged


def warm_up(fn):
    # Exercises the numba kernels (geometric convolution, rediscretisation, CCDF), the epoch
    # FFT self-convolution and the floor/ceil FFT convolve (t = 5, k = 2: 1-of-2 and 1-of-3).
    call_peer(fn, 1.0, 5, 2, 2, 0.5)


def child_main(a):
    fn = child_setup(a)
    warm_up(fn)
    if a.child_warmup:
        return
    sigma, t, k, epochs = a.child_case
    sigma, t, k, epochs = float(sigma), int(t), int(k), int(epochs)
    start = time.perf_counter()
    out = open(a.child_out, "a", buffering=1)

    def emit(**rec):
        out.write(json.dumps(rec) + "\n")
        out.flush()

    accuracy, rel = -1.0, None
    remaining_ladder = list(LADDER)
    while True:
        try:
            upper, lower, seconds, converged = call_peer(fn, sigma, t, k, epochs, accuracy)
        except Exception as e:  # noqa: BLE001 - recorded in the table
            emit(kind="error", accuracy=accuracy, rel=rel,
                 error="%s: %s" % (type(e).__name__, str(e).replace(",", ";")[:200]))
            return
        emit(kind="result", accuracy=accuracy, rel=rel, upper=upper, lower=lower,
             seconds=seconds, converged=converged)
        gap = upper - lower
        if upper <= 0 or gap <= TARGET_REL_GAP * upper or lower <= 0:
            return
        left = a.child_budget - (time.perf_counter() - start)
        useful = [c for c in remaining_ladder if c * lower < gap]   # would tighten the gap
        predicted = {c: seconds * (gap / (GAP_PER_TARGET * c * lower)) ** 2 for c in useful}
        fits = [c for c in useful if predicted[c] <= PREDICT_SAFETY * left]
        reach = [c for c in fits if GAP_PER_TARGET * c * lower <= TARGET_REL_GAP * upper]
        chosen = max(reach) if reach else (min(fits) if fits else None)
        for c in useful:
            if c < (chosen if chosen is not None else math.inf) and c not in fits:
                emit(kind="skip", rel=c, predicted=predicted[c], left=left)
        if chosen is None:
            return
        remaining_ladder = [c for c in remaining_ladder if c < chosen]
        rel, accuracy = chosen, chosen * lower


# ----------------------------------------------------------------------------------------------
# parent
# ----------------------------------------------------------------------------------------------

def child_command(a, numba_path, dp_path, pld_path, out_file, case=None, warmup=False):
    cmd = [sys.executable, os.path.realpath(__file__), "--child",
           "--child-numba-path", str(numba_path), "--child-dp-path", str(dp_path),
           "--child-pld-path", str(pld_path), "--child-out", str(out_file),
           "--child-budget", repr(float(a.case_seconds))]
    if warmup:
        cmd.append("--child-warmup")
    else:
        cmd += ["--child-case"] + [str(x) for x in case]
    return cmd


LIVE_CHILDREN = set()


def run_child(cmd, env, timeout):
    """Run a child in its own process group; (finished within timeout, status, stderr)."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    LIVE_CHILDREN.add(proc.pid)
    try:
        _, err = proc.communicate(timeout=timeout)
        return True, proc.returncode, err
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        return False, proc.returncode, err
    finally:
        LIVE_CHILDREN.discard(proc.pid)


def kill_live_children():
    for pid in list(LIVE_CHILDREN):
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass


def gdp_epsilon(mu, delta):
    """Exact epsilon(delta) of mu-GDP (Balle & Wang 2018 Thm 8), by brentq in double."""
    from scipy import optimize, stats

    def f(eps):
        return (stats.norm.cdf(-eps / mu + mu / 2)
                - math.exp(eps + stats.norm.logcdf(-eps / mu - mu / 2)) - delta)
    hi = 1.0
    while f(hi) > 0:
        hi *= 2
    return optimize.brentq(f, 0.0, hi, xtol=1e-13, rtol=4 * 2.0 ** -52)


def check_k_equals_t(row):
    """k = t: the peer's decomposition is k*epochs Gaussian mechanisms, exactly mu-GDP with
    mu = sqrt(k*epochs)/sigma; that epsilon must lie in [peer_lower, peer_upper]."""
    exact = gdp_epsilon(math.sqrt(row["k"] * row["epochs"]) / row["sigma"], DELTA)
    inside = row["lower"] <= exact <= row["upper"]
    text = "check: exact epsilon of %d-fold Gaussian composition %.10g %s [lower; upper]" % (
        row["k"] * row["epochs"], exact, "inside" if inside else "OUTSIDE")
    return inside, text


def fmt_g(x):
    return "%.17g" % x


def describe_accuracy(rec):
    if rec["rel"] is None:
        return "epsilon_accuracy=-1 (package auto ~10%)"
    return "epsilon_accuracy=%.6g (%g x lower of previous run)" % (rec["accuracy"], rec["rel"])


def run_case(a, env, paths, tmpdir, case):
    sigma, t, k, epochs = case
    out_file = tmpdir / ("case_%s_%d_%d_%d.jsonl" % (sigma, t, k, epochs))
    cmd = child_command(a, *paths, out_file, case=case)
    wall0 = time.perf_counter()
    finished, rc, err = run_child(cmd, env, a.case_seconds)
    wall = time.perf_counter() - wall0
    recs = []
    if out_file.exists():
        recs = [json.loads(line) for line in out_file.read_text().splitlines() if line.strip()]
    results = [r for r in recs if r["kind"] == "result"]
    errors = [r for r in recs if r["kind"] == "error"]
    last = max((i for i, r in enumerate(recs) if r["kind"] == "result"), default=-1)
    final_skips = [r for r in recs[last + 1:] if r["kind"] == "skip"]  # after the last result
    row = {"sigma": sigma, "t": t, "k": k, "epochs": epochs,
           "upper": None, "lower": None, "seconds": None}
    notes = []
    if results:
        best = results[-1]
        row.update(upper=best["upper"], lower=best["lower"], seconds=best["seconds"])
        gap = (best["upper"] - best["lower"]) / best["upper"]
        notes.append(describe_accuracy(best))
        notes.append("rel gap %.2g%%" % (100 * gap))
        if not best["converged"]:
            notes.append("peer warned: not converged in 10 iterations")
        if len(results) > 1:
            notes.append("after %d runs (%s s)" % (
                len(results), "+".join("%.1f" % r["seconds"] for r in results)))
        if not finished:
            notes.append("tighter run killed at the %g s case budget" % a.case_seconds)
        elif gap > TARGET_REL_GAP and final_skips and not errors:
            sk = final_skips[0]                  # the tightest candidate refused
            notes.append("tighter run (%g x lower) not started: predicted %.0f s > 0.8 x %.0f s"
                         " budget left" % (sk["rel"], sk["predicted"], sk["left"]))
    else:
        if not finished:
            notes.append("missing: epsilon_accuracy=-1 (package auto ~10%%) run did not finish"
                         " within the %g s case budget" % a.case_seconds)
        elif not errors:
            notes.append("missing: child exited with status %s: %s" % (
                rc, " ".join(err.strip().splitlines()[-1:]).replace(",", ";")[:200]))
    for e in errors:
        notes.append("missing: peer raised %s" % e["error"] if not results
                     else "tighter run raised %s" % e["error"])
    row["note"] = "; ".join(notes).replace(",", ";")
    status = ("%.6g %.6g" % (row["upper"], row["lower"])) if results else "missing"
    print("sigma=%-4g t=%-5d k=%-3d E=%-3d  %s  (%.1f s wall)  %s" % (
        sigma, t, k, epochs, status, wall, row["note"]), flush=True)
    return row


def write_csv(path, rows, header):
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        for line in header:
            f.write("# " + line + "\n")
        f.write(",".join(COLUMNS) + "\n")
        for r in rows:
            cells = [repr(float(r["sigma"])), str(r["t"]), str(r["k"]), str(r["epochs"]),
                     repr(DELTA),
                     "" if r["upper"] is None else fmt_g(r["upper"]),
                     "" if r["lower"] is None else fmt_g(r["lower"]),
                     "" if r["seconds"] is None else "%.3f" % r["seconds"],
                     r["note"]]
            assert all("," not in c and "\n" not in c for c in cells), cells
            f.write(",".join(cells) + "\n")


def parent_main(a):
    def on_signal(signum, frame):
        raise KeyboardInterrupt("signal %d" % signum)
    signal.signal(signal.SIGTERM, on_signal)
    pld_path = pld_package_dir(a.pld_accounting)
    dp_path = dp_package_dir(a.dp_accounting)
    pld_commit = (a.pld_accounting_commit or git_head(pld_path, "PLD_accounting")
                  or PLD_ACCOUNTING_COMMIT)
    dp_commit = (a.dp_accounting_commit or git_head(dp_path, "python/dp_accounting")
                 or DP_ACCOUNTING_COMMIT)
    tmpdir = pathlib.Path(tempfile.mkdtemp(prefix="pld_k_of_t_"))
    try:
        if a.numba_dir:
            numba_path = pathlib.Path(a.numba_dir).resolve()
            if not (numba_path / "numba" / "__init__.py").is_file():
                sys.exit("no numba package under %s" % numba_path)
            numba_desc = "real numba from %s" % numba_path
        else:
            numba_path = tmpdir / "shim"
            (numba_path / "numba").mkdir(parents=True)
            (numba_path / "numba" / "__init__.py").write_text(SHIM_SOURCE)
            numba_desc = "pure-Python stand-in (njit returns the function unchanged)"
        env = dict(os.environ)
        env["NUMBA_CACHE_DIR"] = str(tmpdir / "numba_cache")
        env.pop("PYTHONPATH", None)
        paths = (numba_path, dp_path, pld_path)

        # Versions of what the children import.
        probe = subprocess.run(
            [sys.executable, "-c",
             "import sys; sys.path[:0] = %r\n"
             "import numpy, scipy, numba, platform\n"
             "print(numpy.__version__, scipy.__version__, getattr(numba, '__version__',"
             " 'stand-in'), platform.python_version())" % [str(p) for p in paths]],
            env=env, capture_output=True, text=True)
        versions = probe.stdout.split()
        if probe.returncode != 0 or len(versions) != 4:
            sys.exit("cannot import numpy/scipy/numba in the child setup:\n" + probe.stderr)
        numpy_v, scipy_v, numba_v, python_v = versions

        t0 = time.perf_counter()
        load0 = os.getloadavg()
        ok, rc, err = run_child(child_command(a, *paths, tmpdir / "warmup.jsonl", warmup=True),
                                env, 1800)
        if not ok or rc != 0:
            sys.exit("warm-up failed (status %s):\n%s" % (rc, err))
        print("warm-up done in %.1f s (%s)" % (time.perf_counter() - t0, numba_desc), flush=True)

        cases = [(s, t, k, e) for s in SIGMAS for t in STEPS_PER_EPOCH for k in SELECTED
                 for e in EPOCHS]
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs)
        try:
            rows = list(pool.map(lambda c: run_case(a, env, paths, tmpdir, c), cases))
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
            kill_live_children()
        total = time.perf_counter() - t0
        load1 = os.getloadavg()
    finally:
        kill_live_children()
        shutil.rmtree(tmpdir, ignore_errors=True)

    checks = []
    for r in rows:
        if r["k"] == r["t"] and r["upper"] is not None:
            inside, text = check_k_equals_t(r)
            checks.append(inside)
            r["note"] = r["note"] + "; " + text
    n_missing = sum(r["upper"] is None for r in rows)
    gaps = [(r["upper"] - r["lower"]) / r["upper"] for r in rows if r["upper"] is not None]
    n_tight = sum(g <= TARGET_REL_GAP for g in gaps)
    header = [
        "what: epsilon bounds (delta = 1e-5) that Feldman & Shenfeld's PLD_accounting reports for"
        " Gaussian random allocation k of t (each example in k uniformly chosen of the t steps of"
        " every epoch; Gaussian noise multiplier sigma; sensitivity 1; add/remove neighbours)"
        " via its adaptive API gaussian_allocation_epsilon_range(delta sigma num_steps=t"
        " num_selected=k num_epochs=epochs epsilon_accuracy)",
        "source: moshenfeld/PLD_accounting commit %s (PLD_accounting 0.3.0; arXiv:2602.17284);"
        " google/differential-privacy commit %s (python/dp_accounting; dp_accounting 0.6.0);"
        " numba: %s %s; numpy %s scipy %s python %s" % (
            pld_commit, dp_commit, numba_desc.split(" from ")[0], numba_v, numpy_v, scipy_v,
            python_v),
        "generator: data/generators/pld_accounting_k_of_t_reference.py",
        "command: /usr/bin/python3 data/generators/pld_accounting_k_of_t_reference.py"
        " --pld-accounting PLDDIR --dp-accounting DPDIR --output"
        " data/reference/pld_accounting_k_of_t.csv%s --jobs %d --case-seconds %g" % (
            " --numba-dir NUMBADIR" if a.numba_dir else "", a.jobs, a.case_seconds),
        "date: %s; total wall time %.0f s; load average at start %.2f and end %.2f (%d CPUs)" % (
            datetime.date.today().isoformat(), total, load0[0], load1[0], os.cpu_count() or 0),
        "meaning: peer_upper = epsilon of the dominating (pessimistic) discretised PLD and"
        " peer_lower = epsilon of the dominated (optimistic) one; best of each over the peer's"
        " refinement iterations. For k = 1 they bracket epsilon of 1-out-of-t random allocation"
        " composed over the epochs. For k > 1 the peer accounts the composition of"
        " (k - r)*epochs copies of 1-out-of-floor(t/k) and r*epochs copies of"
        " 1-out-of-(floor(t/k)+1) allocation (r = t mod k) - an upper bound on k of t - and both"
        " columns bound that composition: peer_lower is NOT a lower bound for k of t itself."
        " k = t is plain composition of k*epochs Gaussian mechanisms",
        "method: per case one child process; untimed warm-up call; run 1 epsilon_accuracy = -1"
        " (peer's auto: 10%% of a Poisson-subsampling estimate); if (upper - lower)/upper > 1%%"
        " further runs with epsilon_accuracy = rel * previous lower (rel in {0.01 0.02 0.03 0.05}:"
        " the loosest expected to reach 1%% (else the tightest) among those below the gap and"
        " predicted to fit the budget); all runs of a case"
        " within %g s wall (killed at the budget); the row is the last finished run; peer_seconds ="
        " time.perf_counter around that call; %d jobs at once" % (a.case_seconds, a.jobs),
        "summary: %d cases; %d missing; %d with relative gap <= 1%%" % (
            len(rows), n_missing, n_tight),
        "check: rows with k = t (the peer's decomposition is then exactly k*epochs Gaussian"
        " mechanisms = mu-GDP with mu = sqrt(k*epochs)/sigma): exact epsilon (scipy brentq on"
        " Balle & Wang's delta(eps)) inside [peer_lower; peer_upper] in %d of %d rows" % (
            sum(checks), len(checks)),
        "grid: sigma in {0.5 1 2 5} x steps_per_epoch t in {10 100 1000} x selected k in"
        " {1 2 4 10} x epochs in {1 10}; delta = 1e-5",
        "columns: sigma steps_per_epoch selected epochs delta = the case; peer_upper peer_lower"
        " (17 significant digits; empty when missing); peer_seconds (wall s of the recorded"
        " call; machine- and load-dependent); note = accuracy asked and reached or why missing",
    ]
    write_csv(a.output, rows, header)
    print("wrote %s: %d rows, %d missing, %d with gap <= 1%%; total %.0f s" % (
        a.output, len(rows), n_missing, n_tight, total), flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pld-accounting", help="folder holding the PLD_accounting package")
    p.add_argument("--dp-accounting", help="folder holding the dp_accounting package")
    p.add_argument("--output", default=str(pathlib.Path(__file__).resolve().parent.parent
                                           / "reference" / "pld_accounting_k_of_t.csv"))
    p.add_argument("--numba-dir", help="folder holding a real numba package (default: stand-in)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--case-seconds", type=float, default=60.0,
                   help="wall-clock budget of one case, all its runs together")
    p.add_argument("--pld-accounting-commit")
    p.add_argument("--dp-accounting-commit")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--child-warmup", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--child-case", nargs=4, help=argparse.SUPPRESS)
    p.add_argument("--child-out", help=argparse.SUPPRESS)
    p.add_argument("--child-budget", type=float, help=argparse.SUPPRESS)
    p.add_argument("--child-numba-path", help=argparse.SUPPRESS)
    p.add_argument("--child-dp-path", help=argparse.SUPPRESS)
    p.add_argument("--child-pld-path", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.child:
        child_main(a)
        return
    if not a.pld_accounting or not a.dp_accounting:
        p.error("--pld-accounting and --dp-accounting are required")
    parent_main(a)


if __name__ == "__main__":
    main()
