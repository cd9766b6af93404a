#!/usr/bin/env python3
"""Round 14 of the second zoo (chunked linear attention carrying a state matrix, sliding-window attention
with a runtime loop start, an int4 AWQ-style matmul with group scales and zeros, a fused RMSNorm + SwiGLU
projection): writes fx14/ as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen14.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, F32, cdiv, triton, tl  # noqa: E402


# 1. Chunked linear attention (no softmax): per chunk, o = q·S + causal(q·kᵀ)·v, then S += kᵀ·v.
@triton.jit
def chunked_linear_attn_kernel(q_ptr, k_ptr, v_ptr, o_ptr, T, C: tl.constexpr, D: tl.constexpr):
    h = tl.program_id(0)
    base = h * T * D
    t = tl.arange(0, C)
    d = tl.arange(0, D)
    state = tl.zeros([D, D], dtype=tl.float32)
    for c0 in range(0, T, C):
        rows = c0 + t
        m = rows[:, None] < T
        offs = base + rows[:, None] * D + d[None, :]
        q = tl.load(q_ptr + offs, mask=m, other=0.)
        k = tl.load(k_ptr + offs, mask=m, other=0.)
        v = tl.load(v_ptr + offs, mask=m, other=0.)
        scores = tl.dot(q, tl.trans(k))
        scores = tl.where(t[:, None] >= t[None, :], scores, 0.)
        o = tl.dot(q, state.to(tl.float16)) + tl.dot(scores.to(tl.float16), v)
        tl.store(o_ptr + offs, o, mask=m)
        state += tl.dot(tl.trans(k), v)


# 2. Sliding-window causal attention for one query block: keys from max(0, start − W) to the block's end.
@triton.jit
def sliding_window_attn_kernel(q_ptr, k_ptr, v_ptr, o_ptr, T, W, scale, BM: tl.constexpr, BN: tl.constexpr,
                               D: tl.constexpr):
    start = tl.program_id(0) * BM
    rm = start + tl.arange(0, BM)
    d = tl.arange(0, D)
    q = tl.load(q_ptr + rm[:, None] * D + d[None, :], mask=rm[:, None] < T, other=0.)
    # A finite floor: a row whose first block of keys lies wholly outside its window stays finite.
    m_i = tl.full([BM], -1e30, tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    lo = tl.maximum(0, start - W) // BN * BN
    for n0 in range(lo, start + BM, BN):
        rn = n0 + tl.arange(0, BN)
        k = tl.load(k_ptr + rn[:, None] * D + d[None, :], mask=rn[:, None] < T, other=0.)
        v = tl.load(v_ptr + rn[:, None] * D + d[None, :], mask=rn[:, None] < T, other=0.)
        s = tl.dot(q, tl.trans(k)) * scale
        keep = (rn[None, :] <= rm[:, None]) & (rn[None, :] > rm[:, None] - W) & (rn[None, :] < T)
        s = tl.where(keep, s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    tl.store(o_ptr + rm[:, None] * D + d[None, :], acc / l_i[:, None], mask=rm[:, None] < T)


# 3. An int4 matmul as AWQ stores it: eight 4-bit weights per int32 along N, a scale and a zero per group of K.
@triton.jit
def awq_matmul_kernel(a_ptr, qw_ptr, s_ptr, z_ptr, c_ptr, M, N, K, G: tl.constexpr, BM: tl.constexpr,
                      BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    shifts = (rn % 8) * 4
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.)
        packed = tl.load(qw_ptr + rk[:, None] * (N // 8) + rn[None, :] // 8,
                         mask=(rk[:, None] < K) & (rn[None, :] < N), other=0)
        w = (packed >> shifts[None, :]) & 0xF
        g = rk // G
        scale = tl.load(s_ptr + g[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.)
        zero = tl.load(z_ptr + g[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0)
        b = ((w - zero).to(tl.float32) * scale).to(tl.float16)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


# 4. RMSNorm of a row block, then the SwiGLU projection silu(x·Wg) · (x·Wu) of it.
@triton.jit
def rmsnorm_swiglu_kernel(x_ptr, nw_ptr, wg_ptr, wu_ptr, y_ptr, M, eps, BM: tl.constexpr, D: tl.constexpr,
                          F: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    d = tl.arange(0, D)
    f = tl.arange(0, F)
    x = tl.load(x_ptr + rm[:, None] * D + d[None, :], mask=rm[:, None] < M, other=0.).to(tl.float32)
    rstd = tl.rsqrt(tl.sum(x * x, axis=1) / D + eps)
    xn = (x * rstd[:, None] * tl.load(nw_ptr + d)[None, :]).to(tl.float16)
    wg = tl.load(wg_ptr + d[:, None] * F + f[None, :])
    wu = tl.load(wu_ptr + d[:, None] * F + f[None, :])
    gate = tl.dot(xn, wg)
    up = tl.dot(xn, wu)
    y = gate * tl.sigmoid(gate) * up
    tl.store(y_ptr + rm[:, None] * F + f[None, :], y.to(tl.float16), mask=rm[:, None] < M)


def cases():
    out = []
    H, T, C, D = 2, 40, 16, 16
    out.append(("chunked_linear_attn_16x16_f16", chunked_linear_attn_kernel, {"C": C, "D": D}, {"num_warps": 4}, [
        ("h2t40", dict(q_ptr=Buf("f16", H * T * D, "int3"), k_ptr=Buf("f16", H * T * D, "int3"),
                       v_ptr=Buf("f16", H * T * D, "int3"), o_ptr=Buf("f32", H * T * D, "sentinel", True), T=T),
         [H, 1, 1], 2201)]))
    T2, Dh = 70, 32
    out.append(("sliding_window_attn_32x32_d32_f16", sliding_window_attn_kernel, {"BM": 32, "BN": 32, "D": Dh},
                {"num_warps": 4}, [
        ("t70w24", dict(q_ptr=Buf("f16", T2 * Dh, "wide"), k_ptr=Buf("f16", T2 * Dh, "wide"),
                        v_ptr=Buf("f16", T2 * Dh, "wide"), o_ptr=Buf("f32", T2 * Dh, "sentinel", True), T=T2, W=24,
                        scale=F32(0.05)), [cdiv(T2, 32), 1, 1], 2202)]))
    M, N, K, G = 20, 64, 64, 32
    out.append(("awq_matmul_16x32x32_f16", awq_matmul_kernel, {"G": G, "BM": 16, "BN": 32, "BK": 32}, {"num_warps": 4}, [
        ("20x64x64", dict(a_ptr=Buf("f16", M * K, "int3"), qw_ptr=Buf("i32", K * N // 8),
                          s_ptr=Buf("f16", (K // G) * N, "int3"), z_ptr=Buf("i32", (K // G) * N, "int3"),
                          c_ptr=Buf("f32", M * N, "sentinel", True), M=M, N=N, K=K), [cdiv(M, 16), cdiv(N, 32), 1],
         2203)]))
    M2, D2, F2 = 20, 32, 32
    out.append(("rmsnorm_swiglu_16x32x32_f16", rmsnorm_swiglu_kernel, {"BM": 16, "D": D2, "F": F2}, {"num_warps": 4}, [
        ("20rows", dict(x_ptr=Buf("f16", M2 * D2, "wide"), nw_ptr=Buf("f32", D2, "int3"),
                        wg_ptr=Buf("f16", D2 * F2, "int3"), wu_ptr=Buf("f16", D2 * F2, "int3"),
                        y_ptr=Buf("f16", M2 * F2, "sentinel", True), M=M2, eps=F32(1e-5)), [cdiv(M2, 16), 1, 1],
         2204)]))
    return out


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx14")]
    gen.main()
