#!/usr/bin/env bash
# Fuzzes softgrad's readers with libFuzzer (clang, ASan + UBSan): the scene loader, the TetGen,
# Gmsh and surface mesh readers and the recording reader, all at once, each for SECONDS
# (default 60) from its seed corpus and regression inputs. An input that crashes, leaks, runs
# out of memory (> 2 GB: a reader trusting a count) or hangs (> 20 s) is copied into
# tests/fuzz/regression/<target>/, which every test run then replays: commit it with the fix.
# Usage: bash scripts/fuzz.sh [SECONDS] [BUILD]
#   BUILD: a build configured with -DSOFTGRAD_FUZZ=ON (CI passes its sanitizer build); by
#   default build-fuzz, configured here with clang++-14.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
build="${2:-build-fuzz}"
targets=(scene tetgen gmsh surface recording)
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_FLAGS_DEBUG=-O1 -DSOFTGRAD_FUZZ=ON -DSOFTGRAD_BUILD_EXAMPLES=OFF \
    -DSOFTGRAD_BUILD_BENCHMARKS=OFF -DSOFTGRAD_WITH_CUDA=OFF -DSOFTGRAD_WITH_PYTHON=OFF >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target "${targets[@]/#/fuzz_}" >/dev/null
# Seeds besides tests/fuzz/corpus: the shipped scenes and recordings.
declare -A seeds=([scene]="scenes" [recording]="scenes/data")
declare -A max_len=([scene]=16384)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
pids=()
for target in "${targets[@]}"; do
  mkdir -p "$work/$target/corpus" "$work/$target/artifacts"
  extra=()
  if [ -n "${seeds[$target]:-}" ]; then
    mkdir -p "$work/$target/seeds"
    find "${seeds[$target]}" -maxdepth 1 -type f \( -name '*.json' -o -name '*.csv' \) \
      -exec cp {} "$work/$target/seeds/" \;
    extra+=("$work/$target/seeds")
  fi
  (cd "$work/$target" && "$OLDPWD/$build/tests/fuzz/fuzz_$target" corpus \
      "$OLDPWD/tests/fuzz/corpus/$target" "$OLDPWD/tests/fuzz/regression/$target" "${extra[@]}" \
      -max_total_time="$seconds" -max_len="${max_len[$target]:-4096}" -rss_limit_mb=2048 \
      -malloc_limit_mb=2048 -timeout=20 -print_final_stats=1 -artifact_prefix=artifacts/ \
      >log.txt 2>&1) &
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
