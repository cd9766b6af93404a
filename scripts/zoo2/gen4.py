#!/usr/bin/env python3
"""Round 4 of the second zoo: writes fx4/ as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen4.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, F32, cdiv, triton, tl  # noqa: E402


# Attention backward, dK/dV for a block of keys (tutorial 06's _attn_bwd_dkdv, simplified: no causal mask).
@triton.jit
def attn_bwd_dkdv_kernel(Q, K, V, DO, LSE, DELTA, DK, DV, N_CTX, sm_scale, BLOCK_M: tl.constexpr,
                         BLOCK_N: tl.constexpr, D: tl.constexpr):
    offs_n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, D)
    nmask = offs_n[:, None] < N_CTX
    k = tl.load(K + offs_n[:, None] * D + offs_d[None, :], mask=nmask, other=0.)
    v = tl.load(V + offs_n[:, None] * D + offs_d[None, :], mask=nmask, other=0.)
    dk = tl.zeros([BLOCK_N, D], dtype=tl.float32)
    dv = tl.zeros([BLOCK_N, D], dtype=tl.float32)
    for start_m in range(0, N_CTX, BLOCK_M):
        offs_m = start_m + tl.arange(0, BLOCK_M)
        mm = offs_m < N_CTX
        qT = tl.load(Q + offs_m[None, :] * D + offs_d[:, None], mask=mm[None, :], other=0.)
        lse = tl.load(LSE + offs_m, mask=mm, other=0.)
        pT = tl.exp(tl.dot(k, qT) * sm_scale - lse[None, :])
        pT = tl.where(mm[None, :] & nmask, pT, 0.)
        do = tl.load(DO + offs_m[:, None] * D + offs_d[None, :], mask=mm[:, None], other=0.)
        dv += tl.dot(pT.to(tl.float16), do)
        delta = tl.load(DELTA + offs_m, mask=mm, other=0.)
        dpT = tl.dot(v, tl.trans(do))
        dsT = pT * (dpT - delta[None, :])
        dk += tl.dot(dsT.to(tl.float16), tl.trans(qT))
    tl.store(DK + offs_n[:, None] * D + offs_d[None, :], dk * sm_scale, mask=nmask)
    tl.store(DV + offs_n[:, None] * D + offs_d[None, :], dv, mask=nmask)


# Linear layer backward, dW = X^T dY, the X tile transposed by tl.trans before the dot, a loop over tokens.
@triton.jit
def linear_bwd_dw_kernel(x_ptr, dy_ptr, dw_ptr, M, K, N, BK: tl.constexpr, BN: tl.constexpr, BM: tl.constexpr):
    rk = tl.program_id(0) * BK + tl.arange(0, BK)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BK, BN), dtype=tl.float32)
    for m in range(0, M, BM):
        rm = m + tl.arange(0, BM)
        x = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.)
        dy = tl.load(dy_ptr + rm[:, None] * N + rn[None, :], mask=(rm[:, None] < M) & (rn[None, :] < N), other=0.)
        acc += tl.dot(tl.trans(x), dy)
    tl.store(dw_ptr + rk[:, None] * N + rn[None, :], acc, mask=(rk[:, None] < K) & (rn[None, :] < N))


@triton.jit
def _lin(a1, b1, a2, b2):
    return a1 * a2, b1 * a2 + b2


# A selective-scan style recurrence h = exp(-|dt| * 0.1) h + b along the rows of a [16, 64] tile, 8 warps.
@triton.jit
def ssm_scan_2d_kernel(dt_ptr, b_ptr, h_ptr, D, L: tl.constexpr, BD: tl.constexpr):
    rd = tl.program_id(0) * BD + tl.arange(0, BD)
    offs = rd[:, None] * L + tl.arange(0, L)[None, :]
    m = rd[:, None] < D
    a = tl.exp(-tl.abs(tl.load(dt_ptr + offs, mask=m, other=0.)) * 0.1)
    b = tl.load(b_ptr + offs, mask=m, other=0.)
    _, h = tl.associative_scan((a, b), axis=1, combine_fn=_lin)
    tl.store(h_ptr + offs, h, mask=m)


# Embedding lookup with int64 token ids (torch.long), 64-bit row offsets.
@triton.jit
def embedding_i64_kernel(ids_ptr, w_ptr, out_ptr, D, V: tl.constexpr, BD: tl.constexpr):
    t = tl.program_id(0)
    idx = tl.load(ids_ptr + t) & (V - 1)
    cols = tl.arange(0, BD)
    row = tl.load(w_ptr + idx * D + cols, mask=cols < D, other=0.)
    tl.store(out_ptr + t.to(tl.int64) * D + cols, row, mask=cols < D)


# Reversal by negative-going offsets: a reversed read and a reversed write.
@triton.jit
def reverse_rw_kernel(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + (n - 1) - offs, mask=m), mask=m)
    tl.store(z_ptr + (n - 1) - offs, tl.load(x_ptr + offs, mask=m) * 2.0, mask=m)


# f16 rows at an odd stride and a column offset (a sliced view): nothing aligned.
@triton.jit
def unaligned_copy_f16_kernel(x_ptr, y_ptr, n_rows, n_cols, stride_x, stride_y, col0, BR: tl.constexpr,
                              BC: tl.constexpr):
    rows = tl.program_id(0) * BR + tl.arange(0, BR)
    cols = tl.arange(0, BC)
    m = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * stride_x + col0 + cols[None, :], mask=m, other=0.)
    tl.store(y_ptr + rows[:, None] * stride_y + cols[None, :], x * 2.0, mask=m)


# Unsigned division and remainder (runtime and constant divisors), and a uint64 product.
@triton.jit
def udivmod_kernel(x_ptr, q_ptr, r_ptr, w_ptr, n, d, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    u = tl.load(x_ptr + offs, mask=m, other=0).to(tl.uint32, bitcast=True)
    du = d.to(tl.uint32)
    tl.store(q_ptr + offs, (u // du).to(tl.int32, bitcast=True), mask=m)
    tl.store(r_ptr + offs, (u % du + u % 10).to(tl.int32, bitcast=True), mask=m)
    w = (u.to(tl.uint64) * 3) // 7
    tl.store(w_ptr + offs, (w >> 1).to(tl.int32), mask=m)


# Arithmetic on f16 tensors (each step rounded to f16), a multiply-add.
@triton.jit
def f16_math_kernel(x_ptr, e_ptr, l_ptr, s_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.)
    tl.store(e_ptr + offs, x * x * 0.5 - x, mask=m)
    tl.store(l_ptr + offs, tl.maximum(x, 0.0) * 0.3 + tl.minimum(x, 1.0), mask=m)
    tl.store(s_ptr + offs, tl.sqrt(tl.abs(x).to(tl.float32)).to(tl.float16), mask=m)


# A K loop unrolled by tl.static_range, the accumulator carried through tl.dot.
@triton.jit
def unrolled_dot_kernel(a_ptr, b_ptr, c_ptr, M, N, K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                        BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.static_range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=rm[:, None] < M, other=0.)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :], mask=rn[None, :] < N, other=0.)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


# The tutorial's row softmax on long rows with 16 warps.
@triton.jit
def softmax_w16_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * stride + cols, e / tl.sum(e, axis=0), mask=cols < n_cols)


@triton.jit
def _max_count(v1, i1, c1, v2, i2, c2):
    gt = v2 > v1
    eq = v2 == v1
    v = tl.where(gt, v2, v1)
    i = tl.where(gt, i2, tl.where(eq, tl.minimum(i1, i2), i1))
    c = tl.where(gt, c2, tl.where(eq, c1 + c2, c1))
    return v, i, c


# A three-operand reduce down the columns (max, its first row, how often it occurs), 8 warps.
@triton.jit
def col_max_count_kernel(x_ptr, v_ptr, i_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    x = tl.load(x_ptr + rows[:, None] * N + tl.arange(0, N)[None, :])
    idx = tl.broadcast_to(rows[:, None], (M, N))
    one = tl.full((M, N), 1, tl.int32)
    v, i, c = tl.reduce((x, idx, one), 0, _max_count)
    tl.store(v_ptr + tl.arange(0, N), v)
    tl.store(i_ptr + tl.arange(0, N), i)
    tl.store(c_ptr + tl.arange(0, N), c)


# tl.histogram of a 1024-element block, 8 warps.
@triton.jit
def histogram_w8_kernel(x_ptr, h_ptr, NB: tl.constexpr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)) & (NB - 1)
    tl.store(h_ptr + tl.program_id(0) * NB + tl.arange(0, NB), tl.histogram(x, NB))


def cases():
    out = []
    S, D = 50, 32
    out.append(("attn_bwd_dkdv_16x32_d32_f16", attn_bwd_dkdv_kernel, {"BLOCK_M": 16, "BLOCK_N": 32, "D": D},
                {"num_warps": 4}, [
                    ("ctx50", dict(Q=Buf("f16", 64 * D, "int3"), K=Buf("f16", 64 * D, "int3"), V=Buf("f16", 64 * D, "int3"),
                                   DO=Buf("f16", 64 * D, "int3"), LSE=Buf("f32", 64, "int3"),
                                   DELTA=Buf("f32", 64, "int3"), DK=Buf("f32", 64 * D, "sentinel", True),
                                   DV=Buf("f32", 64 * D, "sentinel", True), N_CTX=S, sm_scale=F32(0.005)),
                     [cdiv(S, 32), 1, 1], 1201)]))
    M, K, N = 70, 40, 48
    out.append(("linear_bwd_dw_32x32x32_f16", linear_bwd_dw_kernel, {"BK": 32, "BN": 32, "BM": 32}, {"num_warps": 4}, [
        ("m70k40n48", dict(x_ptr=Buf("f16", M * K, "int3"), dy_ptr=Buf("f16", M * N, "int3"),
                           dw_ptr=Buf("f32", K * N, "sentinel", True), M=M, K=K, N=N), [cdiv(K, 32), cdiv(N, 32), 1],
         1202)]))
    Dd = 40
    out.append(("ssm_scan_2d_16x64_w8_f32", ssm_scan_2d_kernel, {"L": 64, "BD": 16}, {"num_warps": 8}, [
        ("d40", dict(dt_ptr=Buf("f32", 48 * 64, "wide"), b_ptr=Buf("f32", 48 * 64, "int3"),
                     h_ptr=Buf("f32", 48 * 64, "sentinel", True), D=Dd), [cdiv(Dd, 16), 1, 1], 1203)]))
    T, Dm = 20, 100
    out.append(("embedding_i64_ids_128_f32", embedding_i64_kernel, {"V": 64, "BD": 128}, {"num_warps": 4}, [
        ("t20d100", dict(ids_ptr=Buf("i32", 2 * T, "random", tt="i64"), w_ptr=Buf("f32", 64 * Dm),
                         out_ptr=Buf("f32", T * Dm, "sentinel", True), D=Dm), [T, 1, 1], 1204)]))
    out.append(("reverse_rw_256_f32", reverse_rw_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n1000", dict(x_ptr=Buf("f32", 1024), y_ptr=Buf("f32", 1024, "sentinel", True),
                       z_ptr=Buf("f32", 1024, "sentinel", True), n=1000), [4, 1, 1], 1205)]))
    out.append(("unaligned_copy_f16_4x128", unaligned_copy_f16_kernel, {"BR": 4, "BC": 128}, {"num_warps": 4}, [
        ("rows10", dict(x_ptr=Buf("f16", 10 * 101), y_ptr=Buf("f16", 10 * 99, "sentinel", True), n_rows=10, n_cols=90,
                        stride_x=101, stride_y=99, col0=3), [3, 1, 1], 1206)]))
    out.append(("udivmod_256_i32", udivmod_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n500-d7", dict(x_ptr=Buf("i32", 512), q_ptr=Buf("i32", 512, "sentinel", True),
                         r_ptr=Buf("i32", 512, "sentinel", True), w_ptr=Buf("i32", 512, "sentinel", True), n=500, d=7),
         [2, 1, 1], 1207)]))
    out.append(("f16_math_256_f16", f16_math_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n500", dict(x_ptr=Buf("f16", 512, "wide"), e_ptr=Buf("f16", 512, "sentinel", True),
                      l_ptr=Buf("f16", 512, "sentinel", True), s_ptr=Buf("f16", 512, "sentinel", True), n=500),
         [2, 1, 1], 1208)]))
    M, N, K = 40, 50, 64
    for W in (4, 1):
        out.append((f"unrolled_dot_32x32x16_w{W}_f16", unrolled_dot_kernel, {"K": K, "BM": 32, "BN": 32, "BK": 16},
                    {"num_warps": W}, [
                        ("40x50x64", dict(a_ptr=Buf("f16", M * K), b_ptr=Buf("f16", K * N),
                                          c_ptr=Buf("f16", M * N, "sentinel", True), M=M, N=N),
                         [cdiv(M, 32), cdiv(N, 32), 1], 1209)]))
    out.append(("softmax_w16_2048_f32", softmax_w16_kernel, {"BLOCK": 2048}, {"num_warps": 16}, [
        ("rows3x2000", dict(x_ptr=Buf("f32", 3 * 2000), y_ptr=Buf("f32", 3 * 2000, "sentinel", True), n_cols=2000,
                            stride=2000), [3, 1, 1], 1210)]))
    out.append(("col_max_count_64x32_w8_f32", col_max_count_kernel, {"M": 64, "N": 32}, {"num_warps": 8}, [
        ("one", dict(x_ptr=Buf("f32", 64 * 32, "int3"), v_ptr=Buf("f32", 32, "sentinel", True),
                     i_ptr=Buf("i32", 32, "sentinel", True), c_ptr=Buf("i32", 32, "sentinel", True)), [1, 1, 1], 1211)]))
    out.append(("histogram_w8_1024_i32", histogram_w8_kernel, {"NB": 32, "BLOCK": 1024}, {"num_warps": 8}, [
        ("blocks2", dict(x_ptr=Buf("i32", 2048), h_ptr=Buf("i32", 64, "sentinel", True)), [2, 1, 1], 1212)]))
    return out


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx4")]
    gen.main()
