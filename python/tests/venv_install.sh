#!/usr/bin/env bash
# CTest python.venv_pip_install: the package installs the way a Python user expects, offline,
# into a virtual environment with Debian's setuptools:
#   python3 -m venv --system-site-packages V && V/bin/pip install --no-build-isolation .
# DPKIT_BUILD_DIR reuses the already-compiled library of this build tree (a fresh pip install
# compiles it again in setuptools' build directory: minutes). Usage: venv_install.sh SRC BUILD
set -euo pipefail
src="$1"
build="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# A copy of the sources: pip's in-tree build writes build/ and an egg-info next to them.
mkdir "$tmp/src"
tar -C "$src" --exclude=./build --exclude=./.git --exclude='*.egg-info' -cf - . | tar -C "$tmp/src" -xf -
/usr/bin/python3 -m venv --system-site-packages "$tmp/venv"
DPKIT_BUILD_DIR="$build" "$tmp/venv/bin/pip" install --quiet --no-build-isolation --no-index \
  --no-deps "$tmp/src"
cd "$tmp"
env -u PYTHONPATH "$tmp/venv/bin/python" - "$tmp/venv" <<'PY'
import sys
import dpkit
venv = sys.argv[1]
assert dpkit.__file__.startswith(venv), f"imported {dpkit.__file__}, not the venv's copy"
r = dpkit.epsilon(1e-5, noise_multiplier=1.0, sample_rate=0.01, steps=10000)
assert 6.18 < r.lower <= r.upper < 6.19, r
print("venv install:", dpkit.__file__, r)
PY
