"""scripts/sanitize.sh on fakes: a syncbench that lists two families and a
compute-sanitizer that prints a chosen summary. Checks the parsing of each
tool's summary and that racecheck leaves out the completion variants."""
import os
import stat
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

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
  exit 0 ;;
esac
# A sweep: remember the filter, write a CSV with one ok row.
out=""; prev=""
for a in "$@"; do [ "$prev" = --out ] && out=$a; [ "$prev" = --filter ] && echo "$a" >> "$FAKE_FILTERS"; prev=$a; done
printf 'h\n1,stencil,two_barrier,ok\n' > "$out"
"""

FAKE_SANITIZER = r"""#!/usr/bin/env bash
tool=$2
while [ $# -gt 0 ] && [ ! -x "$1" ]; do shift; done   # drop the sanitizer's own options
"$@" > /dev/null
if [ "$tool" = racecheck ]; then
  echo "========= RACECHECK SUMMARY: ${FAKE_HAZARDS:-0} hazards displayed (${FAKE_HAZARDS:-0} errors, 0 warnings)"
else
  echo "========= ERROR SUMMARY: 0 errors"
fi
"""


def write_exe(path, text):
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def run(tmp_path, hazards):
    write_exe(tmp_path / "syncbench", FAKE_SYNCBENCH)
    write_exe(tmp_path / "cs", FAKE_SANITIZER)
    env = dict(os.environ, COMPUTE_SANITIZER=str(tmp_path / "cs"), FAKE_HAZARDS=str(hazards),
               FAKE_FILTERS=str(tmp_path / "filters"), SANITIZE_TOOLS="racecheck memcheck")
    r = subprocess.run(["bash", os.path.join(ROOT, "scripts", "sanitize.sh"),
                        str(tmp_path / "syncbench")], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=60)
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


def test_racecheck_leaves_out_completion_variants(tmp_path):
    _, summary, filters = run(tmp_path, hazards=0)
    assert filters[0] == "^stencil/(two_barrier)/"   # racecheck: no completion
    assert filters[1] == "^stencil/"                 # memcheck: every variant
    assert "completion|completion_function" in summary
