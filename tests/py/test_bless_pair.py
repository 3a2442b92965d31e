"""scripts/bless_pair.py on a results tree in a temporary directory (not a
git work tree), with committed default sweeps as the runs: the replaced
pair moves to history/ under its run's name, compressed, its content byte
for byte (the round's own .csv.xz of the same run where there is one), the
new runs become baseline.csv and latest.csv, and every pair the gate
could not take as one A/A is refused with one line and exit 2, nothing moved."""
import atexit
import csv
import filecmp
import lzma
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "bless_pair.py")
HISTORY = os.path.join(ROOT, "results", "h100-80gb-hbm3", "history")
# The committed runs are kept as .csv.xz; a blessing takes default sweeps as
# syncbench writes them, so the tests bless plain copies.
_PLAIN = tempfile.mkdtemp(prefix="bless_pair_runs_")
atexit.register(shutil.rmtree, _PLAIN, True)


def _plain(name):
    out = os.path.join(_PLAIN, name)
    with lzma.open(os.path.join(HISTORY, name + ".xz")) as f, open(out, "wb") as o:
        o.write(f.read())
    return out


OLD = [_plain(n) for n in ("20261127T203025Z_9249a8b_051d54bf.csv", "20261127T203929Z_9249a8b_2992410b.csv")]
NEW = [_plain(n) for n in ("20261127T230214Z_5a44e11_6d33bd4f.csv", "20261127T230725Z_5a44e11_2431d5fb.csv")]


@pytest.fixture
def results(tmp_path):
    """results/h100-80gb-hbm3 holding the 9249a8b pair as baseline/latest."""
    gpu = tmp_path / "results" / "h100-80gb-hbm3"
    (gpu / "history").mkdir(parents=True)
    shutil.copyfile(OLD[0], gpu / "baseline.csv")
    shutil.copyfile(OLD[1], gpu / "latest.csv")
    return tmp_path / "results"


def bless(results, a, b, *extra):
    return subprocess.run([sys.executable, SCRIPT, str(a), str(b), "--results", str(results), *extra],
                          capture_output=True, text=True, timeout=120)


def edited(tmp_path, src, name, fn):
    with open(src, newline="") as f:
        reader = csv.DictReader(f)
        header, rows = reader.fieldnames, [x for x in (fn(dict(r)) for r in reader) if x is not None]
    path = tmp_path / name
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return path


def test_a_pair_is_blessed_and_the_old_one_kept_byte_for_byte(results):
    r = bless(results, NEW[0], NEW[1])
    assert r.returncode == 0, r.stderr
    gpu = results / "h100-80gb-hbm3"
    assert filecmp.cmp(gpu / "baseline.csv", NEW[0], shallow=False)
    assert filecmp.cmp(gpu / "latest.csv", NEW[1], shallow=False)
    # the replaced pair, under the names the committed history uses, compressed
    for old in OLD:
        with lzma.open(gpu / "history" / (os.path.basename(old) + ".xz")) as f, open(old, "rb") as o:
            assert f.read() == o.read()
    assert sorted(os.listdir(gpu / "history")) == sorted(os.path.basename(o) + ".xz" for o in OLD)
    assert "now rerun" in r.stdout


def test_the_old_run_becomes_its_rounds_own_file_where_that_holds_it(results, tmp_path):
    """history/ takes the very bytes of proofs/round_<commit>/sweep_<chip>.csv.xz
    when it decompresses to the old run (one blob in git), and compresses
    the run itself where the round's file holds anything else."""
    gpu = results / "h100-80gb-hbm3"
    rnd = gpu / "proofs" / "round_9249a8b"
    rnd.mkdir(parents=True)
    with open(OLD[0], "rb") as f, lzma.open(rnd / "sweep_051d54bf.csv.xz", "wb", preset=1) as out:
        out.write(f.read())
    with open(OLD[1], "rb") as f, lzma.open(rnd / "sweep_2992410b.csv.xz", "wb", preset=1) as out:
        out.write(f.read() + b"\n")  # not the same run: one byte more
    dry = bless(results, NEW[0], NEW[1], "--dry-run")
    assert dry.returncode == 0 and dry.stdout.count(" (as ") == 1, dry.stdout
    assert "sweep_051d54bf.csv.xz" in dry.stdout
    assert bless(results, NEW[0], NEW[1]).returncode == 0
    hist = gpu / "history"
    assert filecmp.cmp(hist / "20261127T203025Z_9249a8b_051d54bf.csv.xz", rnd / "sweep_051d54bf.csv.xz",
                       shallow=False)
    assert not filecmp.cmp(hist / "20261127T203929Z_9249a8b_2992410b.csv.xz", rnd / "sweep_2992410b.csv.xz",
                           shallow=False)
    with lzma.open(hist / "20261127T203929Z_9249a8b_2992410b.csv.xz") as f, open(OLD[1], "rb") as o:
        assert f.read() == o.read()


def test_a_dry_run_prints_the_moves_and_changes_nothing(results):
    before = sorted(os.listdir(results / "h100-80gb-hbm3"))
    r = bless(results, NEW[0], NEW[1], "--dry-run")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("\n") == 4 and r.stdout.startswith("move ")
    assert "history/20261127T203025Z_9249a8b_051d54bf.csv" in r.stdout
    assert sorted(os.listdir(results / "h100-80gb-hbm3")) == before
    assert filecmp.cmp(results / "h100-80gb-hbm3" / "latest.csv", OLD[1], shallow=False)


@pytest.mark.parametrize("case, words", [
    ("same chip", "column 'gpu_uuid'"),
    ("two commits", "column 'commit'"),
    ("dirty", "from a clean commit"),
    ("wrong row", "column 'status': wrong"),
    ("two flushes", "a pair is one flush"),
    ("another sweep", "a pair is one sweep"),
    ("no gpu dir", "to bless it into"),
])
def test_a_pair_the_gate_could_not_take_is_refused(results, tmp_path, case, words):
    a, b = NEW
    if case == "same chip":
        b = a
    elif case == "two commits":
        b = OLD[1]
    elif case == "dirty":
        b = edited(tmp_path, b, "dirty.csv", lambda r: {**r, "commit": r["commit"] + "-dirty"})
        a = edited(tmp_path, a, "dirty_a.csv", lambda r: {**r, "commit": r["commit"] + "-dirty"})
    elif case == "wrong row":
        first = []

        def one_wrong(r):
            if r["status"] == "ok" and not first:
                first.append(r)
                return {**r, "status": "wrong"}
            return r
        b = edited(tmp_path, b, "wrong.csv", one_wrong)
    elif case == "two flushes":
        b = edited(tmp_path, b, "read.csv", lambda r: {**r, "detail": r["detail"].replace(
            "L2 flushed before each sample", "L2 flushed by a read before each sample")})
    elif case == "another sweep":
        b = edited(tmp_path, b, "fewer.csv", lambda r: r if r["family"] != "devscan" else None)
    elif case == "no gpu dir":
        shutil.rmtree(results / "h100-80gb-hbm3")
    before = {p: open(p, "rb").read() for p in (results / "h100-80gb-hbm3").glob("*.csv")} \
        if (results / "h100-80gb-hbm3").exists() else {}
    r = bless(results, a, b)
    assert r.returncode == 2 and r.stdout == "", (case, r.stdout, r.stderr)
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("bless_pair: ") and words in r.stderr, r.stderr
    after = {p: open(p, "rb").read() for p in (results / "h100-80gb-hbm3").glob("*.csv")} \
        if (results / "h100-80gb-hbm3").exists() else {}
    assert after == before
    if (results / "h100-80gb-hbm3" / "history").exists():
        assert os.listdir(results / "h100-80gb-hbm3" / "history") == []


def test_the_same_pair_blessed_twice_is_refused(results):
    assert bless(results, NEW[0], NEW[1]).returncode == 0
    shutil.copyfile(OLD[0], results / "h100-80gb-hbm3" / "baseline.csv")  # as if put back by hand
    r = bless(results, NEW[0], NEW[1])
    assert r.returncode == 2 and "already there" in r.stderr


@pytest.mark.parametrize("order", ["same", "swapped"])
def test_the_pairs_own_files_are_refused_and_nothing_moves(results, order):
    """Blessing results/<gpu>/baseline.csv or latest.csv itself would move it
    to history/ before copying it: refused by name, the pair left as it is."""
    assert bless(results, NEW[0], NEW[1]).returncode == 0
    gpu = results / "h100-80gb-hbm3"
    a, b = gpu / "baseline.csv", gpu / "latest.csv"
    if order == "swapped":
        a, b = b, a
    before = {p.name: p.read_bytes() for p in gpu.glob("*.csv")}
    hist = sorted(os.listdir(gpu / "history"))
    r = bless(results, a, b)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert any(f"{x}: is {x} itself" in r.stderr for x in (a, b)) and "bless a copy" in r.stderr
    assert {p.name: p.read_bytes() for p in gpu.glob("*.csv")} == before
    assert sorted(os.listdir(gpu / "history")) == hist


def test_no_staging_file_is_left_behind(results):
    assert bless(results, NEW[0], NEW[1]).returncode == 0
    left = [p for p in results.rglob("*.part")]
    assert left == []


def test_in_a_git_work_tree_the_old_pair_leaves_the_index_and_its_history_file_enters_it(results):
    repo = results.parent
    git = lambda *a: subprocess.run(["git", "-C", str(repo), *a], capture_output=True, text=True,  # noqa: E731
                                    check=True).stdout
    git("init", "-q")
    git("-c", "user.email=t@t", "-c", "user.name=t", "add", "results")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "pair")
    assert bless(results, NEW[0], NEW[1]).returncode == 0
    status = git("status", "--porcelain").splitlines()
    for old, name in zip(OLD, ("baseline.csv", "latest.csv")):
        assert f"A  results/h100-80gb-hbm3/history/{os.path.basename(old)}.xz" in status, status
        assert f"D  results/h100-80gb-hbm3/{name}" in status, status  # the new run: not yet added
        assert f"?? results/h100-80gb-hbm3/{name}" in status, status
