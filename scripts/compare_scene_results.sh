#!/usr/bin/env bash
# Compares every shipped scene's trajectory and gradients between a base revision and the working
# tree: builds tests/regression/dump_scene_results in both (the base in a git worktree under
# /tmp), runs each on scenes/*.json with the same thread count, and reports per scene whether
# the states are bitwise equal, else their largest relative difference, and the same for the
# losses and gradients. Exit status 1 if anything differs by more than 1e-12 relative.
#
#   bash scripts/compare_scene_results.sh BASE_REVISION
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: compare_scene_results.sh BASE_REVISION}
tree=/tmp/softgrad-base-$(git rev-parse --short "$base")
[ -d "$tree" ] || git worktree add --detach "$tree" "$base" >/dev/null
for dir in "$tree" .; do
  cmake -S "$dir" -B "$dir/build-regression" -DCMAKE_BUILD_TYPE=Release \
    -DSOFTGRAD_WITH_CUDA=OFF -DSOFTGRAD_BUILD_EXAMPLES=OFF >/dev/null
  cmake --build "$dir/build-regression" --target dump_scene_results -j"$(nproc)" >/dev/null
done
export OMP_NUM_THREADS=2
rm -rf /tmp/scene-results-base /tmp/scene-results-head
"$tree/build-regression/tests/regression/dump_scene_results" /tmp/scene-results-base scenes/*.json
./build-regression/tests/regression/dump_scene_results /tmp/scene-results-head scenes/*.json
/usr/bin/python3 scripts/compare_scene_results.py /tmp/scene-results-base /tmp/scene-results-head
