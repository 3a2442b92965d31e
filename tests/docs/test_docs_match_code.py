"""docs/usage.md's and docs/REGRESSIONS.md's statements that the code can
contradict: exit statuses (harness/cli.h, scripts/bench.sh), the sm_80 path's
counts (results/h100-80gb-hbm3/sm80-path.csv), the gate's limits
(scripts/sbcompare.py) and the CI steps (the example workflow's)."""
import collections
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import sbcompare  # noqa: E402
import sbcsv  # noqa: E402


def read(*path):
    with open(os.path.join(ROOT, *path), encoding="utf-8") as f:
        return f.read()


def table_codes(text, header):
    """The first column of the Markdown table under `header`."""
    part = text.split(header, 1)[1].split("\n\n", 1)[0]
    return [int(m) for m in re.findall(r"^\| (\d+) \|", part, re.M)]


def test_binary_exit_statuses_are_the_enum():
    enum = {int(v) for v in re.findall(r"SB_EXIT_\w+ = (\d+)", read("harness", "cli.h"))}
    assert table_codes(read("docs", "usage.md"), "| exit status | meaning |") == sorted(enum)


def test_bench_script_exit_statuses_are_its_header():
    script = {int(v) for v in re.findall(r"^#   (\d+) ", read("scripts", "bench.sh"), re.M)}
    readme = table_codes(read("docs", "usage.md"), "| `scripts/bench.sh` exit status | meaning |")
    assert readme == sorted(script) == [0, 1, 2, 3, 4, 130]
    for code in script:  # and the CI section lists them
        assert f" {code} " in read("docs", "REGRESSIONS.md").split("## CI", 1)[1]


def test_sm80_counts_are_the_committed_csv():
    rows = sbcsv.read(os.path.join(ROOT, "results", "h100-80gb-hbm3", "sm80-path.csv"))
    counts = collections.Counter(r["status"] for r in rows)
    text = " ".join(read("docs", "usage.md").split())
    m = re.search(r"sm80-path\.csv` is that build's whole default sweep on an H100 \(.*?\): "
                  r"(\d+) `ok`, (\d+) `skipped`.*?, (\d+) `unsupported`", text)
    assert m, "docs/usage.md: the sm80-path.csv sentence moved"
    assert [int(m.group(i)) for i in (1, 2, 3)] == [counts["ok"], counts["skipped"],
                                                      counts["unsupported"]]
    assert counts["wrong"] == counts["error"] == counts["deadlock"] == 0


def test_gate_limits_in_the_docs_are_the_code():
    doc = " ".join(read("docs", "REGRESSIONS.md").split())
    assert f"by more than {sbcompare.POWER_STATE_LIMIT * 100:g}% (`POWER_STATE_LIMIT`" in doc
    assert f"under {sbcompare.SUMMARY_LIMIT:,} characters" in doc
    assert f"at most {sbcompare.BRIEF_LINES} lines" in doc
    assert "the ten largest moves" in doc and sbcompare.LARGEST_MOVES == 10


def test_the_csv_page_gives_the_binarys_schema_version():
    version = re.search(r"#define SB_CSV_SCHEMA_VERSION (\d+)", read("harness", "csv_schema.h")).group(1)
    assert re.search(r"^\| `schema_version` \| (\d+) \(history below\) \|$", read("docs", "csv.md"),
                     re.M).group(1) == version


def test_every_make_target_is_in_the_usage_table():
    targets = set(re.findall(r"^([a-z][a-z0-9-]*):", read("Makefile"), re.M))
    table = read("docs", "usage.md").split("| target | what it does |", 1)[1].split("\n\n", 1)[0]
    named = set(re.findall(r"`make ([a-z][a-z0-9-]*)", table))
    assert targets - named - {"test", "bench", "ab"} == set()  # those three: the page's first block
    assert named <= targets


def test_the_ab_runs_time_is_its_proofs():
    """README's and usage.md's "took M min S s in all" is the committed A/A
    run's own wall line."""
    m = re.search(r"wall: whole run (\d+):(\d+)",
                  read("results", "h100-80gb-hbm3", "proofs", "ab_a973f88", "chipB", "aa_ab.txt"))
    said = f"took {int(m.group(1))} min {int(m.group(2))} s in all"
    for page in (("README.md",), ("docs", "usage.md")):
        assert said in " ".join(read(*page).split()), page
