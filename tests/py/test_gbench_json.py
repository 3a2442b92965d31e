"""The path into an existing tracker: github-action-benchmark's `googlecpp`
tool reads gbench JSON (syncbench's --benchmark_out) as, per entry of
`benchmarks`, name -> the series, real_time -> the value, time_unit ->
its unit (+ '/iter'), iterations, cpu_time and threads -> its note. The
JSON here is the one --benchmark_out writes (gbs_write_json, gbench's own
JSONReporter), from the host test that times a fake iteration
(tests/c/test_gbench_shim.c; SB_SHOW_JSON=1 prints it)."""
import json
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEST_HOST = os.path.join(ROOT, "build", "tests", "test_host")


@pytest.fixture(scope="module")
def document():
    if not os.access(TEST_HOST, os.X_OK):
        pytest.fail(f"{TEST_HOST} is missing: make builds it (make test-c)")
    p = subprocess.run([TEST_HOST, "gbench_json"], env=dict(os.environ, SB_SHOW_JSON="1"),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "1 passed, 0 failed" in p.stdout, p.stdout + p.stderr
    start = p.stderr.index("{")
    doc, _ = json.JSONDecoder().raw_decode(p.stderr[start:])
    return doc


def googlecpp(doc):
    """What github-action-benchmark's extractGoogleCppResult makes of it."""
    return [{"name": b["name"], "value": b["real_time"], "unit": b["time_unit"] + "/iter",
             "extra": f"iterations: {b['iterations']}\ncpu: {b['cpu_time']} {b['time_unit']}"
                      f"\nthreads: {b['threads']}"} for b in doc["benchmarks"]]


def test_every_entry_has_what_the_googlecpp_tool_reads(document):
    entries = document["benchmarks"]
    assert entries
    for b in entries:
        assert isinstance(b["name"], str) and b["name"]
        assert isinstance(b["real_time"], (int, float))
        assert isinstance(b["cpu_time"], (int, float))
        assert b["time_unit"] in {"ns", "us", "ms", "s"}
        assert isinstance(b["iterations"], int)
        assert isinstance(b["threads"], int)
    assert "context" in document and "date" in document["context"]


def test_the_tracker_sees_the_manual_time_per_launch(document):
    results = googlecpp(document)
    timed = [r for r, b in zip(results, document["benchmarks"])
             if b.get("run_type") == "iteration" and not b.get("error_occurred")]
    assert timed and all(r["value"] == pytest.approx(2.0) and r["unit"] == "us/iter"
                         for r in timed)  # the fake iteration's 2 us, in --benchmark_time_unit
    # Names are the point names: one series per point (and per aggregate).
    assert all(r["name"].startswith("fam/") and "/manual_time" in r["name"] for r in results)
