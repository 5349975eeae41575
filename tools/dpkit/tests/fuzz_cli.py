#!/usr/bin/env python3
"""Hostile-input fuzz test of the dpkit program (CTest cli.fuzz).

Starts from one cheap, valid command per subcommand, then mutates it: a flag's value replaced
by a hostile one (nan, inf, -0, subnormals, 2^32 + 1, 2^63 - 1, empty, text, huge strings), a
flag dropped, duplicated or misspelt, files that do not exist, are folders, are empty, are
malformed or quoted CSV, and output paths on a full device, in a missing folder, on a folder or
on an input file. The flags come from each subcommand's own --help, so new flags are fuzzed too.

For every invocation it asserts:
  * no signal (no crash) and no hang (per-call timeout; a call that printed its cost estimate,
    as every run over ~30 s must, may run past it);
  * exit code 0, 2 or 3 (1, numerical failure, only with a one-line message that is not an
    "internal error");
  * a failing call (exit != 0) writes exactly one line on stderr, with no internal function
    name ("gdp_epsilon: mu is ...") and no "internal error";
  * JSON output never labels a non-finite number a bound.

Seeded: the same seed gives the same invocations. Prints every failure with its command line.

usage: fuzz_cli.py DPKIT WORKDIR [--count N] [--bound-count N] [--audit-count N] [--seed S] [--jobs J] [--timeout T]
"""
import argparse
import concurrent.futures
import json
import math
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

# One valid, cheap invocation per subcommand (each must exit 0: checked first).
BASES = {
    ("epsilon",): "--noise-multiplier 1 --dataset-size 1000 --batch-size 10 --epochs 1,2 "
                  "--delta 1e-5",
    ("delta",): "--noise-multiplier 1 --sampling-rate 0.01 --steps 100 --epsilon 1",
    ("calibrate",): "--epsilon 2 --delta 1e-5 --sampling-rate 0.01 --steps 100 --accuracy 0.01",
    ("correlated",): "--correlation 0.5 --sampling-rate 0.1 --steps 100 --epsilon 1 --delta 1e-5",
    ("tradeoff",): "--noise-multiplier 2 --sampling-rate 0.1 --steps 3 --alpha 1e-6:1:log5",
    ("rdp",): "--noise-multiplier 1 --sampling-rate 0.01 --steps 100 --orders 2,4,8 --delta 1e-5",
    ("shifted", "noisy-gd"): "--sensitivity 1 --dataset-size 1 --noise-std 1 --contraction 0.95 --steps 100",
    ("shifted", "noisy-cgd"): "--sensitivity 1 --batch-size 10 --batches-per-epoch 20 --noise-std 1 "
                              "--learning-rate 0.1 "
                              "--contraction 0.99 --epochs 5",
    ("shifted", "noisy-sgd"): "--sensitivity 1 --dataset-size 100 --batch-size 10 --noise-std 0.5 "
                              "--learning-rate 0.5 --contraction 0.9 --steps 50",
    ("shifted", "lmc"): "--sensitivity 2 --strong-convexity 1 --learning-rate 0.1",
    ("hsgd", "risk"): "--spectrum isotropic:1 --dimension 10 --learning-rate 1 --times 0.5,1",
    ("hsgd", "privacy"): "--dimension 20 --dataset-size 100 --noise-std 1.5 --orders 2 --points 2",
    ("simulate",): "--algorithm sgd --batch-size 10 --noise-std 0.5 --steps 20 --replicates 20",
    ("validate",): "bsa24-thmC.3-invariant --no-figures --output-dir {work}/validate-out",
    ("plot",): "{work}/series.csv --output {work}/plot.svg",
    ("demo",): "",
}
# dpkit bound: one bound per risk header (every bound shares the same machinery) and --list.
# Fuzzed on a random stream of its own (--bound-count more invocations), so that adding it left
# the invocations of the other subcommands as they were.
BOUND_BASES = {
    ("bound",): "--list",
    ("bound", "kan-thm4.1"): "",
    ("bound", "longtail-thm3-tail"): "",
    ("bound", "mlp-thm13"): "",
    ("bound", "nonconvex-thm1"): "",
}
# dpkit audit: on a stream of its own too (--audit-count invocations), for the same reason.
AUDIT_BASES = {
    ("audit",): "--model quadratic --dataset-size 10 --dimension 2 --neighbour replace-one "
                "--noise-std 0.5 --steps 5 --replicates 200 --mu 1",
}
# Flags left alone: they ask for legitimately long work (every scenario, the paper-scale tier).
EXCLUDED = {("validate",): {"--all", "--tier", "--threads"}}
# Relative frequency (validate, plot and demo are the slowest valid calls).
WEIGHTS = {("demo",): 0.2, ("validate",): 0.5, ("plot",): 0.5, ("hsgd", "privacy"): 0.6,
           ("simulate",): 0.8, ("calibrate",): 0.8}

HOSTILE_VALUES = ["nan", "NaN", "inf", "-inf", "-0", "0", "-1", "1e-320", "5e-324", "1e-300",
                  "1e308", "1e999", "4294967297", "9223372036854775807", "18446744073709551617",
                  "", " ", "abc", "1,5", "1e", "0x10", "--", "-", "1.5", "2.5e-7", "1e6",
                  "x" * 5000, "1" * 400]


def make_files(work):
    os.makedirs(work, exist_ok=True)
    files = {
        "missing": os.path.join(work, "does-not-exist.csv"),
        "folder": work,
        "empty": os.path.join(work, "empty.csv"),
        "malformed": os.path.join(work, "malformed.csv"),
        "quoted": os.path.join(work, "quoted.csv"),
        "binary": os.path.join(work, "binary.csv"),
        "series": os.path.join(work, "series.csv"),
        "null": "/dev/null",
    }
    with open(files["empty"], "w"):
        pass
    with open(files["malformed"], "w") as f:
        f.write('series,x,y\n"open,1,2\nq,3,x4\n,,\n')
    with open(files["quoted"], "w") as f:
        f.write('"eigenvalue","multiplicity","e0_sq","xstar_sq","e0_xstar"\r\n'
                '"0.5","2","1","1","0.5"\r\n')
    with open(files["binary"], "wb") as f:
        f.write(bytes(range(256)) * 4)
    with open(files["series"], "w") as f:
        f.write('series,x,y,x_lo,x_hi,y_lo,y_hi\n"bound, G(mu)",0,1,,,,\n"bound, G(mu)",1,0,,,,\n'
                'estimate,0.5,0.4,,,0.3,0.5\n')
    return files


def output_paths(work, files):
    return ["/dev/full", os.path.join(work, "no", "such", "folder", "out.csv"), work,
            files["series"], files["quoted"], os.path.join(work, "out.csv")]


def flags_of(dpkit, path):
    """Long flags of a subcommand, from its --help."""
    out = subprocess.run([dpkit, *path, "--help"], capture_output=True, text=True,
                         timeout=30).stdout
    flags = set(re.findall(r"^\s+(?:-[a-z],)?(--[a-z][a-z0-9-]*)", out, re.M))
    flags.discard("--help")
    return sorted(flags)


def split_base(text, work):
    return shlex.split(text.format(work=work))


def mutate(rng, path, base, flags, files, work):
    args = list(base)
    kinds = ["value", "value", "value", "drop", "duplicate", "typo", "file", "output", "extra"]
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice(kinds)
        present = [i for i, a in enumerate(args) if a.startswith("--")]
        if kind == "value" and flags:
            flag = rng.choice(flags)
            value = rng.choice(HOSTILE_VALUES)
            if flag in args:
                i = args.index(flag)
                if i + 1 < len(args) and not args[i + 1].startswith("--"):
                    args[i + 1] = value
                else:
                    args.insert(i + 1, value)
            else:
                args += [flag, value]
        elif kind == "drop" and present:
            i = rng.choice(present)
            del args[i:i + 2 if i + 1 < len(args) and not args[i + 1].startswith("--") else i + 1]
        elif kind == "duplicate" and present:
            i = rng.choice(present)
            args += args[i:i + 2]
        elif kind == "typo" and flags:
            flag = rng.choice(flags)
            cut = rng.randrange(2, len(flag))
            args += [flag[:cut] + flag[cut + 1:], "1"]
        elif kind == "file":
            flag = rng.choice([f for f in flags if any(k in f for k in
                                                       ("file", "data", "spectrum", "shifts"))]
                              or ["--data"])
            args += [flag, rng.choice(list(files.values()))]
            if path == ("plot",):
                args[0] = rng.choice(list(files.values()))
        elif kind == "output":
            flag = rng.choice([f for f in ("--output", "--output-dir", "--samples", "--write-spectrum")
                               if f in flags] or ["--output"])
            args += [flag, rng.choice(output_paths(work, files))]
        else:
            args += [rng.choice(["--format", "--accountant", "--sampling", "--method",
                                 "--tier", "--setting"]),
                     rng.choice(["json", "csv", "all", "table", "bogus", ""])]
    if rng.random() < 0.3 and "--format" in flags:
        args += ["--format", "json"]
    return args


INTERNAL = re.compile(r"(internal error|\b[a-z]+(_[a-z0-9]+)+(::[a-z_]+)*(\([^)]*\))?: "
                      r"[a-z_]+ is )")
BOUND_KINDS = {"upper-bound", "lower-bound"}


# The cost estimate a long run prints before it gets under way (docs/cli.md, "Long runs"):
# "<what>: about <duration> for <work> (projected from ...)".
ANNOUNCED = re.compile(r": about [0-9.]+ (s|min|h)\b.* for .*\(projected from ")


def check(cmd, proc, timed_out):
    problems = []
    if timed_out:
        # Not a hang: a legitimately long run that said how long it would take, as every run
        # over ~30 s must. A silent one is a hang.
        if proc is not None and ANNOUNCED.search(proc.stderr or ""):
            return []
        return ["no answer within the timeout (a hang, or a long run without a cost estimate)"]
    rc = proc.returncode
    if rc < 0:
        return ["killed by signal %d" % -rc]
    if rc not in (0, 1, 2, 3):
        problems.append("exit code %d" % rc)
    err_lines = [l for l in proc.stderr.splitlines() if l.strip()]
    if rc in (1, 2):
        if len(err_lines) != 1:
            problems.append("%d stderr lines on exit %d" % (len(err_lines), rc))
    for line in err_lines:
        if INTERNAL.search(line):
            problems.append("internal name or error in: " + line[:200])
    if rc == 0 and proc.stdout.lstrip().startswith("{"):
        try:
            doc = json.loads(proc.stdout)
        except ValueError as e:
            return problems + ["JSON output does not parse: %s" % e]
        for row in doc.get("results", []):
            if not isinstance(row, dict) or row.get("kind") not in BOUND_KINDS:
                continue
            for key in ("epsilon", "delta", "epsilon_lower", "epsilon_upper", "delta_lower",
                        "delta_upper", "noise_multiplier"):
                v = row.get(key)
                if isinstance(v, float) and not math.isfinite(v):
                    problems.append("bound row with a non-finite %s" % key)
            if row.get("epsilon", 0) is None and row.get("delta", 0) is None:
                problems.append("bound row without a value")
    return problems


def run_one(dpkit, args, timeout, cwd):
    """Runs one invocation: (command, completed process, stopped early).

    A run whose stderr already holds its cost estimate (ANNOUNCED) is a legitimately long run
    that said so: it is stopped there, since waiting out the timeout would only burn the
    suite's time. A run that stays silent is stopped at the timeout, a hang."""
    cmd = [dpkit] + args
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        # In the work folder: a hostile value taken as a relative output path lands there.
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=cwd)
        start, stopped = time.monotonic(), False
        while True:
            try:
                proc.wait(timeout=0.05)
                break
            except subprocess.TimeoutExpired:
                pass
            err.seek(0)
            if (time.monotonic() - start > timeout
                    or ANNOUNCED.search(err.read().decode(errors="replace"))):
                proc.kill()
                proc.wait()
                stopped = True
                break
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        stderr = err.read().decode(errors="replace")
    return cmd, subprocess.CompletedProcess(cmd, -9 if stopped else proc.returncode, stdout,
                                            stderr), stopped


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dpkit")
    ap.add_argument("work")
    ap.add_argument("--count", type=int, default=2400)
    ap.add_argument("--bound-count", type=int, default=200)
    ap.add_argument("--audit-count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--verbose", action="store_true", help="also list the exit-1 invocations")
    a = ap.parse_args()
    a.dpkit = os.path.abspath(a.dpkit)
    a.work = os.path.abspath(a.work)
    shutil.rmtree(a.work, ignore_errors=True)
    files = make_files(a.work)
    rng = random.Random(a.seed)
    t0 = time.time()

    bases = {**BASES, **BOUND_BASES, **AUDIT_BASES}
    flags = {path: [f for f in flags_of(a.dpkit, path) if f not in EXCLUDED.get(path, set())]
             for path in bases}
    for path, base in bases.items():  # the bases must be valid, or mutations mean little
        args = list(path) + split_base(base, a.work)
        proc = subprocess.run([a.dpkit] + args, capture_output=True, text=True, timeout=120,
                              cwd=a.work)
        if proc.returncode != 0:
            sys.exit("base command failed (%d): dpkit %s\n%s" % (proc.returncode,
                                                                   " ".join(args), proc.stderr))

    paths = list(BASES)
    weights = [WEIGHTS.get(p, 1.0) for p in paths]
    jobs = []
    for _ in range(a.count):
        path = rng.choices(paths, weights)[0]
        base = split_base(BASES[path], a.work)
        jobs.append(list(path) + mutate(rng, path, base, flags[path], files, a.work))
    bound_rng = random.Random(a.seed + 1)
    for _ in range(a.bound_count):
        path = bound_rng.choice(list(BOUND_BASES))
        base = split_base(BOUND_BASES[path], a.work)
        jobs.append(list(path) + mutate(bound_rng, path, base, flags[path], files, a.work))

    audit_rng = random.Random(a.seed + 2)
    for _ in range(a.audit_count):
        path = audit_rng.choice(list(AUDIT_BASES))
        base = split_base(AUDIT_BASES[path], a.work)
        jobs.append(list(path) + mutate(audit_rng, path, base, flags[path], files, a.work))

    failures, codes = [], {}
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for cmd, proc, timed_out in pool.map(lambda j: run_one(a.dpkit, j, a.timeout, a.work),
                                             jobs):
            problems = check(cmd, proc, timed_out)
            rc = ("long, announced" if not problems else "timeout") if timed_out else proc.returncode
            codes[rc] = codes.get(rc, 0) + 1
            if a.verbose and rc == 1:
                print("exit 1: %s\n    %s" % (" ".join(shlex.quote(c) for c in cmd),
                                              proc.stderr.strip()[:300]))
            if problems:
                failures.append("%s\n    %s\n    stderr: %s" % (
                    " ".join(shlex.quote(c) for c in cmd), "; ".join(problems),
                    "" if proc is None else proc.stderr.strip()[:300]))
    summary = "fuzz_cli: %d invocations over %d subcommands in %.1f s; exit codes %s" % (
        len(jobs), len(bases), time.time() - t0,
        ", ".join("%s: %d" % (k, v) for k, v in sorted(codes.items(), key=str)))
    print(summary)
    if failures:
        print("%d failing invocation(s):" % len(failures))
        for f in failures[:60]:
            print("  " + f)
        sys.exit(1)


if __name__ == "__main__":
    main()
