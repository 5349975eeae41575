#!/usr/bin/env python3
"""Runs every shell command and Python session of the README and docs/*.md as written, and
checks that what the page shows is what the build prints (CTest docs.commands).

A command is a line of a fenced code block whose language is console (lines starting with
"$ "; a line ending in a backslash continues on the next), or sh, bash or shell (every line that
is not a comment, run together as one script). Each command runs with bash in a scratch folder
that stands for the repository root (a copy of the tracked files; build/release, build/test and
build/ci hold the outputs of the build under test but not its build-system files; `dpkit` on
PATH is the program under test), the commands of one file in order, so that a command may use
what an earlier one of the same page wrote.

Shown output: in a console block, the lines after a command up to the next "$ " line or the end
of the block are what the command prints. They must equal its standard output (or its standard
error, or the two together, for examples of errors and notes), line by line, trailing spaces
aside — text exactly and numbers exactly. Two wildcards let a page show less:
  a line "..."            stands for any number of lines (an output cut short; it may be
                          indented);
  "..." inside a line     stands for any text within that line (a date, a path, digits beyond
                          those the page promises — say so next to the block).
A Python session (```python blocks with ">>> " lines; the blocks of one page run in order as one
doctest, ELLIPSIS on) is checked the same way, against build/<preset>/python.

Markers, as a trailing shell comment on the command:
  # long ...     not run here: longer than ~30 s, or it installs, rebuilds or rewrites
                 committed files (the docs say how long it takes)
  # exit N       the command must exit with N (an example of an error)
Any other command must exit 0 within --timeout seconds. Commands that use the Python package
(build/*/python, `import dpkit`, `-m pytest`) are counted apart, not run, when the build under
test has no Python extension (the asan preset); so are the Python sessions. A command that
still contains "..." as an argument or a <PLACEHOLDER> is reported as not runnable: write it out
in full.

--update rewrites each shown output that differs with what the build printed (keeping a cut
"..." line where the page had one) and each Python session's expected results: run it after a
change that moves a documented number, and review the diff.

usage: check_doc_commands.py REPO BUILD_DIR [--timeout S] [--list] [--only FILE] [--update]
"""
import argparse
import concurrent.futures
import difflib
import doctest
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

FENCE = re.compile(r"^(\s*)```\s*([A-Za-z0-9_+-]*)\s*$")
SHELL_LANGS = {"console", "sh", "bash", "shell"}


class Command:
    """A documented command: where it is, its text, and the output the page shows (the file's
    line numbers of those lines, 1-based; empty when the page shows none)."""

    def __init__(self, number, text, shown=None, shown_lines=None, block_end=None):
        self.number, self.text = number, text
        self.shown = shown or []
        self.shown_lines = shown_lines or []
        self.block_end = block_end  # console: the line after which output may be inserted


def blocks_of(lines):
    """(language, indent, first content line index, [(line number, text)]) of each fence."""
    out = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, lang = m.group(1), m.group(2).lower()
        j = i + 1
        block = []
        while j < len(lines) and not (FENCE.match(lines[j]) and lines[j].strip() == "```"):
            block.append((j + 1, lines[j][len(indent):] if lines[j].startswith(indent) else
                          lines[j].lstrip()))
            j += 1
        out.append((lang, indent, block))
        i = j + 1
    return out


def commands_of(path):
    """Every command of a markdown file, with the output each console command shows."""
    out = []
    lines = open(path, encoding="utf-8").read().split("\n")
    for lang, _, block in blocks_of(lines):
        if lang in ("sh", "bash", "shell"):
            # A script: its lines run together (loops span lines); a marker on any line
            # applies to the whole block.
            body = [text for _, text in block if text.strip()]
            if body:
                marks = " ".join(m.group(0) for t in body
                                 for m in [re.search(r"#\s*(long\b|exit\s+\d+).*$", t)] if m)
                out.append(Command(block[0][0], "\n".join(body) + ("  " + marks if marks else "")))
        elif lang == "console":
            k = 0
            while k < len(block):
                number, text = block[k]
                if not text.startswith("$ "):
                    k += 1
                    continue
                command = text[2:]
                while command.rstrip().endswith("\\") and k + 1 < len(block):
                    k += 1
                    command = command.rstrip()[:-1] + " " + block[k][1].strip()
                k += 1
                shown, shown_lines = [], []
                while k < len(block) and not block[k][1].startswith("$ "):
                    shown.append(block[k][1])
                    shown_lines.append(block[k][0])
                    k += 1
                last = shown_lines[-1] if shown_lines else (block[k - 1][0])
                out.append(Command(number, command.strip(), shown, shown_lines, last))
    return out


def markers(command):
    """(command without its trailing comment, long?, expected exit code)."""
    last = command.rstrip().split("\n")[-1]
    m = re.search(r"\s+#\s*(.*)$", last)
    comment = m.group(1) if m else ""
    bare = command if "\n" in command else (command[:m.start()] if m else command)
    long_ = bool(re.search(r"(^|\s)long\b", comment))
    e = re.search(r"\bexit\s+(\d+)", comment)
    return bare.strip(), long_, int(e.group(1)) if e else 0


def normalise(lines):
    """Trailing spaces and trailing empty lines removed."""
    out = [line.rstrip() for line in lines]
    while out and not out[-1]:
        out.pop()
    while out and not out[0]:
        out.pop(0)
    return out


def split_output(text):
    return normalise(text.split("\n")) if text.strip() else []


def line_matches(pattern, line):
    if "..." not in pattern:
        return pattern == line
    parts = [re.escape(p) for p in pattern.split("...")]
    return re.fullmatch(".*".join(parts), line) is not None


def lines_match(expected, actual):
    """expected (with the "..." wildcards) against actual, both normalised lists."""
    memo = {}

    def go(i, j):
        key = (i, j)
        if key in memo:
            return memo[key]
        if i == len(expected):
            r = j == len(actual)
        elif expected[i].strip() == "...":
            r = any(go(i + 1, k) for k in range(j, len(actual) + 1))
        else:
            r = j < len(actual) and line_matches(expected[i], actual[j]) and go(i + 1, j + 1)
        memo[key] = r
        return r

    return go(0, 0)


def candidates(stdout, stderr):
    """What a terminal may show: stdout, stderr, or both (in either order)."""
    o, e = split_output(stdout), split_output(stderr)
    return [o, e, o + e, e + o]


def regenerate(expected, actual):
    """The new shown output: the build's, cut again where the page had a lone "..." line."""
    lone = [k for k, line in enumerate(expected) if line.strip() == "..."]
    if lone:
        cut = lone[0]
        head, tail = cut, len(expected) - cut - 1
        if head + tail < len(actual):
            return actual[:head] + ["..."] + (actual[len(actual) - tail:] if tail else [])
    return actual


NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def keep_ellipses(want, got):
    """A Python result regenerated in the page's form: where the page cut a number short with
    "..." (0.786062142...), the new number is cut to as many characters."""
    cut = [m for m in re.finditer(r"([-+]?\d[\d.]*)\.\.\.", want)]
    if not cut:
        return got
    lengths = [len(m.group(1)) for m in cut]
    numbers = list(NUMBER.finditer(got))
    if len(numbers) != len(NUMBER.findall(want.replace("...", ""))):
        return got
    # The numbers of want in order; those cut short are the ones followed by "...".
    want_numbers = list(NUMBER.finditer(want))
    out, last, k = [], 0, 0
    for i, m in enumerate(numbers):
        out.append(got[last:m.start()])
        w = want_numbers[i] if i < len(want_numbers) else None
        if w is not None and want[w.end():w.end() + 3] == "..." and k < len(lengths):
            out.append(m.group(0)[:lengths[k]] + "...")
            k += 1
        else:
            out.append(m.group(0))
        last = m.end()
    out.append(got[last:])
    return "".join(out)


def best_candidate(expected, options):
    scored = [(difflib.SequenceMatcher(None, "\n".join(expected), "\n".join(c)).ratio(), i)
              for i, c in enumerate(options) if c]
    return options[max(scored)[1]] if scored else []


# Files of a build folder that a documented command must not reach through the scratch
# folder: a `cmake` run there would re-point the build under test at the scratch folder.
BUILD_SYSTEM_FILES = {"CMakeCache.txt", "CMakeFiles", "build.ninja", ".ninja_deps",
                      ".ninja_log", "cmake_install.cmake", "CTestTestfile.cmake", "Makefile"}


def scratch_root(repo, build):
    """A scratch repository root: a copy of the tracked files (so that a command that writes
    into the tree cannot change the checkout), build/{release,test,ci} standing for the build
    under test (its outputs linked in, never its build-system files), and a folder for PATH
    holding `dpkit`."""
    root = tempfile.mkdtemp(prefix="dpkit-doc-commands-")
    tracked = subprocess.run(["git", "-C", repo, "ls-files", "-z"], capture_output=True,
                             check=True).stdout.decode().split("\0")
    for rel in filter(None, tracked):
        src, dst = os.path.join(repo, rel), os.path.join(root, rel)
        if not os.path.lexists(src):
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(src, dst, follow_symlinks=False)
    for preset in ("release", "test", "ci"):
        folder = os.path.join(root, "build", preset)
        os.makedirs(folder)
        for name in os.listdir(build):
            if name not in BUILD_SYSTEM_FILES:
                os.symlink(os.path.join(build, name), os.path.join(folder, name))
    bindir = os.path.join(root, ".bin")
    os.makedirs(bindir)
    os.symlink(os.path.join(build, "tools", "dpkit", "dpkit"), os.path.join(bindir, "dpkit"))
    return root, bindir


# ---------------------------------------------------------------------------------------------
# Python sessions: the ">>> " blocks of a page, run in order as one doctest in a child process
# (the package under test on its path), reporting each example that differs.
SESSION_RUNNER = r"""
import doctest, json, sys
text, mapping = json.load(open(sys.argv[1]))
parser = doctest.DocTestParser()
test = parser.get_doctest(text, {"__name__": "__doc__"}, "page", "page", 0)
results = []
class Runner(doctest.DocTestRunner):
    def report_failure(self, out, test, example, got):
        results.append((example.lineno, len(example.source.rstrip("\n").split("\n")),
                        example.want, got, None))
    def report_unexpected_exception(self, out, test, example, exc_info):
        import traceback
        results.append((example.lineno, len(example.source.rstrip("\n").split("\n")),
                        example.want, "".join(traceback.format_exception_only(*exc_info[:2])),
                        "exception"))
runner = Runner(optionflags=doctest.ELLIPSIS)
runner.run(test, out=lambda s: None)
json.dump({"examples": len(test.examples), "failures": results}, open(sys.argv[2], "w"))
"""


def session_of(path):
    """(doctest text, [file line number of each text line]) of a page's ">>> " blocks."""
    lines = open(path, encoding="utf-8").read().split("\n")
    text, mapping = [], []
    for lang, _, block in blocks_of(lines):
        if lang != "python" or not any(t.startswith(">>> ") for _, t in block):
            continue
        for number, t in block:
            text.append(t)
            mapping.append(number)
        text.append("")
        mapping.append(None)
    return "\n".join(text), mapping


def run_session(path, root, env, timeout):
    """(examples, [(first want line, want lines, got lines, error)]) of a page's session."""
    import json
    text, mapping = session_of(path)
    if not text.strip():
        return 0, []
    work = tempfile.mkdtemp(prefix="dpkit-doc-session-")
    try:
        spec, result = os.path.join(work, "session.json"), os.path.join(work, "result.json")
        runner = os.path.join(work, "runner.py")
        json.dump([text, mapping], open(spec, "w"))
        open(runner, "w").write(SESSION_RUNNER)
        p = subprocess.run([sys.executable, runner, spec, result], cwd=root, env=env,
                           capture_output=True, text=True, timeout=timeout)
        if p.returncode != 0 or not os.path.exists(result):
            return 1, [(None, [], p.stderr.strip().splitlines()[-3:], "runner")]
        data = json.load(open(result))
        out = []
        for lineno, nsource, want, got, error in data["failures"]:
            first = mapping[lineno + nsource] if lineno + nsource < len(mapping) else None
            want_lines = want.rstrip("\n").split("\n") if want else []
            got_lines = got.rstrip("\n").split("\n") if got else []
            out.append((first, want_lines, got_lines, error))
        return data["examples"], out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def apply_edits(path, edits):
    """Replaces file lines: edits = [(first line, count, new lines)] (1-based; count 0 with
    first = the line after which to insert)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    for first, count, new in sorted(edits, key=lambda e: -e[0]):
        if count == 0:
            lines[first:first] = new
        else:
            lines[first - 1:first - 1 + count] = new
    open(path, "w", encoding="utf-8").write("\n".join(lines))


def check_file(rel, repo, build, args, has_python):
    """Runs one page's commands and Python session; its failures, counts and printed lines."""
    res = {"failures": [], "ran": 0, "skipped": 0, "total_time": 0.0, "compared": 0,
           "sessions": 0, "no_python": 0, "printed": []}
    failures = res["failures"]
    needs_python = re.compile(r"build/(release|test|ci)/python|import dpkit|-m pytest")
    path = os.path.join(repo, rel)
    cmds = commands_of(path)
    has_session = ">>> " in open(path, encoding="utf-8").read()
    if not cmds and not has_session:
        return res
    root, bindir = (None, None) if args.list else scratch_root(repo, build)
    env = dict(os.environ)
    if bindir:
        env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
        env["PYTHONPATH"] = os.path.join(build, "python") + (
            os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "")
    edits = []
    try:
        for cmd in cmds:
            bare, long_, expected = markers(cmd.text)
            where = f"{rel}:{cmd.number}"
            if args.list:
                res["printed"].append(f"{where}: {'[long] ' if long_ else ''}{bare}")
                continue
            if long_:
                res["skipped"] += 1
                continue
            if not has_python and needs_python.search(bare):
                res["no_python"] += 1
                continue
            if re.search(r"(^|\s)\.\.\.(\s|$)", bare) or re.search(r"<[A-Z_]+>", bare):
                failures.append(f"{where}: not runnable as written (a placeholder): {bare}")
                continue
            start = time.monotonic()
            try:
                p = subprocess.run(["bash", "-c", bare], cwd=root, env=env,
                                   capture_output=True, text=True, timeout=args.timeout)
                code, out, err = p.returncode, p.stdout, p.stderr
            except subprocess.TimeoutExpired:
                code, out, err = None, "", f"did not finish in {args.timeout:.0f} s (mark it # long)"
            seconds = time.monotonic() - start
            res["total_time"] += seconds
            res["ran"] += 1
            if code != expected:
                tail = " | ".join(err.strip().splitlines()[-3:])
                failures.append(f"{where}: exit {code} (expected {expected}) after "
                                f"{seconds:.1f} s: {bare}\n    {tail}")
                continue
            if seconds > 10:
                res["printed"].append(f"note: {where} took {seconds:.0f} s (consider # long): {bare}")
            shown = normalise(cmd.shown)
            if not shown:
                continue
            res["compared"] += 1
            options = candidates(out, err)
            if any(lines_match(shown, c) for c in options):
                continue
            actual = best_candidate(shown, options)
            if args.update:
                edits.append((cmd.shown_lines[0], len(cmd.shown_lines),
                              regenerate(shown, actual)))
                continue
            diff = "\n".join("      " + d for d in difflib.unified_diff(
                shown, actual, "shown", "printed", lineterm="", n=1))
            failures.append(f"{where}: the page shows another output than the build "
                            f"prints: {bare}\n{diff}")
        run_it = has_session and not args.list
        if run_it and not has_python:
            res["no_python"] += 1
            run_it = False
        examples, diffs = run_session(path, root, env, args.timeout * 5) if run_it else (0, [])
        res["sessions"] += examples
        for first, want, got, error in diffs:
            if error == "runner":
                failures.append(f"{rel}: the Python session did not run: {' | '.join(got)}")
                continue
            if args.update and error is None and first is not None:
                edits.append((first, len(want),
                              keep_ellipses("\n".join(want), "\n".join(got)).split("\n")))
                continue
            diff = "\n".join("      " + d for d in difflib.unified_diff(
                want, got, "shown", "printed", lineterm="", n=1))
            failures.append(f"{rel}:{first}: the Python session shows another result than "
                            f"the build gives{' (an exception)' if error else ''}\n{diff}")
    finally:
        if root:
            shutil.rmtree(root, ignore_errors=True)
    if edits:
        apply_edits(path, edits)
        res["printed"].append(f"updated {len(edits)} shown output(s) in {rel}")
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("repo")
    ap.add_argument("build")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--list", action="store_true", help="list the commands, run nothing")
    ap.add_argument("--only", help="one markdown file (relative to the repository)")
    ap.add_argument("--update", action="store_true",
                    help="rewrite the shown outputs that differ with the build's")
    args = ap.parse_args()
    repo, build = os.path.abspath(args.repo), os.path.abspath(args.build)
    files = ["README.md"] + sorted(os.path.join("docs", f) for f in os.listdir(
        os.path.join(repo, "docs")) if f.endswith(".md"))
    if args.only:
        files = [args.only]
    # A build without the Python extension (the asan preset leaves it out) cannot run the
    # commands that import the package: they are counted apart, not failed.
    has_python = os.path.isdir(os.path.join(build, "python", "dpkit"))
    # Pages are independent (each in its own scratch root, its commands in order): two at a time
    # (DPKIT_DOC_JOBS), one per core — the CTest test takes both cores, so no page shares its
    # core with anything else (some shown outputs are cost announcements that depend on time).
    jobs = 1 if args.list or args.update else max(1, int(os.environ.get("DPKIT_DOC_JOBS", "2")))
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(lambda rel: check_file(rel, repo, build, args, has_python), files))
    failures, ran, skipped, total_time, compared, sessions, no_python = [], 0, 0, 0.0, 0, 0, 0
    for r in results:
        for line in r["printed"]:
            print(line)
        failures += r["failures"]
        ran += r["ran"]
        skipped += r["skipped"]
        total_time += r["total_time"]
        compared += r["compared"]
        sessions += r["sessions"]
        no_python += r["no_python"]
    if args.list:
        return 0
    print(f"{ran} commands run in {total_time:.0f} s ({compared} shown outputs compared), "
          f"{sessions} Python examples, {skipped} marked long, "
          + (f"{no_python} not run (this build has no Python package), " if no_python else "")
          + f"{len(failures)} failed")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
