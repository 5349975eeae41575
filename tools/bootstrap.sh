#!/usr/bin/env bash
# dpkit set-up in one command (Debian bookworm; run as root, or with sudo available).
#
#   tools/bootstrap.sh demo   install what is missing (the build's packages only), build dpkit
#                             and the Python package (release preset), make `import dpkit`
#                             work, put `dpkit` on PATH, run `dpkit demo`
#   tools/bootstrap.sh test   install what is missing, build with tests, make `import dpkit`
#                             work, put `dpkit` on PATH, run the whole suite (ctest, pytest
#                             included)
#
# The last line says where `dpkit` is: a link in /usr/local/bin (root) or ~/.local/bin.
#
# `import dpkit`: the build assembles the Python package in build/<preset>/python; a dpkit.pth
# file in Debian's python3 site directory (/usr/local/lib/python3.X/dist-packages as root, the
# user site otherwise) puts it on sys.path. Where `python3` on PATH is another CPython of the
# same version (pyenv), a dpkit.pth in its site directory adds the package and Debian's
# dist-packages (numpy) to it too. `pip install .` is the alternative (docs/python.md).
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

# The Debian packages of docs/architecture.md ("Dependencies"), as each mode needs them.
# demo: what building dpkit and the Python package needs (compiler, CMake, the libraries the
# modules and the program use, pybind11 and numpy for `import dpkit`).
packages=(
  cmake ninja-build g++ git
  libeigen3-dev libboost-dev libgsl-dev libfftw3-dev librandom123-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev zlib1g-dev
  python3-dev pybind11-dev python3-numpy
)
# test: also Catch2, OpenMPI (the 2-rank check; `mpirun dpkit ...`), gnuplot (figures), Google
# Benchmark, mpmath (reference generators and Python tests), pytest, pkg-config (the install
# test), venv/wheel/setuptools (`pip install .`), and PyTorch with the Fashion-MNIST dataset for
# the smoke test of examples/fashion_mnist_dpsgd.py. A demo set-up gets MPI and figures by
# installing libopenmpi-dev openmpi-bin gnuplot-nox and running the demo command again.
if [[ "$mode" == test ]]; then
  packages+=(catch2 libopenmpi-dev openmpi-bin gnuplot-nox libbenchmark-dev python3-mpmath
             pkgconf python3-pytest python3-venv python3-wheel python3-setuptools
             python3-torch dataset-fashion-mnist)
fi

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

# Puts build/<preset>/python on the path of Debian's python3 (and of a same-version python3
# earlier in PATH) with a dpkit.pth file, so that `python3 -c "import dpkit"` works.
link_python_package() {
  local pkg="$root/build/$1/python"
  local debian=/usr/bin/python3 site
  if [[ $(id -u) -eq 0 ]]; then
    site=$("$debian" -c 'import site; print(site.getsitepackages()[0])')
  else
    site=$("$debian" -m site --user-site)
  fi
  mkdir -p "$site"
  printf '%s\n' "$pkg" > "$site/dpkit.pth"
  echo "bootstrap: import dpkit: $site/dpkit.pth -> $pkg" >&2
  local other
  other=$(command -v python3 || true)
  if [[ -n "$other" && "$other" != "$debian" ]] && ! "$other" -c 'import dpkit' 2>/dev/null; then
    local same
    same=$("$other" -c 'import sys, sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2>/dev/null || true)
    if [[ "$same" == "$("$debian" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')" ]]; then
      local osite
      osite=$("$other" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
      if mkdir -p "$osite" 2>/dev/null && printf '%s\n%s\n' "$pkg" /usr/lib/python3/dist-packages > "$osite/dpkit.pth" 2>/dev/null; then
        echo "bootstrap: import dpkit: also for $other ($osite/dpkit.pth)" >&2
      fi
    else
      echo "bootstrap: note: $other is not ABI-compatible with Debian's python3; use /usr/bin/python3 (or pip install . into a venv of it)" >&2
    fi
  fi
}

# Puts `dpkit` on PATH: a link to build/<preset>/tools/dpkit/dpkit in /usr/local/bin (root) or
# ~/.local/bin (a user; Debian's ~/.profile puts it on PATH at login where it exists). A file
# there that is not a link is left alone. Sets path_line, the set-up's last line.
path_line=""
link_program() {
  local exe="$root/build/$1/tools/dpkit/dpkit" dir
  if [[ $(id -u) -eq 0 ]]; then dir=/usr/local/bin; else dir="$HOME/.local/bin"; fi
  if [[ -e "$dir/dpkit" && ! -L "$dir/dpkit" ]]; then
    path_line="bootstrap: $dir/dpkit exists and is not a link: left alone; the program is $exe"
    return
  fi
  mkdir -p "$dir"
  ln -sfn "$exe" "$dir/dpkit"
  local found
  found=$(command -v dpkit || true)
  if [[ "$found" == "$dir/dpkit" ]]; then
    path_line="bootstrap: dpkit is on your PATH: $dir/dpkit -> $exe (try: dpkit epsilon --help)"
  else
    path_line="bootstrap: dpkit is linked as $dir/dpkit -> $exe; $dir is not on this shell's PATH: export PATH=\"$dir:\$PATH\" (or log in again)"
  fi
}

if [[ "$mode" == demo ]]; then
  # The release build preset builds dpkit and the Python package only; the validation
  # scenarios (dpkit-validate) are built when asked for (`dpkit validate` says how).
  cmake --preset release
  cmake --build --preset release "${jobs[@]}"
  link_python_package release
  link_program release
  build/release/tools/dpkit/dpkit demo
  echo "$path_line"
  exit 0
fi

preset=test
if [[ -n "${CI:-}" ]]; then preset=ci; fi
cmake --preset "$preset"
cmake --build --preset "$preset" "${jobs[@]}"
link_python_package "$preset"
link_program "$preset"
status=0
# Tests run side by side, one per core (DPKIT_JOBS to change): the multi-threaded ones declare
# PROCESSORS 2 (the domain sweep, the quick tier and its self-check, the CLI fuzz) and the ones
# whose output depends on timing run alone (docs.commands), so none is squeezed; serially they
# took 13 min 26 s of a 28 min 44 s CI run on 2 cores (2026-11-26).
ctest --preset "$preset" --parallel "${DPKIT_JOBS:-$(nproc)}" || status=$?
echo "$path_line"
exit "$status"
