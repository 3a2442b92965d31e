"""scripts/sanitize.sh on fakes: a syncbench that lists two families, a
racecheck canary, and a compute-sanitizer that prints a chosen summary.
Checks the parsing of each tool's summary, the racecheck calibration, and
that the software-barrier (completion) variants fail the run only when the
calibration does not show racecheck blind to them."""
import os
import re
import shutil
import stat
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

FAKE_SYNCBENCH = r"""#!/usr/bin/env bash
case " $* " in
  *" --print-gpu-slug "*) echo fakegpu; exit 0 ;;
  *" --list "*) cat <<'LIST'
reference: copy
  d2d_copy               copy
stencil: 1D
  axis n             default 16M          quick 1M
  two_barrier            a
  completion             b
LIST
  # FAKE_GEMM=1: a second family whose ceiling is a vendor library
  # (FAKE_GEMM=2: and two variants compiled at the 128x96 tile)
  [ "${FAKE_GEMM:-0}" != 0 ] && cat <<'LIST'
gemm: G
  axis n             default 1            quick 1
  axis m             default 1k           quick 256
  ws_tma                 a
  cublas                 c
LIST
  [ "${FAKE_GEMM:-0}" = 2 ] && cat <<'LIST'
  ws_tma_wgmma           d
  splitk_reduce          e
LIST
  # FAKE_DEVSCAN=1: devscan, two of whose rows take the look-back tuning axes
  [ "${FAKE_DEVSCAN:-0}" = 1 ] && cat <<'LIST'
devscan: D
  axis n             default 1M           quick 1M
  three_kernel           t
  lookback               l
  lookback_relaxed       r
LIST
  exit 0 ;;
esac
[ -n "${FAKE_ARGS:-}" ] && echo "$*" >> "$FAKE_ARGS"
# A sweep: remember the filter, write a CSV with one ok row.
out=""; prev=""
for a in "$@"; do [ "$prev" = --out ] && out=$a; [ "$prev" = --filter ] && echo "$a" >> "$FAKE_FILTERS"; prev=$a; done
st=ok; case " $* " in *128x96x64*) st=${FAKE_TILE96_STATUS:-ok} ;; esac
printf 'h\n1,stencil,two_barrier,%s,why\n' "$st" > "$out"
"""

FAKE_SANITIZER = r"""#!/usr/bin/env bash
tool=$2
while [ $# -gt 0 ] && [ ! -x "$1" ]; do shift; done   # drop the sanitizer's own options
"$@" > /dev/null
if [ "$(basename "$1")" = racecheck_canary ]; then
  # FAKE_CANARY: "name=hazards ..." (default 0)
  h=0; for kv in $FAKE_CANARY; do [ "${kv%%=*}" = "$2" ] && h=${kv#*=}; done
  echo "========= RACECHECK SUMMARY: $h hazards displayed ($h errors, 0 warnings)"
  exit 0
fi
h=${FAKE_HAZARDS:-0}
case " $* " in *"^gemm/"*) h=${FAKE_GEMM_HAZARDS:-$h} ;; esac
case " $* " in *completion*) h=${FAKE_BLIND_HAZARDS:-0} ;; *cublas*) h=${FAKE_VENDOR_HAZARDS:-0} ;; esac
case " $* " in *128x96x64*) h=${FAKE_TILE96_HAZARDS:-$h} ;; esac
if [ "$tool" = racecheck ]; then
  echo "========= RACECHECK SUMMARY: $h hazards displayed ($h errors, 0 warnings)"
else
  echo "========= ERROR SUMMARY: 0 errors"
fi
"""

FAKE_CANARY = "#!/usr/bin/env bash\nexit 0\n"

# What a real racecheck (2025.3) does: flags the racy canary and both
# software-barrier hand-offs, passes __syncthreads and mbarrier.
BLIND = "racy=5 atomic_flag=2 completion_barrier=3"


def write_exe(path, text):
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def run(tmp_path, hazards, blind_hazards=0, canary=BLIND, with_canary=True, vendor_hazards=None,
        gemm_hazards=None, tile96=None, tile96_status="ok", devscan=False):
    write_exe(tmp_path / "syncbench", FAKE_SYNCBENCH)
    write_exe(tmp_path / "cs", FAKE_SANITIZER)
    if with_canary:
        write_exe(tmp_path / "racecheck_canary", FAKE_CANARY)
    env = dict(os.environ, COMPUTE_SANITIZER=str(tmp_path / "cs"), FAKE_HAZARDS=str(hazards),
               FAKE_BLIND_HAZARDS=str(blind_hazards), FAKE_CANARY=canary,
               FAKE_FILTERS=str(tmp_path / "filters"), SANITIZE_TOOLS="racecheck memcheck")
    if vendor_hazards is not None:
        env.update(FAKE_GEMM="1", FAKE_VENDOR_HAZARDS=str(vendor_hazards))
    if gemm_hazards is not None:
        env["FAKE_GEMM_HAZARDS"] = str(gemm_hazards)
    if tile96 is not None:  # the 128x96 tile run's hazard count
        env.update(FAKE_GEMM="2", FAKE_ARGS=str(tmp_path / "args"), FAKE_TILE96_HAZARDS=str(tile96),
                   FAKE_TILE96_STATUS=tile96_status)
    if devscan:
        env.update(FAKE_DEVSCAN="1", FAKE_ARGS=str(tmp_path / "args"))
    r = subprocess.run(["bash", os.path.join(ROOT, "scripts", "sanitize.sh"),
                        str(tmp_path / "syncbench")], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=60)
    # sanitize.sh keeps its logs in the /tmp/sb_sanitize.* folder that its last
    # line names (for whoever reads a GPU run); a test leaves nothing there.
    logs = re.search(r"\(logs: (/[^)]*/sb_sanitize\.[^)/]+)\)$", r.stdout, re.M)
    assert logs, r.stdout + r.stderr
    shutil.rmtree(logs.group(1))
    summary = (tmp_path / "results" / "fakegpu" / "sanitize.md").read_text()
    return r, summary, (tmp_path / "filters").read_text().split()


def test_clean_run_counts_zero_for_every_tool(tmp_path):
    r, summary, filters = run(tmp_path, hazards=0)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "| racecheck | stencil | 0 |" in summary
    assert "| memcheck | stencil | 0 |" in summary
    assert "clean" in summary.splitlines()[-1]


def test_racecheck_hazards_fail_the_run(tmp_path):
    r, summary, _ = run(tmp_path, hazards=3)
    assert r.returncode == 1
    assert "| racecheck | stencil | 3 |" in summary
    assert "NOT clean" in summary


def test_racecheck_runs_completion_variants_apart(tmp_path):
    _, summary, filters = run(tmp_path, hazards=0)
    assert filters[0] == "^stencil/(two_barrier)/"   # racecheck, counted
    assert filters[1] == "^stencil/(completion)/"    # racecheck, blind-spot row
    assert filters[2] == "^stencil/"                 # memcheck: every variant


def test_calibrated_blind_spot_hazards_are_shown_not_failed(tmp_path):
    r, summary, _ = run(tmp_path, hazards=0, blind_hazards=7)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "| racecheck, blind spot: completion | stencil | 7 |" in summary
    assert "| completion_barrier | cuda::barrier with a completion function | yes | 3 | 0 |" in summary
    assert "does not model libcu++'s software barrier" in summary


def test_blind_spot_hazards_fail_when_racecheck_sees_software_barriers(tmp_path):
    # The canary's race-free software-barrier hand-off comes out clean:
    # then the completion variants' hazards are real findings.
    r, summary, _ = run(tmp_path, hazards=0, blind_hazards=7, canary="racy=5")
    assert r.returncode == 1
    assert "hazards count like any other" in summary
    assert "NOT clean" in summary


def test_calibration_fails_when_racecheck_misses_a_real_race(tmp_path):
    r, summary, _ = run(tmp_path, hazards=0, canary="atomic_flag=2 completion_barrier=3")
    assert r.returncode == 1
    assert "Calibration FAILED" in summary


def test_calibration_fails_when_a_hardware_barrier_is_flagged(tmp_path):
    r, summary, _ = run(tmp_path, hazards=0, canary=BLIND + " mbarrier=1")
    assert r.returncode == 1
    assert "Calibration FAILED" in summary


def test_without_canary_every_hazard_counts(tmp_path):
    r, summary, _ = run(tmp_path, hazards=0, blind_hazards=7, with_canary=False)
    assert r.returncode == 1
    assert "canary not found" in summary


def test_vendor_kernels_run_apart_and_are_shown_not_counted(tmp_path):
    # cuBLAS's own kernels (the GEMM ceiling) under racecheck: their row
    # shows the hazards, the run stays clean; memcheck still runs them.
    r, summary, filters = run(tmp_path, hazards=0, vendor_hazards=2)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "^gemm/(ws_tma)/" in filters and "^gemm/(cublas)/" in filters
    assert "| racecheck, vendor kernels: cublas | gemm | 2 |" in summary
    assert "| racecheck | gemm | 0 |" in summary
    assert filters.count("^gemm/") == 1  # memcheck: every variant, cuBLAS too
    assert "clean" in summary.splitlines()[-1]


def test_hazards_in_our_gemm_variants_still_fail_beside_the_vendor_row(tmp_path):
    # stencil clean, gemm's own variants 3 hazards, cuBLAS's none: the gemm row fails the run
    r, summary, _ = run(tmp_path, hazards=0, vendor_hazards=0, gemm_hazards=3)
    assert r.returncode == 1
    assert "| racecheck | gemm | 3 |" in summary and "| racecheck | stencil | 0 |" in summary
    assert "| racecheck, vendor kernels: cublas | gemm | 0 |" in summary
    assert "NOT clean" in summary


def test_gemm_runs_again_at_the_128x96_tile_and_counts(tmp_path):
    # the variants compiled at the tile (here ws_tma_wgmma, splitk_reduce), at
    # 384^2 (256^2 is not whole 96s), under every tool, and their hazards count
    r, summary, filters = run(tmp_path, hazards=0, vendor_hazards=0, tile96=0)
    assert r.returncode == 0, r.stdout + r.stderr
    assert filters.count("^gemm/(ws_tma_wgmma|splitk_reduce)/") == 2  # racecheck and memcheck
    args = [a for a in (tmp_path / "args").read_text().splitlines() if "(ws_tma_wgmma|splitk_reduce)" in a]
    assert len(args) == 2 and all("--m 384 --tile 128x96x64 --warps 4 --splits auto,4" in a for a in args)
    # n stays m there (--n 4096, the other gemm run's, is not whole 96s: every
    # row skipped on an H200), and the default grid (--quick's adds consumer_warps=8)
    assert not any("--n " in a or "--quick" in a for a in args)
    others = [a for a in (tmp_path / "args").read_text().splitlines()
              if "^gemm/" in a and "128x96" not in a and "cublas" not in a]
    assert len(others) == 2 and all("--quick" in a and "--n 4096 " in a for a in others)
    assert "| racecheck, 128x96x64 tile | gemm | 0 |" in summary and "| memcheck, 128x96x64 tile | gemm | 0 |" in summary
    r, summary, _ = run(tmp_path, hazards=0, vendor_hazards=0, tile96=2)
    assert r.returncode == 1 and "| racecheck, 128x96x64 tile | gemm | 2 |" in summary
    assert "| racecheck | gemm | 0 |" in summary  # the tile's row alone fails the run


def test_a_counted_run_in_which_no_row_ran_fails(tmp_path):
    # every row skipped: the tool checked nothing, which is not "clean"
    r, summary, _ = run(tmp_path, hazards=0, vendor_hazards=0, tile96=0, tile96_status="skipped")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "- racecheck, 128x96x64 tile, gemm: no row ran (1 rows, none ok)" in summary
    assert "NOT clean" in summary
    # every row unsupported (a GPU without what the variants need): not a failure
    r, summary, _ = run(tmp_path, hazards=0, vendor_hazards=0, tile96=0, tile96_status="unsupported")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "no row ran" not in summary


def test_devscan_runs_again_with_its_look_back_tuning_instances(tmp_path):
    # the rows with the tuning axes, at 128x24 (every window compiled), every
    # window and sleep, the threshold at 0 (sleeps on at 300001 words), under
    # every tool; and devscan's own --quick run as before
    r, summary, filters = run(tmp_path, hazards=0, devscan=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert filters.count("^devscan/(lookback|lookback_relaxed)/") == 2  # racecheck and memcheck
    lines = (tmp_path / "args").read_text().splitlines()
    tuned = [a for a in lines if "^devscan/(lookback|lookback_relaxed)/" in a]
    assert len(tuned) == 2
    assert all("--block 128 --elems 24 --window 32,64 --first-sleep 0,3000 --poll-sleep 0,648 "
               "--sleep-min-tiles 0" in a and "--n 300001" in a and "--quick" not in a for a in tuned)
    plain = [a for a in lines if "^devscan/" in a and a not in tuned]
    assert plain and all("--quick" in a and "--window" not in a for a in plain)
    assert "look-back tuning" in summary
