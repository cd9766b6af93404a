#!/usr/bin/env python3
"""Round 6 of the second zoo (matmul epilogues and prologues): writes fx6/ as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen6.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, F32, cdiv, triton, tl  # noqa: E402


# nn.Linear as written for LLMs: y = x @ W^T + b with W stored [N, K] (loaded [BN, BK], tl.trans), 8 warps.
@triton.jit
def linear_nt_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        kk = k + rk
        x = tl.load(x_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.)
        w = tl.load(w_ptr + rn[:, None] * K + kk[None, :], mask=(rn[:, None] < N) & (kk[None, :] < K), other=0.)
        acc = tl.dot(x, tl.trans(w), acc)
    acc += tl.load(b_ptr + rn, mask=rn < N, other=0.).to(tl.float32)[None, :]
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


# A matmul whose epilogue scales each row by its absolute maximum (per-token output scaling).
@triton.jit
def matmul_rowmax_kernel(a_ptr, b_ptr, c_ptr, s_ptr, M, N: tl.constexpr, K, BM: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, N)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, N), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=rm[:, None] < M, other=0.)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    amax = tl.maximum(tl.max(tl.abs(acc), axis=1), 1.0)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc / amax[:, None], mask=rm[:, None] < M)
    tl.store(s_ptr + rm, amax, mask=rm < M)


# A matmul with the bias gradient in its epilogue: column sums of the tile added atomically.
@triton.jit
def matmul_dbias_kernel(a_ptr, b_ptr, c_ptr, db_ptr, M, N, K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=rm[:, None] < M, other=0.)
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=rn[None, :] < N, other=0.)
    c = tl.dot(a, b)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c, mask=mask)
    tl.atomic_add(db_ptr + rn, tl.sum(tl.where(mask, c, 0.), axis=0), mask=rn < N)


# Layer norm fused into the A operand of a matmul: normalised rows cast to f16 in the K loop.
@triton.jit
def ln_matmul_kernel(x_ptr, mean_ptr, rstd_ptr, g_ptr, w_ptr, y_ptr, M, N: tl.constexpr, K: tl.constexpr,
                     BM: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, N)
    mean = tl.load(mean_ptr + rm, mask=rm < M, other=0.)
    rstd = tl.load(rstd_ptr + rm, mask=rm < M, other=0.)
    acc = tl.zeros((BM, N), dtype=tl.float32)
    for k in range(0, K, BK):
        kk = k + tl.arange(0, BK)
        x = tl.load(x_ptr + rm[:, None] * K + kk[None, :], mask=rm[:, None] < M, other=0.)
        a = ((x - mean[:, None]) * rstd[:, None] * tl.load(g_ptr + kk)[None, :]).to(tl.float16)
        acc += tl.dot(a, tl.load(w_ptr + kk[:, None] * N + rn[None, :]))
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc, mask=rm[:, None] < M)


# A large tile: 128 x 64 x 32 f16 matmul with 8 warps.
@triton.jit
def matmul_big_w8_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        kk = k + rk
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.)
        b = tl.load(b_ptr + kk[:, None] * N + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def cases():
    out = []
    M, N, K = 70, 90, 80
    out.append(("linear_nt_64x64x32_w8_f16", linear_nt_kernel, {"BM": 64, "BN": 64, "BK": 32}, {"num_warps": 8}, [
        ("70x90x80", dict(x_ptr=Buf("f16", M * K, "int3"), w_ptr=Buf("f16", N * K, "int3"), b_ptr=Buf("f16", N, "int3"),
                          y_ptr=Buf("f16", M * N, "sentinel", True), M=M, N=N, K=K), [cdiv(M, 64), cdiv(N, 64), 1],
         1401)]))
    M, N, K = 40, 64, 64
    out.append(("matmul_rowmax_32x64x32_f16", matmul_rowmax_kernel, {"N": N, "BM": 32, "BK": 32}, {"num_warps": 4}, [
        ("40x64x64", dict(a_ptr=Buf("f16", 64 * K, "int3"), b_ptr=Buf("f16", K * N, "int3"),
                          c_ptr=Buf("f32", 64 * N, "sentinel", True), s_ptr=Buf("f32", 64, "sentinel", True), M=M, K=K),
         [cdiv(M, 32), 1, 1], 1402)]))
    M, N, K = 50, 40, 32
    out.append(("matmul_dbias_32x32x32_f16", matmul_dbias_kernel, {"K": K, "BM": 32, "BN": 32}, {"num_warps": 4}, [
        ("50x40x32", dict(a_ptr=Buf("f16", M * K, "int3"), b_ptr=Buf("f16", K * N, "int3"),
                          c_ptr=Buf("f32", M * N, "sentinel", True), db_ptr=Buf("f32", N, "zeros", True), M=M, N=N),
         [cdiv(M, 32), cdiv(N, 32), 1], 1403)]))
    M, N, K = 40, 32, 64
    out.append(("ln_matmul_32x32x32_f16", ln_matmul_kernel, {"N": N, "K": K, "BM": 32, "BK": 32}, {"num_warps": 4}, [
        ("40x32x64", dict(x_ptr=Buf("f32", 64 * K, "int3"), mean_ptr=Buf("f32", 64, "int3"), rstd_ptr=Buf("f32", 64, "int3"),
                          g_ptr=Buf("f32", K, "int3"), w_ptr=Buf("f16", K * N, "int3"), y_ptr=Buf("f32", 64 * N, "sentinel", True),
                          M=M), [cdiv(M, 32), 1, 1], 1404)]))
    M, N, K = 150, 100, 64
    out.append(("matmul_big_128x64x32_w8_f16", matmul_big_w8_kernel, {"BM": 128, "BN": 64, "BK": 32}, {"num_warps": 8}, [
        ("150x100x64", dict(a_ptr=Buf("f16", M * K, "int3"), b_ptr=Buf("f16", K * N, "int3"),
                            c_ptr=Buf("f16", M * N, "sentinel", True), M=M, N=N, K=K), [cdiv(M, 128), cdiv(N, 64), 1],
         1405)]))
    return out


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx6")]
    gen.main()
