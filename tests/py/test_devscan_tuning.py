"""devscan's look-back tuning axes and the reference family's vector_copy,
as the binary and scripts/devscan_tuning.sh state them (no GPU needed):
--list documents the four axes under devscan alone, the table marks which
rows read them and which row is the copy yardstick, bad values are one
line and exit 2, and the measurement script prints the sweeps it runs."""
import csv
import io
import os
import subprocess

from sbcli import ROOT, run

AXES = {"window": "32", "first_sleep_ns": "3000", "poll_sleep_ns": "648", "sleep_min_tiles": "500"}
SCRIPT = os.path.join(ROOT, "scripts", "devscan_tuning.sh")
BIN = os.path.join(ROOT, "build", "syncbench")


def list_axes(text):
    """--list -> {family: {axis: (default, help)}}."""
    out, fam = {}, None
    for line in text.splitlines():
        if line and not line.startswith(" "):
            fam = line.split(":", 1)[0]
            out[fam] = {}
        elif line.strip().startswith("axis "):
            words = line.split()
            out[fam][words[1]] = (words[3], " ".join(words[6:]))
    return out


def test_list_shows_the_tuning_axes_under_devscan_only(syncbench, tmp_path):
    r = run("--list", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    axes = list_axes(r.stdout)
    for name, today in AXES.items():
        default, help_text = axes["devscan"][name]
        assert default == today
        assert "lookback" in help_text and "blank unless named" in help_text
        assert all(name not in a for f, a in axes.items() if f != "devscan")


def test_the_table_marks_the_tuned_rows_and_the_yardstick(syncbench, tmp_path):
    r = run("--list", "--format=csv", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    flags = {(x["family"], x["variant"]): set(x["flags"].split(";")) for x in rows}
    tuned = sorted(v for (f, v), fl in flags.items() if "lookback_tuning" in fl)
    assert tuned == ["lookback", "lookback_relaxed"]
    assert all(f == "devscan" for (f, v), fl in flags.items() if "lookback_tuning" in fl)
    yard = [(f, v) for (f, v), fl in flags.items() if "yardstick" in fl]
    assert yard == [("reference", "d2d_copy")]
    assert flags[("reference", "vector_copy")].isdisjoint({"yardstick", "no_kernel"})


def test_a_tuning_value_out_of_bounds_is_one_line_and_exit_2(syncbench, tmp_path):
    for args in (["--window", "0"], ["--first-sleep", "-5"], ["--poll-sleep", "2000000"],
                 ["--sleep-min-tiles", "many"]):
        r = run("--benchmark_list_tests", *args, cwd=tmp_path)
        assert r.returncode == 2, args
        assert r.stderr.count("\n") == 1 and r.stdout == "", (args, r.stderr)


def test_named_axes_fill_the_lookback_points_only(syncbench, tmp_path):
    r = run("--benchmark_list_tests", "--filter", "^devscan/", "--n", "256M", "--block", "128",
            "--elems", "24", "--window", "32,64", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    names = r.stdout.split()
    tuned = [n for n in names if "/window=" in n]
    assert len(tuned) == 4 and all(n.split("/")[1] in ("lookback", "lookback_relaxed") for n in tuned)
    assert all("first_sleep_ns=3000/poll_sleep_ns=648/sleep_min_tiles=500" in n for n in tuned)
    assert "reference/vector_copy/n=134217728" in names


def test_the_measurement_script_prints_its_sweeps(syncbench, tmp_path):
    p = subprocess.run([SCRIPT, "--dry-run", BIN, "0", str(tmp_path / "out")], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    commands = [line for line in lines if line.startswith(BIN)]
    assert len(commands) == 3
    assert "'--window' '32,64' '--first-sleep' '0,1245,3000' '--poll-sleep' '0,648'" in commands[0]
    assert "'^devscan/(cub|lookback|lookback_relaxed)/'" in commands[0]
    assert "'--sleep-min-tiles' '0,500,100000'" in commands[1]
    counts = [int(line.split()[0]) for line in lines if line.endswith("points a repetition")]
    assert counts[:2] == [147, 30] and counts[2] > 0
    assert not (tmp_path / "out").exists()  # a dry run writes nothing
    bad = subprocess.run([SCRIPT, BIN, "0", str(tmp_path / "out"), "zero"], capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
