#!/usr/bin/env python3
"""Round 18 of the second zoo (loops that carry pointers as people write them: two buffers swapped each
sweep of a stencil, in a `for` and in a `while` that stops when the sweep changes little; a pointer reassigned
by a flag read each iteration; a tensor of pointers whose strides grow; one moved by steps loaded from memory):
writes fx18/ as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen18.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, triton, tl  # noqa: E402
from people_ttgir import F32  # noqa: E402


# 1. A stencil sweeping a fixed number of times, its two buffers swapped by `src, dst = dst, src`.
@triton.jit
def pingpong_kernel(a_ptr, b_ptr, n_iter, N: tl.constexpr):
    offs = tl.arange(0, N)
    src = a_ptr
    dst = b_ptr
    for _ in range(n_iter):
        l = tl.load(src + offs - 1, mask=offs > 0, other=0.0)
        c = tl.load(src + offs)
        r = tl.load(src + offs + 1, mask=offs < N - 1, other=0.0)
        tl.store(dst + offs, (l + c + r) * 0.25)
        tl.debug_barrier()
        src, dst = dst, src

# 2. A tensor of pointers whose strides grow each iteration: `p += offs + 1`.
@triton.jit
def growing_stride_kernel(x_ptr, out_ptr, n_iter, N: tl.constexpr):
    offs = tl.arange(0, N)
    p = x_ptr + offs
    acc = tl.zeros([N], tl.float32)
    for _ in range(n_iter):
        acc += tl.load(p)
        p += offs + 1
    tl.store(out_ptr + offs, acc)

# 3. A tensor of pointers moved by steps loaded from memory: `p += tl.load(steps + i * N + offs) + 3`.
@triton.jit
def data_step_kernel(x_ptr, step_ptr, out_ptr, n_iter, N: tl.constexpr):
    offs = tl.arange(0, N)
    p = x_ptr + offs
    acc = tl.zeros([N], tl.float32)
    for i in range(n_iter):
        acc += tl.load(p)
        p += tl.load(step_ptr + i * N + offs) + 3
    tl.store(out_ptr + offs, acc)

# 5. The stencil swapping its buffers until a sweep changes little (at most 50), the result
#    read back through the last pointer. Triton 3.6 aborts on it (TritonAMDGPUCanonicalizePointers).
@triton.jit
def pingpong_while_kernel(a_ptr, b_ptr, out_ptr, tol, N: tl.constexpr):
    offs = tl.arange(0, N)
    src = a_ptr
    dst = b_ptr
    delta = tol + 1.0
    it = 0
    while (delta > tol) & (it < 50):
        l = tl.load(src + offs - 1, mask=offs > 0, other=0.0)
        c = tl.load(src + offs)
        r = tl.load(src + offs + 1, mask=offs < N - 1, other=0.0)
        new = (l + c + r) * 0.25
        tl.store(dst + offs, new)
        delta = tl.max(tl.abs(new - c), axis=0)
        tl.debug_barrier()
        src, dst = dst, src
        it += 1
    tl.store(out_ptr + offs, tl.load(src + offs) + it)

# 4. A pointer reassigned each iteration by a flag read from memory: `p = y if flag else x`.
@triton.jit
def flag_switch_kernel(x_ptr, y_ptr, flags_ptr, out_ptr, n, N: tl.constexpr):
    offs = tl.arange(0, N)
    p = x_ptr
    acc = tl.zeros([N], tl.float32)
    for i in range(n):
        acc += tl.load(p + i * N + offs)
        if tl.load(flags_ptr + i) != 0:
            p = y_ptr
        else:
            p = x_ptr
    tl.store(out_ptr + offs, acc)


def cases():
    return [
        ("flag_switch_64_f32", flag_switch_kernel, {"N": 64}, {"num_warps": 1}, [
            ("n6", dict(x_ptr=Buf("f32", 64*6), y_ptr=Buf("f32", 64*6), flags_ptr=Buf("i32", 6, "int3"), out_ptr=Buf("f32", 64, "sentinel", True), n=6), [1,1,1], 2605)]),
        ("pingpong_while_128_f32", pingpong_while_kernel, {"N": 128}, {"num_warps": 2}, [
            ("tol", dict(a_ptr=Buf("f32", 128, "wide", True), b_ptr=Buf("f32", 128, "sentinel", True), out_ptr=Buf("f32", 128, "sentinel", True), tol=F32(0.5)), [1,1,1], 2604)]),
        ("pingpong_256_f32", pingpong_kernel, {"N": 256}, {"num_warps": 4}, [
            ("it5", dict(a_ptr=Buf("f32", 256, "wide", True), b_ptr=Buf("f32", 256, "sentinel", True), n_iter=5), [1,1,1], 2601)]),
        ("growing_stride_64_f32", growing_stride_kernel, {"N": 64}, {"num_warps": 1}, [
            ("it4", dict(x_ptr=Buf("f32", 64*12), out_ptr=Buf("f32", 64, "sentinel", True), n_iter=4), [1,1,1], 2602)]),
        ("data_step_64_f32", data_step_kernel, {"N": 64}, {"num_warps": 1}, [
            ("it4", dict(x_ptr=Buf("f32", 64*20), step_ptr=Buf("i32", 64*4, "int3"), out_ptr=Buf("f32", 64, "sentinel", True), n_iter=4), [1,1,1], 2603)]),
    ]


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx18")]
    gen.main()
