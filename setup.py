"""Build the Python package dpkit with CMake (the extension dpkit._dpkit, pybind11).

    python3 -m venv --system-site-packages .venv
    .venv/bin/pip install --no-build-isolation .

needs cmake, a C++20 compiler and the Debian packages tools/bootstrap.sh installs (pybind11-dev,
python3-dev, libeigen3-dev, libboost-dev, libgsl-dev, libfftw3-dev, librandom123-dev). No network.
The library is compiled in setuptools' build directory for the interpreter running pip (a few
minutes on 2 cores). DPKIT_BUILD_DIR=<an existing CMake build tree of this repository, e.g.
build/release> builds the extension target there instead (reusing the compiled library; the
interpreter must be the one that tree was configured for: Debian's python3 by default).
"""

import os
import pathlib
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


class CMakeExtension(Extension):
    def __init__(self, name: str) -> None:
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        target = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve()
        existing = os.environ.get("DPKIT_BUILD_DIR")
        if existing:
            build_dir = pathlib.Path(existing).resolve()
            if not (build_dir / "CMakeCache.txt").exists():
                raise RuntimeError(f"DPKIT_BUILD_DIR={existing}: no CMake build tree there")
        else:
            build_dir = pathlib.Path(self.build_temp).resolve() / "cmake"
            build_dir.mkdir(parents=True, exist_ok=True)
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            subprocess.run(
                ["cmake", "-S", str(ROOT), "-B", str(build_dir), *generator,
                 "-DCMAKE_BUILD_TYPE=Release", "-DDPKIT_BUILD_TESTS=OFF",
                 "-DDPKIT_BUILD_TOOLS=OFF", "-DDPKIT_BUILD_VALIDATION=OFF",
                 "-DDPKIT_BUILD_PYTHON=ON", f"-DPython3_EXECUTABLE={sys.executable}"],
                check=True)
        jobs = os.environ.get("DPKIT_JOBS", str(os.cpu_count() or 2))
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "dpkit_python",
                        "--parallel", jobs], check=True)
        built = sorted((build_dir / "python" / "dpkit").glob("_dpkit*.so"))
        if not built:
            raise RuntimeError(f"the extension was not found in {build_dir}/python/dpkit")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built[-1], target)


setup(
    package_dir={"": "python"},
    packages=["dpkit"],
    package_data={"dpkit": ["py.typed", "*.pyi"]},
    ext_modules=[CMakeExtension("dpkit._dpkit")],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
