#!/usr/bin/env bash
# Each public header (include/softgrad, not detail/) preprocessed alone, without OpenMP: it must
# compile on its own and reach no <omp.h>, so that a program or plugin that includes softgrad's
# API needs neither OpenMP's header nor its flags for it (issue 50). Eigen includes <omp.h>
# itself under -fopenmp; that is Eigen's choice and is not checked here.
#
#   bash scripts/check_public_headers.sh CXX INCLUDE_DIR...
set -euo pipefail
cxx=${1:?usage: check_public_headers.sh CXX INCLUDE_DIR...}
shift
flags=(-std=c++20 -E -x c++ -)
for dir in "$@"; do flags+=(-I "$dir"); done
root="$(cd "$(dirname "$0")/.." && pwd)"
failed=0
checked=0
while IFS= read -r header; do
  name=${header#"$root/include/"}
  if ! out=$(echo "#include \"$name\"" | "$cxx" "${flags[@]}" 2>&1); then
    echo "$name does not compile on its own:"
    echo "$out" | grep -m 5 'error' || true
    failed=1
  elif grep -q '^# [0-9]* "[^"]*/omp\.h"' <<<"$out"; then
    echo "$name includes <omp.h>"
    failed=1
  fi
  checked=$((checked + 1))
done < <(find "$root/include/softgrad" -name '*.hpp' -not -path '*/detail/*' | sort)
echo "$checked public headers: $([ $failed = 0 ] && echo 'none includes <omp.h>' || echo 'FAILED')"
exit $failed
