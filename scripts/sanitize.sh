#!/usr/bin/env bash
# make sanitize: compute-sanitizer memcheck, racecheck, synccheck and
# initcheck over every family's variants at a tiny size (--quick axes with
# n=4096 and iters=1,2 where the family sweeps them), one family at a time,
# in-process (--no-fork) so the sanitizer sees every kernel. The watchdog
# bound is raised to 120 s: a sanitized kernel runs orders of magnitude
# slower, and a correct wait must not read as a deadlock. --unpaired: the
# paired ceiling (cuBLAS, CUB) would add 64+ library calls per point, each
# checked, and check nothing of ours.
#
# racecheck is calibrated first on tests/gpu/racecheck_canary.cu: a real
# race must be flagged and __syncthreads / mbarrier hand-offs must be clean,
# or the run is void. The variants built on libcu++'s software barrier (a
# cuda::barrier with a completion function: RACECHECK_BLIND) are still run
# under racecheck and their hazards shown, but they fail the run only if
# the canary's race-free software-barrier hand-off was NOT flagged, i.e.
# only if this racecheck is not blind to such barriers after all.
# The GEMM ceiling (`gemm/cublas`: RACECHECK_VENDOR) runs cuBLAS's own
# kernels, no line of syncbench: racecheck runs it apart, its hazards shown,
# not counted (an H200's cuBLAS picked a clustered nvjet kernel at the
# --quick GEMM point that racecheck flags); the other tools count it.
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
logs=$(mktemp -d "${TMPDIR:-/tmp}/sb_sanitize.XXXXXX")
list=$("$bin" --list) || exit $?
families=${SANITIZE_FAMILIES:-$(awk -F: '/^[a-z0-9_]+:/ {print $1}' <<<"$list")}
summary=$out/sanitize.md
tools=${SANITIZE_TOOLS:-"memcheck racecheck synccheck initcheck"}  # SANITIZE_FAMILIES="scan gemm": a subset
canary=${CANARY:-$(dirname "$bin")/racecheck_canary}
# Variants on libcu++'s software barrier, by name (see the header).
racecheck_blind=${RACECHECK_BLIND:-"completion|completion_function"}
racecheck_vendor=${RACECHECK_VENDOR:-"cublas"}
# The variants compiled at gemm's 128x96x64 tile (kernels/gemm/gemm.cu's gemm_compiles_tile).
tile96_variants="ws_tma_wgmma|ws_tma_wgmma_tma_store|splitk_serial|splitk_parallel|splitk_reduce|splitk_cooperative|splitk_cluster|streamk"
# devscan's rows with the look-back tuning axes (trait lookback_tuning in
# results/variants.csv): their tuning instances once more, at 128x24 (the
# shape compiled for every window), sleeps on from the first tile.
tuning_variants="lookback|lookback_relaxed"
tuning_args=(--block 128 --elems 24 --window 32,64 --first-sleep 0,3000 --poll-sleep 0,648
             --sleep-min-tiles 0)
# The hazard count of a racecheck log ("RACECHECK SUMMARY: N hazards
# displayed (E errors, W warnings)"), empty if it has none.
racecheck_hazards() {
  grep -Eo 'RACECHECK SUMMARY: [0-9]+ hazard' "$1" | tail -1 | grep -Eo '[0-9]+'
}
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
  echo "Each family: \`--quick --n 4096 --iters 1,2 --m 256 --k 1024 --warmup 0 --min-time 0.0005 --no-fork --unpaired --watchdog-ms 120000\`"
  echo "(--n/--iters/--m/--k only where the family sweeps them; devscan: --n 300001, so that tiles wait on each other). The reference copy runs with the first family."
  echo "gemm's 128x96x64 rows: the variants compiled at that tile once more at 384 x 384 (n = m), without --quick, \`--m 384 --k 1024 --tile 128x96x64 --warps 4 --splits auto,4\`."
} > "$summary"
fail=0
nothing_ran=""  # the counted runs with no row ok (a failure: nothing was checked)
# ---- racecheck calibration on the canary kernels ----
blind=0  # 1 once racecheck is shown to flag a race-free software barrier
if grep -qw racecheck <<<"$tools"; then
  declare -A canary_hazards
  {
    echo "## racecheck calibration (tests/gpu/racecheck_canary.cu)"
    echo
    echo "| canary | hand-off | race-free | hazards | hand-off check exit |"
    echo "|---|---|---|---|---|"
  } >> "$summary"
  if [ ! -x "$canary" ]; then
    echo "racecheck canary not found at $canary (make builds it): no calibration, so every racecheck hazard counts." >> "$summary"
    echo "sanitize: racecheck canary not found at $canary; every racecheck hazard counts" >&2
  else
    for c in racy:none:no syncthreads:__syncthreads:yes mbarrier:"mbarrier arrive + parity wait":yes \
             atomic_flag:"release add / acquire spin (cuda::atomic_ref)":yes \
             completion_barrier:"cuda::barrier with a completion function":yes; do
      name=${c%%:*}; rest=${c#*:}; how=${rest%:*}; free=${rest##*:}
      "$cs" --tool racecheck --print-limit 5 "$canary" "$name" > "$logs/canary-$name.log" 2>&1
      crc=$?
      h=$(racecheck_hazards "$logs/canary-$name.log")
      canary_hazards[$name]=${h:-?}
      echo "| $name | $how | $free | ${h:-?} | $crc |" >> "$summary"
      printf 'sanitize: racecheck canary %-18s hazards=%s exit=%s\n' "$name" "${h:-?}" "$crc"
      if [ "$name" != racy ] && [ $crc -ne 0 ]; then fail=1; fi
    done
    echo >> "$summary"
    if [ "${canary_hazards[racy]}" = 0 ] || [ "${canary_hazards[racy]}" = "?" ] ||
       [ "${canary_hazards[syncthreads]}" != 0 ] || [ "${canary_hazards[mbarrier]}" != 0 ]; then
      fail=1
      echo "Calibration FAILED: racecheck must flag the racy canary and pass the __syncthreads and mbarrier ones; the racecheck rows below prove nothing." >> "$summary"
    elif [ "${canary_hazards[completion_barrier]}" != 0 ] && [ "${canary_hazards[completion_barrier]}" != "?" ]; then
      blind=1
      echo "racecheck flags the race-free cuda::barrier-with-completion hand-off: it does not model libcu++'s software barrier (atomics; atomic_flag: ${canary_hazards[atomic_flag]} hazards). The \`$racecheck_blind\` variants below are that barrier; their hazards are shown as blind spots and do not fail the run (they are validated at every sweep point)." >> "$summary"
    else
      echo "racecheck does not flag the race-free software-barrier hand-off: the \`$racecheck_blind\` variants' hazards count like any other." >> "$summary"
    fi
    echo >> "$summary"
  fi
fi
{
  echo "## Every family"
  echo
  echo "| tool | family | errors | rows ok / total | syncbench exit | seconds |"
  echo "|---|---|---|---|---|---|"
} >> "$summary"
# One sanitized sweep: run_family TOOL FAMILY FILTER LABEL COUNTS(1/0) [TILE96 [TUNING]].
run_family() {
  local tool=$1 fam=$2 filter=$3 label=$4 counts=$5 tile96=${6:-} tuning=${7:-} axes args t0 rc errors rows ok tag unsupported why
  axes=$(awk -v f="$fam:" '/^[^ ]/ {cur=$1} cur==f && $1=="axis" {print $2}' <<<"$list")
  tag=$tool-$fam$(case $label in "$tool") ;; *vendor*) echo -vendor ;; *tile*) echo -tile96 ;; *tuning*) echo -tuning ;; *) echo -blind ;; esac)
  args=(--filter "$filter" --warmup 0 --min-time 0.0005 --no-fork --unpaired --watchdog-ms 120000
        --device "$device" --seed 1 --out "$logs/$tag.csv")
  # --quick's few points; at the 128x96 tile the default grid at the tile's
  # one stage and warp count (a named tile keeps consumer_warps=8 as a skipped row).
  if [ -n "$tuning" ]; then args+=("${tuning_args[@]}")
  elif [ -z "$tile96" ]; then args=(--quick "${args[@]}"); fi
  # devscan: 300001 words = 74 tiles of 128x32, the --quick tile (several
  # look-back windows, 19 cluster tiles, a ragged scalar tail); 4096 would
  # be one tile, and no block would ever wait on another. gemm's n is C's
  # columns (unset: = m): 4096 at 256 rows, but the 128x96 tile takes whole
  # 96s, so there n stays m (4096 skipped all 26 of its rows).
  if [ "$fam" = devscan ]; then args+=(--n 300001)
  elif [ -z "$tile96" ] && grep -qx n <<<"$axes"; then args+=(--n 4096); fi
  grep -qx iters <<<"$axes" && args+=(--iters 1,2)
  # GEMM: 256 x 4096 blocks of output (32 tiles of 128 x 128, 16 of 128 x 256)
  # over K = 1024, 16 k-tiles: every ring of <= 6 stages wraps at least twice,
  # so each barrier's phase parity flips under the tool.
  # The 128x96x64 tile (TILE96): 384 x 384 (3 x 4 of its tiles), its one
  # stage count, splits auto and 4 (its own reduction bookkeeping).
  if [ -n "$tile96" ]; then args+=(--m 384 --tile 128x96x64 --warps 4 --splits auto,4)
  else grep -qx m <<<"$axes" && args+=(--m 256); fi
  grep -qx k <<<"$axes" && args+=(--k 1024)
  [ $first = 1 ] || args+=(--no-reference)
  first=0
  t0=$SECONDS
  "$cs" --tool "$tool" --print-limit 20 "$bin" "${args[@]}" > "$logs/$tag.log" 2>&1
  rc=$?
  # memcheck/synccheck/initcheck: "ERROR SUMMARY: N errors"; racecheck:
  # its hazard count.
  if [ "$tool" = racecheck ]; then
    errors=$(racecheck_hazards "$logs/$tag.log")
  else
    errors=$(grep -Eo 'ERROR SUMMARY: [0-9]+' "$logs/$tag.log" | tail -1 | grep -Eo '[0-9]+$')
  fi
  [ -n "$errors" ] || errors="?"
  rows=$(($(wc -l < "$logs/$tag.csv" 2>/dev/null || echo 1) - 1))
  ok=$(grep -c ',ok,' "$logs/$tag.csv" 2>/dev/null)
  echo "| $label | $fam | $errors | $ok / $rows | $rc | $((SECONDS - t0)) |" >> "$summary"
  printf 'sanitize: %-9s %-12s errors=%s rows ok=%s/%s exit=%s (%ds)\n' "$label" "$fam" "$errors" "$ok" "$rows" "$rc" $((SECONDS - t0))
  if [ $rc -ne 0 ] || { [ "$errors" != 0 ] && [ "$counts" = 1 ]; }; then
    fail=1
    grep -E '^=========' "$logs/$tag.log" | head -30
  fi
  # A run in which no kernel ran checked nothing: unless every row is
  # unsupported (this GPU lacks what the variants need), that fails too.
  unsupported=$(grep -c ',unsupported,' "$logs/$tag.csv" 2>/dev/null)
  if [ "$counts" = 1 ] && [ "${ok:-0}" = 0 ] && [ "${unsupported:-0}" != "$rows" ]; then
    fail=1
    why="no row ran ($rows rows, none ok): the tool checked nothing"
    nothing_ran+="- $label, $fam: $why."$'\n'
    echo "sanitize: $label $fam: $why"
    grep -Eo ',skipped,[^,]*' "$logs/$tag.csv" 2>/dev/null | sort | uniq -c | head -5
  fi
}
for tool in $tools; do
  first=1
  for fam in $families; do
    [ "$fam" = reference ] && continue
    if [ "$tool" != racecheck ]; then
      run_family "$tool" "$fam" "^$fam/" "$tool" 1
      continue
    fi
    seen=$(variants_of "$fam" | grep -Evx "$racecheck_blind|$racecheck_vendor" | paste -sd'|')
    blindv=$(variants_of "$fam" | grep -Ex "$racecheck_blind" | paste -sd'|')
    vendorv=$(variants_of "$fam" | grep -Ex "$racecheck_vendor" | paste -sd'|')
    [ -z "$seen" ] || run_family racecheck "$fam" "^$fam/($seen)/" racecheck 1
    # The software-barrier variants: shown, and counted unless calibrated blind.
    [ -z "$blindv" ] || run_family racecheck "$fam" "^$fam/($blindv)/" "racecheck, blind spot: $blindv" $((1 - blind))
    # The vendor library's kernels: shown, never counted (none of ours).
    [ -z "$vendorv" ] || run_family racecheck "$fam" "^$fam/($vendorv)/" "racecheck, vendor kernels: $vendorv" 0
  done
  # gemm's one-warpgroup 128x96 tile, which 256 x 256 does not fit: its
  # compiled variants once more at 384 x 384, counted.
  if [[ " ${families//$'\n'/ } " == *" gemm "* ]]; then
    tile96=$(variants_of gemm | grep -Ex "$tile96_variants" | paste -sd'|')
    [ -z "$tile96" ] || run_family "$tool" gemm "^gemm/($tile96)/" "$tool, 128x96x64 tile" 1 tile96
  fi
  # devscan's look-back tuning instances (window 64, no sleeps, the sleep
  # threshold read at run time), which --quick's default look-back never runs.
  if [[ " ${families//$'\n'/ } " == *" devscan "* ]]; then
    tuned=$(variants_of devscan | grep -Ex "$tuning_variants" | paste -sd'|')
    [ -z "$tuned" ] || run_family "$tool" devscan "^devscan/($tuned)/" "$tool, look-back tuning" 1 "" tuning
  fi
done
commit=$(python3 -c 'import csv, sys; print(next(csv.DictReader(open(sys.argv[1])))["commit"])' "$(ls "$logs"/*.csv | head -1)" 2>/dev/null)
echo >> "$summary"
[ -z "$nothing_ran" ] || printf '%s\n' "$nothing_ran" >> "$summary"
echo "syncbench commit: ${commit:-unknown}." >> "$summary"
echo "Total: $((SECONDS - t_all)) s; $([ $fail = 0 ] && echo clean || echo 'NOT clean: see the logs')." >> "$summary"
echo "sanitize: $([ $fail = 0 ] && echo clean || echo 'errors found') in $((SECONDS - t_all)) s -> $summary (logs: $logs)"
exit $fail
