"""The API in use: constructors in Triton's forms, queries, encodings, views, costs, the layout
passes and the lowering, each checked against a known answer or against the command line."""

import pathlib
import subprocess

import pytest

import linear_layout as ll
from linear_layout import LinearLayout

from conftest import REPO

BLOCKED = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
MFMA = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>"
SWIZZLED = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"


def test_constructors_agree():
    swap = {"x": [[2], [1]]}
    a = LinearLayout(swap, {"y": 4})
    assert a == LinearLayout([("x", [[2], [1]])], [("y", 4)])
    assert a == LinearLayout(swap, ["y"])  # sizes inferred
    assert a == LinearLayout.from_bases([("x", [[2], [1]])], ["y"], [4])
    assert a == LinearLayout.from_bases([("x", [[2], [1]])], ["y"])
    assert a == LinearLayout.from_dict({"in_dims": {"x": [[2], [1]]}, "out_dims": {"y": 4}})
    assert a.to_dict() == {"in_dims": {"x": [[2], [1]]}, "out_dims": {"y": 4}}
    assert a.invert().bases == [("y", [[2], [1]])]
    assert LinearLayout() == LinearLayout.empty() and str(LinearLayout()) == "\n(empty layout)"
    # A non-surjective layout with explicit sizes is accepted unless surjectivity is required.
    assert not LinearLayout({"x": [[2]]}, {"y": 4}).is_surjective()
    with pytest.raises(ll.LayoutError, match="surjective"):
        LinearLayout({"x": [[2]]}, {"y": 4}, require_surjective=True)
    with pytest.raises(ll.LayoutError):
        LinearLayout.from_bases([("x", [[2]])], ["y"], [4])  # Triton's default requires it


def test_one_dimensional_constructors():
    s = LinearLayout.strided_1d(4, 2, "register", "dim0")
    assert s.out_dim_size("dim0") == 8 and s.apply({"register": 3}) == {"dim0": 6}
    z = LinearLayout.zeros_1d(8, "lane", "dim0")
    assert z.in_dim_size("lane") == 8 and not z.is_injective()
    assert LinearLayout.zeros_1d(2, "i", "o", 4).out_dims == [("o", 4)]


def test_printing_is_tritons():
    l = LinearLayout.identity_1d(4, "lane", "dim0")
    assert str(l) == "\n - lane=1 -> (1)\n   lane=2 -> (2)\nwhere out dims are: [dim0 (size 4)]"
    assert repr(l) == str(l)


def test_structure_queries():
    l = ll.to_linear_layout(MFMA, [64, 64])
    assert l.get_in_dim_names() == ["register", "lane", "warp", "block"]
    assert l.in_dims == [("register", 16), ("lane", 64), ("warp", 4), ("block", 1)]
    assert l.out_dims == [("dim0", 64), ("dim1", 64)] and l.num_out_dims == 2
    assert l.total_in_bits() == 12 == l.total_out_bits() == l.rank()
    assert l.is_invertible() and l.total_in_size() == 4096 == l.total_out_size()
    assert l.bases_of("lane") == dict(l.bases)["lane"] and l.basis("lane", 0) == l.bases_of("lane")[0]
    assert len(l.get_matrix_view()) == 12
    # Registers run along dim1: 4 consecutive elements of it, none of dim0.
    assert l.get_num_consecutive_in_out() == 1
    assert l.transpose_outs(["dim1", "dim0"]).get_num_consecutive_in_out() == 4
    assert l.sublayout(["lane"], ["dim0", "dim1"]).get_in_dim_names() == ["lane"]
    assert l.flatten_outs().out_dims == [("dim0", 4096)]
    assert l.transpose_outs(["dim1", "dim0"]).get_out_dim_names() == ["dim1", "dim0"]
    assert l.rename_in_dim("lane", "thread").has_in_dim("thread")
    assert l.squeeze_in("block").num_in_dims == 3
    assert l.reshape_ins([("hw", 4096)]).in_dims == [("hw", 4096)]
    assert l.resize_in_dim("register", 32).in_dim_size("register") == 32
    assert l.free_variable_masks() == [("register", 0), ("lane", 0), ("warp", 0), ("block", 0)]
    t = LinearLayout.identity_1d(4, "register", "dim0") * LinearLayout.identity_1d(2, "block", "block")
    assert t.is_trivial_over(["block"]) and t.quotient(["block"]) == LinearLayout.identity_1d(4, "register", "dim0")


def test_conversion_in_the_readme():
    blocked = (
        LinearLayout.identity_1d(2, "register", "dim0")
        * LinearLayout.identity_1d(32, "lane", "dim0")
        * LinearLayout.identity_1d(2, "warp", "dim0")
    )
    assert blocked.apply({"register": 1, "lane": 3, "warp": 1}) == {"dim0": 71}
    assert blocked.invert().apply({"dim0": 71}) == {"register": 1, "lane": 3, "warp": 1}
    dst = (
        LinearLayout.identity_1d(64, "lane", "dim0")
        * LinearLayout.identity_1d(2, "register", "dim0")
        * LinearLayout.identity_1d(1, "warp", "dim0")
    )
    c = blocked.invert_and_compose(dst)
    assert c.compose(dst) == blocked


def test_apply_reads_int32_as_triton_does():
    l = LinearLayout.identity_1d(8, "lane", "dim0")
    assert l.apply({"lane": 9}) == {"dim0": 1}  # bits above the size are ignored
    assert l.apply({"lane": -1}) == {"dim0": 7}  # two's complement


def test_encodings_in_every_form():
    want = ll.to_linear_layout(BLOCKED, [128, 128])
    assert ll.to_linear_layout("tensor<128x128xf16, %s>" % BLOCKED) == want
    as_dict = {
        "kind": "blocked",
        "sizePerThread": [1, 8],
        "threadsPerWarp": [8, 8],
        "warpsPerCTA": [4, 1],
        "order": [1, 0],
    }
    assert ll.to_linear_layout(as_dict, (128, 128)) == want
    assert ll.to_linear_layout({"kind": "mlir", "text": BLOCKED}, [128, 128]) == want


def test_views_are_tritons():
    l = LinearLayout.identity_1d(4, "register", "dim0") * LinearLayout.identity_1d(2, "lane", "dim0")
    assert ll.tensor_view(l) == l.get_distributed_view(False)
    assert ll.hardware_view(l) == l.get_distributed_view(True)
    assert "T0:0" in ll.tensor_view(l) and "T1:3" in ll.tensor_view(l)
    smem = ll.to_linear_layout(SWIZZLED, [16, 16])
    assert ll.tensor_view(SWIZZLED, [16, 16]) == smem.get_shared_view(False)


def test_convert_cost_of_the_rustdoc_example():
    src = LinearLayout({"register": [[1]], "lane": [[2]], "warp": [[4]]}, {"dim0": 8})
    dst = LinearLayout({"register": [[1]], "lane": [[4]], "warp": [[2]]}, {"dim0": 8})
    c = ll.convert_cost(src, dst, element_bits=32, target="gfx942")
    assert c.kind == "lds"
    assert c.instructions["ds_write_b64"] == 1 and c.instructions["s_barrier"] == 1
    assert c.shared_layout is not None and c.shared_layout.get_in_dim_names()[0] == "offset"
    d = c.to_dict()
    assert d["kind"] == "lds" and d["shared_layout"] == c.shared_layout.to_dict()
    assert ll.convert_cost(src, src, element_bits=32).kind == "noop"


def test_bank_conflicts_on_amd_and_generic_models():
    dist = LinearLayout.identity_1d(4, "register", "dim0") * LinearLayout.identity_1d(64, "lane", "dim0")
    smem = LinearLayout.identity_1d(256, "offset", "dim0")
    amd = ll.bank_conflicts(dist, smem, element_bits=32, target="gfx950")
    assert (amd.value, amd.write, amd.read, amd.access_bits) == (0, 0, 0, 128)
    generic = ll.bank_conflicts(dist, smem, element_bits=32)
    assert generic.to_dict() == {"value": 1} and generic.write is None
    assert set(ll.TARGETS) >= {"gfx942", "gfx950", "generic32"}


def cli():
    """The command built by `cargo test` / `cargo build`, if there is one."""
    for profile in ("debug", "release"):
        exe = REPO / "target" / profile / "linear-layout"
        if exe.is_file():
            return exe
    pytest.skip("no linear-layout binary built beside the package")


def run_cli(*args):
    return subprocess.run([str(cli()), *map(str, args)], check=True, capture_output=True, text=True).stdout


def test_lowering_is_the_command_lines():
    assert ll.lower_copy(BLOCKED, [128, 128]) == run_cli("lower", "copy", BLOCKED, "--shape", "128x128")
    ir = ll.lower_convert(BLOCKED, MFMA, [128, 128], "f16", "gfx950")
    assert ir == run_cli("lower", "convert", BLOCKED, MFMA, "--shape", "128x128", "--arch", "gfx950")
    assert "define amdgpu_kernel void @convert(" in ir
    assert ll.lower_matmul(128, 128, 64, warps=4) == run_cli("lower", "matmul", "--mnk", "128x128x64")
    ttgir = REPO / "tests" / "fixtures" / "lower" / "ttgir" / "a_copy2d_128x128_f16.gfx942.ttgir"
    assert ll.lower_ttgir(ttgir.read_text()) == run_cli("lower", "ttgir", ttgir)


def test_lowering_without_the_command_line():
    ir = ll.lower_copy(LinearLayout.identity_1d(64, "lane", "dim0"), [48], "i8", "gfx942")
    assert ir.startswith("; copy for gfx942") and "amdgcn-amd-amdhsa" in ir
    shared = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"
    # gfx950 writes a wave's lanes one after another: 16 lanes of 16 B make one 128-wide row.
    rows = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]}>"
    ir = ll.lower_lds_copy(rows, shared, MFMA, [128, 128], "f16", "gfx950")
    assert "define amdgpu_kernel void @lds_copy(" in ir
    with pytest.raises(ll.LowerError, match="lane bit 3 must be LDS offset 64"):
        ll.lower_lds_copy(BLOCKED, shared, MFMA, [128, 128], "f16", "gfx950")


def test_heuristics_are_the_command_lines():
    path = REPO / "tests" / "fixtures" / "heuristics" / "coalesce" / "c1d_bf16_n1024_div16_w1_t32.mlir"
    (report,) = ll.heuristics(path.read_text(), "coalesce", "gfx942")
    assert report.arch == "gfx942" and report.module_line >= 1
    header = "coalesce on gfx942 (%d warps × %d lanes)\n" % (report.num_warps, report.threads_per_warp)
    assert header + report.text == run_cli("heuristics", path, "--pass", "coalesce", "--arch", "gfx942")
    assert report.to_dict()["mem"][0]["enc"]["kind"] == "ttg.blocked"


def test_several_modules_give_several_reports():
    path = REPO / "tests" / "fixtures" / "heuristics" / "coalesce" / "c1d_bf16_n1024_div16_w1_t32.mlir"
    text = path.read_text()
    reports = ll.heuristics(text + "\n// -----\n" + text, "coalesce", "gfx950")
    assert len(reports) == 2 and reports[1].module_line > reports[0].module_line
    first, second = (r.to_dict()["mem"] for r in reports)
    assert [m["enc"] for m in first] == [m["enc"] for m in second]


def test_stubs_name_every_export():
    stubs = (pathlib.Path(ll.__file__).parent / "_native.pyi").read_text()
    for name in ll.__all__:
        if name != "__version__":
            assert ("def %s(" % name) in stubs or ("class %s" % name) in stubs or (name + ":") in stubs, name
