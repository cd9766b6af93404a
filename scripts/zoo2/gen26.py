#!/usr/bin/env python3
"""Round 26 of the second zoo (reductions and scans of 64-bit integers and of f64: sums,
maxima with their index, running sums): writes fx26/ as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen26.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, triton, tl  # noqa: E402


# 1. Sums and the maximum of products that overflow 32 bits, in 64-bit integers.
@triton.jit
def i64_reduce_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs).to(tl.int64) * 3000000000
    tl.store(out_ptr, tl.sum(x, axis=0))
    tl.store(out_ptr + 1, tl.max(x, axis=0))
    tl.store(out_ptr + 2, tl.argmax(x, axis=0).to(tl.int64))


# 2. A running sum in 64-bit integers.
@triton.jit
def i64_cumsum_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs).to(tl.int64) * 1000000007
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0))


# 3. A sum and a running sum in f64.
@triton.jit
def f64_scan_kernel(x_ptr, sum_ptr, cs_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs).to(tl.float64) * 1.0e-3
    tl.store(sum_ptr, tl.sum(x, axis=0).to(tl.float32))
    tl.store(cs_ptr + offs, tl.cumsum(x, axis=0).to(tl.float32))


def cases():
    B = 64
    return [
        ("i64_reduce_64", i64_reduce_kernel, {"BLOCK": B}, {"num_warps": 1}, [
            ("n64", dict(x_ptr=Buf("i32", B, "small"), out_ptr=Buf("i32", 6, "sentinel", True, tt="i64")),
             [1, 1, 1], 3401)]),
        ("i64_cumsum_64", i64_cumsum_kernel, {"BLOCK": B}, {"num_warps": 1}, [
            ("n64", dict(x_ptr=Buf("i32", B, "small"), out_ptr=Buf("i32", 2 * B, "sentinel", True, tt="i64")),
             [1, 1, 1], 3402)]),
        ("f64_scan_64", f64_scan_kernel, {"BLOCK": B}, {"num_warps": 1}, [
            ("n64", dict(x_ptr=Buf("f32", B), sum_ptr=Buf("f32", 1, "sentinel", True),
                         cs_ptr=Buf("f32", B, "sentinel", True)), [1, 1, 1], 3403)]),
    ]


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx26")]
    gen.main()
