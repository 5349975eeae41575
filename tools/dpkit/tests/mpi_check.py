#!/usr/bin/env python3
"""The 2-rank MPI check of dpkit (CTest cli.mpi_two_ranks; built only with DPKIT_WITH_MPI=ON).

Runs `dpkit validate` and `dpkit simulate` once as a single process and once under
`mpirun -np 2`, and requires identical results: the per-scenario JSON files byte for byte, and
the `results` of the simulate JSON value for value. Also checks that the MPI run really used two
ranks (context.parameters.mpi_ranks), so the test cannot pass by running twice on one rank.

By default `validate` runs one scenario per Monte Carlo engine (SUBSET below: the privacy
auditor, NoisyGD/CGD/SGD, LMC, DP-lambda-CGD, the GLM, MLP, long-tail and KAN learners, HSGD and
SGD risk), which exercises every way replicates are sharded in about 30 s; `--all` runs every
scenario (about 6 minutes on 2 cores, which is why CTest does not).

With `--single DIR`, the single-process results are the per-scenario JSON files already in DIR
(CTest passes validation.scenarios_quick's output directory, a fixture it runs first: the same
quick tier, seed and scenarios, so the same bytes; results do not depend on the thread count),
and only the 2-rank run is made. A scenario whose file is missing there is an error.

usage: mpi_check.py DPKIT MPIEXEC WORKDIR [--all] [--single DIR]
"""
import json
import pathlib
import shutil
import subprocess
import sys


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"FAILED ({p.returncode}): {' '.join(cmd)}\n{p.stdout}\n{p.stderr}")
    return p.stdout


SUBSET = ["gdp-gaussian-1d", "bsa24-thm4.2-tight", "bsa24-fig8-noisy-cgd", "bsa24-cor5.2-lmc-logistic",
          "bsa24-thm4.9-logistic", "wsk26-correlated-privacy-mc", "wsk26-lemmaB6-B7-random-kan",
          "swx23-thm4-alg5-rate", "swx23-alg10-steps-ushape", "zxd26-thm3-tail-L", "lksp25-risk-hsgd",
          "lksp25-risk-sgd"]


def main():
    dpkit, mpiexec, work = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
    rest = sys.argv[4:]
    which = ["--all"] if "--all" in rest else SUBSET
    given = None
    if "--single" in rest:
        i = rest.index("--single")
        if i + 1 >= len(rest):
            sys.exit("mpi_check.py: --single needs a directory")
        given = pathlib.Path(rest[i + 1])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    # In containers the shared-memory transport's single-copy mode (CMA) needs ptrace rights
    # it often lacks; plain copies are fine for this size.
    mpi = [mpiexec, "--oversubscribe", "--allow-run-as-root", "-np", "2",
           "--mca", "btl_vader_single_copy_mechanism", "none"]
    failures = []

    # 1. validate: the scenarios, JSON files byte-identical.
    single, ranks2 = work / "single", work / "ranks2"
    if given is None:
        run([dpkit, "validate"] + which + ["--no-figures", "--threads", "2", "--output-dir", str(single)])
    else:
        single.mkdir()
        names = [p.name for p in given.glob("*.json")] if which is not SUBSET else \
            [f"{name}.json" for name in SUBSET]
        for name in names:
            if not (given / name).exists():
                sys.exit(f"mpi_check.py: {given / name} is missing (run validation.scenarios_quick)")
            shutil.copyfile(given / name, single / name)
    board = json.loads(run(mpi + [dpkit, "validate"] + which +
                           ["--no-figures", "--threads", "1", "--format", "json",
                            "--output-dir", str(ranks2)]))
    if board["context"]["parameters"].get("mpi_ranks") != 2:
        failures.append(f"validate under mpirun ran on {board['context']['parameters'].get('mpi_ranks')} rank(s), not 2")
    files = sorted(single.glob("*.json"))
    if not files or (which is SUBSET and len(files) != len(SUBSET)):
        failures.append(f"validate wrote {len(files)} JSON files")
    for f in files:
        other = ranks2 / f.name
        if not other.exists() or other.read_bytes() != f.read_bytes():
            failures.append(f"{f.name}: 2-rank result differs from the single-process one")

    # 2. simulate: a pair of runs on D and D' with trajectory records; results identical.
    args = ["simulate", "--algorithm", "sgd", "--batch-size", "5", "--dataset-size", "40",
            "--dimension", "5", "--noise-std", "0.3", "--steps", "60", "--record-every", "20",
            "--neighbour", "replace-one", "--index", "3", "--replicates", "1000",
            "--format", "json"]
    a = json.loads(run([dpkit] + args + ["--threads", "2"]))
    b = json.loads(run(mpi + [dpkit] + args + ["--threads", "1"]))
    if b["context"]["parameters"].get("mpi_ranks") != 2:
        failures.append("simulate under mpirun did not use 2 ranks")
    if a["results"] != b["results"]:
        failures.append("simulate: 2-rank results differ from the single-process ones")

    if failures:
        sys.exit("\n".join(failures))
    print(f"mpi_check: {len(files)} validate results and {len(a['results'])} simulate rows "
          "identical on 1 process and 2 MPI ranks")


if __name__ == "__main__":
    main()
