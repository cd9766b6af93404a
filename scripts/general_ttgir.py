#!/usr/bin/env python3
"""Compile the kernels that exercise the general lowering of TTGIR values with Triton 3.6.0 (the
oracle's Python, CPU only, explicit HIP targets) and write their final TTGIR next to the tests:

    ../shared/oracle/oracle-python scripts/general_ttgir.py [--out tests/fixtures/lower/ttgir-general]

Kernels: a 2-D gather (`ids[:, None] * stride + cols`, an address whose row part is loaded
data), and shape ops (`tl.join`, `tl.reshape`, `tl.split`, a scalar load and a scalar store).
Each is compiled for gfx942, gfx950 (64 lanes) and gfx1100 (32 lanes) with Triton's defaults.
"""

import argparse
import os
import re
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="triton-cache-"))

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
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


def kernels():
    return [
        ("gather_rows_16x64_f32", ASTSource(
            gather_rows, {"ids_ptr": "*i32", "table_ptr": "*fp32", "out_ptr": "*fp32", "stride": "i32", "D": "i32"},
            constexprs={"BM": 16, "BN": 64})),
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


if __name__ == "__main__":
    main()
