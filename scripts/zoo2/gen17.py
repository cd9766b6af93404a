#!/usr/bin/env python3
"""Round 17 of the second zoo (kernels in the style PyTorch Inductor generates: flat indices split by
division and remainder into broadcast operands, a persistent row reduction with masks on both axes, a looped
reduction carrying a whole tile of partial sums, 64-bit indices, a concatenation by index ranges, an embedding
gather with negative indices wrapped): writes fx17/ as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen17.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, cdiv, triton, tl  # noqa: E402


# 1. A pointwise bias-add and ReLU over a flat index: the column `x0 = x % 64` and the row `x1 = x // 64`.
@triton.jit
def inductor_bias_relu_kernel(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x2 = xindex
    x0 = xindex % 64
    tmp0 = tl.load(in_ptr0 + (x2), xmask)
    tmp1 = tl.load(in_ptr1 + (x0), xmask, eviction_policy='evict_last')
    tmp2 = tmp0 + tmp1
    tmp3 = tl.full([1], 0, tl.int32)
    tmp4 = tl.maximum(tmp3.to(tl.float32), tmp2)
    tl.store(out_ptr0 + (x2), tmp4, xmask)


# 2. A persistent softmax over rows (`xnumel` rows of `rnumel`), masks on both axes, broadcast_to.
@triton.jit
def inductor_softmax_kernel(in_ptr0, out_ptr2, xnumel, rnumel, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    rindex = tl.arange(0, RBLOCK)[None, :]
    rmask = rindex < rnumel
    r1 = rindex
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r1 + (rnumel * x0)), rmask & xmask, other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, RBLOCK])
    tmp3 = tl.where(rmask & xmask, tmp1, float("-inf"))
    tmp4 = tl.max(tmp3, 1)[:, None]
    tmp5 = tmp0 - tmp4
    tmp6 = tl.exp(tmp5)
    tmp7 = tl.broadcast_to(tmp6, [XBLOCK, RBLOCK])
    tmp9 = tl.where(rmask & xmask, tmp7, 0)
    tmp10 = tl.sum(tmp9, 1)[:, None]
    tmp11 = tmp6 / tmp10
    tl.store(out_ptr2 + (r1 + (rnumel * x0)), tmp11, rmask & xmask)


# 3. A looped reduction (sum of squares per row) carrying an [XBLOCK, RBLOCK] tile of partial sums.
@triton.jit
def inductor_sumsq_loop_kernel(in_ptr0, out_ptr0, xnumel, rnumel, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    rbase = tl.arange(0, RBLOCK)[None, :]
    x0 = xindex
    _tmp3 = tl.full([XBLOCK, RBLOCK], 0, tl.float32)
    for roffset in range(0, rnumel, RBLOCK):
        rindex = roffset + rbase
        rmask = rindex < rnumel
        r1 = rindex
        tmp0 = tl.load(in_ptr0 + (r1 + (rnumel * x0)), rmask & xmask, eviction_policy='evict_first', other=0.0)
        tmp1 = tmp0 * tmp0
        tmp2 = tl.broadcast_to(tmp1, [XBLOCK, RBLOCK])
        tmp4 = _tmp3 + tmp2
        _tmp3 = tl.where(rmask & xmask, tmp4, _tmp3)
    tmp3 = tl.sum(_tmp3, 1)[:, None]
    tl.store(out_ptr0 + (x0), tmp3, xmask)


# 4. 64-bit indices: a transpose-copy of a [R, C] matrix by a flat int64 index.
@triton.jit
def inductor_i64_transpose_kernel(in_ptr0, out_ptr0, xnumel, C, R, XBLOCK: tl.constexpr):
    xoffset = tl.program_id(0).to(tl.int64) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:].to(tl.int64)
    xmask = xindex < xnumel
    x0 = xindex % C
    x1 = xindex // C
    tmp0 = tl.load(in_ptr0 + (x0 + (C * x1)), xmask)
    tl.store(out_ptr0 + (x1 + (R * x0)), tmp0 * 3.0, xmask)


# 5. torch.cat of two tensors along the last axis: each column read from one source by its range.
@triton.jit
def inductor_cat_kernel(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex % 96
    x1 = xindex // 96
    tmp3 = x0 < 64
    tmp4 = tl.load(in_ptr0 + ((64 * x1) + (x0)), tmp3 & xmask, other=0.0)
    tmp6 = x0 >= 64
    tmp9 = tl.load(in_ptr1 + ((32 * x1) + ((-64) + x0)), tmp6 & xmask, other=0.0)
    tmp10 = tl.where(tmp3, tmp4, tmp9)
    tl.store(out_ptr0 + (xindex), tmp10, xmask)


# 6. An embedding lookup with Python's negative indices: a negative index counts from the end.
@triton.jit
def inductor_embedding_kernel(in_ptr0, in_ptr1, out_ptr0, xnumel, V, XBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x1 = xindex // 32
    x0 = xindex % 32
    tmp0 = tl.load(in_ptr0 + (x1), xmask, eviction_policy='evict_last')
    tmp1 = tmp0 + V
    tmp2 = tmp0 < 0
    tmp3 = tl.where(tmp2, tmp1, tmp0)
    tmp5 = tl.load(in_ptr1 + (x0 + (32 * tmp3)), xmask)
    tl.store(out_ptr0 + (xindex), tmp5, xmask)


def cases():
    out = []
    n = 20 * 64 - 7
    out.append(("inductor_bias_relu_256_f32", inductor_bias_relu_kernel, {"XBLOCK": 256}, {"num_warps": 4}, [
        ("n1273", dict(in_ptr0=Buf("f32", 1280), in_ptr1=Buf("f32", 64), out_ptr0=Buf("f32", 1280, "sentinel", True),
                       xnumel=n), [cdiv(n, 256), 1, 1], 2501)]))
    X, R = 37, 100
    out.append(("inductor_softmax_4x128_f32", inductor_softmax_kernel, {"XBLOCK": 4, "RBLOCK": 128}, {"num_warps": 4}, [
        ("x37r100", dict(in_ptr0=Buf("f32", X * R, "wide"), out_ptr2=Buf("f32", X * R, "sentinel", True), xnumel=X,
                         rnumel=R), [cdiv(X, 4), 1, 1], 2502)]))
    X2, R2 = 21, 300
    out.append(("inductor_sumsq_loop_8x64_f32", inductor_sumsq_loop_kernel, {"XBLOCK": 8, "RBLOCK": 64},
                {"num_warps": 4}, [
        ("x21r300", dict(in_ptr0=Buf("f32", X2 * R2, "wide"), out_ptr0=Buf("f32", X2, "sentinel", True), xnumel=X2,
                         rnumel=R2), [cdiv(X2, 8), 1, 1], 2503)]))
    R3, C3 = 30, 50
    out.append(("inductor_i64_transpose_128_f32", inductor_i64_transpose_kernel, {"XBLOCK": 128}, {"num_warps": 4}, [
        ("r30c50", dict(in_ptr0=Buf("f32", R3 * C3), out_ptr0=Buf("f32", R3 * C3, "sentinel", True), xnumel=R3 * C3,
                        C=C3, R=R3), [cdiv(R3 * C3, 128), 1, 1], 2504)]))
    rows = 13
    out.append(("inductor_cat_256_f16", inductor_cat_kernel, {"XBLOCK": 256}, {"num_warps": 4}, [
        ("rows13", dict(in_ptr0=Buf("f16", rows * 64), in_ptr1=Buf("f16", rows * 32),
                        out_ptr0=Buf("f16", rows * 96, "sentinel", True), xnumel=rows * 96),
         [cdiv(rows * 96, 256), 1, 1], 2505)]))
    T, V = 40, 50
    out.append(("inductor_embedding_128_f32", inductor_embedding_kernel, {"XBLOCK": 128}, {"num_warps": 4}, [
        ("t40v50", dict(in_ptr0=Buf("i32", T, "int3"), in_ptr1=Buf("f32", V * 32),
                        out_ptr0=Buf("f32", T * 32, "sentinel", True), xnumel=T * 32, V=V),
         [cdiv(T * 32, 128), 1, 1], 2506)]))
    return out


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx17")]
    gen.main()
