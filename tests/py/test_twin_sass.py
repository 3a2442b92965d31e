"""scripts/twin_sass.py: the check that the timed (Bounded=false) kernels
do not change with the watchdog. The comparison logic, on synthetic
cuobjdump output (the real run needs the CUDA Toolkit's cuobjdump)."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
import twin_sass  # noqa: E402

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "twin_sass.py")


def sass(*funcs):
    """cuobjdump -sass text with these (name, [instructions]) functions."""
    lines = ["Fatbin elf code:", "================"]
    for name, instrs in funcs:
        lines.append(f"\t\tFunction : {name}")
        for i, ins in enumerate(instrs):
            lines.append(f"        /*{i * 16:04x}*/                   {ins} ;   /* 0x000000ff0dff79a7 */")
            lines.append("                                                       /* 0x000fe20003800000 */")
    return "\n".join(lines)


# The kernel layer: scan_kernel<ScanMbarrier, 128, Bounded>(ScanParams).
RAW = "_Z11scan_kernelI12ScanMbarrierLi128ELb0EEv10ScanParams"
BOUNDED = "_Z11scan_kernelI12ScanMbarrierLi128ELb1EEv10ScanParams"
CODE = ["SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR6], RZ", "SYNCS.PHASECHK.TRANS64.TRYWAIT P3, [UR6], R10", "EXIT"]


def test_parse_keeps_instructions_without_addresses_or_encodings():
    f = twin_sass.parse_sass(sass((RAW, CODE)))
    assert f == {RAW: CODE}


def test_identical_raw_kernels_pass_and_bounded_ones_are_ignored():
    wd = {"scan.sm_90a.cubin": twin_sass.parse_sass(sass((RAW, CODE), (BOUNDED, CODE + ["CS2R R2, SR_GLOBALTIMERLO"])))}
    nowd = {"scan.sm_90a.cubin": twin_sass.parse_sass(sass((RAW, CODE), (BOUNDED, CODE)))}
    assert twin_sass.compare(wd, nowd) == {("scan.sm_90a.cubin", RAW): "identical"}


def test_one_changed_instruction_is_a_difference():
    changed = CODE[:1] + ["SYNCS.PHASECHK.TRANS64.TRYWAIT P3, [R0+URZ], R10"] + CODE[2:]
    wd = {"scan.sm_90a.cubin": twin_sass.parse_sass(sass((RAW, changed)))}
    nowd = {"scan.sm_90a.cubin": twin_sass.parse_sass(sass((RAW, CODE)))}
    assert twin_sass.compare(wd, nowd) == {("scan.sm_90a.cubin", RAW): "different"}


def test_a_raw_kernel_absent_from_the_other_build_is_missing():
    wd = {"scan.sm_80.cubin": twin_sass.parse_sass(sass((RAW, CODE)))}
    assert twin_sass.compare(wd, {}) == {("scan.sm_80.cubin", RAW): "missing"}


def run(tmp_path, *args, tool=None):
    """The script with a PATH whose only cuobjdump is the fake one, if given."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(sys.executable, bin_dir / "python3")
    if tool is not None:
        (bin_dir / "cuobjdump").write_text(tool)
        (bin_dir / "cuobjdump").chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}:/usr/bin:/bin", CUDA_HOME=str(tmp_path / "no_cuda"))
    env.pop("CUOBJDUMP", None)  # sass_sync.find_tool would prefer it
    return subprocess.run([sys.executable, SCRIPT, *args], env=env, capture_output=True, text=True)


def test_without_cuobjdump_it_says_so_and_exits_2(monkeypatch, capsys):
    monkeypatch.setattr(twin_sass, "find_tool", lambda name: None)
    assert twin_sass.main(["twin_sass.py", "a", "b"]) == 2
    assert "cuobjdump not found" in capsys.readouterr().err


def test_unreadable_binary_exits_2(tmp_path):
    r = run(tmp_path, "nope", "nope", tool="#!/bin/sh\necho 'cuobjdump fatal' >&2\nexit 1\n")
    assert r.returncode == 2 and "cannot read the binaries" in r.stderr


def test_fake_binaries_end_to_end(tmp_path):
    """A fake cuobjdump that 'extracts' one cubin whose raw kernel differs
    between the two binaries (it prints the binary's own text as SASS)."""
    tool = (
        "#!/bin/sh\n"
        "if [ \"$1\" = -xelf ]; then cp \"$3\" scan.sm_90a.cubin; exit 0; fi\n"
        "cat \"$2\"\n"
    )
    a, b, c = tmp_path / "wd", tmp_path / "nowd", tmp_path / "other"
    a.write_text(sass((RAW, CODE)))
    b.write_text(sass((RAW, CODE)))
    c.write_text(sass((RAW, CODE[:2])))
    same = run(tmp_path, str(a), str(b), tool=tool)
    assert same.returncode == 0, same.stderr
    assert "1/1 timed kernels have the same SASS" in same.stdout
    (tmp_path / "bin").rename(tmp_path / "bin1")
    diff = run(tmp_path, str(a), str(c), tool=tool)
    assert diff.returncode == 1 and "different" in diff.stdout


def test_only_a_last_template_argument_false_is_a_raw_twin():
    assert twin_sass.RAW_TWIN.search(RAW)
    assert not twin_sass.RAW_TWIN.search(BOUNDED)
    # `false` in another position (e.g. a flag before the block size) is not Bounded.
    assert not twin_sass.RAW_TWIN.search("_Z1kILb0ELi128EEv10ScanParams")


# gemm_kernel<V, T, S, Bounded> whose V carries a `false` of its own:
# gemm_kernel<GemmSplitKReduceV<false>, GemmTile, 4, false / true>.
GEMM_RAW = "_Z11gemm_kernelI17GemmSplitKReduceVILb0EE8GemmTileLi4ELb0EEv10GemmParams"
GEMM_BOUNDED = "_Z11gemm_kernelI17GemmSplitKReduceVILb0EE8GemmTileLi4ELb1EEv10GemmParams"


def test_the_twin_flag_read_from_the_kernels_decides_not_a_nested_false():
    if twin_sass.demangle([GEMM_BOUNDED])[GEMM_BOUNDED] == GEMM_BOUNDED:
        return  # no c++filt here: RAW_TWIN alone, tested above
    funcs = {GEMM_RAW: CODE, GEMM_BOUNDED: CODE, RAW: CODE, BOUNDED: CODE}
    assert sorted(twin_sass.raw_kernels(funcs)) == sorted([GEMM_RAW, RAW])
