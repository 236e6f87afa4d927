#!/usr/bin/env bash
# Runs softgrad's test suite (every doctest case, registered with CTest) on the build made by
# scripts/setup.sh. Cases in test_suite("slow") are left out; run them with `ctest -L slow`.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build build -j"$(nproc)"
ctest --test-dir build -LE slow --output-on-failure -j"$(nproc)"
