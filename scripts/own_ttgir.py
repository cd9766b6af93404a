#!/usr/bin/env python3
"""Compile the project's own small Triton kernels with Triton 3.6.0 (the oracle's Python, CPU
only, explicit HIP target) and write their final TTGIR and AMDGCN next to the lowering tests:

    ../shared/oracle/oracle-python/bin/python scripts/own_ttgir.py [--out tests/fixtures/lower/ttgir-own]

Kernels: a row softmax (program ids, masked loads with `other = -inf`, `tt.reduce` max and
sum, `math.exp`, element-wise float arithmetic), an i32 row sum (`tt.reduce` add across lanes),
a column max (`tt.reduce` across warps), a scaled transpose (`tt.trans`, arithmetic with
splat constants), a single-step matmul tile on RDNA (WMMA), and a K-loop
matmul (`scf.for`, software-pipelined as Triton does by default). Each is compiled for gfx942
and gfx950, the kernels without a matrix instruction for gfx1100 too, and the WMMA tile for
gfx1100 and gfx1201; Triton's AMDGCN is kept beside
the TTGIR (the emulator check compares counts with it), and `triton-counts.<arch>.json` holds
Triton's instruction counts, counted as the oracle's codegen_anchor.py counts them.
"""

import argparse
import json
import os
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="triton-cache-"))

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler.compiler import ASTSource  # noqa: E402

ORACLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "oracle")
sys.path.insert(0, ORACLE)
from codegen_anchor import count, scrub_paths  # noqa: E402


@triton.jit
def softmax(x, out, stride, n_cols, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    mask = cols < n_cols
    v = tl.load(x + rows * stride + cols, mask=mask, other=-float("inf"))
    v = v - tl.max(v, axis=1)[:, None]
    e = tl.exp(v)
    s = e / tl.sum(e, axis=1)[:, None]
    tl.store(out + rows * stride + cols, s, mask=mask)


@triton.jit
def rowsum(x, out, stride, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    v = tl.load(x + rows[:, None] * stride + cols[None, :])
    tl.store(out + rows, tl.sum(v, axis=1))


@triton.jit
def colmax(x, out, stride, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.arange(0, BM)
    cols = tl.program_id(0) * BN + tl.arange(0, BN)
    v = tl.load(x + rows[:, None] * stride + cols[None, :])
    tl.store(out + cols, tl.max(v, axis=0))


@triton.jit
def scale_transpose(x, out, stride, BM: tl.constexpr, BN: tl.constexpr):
    r = tl.arange(0, BM)[:, None]
    c = tl.arange(0, BN)[None, :]
    v = tl.load(x + r * stride + c)
    tl.store(out + r * stride + c, tl.trans(v * 2.0 + 1.0))


@triton.jit
def matmul_tile(a, b, c, sam, sbk, scm, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    x = tl.load(a + rm[:, None] * sam + rk[None, :])
    y = tl.load(b + rk[:, None] * sbk + rn[None, :])
    tl.store(c + rm[:, None] * scm + rn[None, :], tl.dot(x, y).to(tl.float16))


@triton.jit
def matmul_kloop(a, b, c, K, sam, sbk, scm, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    pa = a + rm[:, None] * sam + rk[None, :]
    pb = b + rk[:, None] * sbk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        acc += tl.dot(tl.load(pa), tl.load(pb))
        pa += BK
        pb += BK * sbk
    tl.store(c + rm[:, None] * scm + rn[None, :], acc.to(tl.float16))


D16 = [["tt.divisibility", 16]]


def kernels(arch):
    out = [
        ("softmax_16x256_f32", ASTSource(
            softmax, {"x": "*fp32", "out": "*fp32", "stride": "i32", "n_cols": "i32"},
            constexprs={"BM": 16, "BN": 256}, attrs={(i, ): D16 for i in range(3)}), {"num_warps": 4}),
        ("rowsum_64x64_i32", ASTSource(
            rowsum, {"x": "*i32", "out": "*i32", "stride": "i32"},
            constexprs={"BM": 64, "BN": 64}, attrs={(i, ): D16 for i in range(3)}), {"num_warps": 4}),
        ("colmax_64x64_f32", ASTSource(
            colmax, {"x": "*fp32", "out": "*fp32", "stride": "i32"},
            constexprs={"BM": 64, "BN": 64}, attrs={(i, ): D16 for i in range(3)}), {"num_warps": 4}),
    ]
    out.append(("scale_transpose_64x64_f32", ASTSource(
        scale_transpose, {"x": "*fp32", "out": "*fp32", "stride": "i32"},
        constexprs={"BM": 64, "BN": 64}, attrs={(i, ): D16 for i in range(3)}), {"num_warps": 4}))
    if arch in ("gfx1100", "gfx1201"):
        out.append(("matmul_tile_64x64x32_f16", ASTSource(
            matmul_tile, {"a": "*fp16", "b": "*fp16", "c": "*fp16", "sam": "i32", "sbk": "i32", "scm": "i32"},
            constexprs={"BM": 64, "BN": 64, "BK": 32}, attrs={(i, ): D16 for i in range(6)}), {"num_warps": 4}))
    if not arch.startswith("gfx1"):
        out.append(("matmul_kloop_64x64x32_f16", ASTSource(
            matmul_kloop, {"a": "*fp16", "b": "*fp16", "c": "*fp16", "K": "i32", "sam": "i32", "sbk": "i32",
                           "scm": "i32"},
            constexprs={"BM": 64, "BN": 64, "BK": 32}, attrs={(i, ): D16 for i in range(7)}), {"num_warps": 4}))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                                  "fixtures", "lower", "ttgir-own"))
    ap.add_argument("--arch", action="append")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for arch in args.arch or ["gfx942", "gfx950", "gfx1100", "gfx1201"]:
        warp = 32 if arch.startswith("gfx1") else 64
        counts = {}
        for name, src, opts in kernels(arch):
            k = triton.compile(src, target=GPUTarget("hip", arch, warp), options=opts)
            base = os.path.join(args.out, f"{name}.{arch}")
            open(base + ".ttgir", "w").write(scrub_paths(k.asm["ttgir"]))
            open(base + ".amdgcn", "w").write(scrub_paths(k.asm["amdgcn"]))
            c = count(scrub_paths(k.asm["amdgcn"]))
            c["lds_bytes"] = getattr(k.metadata, "shared", None)
            counts[name] = c
        json.dump({"arch": arch, "triton": triton.__version__, "kernels": counts},
                  open(os.path.join(args.out, f"triton-counts.{arch}.json"), "w"), indent=1)
        print(arch, {n: c["total"] for n, c in counts.items()})


if __name__ == "__main__":
    main()
