#!/usr/bin/env python3
"""Kernels as people write them (not in people_ttgir.py / zoo_ttir.py / zoo_more.py), compiled by Triton 3.6.0 on the
CPU for gfx942, gfx950, gfx1100: writes fx/<name>.<arch>.ttir (TTIR, no locations), fx/<name>.<arch>.hsaco /
.amdgcn / .triton.ttgir (Triton's own, to validate cases with check_ttgir.py --triton), fx/cases.json.

    ../shared/oracle/oracle-python scripts/zoo2/gen.py [--only SUBSTR]
"""
import argparse
import json
import os
import re
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="triton-cache-zoo2-"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.language.extra import libdevice  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler.compiler import ASTSource, make_backend  # noqa: E402

from people_ttgir import Buf, F32, specialise, case_args, strip_debug  # noqa: E402
from zoo_ttir import ttir_only, without_locations  # noqa: E402

ARCHS = ["gfx942", "gfx950", "gfx1100"]
HERE = os.path.dirname(os.path.abspath(__file__))


# 1. Group norm forward: one program per (sample, group), two passes over the group.
@triton.jit
def group_norm_fwd_kernel(x_ptr, w_ptr, b_ptr, y_ptr, C, HW, G, eps, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    n = pid // G
    g = pid % G
    cpg = C // G
    group_size = cpg * HW
    base = n * C * HW + g * group_size
    s = tl.zeros([BLOCK], dtype=tl.float32)
    ss = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, group_size, BLOCK):
        idx = off + tl.arange(0, BLOCK)
        m = idx < group_size
        x = tl.load(x_ptr + base + idx, mask=m, other=0.).to(tl.float32)
        s += x
        ss += x * x
    mean = tl.sum(s, axis=0) / group_size
    var = tl.sum(ss, axis=0) / group_size - mean * mean
    rstd = tl.rsqrt(var + eps)
    for off in range(0, group_size, BLOCK):
        idx = off + tl.arange(0, BLOCK)
        m = idx < group_size
        c = g * cpg + idx // HW
        w = tl.load(w_ptr + c, mask=m, other=0.)
        b = tl.load(b_ptr + c, mask=m, other=0.)
        x = tl.load(x_ptr + base + idx, mask=m, other=0.).to(tl.float32)
        tl.store(y_ptr + base + idx, (x - mean) * rstd * w + b, mask=m)


# 2. Batch norm inference with a fused ReLU, a 2-D tile, 8 warps.
@triton.jit
def batchnorm_infer_kernel(x_ptr, y_ptr, mean_ptr, var_ptr, w_ptr, b_ptr, M, C, stride_xm, stride_ym, eps,
                           BM: tl.constexpr, BC: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rc = tl.program_id(1) * BC + tl.arange(0, BC)
    cm = rc < C
    mask = (rm[:, None] < M) & cm[None, :]
    x = tl.load(x_ptr + rm[:, None] * stride_xm + rc[None, :], mask=mask, other=0.)
    mean = tl.load(mean_ptr + rc, mask=cm, other=0.)
    var = tl.maximum(tl.load(var_ptr + rc, mask=cm, other=1.), 0.0)
    w = tl.load(w_ptr + rc, mask=cm, other=1.)
    b = tl.load(b_ptr + rc, mask=cm, other=0.)
    rstd = tl.rsqrt(var + eps)
    y = (x - mean[None, :]) * rstd[None, :] * w[None, :] + b[None, :]
    y = tl.maximum(y, 0.0)
    tl.store(y_ptr + rm[:, None] * stride_ym + rc[None, :], y, mask=mask)


# 3. Layer norm backward: dx per row, and dW/dB partial sums added atomically (f16 in, f32 stats).
@triton.jit
def ln_bwd_fused_kernel(x_ptr, dy_ptr, w_ptr, mean_ptr, rstd_ptr, dx_ptr, dw_ptr, db_ptr, stride, N,
                        BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    dy = tl.load(dy_ptr + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.).to(tl.float32)
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.)
    wdy = w * dy
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(dx_ptr + row * stride + cols, dx.to(tl.float16), mask=mask)
    tl.atomic_add(dw_ptr + cols, dy * xhat, mask=mask)
    tl.atomic_add(db_ptr + cols, dy, mask=mask)


# 4. Attention-score softmax: scale, additive f16 bias per key, a boolean keep mask (i8), 8 warps.
@triton.jit
def masked_scaled_softmax_kernel(s_ptr, keep_ptr, bias_ptr, out_ptr, n_rows, n_cols, stride, scale,
                                 BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    inb = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offs = rows[:, None] * stride + cols[None, :]
    s = tl.load(s_ptr + offs, mask=inb, other=0.)
    keep = (tl.load(keep_ptr + offs, mask=inb, other=0) & 3) != 0
    bias = tl.load(bias_ptr + cols, mask=cols < n_cols, other=0.).to(tl.float32)
    s = s * scale + bias[None, :]
    s = tl.where(keep & inb, s, float("-inf"))
    m = tl.max(s, axis=1)
    p = tl.exp(s - m[:, None])
    p = p / tl.sum(p, axis=1)[:, None]
    tl.store(out_ptr + offs, p, mask=inb)


# 5. Top-1 MoE router: softmax over experts, argmax, the top probability, per-expert counts.
@triton.jit
def top1_router_kernel(logits_ptr, probs_ptr, idx_ptr, counts_ptr, T, E, stride, BT: tl.constexpr,
                       BE: tl.constexpr):
    rows = tl.program_id(0) * BT + tl.arange(0, BT)
    cols = tl.arange(0, BE)
    rm = rows < T
    m = rm[:, None] & (cols[None, :] < E)
    x = tl.load(logits_ptr + rows[:, None] * stride + cols[None, :], mask=m, other=float("-inf"))
    mx = tl.max(x, axis=1)
    p = tl.exp(x - mx[:, None])
    denom = tl.sum(p, axis=1)
    top = tl.argmax(x, axis=1)
    tl.store(idx_ptr + rows, top, mask=rm)
    tl.store(probs_ptr + rows, 1.0 / denom, mask=rm)
    tl.atomic_add(counts_ptr + top, 1, mask=rm)


# 6. int8 per-row symmetric quantization, several rows per program: rint, clamp, cast.
@triton.jit
def quant_int8_rows2d_kernel(x_ptr, q_ptr, scale_ptr, M, N, stride_x, stride_q, BM: tl.constexpr,
                             BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride_x + cols[None, :], mask=mask, other=0.).to(tl.float32)
    amax = tl.maximum(tl.max(tl.abs(x), axis=1), 1e-8)
    scale = amax / 127.0
    q = libdevice.nearbyint(x / scale[:, None])
    q = tl.clamp(q, -128.0, 127.0).to(tl.int8)
    tl.store(q_ptr + rows[:, None] * stride_q + cols[None, :], q, mask=mask)
    tl.store(scale_ptr + rows, scale, mask=rows < M)


# 7. W8A16 matmul: int8 weights converted to f16 in the K loop, per-column scales in the epilogue.
@triton.jit
def w8a16_matmul_kernel(a_ptr, w_ptr, s_ptr, c_ptr, M, N, K, stride_am, stride_wk, stride_cm,
                        BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        kk = k + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.)
        w = tl.load(w_ptr + kk[:, None] * stride_wk + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0)
        acc += tl.dot(a, w.to(tl.float16))
    s = tl.load(s_ptr + rn, mask=rn < N, other=0.).to(tl.float32)
    c = acc * s[None, :]
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], c, mask=(rm[:, None] < M) & (rn[None, :] < N))


# 8. GEMV with transposed f16 weights (y = x @ W + b, W [K, N]): a column reduction per K block.
@triton.jit
def gemv_t_kernel(x_ptr, w_ptr, b_ptr, y_ptr, K, N, stride_wk, BN: tl.constexpr, BK: tl.constexpr):
    rn = tl.program_id(0) * BN + tl.arange(0, BN)
    acc = tl.zeros([BN], dtype=tl.float32)
    for k in range(0, K, BK):
        rk = k + tl.arange(0, BK)
        x = tl.load(x_ptr + rk, mask=rk < K, other=0.).to(tl.float32)
        w = tl.load(w_ptr + rk[:, None] * stride_wk + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N),
                    other=0.).to(tl.float32)
        acc += tl.sum(x[:, None] * w, axis=0)
    acc += tl.load(b_ptr + rn, mask=rn < N, other=0.)
    tl.store(y_ptr + rn, acc, mask=rn < N)


# 9. Column mean of f16 data: a loop over row blocks, each reduced over axis 0 in the loop.
@triton.jit
def col_mean_kernel(x_ptr, y_ptr, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    cols = tl.program_id(0) * BN + tl.arange(0, BN)
    acc = tl.zeros([BN], dtype=tl.float32)
    for r in range(0, M, BM):
        rows = r + tl.arange(0, BM)
        x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=(rows[:, None] < M) & (cols[None, :] < N),
                    other=0.).to(tl.float32)
        acc += tl.sum(x, axis=0)
    tl.store(y_ptr + cols, (acc / M).to(tl.float16), mask=cols < N)


# 10. A non-square f16 tile transposed through tl.trans and scaled, runtime strides on both sides.
@triton.jit
def trans_scale_f16_kernel(x_ptr, y_ptr, M, N, stride_x, stride_y, alpha, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    x = tl.load(x_ptr + rm[:, None] * stride_x + rn[None, :], mask=(rm[:, None] < M) & (rn[None, :] < N), other=0.)
    xt = tl.trans(x) * alpha
    tl.store(y_ptr + rn[:, None] * stride_y + rm[None, :], xt.to(tl.float16), mask=(rn[:, None] < N) & (rm[None, :] < M))


# 11. Fused residual add + layer norm (f16 in/out, f32 math), the sum written out too.
@triton.jit
def add_layernorm_kernel(x_ptr, r_ptr, w_ptr, b_ptr, y_ptr, sum_ptr, N, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    x += tl.load(r_ptr + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    tl.store(sum_ptr + row * stride + cols, x.to(tl.float16), mask=mask)
    mean = tl.sum(x, axis=0) / N
    xc = tl.where(mask, x - mean, 0.)
    var = tl.sum(xc * xc, axis=0) / N
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.).to(tl.float32)
    tl.store(y_ptr + row * stride + cols, (xc * rstd * w + b).to(tl.float16), mask=mask)


# 12. Bias + GELU (tanh approximation) on a 2-D f16 tile.
@triton.jit
def bias_gelu_tanh_kernel(x_ptr, b_ptr, y_ptr, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride + rn[None, :], mask=mask, other=0.).to(tl.float32)
    x = x + tl.load(b_ptr + rn, mask=rn < N, other=0.).to(tl.float32)[None, :]
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    y = 0.5 * x * (1.0 + libdevice.tanh(inner))
    tl.store(y_ptr + rm[:, None] * stride + rn[None, :], y.to(tl.float16), mask=mask)


# 13. Zero-padding copy (F.pad): a strided input view read at negative-looking offsets, masked.
@triton.jit
def pad2d_kernel(x_ptr, y_ptr, H, W, OH, OW, stride_xh, stride_xw, stride_yh, pad_t, pad_l, BH: tl.constexpr,
                 BW: tl.constexpr):
    oh = tl.program_id(0) * BH + tl.arange(0, BH)
    ow = tl.program_id(1) * BW + tl.arange(0, BW)
    ih = oh - pad_t
    iw = ow - pad_l
    valid = (ih[:, None] >= 0) & (ih[:, None] < H) & (iw[None, :] >= 0) & (iw[None, :] < W)
    x = tl.load(x_ptr + ih[:, None] * stride_xh + iw[None, :] * stride_xw, mask=valid, other=-1.0)
    tl.store(y_ptr + oh[:, None] * stride_yh + ow[None, :], x, mask=(oh[:, None] < OH) & (ow[None, :] < OW))


# 14. ELU and sign with 64-bit offsets and tl.where.
@triton.jit
def elu_sign_i64_kernel(x_ptr, y_ptr, sign_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.)
    y = tl.where(x > 0, x, alpha * (tl.exp(x) - 1.0))
    sgn = tl.where(x > 0, 1, tl.where(x < 0, -1, 0))
    tl.store(y_ptr + offs, y, mask=m)
    tl.store(sign_ptr + offs, sgn, mask=m)


# 15. Decode attention for one query row per head (grouped-query: heads share a KV head), tl.sum not tl.dot.
@triton.jit
def decode_attn_gqa_kernel(q_ptr, k_ptr, v_ptr, o_ptr, seq_len, sm_scale, stride_qh, stride_kh, stride_ks,
                           stride_oh, GROUP: tl.constexpr, BS: tl.constexpr, D: tl.constexpr):
    h = tl.program_id(0)
    kvh = h // GROUP
    d = tl.arange(0, D)
    s = tl.arange(0, BS)
    smask = s < seq_len
    q = tl.load(q_ptr + h * stride_qh + d).to(tl.float32)
    k = tl.load(k_ptr + kvh * stride_kh + s[:, None] * stride_ks + d[None, :], mask=smask[:, None], other=0.).to(tl.float32)
    scores = tl.sum(q[None, :] * k, axis=1) * sm_scale
    scores = tl.where(smask, scores, float("-inf"))
    p = tl.exp(scores - tl.max(scores, axis=0))
    p = p / tl.sum(p, axis=0)
    v = tl.load(v_ptr + kvh * stride_kh + s[:, None] * stride_ks + d[None, :], mask=smask[:, None], other=0.).to(tl.float32)
    o = tl.sum(p[:, None] * v, axis=0)
    tl.store(o_ptr + h * stride_oh + d, o)


@triton.jit
def _cummax_combine(v1, i1, v2, i2):
    take2 = v2 >= v1
    return tl.where(take2, v2, v1), tl.where(take2, i2, i1)


# 16. torch.cummax along rows: a (value, index) associative scan with a custom combine.
@triton.jit
def cummax_idx_kernel(x_ptr, v_ptr, i_ptr, n_rows, L: tl.constexpr, BM: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, L)
    offs = rows[:, None] * L + cols[None, :]
    m = rows[:, None] < n_rows
    x = tl.load(x_ptr + offs, mask=m, other=0.)
    idx = tl.broadcast_to(cols[None, :], (BM, L))
    v, i = tl.associative_scan((x, idx), axis=1, combine_fn=_cummax_combine)
    tl.store(v_ptr + offs, v, mask=m)
    tl.store(i_ptr + offs, i, mask=m)


# 17. Weighted histogram: computed bins, f32 weights and i32 counts added atomically per element.
@triton.jit
def weighted_hist_kernel(x_ptr, w_ptr, hist_ptr, cnt_ptr, n, lo, hi, NBINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.)
    w = tl.load(w_ptr + offs, mask=m, other=0.)
    b = ((x - lo) / (hi - lo) * NBINS).to(tl.int32)
    b = tl.minimum(tl.maximum(b, 0), NBINS - 1)
    tl.atomic_add(hist_ptr + b, w, mask=m)
    tl.atomic_add(cnt_ptr + b, 1, mask=m)


# 18. Depthwise 1-D convolution, 'same' padding, taps unrolled by tl.static_range.
@triton.jit
def dwconv1d_kernel(x_ptr, w_ptr, y_ptr, L, TAPS: tl.constexpr, BLOCK: tl.constexpr):
    ch = tl.program_id(1)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for t in tl.static_range(TAPS):
        idx = offs + (t - TAPS // 2)
        xv = tl.load(x_ptr + ch * L + idx, mask=(idx >= 0) & (idx < L), other=0.)
        acc += xv * tl.load(w_ptr + ch * TAPS + t)
    tl.store(y_ptr + ch * L + offs, acc, mask=offs < L)


# 19. A runtime-bounded while loop: the first column where the running sum of |x| passes a threshold.
@triton.jit
def first_exceed_kernel(x_ptr, out_ptr, n_cols, stride, thresh, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    total = 0.0
    start = 0
    found = n_cols
    while (start < n_cols) & (found == n_cols):
        cols = start + tl.arange(0, BLOCK)
        x = tl.abs(tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.))
        cs = tl.cumsum(x, axis=0) + total
        hit = (cs > thresh) & (cols < n_cols)
        found = tl.min(tl.where(hit, cols, n_cols), axis=0)
        total += tl.sum(x, axis=0)
        start += BLOCK
    tl.store(out_ptr + row, found)


# 20. Group-wise int4-range quantization (per 32 elements) through tl.reshape.
@triton.jit
def group_quant_kernel(x_ptr, q_ptr, s_ptr, n, GROUP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.).to(tl.float32)
    xg = tl.reshape(x, (BLOCK // GROUP, GROUP))
    scale = tl.maximum(tl.max(tl.abs(xg), axis=1), 1e-6) / 7.0
    q = tl.clamp(libdevice.nearbyint(xg / scale[:, None]), -8.0, 7.0).to(tl.int8)
    tl.store(q_ptr + offs, tl.reshape(q, (BLOCK, )), mask=offs < n)
    g = tl.program_id(0) * (BLOCK // GROUP) + tl.arange(0, BLOCK // GROUP)
    tl.store(s_ptr + g, scale)


def cdiv(a, b):
    return -(-a // b)


def cases():
    out = []
    N_, C, HW, G = 2, 6, 50, 3
    out.append(("group_norm_64_f32", group_norm_fwd_kernel, {"BLOCK": 64}, {"num_warps": 4}, [
        ("n2c6hw50g3", dict(x_ptr=Buf("f32", N_ * C * HW), w_ptr=Buf("f32", C), b_ptr=Buf("f32", C),
                            y_ptr=Buf("f32", N_ * C * HW, "sentinel", True), C=C, HW=HW, G=G, eps=F32(1e-5)),
         [N_ * G, 1, 1], 901)]))
    M, C = 50, 100
    out.append(("batchnorm_relu_16x64_w8_f32", batchnorm_infer_kernel, {"BM": 16, "BC": 64}, {"num_warps": 8}, [
        ("50x100", dict(x_ptr=Buf("f32", M * C), y_ptr=Buf("f32", M * C, "sentinel", True), mean_ptr=Buf("f32", C),
                        var_ptr=Buf("f32", C, "wide"), w_ptr=Buf("f32", C), b_ptr=Buf("f32", C), M=M, C=C,
                        stride_xm=C, stride_ym=C, eps=F32(1e-5)), [cdiv(M, 16), cdiv(C, 64), 1], 902)]))
    R, N = 6, 100
    out.append(("ln_bwd_fused_128_f16", ln_bwd_fused_kernel, {"BLOCK": 128}, {"num_warps": 4}, [
        ("rows6x100", dict(x_ptr=Buf("f16", R * N, "int3"), dy_ptr=Buf("f16", R * N, "int3"), w_ptr=Buf("f16", N, "int3"),
                           mean_ptr=Buf("f32", R, "int3"), rstd_ptr=Buf("f32", R, "int3"),
                           dx_ptr=Buf("f16", R * N, "sentinel", True), dw_ptr=Buf("f32", N, "zeros", True),
                           db_ptr=Buf("f32", N, "zeros", True), stride=N, N=N), [R, 1, 1], 903)]))
    R, N = 37, 100
    out.append(("masked_scaled_softmax_8x128_w8_f32", masked_scaled_softmax_kernel, {"BM": 8, "BN": 128},
                {"num_warps": 8}, [
                    ("rows37x100", dict(s_ptr=Buf("f32", R * N), keep_ptr=Buf("i8", R * N), bias_ptr=Buf("f16", N),
                                        out_ptr=Buf("f32", R * N, "sentinel", True), n_rows=R, n_cols=N, stride=N,
                                        scale=F32(0.3)), [cdiv(R, 8), 1, 1], 904)]))
    T, E = 50, 6
    out.append(("top1_router_16x8_f32", top1_router_kernel, {"BT": 16, "BE": 8}, {"num_warps": 4}, [
        ("t50e6", dict(logits_ptr=Buf("f32", T * E, "wide"), probs_ptr=Buf("f32", T, "sentinel", True),
                       idx_ptr=Buf("i32", T, "sentinel", True), counts_ptr=Buf("i32", E, "zeros", True), T=T, E=E,
                       stride=E), [cdiv(T, 16), 1, 1], 905)]))
    M, N = 20, 100
    out.append(("quant_int8_rows_4x128_f16", quant_int8_rows2d_kernel, {"BM": 4, "BN": 128}, {"num_warps": 4}, [
        ("20x100", dict(x_ptr=Buf("f16", M * N), q_ptr=Buf("i8", M * N, "sentinel", True),
                        scale_ptr=Buf("f32", M, "sentinel", True), M=M, N=N, stride_x=N, stride_q=N),
         [cdiv(M, 4), 1, 1], 906)]))
    M, N, K = 40, 48, 64
    out.append(("w8a16_matmul_16x32x32", w8a16_matmul_kernel, {"BM": 16, "BN": 32, "BK": 32}, {"num_warps": 4}, [
        ("40x48x64", dict(a_ptr=Buf("f16", M * K, "int3"), w_ptr=Buf("i8", K * N), s_ptr=Buf("f16", N),
                          c_ptr=Buf("f32", M * N, "sentinel", True), M=M, N=N, K=K, stride_am=K, stride_wk=N,
                          stride_cm=N), [cdiv(M, 16), cdiv(N, 32), 1], 907)]))
    K, N = 200, 100
    out.append(("gemv_t_64x32_f16", gemv_t_kernel, {"BN": 64, "BK": 32}, {"num_warps": 4}, [
        ("k200n100", dict(x_ptr=Buf("f16", K), w_ptr=Buf("f16", K * N), b_ptr=Buf("f32", N),
                          y_ptr=Buf("f32", N, "sentinel", True), K=K, N=N, stride_wk=N), [cdiv(N, 64), 1, 1], 908)]))
    M, N = 70, 90
    out.append(("col_mean_16x32_f16", col_mean_kernel, {"BM": 16, "BN": 32}, {"num_warps": 4}, [
        ("70x90", dict(x_ptr=Buf("f16", M * N), y_ptr=Buf("f16", N, "sentinel", True), M=M, N=N, stride=N),
         [cdiv(N, 32), 1, 1], 909)]))
    M, N = 40, 100
    out.append(("trans_scale_16x64_f16", trans_scale_f16_kernel, {"BM": 16, "BN": 64}, {"num_warps": 4}, [
        ("40x100", dict(x_ptr=Buf("f16", M * N), y_ptr=Buf("f16", M * N, "sentinel", True), M=M, N=N, stride_x=N,
                        stride_y=M, alpha=F32(0.5)), [cdiv(M, 16), cdiv(N, 64), 1], 910)]))
    R, N = 6, 200
    out.append(("add_layernorm_256_f16", add_layernorm_kernel, {"BLOCK": 256}, {"num_warps": 2}, [
        ("rows6x200", dict(x_ptr=Buf("f16", R * N), r_ptr=Buf("f16", R * N), w_ptr=Buf("f16", N, "int3"),
                           b_ptr=Buf("f16", N, "int3"), y_ptr=Buf("f16", R * N, "sentinel", True),
                           sum_ptr=Buf("f16", R * N, "sentinel", True), N=N, stride=N, eps=F32(1e-5)),
         [R, 1, 1], 911)]))
    M, N = 20, 100
    out.append(("bias_gelu_tanh_16x64_f16", bias_gelu_tanh_kernel, {"BM": 16, "BN": 64}, {"num_warps": 4}, [
        ("20x100", dict(x_ptr=Buf("f16", M * N, "wide"), b_ptr=Buf("f16", N, "int3"),
                        y_ptr=Buf("f16", M * N, "sentinel", True), M=M, N=N, stride=N), [cdiv(M, 16), cdiv(N, 64), 1],
         912)]))
    H, W, PT, PL = 20, 30, 3, 5
    OH, OW = H + 2 * PT, W + 2 * PL
    out.append(("pad2d_16x32_f32", pad2d_kernel, {"BH": 16, "BW": 32}, {"num_warps": 4}, [
        ("h20w30", dict(x_ptr=Buf("f32", H * 2 * W), y_ptr=Buf("f32", OH * OW, "sentinel", True), H=H, W=W, OH=OH,
                        OW=OW, stride_xh=2 * W, stride_xw=2, stride_yh=OW, pad_t=PT, pad_l=PL),
         [cdiv(OH, 16), cdiv(OW, 32), 1], 913)]))
    n = 1000
    out.append(("elu_sign_i64_256_f32", elu_sign_i64_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n1000", dict(x_ptr=Buf("f32", 1024, "wide"), y_ptr=Buf("f32", 1024, "sentinel", True),
                       sign_ptr=Buf("i32", 1024, "sentinel", True), n=n, alpha=F32(1.5)), [4, 1, 1], 914)]))
    Hq, G, S, D = 4, 2, 64, 32
    out.append(("decode_attn_gqa_64x32_f16", decode_attn_gqa_kernel, {"GROUP": G, "BS": S, "D": D}, {"num_warps": 4}, [
        ("len50", dict(q_ptr=Buf("f16", Hq * D, "int3"), k_ptr=Buf("f16", Hq // G * S * D, "int3"),
                       v_ptr=Buf("f16", Hq // G * S * D), o_ptr=Buf("f32", Hq * D, "sentinel", True), seq_len=50,
                       sm_scale=F32(0.25), stride_qh=D, stride_kh=S * D, stride_ks=D, stride_oh=D), [Hq, 1, 1], 915)]))
    R, L = 10, 64
    out.append(("cummax_idx_4x64_f32", cummax_idx_kernel, {"L": L, "BM": 4}, {"num_warps": 4}, [
        ("rows10", dict(x_ptr=Buf("f32", 12 * L, "int3"), v_ptr=Buf("f32", 12 * L, "sentinel", True),
                        i_ptr=Buf("i32", 12 * L, "sentinel", True), n_rows=R), [3, 1, 1], 916)]))
    out.append(("weighted_hist_16_256_f32", weighted_hist_kernel, {"NBINS": 16, "BLOCK": 256}, {"num_warps": 4}, [
        ("n1000", dict(x_ptr=Buf("f32", 1024, "wide"), w_ptr=Buf("f32", 1024), hist_ptr=Buf("f32", 16, "zeros", True),
                       cnt_ptr=Buf("i32", 16, "zeros", True), n=1000, lo=F32(-6.0), hi=F32(6.0)), [4, 1, 1], 917)]))
    CH, L = 3, 300
    out.append(("dwconv1d_k5_128_f32", dwconv1d_kernel, {"TAPS": 5, "BLOCK": 128}, {"num_warps": 4}, [
        ("c3l300", dict(x_ptr=Buf("f32", CH * L), w_ptr=Buf("f32", CH * 5), y_ptr=Buf("f32", CH * L, "sentinel", True),
                        L=L), [cdiv(L, 128), CH, 1], 918)]))
    R, N = 6, 100
    out.append(("first_exceed_while_16_f32", first_exceed_kernel, {"BLOCK": 16}, {"num_warps": 1}, [
        ("rows6x100-t300", dict(x_ptr=Buf("f32", R * N), out_ptr=Buf("i32", R, "sentinel", True), n_cols=N, stride=N,
                                thresh=F32(300.0)), [R, 1, 1], 919),
        ("rows6x100-t2000", dict(x_ptr=Buf("f32", R * N), out_ptr=Buf("i32", R, "sentinel", True), n_cols=N, stride=N,
                                 thresh=F32(2000.0)), [R, 1, 1], 920)]))
    out.append(("group_quant_g32_256_f16", group_quant_kernel, {"GROUP": 32, "BLOCK": 256}, {"num_warps": 4}, [
        ("n1000", dict(x_ptr=Buf("f16", 1024, "wide"), q_ptr=Buf("i8", 1024, "sentinel", True),
                       s_ptr=Buf("f32", 32, "sentinel", True), n=1000), [4, 1, 1], 921)]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "zoo2", "fx"))
    ap.add_argument("--only")
    ap.add_argument("--arch", action="append")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    all_cases, manifest = [], {}
    for arch in a.arch or ARCHS:
        warp = 32 if arch.startswith("gfx1") else 64
        target = GPUTarget("hip", arch, warp)
        backend = make_backend(target)
        for name, fn, cex, opts, launches in cases():
            if a.only and a.only not in name:
                continue
            sig, cexs, attrs, kinds = specialise(fn, launches[0][1], cex, backend)
            for _, la, _, _ in launches[1:]:
                assert specialise(fn, la, cex, backend)[:3] == (sig, cexs, attrs), name
            base = os.path.join(a.out, f"{name}.{arch}")
            try:
                k = triton.compile(ASTSource(fn, sig, cexs, attrs), target=target, options=opts)
            except Exception as e:  # noqa: BLE001
                msg = " ".join(str(e).split())[-300:]
                print(arch, name, "TRITON REFUSED:", msg, flush=True)
                try:
                    ttir = ttir_only(ASTSource(fn, sig, cexs, attrs), target, opts)
                except Exception:  # noqa: BLE001
                    continue
                open(base + ".ttir", "w").write(without_locations(ttir))
                manifest[f"{name}.{arch}"] = {"num_warps": opts["num_warps"], "kernel": re.search(
                    r"tt\.func public @(\w+)", ttir).group(1), "triton": "refused: " + msg}
                for cname, la, grid, seed in launches:
                    all_cases.append({
                        "id": f"zoo2/{name}/{cname}-{arch}", "form": "ttgir", "arch": arch,
                        "file": f"{name}.{arch}.ttgir", "kernel": manifest[f"{name}.{arch}"]["kernel"],
                        "args": case_args(la, kinds), "reference": fn.__name__,
                        "constexprs": dict({n_: v if isinstance(v, (int, float)) else str(v) for n_, v in cex.items()},
                                           **{n_: la[n_] for n_, ty in kinds if ty == "constexpr"}),
                        "grid": grid, "threads": opts["num_warps"] * warp, "seed": seed, "triton_refused": True,
                    })
                continue
            open(base + ".ttir", "w").write(without_locations(k.asm["ttir"]))
            open(base + ".triton.ttgir", "w").write(k.asm["ttgir"])
            open(base + ".amdgcn", "w").write(k.asm["amdgcn"])
            open(base + ".hsaco", "wb").write(strip_debug(k.asm["hsaco"]))
            manifest[f"{name}.{arch}"] = {"num_warps": opts["num_warps"], "kernel": k.metadata.name}
            for cname, la, grid, seed in launches:
                all_cases.append({
                    "id": f"zoo2/{name}/{cname}-{arch}", "form": "ttgir", "arch": arch,
                    "file": f"{name}.{arch}.ttgir", "kernel": k.metadata.name, "args": case_args(la, kinds),
                    "reference": fn.__name__,
                    "constexprs": dict({n_: v if isinstance(v, (int, float)) else str(v) for n_, v in cex.items()},
                                       **{n_: la[n_] for n_, ty in kinds if ty == "constexpr"}),
                    "grid": grid, "threads": opts["num_warps"] * warp, "seed": seed,
                    "triton_lds_bytes": k.metadata.shared,
                })
            print(arch, name, "ok", flush=True)
    if not a.only:
        json.dump(all_cases, open(os.path.join(a.out, "cases.json"), "w"), indent=1)
        json.dump(manifest, open(os.path.join(a.out, "manifest.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
