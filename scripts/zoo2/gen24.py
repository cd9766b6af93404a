#!/usr/bin/env python3
"""Round 24 of the second zoo (64-bit index arithmetic on a 64-bit argument, pointers chosen
by a flag loaded from memory — a scalar, a tensor of pointers, and per iteration of a loop
whose trip count is loaded too —, a 64-bit scalar computed and stored): writes fx24/ as gen.py
writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen24.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, triton, tl  # noqa: E402


# 1. A gather whose index is 64-bit arithmetic on a 64-bit stride past 2^32, reduced modulo a
#    prime into the buffer.
@triton.jit
def i64_stride_gather_kernel(x_ptr, out_ptr, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    idx = (offs.to(tl.int64) * stride + 12345) % 97
    tl.store(out_ptr + offs, tl.load(x_ptr + idx.to(tl.int32)))


# 2. A buffer chosen by a flag loaded from memory: a scalar pointer and a tensor of pointers.
@triton.jit
def loaded_flag_pointer_kernel(flag_ptr, x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    f = tl.load(flag_ptr + tl.program_id(0))
    if f > 0:
        src = x_ptr
        p = y_ptr + offs
    else:
        src = y_ptr
        p = x_ptr + BLOCK - 1 - offs
    tl.store(out_ptr + tl.program_id(0) * BLOCK + offs, tl.load(src + offs) * 10.0 + tl.load(p))


# 3. A loop whose trip count is loaded, reading each iteration the buffer a loaded flag picks.
@triton.jit
def loaded_trip_choice_kernel(n_ptr, sel_ptr, a_ptr, b_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for i in range(tl.load(n_ptr)):
        if tl.load(sel_ptr + i) > 0:
            p = a_ptr
        else:
            p = b_ptr
        acc += tl.load(p + i * BLOCK + offs)
    tl.store(out_ptr + offs, acc)


# 4. A 64-bit scalar computed from a 64-bit argument and stored, with a test on it.
@triton.jit
def i64_scalar_kernel(out_ptr, seed):
    s = seed * 3 + 1
    t = s if s > 30000000000 else -s
    tl.store(out_ptr + tl.program_id(0), t + tl.program_id(0))


def cases():
    B = 64
    return [
        ("i64_stride_gather_64_f32", i64_stride_gather_kernel, {"BLOCK": B}, {"num_warps": 1}, [
            ("s2p33", dict(x_ptr=Buf("f32", 97), out_ptr=Buf("f32", 128, "sentinel", True), stride=2**33 + 7),
             [2, 1, 1], 3201)]),
        ("loaded_flag_pointer_64_f32", loaded_flag_pointer_kernel, {"BLOCK": B}, {"num_warps": 1}, [
            ("p4", dict(flag_ptr=Buf("i32", 4, "small"), x_ptr=Buf("f32", B), y_ptr=Buf("f32", B),
                        out_ptr=Buf("f32", 4 * B, "sentinel", True)), [4, 1, 1], 3202)]),
        ("loaded_trip_choice_64_f32", loaded_trip_choice_kernel, {"BLOCK": B}, {"num_warps": 1}, [
            ("n6", dict(n_ptr=Buf("i32", 1, "int3"), sel_ptr=Buf("i32", 8, "small"), a_ptr=Buf("f32", 8 * B),
                        b_ptr=Buf("f32", 8 * B), out_ptr=Buf("f32", B, "sentinel", True)), [1, 1, 1], 3203)]),
        ("i64_scalar_store", i64_scalar_kernel, {}, {"num_warps": 1}, [
            ("seed2p34", dict(out_ptr=Buf("i32", 6, "sentinel", True, tt="i64"), seed=2**34 + 11), [3, 1, 1], 3204)]),
    ]


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx24")]
    gen.main()
