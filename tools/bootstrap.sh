#!/usr/bin/env bash
# dpkit set-up in one command (Debian bookworm; run as root, or with sudo available).
#
#   tools/bootstrap.sh demo   install what is missing, build the release preset, run `dpkit demo`
#   tools/bootstrap.sh test   install what is missing, build with tests, run the whole suite (ctest)
#
# Only packages that are not installed yet are installed (apt-get). With CI set in the
# environment, the test build uses the `ci` preset (-Werror). Set DPKIT_JOBS to limit the
# build's parallelism.
set -euo pipefail

mode="${1:-}"
case "$mode" in
  demo|test) ;;
  *) echo "usage: $0 demo|test" >&2; exit 2 ;;
esac

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# The Debian packages of DESIGN.md ("Dependencies").
packages=(
  cmake ninja-build g++ git
  libeigen3-dev libboost-dev libgsl-dev
  catch2 libcli11-dev nlohmann-json3-dev libfmt-dev libtoml11-dev
  libfftw3-dev librandom123-dev
  libopenmpi-dev openmpi-bin
  gnuplot-nox libbenchmark-dev python3-mpmath python3-numpy
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "bootstrap: installing ${#missing[@]} missing package(s): ${missing[*]}" >&2
  if [[ $(id -u) -eq 0 ]]; then
    sudo=()
  elif command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
  else
    echo "bootstrap: need root (or sudo) to install: ${missing[*]}" >&2
    exit 2
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "bootstrap: all ${#packages[@]} Debian packages are present" >&2
fi

jobs=()
if [[ -n "${DPKIT_JOBS:-}" ]]; then jobs=(--parallel "$DPKIT_JOBS"); fi

if [[ "$mode" == demo ]]; then
  cmake --preset release
  cmake --build --preset release "${jobs[@]}"
  exec build/release/tools/dpkit/dpkit demo
fi

preset=test
if [[ -n "${CI:-}" ]]; then preset=ci; fi
cmake --preset "$preset"
cmake --build --preset "$preset" "${jobs[@]}"
ctest --preset "$preset" "${jobs[@]}"
