#!/usr/bin/env python3
"""Round 19 of the second zoo (what people write less often: a pointer's address taken to dispatch on its
alignment, and per element; a linked list walked per element in a `while`; `tl.cat`; tiles reordered by
`tl.swizzle2d`; a block pointer advanced by offsets loaded from memory): writes fx19/ as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen19.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, triton, tl  # noqa: E402


# 1. A pointer's address taken (`x_ptr.to(tl.int64, bitcast=True)`) to choose a path by its alignment.
@triton.jit
def align_dispatch_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    addr = x_ptr.to(tl.int64, bitcast=True)
    x = tl.load(x_ptr + offs, mask=offs < n)
    if addr % 16 == 0:
        y = x * 2.0
    else:
        y = x * 3.0
    tl.store(out_ptr + offs, y, mask=offs < n)

# 2. A tensor of pointers' addresses less the base's: each element's byte offset.
@triton.jit
def pointer_bytes_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    p = x_ptr + offs
    d = p.to(tl.int64, bitcast=True) - x_ptr.to(tl.int64, bitcast=True)
    tl.store(out_ptr + offs, d.to(tl.int32), mask=offs < n)

# 3. A linked list walked per element (`node = next[node]`) in a `while` until every walk ends.
@triton.jit
def list_walk_kernel(next_ptr, val_ptr, out_ptr, N: tl.constexpr):
    node = tl.arange(0, N)
    acc = tl.zeros([N], tl.float32)
    steps = 0
    while (tl.max(node, axis=0) >= 0) & (steps < 20):
        live = node >= 0
        acc += tl.load(val_ptr + node, mask=live, other=0.0)
        node = tl.where(live, tl.load(next_ptr + node, mask=live, other=-1), -1)
        steps += 1
    tl.store(out_ptr + tl.arange(0, N), acc)

# 4. `tl.cat` of two tensors (order free), summed.
@triton.jit
def cat_sum_kernel(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    c = tl.cat(x, y, can_reorder=True)
    s = tl.sum(c, axis=0)
    tl.store(out_ptr + offs, x * 2.0 + s)

# 5. Tiles reordered by `tl.swizzle2d` over a 2-D grid.
@triton.jit
def swizzle_tiles_kernel(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr, G: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    sm, sn = tl.swizzle2d(pid_m, pid_n, num_m, num_n, G)
    rm = sm * BM + tl.arange(0, BM)[:, None]
    rn = sn * BN + tl.arange(0, BN)[None, :]
    mask = (rm < M) & (rn < N)
    x = tl.load(x_ptr + rm * N + rn, mask=mask)
    tl.store(out_ptr + rm * N + rn, x + (pid_m * 100 + pid_n).to(tl.float32), mask=mask)

# 6. A block pointer advanced by row offsets loaded from memory, rows outside the tensor read as zero.
@triton.jit
def block_ptr_data_step_kernel(x_ptr, step_ptr, out_ptr, M, K, BM: tl.constexpr, BK: tl.constexpr):
    bp = tl.make_block_ptr(x_ptr, (M, K), (K, 1), (0, 0), (BM, BK), (1, 0))
    acc = tl.zeros([BM, BK], tl.float32)
    for i in range(4):
        acc += tl.load(bp, boundary_check=(0, 1), padding_option="zero")
        s = tl.load(step_ptr + i)
        bp = tl.advance(bp, (s, 0))
    op = tl.make_block_ptr(out_ptr, (BM, BK), (BK, 1), (0, 0), (BM, BK), (1, 0))
    tl.store(op, acc)


def cases():
    return [
        ("align_dispatch_256_f32", align_dispatch_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
            ("n1000", dict(x_ptr=Buf("f32", 1024), out_ptr=Buf("f32", 1024, "sentinel", True), n=1000), [4,1,1], 2701)]),
        ("pointer_bytes_128_f32", pointer_bytes_kernel, {"BLOCK": 128}, {"num_warps": 2}, [
            ("n300", dict(x_ptr=Buf("f32", 384), out_ptr=Buf("i32", 384, "sentinel", True), n=300), [3,1,1], 2702)]),
        ("list_walk_64_f32", list_walk_kernel, {"N": 64}, {"num_warps": 1}, [
            ("n64", dict(next_ptr=Buf("i32", 64, "int3"), val_ptr=Buf("f32", 64), out_ptr=Buf("f32", 64, "sentinel", True)), [1,1,1], 2703)]),
        ("cat_sum_64_f32", cat_sum_kernel, {"N": 64}, {"num_warps": 1}, [
            ("n64", dict(x_ptr=Buf("f32", 64), y_ptr=Buf("f32", 64), out_ptr=Buf("f32", 64, "sentinel", True)), [1,1,1], 2704)]),
        ("swizzle_tiles_16x32_f32", swizzle_tiles_kernel, {"BM": 16, "BN": 32, "G": 2}, {"num_warps": 2}, [
            ("m50n70", dict(x_ptr=Buf("f32", 50*70), out_ptr=Buf("f32", 50*70, "sentinel", True), M=50, N=70), [4,3,1], 2705)]),
        ("block_ptr_data_step_16x32_f32", block_ptr_data_step_kernel, {"BM": 16, "BK": 32}, {"num_warps": 2}, [
            ("m64k32", dict(x_ptr=Buf("f32", 64*32), step_ptr=Buf("i32", 4, "int3"), out_ptr=Buf("f32", 16*32, "sentinel", True), M=64, K=32), [1,1,1], 2706)]),
    ]


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx19")]
    gen.main()
