#!/usr/bin/env python3
"""Kernels as people write them beyond the people set (scripts/people_ttgir.py) — liger / vLLM /
SGLang / unsloth-style norms, activations, quantization, sorts and scans, block pointers,
atomics of every kind, the device library's functions, edge shapes — compiled by Triton 3.6.0
(the oracle's Python, CPU only) to TTIR for gfx942, gfx950 and gfx1100, the input of
`linear-layout compile`:

    ../shared/oracle/oracle-python scripts/zoo_ttir.py [--out tests/fixtures/compile/zoo] [--only SUBSTR]
        [--arch gfx942 ...]

The kernels are here and in scripts/zoo_more.py. Writes `<kernel>.<arch>.ttir` (the TTIR as `make_ttir` leaves it, its debug locations left out)
and `manifest.json` (per file: the launch's num_warps and whether Triton compiles it through,
with its message where it refuses after TTIR). Arguments are specialised as people_ttgir.py
specialises a launch with torch tensors.
"""
import argparse
import json
import os
import re
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="triton-cache-probe-"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.language.extra import libdevice  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler.compiler import ASTSource, make_backend  # noqa: E402

from people_ttgir import Buf, F32, specialise  # noqa: E402
from zoo_more import more_cases  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "compile", "zoo")
ARCHS = ["gfx942", "gfx950", "gfx1100"]


def P(tt, n=4096, out=False):
    return Buf("f32", n, out=out, tt=tt)


# ---------------------------------------------------------------------------------------------
# 1. log_softmax on bf16 rows (liger / LLM style), f32 compute.
@triton.jit
def log_softmax_kernel(x_ptr, y_ptr, stride_x, stride_y, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=float("-inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    z = x - m
    lse = tl.log(tl.sum(tl.exp(z), axis=0))
    tl.store(y_ptr + row * stride_y + cols, (z - lse).to(tl.bfloat16), mask=mask)


# 2. fused add + rmsnorm with residual store (vLLM / SGLang).
@triton.jit
def fused_add_rmsnorm_kernel(x_ptr, res_ptr, w_ptr, out_ptr, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + row * stride + offs, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(res_ptr + row * stride + offs, mask=mask, other=0.0).to(tl.float32)
    x = x + r
    tl.store(res_ptr + row * stride + offs, x.to(tl.float16), mask=mask)
    var = tl.sum(x * x, axis=0) / N
    rstd = tl.math.rsqrt(var + eps)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * stride + offs, (x * rstd * w).to(tl.float16), mask=mask)


# 3. silu_and_mul (vLLM), bf16, 2D grid over tokens x column blocks.
@triton.jit
def silu_and_mul_kernel(x_ptr, out_ptr, d, stride_x, stride_o, BLOCK: tl.constexpr):
    tok = tl.program_id(0)
    pid = tl.program_id(1)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < d
    a = tl.load(x_ptr + tok * stride_x + offs, mask=mask, other=0.).to(tl.float32)
    b = tl.load(x_ptr + tok * stride_x + d + offs, mask=mask, other=0.).to(tl.float32)
    y = a * tl.sigmoid(a) * b
    tl.store(out_ptr + tok * stride_o + offs, y.to(tl.bfloat16), mask=mask)


# 4. geglu with tanh approximation (unsloth / liger), libdevice tanh.
@triton.jit
def geglu_tanh_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask, other=0)
    s = 0.7978845608028654
    g = 0.5 * a * (1 + libdevice.tanh(s * a * (1 + 0.044715 * a * a)))
    tl.store(c_ptr + offs, (g.to(tl.float16) * b), mask=mask)


# 5. group norm forward: stats over a (group, HW) tile in 2D, f16 in, f32 accumulate.
@triton.jit
def group_norm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, C, HW, num_groups, eps,
                      C_G: tl.constexpr, BLOCK_HW: tl.constexpr):
    pid = tl.program_id(0)
    n = pid // num_groups
    g = pid % num_groups
    c = tl.arange(0, C_G)
    hw = tl.arange(0, BLOCK_HW)
    base = x_ptr + n * C * HW + g * C_G * HW
    acc = tl.zeros((C_G, BLOCK_HW), dtype=tl.float32)
    acc2 = tl.zeros((C_G, BLOCK_HW), dtype=tl.float32)
    for start in range(0, HW, BLOCK_HW):
        m = (start + hw)[None, :] < HW
        x = tl.load(base + c[:, None] * HW + start + hw[None, :], mask=m, other=0.).to(tl.float32)
        acc += x
        acc2 += x * x
    cnt = C_G * HW
    mean = tl.sum(tl.sum(acc, axis=1), axis=0) / cnt
    var = tl.sum(tl.sum(acc2, axis=1), axis=0) / cnt - mean * mean
    rstd = 1.0 / tl.sqrt(var + eps)
    tl.store(mean_ptr + pid, mean)
    tl.store(rstd_ptr + pid, rstd)
    w = tl.load(w_ptr + g * C_G + c).to(tl.float32)
    b = tl.load(b_ptr + g * C_G + c).to(tl.float32)
    for start in range(0, HW, BLOCK_HW):
        m = (start + hw)[None, :] < HW
        off = c[:, None] * HW + start + hw[None, :]
        x = tl.load(base + off, mask=m, other=0.).to(tl.float32)
        y = (x - mean) * rstd * w[:, None] + b[:, None]
        tl.store(y_ptr + n * C * HW + g * C_G * HW + off, y.to(tl.float16), mask=m)


# 6. batch norm statistics: column partial sums per program, atomic_add f32.
@triton.jit
def bn_stats_kernel(x_ptr, sum_ptr, sumsq_ptr, M, N, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride_m + rn[None, :], mask=mask, other=0.0)
    tl.atomic_add(sum_ptr + rn, tl.sum(x, axis=0), mask=rn < N)
    tl.atomic_add(sumsq_ptr + rn, tl.sum(x * x, axis=0), mask=rn < N)


# 7. per-row int8 quantisation (SmoothQuant / vLLM), f16 in, i8 + f32 scale out.
@triton.jit
def quant_int8_row_kernel(x_ptr, q_ptr, s_ptr, stride, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + row * stride + offs, mask=mask, other=0.0).to(tl.float32)
    amax = tl.max(tl.abs(x), axis=0)
    scale = tl.maximum(amax, 1e-8) / 127.0
    q = x / scale
    q = tl.where(q >= 0, q + 0.5, q - 0.5)
    q = tl.clamp(q, -128.0, 127.0).to(tl.int8)
    tl.store(q_ptr + row * stride + offs, q, mask=mask)
    tl.store(s_ptr + row, scale)


# 8. top-k via sort: sort a row descending and keep the first K.
@triton.jit
def topk_sort_kernel(x_ptr, out_ptr, n_cols, stride, K: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=float("-inf"))
    s = tl.sort(x, descending=True)
    tl.store(out_ptr + row * K + offs, s, mask=offs < K)


# 9. argsort by packing (value bits, index) into i64 and sorting (LLM trick).
@triton.jit
def argsort_packed_kernel(x_ptr, idx_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    bits = x.to(tl.int32, bitcast=True)
    key = tl.where(bits < 0, ~bits, bits | (-2147483648))  # order-preserving unsigned key
    packed = (key.to(tl.uint32).to(tl.int64) << 32) | offs.to(tl.int64)
    s = tl.sort(packed)
    tl.store(idx_ptr + offs, (s & 0xFFFFFFFF).to(tl.int32))


# 10. kv cache copy with i64 slot mapping and early return (vLLM reshape_and_cache variant).
@triton.jit
def kv_cache_copy_kernel(k_ptr, v_ptr, kc_ptr, vc_ptr, slot_ptr, stride_k, block_size,
                         HEAD: tl.constexpr):
    tok = tl.program_id(0)
    slot = tl.load(slot_ptr + tok)
    if slot < 0:
        return
    blk = slot // block_size
    off = slot % block_size
    d = tl.arange(0, HEAD)
    k = tl.load(k_ptr + tok * stride_k + d)
    v = tl.load(v_ptr + tok * stride_k + d)
    dst = blk * block_size * HEAD + off * HEAD + d
    tl.store(kc_ptr + dst, k)
    tl.store(vc_ptr + dst, v)


# 11. matrix transpose with runtime strides and tails.
@triton.jit
def transpose_kernel(x_ptr, y_ptr, M, N, sxm, sxn, sym, syn, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * sxm + rn[None, :] * sxn, mask=mask)
    tl.store(y_ptr + rn[:, None] * sym + rm[None, :] * syn, tl.trans(x), mask=tl.trans(mask))


# 12. strided 2D copy of i16.
@triton.jit
def copy2d_i16_kernel(x_ptr, y_ptr, M, N, sx, sy, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    v = tl.load(x_ptr + rm[:, None] * sx + rn[None, :], mask=mask, other=-1)
    tl.store(y_ptr + rm[:, None] * sy + rn[None, :], v, mask=mask)


# 13. segmented sum with atomic_add f32 (scatter-add / index_add).
@triton.jit
def segment_sum_kernel(x_ptr, seg_ptr, out_ptr, n, D, BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.arange(0, BLOCK_D)
    rmask = rows < n
    seg = tl.load(seg_ptr + rows, mask=rmask, other=0)
    mask = rmask[:, None] & (cols[None, :] < D)
    x = tl.load(x_ptr + rows[:, None] * D + cols[None, :], mask=mask, other=0.)
    tl.atomic_add(out_ptr + seg[:, None].to(tl.int64) * D + cols[None, :], x, mask=mask)


# 14. prefix sum across blocks: block scan + chained lookback with a spin-wait on flags.
@triton.jit
def chained_scan_kernel(x_ptr, y_ptr, agg_ptr, flag_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    s = tl.cumsum(x, axis=0)
    total = tl.sum(x, axis=0)
    prefix = 0
    if pid > 0:
        while tl.atomic_add(flag_ptr + pid - 1, 0) == 0:
            pass
        prefix = tl.load(agg_ptr + pid - 1, volatile=True)
    tl.store(agg_ptr + pid, prefix + total)
    tl.debug_barrier()
    tl.atomic_xchg(flag_ptr + pid, 1)
    tl.store(y_ptr + offs, s + prefix, mask=offs < n)


# 15. atomics zoo on i32 / f32.
@triton.jit
def atomics_zoo_kernel(xi_ptr, xf_ptr, maxi_ptr, mini_ptr, maxf_ptr, minf_ptr, bits_ptr, cas_ptr, n,
                       BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    xi = tl.load(xi_ptr + offs, mask=mask, other=0)
    xf = tl.load(xf_ptr + offs, mask=mask, other=0.)
    tl.atomic_max(maxi_ptr + (offs % 8), xi, mask=mask)
    tl.atomic_min(mini_ptr + (offs % 8), xi, mask=mask)
    tl.atomic_max(maxf_ptr + (offs % 8), xf, mask=mask)
    tl.atomic_min(minf_ptr + (offs % 8), xf, mask=mask)
    tl.atomic_and(bits_ptr + (offs % 4), xi, mask=mask)
    tl.atomic_or(bits_ptr + 4 + (offs % 4), xi, mask=mask)
    tl.atomic_xor(bits_ptr + 8 + (offs % 4), xi, mask=mask, sem="relaxed", scope="gpu")
    old = tl.atomic_cas(cas_ptr + tl.program_id(0), 0, 1)
    tl.atomic_xchg(bits_ptr + 12 + tl.program_id(0), old)


# 16. first-order linear recurrence with associative_scan (mamba-style selective scan).
@triton.jit
def _lin_combine(a1, b1, a2, b2):
    return a1 * a2, b1 * a2 + b2


@triton.jit
def linear_recurrence_kernel(a_ptr, b_ptr, h_ptr, L, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < L
    a = tl.load(a_ptr + row * stride + offs, mask=mask, other=1.0)
    b = tl.load(b_ptr + row * stride + offs, mask=mask, other=0.0)
    _, h = tl.associative_scan((a, b), axis=0, combine_fn=_lin_combine)
    tl.store(h_ptr + row * stride + offs, h, mask=mask)


# 17. custom tl.reduce: (value, index) argmax combine on f16 and max with return_indices / argmin on i32.
@triton.jit
def _argmax_combine(v1, i1, v2, i2):
    gt = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(gt, v1, v2), tl.where(gt, i1, i2)


@triton.jit
def reduce_custom_kernel(x_ptr, xi_ptr, v_ptr, i_ptr, mi_ptr, ai_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * stride + offs, mask=mask, other=float("-inf"))
    v, i = tl.reduce((x, offs), 0, _argmax_combine)
    tl.store(v_ptr + row, v)
    tl.store(i_ptr + row, i)
    m, mi = tl.max(x, axis=0, return_indices=True)
    tl.store(mi_ptr + row, mi)
    xi = tl.load(xi_ptr + row * stride + offs, mask=mask, other=2147483647)
    tl.store(ai_ptr + row, tl.argmin(xi, axis=0))


# 18. histogram of u8 values.
@triton.jit
def histogram_u8_kernel(x_ptr, hist_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0).to(tl.int32)
    h = tl.histogram(x, 256, mask=mask)
    tl.atomic_add(hist_ptr + tl.arange(0, 256), h)


# 19. complex multiply with join/split/reshape/permute (interleaved pairs).
@triton.jit
def complex_mul_kernel(x_ptr, w_ptr, y_ptr, N: tl.constexpr):
    offs = tl.program_id(0) * 2 * N + tl.arange(0, 2 * N)
    x = tl.load(x_ptr + offs)
    w = tl.load(w_ptr + tl.arange(0, 2 * N))
    xr, xi = tl.split(tl.reshape(x, (N, 2)))
    wr, wi = tl.split(tl.reshape(w, (N, 2)))
    yr = xr * wr - xi * wi
    yi = xr * wi + xi * wr
    y = tl.reshape(tl.permute(tl.join(yr, yi), (0, 1)), (2 * N,))
    tl.store(y_ptr + offs, y)


# 20. rotary embedding, bf16, half-split with tl.interleave/tl.cat of halves (neox style).
@triton.jit
def rotary_bf16_kernel(q_ptr, cos_ptr, sin_ptr, pos_ptr, stride_t, stride_h, HALF: tl.constexpr):
    t = tl.program_id(0)
    h = tl.program_id(1)
    pos = tl.load(pos_ptr + t)
    d = tl.arange(0, HALF)
    base = q_ptr + t * stride_t + h * stride_h
    x1 = tl.load(base + d).to(tl.float32)
    x2 = tl.load(base + HALF + d).to(tl.float32)
    c = tl.load(cos_ptr + pos * HALF + d)
    s = tl.load(sin_ptr + pos * HALF + d)
    o1 = x1 * c - x2 * s
    o2 = x2 * c + x1 * s
    o = tl.cat(o1, o2, can_reorder=True)
    tl.store(base + tl.arange(0, 2 * HALF), o.to(tl.bfloat16))


# 21. row sum over a 2D tile with block pointers and boundary checks (no dot).
@triton.jit
def block_ptr_rowsum_kernel(x_ptr, y_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    bp = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(stride_m, 1), offsets=(pid * BM, 0),
                           block_shape=(BM, BN), order=(1, 0))
    acc = tl.zeros((BM, ), dtype=tl.float32)
    for _ in range(0, tl.cdiv(N, BN)):
        x = tl.load(bp, boundary_check=(0, 1), padding_option="zero")
        acc += tl.sum(x.to(tl.float32), axis=1)
        bp = tl.advance(bp, (0, BN))
    out = tl.make_block_ptr(y_ptr, shape=(M, ), strides=(1, ), offsets=(pid * BM, ), block_shape=(BM, ), order=(0, ))
    tl.store(out, acc, boundary_check=(0, ))


# 22. f32 matmul with tf32/ieee precision, acc= and a K tail mask.
@triton.jit
def matmul_tf32_acc_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sbk, scm, BM: tl.constexpr, BN: tl.constexpr,
                           BK: tl.constexpr, PREC: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * sam + (k + rk)[None, :], mask=(rm[:, None] < M) & ((k + rk)[None, :] < K),
                    other=0.)
        b = tl.load(b_ptr + (k + rk)[:, None] * sbk + rn[None, :], mask=((k + rk)[:, None] < K) & (rn[None, :] < N),
                    other=0.)
        acc = tl.dot(a, b, acc=acc, input_precision=PREC)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


# 23. int8 dot with out_dtype=int32 and acc=, per-tensor dequant to f16.
@triton.jit
def i8_dot_acc_kernel(a_ptr, b_ptr, c_ptr, scale, K, N: tl.constexpr, BM: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    rm = pm * BM + tl.arange(0, BM)
    rn = tl.arange(0, N)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, N), dtype=tl.int32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc, out_dtype=tl.int32)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], (acc.to(tl.float32) * scale).to(tl.float16))


# 24. matmul with B given as [N, K] (x @ W^T, linear layer) via strides + tl.trans, f16 accumulate.
@triton.jit
def linear_wt_f16acc_kernel(x_ptr, w_ptr, y_ptr, M, N, K, sxm, swn, sym, BM: tl.constexpr, BN: tl.constexpr,
                            BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float16)
    for k in range(0, tl.cdiv(K, BK)):
        kk = k * BK + rk
        x = tl.load(x_ptr + rm[:, None] * sxm + kk[None, :], mask=kk[None, :] < K, other=0.)
        w = tl.load(w_ptr + rn[:, None] * swn + kk[None, :], mask=kk[None, :] < K, other=0.)
        acc += tl.dot(x, tl.trans(w), out_dtype=tl.float16)
    tl.store(y_ptr + rm[:, None] * sym + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


# 25. philox: rand / randn / randint, dropout-with-scale writing a mask.
@triton.jit
def philox_kernel(x_ptr, y_ptr, u_ptr, z_ptr, r_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    u = tl.rand(seed, offs)
    keep = u > p
    tl.store(y_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)
    tl.store(u_ptr + offs, keep.to(tl.int8), mask=mask)
    tl.store(z_ptr + offs, tl.randn(seed, offs), mask=mask)
    tl.store(r_ptr + offs, tl.randint(seed, offs), mask=mask)


# 26. integer zoo: runtime div/mod i32 and i64, umulhi, fma, bitcast, shifts, u8 / i16 arithmetic.
@triton.jit
def int_zoo_kernel(a_ptr, b_ptr, c_ptr, d_ptr, e_ptr, f_ptr, n, divisor, big_div, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0)  # i32
    q = a // divisor
    r = a % divisor
    a64 = a.to(tl.int64) * 1000003
    q64 = a64 // big_div
    r64 = a64 % big_div
    hi = tl.umulhi(a.to(tl.uint32), 2654435761)
    tl.store(c_ptr + offs, q + r + (hi >> 3).to(tl.int32), mask=mask)
    tl.store(d_ptr + offs, q64 ^ r64, mask=mask)
    f = tl.load(b_ptr + offs, mask=mask, other=0.0)  # f32
    g = tl.fma(f, f, 1.0)
    bits = g.to(tl.uint32, bitcast=True)
    tl.store(e_ptr + offs, ((bits >> 16) & 0xFF).to(tl.uint8), mask=mask)
    s = (a & 0x7FFF).to(tl.int16)
    s = (s * 3) >> 1
    tl.store(f_ptr + offs, tl.maximum(s, tl.full(s.shape, 17, tl.int16)), mask=mask)


# 27. math zoo in f32 and f16: exp2, log2, sqrt, rsqrt, sin, cos, erf, floor, ceil, div_rn, pow.
@triton.jit
def math_zoo_kernel(x_ptr, h_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    h = tl.load(h_ptr + offs, mask=mask, other=1.0)  # f16
    ax = tl.abs(x) + 1e-3
    y = tl.exp2(x) + tl.log2(ax) + tl.sqrt(ax) + tl.math.rsqrt(ax) + tl.sin(x) * tl.cos(x)
    y += tl.erf(x) + tl.floor(x) + tl.ceil(x) + tl.math.div_rn(x, ax) + tl.fdiv(x, ax) + tl.sqrt_rn(ax)
    y += libdevice.pow(ax, 1.5) + libdevice.round(x) + tl.minimum(x, 0.5, propagate_nan=tl.PropagateNan.ALL)
    tl.store(y_ptr + offs, y, mask=mask)
    hf = h.to(tl.float32)
    hz = (tl.exp(hf) + tl.log(tl.abs(hf) + 1) + tl.sigmoid(hf)).to(tl.float16) + tl.maximum(h, -h) + tl.abs(h)
    tl.store(z_ptr + offs, hz, mask=mask)


# 28. f16 / bf16 / i8 / u8 reductions: max of f16 row, sum with dtype=, min of bf16, sum of u8.
@triton.jit
def lowp_reduce_kernel(h_ptr, b_ptr, i8_ptr, u8_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    h = tl.load(h_ptr + row * n_cols + offs, mask=mask, other=float("-inf"))
    b = tl.load(b_ptr + row * n_cols + offs, mask=mask, other=float("inf"))
    c = tl.load(i8_ptr + row * n_cols + offs, mask=mask, other=0)
    u = tl.load(u8_ptr + row * n_cols + offs, mask=mask, other=0)
    hm = tl.max(h, axis=0)
    hs = tl.sum(tl.where(mask, h, 0.0), axis=0, dtype=tl.float32)
    bm = tl.min(b, axis=0)
    cs = tl.sum(c, axis=0)
    um = tl.max(u, axis=0)
    us = tl.sum(u.to(tl.int32), axis=0)
    tl.store(out_ptr + row * 6 + 0, hm.to(tl.float32))
    tl.store(out_ptr + row * 6 + 1, hs)
    tl.store(out_ptr + row * 6 + 2, bm.to(tl.float32))
    tl.store(out_ptr + row * 6 + 3, cs.to(tl.float32))
    tl.store(out_ptr + row * 6 + 4, um.to(tl.float32))
    tl.store(out_ptr + row * 6 + 5, us.to(tl.float32))


# 29. online logsumexp with a while loop over column blocks (runtime step).
@triton.jit
def logsumexp_while_kernel(x_ptr, out_ptr, n_cols, stride, step, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    m = float("-inf")
    s = 0.0
    start = 0
    while start < n_cols:
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
        start += step
    tl.store(out_ptr + row, m + tl.log(s))


# 30. layer norm backward dx (tutorial style, no dw).
@triton.jit
def ln_bwd_dx_kernel(dx_ptr, dy_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr, stride, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(dy_ptr + row * stride + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.)
    wdy = tl.where(mask, w * dy, 0.)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(dx_ptr + row * stride + cols, dx.to(tl.float16), mask=mask)


# 31. causal depthwise conv1d (mamba causal_conv1d) with static_range over the kernel width.
@triton.jit
def causal_conv1d_kernel(x_ptr, w_ptr, b_ptr, y_ptr, L, D, stride_l, WIDTH: tl.constexpr, BL: tl.constexpr,
                         BD: tl.constexpr, SILU: tl.constexpr):
    pl = tl.program_id(0)
    pd = tl.program_id(1)
    rl = pl * BL + tl.arange(0, BL)
    rd = pd * BD + tl.arange(0, BD)
    dmask = rd < D
    acc = tl.load(b_ptr + rd, mask=dmask, other=0.).to(tl.float32)[None, :] + tl.zeros((BL, BD), tl.float32)
    for j in tl.static_range(WIDTH):
        src = rl - (WIDTH - 1) + j
        m = (src[:, None] >= 0) & (src[:, None] < L) & dmask[None, :]
        x = tl.load(x_ptr + src[:, None] * stride_l + rd[None, :], mask=m, other=0.).to(tl.float32)
        w = tl.load(w_ptr + rd * WIDTH + j, mask=dmask, other=0.).to(tl.float32)
        acc += x * w[None, :]
    if SILU:
        acc = acc * tl.sigmoid(acc)
    tl.store(y_ptr + rl[:, None] * stride_l + rd[None, :], acc.to(tl.float16),
             mask=(rl[:, None] < L) & dmask[None, :])


# 32. nested loops with runtime step, if/else on a scalar, tl.where on pointers.
@triton.jit
def nested_loops_kernel(a_ptr, b_ptr, out_ptr, n_outer, n_inner, step, use_b, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, ), dtype=tl.float32)
    for i in range(pid, n_outer, step):
        for j in range(0, n_inner):
            src = tl.where(((i + j) % 2 == 0) & (use_b != 0), b_ptr, a_ptr)
            v = tl.load(src + (i * n_inner + j) * BLOCK + offs)
            if j % 3 == 0:
                acc += v
            else:
                acc = tl.maximum(acc, v)
    tl.store(out_ptr + pid * BLOCK + offs, acc)


# 33. tl.softmax builtin on 2D tile, broadcast_to, view, cumprod/cumsum reverse, i64 cumsum.
@triton.jit
def builtin_softmax_scan_kernel(x_ptr, y_ptr, c_ptr, d_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + r[:, None] * C + c[None, :])
    y = tl.softmax(x)
    tl.store(y_ptr + r[:, None] * C + c[None, :], y)
    ones = tl.broadcast_to(tl.full((1, C), 1, tl.int64), (R, C))
    cs = tl.cumsum(ones, axis=1, reverse=True)
    tl.store(c_ptr + r[:, None] * C + c[None, :], cs)
    cp = tl.cumprod(tl.view(x, (C, R)), axis=0)
    tl.store(d_ptr + tl.arange(0, R * C), tl.reshape(cp, (R * C, )))


# 34. load/store hints: multiple_of, max_contiguous, cache modifiers, eviction policy.
@triton.jit
def hinted_copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    offs = tl.max_contiguous(tl.multiple_of(offs, BLOCK), BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, cache_modifier=".cg", eviction_policy="evict_last")
    tl.store(y_ptr + offs, x * 2, mask=offs < n, cache_modifier=".cs")


# 35. split-KV attention combine (flash-decoding reduce), loops over splits, lse.
@triton.jit
def splitkv_combine_kernel(o_ptr, lse_ptr, out_ptr, num_splits, HEAD: tl.constexpr):
    b = tl.program_id(0)
    d = tl.arange(0, HEAD)
    m = float("-inf")
    s = 0.0
    acc = tl.zeros((HEAD, ), dtype=tl.float32)
    for i in range(num_splits):
        l = tl.load(lse_ptr + b * num_splits + i)
        o = tl.load(o_ptr + (b * num_splits + i) * HEAD + d).to(tl.float32)
        m_new = tl.maximum(m, l)
        alpha = tl.exp(m - m_new)
        p = tl.exp(l - m_new)
        acc = acc * alpha + p * o
        s = s * alpha + p
        m = m_new
    tl.store(out_ptr + b * HEAD + d, (acc / s).to(tl.bfloat16))


# 36. inline asm elementwise (people do this on AMD for fast packed ops).
@triton.jit
def inline_asm_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    y = tl.inline_asm_elementwise("v_lshlrev_b32 $0, 1, $1", "=v,v", [x], dtype=tl.int32, is_pure=True, pack=1)
    tl.store(y_ptr + offs, y, mask=offs < n)


# 37. sort i32 2D along the last axis, descending, 8 warps; tl.gather of sorted keys.
@triton.jit
def sort2d_gather_kernel(x_ptr, idx_ptr, y_ptr, g_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + r[:, None] * C + c[None, :])
    s = tl.sort(x, dim=1, descending=True)
    tl.store(y_ptr + r[:, None] * C + c[None, :], s)
    idx = tl.load(idx_ptr + r[:, None] * C + c[None, :])
    tl.store(g_ptr + r[:, None] * C + c[None, :], tl.gather(s, idx, axis=1))


# 38. 3D reshape and reduce over the middle axis (head-wise norm, qk-norm style).
@triton.jit
def qk_norm_3d_kernel(x_ptr, w_ptr, y_ptr, eps, H: tl.constexpr, D: tl.constexpr):
    t = tl.program_id(0)
    offs = tl.arange(0, H * D)
    x = tl.load(x_ptr + t * H * D + offs).to(tl.float32)
    x3 = tl.reshape(x, (H, 1, D))
    ms = tl.sum(x3 * x3, axis=2) / D
    r = tl.math.rsqrt(ms + eps)
    w = tl.load(w_ptr + tl.arange(0, D)).to(tl.float32)
    y = x3 * r[:, :, None] * w[None, None, :]
    tl.store(y_ptr + t * H * D + offs, tl.reshape(y, (H * D, )).to(tl.bfloat16))


# 39. scalar-only kernel: scalar loads/stores, if/elif/else on runtime values, i64 pointer math.
@triton.jit
def scalar_branch_kernel(x_ptr, y_ptr, n, mode, thresh):
    pid = tl.program_id(0)
    if pid >= n:
        return
    v = tl.load(x_ptr + pid.to(tl.int64) * 3)
    if mode == 0:
        out = v * 2.0
    elif mode == 1:
        out = tl.where(v > thresh, v, thresh)
    else:
        out = -v
    tl.store(y_ptr + pid, out)


# 40. device_assert / static_assert left in (as people leave them).
@triton.jit
def asserts_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK % 64 == 0)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.device_assert(x >= 0, "negative")
    tl.store(y_ptr + offs, x + 1, mask=offs < n)


# 41. tl.range with loop_unroll_factor / num_stages hints; swizzle2d grouping; f16 dot.
@triton.jit
def swizzle_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m, pid_n = tl.swizzle2d(tl.program_id(0), tl.program_id(1), tl.num_programs(0), tl.num_programs(1), 4)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, loop_unroll_factor=2):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=rm[:, None] < M, other=0.)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :], mask=rn[None, :] < N, other=0.)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


# ---------------------------------------------------------------------------------------------

def cases():
    n = 1000
    f16, bf16, f32, i8, u8, i16, i32, i64 = "fp16", "bf16", "fp32", "i8", "u8", "i16", "i32", "i64"
    C = []

    def add(name, fn, cex, args, nw=4):
        C.append((name, fn, cex, {"num_warps": nw, "num_stages": 1}, args))

    add("log_softmax_1024_bf16", log_softmax_kernel, {"BLOCK": 1024},
        dict(x_ptr=P(bf16), y_ptr=P(bf16), stride_x=1000, stride_y=1000, n_cols=1000), nw=8)
    add("fused_add_rmsnorm_512_f16", fused_add_rmsnorm_kernel, {"BLOCK": 512},
        dict(x_ptr=P(f16), res_ptr=P(f16), w_ptr=P(f16), out_ptr=P(f16), stride=500, N=500, eps=F32(1e-6)))
    add("silu_and_mul_256_bf16", silu_and_mul_kernel, {"BLOCK": 256},
        dict(x_ptr=P(bf16), out_ptr=P(bf16), d=700, stride_x=1400, stride_o=700))
    add("geglu_tanh_512_f16", geglu_tanh_kernel, {"BLOCK": 512}, dict(a_ptr=P(f16), b_ptr=P(f16), c_ptr=P(f16), n=n))
    add("group_norm_8x64_f16", group_norm_kernel, {"C_G": 8, "BLOCK_HW": 64},
        dict(x_ptr=P(f16), y_ptr=P(f16), w_ptr=P(f16), b_ptr=P(f16), mean_ptr=P(f32), rstd_ptr=P(f32), C=32, HW=100,
             num_groups=4, eps=F32(1e-5)))
    add("bn_stats_32x64_f32", bn_stats_kernel, {"BLOCK_M": 32, "BLOCK_N": 64},
        dict(x_ptr=P(f32), sum_ptr=P(f32), sumsq_ptr=P(f32), M=100, N=70, stride_m=70))
    add("quant_int8_row_1024_f16", quant_int8_row_kernel, {"BLOCK": 1024},
        dict(x_ptr=P(f16), q_ptr=P(i8), s_ptr=P(f32), stride=1000, N=1000))
    add("topk_sort_128_f32", topk_sort_kernel, {"K": 8, "BLOCK": 128},
        dict(x_ptr=P(f32), out_ptr=P(f32), n_cols=100, stride=100))
    add("argsort_packed_256_f32", argsort_packed_kernel, {"N": 256}, dict(x_ptr=P(f32), idx_ptr=P(i32)))
    add("kv_cache_copy_128_f16", kv_cache_copy_kernel, {"HEAD": 128},
        dict(k_ptr=P(f16), v_ptr=P(f16), kc_ptr=P(f16), vc_ptr=P(f16), slot_ptr=P(i64), stride_k=1024,
             block_size=16))
    add("transpose_32x32_f32", transpose_kernel, {"BM": 32, "BN": 32},
        dict(x_ptr=P(f32), y_ptr=P(f32), M=100, N=70, sxm=70, sxn=1, sym=100, syn=1))
    add("copy2d_16x64_i16", copy2d_i16_kernel, {"BM": 16, "BN": 64},
        dict(x_ptr=P(i16), y_ptr=P(i16), M=100, N=70, sx=72, sy=70), nw=2)
    add("segment_sum_16x64_f32", segment_sum_kernel, {"BLOCK_R": 16, "BLOCK_D": 64},
        dict(x_ptr=P(f32), seg_ptr=P(i32), out_ptr=P(f32), n=100, D=50))
    add("chained_scan_256_i32", chained_scan_kernel, {"BLOCK": 256},
        dict(x_ptr=P(i32), y_ptr=P(i32), agg_ptr=P(i32), flag_ptr=P(i32), n=n))
    add("atomics_zoo_128", atomics_zoo_kernel, {"BLOCK": 128},
        dict(xi_ptr=P(i32), xf_ptr=P(f32), maxi_ptr=P(i32), mini_ptr=P(i32), maxf_ptr=P(f32), minf_ptr=P(f32),
             bits_ptr=P(i32), cas_ptr=P(i32), n=n))
    add("linear_recurrence_256_f32", linear_recurrence_kernel, {"BLOCK": 256},
        dict(a_ptr=P(f32), b_ptr=P(f32), h_ptr=P(f32), L=200, stride=200))
    add("reduce_custom_256_f16", reduce_custom_kernel, {"BLOCK": 256},
        dict(x_ptr=P(f16), xi_ptr=P(i32), v_ptr=P(f16), i_ptr=P(i32), mi_ptr=P(i32), ai_ptr=P(i32), n_cols=200,
             stride=200))
    add("histogram_u8_1024", histogram_u8_kernel, {"BLOCK": 1024}, dict(x_ptr=P(u8), hist_ptr=P(i32), n=n))
    add("complex_mul_64_f32", complex_mul_kernel, {"N": 64}, dict(x_ptr=P(f32), w_ptr=P(f32), y_ptr=P(f32)), nw=1)
    add("rotary_neox_64_bf16", rotary_bf16_kernel, {"HALF": 32},
        dict(q_ptr=P(bf16), cos_ptr=P(f32), sin_ptr=P(f32), pos_ptr=P(i32), stride_t=512, stride_h=64), nw=1)
    add("block_ptr_rowsum_32x64_f16", block_ptr_rowsum_kernel, {"BM": 32, "BN": 64},
        dict(x_ptr=P(f16), y_ptr=P(f32), M=100, N=300, stride_m=300))
    for prec in ("tf32", "ieee"):
        add(f"matmul_{prec}_acc_32x32x16_f32", matmul_tf32_acc_kernel, {"BM": 32, "BN": 32, "BK": 16, "PREC": prec},
            dict(a_ptr=P(f32), b_ptr=P(f32), c_ptr=P(f32), M=100, N=70, K=50, sam=50, sbk=70, scm=70))
    add("i8_dot_acc_32x64x32", i8_dot_acc_kernel, {"N": 64, "BM": 32, "BK": 32},
        dict(a_ptr=P(i8), b_ptr=P(i8), c_ptr=P(f16), scale=F32(0.01), K=128))
    add("linear_wt_f16acc_32x32x32", linear_wt_f16acc_kernel, {"BM": 32, "BN": 32, "BK": 32},
        dict(x_ptr=P(f16), w_ptr=P(f16), y_ptr=P(f16), M=100, N=70, K=90, sxm=90, swn=90, sym=70))
    add("philox_256_f32", philox_kernel, {"BLOCK": 256},
        dict(x_ptr=P(f32), y_ptr=P(f32), u_ptr=P(i8), z_ptr=P(f32), r_ptr=P(i32), n=n, p=F32(0.3), seed=1234))
    add("int_zoo_256", int_zoo_kernel, {"BLOCK": 256},
        dict(a_ptr=P(i32), b_ptr=P(f32), c_ptr=P(i32), d_ptr=P(i64), e_ptr=P(u8), f_ptr=P(i16), n=n, divisor=7,
             big_div=100003))
    add("math_zoo_256", math_zoo_kernel, {"BLOCK": 256},
        dict(x_ptr=P(f32), h_ptr=P(f16), y_ptr=P(f32), z_ptr=P(f16), n=n))
    add("lowp_reduce_256", lowp_reduce_kernel, {"BLOCK": 256},
        dict(h_ptr=P(f16), b_ptr=P(bf16), i8_ptr=P(i8), u8_ptr=P(u8), out_ptr=P(f32), n_cols=200))
    add("logsumexp_while_128_f16", logsumexp_while_kernel, {"BLOCK": 128},
        dict(x_ptr=P(f16), out_ptr=P(f32), n_cols=1000, stride=1000, step=128))
    add("ln_bwd_dx_1024_f16", ln_bwd_dx_kernel, {"BLOCK": 1024},
        dict(dx_ptr=P(f16), dy_ptr=P(f16), x_ptr=P(f16), w_ptr=P(f16), mean_ptr=P(f32), rstd_ptr=P(f32), stride=1000,
             N=1000), nw=8)
    add("causal_conv1d_16x64_f16", causal_conv1d_kernel, {"WIDTH": 4, "BL": 16, "BD": 64, "SILU": True},
        dict(x_ptr=P(f16), w_ptr=P(f16), b_ptr=P(f16), y_ptr=P(f16), L=100, D=70, stride_l=70))
    add("nested_loops_128_f32", nested_loops_kernel, {"BLOCK": 128},
        dict(a_ptr=P(f32), b_ptr=P(f32), out_ptr=P(f32), n_outer=10, n_inner=3, step=4, use_b=3), nw=2)
    add("builtin_softmax_scan_16x32", builtin_softmax_scan_kernel, {"R": 16, "C": 32},
        dict(x_ptr=P(f32), y_ptr=P(f32), c_ptr=P(i64), d_ptr=P(f32)))
    add("hinted_copy_512_f32", hinted_copy_kernel, {"BLOCK": 512}, dict(x_ptr=P(f32), y_ptr=P(f32), n=n))
    add("splitkv_combine_128_f16", splitkv_combine_kernel, {"HEAD": 128},
        dict(o_ptr=P(f16), lse_ptr=P(f32), out_ptr=P(bf16), num_splits=5), nw=1)
    add("inline_asm_256_i32", inline_asm_kernel, {"BLOCK": 256}, dict(x_ptr=P(i32), y_ptr=P(i32), n=n))
    add("sort2d_gather_8x64_i32", sort2d_gather_kernel, {"R": 8, "C": 64},
        dict(x_ptr=P(i32), idx_ptr=P(i32), y_ptr=P(i32), g_ptr=P(i32)), nw=8)
    add("qk_norm_3d_8x64_bf16", qk_norm_3d_kernel, {"H": 8, "D": 64},
        dict(x_ptr=P(bf16), w_ptr=P(bf16), y_ptr=P(bf16), eps=F32(1e-6)))
    add("scalar_branch_f32", scalar_branch_kernel, {},
        dict(x_ptr=P(f32), y_ptr=P(f32), n=n, mode=3, thresh=F32(0.5)), nw=1)
    add("asserts_256_i32", asserts_kernel, {"BLOCK": 256}, dict(x_ptr=P(i32), y_ptr=P(i32), n=n))
    add("swizzle_matmul_64x64x32_f16", swizzle_matmul_kernel, {"BM": 64, "BN": 64, "BK": 32},
        dict(a_ptr=P(f16), b_ptr=P(f16), c_ptr=P(f16), M=100, N=70, K=96), nw=4)
    return C



# ---------------------------------------------------------------------------------------------
# Batch 2: one construct per kernel, to isolate causes.

UNARY_OPS = ["exp", "exp2", "log", "log2", "sqrt", "sqrt_rn", "rsqrt", "sin", "cos", "erf", "floor", "ceil",
             "div_rn", "fdiv", "cdiv_int", "ld_tanh", "ld_pow", "ld_round", "ld_rint", "ld_trunc", "ld_log1p",
             "ld_expm1", "ld_atan2", "ld_tan", "ld_isnan", "ld_isinf", "ld_fmod", "ld_exp", "ld_erf", "ld_asin",
             "ld_signbit", "ld_fast_expf", "ld_cbrt", "ld_hypot", "ld_ilogb", "ld_nearbyint", "ld_copysign"]


@triton.jit
def unary_f32_kernel(x_ptr, y_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    ax = tl.abs(x) + 0.25
    if OP == "exp":
        y = tl.exp(x)
    elif OP == "exp2":
        y = tl.exp2(x)
    elif OP == "log":
        y = tl.log(ax)
    elif OP == "log2":
        y = tl.log2(ax)
    elif OP == "sqrt":
        y = tl.sqrt(ax)
    elif OP == "sqrt_rn":
        y = tl.sqrt_rn(ax)
    elif OP == "rsqrt":
        y = tl.rsqrt(ax)
    elif OP == "sin":
        y = tl.sin(x)
    elif OP == "cos":
        y = tl.cos(x)
    elif OP == "erf":
        y = tl.erf(x)
    elif OP == "floor":
        y = tl.floor(x)
    elif OP == "ceil":
        y = tl.ceil(x)
    elif OP == "div_rn":
        y = tl.div_rn(x, ax)
    elif OP == "fdiv":
        y = tl.fdiv(x, ax)
    elif OP == "cdiv_int":
        y = tl.cdiv(offs, 7).to(tl.float32)
    elif OP == "ld_tanh":
        y = libdevice.tanh(x)
    elif OP == "ld_pow":
        y = libdevice.pow(ax, 1.5)
    elif OP == "ld_round":
        y = libdevice.round(x)
    elif OP == "ld_rint":
        y = libdevice.rint(x)
    elif OP == "ld_trunc":
        y = libdevice.trunc(x)
    elif OP == "ld_log1p":
        y = libdevice.log1p(ax)
    elif OP == "ld_expm1":
        y = libdevice.expm1(x)
    elif OP == "ld_atan2":
        y = libdevice.atan2(x, ax)
    elif OP == "ld_tan":
        y = libdevice.tan(x)
    elif OP == "ld_isnan":
        y = libdevice.isnan(x).to(tl.float32)
    elif OP == "ld_isinf":
        y = libdevice.isinf(x).to(tl.float32)
    elif OP == "ld_fmod":
        y = libdevice.fmod(x, ax)
    elif OP == "ld_exp":
        y = libdevice.exp(x)
    elif OP == "ld_erf":
        y = libdevice.erf(x)
    elif OP == "ld_asin":
        y = libdevice.asin(x * 0.1)
    elif OP == "ld_signbit":
        y = libdevice.signbit(x).to(tl.float32)
    elif OP == "ld_fast_expf":
        y = libdevice.fast_expf(x)
    elif OP == "ld_cbrt":
        y = libdevice.cbrt(x)
    elif OP == "ld_hypot":
        y = libdevice.hypot(x, ax)
    elif OP == "ld_ilogb":
        y = libdevice.ilogb(ax).to(tl.float32)
    elif OP == "ld_nearbyint":
        y = libdevice.nearbyint(x)
    else:
        y = libdevice.copysign(ax, x)
    tl.store(y_ptr + offs, y, mask=mask)


ATOMIC_OPS = ["max_f32", "min_f32", "add_i64", "add_bf16", "cas_i64", "xchg_f32", "add_f32_scalar_ticket",
              "add_f64", "max_u32", "add_f32_cta_relaxed"]


@triton.jit
def atomic_one_kernel(p_i32, p_f32, p_i64, p_bf16, p_f64, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    slot = offs % 4
    if OP == "max_f32":
        tl.atomic_max(p_f32 + slot, offs.to(tl.float32) - 100.0, mask=mask)
    elif OP == "min_f32":
        tl.atomic_min(p_f32 + slot, offs.to(tl.float32) - 100.0, mask=mask)
    elif OP == "add_i64":
        tl.atomic_add(p_i64 + slot, offs.to(tl.int64), mask=mask)
    elif OP == "add_bf16":
        tl.atomic_add(p_bf16 + slot, offs.to(tl.bfloat16), mask=mask)
    elif OP == "cas_i64":
        zero = tl.program_id(0).to(tl.int64) * 0
        tl.atomic_cas(p_i64 + tl.program_id(0), zero, zero + 1)
    elif OP == "xchg_f32":
        tl.atomic_xchg(p_f32 + offs, offs.to(tl.float32), mask=mask)
    elif OP == "add_f32_scalar_ticket":
        t = tl.atomic_add(p_i32, 1)
        tl.store(out_ptr + t * BLOCK + tl.arange(0, BLOCK), offs)
    elif OP == "add_f64":
        tl.atomic_add(p_f64 + slot, offs.to(tl.float64), mask=mask)
    elif OP == "max_u32":
        tl.atomic_max(p_i32.to(tl.pointer_type(tl.uint32)) + slot, offs.to(tl.uint32), mask=mask)
    else:
        tl.atomic_add(p_f32 + slot, offs.to(tl.float32), mask=mask, sem="relaxed", scope="cta")


# f64 kernel (people write double kernels for reference checks).
@triton.jit
def f64_sum_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, ), tl.float64)
    for s in range(0, n, BLOCK):
        acc += tl.load(x_ptr + s + offs, mask=s + offs < n, other=0.0)
    tot = tl.sum(acc, axis=0)
    tl.store(y_ptr, tl.sqrt(tot * tot + 1.0))


# bool tensors in and out (torch.bool -> *i1).
@triton.jit
def bool_mask_kernel(x_ptr, m_ptr, y_ptr, flag_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    keep = tl.load(m_ptr + offs, mask=mask, other=False)
    x = tl.load(x_ptr + offs, mask=mask, other=0.)
    tl.store(y_ptr + offs, tl.where(keep, x, 0.), mask=mask)
    tl.store(flag_ptr + offs, x > 0, mask=mask)


# minimal: dot with f16 accumulator (out_dtype=f16).
@triton.jit
def dot_f16_out_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.dot(a, b, out_dtype=tl.float16)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


# minimal: tl.where between two scalar pointers.
@triton.jit
def where_ptr_kernel(a_ptr, b_ptr, y_ptr, sel, BLOCK: tl.constexpr):
    src = tl.where(sel > 0, a_ptr, b_ptr)
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(src + offs))


# minimal: tl.debug_barrier.
@triton.jit
def barrier_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, x)
    tl.debug_barrier()
    tl.store(x_ptr + offs, tl.load(y_ptr + BLOCK - 1 - offs))


# device_print left in.
@triton.jit
def print_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.device_print("x", x)


# grouped GEMM (tutorial 08): pointers loaded from memory (int64 -> pointer).
@triton.jit
def grouped_gemm_kernel(group_a_ptrs, group_b_ptrs, group_c_ptrs, group_gemm_sizes, g_lds, group_size,
                        BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    tile_idx = tl.program_id(0)
    last = 0
    for g in range(group_size):
        gm = tl.load(group_gemm_sizes + g * 3)
        gn = tl.load(group_gemm_sizes + g * 3 + 1)
        gk = tl.load(group_gemm_sizes + g * 3 + 2)
        ntiles = tl.cdiv(gm, BM) * tl.cdiv(gn, BN)
        if tile_idx >= last and tile_idx < last + ntiles:
            lda = tl.load(g_lds + g * 3)
            ldb = tl.load(g_lds + g * 3 + 1)
            ldc = tl.load(g_lds + g * 3 + 2)
            a_ptr = tl.load(group_a_ptrs + g).to(tl.pointer_type(tl.float16))
            b_ptr = tl.load(group_b_ptrs + g).to(tl.pointer_type(tl.float16))
            c_ptr = tl.load(group_c_ptrs + g).to(tl.pointer_type(tl.float16))
            t = tile_idx - last
            tm = t // tl.cdiv(gn, BN)
            tn = t % tl.cdiv(gn, BN)
            rm = tm * BM + tl.arange(0, BM)
            rn = tn * BN + tl.arange(0, BN)
            rk = tl.arange(0, BK)
            acc = tl.zeros((BM, BN), dtype=tl.float32)
            for kk in range(0, tl.cdiv(gk, BK)):
                a = tl.load(a_ptr + rm[:, None] * lda + (kk * BK + rk)[None, :])
                b = tl.load(b_ptr + (kk * BK + rk)[:, None] * ldb + rn[None, :])
                acc += tl.dot(a, b)
            tl.store(c_ptr + rm[:, None] * ldc + rn[None, :], acc.to(tl.float16))
        last += ntiles


# data-dependent while loop on a reduced tensor.
@triton.jit
def while_reduce_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    it = 0
    while tl.max(tl.abs(x), axis=0) > 1.0:
        x = x * 0.5
        it += 1
    tl.store(y_ptr + offs, x + it)


# low-precision scans/sorts: f16 sort, bf16 cumsum, i8 cumsum, i64 max, u32 div.
@triton.jit
def lowp_scan_sort_kernel(h_ptr, b_ptr, c_ptr, l_ptr, u_ptr, o16_ptr, obf_ptr, o8_ptr, o64_ptr, ou_ptr, d,
                          N: tl.constexpr):
    offs = tl.arange(0, N)
    h = tl.load(h_ptr + offs)
    tl.store(o16_ptr + offs, tl.sort(h))
    b = tl.load(b_ptr + offs)
    tl.store(obf_ptr + offs, tl.cumsum(b, axis=0))
    c = tl.load(c_ptr + offs)
    tl.store(o8_ptr + offs, tl.cumsum(c, axis=0).to(tl.int8))
    l = tl.load(l_ptr + offs)
    tl.store(o64_ptr, tl.max(l, axis=0))
    u = tl.load(u_ptr + offs)
    tl.store(ou_ptr + offs, u // d.to(tl.uint32) + (u > 3000000000).to(tl.uint32))


# shape ops: interleave, 3D permute, split of 3D, reshape can_reorder.
@triton.jit
def shape_ops_kernel(x_ptr, y_ptr, z_ptr, w_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    i = tl.arange(0, A * B * C)
    x = tl.load(x_ptr + i)
    x3 = tl.reshape(x, (A, B, C))
    p = tl.permute(x3, (2, 0, 1))
    tl.store(y_ptr + i, tl.reshape(p, (A * B * C, )))
    j = tl.arange(0, A * B)
    u = tl.load(x_ptr + j)
    v = tl.load(x_ptr + A * B + j)
    tl.store(z_ptr + tl.arange(0, 2 * A * B), tl.interleave(u, v))
    q = tl.reshape(x, (A * B * C // 2, 2))
    lo, hi = tl.split(q)
    tl.store(w_ptr + tl.arange(0, A * B * C // 2), lo - hi)


# dot with transposed A (attention backward dV = P^T dO), num_warps 4, 64x64x64 f16.
@triton.jit
def dot_trans_a_kernel(p_ptr, do_ptr, dv_ptr, M: tl.constexpr, N: tl.constexpr, D: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rd = tl.arange(0, D)
    p = tl.load(p_ptr + rm[:, None] * N + rn[None, :])
    do = tl.load(do_ptr + rm[:, None] * D + rd[None, :])
    dv = tl.dot(tl.trans(p), do)
    tl.store(dv_ptr + rn[:, None] * D + rd[None, :], dv.to(tl.float16))


# big-tile bf16 matmul, 8 warps, 128x128x64, C += A@B with C loaded.
@triton.jit
def big_tile_bf16_kernel(a_ptr, b_ptr, c_ptr, K, N, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    c = tl.load(c_ptr + rm[:, None] * N + rn[None, :]).to(tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        c = tl.dot(a, b, c)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c.to(tl.bfloat16))


# dtype casts: f32->bf16, bf16->f16, f16->i8, u8->f32, i64->f32, f32->i64, f32->u32, i32->i16 trunc.
@triton.jit
def casts_kernel(x_ptr, u8_ptr, i64_ptr, obf_ptr, o16_ptr, oi8_ptr, of_ptr, oi64_ptr, ou32_ptr, oi16_ptr, n,
                 BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.)
    bf = x.to(tl.bfloat16)
    tl.store(obf_ptr + offs, bf, mask=m)
    h = bf.to(tl.float16)
    tl.store(o16_ptr + offs, h, mask=m)
    tl.store(oi8_ptr + offs, h.to(tl.int8), mask=m)
    u = tl.load(u8_ptr + offs, mask=m, other=0)
    l = tl.load(i64_ptr + offs, mask=m, other=0)
    tl.store(of_ptr + offs, u.to(tl.float32) + l.to(tl.float32), mask=m)
    tl.store(oi64_ptr + offs, x.to(tl.int64), mask=m)
    tl.store(ou32_ptr + offs, tl.abs(x).to(tl.uint32), mask=m)
    tl.store(oi16_ptr + offs, (offs * 1000).to(tl.int16), mask=m)


# column-major block pointer store + advance backwards.
@triton.jit
def block_ptr_colmajor_kernel(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    src = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (pid * BM, N - BN), (BM, BN), (1, 0))
    dst = tl.make_block_ptr(y_ptr, (M, N), (1, M), (pid * BM, N - BN), (BM, BN), (0, 1))
    for _ in range(0, N // BN):
        t = tl.load(src, boundary_check=(0, ))
        tl.store(dst, t, boundary_check=(0, ))
        src = tl.advance(src, (0, -BN))
        dst = tl.advance(dst, (0, -BN))


# tl.assume and full reduction of 2D (axis=None), f16 sum without dtype.
@triton.jit
def assume_sum_kernel(x_ptr, y_ptr, stride, R: tl.constexpr, C: tl.constexpr):
    tl.assume(stride > 0)
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + r[:, None] * stride + c[None, :])
    tl.store(y_ptr, tl.sum(x))
    tl.store(y_ptr + 1, tl.max(x))


# small dot, 1 warp, 16x16x16 f16, and tl.static_range unrolled K loop.
@triton.jit
def small_dot_static_kernel(a_ptr, b_ptr, c_ptr, KT: tl.constexpr):
    r = tl.arange(0, 16)
    acc = tl.zeros((16, 16), tl.float32)
    for k in tl.static_range(KT):
        a = tl.load(a_ptr + r[:, None] * (16 * KT) + k * 16 + r[None, :])
        b = tl.load(b_ptr + (k * 16 + r)[:, None] * 16 + r[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + r[:, None] * 16 + r[None, :], acc)


def cases2():
    f16, bf16, f32, f64, i1, i8, u8, i16, i32, u32, i64 = ("fp16", "bf16", "fp32", "fp64", "i1", "i8", "u8", "i16",
                                                            "i32", "u32", "i64")
    C = []

    def add(name, fn, cex, args, nw=4):
        C.append((name, fn, cex, {"num_warps": nw, "num_stages": 1}, args))

    for op in UNARY_OPS:
        add(f"unary_{op}_256_f32", unary_f32_kernel, {"OP": op, "BLOCK": 256}, dict(x_ptr=P(f32), y_ptr=P(f32), n=1000))
    for op in ATOMIC_OPS:
        add(f"atomic_{op}_128", atomic_one_kernel, {"OP": op, "BLOCK": 128},
            dict(p_i32=P(i32), p_f32=P(f32), p_i64=P(i64), p_bf16=P(bf16), p_f64=P(f64), out_ptr=P(i32), n=1000))
    add("f64_sum_256", f64_sum_kernel, {"BLOCK": 256}, dict(x_ptr=P(f64), y_ptr=P(f64), n=1000))
    add("bool_mask_256", bool_mask_kernel, {"BLOCK": 256},
        dict(x_ptr=P(f32), m_ptr=P(i1), y_ptr=P(f32), flag_ptr=P(i1), n=1000))
    add("dot_f16_out_32x32x32", dot_f16_out_kernel, {"M": 32, "N": 32, "K": 32},
        dict(a_ptr=P(f16), b_ptr=P(f16), c_ptr=P(f16)))
    add("where_ptr_128_f32", where_ptr_kernel, {"BLOCK": 128}, dict(a_ptr=P(f32), b_ptr=P(f32), y_ptr=P(f32), sel=3))
    add("barrier_128_f32", barrier_kernel, {"BLOCK": 128}, dict(x_ptr=P(f32), y_ptr=P(f32)))
    add("print_64_f32", print_kernel, {"BLOCK": 64}, dict(x_ptr=P(f32), n=50), nw=1)
    add("grouped_gemm_32x32x32_f16", grouped_gemm_kernel, {"BM": 32, "BN": 32, "BK": 32},
        dict(group_a_ptrs=P(i64), group_b_ptrs=P(i64), group_c_ptrs=P(i64), group_gemm_sizes=P(i32), g_lds=P(i32),
             group_size=3))
    add("while_reduce_128_f32", while_reduce_kernel, {"BLOCK": 128}, dict(x_ptr=P(f32), y_ptr=P(f32)))
    add("lowp_scan_sort_128", lowp_scan_sort_kernel, {"N": 128},
        dict(h_ptr=P(f16), b_ptr=P(bf16), c_ptr=P(i8), l_ptr=P(i64), u_ptr=P(u32), o16_ptr=P(f16), obf_ptr=P(bf16),
             o8_ptr=P(i8), o64_ptr=P(i64), ou_ptr=P(u32), d=7))
    add("shape_ops_4x8x16_f32", shape_ops_kernel, {"A": 4, "B": 8, "C": 16},
        dict(x_ptr=P(f32), y_ptr=P(f32), z_ptr=P(f32), w_ptr=P(f32)))
    add("dot_trans_a_64x64x64_f16", dot_trans_a_kernel, {"M": 64, "N": 64, "D": 64},
        dict(p_ptr=P(f16), do_ptr=P(f16), dv_ptr=P(f16)))
    add("big_tile_bf16_128x128x64", big_tile_bf16_kernel, {"BM": 128, "BN": 128, "BK": 64},
        dict(a_ptr=P(bf16), b_ptr=P(bf16), c_ptr=P(bf16), K=256, N=256), nw=8)
    add("casts_256", casts_kernel, {"BLOCK": 256},
        dict(x_ptr=P(f32), u8_ptr=P(u8), i64_ptr=P(i64), obf_ptr=P(bf16), o16_ptr=P(f16), oi8_ptr=P(i8),
             of_ptr=P(f32), oi64_ptr=P(i64), ou32_ptr=P(u32), oi16_ptr=P(i16), n=1000))
    add("block_ptr_colmajor_32x32_f16", block_ptr_colmajor_kernel, {"BM": 32, "BN": 32},
        dict(x_ptr=P(f16), y_ptr=P(f16), M=100, N=96))
    add("assume_sum_16x64_f16", assume_sum_kernel, {"R": 16, "C": 64}, dict(x_ptr=P(f16), y_ptr=P(f16), stride=70))
    add("small_dot_static_16x16x48_f16", small_dot_static_kernel, {"KT": 3},
        dict(a_ptr=P(f16), b_ptr=P(f16), c_ptr=P(f32)), nw=1)
    return C


# ---------------------------------------------------------------------------------------------
# Batch 3: shapes at the edges (fewer elements than threads, 1xN tiles, big blocks, 16 warps).

@triton.jit
def tiny_block_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.)
    y = x - tl.max(x, axis=0) + tl.cumsum(x, axis=0)
    tl.store(y_ptr + offs, y, mask=offs < n)


@triton.jit
def row_vector_2d_kernel(x_ptr, y_ptr, N: tl.constexpr):
    r = tl.arange(0, 1)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    s = tl.sum(x, axis=1)
    tl.store(y_ptr + r[:, None] * N + c[None, :], x / s[:, None])


@triton.jit
def big_block_softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=-float("inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n_cols + offs, (e / tl.sum(e, axis=0)).to(tl.float16), mask=offs < n_cols)


@triton.jit
def scan3d_reduce0_kernel(x_ptr, y_ptr, z_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    i = tl.arange(0, A * B * C)
    x = tl.reshape(tl.load(x_ptr + i), (A, B, C))
    s0 = tl.sum(x, axis=0)
    tl.store(y_ptr + tl.arange(0, B * C), tl.reshape(s0, (B * C, )))
    c = tl.cumsum(x, axis=1)
    tl.store(z_ptr + i, tl.reshape(c, (A * B * C, )))


@triton.jit
def dot_m16_8warps_kernel(a_ptr, b_ptr, c_ptr, K: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, 16)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))


@triton.jit
def sort1024_kernel(x_ptr, y_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(y_ptr + offs, tl.sort(tl.load(x_ptr + offs)))


@triton.jit
def scalar_only_kernel(x_ptr, y_ptr, n):
    acc = 0.0
    for i in range(n):
        acc += tl.load(x_ptr + i)
    tl.store(y_ptr, acc)


@triton.jit
def matmul_stages2_kernel(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        acc += tl.dot(tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :]),
                      tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :]))
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


@triton.jit
def fp8_dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :]).to(tl.float8e4nv)
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :]).to(tl.float8e4nv)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))


def cases3():
    f16, f32, i32 = "fp16", "fp32", "i32"
    C = []

    def add(name, fn, cex, args, nw=4, ns=1):
        C.append((name, fn, cex, {"num_warps": nw, "num_stages": ns}, args))

    add("tiny_block_16_f32", tiny_block_kernel, {"BLOCK": 16}, dict(x_ptr=P(f32), y_ptr=P(f32), n=100))
    add("row_vector_1x256_f32", row_vector_2d_kernel, {"N": 256}, dict(x_ptr=P(f32), y_ptr=P(f32)))
    add("big_block_softmax_8192_f16", big_block_softmax_kernel, {"BLOCK": 8192},
        dict(x_ptr=P(f16), y_ptr=P(f16), n_cols=8000), nw=16)
    add("big_block_softmax_4096_f16_w4", big_block_softmax_kernel, {"BLOCK": 4096},
        dict(x_ptr=P(f16), y_ptr=P(f16), n_cols=4000), nw=4)
    add("scan3d_reduce0_4x8x16_f32", scan3d_reduce0_kernel, {"A": 4, "B": 8, "C": 16},
        dict(x_ptr=P(f32), y_ptr=P(f32), z_ptr=P(f32)))
    add("dot_m16_8warps_64x128_f16", dot_m16_8warps_kernel, {"K": 64, "N": 128},
        dict(a_ptr=P(f16), b_ptr=P(f16), c_ptr=P(f32)), nw=8)
    add("sort1024_i32", sort1024_kernel, {"N": 1024}, dict(x_ptr=P(i32), y_ptr=P(i32)))
    add("scalar_only_f32", scalar_only_kernel, {}, dict(x_ptr=P(f32), y_ptr=P(f32), n=10), nw=1)
    add("matmul_stages2_64x64x32_f16", matmul_stages2_kernel, {"BM": 64, "BN": 64, "BK": 32},
        dict(a_ptr=P(f16), b_ptr=P(f16), c_ptr=P(f32), K=128), ns=2)
    add("fp8_dot_32x32x32", fp8_dot_kernel, {"M": 32, "N": 32, "K": 32}, dict(a_ptr=P(f32), b_ptr=P(f32), c_ptr=P(f32)))
    return C


def ttir_only(src, target, opts):
    """TTIR (and whether TTGIR also builds) when triton.compile fails later."""
    from triton._C.libtriton import ir
    backend = make_backend(target)
    options = backend.parse_options(dict(opts))
    stages = {}
    backend.add_stages(stages, options, src.language)
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    metadata = {"target": target, **options.__dict__}
    module = src.make_ir(target, options, backend.get_codegen_implementation(options), backend.get_module_map(), context)
    module = stages["ttir"](module, metadata)
    return str(module)


def without_locations(ttir):
    """The module without its `#loc` aliases and `loc(...)` suffixes."""
    lines = [line for line in ttir.splitlines() if not line.startswith("#loc")]
    return "\n".join(re.sub(r" loc\((?:[^()]|\([^()]*\))*\)", "", line) for line in lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--only")
    ap.add_argument("--arch", action="append")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    status_path = os.path.join(a.out, "manifest.json")
    status = json.load(open(status_path)) if os.path.exists(status_path) else {}
    for arch in a.arch or ARCHS:
        warp = 32 if arch.startswith("gfx1") else 64
        target = GPUTarget("hip", arch, warp)
        backend = make_backend(target)
        for name, fn, cex, opts, args, *only_on in [c + (None,) for c in cases() + cases2() + cases3()] + more_cases():
            if a.only and a.only not in name or (only_on[0] and arch not in only_on[0]):
                continue
            key = f"{name}.{arch}"
            try:
                sig, cexs, attrs, _ = specialise(fn, args, cex, backend)
                src = ASTSource(fn, sig, cexs, attrs)
            except Exception as e:  # noqa: BLE001
                status[key] = {"triton": "specialise-failed: " + " ".join(str(e).split())[:300]}
                print(key, status[key])
                continue
            try:
                k = triton.compile(src, target=target, options=opts)
                ttir = k.asm["ttir"]
                st = {"triton": "ok"}
            except Exception as e:  # noqa: BLE001
                msg = f"{type(e).__name__}: " + " ".join(str(e).split())[-300:]
                try:
                    ttir = ttir_only(ASTSource(fn, sig, cexs, attrs), target, opts)
                    st = {"triton": "refused-after-ttir: " + msg}
                except Exception as e2:  # noqa: BLE001
                    ttir = None
                    st = {"triton": "refused: " + msg}
            st["num_warps"] = opts["num_warps"]
            if ttir:
                open(os.path.join(a.out, key + ".ttir"), "w").write(without_locations(ttir))
            status[key] = st
            print(key, st["triton"][:200], flush=True)
    json.dump(dict(sorted(status.items())), open(status_path, "w"), indent=1)


if __name__ == "__main__":
    main()
