#!/usr/bin/env bash
# Whether a device round fits what the device tool carries: the working tree
# (tracked files and untracked ones git does not ignore) plus the carried
# folders, at most 64 MiB (CARRY_LIMIT_KIB to try another limit), counted in
# du's blocks. Prints one line; exit 1 when over, with what to do.
#   scripts/carry_fits.sh .carry_round [MORE_DIRS...]
set -u
limit=${CARRY_LIMIT_KIB:-65536}
tree=$(git ls-files -z --cached --others --exclude-standard | du -c -k --files0-from=- 2>/dev/null | tail -1 | cut -f1)
carried=0
for d in "$@"; do
  [ -e "$d" ] || { echo "carry_fits: $d: no such file or folder" >&2; exit 2; }
  carried=$((carried + $(du -s -k "$d" | cut -f1)))
done
total=$((tree + carried))
echo "carry_fits: tree ${tree} KiB + carried ${carried} KiB = ${total} KiB of ${limit} KiB"
if [ "$total" -gt "$limit" ]; then
  echo "carry_fits: over by $((total - limit)) KiB: carry fewer binaries (make carry-lean), or move a superseded proof out of the tree (git history keeps it; docs/history.md says which left)" >&2
  exit 1
fi
