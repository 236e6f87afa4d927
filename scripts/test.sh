#!/usr/bin/env bash
# Runs softgrad's test suite: every doctest case (registered with CTest) and the Python tests
# (pytest, through CTest). It installs the Debian packages only the tests need, then builds the
# tests, examples and plugins in ./build, the folder scripts/setup.sh built the library in (the
# library is not compiled again). Cases in test_suite("slow") are left out; run them with
# `ctest --test-dir build -L slow`.
set -euo pipefail
cd "$(dirname "$0")/.."

# doctest-dev: the C++ test framework; libgmp-dev: exact rationals for the contact tests'
# intersection checks; PyTorch, SciPy and pytest for the Python layer's tests; VTK to check that
# the frames open in it as they do in ParaView (tests/python/test_vtu_frames.py); tqdm for the
# progress bars of the Python layer (tests/python/test_api.py).
packages=(cmake g++ make doctest-dev libgmp-dev python3-pytest python3-torch python3-scipy
          python3-vtk9 python3-tqdm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

args=(-DSOFTGRAD_BUILD_TESTS=ON -DSOFTGRAD_BUILD_EXAMPLES=ON)
[ -f build/CMakeCache.txt ] || args+=(-DCMAKE_BUILD_TYPE=Release -DSOFTGRAD_WARNINGS_AS_ERRORS=ON)
cmake -S . -B build "${args[@]}" >/dev/null
cmake --build build -j"$(nproc)"
ctest --test-dir build -LE slow --output-on-failure -j"$(nproc)"
