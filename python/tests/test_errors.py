"""Invalid inputs raise LinearLayoutError (a ValueError) or a subclass, with the crate's message,
where Triton's binding aborts the process; the interpreter carries on, in-process."""

import pytest

import linear_layout as ll
from linear_layout import LinearLayout

from conftest import FIXTURES

LANE = LinearLayout.identity_1d(32, "lane", "dim0")
BROADCAST = LinearLayout.zeros_1d(2, "register", "dim0")

# (call, exception class, part of the message). Each of these aborts Triton 3.6's process
# (failed assertion or report_fatal_error) when given to its binding.
REJECTED = [
    (lambda: BROADCAST.invert(), ll.LayoutError, "not invertible"),
    (lambda: LANE.compose(LinearLayout.identity_1d(32, "warp", "dim1")), ll.LayoutError, "compose"),
    (lambda: LANE.invert_and_compose(LinearLayout.identity_1d(32, "lane", "dim1")), ll.LayoutError, "dim"),
    (lambda: LANE.invert_and_compose(LinearLayout.identity_1d(16, "lane", "dim0")), ll.LayoutError, "size"),
    (lambda: LANE.apply({"warp": 1}), ll.LayoutError, "apply"),
    (lambda: LANE.apply({"lane": 1, "warp": 0}), ll.LayoutError, "apply"),
    (lambda: LinearLayout({"x": [[4]]}, {"y": 4}), ll.LayoutError, "does not fit"),
    (lambda: LinearLayout({"x": [[1]]}, {"y": 3}), ll.LayoutError, "power of two"),
    (lambda: LinearLayout({"x": [[-1]]}, {"y": 4}), ll.LayoutError, "negative"),
    (lambda: LinearLayout({"x": [[1, 0]]}, {"y": 4}), ll.LayoutError, "component"),
    (lambda: LinearLayout.identity_1d(6, "x", "y"), ll.LayoutError, "power of two"),
    (lambda: LinearLayout.identity_1d(-4, "x", "y"), ll.LayoutError, "power of two"),
    (lambda: LinearLayout.identity_1d(2**40, "x", "y") * LinearLayout.identity_1d(2**40, "z", "w"), ll.LayoutError, "64"),
    (lambda: LinearLayout.from_dict({"in_dims": {"x": [[4.0]]}, "out_dims": {"y": 8}}), ll.LayoutError, ""),
    (lambda: LinearLayout.from_dict({"in_dims": {}}), ll.LayoutError, "out_dims"),
    (lambda: LANE.get_shared_view(), ll.ViewError, "offset"),
    (lambda: LinearLayout.identity_1d(4, "thread", "dim0").get_distributed_view(True), ll.ViewError, "thread"),
    (lambda: LANE.sublayout(["warp"], ["dim0"]), ll.LayoutError, "subset"),
    (lambda: LANE.squeeze_in("lane"), ll.LayoutError, ""),
    (lambda: LANE.transpose_outs(["dim1"]), ll.LayoutError, ""),
    (lambda: ll.to_linear_layout("#ttg.blocked<{sizePerThread = [1]}>", [4]), ll.EncodingError, ""),
    (lambda: ll.to_linear_layout("#ttg.nonsense<{}>", [4]), ll.EncodingError, ""),
    (lambda: ll.to_linear_layout({"kind": "blocked"}, [4]), ll.EncodingError, ""),
    (lambda: ll.to_linear_layout("#ttg.amd_mfma<{version = 3, warpsPerCTA = [1, 1], instrShape = [32, 32, 8], isTransposed = true}>"), ll.LinearLayoutError, "shape"),
    (lambda: ll.convert_cost(LANE, LANE, target="gfx9999"), ll.LinearLayoutError, "unknown target"),
    (lambda: ll.convert_cost(LANE, LANE, element_bits=12), ll.ConvertError, ""),
    (lambda: ll.convert_cost(LANE, BROADCAST, shape=[32]), ll.LinearLayoutError, ""),
    (lambda: ll.bank_conflicts(LANE, LANE), ll.LinearLayoutError, "shared layout has in-dims offset/block"),
    (lambda: ll.bank_conflicts(LANE, LinearLayout.identity_1d(32, "offset", "dim0"), shape=[48]), ll.LinearLayoutError, "powers of two"),
    (lambda: ll.heuristics("module {", "coalesce", "gfx942"), ll.TtgirError, "unclosed"),
    (lambda: ll.heuristics("module {}", "vectorize", "gfx942"), ll.LinearLayoutError, "unknown pass"),
    (lambda: ll.lower_copy(LANE, [32], "f17"), ll.LowerError, "dtype"),
    (lambda: ll.lower_copy(LANE, [32], "f16", "generic32"), ll.LowerError, ""),
    (lambda: ll.lower_copy(LinearLayout.strided_1d(32, 2, "lane", "dim0"), [64]), ll.LowerError, ""),
    (lambda: ll.lower_copy(LANE, [0]), ll.LinearLayoutError, "positive"),
    (lambda: ll.lower_matmul(100, 128, 64), ll.LowerError, ""),
    (lambda: ll.lower_matmul(128, 128, 64, dtype="f16", acc="i32"), ll.LowerError, "accumulates"),
    (lambda: ll.lower_ttgir("module {\n tt.func @f() {\n tt.return\n }\n}"), ll.LowerError, "ttg.target"),
]


@pytest.mark.parametrize("call, cls, message", REJECTED)
def test_rejected_with_the_crate_message(call, cls, message):
    with pytest.raises(cls) as info:
        call()
    assert isinstance(info.value, ll.LinearLayoutError) and isinstance(info.value, ValueError)
    assert message in str(info.value)
    assert str(info.value)  # always a message


def test_the_interpreter_carries_on_after_every_rejection():
    for call, cls, _ in REJECTED:
        with pytest.raises(cls):
            call()
    # The module is still there and still right.
    assert LANE.invert().apply({"dim0": 5}) == {"lane": 5}
    blocked = "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>"
    assert ll.to_linear_layout(blocked, [32]).sublayout(["lane"], ["dim0"]) == LANE


def test_limits_are_named():
    with pytest.raises(ll.LayoutError) as info:
        LinearLayout({"d%d" % i: [] for i in range(33)}, {"x": 1})
    assert info.value.limit == ("linear::MAX_DIMS", 32, 33)
    with pytest.raises(ll.LinearLayoutError) as info:
        LANE.invert().compose(BROADCAST)
    assert info.value.limit is None


def test_ttgir_errors_say_where():
    with pytest.raises(ll.TtgirError) as info:
        ll.lower_ttgir("module {\n  tt.func @f() {\n")
    assert info.value.line >= 1 and info.value.column >= 1


def test_wrong_python_types_are_type_errors():
    with pytest.raises(TypeError):
        LANE.apply([("lane", 1)])
    with pytest.raises(TypeError):
        LANE.apply({"lane": "1"})
    with pytest.raises(TypeError):
        LANE.compose("lane")
    with pytest.raises(TypeError):
        LinearLayout({"x": [[True]]}, {"y": 2})
    with pytest.raises(TypeError):
        LinearLayout({"x": "bases"}, {"y": 2})
    with pytest.raises(TypeError):
        ll.to_linear_layout(42, [4])
    assert LANE.__mul__("x") is NotImplemented


def test_fuzz_findings_are_answered(fixtures):
    """Every input a fuzzer found a defect with, through the Python API: answered or rejected
    with LinearLayoutError, never a crash."""
    answered = 0
    for path in sorted((fixtures / "fuzz-regressions" / "encoding_text").iterdir()):
        for shape in ([64, 64], [16, 16, 16], [128]):
            try:
                ll.to_linear_layout(path.read_text(errors="replace"), shape)
                answered += 1
            except ll.LinearLayoutError:
                pass
    for path in sorted((fixtures / "fuzz-regressions" / "ttgir_passes").iterdir()):
        text = path.read_text(errors="replace")
        for call in (
            lambda: ll.heuristics(text, "coalesce", "gfx942"),
            lambda: ll.heuristics(text, "accelerate_matmul", "gfx950"),
            lambda: ll.lower_ttgir(text, "gfx942"),
        ):
            try:
                call()
                answered += 1
            except ll.LinearLayoutError:
                pass
    assert answered > 0
