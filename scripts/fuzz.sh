#!/usr/bin/env bash
# Fuzzes the mesh readers (TetGen, Gmsh, surfaces) with libFuzzer (clang, ASan + UBSan): each
# target runs for SECONDS (default 60) from its seed corpus and regression inputs, all at once.
# An input that crashes, leaks, runs out of memory (> 2 GB: a reader trusting a count) or hangs
# (> 10 s) is copied into tests/fuzz/regression/<target>/, which every test run then replays:
# commit it with the fix. Usage: bash scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
cmake -S tests/fuzz/libfuzzer -B build-fuzz -DCMAKE_CXX_COMPILER=clang++-14 >/dev/null
cmake --build build-fuzz -j"$(nproc)" >/dev/null
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
pids=()
targets=(tetgen gmsh surface)
for target in "${targets[@]}"; do
  mkdir -p "$work/$target/corpus" "$work/$target/artifacts"
  (cd "$work/$target" && "$OLDPWD/build-fuzz/fuzz_$target" corpus "$OLDPWD/tests/fuzz/corpus/$target" \
      "$OLDPWD/tests/fuzz/regression/$target" -max_total_time="$seconds" -max_len=4096 \
      -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 -print_final_stats=1 \
      -artifact_prefix=artifacts/ >log.txt 2>&1) &
  pids+=($!)
done
failed=0
for i in "${!pids[@]}"; do
  target="${targets[$i]}"
  if wait "${pids[$i]}"; then
    echo "fuzz_$target: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$work/$target/log.txt" | grep -o '[0-9]*$') inputs in ${seconds} s, no finding"
  else
    failed=1
    echo "fuzz_$target: FOUND A PROBLEM:" >&2
    tail -n 40 "$work/$target/log.txt" >&2
    cp "$work/$target/artifacts/"* "tests/fuzz/regression/$target/" 2>/dev/null || true
    echo "the input is now in tests/fuzz/regression/$target/" >&2
  fi
done
exit "$failed"
