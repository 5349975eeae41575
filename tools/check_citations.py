#!/usr/bin/env python3
"""CTest docs.citations: user-facing text cites the papers by key, never by internal filing name.

dpkit cites the five papers it implements, and every other work, through the keys of
docs/references.md (e.g. "BSA24 Thm 4.5"). This check fails if

  * a file of the documentation (docs/, the READMEs, CITATION.cff, the figures' gnuplot scripts
    and SVGs) or a source of user-facing strings (lib/, tools/dpkit/, validation/, python/,
    examples/, data/generators/, CMake files) names a paper by an internal filing number
    ("seed 002", "Spec 004 §2.4", also split over a line break), cites an internal digest
    ("numerics-anchors", a digest file name) or cites DESIGN.md, which is not in the
    repository (docs/architecture.md is);
  * the program prints such a name: `dpkit --help`, every subcommand's and sub-subcommand's
    --help, `dpkit validate --list`, `dpkit bound --list` and a few computations.

Usage: check_citations.py SOURCE_DIR [DPKIT_EXECUTABLE]. Without the executable only the files
are checked. Tests (lib/tests, tools/dpkit/tests, python/tests) are not scanned: they may
assert that these names are absent.
"""
import json
import pathlib
import re
import subprocess
import sys

# "seed 002", "Spec 004", "seeds 000", "SEED 004", and the same split over a line break with a
# comment marker or a string-literal break in between ("seed "\n  "004").
FILING = re.compile(r'(?i)\b(seed|spec)s?(?:[\s"*#/])*00[0-4](?![0-9])')
INTERNAL = [
    (re.compile(r"DESIGN\.md"), "DESIGN.md (not in the repository; cite docs/architecture.md)"),
    (re.compile(r"(?i)numerics-anchors|accountants-peers"), "an internal digest"),
    (re.compile(r"\b00[0-4]-[a-z]+(-[a-z]+)*\.md\b"), "an internal digest file"),
    (re.compile(r"(?i)\bspec(\s+itself)?\s*§"), "a section of an internal digest ('spec §')"),
]
OUTPUT_FORBIDDEN = re.compile(r"(?i)seed 00[0-4]|spec 00[0-4]|DESIGN\.md|numerics-anchors|spec §")

DOC_GLOBS = ["docs/**/*.md", "README.md", "*/README.md", "data/*/README.md", "CITATION.cff",
             "docs/figures/*.gp", "docs/figures/*.svg", "docs/figures/*.sh", "docs/figures/*.py"]
SOURCE_GLOBS = ["lib/include/**/*.hpp", "lib/src/**/*.cpp", "lib/src/**/*.hpp",
                "tools/dpkit/*.cpp", "tools/dpkit/*.hpp", "tools/*.sh",
                "validation/**/*.cpp", "validation/**/*.hpp", "validation/**/*.py",
                "python/dpkit/*.py", "python/src/*.cpp", "python/src/*.hpp",
                "examples/*.py", "data/generators/*.py", "data/reference/*.csv",
                "CMakeLists.txt", "**/CMakeLists.txt", "cmake/*.cmake", "cmake/*.in"]


def self_test():
    """The patterns must catch what they are meant to catch (and not random seeds)."""
    bad = ["seed 002 Thm 4.5", "Seed 004 §5", "spec 004 §2.4", "(spec 000 6.4)", "seeds 001",
           "SEED 004 PRINTS", 'the seed "\n      "004 section 5', "spec 002\n// §9", "seed004_design"]
    good = ["--seed 2026", "seed = 2", "random seed 7", "spectrum", "seed-design",
            "bsa24-thm4.2-tight", "seeds 2026 and 1"]
    for s in bad:
        assert FILING.search(s), s
    for s in good:
        assert not FILING.search(s), s
    assert INTERNAL[0][0].search("see DESIGN.md")
    assert INTERNAL[3][0].search("(spec §11 item 3)")
    assert OUTPUT_FORBIDDEN.search("solver: ode-lift dopri5 (spec 004 §2.4)")


def scan_files(root):
    problems = []
    seen = set()
    for pattern in DOC_GLOBS + SOURCE_GLOBS:
        for path in sorted(root.glob(pattern)):
            rel = path.relative_to(root).as_posix()
            if rel in seen or not path.is_file() or rel.startswith(("build/", ".git/")):
                continue
            if "/tests/" in "/" + rel or rel == "tools/check_citations.py":
                continue
            seen.add(rel)
            text = path.read_text(encoding="utf-8", errors="replace")
            for m in FILING.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                problems.append(f"{rel}:{line}: internal filing name {m.group(0)!r}")
            for regex, what in INTERNAL:
                for m in regex.finditer(text):
                    line = text.count("\n", 0, m.start()) + 1
                    problems.append(f"{rel}:{line}: {what}: {m.group(0)!r}")
    if len(seen) < 100:
        problems.append(f"only {len(seen)} files scanned: the globs no longer match the tree")
    return problems, len(seen)


def run(dpkit, args):
    p = subprocess.run([dpkit] + args, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout + p.stderr


def subcommands(help_text):
    """Names listed under 'Subcommands:' in CLI11's help."""
    names, inside = [], False
    for line in help_text.splitlines():
        if line.strip().lower().startswith("subcommands:"):
            inside = True
            continue
        if inside:
            m = re.match(r"\s+(\S+)\s", line + " ")
            if not line.strip():
                if names:
                    break
                continue
            if m and line.startswith("  "):
                names.append(m.group(1))
            else:
                break
    return names


def scan_program(dpkit):
    problems = []
    outputs = {}

    def check(args, want_zero=True):
        code, out = run(dpkit, args)
        key = "dpkit " + " ".join(args)
        outputs[key] = out
        if want_zero and code != 0:
            problems.append(f"{key}: exit code {code}")
        for m in OUTPUT_FORBIDDEN.finditer(out):
            problems.append(f"{key}: prints {m.group(0)!r}")
        return out

    top = check(["--help"])
    subs = subcommands(top)
    expected = {"epsilon", "delta", "calibrate", "correlated", "tradeoff", "demo", "shifted",
                "hsgd", "bound", "simulate", "validate", "plot"}
    if not expected <= set(subs):
        problems.append(f"dpkit --help lists {subs}, expected at least {sorted(expected)}")
    for sub in subs:
        out = check([sub, "--help"])
        for nested in subcommands(out):
            check([sub, nested, "--help"])
    check(["validate", "--list"])
    check(["validate", "--list", "--format", "csv"])
    bounds = check(["bound", "--list", "--format", "json"])
    check(["bound", "--list"])
    try:
        for row in json.loads(bounds)["results"]:
            check(["bound", row["bound"], "--help"])
    except (ValueError, KeyError) as e:
        problems.append(f"dpkit bound --list --format json: unreadable ({e})")
    # Computations whose notes and sources cite papers.
    check(["shifted", "noisy-gd", "--sensitivity", "1", "--dataset-size", "1", "--noise-std", "1",
           "--contraction", "0.95", "--steps", "100"])
    check(["shifted", "noisy-cgd", "--sensitivity", "2", "--batch-size", "10",
           "--batches-per-epoch", "20", "--noise-std", "1", "--contraction", "0.99", "--epochs", "5",
           "--learning-rate", "0.1"])
    check(["shifted", "noisy-sgd", "--sensitivity", "1", "--dataset-size", "1000", "--batch-size", "100",
           "--noise-std", "0.5", "--learning-rate", "0.5", "--contraction", "0.9", "--steps", "200",
           "--format", "json"])
    check(["shifted", "lmc", "--sensitivity", "2", "--strong-convexity", "1",
           "--learning-rate", "0.1"])
    check(["hsgd", "risk", "--spectrum", "paper-design", "--dimension", "200", "--ridge", "0.1",
           "--label-noise", "1e-5", "--noise-std", "1.5", "--learning-rate", "50", "--horizon",
           "1.5", "--points", "4"])
    check(["hsgd", "risk", "--spectrum", "isotropic:1", "--dimension", "100", "--noise-std", "1",
           "--learning-rate", "1", "--times", "1,10", "--solver", "trapezoid", "--format",
           "json"])
    check(["hsgd", "privacy", "--spectrum", "paper-code", "--dimension", "50", "--dataset-size", "75",
           "--noise-std", "1", "--orders", "2", "--pairs", "extreme:3", "--times", "0.5,1.5"])
    check(["correlated", "--correlation", "0.5", "--sampling-rate", "0.1", "--steps", "100",
           "--epsilon", "1", "--delta", "1e-5"])
    check(["correlated", "--correlation", "0", "--sampling-rate", "0.1", "--steps", "100",
           "--epsilon", "1", "--delta", "1e-5", "--format", "json"])
    check(["bound", "mlp-thm13", "--format", "csv"])
    check(["bound", "kan-thm4.1", "--kappa", "2", "--lambda", "0.9", "--format", "json"])
    check(["bound", "longtail-thm3-tail", "--class-counts", "50,50,5", "--class", "2",
           "--tail-threshold", "3"])
    check(["bound", "nonconvex-thm1-phase-sum", "--format", "json"])
    check(["epsilon", "--noise-multiplier", "1", "--sampling-rate", "0.01", "--steps", "1000",
           "--delta", "1e-5", "--accountant", "all"])
    # The ids of dpkit 0.1 still resolve (quietly) to the renamed scenarios.
    out = check(["validate", "--list", "--format", "json"])
    if re.search(r'"id":\s*"00[0-4]-', out):
        problems.append("dpkit validate --list shows an id of dpkit 0.1")
    return problems, len(outputs)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    self_test()
    root = pathlib.Path(sys.argv[1]).resolve()
    problems, files = scan_files(root)
    runs = 0
    if len(sys.argv) > 2:
        more, runs = scan_program(sys.argv[2])
        problems += more
    for p in problems:
        print(p)
    print(f"check_citations: {len(problems)} problem(s); {files} files scanned, {runs} program runs")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
