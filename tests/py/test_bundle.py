"""make bundle: a build packaged for a GPU node without the CUDA Toolkit
(docs/fleet.md, "A bundle for a GPU node"), and scripts/bundle.sh, which
unpacks it there."""
import lzma
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_bundle_refuses_a_rev_that_is_no_commit(tmp_path):
    """make bundle REV=<commit> builds that commit in a worktree; a REV
    that names no commit stops before anything is built or removed."""
    out = tmp_path / "bundle"
    out.mkdir()
    (out / "keep").write_text("x")
    r = subprocess.run(["make", "--no-print-directory", "bundle", "REV=no-such-rev-0f0f",
                        f"BUNDLE={out}"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 2
    assert "bundle: REV=no-such-rev-0f0f is not a commit of this repository" in r.stderr
    assert (out / "keep").exists()


def test_unpack_bundle_restores_each_binary_in_place(tmp_path):
    (tmp_path / "sm80").mkdir()
    for rel, data in (("syncbench", b"\x7fELF one"), ("sm80/syncbench", b"\x7fELF two")):
        with lzma.open(tmp_path / (rel + ".xz"), "wb") as f:
            f.write(data)
    (tmp_path / "plain_kernels").write_bytes(b"left alone")
    r = subprocess.run(["bash", "-c", f'. "{ROOT}/scripts/bundle.sh"; unpack_bundle "$1" --drop',
                        "-", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "syncbench").read_bytes() == b"\x7fELF one"
    assert (tmp_path / "sm80" / "syncbench").read_bytes() == b"\x7fELF two"
    assert os.access(tmp_path / "syncbench", os.X_OK)
    assert sorted(p.name for p in tmp_path.rglob("*.xz")) == []
    assert (tmp_path / "plain_kernels").read_bytes() == b"left alone"


def test_a_bundle_of_a_variant_build_packs_that_build_and_leaves_build_alone(tmp_path):
    """make bundle EXPERIMENTAL=1 builds and packs build/experimental's
    binary: its -DSB_EXPERIMENTAL objects and +experimental commit never go
    into build/, whose default binary a plain bundle packs."""
    def strip_source(*args):
        r = subprocess.run(["make", "-n", "--no-print-directory", "bundle", f"BUNDLE={tmp_path}", *args],
                           capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert r.returncode == 0, r.stderr
        lines = [ln for ln in r.stdout.splitlines() if ln.startswith(f"strip -o {tmp_path}/syncbench ")]
        assert len(lines) == 1, r.stdout[-2000:]
        return lines[0].split()[3]
    assert strip_source("EXPERIMENTAL=1") == "./build/experimental/syncbench"
    assert strip_source() == "./build/syncbench"
