#!/usr/bin/env bash
# Checks that no ELF program or shared library under the given folders has an empty or relative
# RUNPATH/RPATH entry: an empty entry makes the loader search the current directory, a relative
# one a folder relative to wherever the user runs the program, so that a library planted there
# would be loaded. Entries must be absolute or start with $ORIGIN.
#     bash scripts/check_runpath.sh DIR...
set -euo pipefail
bad=0
checked=0
while IFS= read -r -d '' file; do
  head -c 4 "$file" 2>/dev/null | grep -q $'^\x7fELF' || continue
  checked=$((checked + 1))
  paths=$(readelf -d "$file" 2>/dev/null | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]/\1/p')
  [ -n "$paths" ] || continue
  while IFS= read -r line; do
    # Split on ':' keeping empty fields (a leading, trailing or doubled ':').
    IFS=':' read -r -a entries <<< "$line:"
    for entry in "${entries[@]}"; do
      case "$entry" in
        /* | '$ORIGIN' | '$ORIGIN/'*) ;;
        *) echo "check_runpath: $file: RUNPATH '$line' has the entry '$entry' (empty or relative)"
           bad=1 ;;
      esac
    done
  done <<< "$paths"
done < <(find "$@" -type f \( -perm -u+x -o -name '*.so*' \) ! -name '*.o' -print0)
echo "check_runpath: ${checked} ELF files checked"
exit "$bad"
