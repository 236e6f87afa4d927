#!/usr/bin/env bash
# An MPI run gives one process's results: `softgrad compare` (the baselines' episodes spread over
# the processes), `softgrad sysid --starts` (the starts spread over them) and `softgrad sysid` on
# a scene's two experiments (one per process), each run once as one process and once with
# `mpirun -n 2`, their learning curves and estimates compared.
#
#   same_results.sh SOFTGRAD MPIEXEC SOURCE_DIR
set -euo pipefail
softgrad=$1 mpiexec=$2 source=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mpirun=("$mpiexec" --oversubscribe -n 2)
[ "$(id -u)" = 0 ] && mpirun+=(--allow-run-as-root)

scene="$source/scenes/biped_2d.json"
"$softgrad" compare "$scene" --budget 3200 --quiet --out "$out/one"
"${mpirun[@]}" "$softgrad" compare "$scene" --budget 3200 --quiet --out "$out/two"
cmp "$out/one/compare.csv" "$out/two/compare.csv"

scene="$source/scenes/cantilever_sysid.json"
data="$source/scenes/data/cantilever_clean.csv"
"$softgrad" sysid "$scene" --data "$data" --starts 3 --max-iterations 2 --quiet --out "$out/s1"
"${mpirun[@]}" "$softgrad" sysid "$scene" --data "$data" --starts 3 --max-iterations 2 --quiet \
  --out "$out/s2"
# Everything but the wall time.
diff <(grep -v '"seconds"' "$out/s1/report.json") <(grep -v '"seconds"' "$out/s2/report.json")

# The scene's two experiments (no --data), fitted together.
"$softgrad" sysid "$scene" --max-iterations 2 --quiet --out "$out/e1"
"${mpirun[@]}" "$softgrad" sysid "$scene" --max-iterations 2 --quiet --out "$out/e2"
grep -q '"experiments"' "$out/e1/report.json"
diff <(grep -v '"seconds"' "$out/e1/report.json") <(grep -v '"seconds"' "$out/e2/report.json")
echo "mpirun -n 2 gives one process's results"
