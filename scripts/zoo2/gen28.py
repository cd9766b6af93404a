#!/usr/bin/env python3
"""Round 28 of the second zoo (64-bit integer arithmetic element by element: unsigned shifts,
division and remainder by a run-time divisor, minimum, maximum and absolute value; conversions
between 64-bit integers and floats): writes fx28/ as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen28.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, triton, tl  # noqa: E402


# 1. Unsigned 64-bit arithmetic: a multiplicative hash, a logical shift, a quotient and a
#    remainder by a run-time divisor.
@triton.jit
def u64_ops_kernel(x_ptr, out_ptr, d, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs).to(tl.uint64)
    h = x * 0x9E3779B97F4A7C15
    h = h ^ (h >> 31)
    q = h // d.to(tl.uint64)
    r = h % d.to(tl.uint64)
    tl.store(out_ptr + offs, ((q ^ r) & 0xFFFFFFF).to(tl.int32))


# 2. Signed 64-bit minimum, maximum and absolute value, and a quotient by a run-time divisor.
@triton.jit
def i64_minmax_abs_kernel(x_ptr, y_ptr, out_ptr, d, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs).to(tl.int64) * 4000000000
    y = tl.load(y_ptr + offs).to(tl.int64) * 3000000000
    v = tl.maximum(x, y) + tl.minimum(x, y) * 2 + tl.abs(x - y)
    tl.store(out_ptr + offs, (v // d).to(tl.float32))


# 3. Conversions: 64-bit integers to f32 and f64 and back, unsigned 32-bit to f32.
@triton.jit
def i64_float_convert_kernel(x_ptr, a_ptr, b_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    big = x.to(tl.int64) * 123456789013
    f = big.to(tl.float32)
    back = (big.to(tl.float64) * 0.5).to(tl.int64)
    tl.store(a_ptr + offs, f + x.to(tl.uint32).to(tl.float32))
    tl.store(b_ptr + offs, (back % 1000003).to(tl.int32))


def cases():
    B = 64
    return [
        ("u64_ops_64", u64_ops_kernel, {"BLOCK": B}, {"num_warps": 1}, [
            ("d97", dict(x_ptr=Buf("i32", B, "small"), out_ptr=Buf("i32", B, "sentinel", True), d=97),
             [1, 1, 1], 3601)]),
        ("i64_minmax_abs_64", i64_minmax_abs_kernel, {"BLOCK": B}, {"num_warps": 1}, [
            ("d7", dict(x_ptr=Buf("i32", B, "small"), y_ptr=Buf("i32", B, "small"),
                        out_ptr=Buf("f32", B, "sentinel", True), d=7), [1, 1, 1], 3602)]),
        ("i64_float_convert_64", i64_float_convert_kernel, {"BLOCK": B}, {"num_warps": 1}, [
            ("n64", dict(x_ptr=Buf("i32", B, "small"), a_ptr=Buf("f32", B, "sentinel", True),
                         b_ptr=Buf("i32", B, "sentinel", True)), [1, 1, 1], 3603)]),
    ]


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx28")]
    gen.main()
