#!/usr/bin/env python3
"""Round 22 of the second zoo (pointers and offsets chosen by `if` and by a conditional
expression, `tl.topk`, a kernel of eighteen arguments, persistent loops over
`tl.range(flatten=True)` whose inner trip count follows the outer index or is fixed): writes
fx22/ as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen22.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, F32, triton, tl  # noqa: E402


# 1. A source buffer picked by a conditional expression on the program id, and a tensor of
#    pointers picked the same way (another buffer, one element on).
@triton.jit
def ptr_ifexp_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    src = x_ptr if pid % 2 == 0 else y_ptr
    p = (x_ptr + offs) if pid % 3 == 0 else (y_ptr + offs + 1)
    v = tl.load(src + offs, mask=m, other=0.0) + tl.load(p, mask=m, other=0.0)
    tl.store(out_ptr + offs, v, mask=m)


# 2. A 2-D tile whose offsets and buffer an `if` statement sets from a run-time flag.
@triton.jit
def if_offsets_2d_kernel(x_ptr, y_ptr, out_ptr, flag, N: tl.constexpr, BM: tl.constexpr):
    pid = tl.program_id(0)
    offs = (pid * BM + tl.arange(0, BM))[:, None] * N + tl.arange(0, N)[None, :]
    if flag + pid > 2:
        p = x_ptr + offs + N * BM
    else:
        p = y_ptr + offs
    tl.store(out_ptr + offs, tl.load(p) * 2.0)


# 3. The largest eight of each row, `tl.topk`.
@triton.jit
def topk_rows_kernel(x_ptr, out_ptr, L: tl.constexpr, K: tl.constexpr):
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * L + tl.arange(0, L))
    tl.store(out_ptr + row * K + tl.arange(0, K), tl.topk(x, K))


# 4. Eighteen arguments: nine pointers, four integers, five floats.
@triton.jit
def many_args_kernel(a0, a1, a2, a3, o0, o1, o2, o3, o4, s0, s1, s2, s3, s4, n, k0, k1, k2, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x0 = tl.load(a0 + offs, mask=m)
    x1 = tl.load(a1 + offs, mask=m)
    x2 = tl.load(a2 + offs, mask=m)
    x3 = tl.load(a3 + offs, mask=m)
    tl.store(o0 + offs, x0 * s0 + x1, mask=m)
    tl.store(o1 + offs, x1 * s1 + x2, mask=m)
    tl.store(o2 + offs, x2 * s2 + x3, mask=m)
    tl.store(o3 + offs, x3 * s3 + x0 * s4, mask=m)
    tl.store(o4 + offs, (offs * k0 + k1) % k2, mask=m)


# 5. A persistent loop over rows, `tl.range(flatten=True)`, whose inner loop runs over as many
#    column blocks as the row's index says.
@triton.jit
def flatten_varlen_kernel(x_ptr, out_ptr, R, L: tl.constexpr, NP: tl.constexpr, BLOCK: tl.constexpr):
    for row in tl.range(tl.program_id(0), R, NP, flatten=True):
        acc = tl.zeros([BLOCK], tl.float32)
        for c in range(0, (row % 3 + 1) * BLOCK, BLOCK):
            acc += tl.load(x_ptr + row * L + c + tl.arange(0, BLOCK))
        tl.store(out_ptr + row, tl.sum(acc, axis=0))


# 6. The same over a fixed number of column blocks, with a per-row scale loaded in the prologue.
@triton.jit
def flatten_rowsum_kernel(x_ptr, w_ptr, out_ptr, R, L: tl.constexpr, NP: tl.constexpr, BLOCK: tl.constexpr):
    for row in tl.range(tl.program_id(0), R, NP, flatten=True):
        w = tl.load(w_ptr + row)
        acc = tl.zeros([BLOCK], tl.float32)
        for c in range(0, L, BLOCK):
            acc += tl.load(x_ptr + row * L + c + tl.arange(0, BLOCK))
        tl.store(out_ptr + row, tl.sum(acc, axis=0) * w)


def cdiv(a, b):
    return -(-a // b)


def cases():
    n, B = 300, 64
    R, L = 10, 96
    many = {f"a{i}": Buf("f32", 256) for i in range(4)}
    many.update({f"o{i}": Buf("f32" if i < 4 else "i32", 256, "sentinel", True) for i in range(5)})
    many.update({f"s{i}": F32(0.5 + i) for i in range(5)})
    many.update(n=200, k0=7, k1=3, k2=11)
    return [
        ("ptr_ifexp_64_f32", ptr_ifexp_kernel, {"BLOCK": B}, {"num_warps": 1}, [
            ("n300", dict(x_ptr=Buf("f32", 320), y_ptr=Buf("f32", 320), out_ptr=Buf("f32", 320, "sentinel", True),
                          n=n), [cdiv(n, B), 1, 1], 3001)]),
        ("if_offsets_2d_8x32_f32", if_offsets_2d_kernel, {"N": 32, "BM": 8}, {"num_warps": 2}, [
            ("p4-flag1", dict(x_ptr=Buf("f32", 8 * 32 * 5), y_ptr=Buf("f32", 8 * 32 * 4),
                              out_ptr=Buf("f32", 8 * 32 * 4, "sentinel", True), flag=1), [4, 1, 1], 3002)]),
        ("topk_rows_64_k8_f32", topk_rows_kernel, {"L": 64, "K": 8}, {"num_warps": 1}, [
            ("rows5", dict(x_ptr=Buf("f32", 5 * 64), out_ptr=Buf("f32", 5 * 8, "sentinel", True)), [5, 1, 1], 3003)]),
        ("many_args_128_f32", many_args_kernel, {"BLOCK": 128}, {"num_warps": 2}, [
            ("n200", many, [2, 1, 1], 3004)]),
        ("flatten_varlen_32_f32", flatten_varlen_kernel, {"L": L, "NP": 3, "BLOCK": 32}, {"num_warps": 1}, [
            ("r10", dict(x_ptr=Buf("f32", R * L), out_ptr=Buf("f32", R, "sentinel", True), R=R), [3, 1, 1], 3005)]),
        ("flatten_rowsum_32_f32", flatten_rowsum_kernel, {"L": L, "NP": 4, "BLOCK": 32}, {"num_warps": 1}, [
            ("r10", dict(x_ptr=Buf("f32", R * L), w_ptr=Buf("f32", R), out_ptr=Buf("f32", R, "sentinel", True), R=R),
             [4, 1, 1], 3006)]),
    ]


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx22")]
    gen.main()
