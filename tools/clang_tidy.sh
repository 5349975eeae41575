#!/usr/bin/env bash
# Runs the committed .clang-tidy checks (Debian's clang-tidy-16) over the sources of lib/,
# tools/ (the program and the figure library) and python/src/ (the Python extension), using the
# compile database of a configured build (default: build/ci, as made by `cmake --preset ci`),
# and exits 1 on any finding located in dpkit's own files.
#
#   tools/clang_tidy.sh [BUILD_DIR]          (DPKIT_JOBS sets the parallelism)
#
# Findings located inside third-party headers are listed but do not fail the run: the
# path-sensitive analyzer reports Eigen's matrix-vector kernels (GeneralMatrixVector.h,
# GenericPacketMath.h, GeneralProduct.h) as reading "garbage" when entered from a plain GEMV
# (lib/src/learners/mlp.cpp, hidden_norms) — false positives that NOLINT at the call site cannot
# silence, and that ASan + UBSan (the asan preset) do not reproduce.
#
# Installs clang-tidy-16 with apt-get when it is missing (root or sudo).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-$root/build/ci}" && pwd)"
jobs="${DPKIT_JOBS:-$(nproc)}"
if ! command -v run-clang-tidy-16 >/dev/null 2>&1; then
  sudo=(); [[ $(id -u) -eq 0 ]] || sudo=(sudo)
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends clang-tidy-16
fi
if [[ ! -f "$build/compile_commands.json" ]]; then
  echo "clang_tidy.sh: no compile database in $build (run: cmake --preset ci)" >&2
  exit 2
fi
# The build is GCC's: drop its -Werror and its warning flags clang does not know, and give
# clang GCC's omp.h (alone in a folder, so that no other GCC header shadows clang's own).
omp_dir="$build/clang-tidy-include"
mkdir -p "$omp_dir"
ln -sf "$(gcc -print-file-name=include/omp.h)" "$omp_dir/omp.h"
# Precompiled headers (DPKIT_PRECOMPILED_HEADERS) are GCC's .gch files, which clang cannot read:
# the compile commands get a copy of each target's cmake_pch.hxx (the same #includes) from a
# folder without the .gch beside it, so clang parses the headers instead.
db="$build/clang-tidy-db"
mkdir -p "$db/pch"
python3 - "$build/compile_commands.json" "$db" <<'PY'
import hashlib, json, os, re, shutil, sys
source, db = sys.argv[1], sys.argv[2]
commands = json.load(open(source))
def copy(match):
    header = match.group(1)
    target = os.path.join(db, "pch", hashlib.sha1(header.encode()).hexdigest()[:16] + ".hxx")
    shutil.copyfile(header, target)
    return "-include " + target
# A unity build (DPKIT_UNITY_BUILD) lists its batch files (Unity/unity_N_cxx.cxx), not the
# sources: each batch's entry is replaced by one entry per source it includes, same flags.
def sources(c):
    if not re.search(r"/Unity/unity_\d+_cxx\.cxx$", c["file"]):
        return [c]
    files = re.findall(r'^#include "([^"]+)"', open(c["file"]).read(), re.M)
    return [dict(c, file=f, command=c["command"].replace(c["file"], f)) for f in files]
expanded = []
for c in commands:
    c["command"] = re.sub(r"-include (\S*cmake_pch\.hxx)", copy, c["command"])
    expanded.extend(sources(c))
json.dump(expanded, open(os.path.join(db, "compile_commands.json"), "w"), indent=1)
PY
log="$build/clang-tidy.log"
run-clang-tidy-16 -quiet -p "$db" -j "$jobs" \
  -extra-arg=-Wno-error -extra-arg=-Wno-unknown-warning-option -extra-arg=-isystem"$omp_dir" \
  "$root/lib/src/.*\.cpp$" "$root/tools/dpkit/[^/]*\.cpp$" "$root/tools/figure/[^/]*\.cpp$" \
  "$root/python/src/[^/]*\.cpp$" > "$log" 2>&1 || true
own=$(grep -E "^$root/(lib|tools|validation|python)/[^:]+:[0-9]+:[0-9]+: (warning|error):" "$log" | sort -u || true)
other=$(grep -E "^/[^:]+:[0-9]+:[0-9]+: (warning|error):" "$log" | grep -v "^$root/" | sort -u || true)
files=$(grep -c "^clang-tidy-16 " "$log" || true)
if [[ -n "$other" ]]; then
  echo "clang_tidy.sh: findings inside third-party headers (not dpkit's code; see the header of this script):"
  echo "$other" | sed 's/^/  /'
fi
if [[ -n "$own" ]]; then
  echo "clang_tidy.sh: $(echo "$own" | wc -l) finding(s) in dpkit's code ($files files checked; full log: $log):"
  echo "$own"
  exit 1
fi
echo "clang_tidy.sh: no findings in dpkit's code ($files files checked; full log: $log)"
