#!/usr/bin/env python3
"""Round 3 of the second zoo: writes fx3/ as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen3.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, F32, cdiv, triton, tl, libdevice  # noqa: E402


# AdamW step, in place on params and both moments, many scalar arguments.
@triton.jit
def adamw_step_kernel(p_ptr, g_ptr, m_ptr, v_ptr, n, lr, beta1, beta2, eps, weight_decay, bc1, bc2,
                      BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask)
    m = tl.load(m_ptr + offs, mask=mask)
    v = tl.load(v_ptr + offs, mask=mask)
    p = p * (1.0 - lr * weight_decay)
    m = beta1 * m + (1.0 - beta1) * g
    v = beta2 * v + (1.0 - beta2) * g * g
    p = p - lr * (m / bc1) / (tl.sqrt(v / bc2) + eps)
    tl.store(p_ptr + offs, p, mask=mask)
    tl.store(m_ptr + offs, m, mask=mask)
    tl.store(v_ptr + offs, v, mask=mask)


# 64-bit scalar arguments (offsets past 2^32) mixed with i32 and f32 ones.
@triton.jit
def offset_copy_i64_kernel(x_ptr, y_ptr, n, start, base, scale, tail, BLOCK: tl.constexpr):
    offs = (start - base) + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.)
    tl.store(y_ptr + offs, x * scale + (tail - base).to(tl.float32), mask=m)


@triton.jit
def _and(a, b):
    return a & b


# Bitwise and narrow-integer reductions: xor_sum, reduce_or, a custom and, int8 sum and max.
@triton.jit
def bit_reduce_kernel(x_ptr, b_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=m, other=0)
    b = tl.load(b_ptr + row * n_cols + cols, mask=m, other=0)
    tl.store(out_ptr + row * 5 + 0, tl.xor_sum(x, 0))
    tl.store(out_ptr + row * 5 + 1, tl.reduce_or(x & 0xFF, 0))
    tl.store(out_ptr + row * 5 + 2, tl.reduce(tl.where(m, x | 0x100, -1), 0, _and))
    tl.store(out_ptr + row * 5 + 3, tl.sum(b, 0).to(tl.int32))
    tl.store(out_ptr + row * 5 + 4, tl.max(tl.where(m, b, -128).to(tl.int8), 0).to(tl.int32))


# f16 row reductions: default-dtype sum, max, a sum of squares in f32.
@triton.jit
def f16_reduce_kernel(x_ptr, s_ptr, mx_ptr, ss_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=m, other=0.)
    tl.store(s_ptr + row, tl.sum(x, 0).to(tl.float32))
    tl.store(mx_ptr + row, tl.max(tl.where(m, x, float("-inf")), 0))
    tl.store(ss_ptr + row, tl.sum(x * x, 0, dtype=tl.float32))


# Block-wise int8 quantization through a 4-D reshape: one scale per 8 x 16 block.
@triton.jit
def block_quant_4d_kernel(x_ptr, q_ptr, s_ptr, N, BM: tl.constexpr, BN: tl.constexpr, SM: tl.constexpr,
                          SN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    x4 = tl.reshape(x, (BM // SM, SM, BN // SN, SN))
    amax = tl.max(tl.max(tl.abs(x4), axis=3), axis=1)
    scale = tl.maximum(amax, 1e-6) / 127.0
    q = tl.reshape(libdevice.nearbyint(x4 / scale[:, None, :, None]), (BM, BN)).to(tl.int8)
    tl.store(q_ptr + rm[:, None] * N + rn[None, :], q)
    bi = tl.program_id(0) * (BM // SM) + tl.arange(0, BM // SM)
    bj = tl.program_id(1) * (BN // SN) + tl.arange(0, BN // SN)
    tl.store(s_ptr + bi[:, None] * (N // SN) + bj[None, :], scale)


# Size-1 axes: [1, N] tiles reduced on both axes, a [1] tensor stored.
@triton.jit
def size1_axes_kernel(x_ptr, y_ptr, z_ptr, N: tl.constexpr):
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * N + tl.arange(0, N))[None, :]
    tl.store(y_ptr + row * N + tl.arange(0, N), tl.sum(x, axis=0) * 2.0)
    tl.store(z_ptr + row + tl.arange(0, 1), tl.sum(x, axis=1))


# tl.topk along rows.
@triton.jit
def topk_rows_kernel(x_ptr, y_ptr, K: tl.constexpr, N: tl.constexpr, BM: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    x = tl.load(x_ptr + rows[:, None] * N + tl.arange(0, N)[None, :])
    t = tl.topk(x, K, dim=1)
    tl.store(y_ptr + rows[:, None] * K + tl.arange(0, K)[None, :], t)


# Grouped tile ordering with tl.swizzle2d; each program records which program owns its tile.
@triton.jit
def swizzled_copy_kernel(x_ptr, y_ptr, owner_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BM)
    grid_n = tl.cdiv(N, BN)
    pid_m, pid_n = tl.swizzle2d(pid // grid_n, pid % grid_n, grid_m, grid_n, GROUP)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], x * 2.0, mask=mask)
    tl.store(owner_ptr + pid_m * grid_n + pid_n, pid)


# Claiming hash slots with a tensor atomic_cas (no mask: masked-off lanes aim at a spare slot).
@triton.jit
def cas_claim_kernel(keys_ptr, table_ptr, count_ptr, n, T: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    key = tl.abs(tl.load(keys_ptr + offs, mask=m, other=0)) + 1
    slot = tl.where(m, key & (T - 1), T)
    old = tl.atomic_cas(table_ptr + slot, tl.zeros_like(key), key)
    won = (old == 0) & m
    lost = (old != 0) & m
    tl.atomic_add(count_ptr, tl.sum(won.to(tl.int32), 0))
    tl.atomic_add(count_ptr + 1, tl.sum(lost.to(tl.int32), 0))


# SwiGLU in bf16 (operands rounded to bf16, the product in bf16), widened for the store.
@triton.jit
def swiglu_bf16_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(a_ptr + offs, mask=m, other=0.).to(tl.bfloat16)
    b = tl.load(b_ptr + offs, mask=m, other=0.).to(tl.bfloat16)
    af = a.to(tl.float32)
    c = (af * tl.sigmoid(af)).to(tl.bfloat16) * b
    tl.store(c_ptr + offs, c.to(tl.float32), mask=m)


# Correctly rounded division and square root (div_rn, sqrt_rn).
@triton.jit
def precise_math_kernel(x_ptr, d_ptr, q_ptr, r_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.)
    d = tl.abs(tl.load(d_ptr + offs, mask=m, other=1.)) + 0.5
    tl.store(q_ptr + offs, tl.math.div_rn(x, d), mask=m)
    tl.store(r_ptr + offs, tl.math.sqrt_rn(tl.abs(x)), mask=m)


# A loop whose trip count is the program id (triangular prefix of blocks).
@triton.jit
def triangular_sum_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(0, pid + 1):
        acc += tl.load(x_ptr + i * BLOCK + tl.arange(0, BLOCK))
    tl.store(y_ptr + pid * BLOCK + tl.arange(0, BLOCK), acc)


# A branch on a loaded flag yielding a transposed tile or a scaled one.
@triton.jit
def cond_transpose_kernel(x_ptr, y_ptr, flags_ptr, N: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, N)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + pid * N * N + offs)
    if tl.load(flags_ptr + pid) > 0:
        y = tl.trans(x)
    else:
        y = x * 2.0
    tl.store(y_ptr + pid * N * N + offs, y)


# int8 GEMM with an int32 accumulator, 64x64 tiles, 8 warps, masked K loop.
@triton.jit
def int8_gemm_w8_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.int32)
    for k in range(0, K, BK):
        kk = k + rk
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0)
        b = tl.load(b_ptr + kk[:, None] * N + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


# A 16x16x16 f16 dot with an f16 result, 2 warps, one tile per program.
@triton.jit
def tiny_dot_f16acc_kernel(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    a = tl.load(a_ptr + pid * BM * BK + tl.arange(0, BM)[:, None] * BK + tl.arange(0, BK)[None, :])
    b = tl.load(b_ptr + pid * BK * BN + tl.arange(0, BK)[:, None] * BN + tl.arange(0, BN)[None, :])
    c = tl.dot(a, b, out_dtype=tl.float16)
    tl.store(c_ptr + pid * BM * BN + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], c)


@triton.jit
def _lse_combine(m1, s1, m2, s2):
    m = tl.maximum(m1, m2)
    return m, s1 * tl.exp(m1 - m) + s2 * tl.exp(m2 - m)


# torch.logcumsumexp along rows: a (max, scaled sum) associative scan.
@triton.jit
def logcumsumexp_kernel(x_ptr, y_ptr, n_rows, L: tl.constexpr, BM: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    offs = rows[:, None] * L + tl.arange(0, L)[None, :]
    msk = rows[:, None] < n_rows
    x = tl.load(x_ptr + offs, mask=msk, other=0.)
    mx, s = tl.associative_scan((x, tl.full(x.shape, 1.0, tl.float32)), axis=1, combine_fn=_lse_combine)
    tl.store(y_ptr + offs, mx + tl.log(s), mask=msk)


def cases():
    out = []
    n = 1000
    out.append(("adamw_step_256_f32", adamw_step_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n1000", dict(p_ptr=Buf("f32", 1024, "random", True), g_ptr=Buf("f32", 1024, "wide"),
                       m_ptr=Buf("f32", 1024, "wide", True), v_ptr=Buf("f32", 1024, "zeros", True), n=n,
                       lr=F32(1e-3), beta1=F32(0.9), beta2=F32(0.999), eps=F32(1e-8), weight_decay=F32(0.01),
                       bc1=F32(0.271), bc2=F32(0.00299)), [4, 1, 1], 1101)]))
    out.append(("offset_copy_i64_128_f32", offset_copy_i64_kernel, {"BLOCK": 128}, {"num_warps": 4}, [
        ("n500", dict(x_ptr=Buf("f32", 512), y_ptr=Buf("f32", 512, "sentinel", True), n=500, start=2 ** 33 + 8,
                      base=2 ** 33, scale=F32(1.5), tail=2 ** 33 + 3), [4, 1, 1], 1102)]))
    out.append(("bit_reduce_128_i32", bit_reduce_kernel, {"BLOCK": 128}, {"num_warps": 4}, [
        ("rows4x100", dict(x_ptr=Buf("i32", 400), b_ptr=Buf("i8", 400), out_ptr=Buf("i32", 20, "sentinel", True),
                           n_cols=100), [4, 1, 1], 1103)]))
    out.append(("f16_reduce_256_f16", f16_reduce_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("rows4x200", dict(x_ptr=Buf("f16", 800, "int3"), s_ptr=Buf("f32", 4, "sentinel", True),
                           mx_ptr=Buf("f16", 4, "sentinel", True), ss_ptr=Buf("f32", 4, "sentinel", True), n_cols=200),
         [4, 1, 1], 1104)]))
    M, N = 64, 128
    out.append(("block_quant_4d_32x64_f32", block_quant_4d_kernel, {"BM": 32, "BN": 64, "SM": 8, "SN": 16},
                {"num_warps": 4}, [
                    ("64x128", dict(x_ptr=Buf("f32", M * N, "wide"), q_ptr=Buf("i8", M * N, "sentinel", True),
                                    s_ptr=Buf("f32", (M // 8) * (N // 16), "sentinel", True), N=N), [2, 2, 1], 1105)]))
    out.append(("size1_axes_64_f32", size1_axes_kernel, {"N": 64}, {"num_warps": 4}, [
        ("rows3", dict(x_ptr=Buf("f32", 192), y_ptr=Buf("f32", 192, "sentinel", True), z_ptr=Buf("f32", 3, "sentinel", True)),
         [3, 1, 1], 1106)]))
    out.append(("topk4_rows_4x64_f32", topk_rows_kernel, {"K": 4, "N": 64, "BM": 4}, {"num_warps": 4}, [
        ("rows8", dict(x_ptr=Buf("f32", 8 * 64, "wide"), y_ptr=Buf("f32", 8 * 4, "sentinel", True)), [2, 1, 1], 1107)]))
    M, N = 100, 90
    out.append(("swizzled_copy_32x32_f32", swizzled_copy_kernel, {"BM": 32, "BN": 32, "GROUP": 2}, {"num_warps": 4}, [
        ("100x90", dict(x_ptr=Buf("f32", M * N), y_ptr=Buf("f32", M * N, "sentinel", True),
                        owner_ptr=Buf("i32", 12, "sentinel", True), M=M, N=N), [12, 1, 1], 1108)]))
    out.append(("cas_claim_128_i32", cas_claim_kernel, {"T": 64, "BLOCK": 128}, {"num_warps": 4}, [
        ("n300", dict(keys_ptr=Buf("i32", 384, "small"), table_ptr=Buf("i32", 65, "zeros"),
                      count_ptr=Buf("i32", 2, "zeros", True), n=300), [3, 1, 1], 1109)]))
    out.append(("swiglu_bf16_256", swiglu_bf16_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n1000", dict(a_ptr=Buf("f32", 1024, "wide"), b_ptr=Buf("f32", 1024, "wide"),
                       c_ptr=Buf("f32", 1024, "sentinel", True), n=1000), [4, 1, 1], 1110)]))
    out.append(("precise_math_256_f32", precise_math_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n1000", dict(x_ptr=Buf("f32", 1024, "wide"), d_ptr=Buf("f32", 1024, "wide"),
                       q_ptr=Buf("f32", 1024, "sentinel", True), r_ptr=Buf("f32", 1024, "sentinel", True), n=1000),
         [4, 1, 1], 1111)]))
    out.append(("triangular_sum_64_f32", triangular_sum_kernel, {"BLOCK": 64}, {"num_warps": 4}, [
        ("blocks5", dict(x_ptr=Buf("f32", 320), y_ptr=Buf("f32", 320, "sentinel", True)), [5, 1, 1], 1112)]))
    out.append(("cond_transpose_32_f32", cond_transpose_kernel, {"N": 32}, {"num_warps": 4}, [
        ("tiles4", dict(x_ptr=Buf("f32", 4 * 1024), y_ptr=Buf("f32", 4 * 1024, "sentinel", True),
                        flags_ptr=Buf("i32", 4, "small")), [4, 1, 1], 1113)]))
    M, N, K = 80, 70, 96
    out.append(("int8_gemm_w8_64x64x32", int8_gemm_w8_kernel, {"BM": 64, "BN": 64, "BK": 32}, {"num_warps": 8}, [
        ("80x70x96", dict(a_ptr=Buf("i8", M * K), b_ptr=Buf("i8", K * N), c_ptr=Buf("i32", M * N, "sentinel", True),
                          M=M, N=N, K=K), [2, 2, 1], 1114)]))
    out.append(("tiny_dot_f16acc_16_w2", tiny_dot_f16acc_kernel, {"BM": 16, "BN": 16, "BK": 16}, {"num_warps": 2}, [
        ("tiles3", dict(a_ptr=Buf("f16", 3 * 256, "int3"), b_ptr=Buf("f16", 3 * 256, "int3"),
                        c_ptr=Buf("f16", 3 * 256, "sentinel", True)), [3, 1, 1], 1115)]))
    out.append(("logcumsumexp_2x128_f32", logcumsumexp_kernel, {"L": 128, "BM": 2}, {"num_warps": 4}, [
        ("rows5", dict(x_ptr=Buf("f32", 6 * 128, "wide"), y_ptr=Buf("f32", 6 * 128, "sentinel", True), n_rows=5),
         [3, 1, 1], 1116)]))
    return out


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx3")]
    gen.main()
