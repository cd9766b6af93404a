#!/usr/bin/env python3
"""Round 23 of the second zoo (a 64-bit bound past 2^32, pointers chosen by `if` inside a `for`
and carried through a `while`, a pointer returned by a helper kept as a call, offsets whose
strides an `if` chooses): writes fx23/ as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen23.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, triton, tl  # noqa: E402


# 1. Masks against a 64-bit bound past 2^32 (Triton passes it as i64): every element is below
#    it, and below it minus 2^32 only the first ten.
@triton.jit
def i64_bound_mask_kernel(x_ptr, out_ptr, lim, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    wide = offs.to(tl.int64)
    x = tl.load(x_ptr + offs, mask=wide < lim, other=0.0)
    tl.store(out_ptr + offs, tl.where(wide < lim - 4294967296, x, -x))


# 2. A loop that reads, each iteration, from the buffer an `if` on its index picks.
@triton.jit
def loop_if_pointer_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for i in range(n):
        if i % 3 == 0:
            p = a_ptr + i * BLOCK + offs
        else:
            p = b_ptr + i * BLOCK + offs
        acc += tl.load(p)
    tl.store(out_ptr + offs, acc)


@triton.jit(noinline=True)
def _pick(a, b, f):
    return a if f > 0 else b


# 3. A pointer returned by a helper kept as a call.
@triton.jit
def noinline_pick_kernel(a_ptr, b_ptr, out_ptr, flag, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    src = _pick(a_ptr, b_ptr, flag + tl.program_id(0))
    tl.store(out_ptr + tl.program_id(0) * BLOCK + offs, tl.load(src + offs) + 1.0)


# 4. A `while` loop that alternates the buffer it reads through an `if`.
@triton.jit
def while_alternate_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = a_ptr
    k = 0
    acc = tl.zeros([BLOCK], tl.float32)
    while k < n:
        acc += tl.load(p + k * BLOCK + offs)
        if k % 2 == 0:
            p = b_ptr
        else:
            p = a_ptr
        k += 1
    tl.store(out_ptr + offs, acc)


# 5. A tile read in row or column order, as a flag says: an `if` yields offsets of either strides.
@triton.jit
def if_strides_kernel(x_ptr, out_ptr, flag, N: tl.constexpr):
    r = tl.arange(0, N)[:, None]
    c = tl.arange(0, N)[None, :]
    if flag > 0:
        offs = r * N + c
    else:
        offs = c * N + r
    tl.store(out_ptr + r * N + c, tl.load(x_ptr + offs))


def cases():
    B = 64
    return [
        ("i64_bound_mask_64_f32", i64_bound_mask_kernel, {"BLOCK": B}, {"num_warps": 1}, [
            ("lim2p32", dict(x_ptr=Buf("f32", 128), out_ptr=Buf("f32", 128, "sentinel", True), lim=2**32 + 10),
             [2, 1, 1], 3101)]),
        ("loop_if_pointer_64_f32", loop_if_pointer_kernel, {"BLOCK": B}, {"num_warps": 1}, [
            ("n5", dict(a_ptr=Buf("f32", 5 * B), b_ptr=Buf("f32", 5 * B), out_ptr=Buf("f32", B, "sentinel", True), n=5),
             [1, 1, 1], 3102)]),
        ("noinline_pick_64_f32", noinline_pick_kernel, {"BLOCK": B}, {"num_warps": 1}, [
            ("p2", dict(a_ptr=Buf("f32", B), b_ptr=Buf("f32", B), out_ptr=Buf("f32", 2 * B, "sentinel", True), flag=0),
             [2, 1, 1], 3103)]),
        ("while_alternate_64_f32", while_alternate_kernel, {"BLOCK": B}, {"num_warps": 1}, [
            ("n5", dict(a_ptr=Buf("f32", 5 * B), b_ptr=Buf("f32", 5 * B), out_ptr=Buf("f32", B, "sentinel", True), n=5),
             [1, 1, 1], 3104)]),
        ("if_strides_16_f32", if_strides_kernel, {"N": 16}, {"num_warps": 1}, [
            ("flag0", dict(x_ptr=Buf("f32", 256), out_ptr=Buf("f32", 256, "sentinel", True), flag=0), [1, 1, 1], 3105)]),
    ]


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx23")]
    gen.main()
