"""scripts/carry_fits.sh: the working tree plus the carried folders against
the device tool's 64 MiB (CARRY_LIMIT_KIB to try another limit)."""
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "carry_fits.sh")


def fits(*dirs, limit=None):
    env = dict(os.environ)
    if limit is not None:
        env["CARRY_LIMIT_KIB"] = str(limit)
    return subprocess.run(["bash", SCRIPT, *map(str, dirs)], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=60)


def test_it_adds_the_carried_folder_to_the_tree(tmp_path):
    (tmp_path / "bin").write_bytes(os.urandom(300 * 1024))
    bare, carried = fits(limit=10**9), fits(tmp_path, limit=10**9)
    assert bare.returncode == carried.returncode == 0
    tree = [int(re.search(r"tree (\d+) KiB \+ carried (\d+) KiB = (\d+) KiB", r.stdout).group(i))
            for r in (bare, carried) for i in (1, 2, 3)]
    assert tree[0] == tree[3] and tree[1] == 0 and tree[4] >= 300 and tree[5] == tree[3] + tree[4]


def test_over_the_limit_is_exit_1_with_what_to_do(tmp_path):
    r = fits(tmp_path, limit=1)
    assert r.returncode == 1 and "over by" in r.stderr and "make carry-lean" in r.stderr


def test_a_missing_folder_is_exit_2(tmp_path):
    r = fits(tmp_path / "nothing")
    assert r.returncode == 2 and "no such file or folder" in r.stderr


def test_carry_lean_refuses_a_rev_that_is_no_commit():
    """make carry-lean REV=<commit> builds that commit in a worktree; a REV
    that names no commit stops before anything is built or removed."""
    before = os.path.exists(os.path.join(ROOT, ".carry_round"))
    r = subprocess.run(["make", "--no-print-directory", "carry-lean", "REV=no-such-rev-0f0f"],
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 2
    assert "carry-lean: REV=no-such-rev-0f0f is not a commit of this repository" in r.stderr
    assert os.path.exists(os.path.join(ROOT, ".carry_round")) == before
