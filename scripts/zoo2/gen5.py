#!/usr/bin/env python3
"""Round 5 of the second zoo: writes fx5/ as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen5.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, F32, cdiv, triton, tl  # noqa: E402


@triton.jit
def _lin(a1, b1, a2, b2):
    return a1 * a2, b1 * a2 + b2


# A reversed scan with a non-commutative combine: the backward recurrence h_i = a_i h_{i+1} + b_i down the columns.
@triton.jit
def rev_recurrence_kernel(a_ptr, b_ptr, h_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    a = tl.load(a_ptr + offs) * 0.25
    b = tl.load(b_ptr + offs)
    _, h = tl.associative_scan((a, b), axis=0, combine_fn=_lin, reverse=True)
    tl.store(h_ptr + offs, h)


# Image preprocessing: uint8 HWC pixels to normalised f32 CHW planes (uitofp, scatter by channel).
@triton.jit
def image_normalize_u8_kernel(img_ptr, out_ptr, HW, m0, m1, m2, s0, s1, s2, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < HW * 3
    px = tl.load(img_ptr + offs, mask=m, other=0).to(tl.float32) / 255.0
    p = offs // 3
    c = offs % 3
    mean = tl.where(c == 0, m0, tl.where(c == 1, m1, m2))
    std = tl.where(c == 0, s0, tl.where(c == 1, s1, s2))
    tl.store(out_ptr + c * HW + p, (px - mean) / std, mask=m)


# Float atomic max and min (negative values too) per bin, an f32 atomic exchange.
@triton.jit
def atomic_minmax_f32_kernel(x_ptr, mx_ptr, mn_ptr, last_ptr, n, NB: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.)
    b = offs % NB
    tl.atomic_max(mx_ptr + b, x, mask=m)
    tl.atomic_min(mn_ptr + b, x, mask=m)
    tl.atomic_xchg(last_ptr + offs, x * 2.0, mask=m)


# A bitset built with atomic_or; atomic_xor and atomic_and on a second table.
@triton.jit
def bitset_atomic_kernel(x_ptr, bits_ptr, xr_ptr, an_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.abs(tl.load(x_ptr + offs, mask=m, other=0))
    word = (x >> 5) & 7
    bit = 1 << (x & 31)
    tl.atomic_or(bits_ptr + word, bit, mask=m)
    tl.atomic_xor(xr_ptr + (offs & 7), x, mask=m)
    tl.atomic_and(an_ptr + (offs & 3), ~bit, mask=m)


# Scores, softmax, then P^T V through tl.trans of the probabilities (the dV of attention, forward-written).
@triton.jit
def ptv_trans_dot_kernel(q_ptr, k_ptr, do_ptr, dv_ptr, BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
    k = tl.load(k_ptr + rn[:, None] * D + rd[None, :])
    s = tl.dot(q, tl.trans(k)) * 0.05
    p = tl.exp(s - tl.max(s, axis=1)[:, None])
    p = p / tl.sum(p, axis=1)[:, None]
    do = tl.load(do_ptr + rm[:, None] * D + rd[None, :])
    dv = tl.dot(tl.trans(p.to(tl.float16)), do)
    tl.store(dv_ptr + rn[:, None] * D + rd[None, :], dv)


# An OCP / FNUZ fp8 e5m2 matmul: operands quantised on the fly.
@triton.jit
def matmul_e5m2_kernel(a_ptr, b_ptr, c_ptr, K, N, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                       F8: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :]).to(F8)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :]).to(F8)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


# A 4096-element block with one warp (64 or 128 values a lane): scale, then a block sum.
@triton.jit
def big_block_w1_kernel(x_ptr, y_ptr, s_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = x * 1.5 - 2.0
    tl.store(y_ptr + offs, y)
    tl.store(s_ptr + tl.program_id(0), tl.sum(y, axis=0))


# A 4096-long cumulative sum across 8 warps, and a [4, 1024] row max with warps along the row.
@triton.jit
def long_scan_w8_kernel(x_ptr, y_ptr, r_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(y_ptr + tl.arange(0, BLOCK), tl.cumsum(x, 0))
    x2 = tl.reshape(x, (4, BLOCK // 4))
    tl.store(r_ptr + tl.arange(0, 4), tl.max(x2, axis=1))


# tl.gather on a 1-D block, indices from memory (any element of the block, across warps).
@triton.jit
def gather_1d_kernel(x_ptr, idx_ptr, y_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    idx = tl.load(idx_ptr + tl.arange(0, N)) & (N - 1)
    tl.store(y_ptr + tl.arange(0, N), tl.gather(x, idx, 0))


# A bf16 16x16x32 dot (operands rounded from f32), one tile per program.
@triton.jit
def dot_bf16_small_kernel(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    a = tl.load(a_ptr + pid * BM * BK + tl.arange(0, BM)[:, None] * BK + tl.arange(0, BK)[None, :]).to(tl.bfloat16)
    b = tl.load(b_ptr + pid * BK * BN + tl.arange(0, BK)[:, None] * BN + tl.arange(0, BN)[None, :]).to(tl.bfloat16)
    tl.store(c_ptr + pid * BM * BN + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], tl.dot(a, b))


# A dot under a runtime branch: tiles with a positive flag are multiplied, others copied.
@triton.jit
def dot_in_if_kernel(a_ptr, b_ptr, c_ptr, flags_ptr, T: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, T)[:, None] * T + tl.arange(0, T)[None, :]
    a = tl.load(a_ptr + pid * T * T + offs)
    if tl.load(flags_ptr + pid) > 0:
        c = tl.dot(a, tl.load(b_ptr + offs))
    else:
        c = a.to(tl.float32)
    tl.store(c_ptr + pid * T * T + offs, c)


# Repeated squaring in a while loop (matrix power by a runtime count): the dot's result fed back as both operands.
@triton.jit
def matpow_while_kernel(a_ptr, c_ptr, n_iter, T: tl.constexpr):
    offs = tl.arange(0, T)[:, None] * T + tl.arange(0, T)[None, :]
    x = tl.load(a_ptr + offs)
    i = 0
    while i < n_iter:
        x = (tl.dot(x, x) * 0.0625).to(tl.float16)
        i += 1
    tl.store(c_ptr + offs, x.to(tl.float32))


def cases():
    out = []
    out.append(("rev_recurrence_axis0_32x16_f32", rev_recurrence_kernel, {"M": 32, "N": 16}, {"num_warps": 4}, [
        ("one", dict(a_ptr=Buf("f32", 512, "int3"), b_ptr=Buf("f32", 512, "int3"), h_ptr=Buf("f32", 512, "sentinel", True)),
         [1, 1, 1], 1301)]))
    HW = 300
    out.append(("image_normalize_u8_256", image_normalize_u8_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("hw300", dict(img_ptr=Buf("i8", 1024, "random", tt="u8"), out_ptr=Buf("f32", 3 * HW, "sentinel", True), HW=HW,
                       m0=F32(0.485), m1=F32(0.456), m2=F32(0.406), s0=F32(0.229), s1=F32(0.224), s2=F32(0.225)),
         [cdiv(3 * HW, 256), 1, 1], 1302)]))
    out.append(("atomic_minmax_f32_128", atomic_minmax_f32_kernel, {"NB": 8, "BLOCK": 128}, {"num_warps": 4}, [
        ("n300", dict(x_ptr=Buf("f32", 384, "wide"), mx_ptr=Buf("f32", 8, "sentinel", True),
                      mn_ptr=Buf("f32", 8, "sentinel", True), last_ptr=Buf("f32", 384, "sentinel", True), n=300),
         [3, 1, 1], 1303)]))
    out.append(("bitset_atomic_128_i32", bitset_atomic_kernel, {"BLOCK": 128}, {"num_warps": 4}, [
        ("n300", dict(x_ptr=Buf("i32", 384, "small"), bits_ptr=Buf("i32", 8, "zeros", True),
                      xr_ptr=Buf("i32", 8, "zeros", True), an_ptr=Buf("i32", 4, "sentinel", True), n=300),
         [3, 1, 1], 1304)]))
    out.append(("ptv_trans_dot_32x32_d32_f16", ptv_trans_dot_kernel, {"BM": 32, "BN": 32, "D": 32}, {"num_warps": 4}, [
        ("one", dict(q_ptr=Buf("f16", 1024, "int3"), k_ptr=Buf("f16", 1024, "int3"), do_ptr=Buf("f16", 1024, "int3"),
                     dv_ptr=Buf("f32", 1024, "sentinel", True)), [1, 1, 1], 1305)]))
    for f8, short, archs in (("float8e5", "e5m2", None), ("float8e5b16", "e5m2fnuz", None)):
        M, N, K = 32, 32, 64
        out.append((f"matmul_{short}_32x32x32", matmul_e5m2_kernel, {"BM": 32, "BN": 32, "BK": 32, "F8": getattr(tl, f8)},
                    {"num_warps": 4}, [
                        ("32x32x64", dict(a_ptr=Buf("f32", M * K, "int3"), b_ptr=Buf("f32", K * N, "int3"),
                                          c_ptr=Buf("f32", M * N, "sentinel", True), K=K, N=N), [1, 1, 1], 1306)]))
    out.append(("big_block_w1_4096_f32", big_block_w1_kernel, {"BLOCK": 4096}, {"num_warps": 1}, [
        ("blocks2", dict(x_ptr=Buf("f32", 8192), y_ptr=Buf("f32", 8192, "sentinel", True), s_ptr=Buf("f32", 2, "sentinel", True)),
         [2, 1, 1], 1307)]))
    out.append(("long_scan_w8_4096_i32", long_scan_w8_kernel, {"BLOCK": 4096}, {"num_warps": 8}, [
        ("one", dict(x_ptr=Buf("i32", 4096), y_ptr=Buf("i32", 4096, "sentinel", True), r_ptr=Buf("i32", 4, "sentinel", True)),
         [1, 1, 1], 1308)]))
    out.append(("gather_1d_1024_f32", gather_1d_kernel, {"N": 1024}, {"num_warps": 4}, [
        ("one", dict(x_ptr=Buf("f32", 1024), idx_ptr=Buf("i32", 1024), y_ptr=Buf("f32", 1024, "sentinel", True)),
         [1, 1, 1], 1309)]))
    out.append(("dot_bf16_16x16x32", dot_bf16_small_kernel, {"BM": 16, "BN": 16, "BK": 32}, {"num_warps": 1}, [
        ("tiles2", dict(a_ptr=Buf("f32", 2 * 512), b_ptr=Buf("f32", 2 * 512), c_ptr=Buf("f32", 2 * 256, "sentinel", True)),
         [2, 1, 1], 1310)]))
    out.append(("dot_in_if_32_f16", dot_in_if_kernel, {"T": 32}, {"num_warps": 4}, [
        ("tiles4", dict(a_ptr=Buf("f16", 4 * 1024, "int3"), b_ptr=Buf("f16", 1024, "int3"),
                        c_ptr=Buf("f32", 4 * 1024, "sentinel", True), flags_ptr=Buf("i32", 4, "small")), [4, 1, 1], 1311)]))
    out.append(("matpow_while_16_f16", matpow_while_kernel, {"T": 16}, {"num_warps": 1}, [
        ("iters2", dict(a_ptr=Buf("f16", 256, "int3"), c_ptr=Buf("f32", 256, "sentinel", True), n_iter=2), [1, 1, 1], 1312)]))
    return out


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx5")]
    gen.main()
