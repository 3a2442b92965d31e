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


def test_template_arguments():
    assert kernel_resources.template_args("void k<A<1, 2>, 128, true>(P)") == ["A<1, 2>", "128", "true"]
    assert kernel_resources.template_args("void k<B>(P)") == ["B"]
    assert kernel_resources.template_args("void k(P)") is None
    assert kernel_resources.kernel_name("void ns::k<A, true>(P)") == "k"


def test_the_twin_flag_is_read_from_each_kernel_templates_declaration():
    flags = kernel_resources.twin_flags([kernel_resources.KERNELS_DIR])
    assert flags["scan_kernel"] == 2 and flags["gemm_kernel"] == 3 and flags["barrier_kernel"] == 1
    assert flags["gemm_reduce_kernel"] is None  # no twin: every instantiation is timed


def test_a_declaration_names_its_flag_wherever_it_stands(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text("// template <bool Bounded> __global__ void not_a_kernel(int);\n"
                   "template <bool Bounded, int B, bool Wide = true>\n"
                   "__global__ void __launch_bounds__(B, Bounded ? 1 : 2) k(const P p) {}\n")
    assert kernel_resources.twin_flags([str(tmp_path)]) == {"k": 0}
    twin = {"file": "x.res", "name": "void k<true, 128, false>(P)"}
    timed = {"file": "x.res", "name": "void k<false, 128, true>(P)"}
    assert not kernel_resources.is_timed(twin, {"k": 0})
    assert kernel_resources.is_timed(timed, {"k": 0})
    assert kernel_resources.is_timed(twin, {})  # an undeclared kernel is timed


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


def test_a_spilling_narrow_reduction_fails(tmp_path, capsys):
    # gemm_reduce_kernel<GemmTile<128, 128>, false, false, false, true>: its
    # last argument is Narrow, not a twin flag; the kernel is timed.
    narrow = "_Z18gemm_reduce_kernelI8GemmTileILi128ELi128EELb0ELb0ELb0ELb1EEv10GemmParams"
    rc = kernel_resources.main([report(tmp_path, "gemm.res", {narrow: 8})])
    out = capsys.readouterr().out
    assert rc == 1
    assert "SPILL gemm.res sm_90a" in out and "gemm_reduce_kernel" in out


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
