"""docs/fleet.md's size of a depth-1 clone, measured: `git clone --depth 1`
of this checkout's commit (file://, as a user's clone receives it), the pack
it receives (git data), the tracked files' sizes (the checkout) and those
under results/*/proofs/. Each figure the page gives holds within 10% of the
measurement, so that a commit that adds data past it updates the page."""
import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MIB = 1 << 20
TOLERANCE = 0.10


def stated():
    with open(os.path.join(ROOT, "docs", "fleet.md"), encoding="utf-8") as f:
        text = " ".join(f.read().split())
    m = re.search(r"`git clone --depth 1` fetches the code and the current results without their history: "
                  r"about (\d+) MiB of git data \(the pack it receives\) and a (\d+) MiB checkout "
                  r"\(the tracked files' sizes\), (\d+) MiB of it the proofs", text)
    assert m, "docs/fleet.md: the depth-1 clone's sentence moved"
    return {"pack": int(m.group(1)), "checkout": int(m.group(2)), "proofs": int(m.group(3))}


def measured(tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{ROOT}", str(clone)], check=True,
                   capture_output=True, timeout=600)
    pack = sum(p.stat().st_size for p in (clone / ".git" / "objects" / "pack").glob("*.pack"))
    files = subprocess.run(["git", "-C", str(clone), "ls-files", "-z"], check=True, capture_output=True,
                           text=True).stdout.split("\0")
    sizes = {f: (clone / f).stat().st_size for f in files if f and (clone / f).is_file()}
    proofs = sum(s for f, s in sizes.items() if re.match(r"results/[^/]+/proofs/", f))
    return {"pack": pack / MIB, "checkout": sum(sizes.values()) / MIB, "proofs": proofs / MIB}


def test_the_stated_clone_sizes_hold(tmp_path):
    if subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True).returncode:
        pytest.skip("not a git checkout: no clone to measure")
    have, say = measured(tmp_path), stated()
    off = {k: f"{say[k]} MiB stated, {have[k]:.1f} MiB measured" for k in say
           if abs(have[k] - say[k]) > TOLERANCE * have[k]}
    assert off == {}, "docs/fleet.md: update the depth-1 clone's sizes"
