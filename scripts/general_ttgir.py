#!/usr/bin/env python3
"""Compile the kernels that exercise the general lowering of TTGIR values with Triton 3.6.0 (the
oracle's Python, CPU only, explicit HIP targets) and write their final TTGIR next to the tests:

    ../shared/oracle/oracle-python scripts/general_ttgir.py [--out tests/fixtures/lower/ttgir-general]

Kernels: a 2-D gather (`ids[:, None] * stride + cols`, an address whose row part is loaded
data), shape ops (`tl.join`, `tl.reshape`, `tl.split`, a scalar load and a scalar store), and
GELU's tanh form through the device library (`libdevice.tanh`, `round`, `trunc`: calls the
crate computes itself).
Each is compiled for gfx942, gfx950 (64 lanes) and gfx1100 (32 lanes) with Triton's defaults.
A K-loop matmul is compiled for gfx942 and gfx950 with `num_stages` 3 and 4: Triton's
pipeliner then multi-buffers the tiles in LDS and picks each iteration's slice at run time.
"""

import argparse
import os
import re
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="triton-cache-"))

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.language.extra.hip import libdevice  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler.compiler import ASTSource  # noqa: E402



@triton.jit
def gather_rows(ids_ptr, table_ptr, out_ptr, stride, D, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    ids = tl.load(ids_ptr + rows)
    cols = tl.arange(0, BN)
    mask = cols[None, :] < D
    x = tl.load(table_ptr + ids[:, None] * stride + cols[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + rows[:, None] * stride + cols[None, :], x, mask=mask)


@triton.jit
def shapes(x, y, out1, out2, out3, N: tl.constexpr):
    offs = tl.arange(0, N)
    a = tl.load(x + offs)
    b = tl.load(y + offs)
    j = tl.join(a, b)
    r = tl.reshape(j, (2 * N,))
    tl.store(out1 + tl.arange(0, 2 * N), r)
    lo, hi = tl.split(tl.reshape(tl.load(out1 + tl.arange(0, 2 * N)), (N, 2)))
    tl.store(out2 + offs, hi - lo)
    tl.store(out3 + tl.program_id(0), tl.load(x + 3) * 2.0)


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


@triton.jit
def gelu_tanh(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    y = 0.5 * x * (1.0 + libdevice.tanh(inner))
    tl.store(y_ptr + offs, y + libdevice.round(x) + libdevice.trunc(x * 2.5), mask=m)


def staged():
    """The K loop with more pipeline stages than Triton's default (gfx942, gfx950)."""
    d16 = [["tt.divisibility", 16]]
    src = ASTSource(
        matmul_kloop, {"a": "*fp16", "b": "*fp16", "c": "*fp16", "K": "i32", "sam": "i32", "sbk": "i32",
                       "scm": "i32"},
        constexprs={"BM": 64, "BN": 64, "BK": 32}, attrs={(i, ): d16 for i in range(7)})
    return [(f"matmul_kloop_stages{n}_64x64x32_f16", src, {"num_stages": n, "num_warps": 4}) for n in (3, 4)]


def kernels():
    return [
        ("gather_rows_16x64_f32", ASTSource(
            gather_rows, {"ids_ptr": "*i32", "table_ptr": "*fp32", "out_ptr": "*fp32", "stride": "i32", "D": "i32"},
            constexprs={"BM": 16, "BN": 64})),
        ("gelu_tanh_256_f32", ASTSource(
            gelu_tanh, {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32"}, constexprs={"BLOCK": 256})),
        ("shapes_256_f32", ASTSource(
            shapes, {"x": "*fp32", "y": "*fp32", "out1": "*fp32", "out2": "*fp32", "out3": "*fp32"},
            constexprs={"N": 256})),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                                  "fixtures", "lower", "ttgir-general"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for arch in ["gfx942", "gfx950", "gfx1100"]:
        warp = 32 if arch.startswith("gfx1") else 64
        for name, src in kernels():
            k = triton.compile(src, target=GPUTarget("hip", arch, warp))
            with open(os.path.join(args.out, f"{name}.{arch}.ttgir"), "w") as f:
                # Locations name this script without the checkout's directory.
                f.write(re.sub(r'"[^"\n]*/general_ttgir.py"', '"general_ttgir.py"', k.asm["ttgir"]))
        if warp == 64:
            for name, src, options in staged():
                k = triton.compile(src, target=GPUTarget("hip", arch, warp), options=options)
                with open(os.path.join(args.out, f"{name}.{arch}.ttgir"), "w") as f:
                    f.write(re.sub(r'"[^"\n]*/general_ttgir.py"', '"general_ttgir.py"', k.asm["ttgir"]))


if __name__ == "__main__":
    main()
