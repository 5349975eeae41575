#!/usr/bin/env python3
"""Performance of the dpkit Python package against the targets of the Python-package issue.

    /usr/bin/python3 validation/perf/python_bench.py [--quick] [--perf] [--build build/ci]

Prints four tables (medians; wall-clock times, single thread):

1. ``import dpkit`` in a fresh interpreter, minus ``python3 -c pass`` (target ≤ 50 ms), with the
   share of numpy and the largest entries of ``-X importtime``.
2. Call overhead of the Python layer over the C++ library (target ≤ 10 µs): the public
   ``dpkit.epsilon``, the extension function ``dpkit._dpkit.epsilon`` it calls, the pure-Python
   layer alone (the extension replaced by a stub that returns a stored result), and the C++
   library itself from the Google Benchmark binary ``dpkit_accounting_bench`` (same cases of its
   grid; built with ``cmake --build build/ci --target dpkit_accounting_bench``, skipped if absent).
3. ``dpkit.epsilon_curve`` at 100 step counts against one ``dpkit.epsilon`` at the largest
   (target: curve ≤ 1.5 × single), PLD and RDP, and where one curve point's time goes: the
   per-point passes and FFT sizes, the one-step discretisation (T = 1 at the final grid, where no
   FFT runs), the relative accuracy, and with ``--perf`` a ``perf record`` profile by function.
4. Single-composition curves: ``dpkit.delta_curve`` at 100 ε and ``dpkit.tradeoff`` at 1000 α
   against one ``dpkit.delta``.

The package is imported from ``<build>/python`` (default build/ci, the `dpkit_python` and
`dpkit_python_files` targets). Nothing here is a test: the numbers are reported, met or not.
Results and the machine: docs/performance.md, section "Python package".
"""
import argparse
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
import types

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load() -> str:
    return "%.2f %.2f %.2f" % os.getloadavg()


def median(xs):
    return statistics.median(xs)


def fmt_t(s: float) -> str:
    """Seconds, with a unit that keeps three significant figures."""
    if s != s:
        return "n/a"
    if s < 1e-3:
        return "%.3g µs" % (s * 1e6)
    if s < 1:
        return "%.3g ms" % (s * 1e3)
    return "%.3g s" % s


def table(header, rows):
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = lambda r: "  ".join(str(x).ljust(w) for x, w in zip(r, widths))
    print(line(header))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(line(r))
    print()


def timed(fn, repeat):
    """Median wall time of fn() over `repeat` calls (and the last result)."""
    ts = []
    r = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = fn()
        ts.append(time.perf_counter() - t0)
    return median(ts), r


def per_call(fns, repeat, batch=1e-3):
    """Median per-call time of each callable in `fns`, timed in interleaved rounds (so that a
    change of machine load hits every layer alike) of batches of about `batch` seconds: short
    batches keep most of them free of a scheduler preemption (~5 ms on a loaded machine), which
    the median then ignores."""
    timers = [timeit.Timer(f) for f in fns]
    numbers = []
    for t in timers:
        n, dt = t.autorange()  # also a warm-up
        numbers.append(max(1, int(n * batch / dt)))
    samples = [[] for _ in fns]
    for _ in range(repeat):
        for s, t, n in zip(samples, timers, numbers):
            s.append(t.timeit(n) / n)
    return [median(s) for s in samples]


def details(raw):
    """(grid spacing h, FFT size, passes) of a raw extension result (dict or tuple)."""
    if isinstance(raw, dict):
        return raw.get("grid_spacing"), raw.get("fft_size"), raw.get("passes")
    if isinstance(raw, tuple) and raw and isinstance(raw[-1], tuple) and len(raw[-1]) >= 3:
        return raw[-1][0], raw[-1][1], raw[-1][2]
    m = re.search(r"h = ([0-9.e+-]+), FFT (\d+), (\d+) pass", str(raw))
    return (float(m.group(1)), int(m.group(2)), int(m.group(3))) if m else (None, None, None)


# ---------------------------------------------------------------------------------------------
# 1. import time


def bench_import(env, runs, pydir):
    # Two copies of the package: the build tree as it is (here without __pycache__ when
    # PYTHONDONTWRITEBYTECODE is set, so every import compiles the .py files), and a temporary
    # copy with its bytecode compiled, as `pip install` leaves it.
    tmp = tempfile.mkdtemp(prefix="dpkit_import_")
    shutil.copytree(os.path.join(pydir, "dpkit"), os.path.join(tmp, "dpkit"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(tmp, "dpkit")],
                   check=True)
    env_src = dict(env, PYTHONDONTWRITEBYTECODE="1")
    env_pyc = dict(env, PYTHONPATH=tmp, PYTHONDONTWRITEBYTECODE="1")
    cmds = {"pass": ("pass", env_pyc), "numpy": ("import numpy", env_pyc),
            "dpkit": ("import dpkit", env_pyc), "dpkit_src": ("import dpkit", env_src)}
    # First calls in a fresh interpreter, timed inside it (lazy initialisation; the curves
    # import numpy on first use).
    first = {"epsilon": "dpkit.epsilon(1e-5, noise_multiplier=1.0, sample_rate=1.0, steps=1000)",
             "epsilon_curve": "dpkit.epsilon_curve(1e-5, noise_multiplier=1.0, sample_rate=1.0, "
                              "steps=[10, 100])"}
    samples = {k: [] for k in list(cmds) + list(first)}
    for _ in range(runs):  # interleaved
        for k, (c, e) in cmds.items():
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", c], env=e, check=True)
            samples[k].append(time.perf_counter() - t0)
        for k, c in first.items():
            code = "import time, dpkit\nt = time.perf_counter()\n%s\nprint(time.perf_counter() - t)"
            p = subprocess.run([sys.executable, "-c", code % c], env=env_pyc, check=True,
                               capture_output=True, text=True)
            samples[k].append(float(p.stdout.split()[-1]))
    med = {k: median(v) for k, v in samples.items()}
    env = env_pyc

    # -X importtime: median over runs of each module's self and cumulative time (µs), for the
    # modules `import dpkit` loads (its subtree: importtime prints children before parents).
    self_us, cum_us, depth, order = {}, {}, {}, []
    for _ in range(max(5, runs // 4)):
        p = subprocess.run([sys.executable, "-X", "importtime", "-c", "import dpkit"], env=env,
                           check=True, capture_output=True, text=True)
        entries = []
        for line in p.stderr.splitlines():
            m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( +)(\S+)", line)
            if m:
                entries.append((m.group(4), (len(m.group(3)) - 1) // 2, int(m.group(1)),
                                int(m.group(2))))
        top = max(i for i, e in enumerate(entries) if e[0] == "dpkit")
        i = top
        while i > 0 and entries[i - 1][1] > entries[top][1]:
            i -= 1
        if not order:
            order = [e[0] for e in entries[i:top + 1]]
        for name, d, s, c in entries[i:top + 1]:
            self_us.setdefault(name, []).append(s)
            cum_us.setdefault(name, []).append(c)
            depth[name] = d - entries[top][1]
    self_m = {k: median(v) for k, v in self_us.items()}
    cum_m = {k: median(v) for k, v in cum_us.items()}

    shutil.rmtree(tmp, ignore_errors=True)
    print("## 1. import dpkit (fresh interpreter, %d runs each, interleaved)\n" % runs)
    d_dpkit = med["dpkit"] - med["pass"]
    d_src = med["dpkit_src"] - med["pass"]
    d_numpy = med["numpy"] - med["pass"]
    table(["command", "median wall", "minus `pass`"],
          [["python3 -c pass", fmt_t(med["pass"]), ""],
           ["python3 -c 'import numpy'", fmt_t(med["numpy"]), fmt_t(d_numpy)],
           ["python3 -c 'import dpkit' (bytecode compiled, as installed)", fmt_t(med["dpkit"]),
            fmt_t(d_dpkit)],
           ["python3 -c 'import dpkit' (build tree, no __pycache__: compiles the .py files)",
            fmt_t(med["dpkit_src"]), fmt_t(d_src)],
           ["then the first dpkit.epsilon (closed form), timed inside", "",
            fmt_t(med["epsilon"])],
           ["or the first dpkit.epsilon_curve (2 closed-form points; imports numpy)", "",
            fmt_t(med["epsilon_curve"])]])
    if "numpy" in cum_m:
        print("import dpkit: %s (target ≤ 50 ms: %s); it imports numpy, which alone takes %s "
              "(%.0f %%)\n" % (fmt_t(d_dpkit), "met" if d_dpkit <= 0.050 else "NOT met",
                               fmt_t(d_numpy), 100 * d_numpy / d_dpkit))
    else:
        print("import dpkit: %s (target ≤ 50 ms: %s); numpy is not imported (it would add %s)\n"
              % (fmt_t(d_dpkit), "met" if d_dpkit <= 0.050 else "NOT met", fmt_t(d_numpy)))
    total = cum_m["dpkit"]
    # Every dpkit module and every other module over 2 % of the total, in import order.
    rows = [[("  " * depth[k]) + k, "%.1f ms" % (self_m[k] / 1e3), "%.1f ms" % (cum_m[k] / 1e3),
             "%.0f %%" % (100 * cum_m[k] / total)]
            for k in reversed(order) if k.startswith("dpkit") or cum_m[k] >= 0.02 * total]
    print("-X importtime (bytecode compiled), the modules `import dpkit` loads (median of %d "
          "runs; importtime itself slows imports; %d modules in all):\n"
          % (len(cum_us["dpkit"]), len(order)))
    table(["module (nesting)", "self", "cumulative", "of dpkit"], rows)
    return {"import_dpkit": d_dpkit, "import_dpkit_source": d_src, "import_numpy": d_numpy,
            "importtime_dpkit_ms": total / 1e3, "importtime_numpy_ms": cum_m.get("numpy", 0) / 1e3}


# ---------------------------------------------------------------------------------------------
# 2. call overhead

OVERHEAD_CASES = [
    # label, sigma, q, T, accountant, benchmark name in accounting_bench.cpp's grid
    ("full batch (closed form)", 1.0, 1.0, 1000, "pld", "BM_pld_epsilon/3/2/2/"),
    ("PLD", 1.0, 0.01, 1000, "pld", "BM_pld_epsilon/1/2/2/"),
    ("RDP", 1.0, 0.01, 1000, "rdp", "BM_rdp_epsilon/1/2/2/"),
]


def cxx_times(bench, runs):
    """Median real time (s) per benchmark case of OVERHEAD_CASES, over `runs` processes (each
    case is 3 repetitions of one iteration in accounting_bench.cpp; its median is used)."""
    import json
    names = [c[5] for c in OVERHEAD_CASES]
    filt = "^(" + "|".join(re.escape(n) for n in names) + ")"
    samples = {n: [] for n in names}
    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    for _ in range(runs):
        p = subprocess.run([bench, "--benchmark_filter=" + filt, "--benchmark_format=json"],
                           check=True, capture_output=True, text=True)
        for b in json.loads(p.stdout)["benchmarks"]:
            if b.get("aggregate_name") != "median":
                continue
            for n in names:
                if b["name"].startswith(n):
                    samples[n].append(b["real_time"] * unit[b["time_unit"]])
    return {n: median(v) if v else float("nan") for n, v in samples.items()}


def bench_overhead(quick, bench):
    import dpkit
    from dpkit import _core, _dpkit

    repeat = 41 if quick else 151
    cxx = {}
    if bench and os.path.exists(bench):
        cxx = cxx_times(bench, 5 if quick else 15)
    print("## 2. Call overhead of dpkit.epsilon over the C++ library (δ = 1e-5, median per call; "
          "%d rounds)\n" % repeat)
    rows = []
    out = {}
    for label, sigma, q, T, acc, bname in OVERHEAD_CASES:
        phases = [(sigma, q, "poisson", T)]
        raw = _dpkit.epsilon(phases, 0.0, 1e-5, acc, {})
        public = lambda: dpkit.epsilon(1e-5, noise_multiplier=sigma, sample_rate=q, steps=T,
                                       accountant=acc)
        low = lambda: _dpkit.epsilon(phases, 0.0, 1e-5, acc, {})
        # The pure-Python layer alone: the same public call with the extension replaced by a
        # stub that returns the stored result.
        stub = types.SimpleNamespace(**{k: getattr(_dpkit, k) for k in dir(_dpkit)
                                        if not k.startswith("__")})
        stub.epsilon = lambda *a: raw

        t_pub, t_low = per_call([public, low], repeat)
        # The stubbed call is cheap: time it with many calls whatever the case.
        saved = _core._dpkit
        _core._dpkit = stub
        try:
            assert public().upper == dpkit.epsilon(1e-5, noise_multiplier=sigma, sample_rate=q,
                                                   steps=T, accountant=acc).upper
            (t_py,) = per_call([public], repeat)
        finally:
            _core._dpkit = saved
        t_cxx = cxx.get(bname, float("nan"))
        rows.append([f"{label}: σ={sigma:g}, q={q:g}, T={T}, {acc}", fmt_t(t_cxx), fmt_t(t_low),
                     fmt_t(t_pub), fmt_t(t_low - t_cxx), fmt_t(t_pub - t_low), fmt_t(t_py),
                     fmt_t(t_pub - t_cxx)])
        out[label] = dict(cxx=t_cxx, low=t_low, public=t_pub, python_layer=t_py)
    table(["case", "C++ (bench)", "_dpkit.epsilon", "dpkit.epsilon", "pybind11 = low − C++",
           "Python = public − low", "Python layer alone (stub)", "total = public − C++"], rows)
    if not cxx:
        print("(C++ column: build dpkit_accounting_bench and pass --bench to fill it)\n")
    fb = out["full batch (closed form)"]
    over = fb["public"] - (fb["cxx"] if fb["cxx"] == fb["cxx"] else fb["low"])
    print("overhead on the closed-form case: %s (target ≤ 10 µs: %s). The PLD and RDP rows' "
          "differences are within their run-to-run noise; the fixed overhead is the closed-form "
          "row's.\n" % (fmt_t(over), "met" if over <= 10e-6 else "NOT met"))
    return out


# ---------------------------------------------------------------------------------------------
# 3. epsilon curves


def curve_cases(quick):
    import numpy as np
    cases = [("A (issue)", 1.0, 0.01, np.linspace(100, 10000, 100).astype(int)),
             ("B", 0.8, 0.1, np.linspace(10, 1000, 100).astype(int))]
    if not quick:
        cases.append(("C", 2.0, 0.001, np.linspace(1000, 100000, 100).astype(int)))
    return cases


def bench_curves(quick):
    import dpkit

    rep_curve = 1 if quick else 3
    print("## 3. ε-against-steps curves (100 points) vs one composition at the largest T "
          "(δ = 1e-5; PLD: curve median of %d, single of 5; RDP: 5 and 21)\n" % rep_curve)
    rows = []
    out = {}
    for name, sigma, q, steps in curve_cases(quick):
        tmax = int(steps.max())
        r = {}
        for acc in ("pld", "rdp"):
            rc = rep_curve if acc == "pld" else 5
            t_curve, c = timed(lambda: dpkit.epsilon_curve(1e-5, noise_multiplier=sigma,
                                                           sample_rate=q, steps=steps,
                                                           accountant=acc), rc)
            t_single, s = timed(lambda: dpkit.epsilon(1e-5, noise_multiplier=sigma, sample_rate=q,
                                                      steps=tmax, accountant=acc),
                                5 if acc == "pld" else 21)
            # The same points one dpkit.epsilon call each (what a user's loop would do).
            t0 = time.perf_counter()
            for T in steps:
                dpkit.epsilon(1e-5, noise_multiplier=sigma, sample_rate=q, steps=int(T),
                              accountant=acc)
            t_loop = time.perf_counter() - t0
            r[acc] = (t_curve, t_single, t_loop)
            rows.append([f"{name}: σ={sigma:g}, q={q:g}, T={int(steps.min())}…{tmax}", acc,
                         fmt_t(t_curve), fmt_t(t_single), "%.0f×" % (t_curve / t_single),
                         fmt_t(t_curve / len(steps)), fmt_t(t_loop), "%.4g" % float(s.upper)])
        out[name] = r
    table(["run", "accountant", "epsilon_curve (100 points)", "single at T_max",
           "ratio (target ≤ 1.5)", "per point", "loop of 100 dpkit.epsilon", "ε at T_max"], rows)
    return out


def bench_point_profile(quick, do_perf, env):
    """Where one PLD curve point's time goes (case A)."""
    import numpy as np
    from dpkit import _dpkit

    sigma, q = 1.0, 0.01
    steps = np.linspace(100, 10000, 100).astype(int)
    phases = lambda T: [(sigma, q, "poisson", int(T))]
    eps = lambda T, o: _dpkit.epsilon(phases(T), 0.0, 1e-5, "pld", o)
    print("## 3a. One PLD curve point, case A (σ = 1, q = 0.01, δ = 1e-5)\n")

    # The curve's own schedule (python/src/bind_accounting.cpp): largest T first, then every
    # point starts from the grid spacing that run needed.
    o, pts = {}, []
    for T in sorted(steps, reverse=True):
        t0 = time.perf_counter()
        raw = eps(T, o)
        dt = time.perf_counter() - t0
        h, n, p = details(raw)
        if not o and h:
            o = {"initial_grid_spacing": h}
        pts.append((int(T), dt, h, n, p))
    h_final = pts[0][2]
    by_n = {}
    for T, dt, h, n, p in pts:
        by_n.setdefault((n, p), []).append((T, dt))
    rows = [[f"FFT {n}, {p} pass{'es' if p != 1 else ''}", len(v),
             f"{min(t for t, _ in v)}…{max(t for t, _ in v)}", fmt_t(median([d for _, d in v])),
             fmt_t(sum(d for _, d in v))] for (n, p), v in sorted(by_n.items(), reverse=True)]
    table(["points (curve schedule, h = %.3g)" % h_final, "count", "T", "median per point",
           "sum"], rows)

    # Fresh single compositions, no shared grid; and fixed-grid decomposition.
    rep = 3 if quick else 5
    sample_T = [100, 1000, 5000, 10000]
    rows = []
    for T in sample_T:
        t_fresh, raw_f = timed(lambda: eps(T, {}), rep)
        t_fixed, raw_x = timed(lambda: eps(T, {"grid_spacing": h_final}), rep)
        hf, nf, pf = details(raw_f)
        rows.append([T, fmt_t(t_fresh), "h=%.2g, FFT %s, %s passes" % (hf, nf, pf),
                     fmt_t(t_fixed), "FFT %s" % details(raw_x)[1]])
    t_one, _ = timed(lambda: eps(1, {"grid_spacing": h_final}), rep)
    rows.append([1, "", "", fmt_t(t_one), "no FFT: discretisation + ε query only"])
    table(["T", "fresh epsilon()", "its grid", "one pass at the curve's h", ""], rows)
    t_pass_max = timed(lambda: eps(10000, {"grid_spacing": h_final}), rep)[0]
    print("T = 1 at the curve's grid (the one-step discretisation, both directions and sides, "
          "and the query; no FFT) takes %s: %.0f %% of one pass at T = 10000. It understates the "
          "discretisation inside a curve point: the per-step truncation is tail/T, so the range "
          "discretised widens with T (the perf profile below measures it directly).\n"
          % (fmt_t(t_one), 100 * t_one / t_pass_max))

    # Relative accuracy, and δ against ε at T = 10000.
    rows = []
    for acc in (1e-2, 1e-3, 1e-4):
        t, raw = timed(lambda: eps(10000, {"relative_accuracy": acc}), rep)
        h, n, p = details(raw)
        rows.append(["epsilon, relative_accuracy %g" % acc, fmt_t(t),
                     "h=%.2g, FFT %s, %s passes" % (h, n, p)])
    e_up = float(__import__("dpkit").epsilon(1e-5, noise_multiplier=sigma, sample_rate=q,
                                            steps=10000))
    t, raw = timed(lambda: _dpkit.delta(phases(10000), 0.0, e_up, "pld", {}), rep)
    h, n, p = details(raw)
    rows.append(["delta at that ε (%.4g), relative_accuracy 1e-3 on δ" % e_up, fmt_t(t),
                 "h=%.2g, FFT %s, %s passes" % (h, n, p)])
    table(["T = 10000", "time", "grid"], rows)

    bench_malloc(quick, env)
    if do_perf:
        perf_profile(env)


MALLOC_TUNABLES = "glibc.malloc.mmap_threshold=268435456:glibc.malloc.trim_threshold=1073741824"


def bench_malloc(quick, env):
    """Each composition allocates arrays of the FFT size; glibc serves large ones by mmap (or
    trims the heap after freeing them), so the kernel zeroes fresh pages on every call. Time
    fresh processes with glibc's defaults and with tunables that keep freed memory."""
    code = ("import statistics, sys, time, numpy as np, dpkit\n"
            "from dpkit import _dpkit\n"
            "f = lambda: _dpkit.epsilon([(1.0, 0.01, 'poisson', 1000)], 0.0, 1e-5, 'pld', {})\n"
            "f()\n"
            "ts = []\n"
            "for _ in range(25):\n"
            "    t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)\n"
            "c = []\n"
            "for _ in range(int(sys.argv[1])):\n"
            "    t = time.perf_counter()\n"
            "    dpkit.epsilon_curve(1e-5, noise_multiplier=1, sample_rate=0.01,\n"
            "                        steps=np.linspace(100, 10000, 100).astype(int))\n"
            "    c.append(time.perf_counter() - t)\n"
            "print(statistics.median(ts), statistics.median(c) if c else float('nan'))\n")
    rows = []
    tuned = dict(env, GLIBC_TUNABLES=MALLOC_TUNABLES)
    for label, e in (("glibc defaults", env), ("GLIBC_TUNABLES=" + MALLOC_TUNABLES, tuned)):
        p = subprocess.run([sys.executable, "-c", code, "0" if quick else "3"], env=e, check=True,
                           capture_output=True, text=True)
        single, curve = (float(x) for x in p.stdout.split())
        rows.append([label, fmt_t(single), fmt_t(curve)])
    print("Fresh processes, the kernel's page zeroing: malloc settings\n")
    table(["malloc", "epsilon, σ=1, q=0.01, T=1000 (median of 25)",
           "case-A epsilon_curve (median of 3)"], rows)


PERF_GROUPS = [
    # label, predicate on the symbol (inclusive time, --children; the largest match counts)
    ("PLD evaluation (all points, all passes)",
     lambda f: re.match(r"dpkit::accounting::pld_epsilon($|\(dpkit::accounting::training_run)", f)),
    ("  discretisation of one step (discretize_both)",
     lambda f: f.startswith("dpkit::accounting::discretize_both")),
    ("    of it: loss-interval masses (erf, log1p)", lambda f: "::interval_masses" in f),
    ("  composition (compose: windows, tilt, FFTs, powers)",
     lambda f: (f == "dpkit::accounting::compose" or f.startswith("dpkit::accounting::compose("))
     and "lambda" not in f),
    ("    of it: Chernoff windows and tilt search (log_mgf)", lambda f: "::log_mgf" in f),
    ("  ε query on the composed grid (composed_pld::epsilon)",
     lambda f: f.startswith("dpkit::accounting::composed_pld::epsilon")),
    ("page faults, anywhere (fresh pages of new arrays)", lambda f: f == "asm_exc_page_fault"),
]


def perf_profile(env):
    if not shutil.which("perf"):
        print("(perf not found: no profile)\n")
        return
    with tempfile.TemporaryDirectory() as d:
        data = os.path.join(d, "perf.data")
        code = ("import numpy as np, dpkit\n"
                "dpkit.epsilon_curve(1e-5, noise_multiplier=1, sample_rate=0.01, "
                "steps=np.linspace(100, 10000, 100).astype(int))\n")
        p = subprocess.run(["perf", "record", "-F", "499", "--call-graph", "dwarf,16384", "-o",
                            data, sys.executable, "-c", code], env=env, capture_output=True,
                           text=True)
        if p.returncode != 0:
            print("(perf record failed: %s)\n" % p.stderr.strip().splitlines()[-1:])
            return
        rep = subprocess.run(["perf", "report", "-i", data, "--stdio", "--children", "--sort",
                              "symbol", "-g", "none"], capture_output=True, text=True).stdout
        dso = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children", "--sort",
                              "dso", "-g", "none"], capture_output=True, text=True).stdout
    incl = {}
    for line in rep.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+([\d.]+)%\s+\[.\]\s+(.*\S)", line)
        if not m:
            continue
        sym = re.split(r"\s{2,}", m.group(3))[0]  # perf pads, then may add empty columns
        for label, match in PERF_GROUPS:
            if match(sym):
                incl[label] = max(incl.get(label, 0.0), float(m.group(1)))
    fftw = sum(float(m.group(1)) for m in re.finditer(r"^\s*([\d.]+)%\s+libfftw3\S*", dso, re.M))
    base = incl.get(PERF_GROUPS[0][0])
    print("## 3b. perf profile of the case-A PLD curve (inclusive time, share of the process "
          "and of the PLD evaluation; perf record, dwarf call graphs)\n")
    rows = [[label, "%.0f %%" % incl[label],
             "%.0f %%" % (100 * incl[label] / base) if base else ""]
            for label, _ in PERF_GROUPS if label in incl]
    rows.append(["FFTW (self time in libfftw3)", "%.0f %%" % fftw,
                 "%.0f %%" % (100 * fftw / base) if base else ""])
    table(["where", "of the process", "of the PLD evaluation"], rows)


# ---------------------------------------------------------------------------------------------
# 4. single-composition curves


def bench_single_composition(quick):
    import numpy as np
    import dpkit

    rep = 3 if quick else 7
    run = dict(noise_multiplier=1.0, sample_rate=0.01, steps=1000)
    eps_list = np.linspace(0.5, 4.0, 100)
    alpha = np.linspace(0.0, 1.0, 1000)
    e_star = float(dpkit.epsilon(1e-5, **run))
    print("## 4. One composition, many queries (σ = 1, q = 0.01, T = 1000; median of %d)\n" % rep)
    t_d1, d1 = timed(lambda: dpkit.delta(0.5, **run), rep)
    t_d2, d2 = timed(lambda: dpkit.delta(e_star, **run), rep)
    t_dc, dc = timed(lambda: dpkit.delta_curve(eps_list, **run), rep)
    t_to, to = timed(lambda: dpkit.tradeoff(alpha, **run), rep)
    t_e, _ = timed(lambda: dpkit.epsilon(1e-5, **run), rep)
    table(["call", "time", "ratio to delta(0.5)", "grid"], [
        ["dpkit.delta(0.5) (the curve's largest δ, which sets its accuracy)", fmt_t(t_d1), "1",
         d1.method],
        ["dpkit.delta(%.4g) (ε at δ = 1e-5)" % e_star, fmt_t(t_d2), "%.2f" % (t_d2 / t_d1),
         d2.method],
        ["dpkit.delta_curve, 100 ε in [0.5, 4]", fmt_t(t_dc), "%.2f" % (t_dc / t_d1), ""],
        ["dpkit.tradeoff, 1000 α in [0, 1]", fmt_t(t_to), "%.2f" % (t_to / t_d1), to.method],
        ["dpkit.epsilon(1e-5) for comparison", fmt_t(t_e), "%.2f" % (t_e / t_d1), ""],
    ])
    return dict(delta=t_d1, delta_curve=t_dc, tradeoff=t_to)


# ---------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions, no case C (~1 min)")
    ap.add_argument("--perf", action="store_true", help="profile a curve with perf record")
    ap.add_argument("--build", default=os.path.join(REPO, "build", "ci"),
                    help="CMake build directory holding python/dpkit (default build/ci)")
    ap.add_argument("--bench", default=None,
                    help="dpkit_accounting_bench binary (default <build>/validation/...)")
    ap.add_argument("--only", default="1234", help="sections to run, e.g. 12")
    args = ap.parse_args()

    pydir = os.path.join(args.build, "python")
    sys.path.insert(0, pydir)
    env = dict(os.environ)
    env["PYTHONPATH"] = pydir + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    bench = args.bench or os.path.join(args.build, "validation", "dpkit_accounting_bench")

    import numpy
    import dpkit
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    print("# dpkit Python package benchmarks\n")
    print("dpkit %s (%s) from %s; Python %s (%s); numpy %s; %s, %d cores; %s; load average %s"
          "%s\n" % (dpkit.__version__, dpkit.__git_hash__, pydir, platform.python_version(),
                    sys.executable, numpy.__version__, cpu, os.cpu_count(),
                    time.strftime("%Y-%m-%d %H:%M"), load(), " (quick)" if args.quick else ""))
    if "1" in args.only:
        bench_import(env, 10 if args.quick else 30, pydir)
    if "2" in args.only:
        bench_overhead(args.quick, bench)
    if "3" in args.only:
        bench_curves(args.quick)
        bench_point_profile(args.quick, args.perf, env)
    if "4" in args.only:
        bench_single_composition(args.quick)
    print("load average at the end: %s" % load())


if __name__ == "__main__":
    main()
