"""scripts/kernel_resources.py: the no-spill check make test runs over the
build's ptxas reports."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import kernel_resources  # noqa: E402

# Two kernels as ptxas reports them: scan_kernel<ScanMbarrier, 128, false>
# (timed) and its <..., true> validating twin.
TIMED = "_Z11scan_kernelI12ScanMbarrierLi128ELb0EEv10ScanParams"
TWIN = "_Z11scan_kernelI12ScanMbarrierLi128ELb1EEv10ScanParams"


def report(tmp_path, name, spills):
    """A .res file; spills: {mangled name: spill bytes}."""
    lines = ["ptxas info    : 0 bytes gmem"]
    for mangled, spill in spills.items():
        lines += [
            f"ptxas info    : Compiling entry function '{mangled}' for 'sm_90a'",
            f"ptxas info    : Function properties for {mangled}",
            f"    {spill} bytes stack frame, {spill} bytes spill stores, {spill} bytes spill loads",
            "ptxas info    : Used 40 registers, used 1 barriers, 1032 bytes smem, 400 bytes cmem[0]",
        ]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_parse_reads_registers_smem_and_spills(tmp_path):
    ks = kernel_resources.parse(report(tmp_path, "scan.res", {TIMED: 8}))
    assert len(ks) == 1
    k = ks[0]
    assert (k["arch"], k["regs"], k["smem"], k["stack"], k["spill_st"], k["spill_ld"]) == \
        ("sm_90a", 40, 1032, 8, 8, 8)


def test_last_template_argument():
    assert kernel_resources.last_template_arg("void k<A<1, 2>, 128, true>(P)") == "true"
    assert kernel_resources.last_template_arg("void k<A, 128, false>(P)") == "false"
    assert kernel_resources.last_template_arg("void k<B>(P)") == "B"
    assert kernel_resources.last_template_arg("void k(P)") is None


def test_a_spilling_timed_kernel_fails(tmp_path, capsys):
    rc = kernel_resources.main([report(tmp_path, "scan.res", {TIMED: 16, TWIN: 0})])
    out = capsys.readouterr().out
    assert rc == 1
    assert "SPILL scan.res sm_90a" in out and "16 B stores" in out


def test_a_spilling_validating_twin_is_listed_not_failed(tmp_path):
    table = tmp_path / "t.md"
    rc = kernel_resources.main([report(tmp_path, "scan.res", {TIMED: 0, TWIN: 24}),
                                "--table", str(table)])
    assert rc == 0
    rows = [r for r in table.read_text().splitlines() if "scan_kernel" in r]
    assert len(rows) == 2 and any("| no |" in r and "24/24" in r for r in rows)


def test_broken_family_is_never_failed(tmp_path):
    assert kernel_resources.main([report(tmp_path, "broken.res", {TIMED: 32})]) == 0


def test_reports_without_kernels_are_an_error(tmp_path):
    empty = tmp_path / "x.res"
    empty.write_text("nvcc warning : something\n")
    assert kernel_resources.main([str(empty)]) == 2
    assert kernel_resources.main([str(tmp_path / "missing.res")]) == 2


def test_a_library_kernel_is_listed_not_failed(tmp_path):
    # CUB's scan kernel, compiled into devscan.cu for the ceiling row, spills
    # 4 bytes on sm_90a (CCCL 3.0): not ours to fail; ours beside it still are.
    cub = "_ZN3cub17CUB_300001_SM_9006detail4scan16DeviceScanKernelIPKjPjEEvT_T0_"
    assert kernel_resources.main([report(tmp_path, "devscan.res", {cub: 4, TIMED: 0})]) == 0
    assert kernel_resources.main([report(tmp_path, "devscan.res", {cub: 4, TIMED: 8})]) == 1
