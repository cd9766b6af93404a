"""The crate's recorded fixtures answered through the Python API agree with the recorded
answers of Triton 3.6.0 (and so with the Rust tests, which check the same files)."""

import json

import linear_layout as ll
from linear_layout import LinearLayout

from conftest import jsonl
from protocol import answer

RESULT_MEMBERS = ("layout", "outputs", "value")


def _documented_deviation(request, ours, theirs):
    """The crate's documented departures from Triton 3.6 (see tests/differential.rs): where
    Triton asserts on a valid input, our answer must satisfy the operation's law."""
    if theirs["ok"] or not ours["ok"] or "layout" not in ours:
        return False
    error = theirs.get("error", "")
    l = LinearLayout.from_dict(request["layout"])
    c = LinearLayout.from_dict(ours["layout"])
    op = request["op"]
    if op == "invert":
        return "ANonIdentityInDims" in error and l.is_invertible() and l.compose(c).compose(l) == l
    if op == "pseudoinvert":
        known = "ANonIdentityInDims" in error or "Im(B) not contained" in error
        return known and l.compose(c).compose(l) == l
    if op == "invert_and_compose":
        outer = LinearLayout.from_dict(request["outer"])
        known = "ANonIdentityInDims" in error or "Im(B) not contained" in error
        return known and c.compose(outer).transpose_outs(l.get_out_dim_names()) == l
    return False


def test_differential_requests_agree_with_triton(fixtures):
    lines = (fixtures / "diff" / "requests.jsonl").read_text().splitlines()
    answers = jsonl(fixtures / "diff" / "triton-3.6.0.jsonl")
    assert len(lines) == len(answers) >= 2000
    mismatches, deviations, accepted = [], 0, 0
    for n, (line, theirs) in enumerate(zip(lines, answers), 1):
        try:
            request = json.loads(line)
        except json.JSONDecodeError:
            assert theirs["ok"] is False
            continue
        ours = answer(request)
        assert ours.get("id") == theirs.get("id"), n
        if ours["ok"] and theirs["ok"]:
            accepted += 1
            # json.dumps keeps member order: dimension order is compared too.
            agree = all(
                json.dumps(ours.get(m)) == json.dumps(theirs.get(m)) for m in RESULT_MEMBERS
            )
        else:
            agree = ours["ok"] == theirs["ok"]
        if not agree:
            if _documented_deviation(request, ours, theirs):
                deviations += 1
            else:
                mismatches.append("line %d: %s\n  ours: %s\n  triton: %s" % (n, line, ours, theirs))
    assert not mismatches, "\n".join(mismatches[:10])
    assert accepted > 1500
    assert 0 < deviations < 100


def test_bank_conflicts_agree_with_triton(fixtures):
    cases = jsonl(fixtures / "convert" / "bank_conflicts_generic32.jsonl")
    assert len(cases) >= 2000
    answered = 0
    for case in cases:
        request, theirs = case["request"], case["response"]
        ours = answer(request)
        assert ours["ok"] == theirs["ok"], (request, ours, theirs)
        if theirs["ok"]:
            answered += 1
            assert ours["value"] == theirs["value"], (request, ours, theirs)
    assert answered > 2000


def _expected_layout(expected):
    return {"in_dims": expected["in_dims"], "out_dims": expected["out_dims"]}


def test_encodings_agree_with_triton(fixtures):
    cases = jsonl(fixtures / "encodings" / "cases-seed1.jsonl")
    assert len(cases) == 400
    for case in cases:
        encoding, shape = case["input"]["encoding"], case["input"]["shape"]
        expected = case["expected"]
        assert expected["ok"], case["id"]
        want = json.dumps(_expected_layout(expected))
        # The encoding as the protocol's dict, as attribute text, and as a tensor type.
        assert json.dumps(ll.to_linear_layout(encoding, shape).to_dict()) == want, case["id"]
        assert json.dumps(ll.to_linear_layout(expected["mlir"], shape).to_dict()) == want, case["id"]
        tensor = "tensor<%sxf16, %s>" % ("x".join(map(str, shape)), expected["mlir"])
        assert json.dumps(ll.to_linear_layout(tensor).to_dict()) == want, case["id"]


def _encoding_deviation(request):
    """The inputs Triton 3.6 answers and the crate deliberately does not, or the reverse (the
    `deviation` list of tests/encodings.rs)."""
    shape = request["shape"]
    if all(s > 0 and s & (s - 1) == 0 for s in shape) and sum(s.bit_length() - 1 for s in shape) > 30:
        return "more than 2^30 elements"
    e = request["encoding"]
    text = e.get("text", "")
    if "#ttg.nvmma_shared" in text and "CGALayout" in text and "rank =" not in text:
        return "Triton 3.6 cannot re-parse its own printing of a rank-3 nvmma_shared"
    while isinstance(e, dict):
        if 0 in e.get("warpsPerCTA", []):
            return "zero warps"
        e = e.get("parent")
    return None


def test_invalid_encodings_are_rejected_as_triton_rejects_them(fixtures):
    cases = jsonl(fixtures / "encodings" / "invalid-seed11.jsonl")
    rejected = 0
    for case in cases:
        encoding, shape = case["input"]["encoding"], case["input"]["shape"]
        reply = answer({"op": "to_linear_layout", "encoding": encoding, "shape": shape})
        if case["expected"]["ok"] and reply["ok"]:
            want = json.dumps(_expected_layout(case["expected"]))
            assert json.dumps(reply["layout"]) == want, case["id"]
        elif _encoding_deviation(case["input"]) is None:
            assert reply["ok"] == case["expected"]["ok"], case["id"]
            rejected += not reply["ok"]
    assert rejected > 500


def test_heuristics_agree_with_triton(fixtures):
    runs = jsonl(fixtures / "heuristics" / "expected.jsonl")
    texts = {}
    checked = 0
    for run in runs:
        text = texts.setdefault(run["file"], (fixtures / "heuristics" / run["file"]).read_text())
        (report,) = ll.heuristics(
            text, run["passes"], run["arch"], kpack=run["kpack"], nonkdim=run["nonkdim"]
        )
        got = report.to_dict()
        for key in ("mem", "dots", "copies"):
            if key not in run["result"]:
                continue
            want = run["result"][key]
            assert len(got[key]) == len(want), run["id"]
            for g, w in zip(got[key], want):
                for member, value in w.items():
                    assert g.get(member) == value, (run["id"], key, member)
        checked += 1
    assert checked == len(runs) > 3000
