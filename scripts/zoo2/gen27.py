#!/usr/bin/env python3
"""Round 27 of the second zoo (64-bit integers and f64 beyond sums: atomic maxima and minima of
64-bit integers, a sort of 64-bit keys, the minimum of f64 values with its index): writes fx27/
as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen27.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, triton, tl  # noqa: E402


# 1. Atomic maxima and minima of 64-bit integers past 2^32, into eight slots.
@triton.jit
def i64_atomic_minmax_kernel(x_ptr, mx_ptr, mn_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs).to(tl.int64) * 5000000000
    slot = offs % 8
    tl.atomic_max(mx_ptr + slot, v)
    tl.atomic_min(mn_ptr + slot, v)


# 2. A sort of 64-bit keys past 2^32.
@triton.jit
def i64_sort_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs).to(tl.int64) * 3000000001
    tl.store(out_ptr + offs, tl.sort(v))


# 3. The smallest f64 value of each row, and its index.
@triton.jit
def f64_argmin_kernel(x_ptr, v_ptr, i_ptr, N: tl.constexpr):
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * N + tl.arange(0, N)).to(tl.float64) * 0.1
    tl.store(v_ptr + row, tl.min(x, axis=0).to(tl.float32))
    tl.store(i_ptr + row, tl.argmin(x, axis=0))


def cases():
    B = 64
    return [
        ("i64_atomic_minmax_64", i64_atomic_minmax_kernel, {"BLOCK": B}, {"num_warps": 1}, [
            ("n128", dict(x_ptr=Buf("i32", 2 * B, "small"), mx_ptr=Buf("i32", 16, "zeros", True, tt="i64"),
                          mn_ptr=Buf("i32", 16, "zeros", True, tt="i64")), [2, 1, 1], 3501)]),
        ("i64_sort_64", i64_sort_kernel, {"BLOCK": B}, {"num_warps": 1}, [
            ("n64", dict(x_ptr=Buf("i32", B, "small"), out_ptr=Buf("i32", 2 * B, "sentinel", True, tt="i64")),
             [1, 1, 1], 3502)]),
        ("f64_argmin_64", f64_argmin_kernel, {"N": B}, {"num_warps": 1}, [
            ("rows3", dict(x_ptr=Buf("f32", 3 * B), v_ptr=Buf("f32", 3, "sentinel", True),
                           i_ptr=Buf("i32", 3, "sentinel", True)), [3, 1, 1], 3503)]),
    ]


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx27")]
    gen.main()
