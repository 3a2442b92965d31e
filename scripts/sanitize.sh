#!/usr/bin/env bash
# make sanitize: compute-sanitizer memcheck, racecheck, synccheck and
# initcheck over every family's variants at a tiny size (--quick axes with
# n=4096 and iters=1,2 where the family sweeps them), one family at a time,
# in-process (--no-fork) so the sanitizer sees every kernel. The watchdog
# bound is raised to 120 s: a sanitized kernel runs orders of magnitude
# slower, and a correct wait must not read as a deadlock.
# Usage: scripts/sanitize.sh BIN [DEVICE]. Writes results/<gpu-slug>/sanitize.md
# (one line per tool x family); exit 1 if any tool reported an error.
set -u
bin=${1:-build/syncbench}
device=${2:-0}
cs=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
if [ ! -x "$cs" ]; then
  echo "sanitize: compute-sanitizer not found (set COMPUTE_SANITIZER=/path/to/it)" >&2
  exit 2
fi
slug=$("$bin" --print-gpu-slug --device "$device") || exit $?
out=results/$slug
mkdir -p "$out"
logs=$(mktemp -d /tmp/sb_sanitize.XXXXXX)
list=$("$bin" --list) || exit $?
families=$(awk -F: '/^[a-z0-9_]+:/ {print $1}' <<<"$list")
summary=$out/sanitize.md
tools=${SANITIZE_TOOLS:-"memcheck racecheck synccheck initcheck"}
# Variants racecheck cannot judge (see the loop below), by name.
racecheck_skip=${RACECHECK_SKIP:-"completion|completion_function"}
# A family's variant names, from --list.
variants_of() {
  awk -v f="$1:" '/^[^ ]/ {cur=$1; next} cur==f && $1!="axis" {print $1}' <<<"$list"
}
t_all=$SECONDS
{
  echo "# compute-sanitizer summary: $slug"
  echo
  echo "$("$cs" --version | tail -1); $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo
  echo "Each family: \`--quick --n 4096 --iters 1,2 --warmup 0 --min-time 0.0005 --no-fork --watchdog-ms 120000\`"
  echo "(--n/--iters only where the family sweeps them). The reference copy runs with the first family."
  echo "racecheck leaves out the variants named \`$racecheck_skip\`: a cuda::barrier with a completion"
  echo "function runs on libcu++'s software barrier (atomics), which racecheck does not model; those variants"
  echo "get memcheck, synccheck and initcheck, and are validated at every sweep point."
  echo
  echo "| tool | family | errors | rows ok / total | syncbench exit | seconds |"
  echo "|---|---|---|---|---|---|"
} > "$summary"
fail=0
for tool in $tools; do
  first=1
  for fam in $families; do
    [ "$fam" = reference ] && continue
    axes=$(awk -v f="$fam:" '/^[^ ]/ {cur=$1} cur==f && $1=="axis" {print $2}' <<<"$list")
    # racecheck does not model libcu++'s software barrier, which a
    # cuda::barrier with a completion function uses (no hardware mbarrier
    # can run one): it reports the completion step's reads of what the
    # other threads wrote before arriving as races. Those variants get the
    # other three tools, and are validated at every sweep point.
    filter="^$fam/"
    if [ "$tool" = racecheck ]; then
      keep=$(variants_of "$fam" | grep -Evx "$racecheck_skip" | paste -sd'|')
      [ -n "$keep" ] || continue
      filter="^$fam/($keep)/"
    fi
    args=(--quick --filter "$filter" --warmup 0 --min-time 0.0005 --no-fork --watchdog-ms 120000
          --device "$device" --seed 1 --out "$logs/$tool-$fam.csv")
    grep -qx n <<<"$axes" && args+=(--n 4096)
    grep -qx iters <<<"$axes" && args+=(--iters 1,2)
    [ $first = 1 ] || args+=(--no-reference)
    first=0
    t0=$SECONDS
    "$cs" --tool "$tool" --print-limit 20 "$bin" "${args[@]}" > "$logs/$tool-$fam.log" 2>&1
    rc=$?
    # memcheck/synccheck/initcheck: "ERROR SUMMARY: N errors"; racecheck:
    # "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)".
    if [ "$tool" = racecheck ]; then
      errors=$(grep -Eo 'RACECHECK SUMMARY: [0-9]+ hazard' "$logs/$tool-$fam.log" | tail -1 | grep -Eo '[0-9]+')
    else
      errors=$(grep -Eo 'ERROR SUMMARY: [0-9]+' "$logs/$tool-$fam.log" | tail -1 | grep -Eo '[0-9]+$')
    fi
    [ -n "$errors" ] || errors="?"
    rows=$(($(wc -l < "$logs/$tool-$fam.csv" 2>/dev/null || echo 1) - 1))
    ok=$(grep -c ',ok,' "$logs/$tool-$fam.csv" 2>/dev/null)
    echo "| $tool | $fam | $errors | $ok / $rows | $rc | $((SECONDS - t0)) |" >> "$summary"
    printf 'sanitize: %-9s %-12s errors=%s rows ok=%s/%s exit=%s (%ds)\n' "$tool" "$fam" "$errors" "$ok" "$rows" "$rc" $((SECONDS - t0))
    if [ "$errors" != 0 ] || [ $rc -ne 0 ]; then
      fail=1
      grep -E '^=========' "$logs/$tool-$fam.log" | head -30
    fi
  done
done
commit=$(python3 -c 'import csv, sys; print(next(csv.DictReader(open(sys.argv[1])))["commit"])' "$(ls "$logs"/*.csv | head -1)" 2>/dev/null)
echo >> "$summary"
echo "syncbench commit: ${commit:-unknown}." >> "$summary"
echo "Total: $((SECONDS - t_all)) s; $([ $fail = 0 ] && echo clean || echo 'NOT clean: see the logs')." >> "$summary"
echo "sanitize: $([ $fail = 0 ] && echo clean || echo 'errors found') in $((SECONDS - t_all)) s -> $summary (logs: $logs)"
exit $fail
