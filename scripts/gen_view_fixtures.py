#!/usr/bin/env python3
"""Generate tests/fixtures/views/cases.jsonl: Triton 3.6.0's own layout views.

    /work/shared/oracle/oracle-python scripts/gen_view_fixtures.py \
        [--oracle /work/shared/oracle] [--out tests/fixtures/views/cases.jsonl]

For every case below (Triton attribute text + tensor shape, or raw bases):
1. the encoding is turned into a linear layout by the real Triton 3.6.0, through the
   oracle's ll_oracle.py (`{"kind": "mlir", "text": ...}` requests: mlir::parseAttribute
   then mlir::triton::gpu::toLinearLayout);
2. that layout is rebuilt as a pybind `LinearLayout` (`LinearLayout.from_bases`) and printed
   with Triton's own `get_distributed_view(False/True)` (distributed layouts) or
   `get_shared_view(False/True)` (layouts with an `offset` in-dim) -- the C++
   getDistributedLayoutStr / getSharedLayoutStr behind triton-tensor-layout.

3. the layout's bases written as a `#ttg.linear<{register = …, lane = …, warp = …, block = …}>`
   (or `#ttg.shared_linear<{offset = …, block = …}, alignment = 16>`) attribute -- what
   `linear-layout show --bases` prints -- are read back by Triton (step 1) and must give the
   same layout.

One JSON object per line:
    {"name", "layout" (attribute text, or null for raw cases), "shape", "shared" (bool),
     "in_dims", "out_dims", "tensor_view", "hw_view",
     "linear_attr" (the attribute of step 3; null if Triton does not read it back)}
"""

import argparse
import json
import os
import subprocess
import sys

import triton._C.libtriton as lt

LL = lt.linear_layout.LinearLayout

BLK_A = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>"
BLK_64 = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
BLK_3D = "#ttg.blocked<{sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 16], warpsPerCTA = [2, 1, 1], order = [2, 1, 0]}>"
MFMA32 = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = false}>"
MFMA32T = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>"
MFMA16 = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16, 16], isTransposed = false}>"
MFMA16T = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16, 16], isTransposed = true}>"
WMMA1 = "#ttg.amd_wmma<{version = 1, isTranspose = false, warpsPerCTA = [2, 2]}>"
WMMA2T = "#ttg.amd_wmma<{version = 2, isTranspose = true, warpsPerCTA = [2, 1]}>"
MMA2 = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"


def dot(op, parent, k=None):
    kw = "" if k is None else ", kWidth = %d" % k
    return "#ttg.dot_op<{opIdx = %d, parent = %s%s}>" % (op, parent, kw)


def sl(d, parent):
    return "#ttg.slice<{dim = %d, parent = %s}>" % (d, parent)


CASES = [
    # blocked
    ("blocked-1x4-8x4-2x2", BLK_A, [32, 32]),
    ("blocked-1x8-8x8-4x1", BLK_64, [64, 64]),
    ("blocked-colmajor", "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 4], warpsPerCTA = [1, 4], order = [0, 1]}>", [64, 32]),
    ("blocked-1d", "#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [2], order = [0]}>", [512]),
    ("blocked-1d-broadcast", "#ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>", [16]),
    ("blocked-broadcast-2d", BLK_64, [16, 16]),
    ("blocked-3d", BLK_3D, [2, 8, 32]),
    ("blocked-8-warps", "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 16], warpsPerCTA = [8, 1], order = [1, 0]}>", [32, 64]),
    ("blocked-repeat", "#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [0, 1]}>", [64, 16]),
    ("blocked-2-ctas", "#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0], CGALayout = [[1]]}>", [256]),
    ("blocked-ctas-broadcast", "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0], CGALayout = [[0, 0]]}>", [16, 64]),
    ("blocked-16-regs", "#ttg.blocked<{sizePerThread = [4, 4], threadsPerWarp = [4, 16], warpsPerCTA = [1, 1], order = [1, 0]}>", [16, 64]),
    # MFMA
    ("mfma32", MFMA32, [64, 64]),
    ("mfma32-transposed", MFMA32T, [64, 64]),
    ("mfma16", MFMA16, [32, 32]),
    ("mfma16-transposed", MFMA16T, [64, 32]),
    ("mfma32-broadcast", MFMA32, [32, 32]),
    ("mfma32-tiles-per-warp", "#ttg.amd_mfma<{version = 3, warpsPerCTA = [1, 2], instrShape = [32, 32, 8], isTransposed = false, tilesPerWarp = [2, 2]}>", [64, 128]),
    ("mfma16-v4-4-warps", "#ttg.amd_mfma<{version = 4, warpsPerCTA = [4, 1], instrShape = [16, 16, 32], isTransposed = true}>", [64, 16]),
    ("mfma32-3d", "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 1, 1], instrShape = [32, 32, 8], isTransposed = false}>", [2, 32, 32]),
    # WMMA and NVIDIA MMA
    ("wmma1", WMMA1, [32, 32]),
    ("wmma2-transposed", WMMA2T, [32, 32]),
    ("wmma2-single", "#ttg.amd_wmma<{version = 2, isTranspose = false, warpsPerCTA = [1, 1]}>", [16, 16]),
    ("nvidia-mma2", MMA2, [32, 32]),
    # dot operands
    ("dot-a-mfma32", dot(0, MFMA32, 8), [64, 32]),
    ("dot-b-mfma32", dot(1, MFMA32, 8), [32, 64]),
    ("dot-a-mfma32-transposed", dot(0, MFMA32T, 4), [64, 16]),
    ("dot-a-mfma16-transposed", dot(0, MFMA16T, 4), [32, 32]),
    ("dot-b-mfma16", dot(1, MFMA16, 8), [64, 32]),
    ("dot-a-wmma1", dot(0, WMMA1, 16), [32, 16]),
    ("dot-b-wmma2", dot(1, WMMA2T, 8), [16, 32]),
    ("dot-a-nvidia-mma2", dot(0, MMA2, 2), [32, 32]),
    ("dot-b-blocked-fma", dot(1, BLK_A), [16, 32]),
    # slices
    ("slice1-blocked", sl(1, BLK_64), [64]),
    ("slice0-mfma32", sl(0, MFMA32), [64]),
    ("slice1-mfma16-transposed", sl(1, MFMA16T), [32]),
    ("slice0-blocked-3d", sl(0, BLK_3D), [8, 32]),
    ("slice-of-slice", sl(0, sl(1, BLK_3D)), [32]),
    # linear
    ("linear", "#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[0, 0], [16, 0]], block = []}>", [32, 8]),
    # shared
    ("swizzled-8-1-8", "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>", [32, 64]),
    ("swizzled-4-2-4", "#ttg.swizzled_shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [1, 0]}>", [32, 32]),
    ("swizzled-colmajor", "#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [0, 1]}>", [16, 32]),
    ("swizzled-none", "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>", [8, 16]),
    ("swizzled-3d", "#ttg.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 4, order = [2, 1, 0]}>", [2, 8, 16]),
    ("swizzled-2-ctas", "#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0], CGALayout = [[1, 0]]}>", [32, 16]),
    ("rotating-4-1-8", "#ttg.amd_rotating_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>", [32, 32]),
    ("rotating-8-2-4", "#ttg.amd_rotating_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>", [64, 32]),
    ("nvmma-128B", "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>", [16, 64]),
    ("nvmma-64B-transposed", "#ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = true, elementBitWidth = 16}>", [32, 32]),
    ("shared-linear", "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [1, 0], [2, 1]]}, alignment = 16>", [4, 4]),
    ("padded-linear-component", "#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [8, 32]}>", [8, 32]),
]

# Raw layouts (no encoding): unowned elements, several owners per element.
RAW = [
    ("raw-not-surjective",
     {"in_dims": {"register": [[0, 1]], "lane": [[0, 2], [2, 0]], "warp": [], "block": []},
      "out_dims": {"dim0": 4, "dim1": 4}}),
    ("raw-register-broadcast",
     {"in_dims": {"register": [[1], [0], [2]], "lane": [[4], [0]], "warp": [[8]], "block": [[0]]},
      "out_dims": {"dim0": 16}}),
    ("raw-shared-2-blocks",
     {"in_dims": {"offset": [[0, 1], [1, 1], [2, 0]], "block": [[0, 2]]},
      "out_dims": {"dim0": 4, "dim1": 4}}),
]


def linear_attr(in_dims):
    """The layout as a #ttg.linear / #ttg.shared_linear attribute (what `show --bases` prints)."""
    if "offset" in in_dims:
        names, head, tail = ["offset", "block"], "#ttg.shared_linear<{", "}, alignment = 16>"
    else:
        names, head, tail = ["register", "lane", "warp", "block"], "#ttg.linear<{", "}>"
    names += [n for n in in_dims if n not in names]
    return head + ", ".join("%s = %s" % (n, in_dims.get(n, [])) for n in names) + tail


def oracle(a, reqs):
    text = "".join(json.dumps(r) + "\n" for r in reqs)
    proc = subprocess.run([os.path.join(a.oracle, "oracle-python"), os.path.join(a.oracle, "ll_oracle.py"),
                           "--no-mlir"], input=text, capture_output=True, text=True, check=True)
    answers = [json.loads(x) for x in proc.stdout.splitlines()]
    assert len(answers) == len(reqs), proc.stderr
    return answers


def views(in_dims, out_dims):
    l = LL.from_bases(list(in_dims.items()), list(out_dims.keys()), list(out_dims.values()), False)
    shared = "offset" in in_dims
    if shared:
        return shared, l.get_shared_view(False), l.get_shared_view(True)
    return shared, l.get_distributed_view(False), l.get_distributed_view(True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", default="/work/shared/oracle")
    ap.add_argument("--out", default="tests/fixtures/views/cases.jsonl")
    a = ap.parse_args()
    answers = oracle(a, [{"encoding": {"kind": "mlir", "text": t}, "shape": s} for _, t, s in CASES])
    rows = []
    for (name, text, shape), ans in zip(CASES, answers):
        if not ans.get("ok"):
            sys.exit("%s: Triton rejected %s: %s" % (name, text, ans.get("error")))
        shared, tv, hv = views(ans["in_dims"], ans["out_dims"])
        rows.append({"name": name, "layout": text, "shape": shape, "shared": shared,
                     "in_dims": ans["in_dims"], "out_dims": ans["out_dims"],
                     "tensor_view": tv, "hw_view": hv})
    for name, lay in RAW:
        shared, tv, hv = views(lay["in_dims"], lay["out_dims"])
        rows.append({"name": name, "layout": None, "shape": list(lay["out_dims"].values()),
                     "shared": shared, "in_dims": lay["in_dims"], "out_dims": lay["out_dims"],
                     "tensor_view": tv, "hw_view": hv})
    # The pasteable attribute of each layout, read back by Triton: same layout, or null
    # when Triton does not accept it.
    checks = oracle(a, [{"encoding": {"kind": "mlir", "text": linear_attr(r["in_dims"])}, "shape": r["shape"]}
                        for r in rows])
    for r, ans in zip(rows, checks):
        same = ans.get("ok") and ans["in_dims"] == r["in_dims"] and ans["out_dims"] == r["out_dims"]
        r["linear_attr"] = linear_attr(r["in_dims"]) if same else None
        if not same:
            print("%s: Triton does not read back %s: %s" % (r["name"], linear_attr(r["in_dims"]),
                                                            ans.get("error", "a different layout")))
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    print("%d cases -> %s (%d bytes)" % (len(rows), a.out, os.path.getsize(a.out)))


if __name__ == "__main__":
    main()
