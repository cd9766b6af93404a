#!/usr/bin/env python3
"""Compile kernels as people write them (the Triton tutorials' kernels and the common hand- and
LLM-written ones: vector add, softmax, matmuls, norms, attention, activations, gathers, scans)
with Triton 3.6.0 (the oracle's Python, CPU only, explicit HIP targets) and write their final
TTGIR, AMDGCN and code objects next to the lowering tests, with the emulator cases that run them:

    ../shared/oracle/oracle-python scripts/people_ttgir.py [--out tests/fixtures/lower/ttgir-people]
        [--num-stages N]

Each kernel is compiled as its usual launch would compile it: the arguments specialised the way
Triton's JIT specialises a launch with torch tensors on a HIP device (pointers 16-byte aligned and
within 2 GB: `tt.divisibility` 16 and `tt.pointer_range` 32; integers divisible by 16 get
`tt.divisibility` 16; an integer equal to 1, such as a contiguous tensor's inner stride, becomes a
constant), Triton's default options but for the launch's `num_warps` (4 unless the kernel is
launched otherwise, as the tutorials' softmax and layer norm are) and `num_stages` where the
tutorial sets it. Targets: gfx942, gfx950 (64 lanes) and gfx1100 (32 lanes).

Written to the output folder: `<kernel>.<arch>.ttgir` (final TTGIR), `<kernel>.<arch>.amdgcn`
(Triton's assembly, compared by counts) and `<kernel>.<arch>.hsaco` (Triton's code object with its
debug sections left out, for `check_ttgir.py --triton`), `triton-counts.<arch>.json` (Triton's
instruction counts, counted as the oracle's codegen_anchor.py counts them), `cases.json` (the
emulator's cases: arguments, a grid of several workgroups, runtime sizes that leave masked tails)
and, where Triton refuses a (kernel, arch) pair, `refusals.txt` with Triton's message (Triton 3.6.0
compiles them all).
The references of the cases are in `refs.py` beside them (written by hand).
"""

import argparse
import json
import os
import re
import struct
import sys
import tempfile

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="triton-cache-"))

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton._C.libtriton import native_specialize_impl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler.compiler import ASTSource, make_backend  # noqa: E402

ORACLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "oracle")
sys.path.insert(0, ORACLE)
from codegen_anchor import count  # noqa: E402

ARCHS = ["gfx942", "gfx950", "gfx1100"]

# ---------------------------------------------------------------------------------------------
# The kernels, as the tutorials and common code write them.
# ---------------------------------------------------------------------------------------------


# Tutorial 01: vector addition.
@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


# Tutorial 02: fused softmax, persistent over rows.
@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols, BLOCK_SIZE: tl.constexpr,
                   num_stages: tl.constexpr):
    # starting row of the program
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        # The stride represents how much we need to increase the pointer to advance 1 row
        row_start_ptr = input_ptr + row_idx * input_row_stride
        # The block size is the next power of two greater than n_cols, so we can fit each
        # row in a single block
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        # Load the row into SRAM, using a mask since BLOCK_SIZE may be > than n_cols
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float('inf'))
        # Subtract maximum for numerical stability
        row_minus_max = row - tl.max(row, axis=0)
        # Note that exponentiation in Triton is fast but approximate (i.e., think __expf in CUDA)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        # Write back output to DRAM
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)


# Tutorial 03: matrix multiplication with grouped ordering of the program ids.
@triton.jit
def matmul_kernel(
        # Pointers to matrices
        a_ptr, b_ptr, c_ptr,
        # Matrix dimensions
        M, N, K,
        # The stride variables represent how much to increase the ptr by when moving by 1
        # element in a particular dimension.
        stride_am, stride_ak,  #
        stride_bk, stride_bn,  #
        stride_cm, stride_cn,
        # Meta-parameters
        BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,  #
        GROUP_SIZE_M: tl.constexpr,  #
):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    tl.assume(pid_m >= 0)
    tl.assume(pid_n >= 0)
    tl.assume(stride_am > 0)
    tl.assume(stride_ak > 0)
    tl.assume(stride_bn > 0)
    tl.assume(stride_bk > 0)
    tl.assume(stride_cm > 0)
    tl.assume(stride_cn > 0)

    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(tl.float16)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


# Tutorial 05: layer norm, forward pass.
@triton.jit
def _layer_norm_fwd_fused(
    X,  # pointer to the input
    Y,  # pointer to the output
    W,  # pointer to the weights
    B,  # pointer to the biases
    Mean,  # pointer to the mean
    Rstd,  # pointer to the 1/std
    stride,  # how much to increase the pointer when moving by 1 row
    N,  # number of columns in X
    eps,  # epsilon to avoid division by zero
    BLOCK_SIZE: tl.constexpr,
):
    # Map the program id to the row of X and Y it should compute.
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    # Compute mean
    mean = 0
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    # Compute variance
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    # Write mean / rstd
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    # Normalize and apply linear transformation
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        # Write output
        tl.store(Y + cols, y, mask=mask)


# Tutorial 06: fused attention, forward pass (simplified: non-causal, one head dimension, plain
# pointers, the KV loop masked for a sequence length that is not a multiple of the block).
@triton.jit
def _attn_fwd(Q, K, V, sm_scale, M, Out,  #
              stride_qh, stride_qm,  #
              stride_kh, stride_kn,  #
              stride_vh, stride_vn,  #
              stride_oh, stride_om,  #
              N_CTX,  #
              HEAD_DIM: tl.constexpr,  #
              BLOCK_M: tl.constexpr,  #
              BLOCK_N: tl.constexpr,  #
              ):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    # initialize offsets
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q_ptrs = Q + off_hz * stride_qh + offs_m[:, None] * stride_qm + offs_d[None, :]
    k_ptrs = K + off_hz * stride_kh + offs_n[None, :] * stride_kn + offs_d[:, None]
    v_ptrs = V + off_hz * stride_vh + offs_n[:, None] * stride_vn + offs_d[None, :]
    # initialize pointer to m and l
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    # load scales
    qk_scale = sm_scale
    qk_scale *= 1.44269504  # 1/log(2)
    # load q: it will stay in SRAM throughout
    q = tl.load(q_ptrs, mask=offs_m[:, None] < N_CTX, other=0.0)
    # loop over k, v and update accumulator
    for start_n in range(0, N_CTX, BLOCK_N):
        # -- compute qk ----
        k = tl.load(k_ptrs + start_n * stride_kn, mask=(start_n + offs_n[None, :]) < N_CTX, other=0.0)
        qk = tl.dot(q, k)
        qk = tl.where((start_n + offs_n[None, :]) < N_CTX, qk, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        # -- update m_i and l_i
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        # -- update output accumulator --
        acc = acc * alpha[:, None]
        # update acc
        v = tl.load(v_ptrs + start_n * stride_vn, mask=(start_n + offs_n[:, None]) < N_CTX, other=0.0)
        p = p.to(tl.float16)
        acc = tl.dot(p, v, acc)
        # update m_i and l_i
        m_i = m_ij
    # epilogue
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    m_ptrs = M + off_hz * N_CTX + offs_m
    tl.store(m_ptrs, m_i, mask=offs_m < N_CTX)
    o_ptrs = Out + off_hz * stride_oh + offs_m[:, None] * stride_om + offs_d[None, :]
    tl.store(o_ptrs, acc.to(Out.type.element_ty), mask=offs_m[:, None] < N_CTX)


# GELU, the exact (erf) form.
@triton.jit
def gelu_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offsets, y, mask=mask)


# RMSNorm, one row per program.
@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, y_ptr, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    ms = tl.sum(x * x, axis=0) / N
    rstd = tl.rsqrt(ms + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    y = x * rstd * w
    tl.store(y_ptr + row * stride + cols, y, mask=mask)


# Embedding lookup, one token per program, over a shard of the vocabulary (ids outside
# [vocab_start, vocab_end) give zeros, as a vocabulary-parallel embedding does).
@triton.jit
def embedding_kernel(idx_ptr, weight_ptr, out_ptr, vocab_start, vocab_end, D, stride_w, stride_o,
                     BLOCK_D: tl.constexpr):
    row = tl.program_id(0)
    ids = tl.load(idx_ptr + row)
    in_shard = (ids >= vocab_start) & (ids < vocab_end)
    ids = ids - vocab_start
    cols = tl.arange(0, BLOCK_D)
    mask = cols < D
    x = tl.load(weight_ptr + ids * stride_w + cols, mask=mask & in_shard, other=0.0)
    tl.store(out_ptr + row * stride_o + cols, x, mask=mask)


# Split-K matmul: each program of axis 1 reduces a slice of K and adds its f32 tile atomically.
@triton.jit
def matmul_splitk_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                         stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                         SPLIT_K: tl.constexpr):
    pid = tl.program_id(0)
    pid_k = tl.program_id(1)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(K, 0, -BLOCK_K * SPLIT_K):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * SPLIT_K * stride_ak
        b_ptrs += BLOCK_K * SPLIT_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.atomic_add(c_ptrs, acc, mask=mask)


# Tutorial 04: low-memory dropout with a seed.
@triton.jit
def _seeded_dropout(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    # compute memory offsets of elements handled by this instance
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    # load data from x
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    # randomly prune it
    random = tl.rand(seed, offsets)
    x_keep = random > p
    # write-back
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)


# Argmax along rows, a block of rows per program.
@triton.jit
def argmax_kernel(x_ptr, out_ptr, n_rows, n_cols, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=-float("inf"))
    idx = tl.argmax(x, axis=1)
    tl.store(out_ptr + rows, idx, mask=rows < n_rows)


# Inclusive prefix sum along rows, a block of rows per program.
@triton.jit
def cumsum_kernel(x_ptr, y_ptr, n_rows, n_cols, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offs = rows[:, None] * stride + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.cumsum(x, axis=1)
    tl.store(y_ptr + offs, y, mask=mask)


# SwiGLU forward: silu(a) * b, one row per program.
@triton.jit
def swiglu_kernel(a_ptr, b_ptr, c_ptr, stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    a = tl.load(a_ptr + row * stride + cols, mask=mask, other=0).to(tl.float32)
    b = tl.load(b_ptr + row * stride + cols, mask=mask, other=0)
    c = a * tl.sigmoid(a) * b
    tl.store(c_ptr + row * stride + cols, c, mask=mask)


# Rotary embedding (half rotation): one token per program, all its heads; cos and sin per
# position for half the head dimension.
@triton.jit
def rope_kernel(x_ptr, cos_ptr, sin_ptr, out_ptr, stride_xs, stride_xh, stride_cs, n_heads, HEAD_DIM: tl.constexpr,
                BLOCK_H: tl.constexpr):
    pos = tl.program_id(0)
    HALF: tl.constexpr = HEAD_DIM // 2
    offs_h = tl.arange(0, BLOCK_H)
    offs_d = tl.arange(0, HALF)
    cos = tl.load(cos_ptr + pos * stride_cs + offs_d)
    sin = tl.load(sin_ptr + pos * stride_cs + offs_d)
    mask = offs_h[:, None] < n_heads
    x_base = x_ptr + pos * stride_xs + offs_h[:, None] * stride_xh + offs_d[None, :]
    x1 = tl.load(x_base, mask=mask, other=0.0)
    x2 = tl.load(x_base + HALF, mask=mask, other=0.0)
    o1 = x1 * cos[None, :] - x2 * sin[None, :]
    o2 = x2 * cos[None, :] + x1 * sin[None, :]
    o_base = out_ptr + pos * stride_xs + offs_h[:, None] * stride_xh + offs_d[None, :]
    tl.store(o_base, o1, mask=mask)
    tl.store(o_base + HALF, o2, mask=mask)


# Cross-entropy forward: loss = logsumexp(row) - row[label], one row per program; a label
# outside [0, n_cols) (ignore_index, -100, and padding) gives a loss of 0.
@triton.jit
def cross_entropy_fwd_kernel(logits_ptr, labels_ptr, loss_ptr, lse_ptr, n_cols, stride, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    logits_ptr += row * stride
    cols = tl.arange(0, BLOCK_SIZE)
    logits = tl.load(logits_ptr + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
    label = tl.load(labels_ptr + row)
    m = tl.max(logits, axis=0)
    lse = m + tl.log(tl.sum(tl.exp(logits - m), axis=0))
    valid = (label >= 0) & (label < n_cols)
    x_label = tl.load(logits_ptr + label, mask=valid, other=0.0).to(tl.float32)
    loss = tl.where(valid, lse - x_label, 0.0)
    tl.store(loss_ptr + row, loss)
    tl.store(lse_ptr + row, lse)


# int8 matmul with per-row (A) and per-column (B) f32 scales: int8 dot into an int32
# accumulator, scaled in f32.
@triton.jit
def int8_matmul_kernel(a_ptr, b_ptr, c_ptr, a_scale_ptr, b_scale_ptr, M, N, K, stride_am, stride_ak, stride_bk,
                       stride_bn, stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < K - k * BLOCK_K), other=0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < K - k * BLOCK_K) & (offs_n[None, :] < N), other=0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    a_s = tl.load(a_scale_ptr + offs_m, mask=offs_m < M, other=0.0)
    b_s = tl.load(b_scale_ptr + offs_n, mask=offs_n < N, other=0.0)
    c = acc.to(tl.float32) * a_s[:, None] * b_s[None, :]
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


# Tutorial 09: persistent matmul (the plain-pointer version), a fixed grid looping over tiles.
@triton.jit
def _compute_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M, NUM_SMS):
    group_id = tile_id // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (tile_id % group_size_m)
    pid_n = (tile_id % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def matmul_kernel_persistent(a_ptr, b_ptr, c_ptr,  #
                             M, N, K,  #
                             stride_am, stride_ak,  #
                             stride_bk, stride_bn,  #
                             stride_cm, stride_cn,  #
                             BLOCK_SIZE_M: tl.constexpr,  #
                             BLOCK_SIZE_N: tl.constexpr,  #
                             BLOCK_SIZE_K: tl.constexpr,  #
                             GROUP_SIZE_M: tl.constexpr,  #
                             NUM_SMS: tl.constexpr,  #
                             ):
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n

    # NOTE: There is currently a bug in blackwell pipelining that means it can't handle a value being
    # used in both the prologue and epilogue, so we duplicate the counters as a work-around.
    tile_id_c = start_pid - NUM_SMS

    offs_k_for_mask = tl.arange(0, BLOCK_SIZE_K)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n

    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True):
        pid_m, pid_n = _compute_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M, NUM_SMS)
        start_m = pid_m * BLOCK_SIZE_M
        start_n = pid_n * BLOCK_SIZE_N
        offs_am = start_m + tl.arange(0, BLOCK_SIZE_M)
        offs_bn = start_n + tl.arange(0, BLOCK_SIZE_N)
        offs_am = tl.where(offs_am < M, offs_am, 0)
        offs_bn = tl.where(offs_bn < N, offs_bn, 0)
        offs_am = tl.max_contiguous(tl.multiple_of(offs_am, BLOCK_SIZE_M), BLOCK_SIZE_M)
        offs_bn = tl.max_contiguous(tl.multiple_of(offs_bn, BLOCK_SIZE_N), BLOCK_SIZE_N)

        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_SIZE_K + tl.arange(0, BLOCK_SIZE_K)
            a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
            b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

            a = tl.load(a_ptrs, mask=offs_k_for_mask[None, :] < K - ki * BLOCK_SIZE_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k_for_mask[:, None] < K - ki * BLOCK_SIZE_K, other=0.0)
            accumulator = tl.dot(a, b, accumulator)

        tile_id_c += NUM_SMS
        pid_m, pid_n = _compute_pid(tile_id_c, num_pid_in_group, num_pid_m, GROUP_SIZE_M, NUM_SMS)
        offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        c = accumulator.to(tl.float16)
        tl.store(c_ptrs, c, mask=c_mask)


# fp8: every conversion to and from the four 8-bit float types, a sweep over bit patterns built
# from the element index (`x.to(F8)` rounds to nearest even, as `tt.fp_to_fp` with `rtne`).
@triton.jit
def fp8_casts(y32_ptr, y16_ptr, ybf16_ptr, u32_ptr, u16_ptr, ubf16_ptr, n, BLOCK: tl.constexpr, F8: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    # f32 inputs: the top 16 bits run through every pattern, the low 16 are 0, 0x5555, 0xaaaa, 0xffff.
    x32 = (((i * 40503) & 0xFFFF) << 16) | ((i & 3) * 0x5555)
    tl.store(y32_ptr + i, x32.to(tl.float32, bitcast=True).to(F8), mask=m)
    x16 = (i & 0xFFFF).to(tl.int16)
    tl.store(y16_ptr + i, x16.to(tl.float16, bitcast=True).to(F8), mask=m)
    tl.store(ybf16_ptr + i, x16.to(tl.bfloat16, bitcast=True).to(F8), mask=m)
    code = (i & 0xFF).to(tl.int8).to(F8, bitcast=True)
    tl.store(u32_ptr + i, code.to(tl.float32).to(tl.int32, bitcast=True), mask=m)
    tl.store(u16_ptr + i, code.to(tl.float16).to(tl.int16, bitcast=True).to(tl.int32), mask=m)
    tl.store(ubf16_ptr + i, code.to(tl.bfloat16).to(tl.int16, bitcast=True).to(tl.int32), mask=m)


# Per-token dynamic fp8 quantization (as LLM serving stacks write it): each row scaled by its
# absolute maximum over the fp8 type's largest value, clamped, rounded to fp8.
@triton.jit
def quant_fp8_rows_kernel(x_ptr, y_ptr, scale_ptr, n_cols, stride, FP8_MAX: tl.constexpr, BLOCK: tl.constexpr,
                          F8: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    amax = tl.maximum(tl.max(tl.abs(x)), 1e-10)
    scale = amax / FP8_MAX
    y = tl.clamp(x / scale, -FP8_MAX, FP8_MAX).to(F8)
    tl.store(y_ptr + row * stride + cols, y, mask=mask)
    tl.store(scale_ptr + row, scale)


# Block pointers (as the older tutorials and many LLM kernels write a matmul): `tl.make_block_ptr`,
# `tl.advance`, loads and the store with `boundary_check` (Triton rewrites them into pointers and
# masks before TTGIR).
@triton.jit
def block_ptr_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                            stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_bp = tl.make_block_ptr(a_ptr, (M, K), (stride_am, stride_ak), (pid_m * BLOCK_M, 0), (BLOCK_M, BLOCK_K), (1, 0))
    b_bp = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, stride_bn), (0, pid_n * BLOCK_N), (BLOCK_K, BLOCK_N), (1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, K, BLOCK_K):
        a = tl.load(a_bp, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_bp, boundary_check=(0, 1), padding_option="zero")
        acc += tl.dot(a, b)
        a_bp = tl.advance(a_bp, (0, BLOCK_K))
        b_bp = tl.advance(b_bp, (BLOCK_K, 0))
    c_bp = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, stride_cn), (pid_m * BLOCK_M, pid_n * BLOCK_N),
                             (BLOCK_M, BLOCK_N), (1, 0))
    tl.store(c_bp, acc.to(tl.float16), boundary_check=(0, 1))


# A linear layer's epilogue: bias and leaky ReLU after the K loop, the pid split by `tl.cdiv`.
@triton.jit
def matmul_bias_leaky_relu_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                                  BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    num_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_n
    pid_n = pid % num_n
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        kk = k * BLOCK_K + rk
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * N + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    acc += tl.load(bias_ptr + rn, mask=rn < N, other=0.0)[None, :]
    acc = tl.where(acc >= 0, acc, 0.01 * acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


# Softmax backward: dx = y * (dy - sum(dy * y)) per row.
@triton.jit
def softmax_bwd_kernel(dout_ptr, out_ptr, din_ptr, stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    dy = tl.load(dout_ptr + row * stride + cols, mask=mask, other=0.0)
    y = tl.load(out_ptr + row * stride + cols, mask=mask, other=0.0)
    dot = tl.sum(dy * y, axis=0)
    tl.store(din_ptr + row * stride + cols, y * (dy - dot), mask=mask)


# Row offsets in 64 bits (`pid.to(tl.int64) * stride`), as kernels write them against overflow.
@triton.jit
def scale_rows_i64_kernel(x_ptr, y_ptr, stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * stride + cols, x * 2.0 + row.to(tl.float32), mask=mask)


# The weight-gradient accumulation of tutorial 05's layer-norm backward: rows add into one of
# GROUP partial sums, each guarded by a spin lock (`tl.atomic_cas` in a `while`, `tl.atomic_xchg`),
# the first writer of a group marked by a count.
@triton.jit
def dw_accumulate_lock_kernel(DW, Lock, X, stride, N, GROUP: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.0)
    lock_id = row % GROUP
    Lock += lock_id
    Count = Lock + GROUP
    DW = DW + lock_id * N + cols
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    if count == 0:
        tl.atomic_xchg(Count, 1)
    else:
        x += tl.load(DW, mask=mask)
    tl.store(DW, x, mask=mask)
    tl.atomic_xchg(Lock, 0)


# `tl.sort` (a bitonic network of reshapes, reductions and selects) and a reversed `tl.cumprod`.
@triton.jit
def sort_cumprod_kernel(x_ptr, sorted_ptr, cumprod_ptr, N: tl.constexpr):
    offs = tl.program_id(0) * N + tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(sorted_ptr + offs, tl.sort(x))
    tl.store(cumprod_ptr + offs, tl.cumprod(x, 0, reverse=True))


# A 3-D grid: `tl.program_id(2)`.
@triton.jit
def grid3d_kernel(x_ptr, y_ptr, stride_z, stride_y, BLOCK: tl.constexpr):
    px = tl.program_id(0)
    py = tl.program_id(1)
    pz = tl.program_id(2)
    offs = pz * stride_z + py * stride_y + px * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) + pz * 100 + py * 10 + px)


# Accumulating into half precision: `tl.atomic_add` of f16 and bf16 values (a partial sum per
# program added into the output, as split-K and MoE kernels write to a 16-bit result).
@triton.jit
def atomic_add_half_kernel(out16_ptr, outbf16_ptr, x_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.atomic_add(out16_ptr + offs % 64, x.to(tl.float16), mask=mask)
    tl.atomic_add(outbf16_ptr + offs % 64, x.to(tl.bfloat16), mask=mask)


# A matmul of f32 tensors (`input_precision="ieee"`, AMD's default): MFMA on CDNA,
# multiply-adds in registers on RDNA 3, which has no f32 WMMA.
@triton.jit
def matmul_f32_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BLOCK_M: tl.constexpr,
                      BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, PRECISION: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision=PRECISION)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


# A fused-MoE style matmul: the rows of A are tokens looked up through a sorted id list
# (`tl.load(a_ptr + tok[:, None] * K + …)`, a gather feeding `tt.dot`), masked where the id
# is not a token.
@triton.jit
def moe_gather_matmul_kernel(a_ptr, b_ptr, c_ptr, ids_ptr, num_tokens, K, N, BLOCK_M: tl.constexpr,
                             BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    offs_m = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    tok = tl.load(ids_ptr + offs_m)
    tok_mask = (tok >= 0) & (tok < num_tokens)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + tok[:, None] * K + (k + rk)[None, :], mask=tok_mask[:, None], other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + offs_m[:, None] * N + rn[None, :], acc.to(tl.float16))


# A bf16 matmul (operands cast from f32 masters, as mixed-precision code does) with a bf16
# result.
@triton.jit
def matmul_bf16_kernel(a_ptr, b_ptr, c_ptr, K, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :]).to(tl.bfloat16)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :]).to(tl.bfloat16)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16))


# An fp8 matmul with per-tensor scales, its operands quantized on the fly (`a.to(F8)`).
@triton.jit
def matmul_fp8_kernel(a_ptr, b_ptr, c_ptr, a_scale_ptr, b_scale_ptr, K, N, BLOCK_M: tl.constexpr,
                      BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, F8: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :]).to(F8)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :]).to(F8)
        acc += tl.dot(a, b)
    acc = acc * tl.load(a_scale_ptr) * tl.load(b_scale_ptr)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


# int4 weights packed two to a byte: unpack by masks and shifts on 8-bit integers,
# `tl.interleave` the halves, scale.
@triton.jit
def int4_dequant_kernel(q_ptr, scale_ptr, out_ptr, N: tl.constexpr):
    offs = tl.program_id(0) * N + tl.arange(0, N)
    q = tl.load(q_ptr + offs)
    lo = (q & 0xF) - 8
    hi = ((q >> 4) & 0xF) - 8
    w = tl.interleave(lo, hi).to(tl.float16) * tl.load(scale_ptr)
    tl.store(out_ptr + tl.program_id(0) * 2 * N + tl.arange(0, 2 * N), w)


# `tl.flip` (reshape, xor-sum trick).
@triton.jit
def flip_kernel(x_ptr, y_ptr, N: tl.constexpr):
    offs = tl.program_id(0) * N + tl.arange(0, N)
    tl.store(y_ptr + offs, tl.flip(tl.load(x_ptr + offs), 0))


# Decoding attention over a paged KV cache: a block table maps each logical block of the
# sequence to a page (a data index), an online softmax over the pages, scalars carried by the
# loop, a branch on a runtime length.
@triton.jit
def paged_decode_kernel(q_ptr, k_cache, v_cache, block_tables, out_ptr, seq_len, PAGE: tl.constexpr,
                        D: tl.constexpr, MAX_PAGES: tl.constexpr):
    d = tl.arange(0, D)
    q = tl.load(q_ptr + d).to(tl.float32)
    m_i = -float("inf")
    l_i = 0.0
    acc = tl.zeros((D, ), dtype=tl.float32)
    for b in range(0, MAX_PAGES):
        start = b * PAGE
        if start < seq_len:
            page = tl.load(block_tables + b)
            t = tl.arange(0, PAGE)
            kv_mask = (start + t) < seq_len
            k = tl.load(k_cache + page * PAGE * D + t[:, None] * D + d[None, :], mask=kv_mask[:, None],
                        other=0.0).to(tl.float32)
            s = tl.sum(k * q[None, :], axis=1)
            s = tl.where(kv_mask, s, -float("inf"))
            m_new = tl.maximum(m_i, tl.max(s, 0))
            p = tl.exp(s - m_new)
            alpha = tl.exp(m_i - m_new)
            v = tl.load(v_cache + page * PAGE * D + t[:, None] * D + d[None, :], mask=kv_mask[:, None],
                        other=0.0).to(tl.float32)
            acc = acc * alpha + tl.sum(p[:, None] * v, axis=0)
            l_i = l_i * alpha + tl.sum(p, 0)
            m_i = m_new
    tl.store(out_ptr + d, acc / l_i)


# Causal attention forward (one head): the KV loop stops at the diagonal block, scores above the
# diagonal are masked to -inf.
@triton.jit
def causal_attn_kernel(Q, K, V, O, N_CTX, sm_scale, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       D: tl.constexpr):
    start_m = tl.program_id(0)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, D)
    q = tl.load(Q + offs_m[:, None] * D + offs_d[None, :], mask=offs_m[:, None] < N_CTX, other=0.0)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, D], dtype=tl.float32)
    hi = tl.minimum((start_m + 1) * BLOCK_M, N_CTX)
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(K + cols[None, :] * D + offs_d[:, None], mask=cols[None, :] < N_CTX, other=0.0)
        qk = tl.dot(q, k) * sm_scale
        qk = tl.where(offs_m[:, None] >= cols[None, :], qk, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp(qk - m_ij[:, None])
        alpha = tl.math.exp(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V + cols[:, None] * D + offs_d[None, :], mask=cols[:, None] < N_CTX, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_ij
    tl.store(O + offs_m[:, None] * D + offs_d[None, :], (acc / l_i[:, None]).to(tl.float16),
             mask=offs_m[:, None] < N_CTX)


# `tl.gather` along rows: each row permuted by its own index row (as top-k and MoE routing code
# reorders values), and `tl.histogram` of small integers.
@triton.jit
def gather_histogram_kernel(x_ptr, idx_ptr, out_ptr, hist_ptr, N: tl.constexpr, ROWS: tl.constexpr,
                            BINS: tl.constexpr):
    offs = tl.arange(0, ROWS)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    idx = tl.load(idx_ptr + offs) & (N - 1)
    tl.store(out_ptr + offs, tl.gather(x, idx, 1))
    values = tl.load(idx_ptr + tl.arange(0, ROWS * N)) & (BINS - 1)
    tl.store(hist_ptr + tl.arange(0, BINS), tl.histogram(values, BINS))


# Writing keys into a paged KV cache (as serving stacks do): each token's slot from a mapping,
# an early `return` for padding tokens (`slot < 0`) and for programs past the tokens (Triton
# branches between blocks: `cf.cond_br`).
@triton.jit
def reshape_and_cache_kernel(key_ptr, cache_ptr, slot_mapping_ptr, num_tokens, D: tl.constexpr):
    tok = tl.program_id(0)
    if tok >= num_tokens:
        return
    slot = tl.load(slot_mapping_ptr + tok).to(tl.int64)
    if slot < 0:
        return
    d = tl.arange(0, D)
    tl.store(cache_ptr + slot * D + d, tl.load(key_ptr + tok * D + d))



# Layer norm backward's final dW/dB: partial sums of a [M, N] buffer reduced over rows (`tl.sum(axis=0)`
# of a 2-D tile carried through the loop).
@triton.jit
def ln_dwdb_kernel(DW, DB, FINAL_DW, FINAL_DB, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    dw = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for i in range(0, M, BLOCK_M):
        rows = i + tl.arange(0, BLOCK_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        dw += tl.load(DW + offs, mask=mask, other=0.)
        db += tl.load(DB + offs, mask=mask, other=0.)
    tl.store(FINAL_DW + cols, tl.sum(dw, axis=0), mask=cols < N)
    tl.store(FINAL_DB + cols, tl.sum(db, axis=0), mask=cols < N)


# Rotary embedding on interleaved pairs: `tl.split(tl.reshape(x, (HALF, 2)))`, `tl.join`, reshape back.
@triton.jit
def rope_interleaved_kernel(x_ptr, cos_ptr, sin_ptr, out_ptr, HALF: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, 2 * HALF)
    x = tl.load(x_ptr + row * 2 * HALF + offs)
    x1, x2 = tl.split(tl.reshape(x, (HALF, 2)))
    c = tl.load(cos_ptr + row * HALF + tl.arange(0, HALF)); s = tl.load(sin_ptr + row * HALF + tl.arange(0, HALF))
    y = tl.reshape(tl.join(x1 * c - x2 * s, x1 * s + x2 * c), (2 * HALF,))
    tl.store(out_ptr + row * 2 * HALF + offs, y)


# Cross-entropy backward: `softmax - onehot(label)`, ignored labels (-100) give zeros.
@triton.jit
def ce_bwd_kernel(logits_ptr, labels_ptr, lse_ptr, dlogits_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    x = tl.load(logits_ptr + row * stride + cols, mask=m, other=-float("inf"))
    label = tl.load(labels_ptr + row)
    p = tl.exp(x - tl.load(lse_ptr + row))
    g = tl.where(cols == label, p - 1.0, p)
    g = tl.where(label == -100, 0.0, g)
    tl.store(dlogits_ptr + row * stride + cols, g, mask=m)


# A prefix sum down the columns (`tl.cumsum(x, 0)` of a [64, 16] tile: the scanned axis spread over
# lanes and warps).
@triton.jit
def colscan_kernel(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, tl.cumsum(x, 0))


# Matrix-vector product as decoding kernels write it: `tl.sum(a * x[None, :], 1)` over K blocks.
@triton.jit
def gemv_kernel(a_ptr, x_ptr, y_ptr, M, K, BM: tl.constexpr, BK: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    acc = tl.zeros((BM,), dtype=tl.float32)
    for k in range(0, K, BK):
        cols = k + tl.arange(0, BK)
        a = tl.load(a_ptr + rows[:, None] * K + cols[None, :], mask=(rows[:, None] < M) & (cols[None, :] < K), other=0.).to(tl.float32)
        x = tl.load(x_ptr + cols, mask=cols < K, other=0.).to(tl.float32)
        acc += tl.sum(a * x[None, :], 1)
    tl.store(y_ptr + rows, acc.to(tl.float16), mask=rows < M)


# A batched matmul: one program per batch element.
@triton.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    b = tl.program_id(0)
    rm = tl.arange(0, M); rn = tl.arange(0, N); rk = tl.arange(0, K)
    a = tl.load(a_ptr + b * M * K + rm[:, None] * K + rk[None, :])
    w = tl.load(b_ptr + b * K * N + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + b * M * N + rm[:, None] * N + rn[None, :], tl.dot(a, w).to(tl.float16))


# Welford's running mean and variance over a row, carried per lane, merged at the end.
@triton.jit
def welford_kernel(x_ptr, mean_ptr, var_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    mean = tl.zeros((BLOCK,), dtype=tl.float32); m2 = tl.zeros((BLOCK,), dtype=tl.float32); cnt = tl.zeros((BLOCK,), dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.)
        valid = cols < N
        cnt_new = cnt + valid.to(tl.float32)
        delta = x - mean
        mean = tl.where(valid, mean + delta / tl.maximum(cnt_new, 1.0), mean)
        m2 = tl.where(valid, m2 + delta * (x - mean), m2)
        cnt = cnt_new
    tot = tl.sum(cnt, 0)
    mu = tl.sum(mean * cnt, 0) / tot
    var = (tl.sum(m2, 0) + tl.sum(cnt * (mean - mu) * (mean - mu), 0)) / tot
    tl.store(mean_ptr + row, mu); tl.store(var_ptr + row, var)


# A dot with only 16 rows (decode-sized M), the accumulator passed to `tl.dot`.
@triton.jit
def dot_small_m_kernel(a_ptr, b_ptr, c_ptr, K, N: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, 16); rn = tl.arange(0, N); rk = tl.arange(0, BK)
    acc = tl.zeros((16, N), dtype=tl.float32)
    for k in range(0, K, BK):
        acc = tl.dot(tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :]), tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :]), acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


# vLLM's fused residual add + RMS norm: the sum written back over the residual, f32 math.
@triton.jit
def fused_add_rmsnorm_kernel(x_ptr, res_ptr, w_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=m, other=0.).to(tl.float32)
    r = tl.load(res_ptr + row * stride + cols, mask=m, other=0.).to(tl.float32)
    x = x + r
    tl.store(res_ptr + row * stride + cols, x.to(tl.float16), mask=m)
    var = tl.sum(x * x, axis=0) / n_cols
    w = tl.load(w_ptr + cols, mask=m, other=0.).to(tl.float32)
    tl.store(x_ptr + row * stride + cols, (x * tl.rsqrt(var + eps) * w).to(tl.float16), mask=m)


# Online softmax over a row longer than the block: a running max and sum, then a second pass.
@triton.jit
def online_softmax_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    m_i = -float("inf")
    l_i = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
        m_new = tl.maximum(m_i, tl.max(x, axis=0))
        l_i = l_i * tl.exp(m_i - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m_i = m_new
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
        tl.store(y_ptr + row * stride + cols, tl.exp(x - m_i) / l_i, mask=cols < n_cols)


# A tiled transpose through `tl.trans`, its mask transposed with it.
@triton.jit
def transpose2d_kernel(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask)
    tl.store(y_ptr + rn[:, None] * M + rm[None, :], tl.trans(x), mask=tl.trans(mask))


# A grid larger than the rows: programs past the end return at once.
@triton.jit
def early_return_kernel(x_ptr, y_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    if row >= n_rows:
        return
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.)
    tl.store(y_ptr + row * n_cols + cols, x * 2.0, mask=cols < n_cols)


@triton.jit
def _linear_combine(a1, b1, a2, b2):
    return a1 * a2, b1 * a2 + b2


# A first-order linear recurrence h = a*h + b (state-space models) as a two-operand scan.
@triton.jit
def linear_recurrence_kernel(a_ptr, b_ptr, h_ptr, L: tl.constexpr):
    offs = tl.program_id(0) * L + tl.arange(0, L)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    _, h = tl.associative_scan((a, b), axis=0, combine_fn=_linear_combine)
    tl.store(h_ptr + offs, h)


# Log-softmax of f16 rows into f32, with 64-bit row offsets.
@triton.jit
def log_softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    s = tl.sum(tl.where(cols < n_cols, tl.exp(x - m), 0.0), axis=0)
    tl.store(y_ptr + row * n_cols + cols, x - m - tl.log(s), mask=cols < n_cols)


# 1-D max pooling, window 2 stride 2: two strided loads.
@triton.jit
def maxpool1d_kernel(x_ptr, y_ptr, n_out, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n_out
    a = tl.load(x_ptr + 2 * offs, mask=m, other=-float("inf"))
    b = tl.load(x_ptr + 2 * offs + 1, mask=m, other=-float("inf"))
    tl.store(y_ptr + offs, tl.maximum(a, b), mask=m)


# Complex products of interleaved pairs, through tl.split and tl.join.
@triton.jit
def complex_mul_kernel(x_ptr, y_ptr, z_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    pairs = offs[:, None] * 2 + tl.arange(0, 2)[None, :]
    xr, xi = tl.split(tl.load(x_ptr + pairs))
    yr, yi = tl.split(tl.load(y_ptr + pairs))
    tl.store(z_ptr + pairs, tl.join(xr * yr - xi * yi, xr * yi + xi * yr))


# A binary search per element (torch.searchsorted): data-dependent, masked gathers.
@triton.jit
def searchsorted_kernel(sorted_ptr, q_ptr, out_ptr, n_q, N: tl.constexpr, LOG: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n_q
    q = tl.load(q_ptr + offs, mask=m, other=0.)
    lo = tl.zeros([BLOCK], dtype=tl.int32)
    hi = tl.full([BLOCK], N, dtype=tl.int32)
    for _ in tl.static_range(LOG):
        mid = (lo + hi) // 2
        v = tl.load(sorted_ptr + mid, mask=mid < N, other=float("inf"))
        go_right = v < q
        lo = tl.where(go_right, mid + 1, lo)
        hi = tl.where(go_right, hi, mid)
    tl.store(out_ptr + offs, lo, mask=m)


# A 3-D view of a flat block summed over its middle axis.
@triton.jit
def sum_middle_kernel(x_ptr, y_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    x = tl.reshape(tl.load(x_ptr + tl.arange(0, A * B * C)), (A, B, C))
    tl.store(y_ptr + tl.arange(0, A)[:, None] * C + tl.arange(0, C)[None, :], tl.sum(x, axis=1))


# Variable-length segments: loop bounds loaded from memory.
@triton.jit
def varlen_sum_kernel(x_ptr, starts_ptr, out_ptr, BLOCK: tl.constexpr):
    seq = tl.program_id(0)
    start = (tl.load(starts_ptr + seq) + 3) * 20
    end = start + 10 + 30 * seq
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(start, end, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < end, other=0.)
    tl.store(out_ptr + seq, tl.sum(acc, axis=0))


# The absolute maximum for fp8 scaling: a block maximum, then a float atomic max.
@triton.jit
def amax_kernel(x_ptr, amax_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.)
    tl.atomic_max(amax_ptr, tl.max(tl.abs(x), axis=0))


# A grid-stride loop: a runtime step of num_programs blocks.
@triton.jit
def grid_stride_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    for start in range(tl.program_id(0) * BLOCK, n, tl.num_programs(0) * BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n)
        tl.store(y_ptr + offs, x * 3.0 + 1.0, mask=offs < n)


# tl.histogram of a block, added to the global bins atomically.
@triton.jit
def block_histogram_kernel(x_ptr, out_ptr, NB: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    h = tl.histogram(tl.abs(tl.load(x_ptr + offs)) % NB, NB)
    tl.atomic_add(out_ptr + tl.arange(0, NB), h)


# The position of each row's minimum (tl.min with return_indices).
@triton.jit
def argmin_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=float("inf"))
    _, i = tl.min(x, axis=0, return_indices=True)
    tl.store(out_ptr + row, i)


# Shifts (arithmetic and logical), bit masks, C-style division and remainder on int32.
@triton.jit
def bit_ops_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    u = x.to(tl.uint32, bitcast=True)
    r = ((x >> 3) ^ (u >> 5).to(tl.int32, bitcast=True)) + (x & 0xFF) * 3 - (x | 7) % 11 + x // 5
    tl.store(y_ptr + offs, r, mask=m)


# Division and remainder by a runtime divisor.
@triton.jit
def runtime_divmod_kernel(x_ptr, y_ptr, n, d, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1)
    tl.store(y_ptr + offs, (x // d) * 100 + x % d + tl.where(x > 0, 1, -1), mask=m)


# Clamp, sigmoid, exp2, log2 and fma on one element.
@triton.jit
def clamp_sigmoid_kernel(x_ptr, y_ptr, n, lo, hi, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.)
    y = tl.sigmoid(tl.clamp(x, lo, hi)) + tl.exp2(x * 0.25) - tl.log2(tl.abs(x) + 1.0) + tl.fma(x, x, 1.0)
    tl.store(y_ptr + offs, y, mask=m)


@triton.jit
def _sum_pairs(a, b, c, d):
    return a + c, b + d


# A reduce of a tuple (sum and sum of squares) with its own combine function.
@triton.jit
def tuple_reduce_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.)
    s, q = tl.reduce((x, x * x), 0, _sum_pairs)
    tl.store(out_ptr + row * 2, s)
    tl.store(out_ptr + row * 2 + 1, q)


# A @ B^T (attention's Q K^T) with the second operand transposed by tl.trans.
@triton.jit
def dot_abt_kernel(a_ptr, b_ptr, c_ptr, M, N, K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=rm[:, None] < M, other=0.)
    b = tl.load(b_ptr + rn[:, None] * K + rk[None, :], mask=rn[:, None] < N, other=0.)
    c = tl.dot(a, tl.trans(b))
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c, mask=(rm[:, None] < M) & (rn[None, :] < N))


# An int8 dot accumulating in int32.
@triton.jit
def int8_dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b, out_dtype=tl.int32))


# Whole-tile reductions of a 2-D block: a maximum, a sum of sums, per-column argmax.
@triton.jit
def full_reduce_2d_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(out_ptr, tl.max(x))
    tl.store(out_ptr + 1, tl.sum(tl.sum(x, axis=1), axis=0))
    tl.store(out_ptr + 2 + tl.arange(0, N), tl.argmax(x, axis=0).to(tl.float32))


# Two blocks interleaved element by element.
@triton.jit
def interleave_kernel(x_ptr, y_ptr, z_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    z = tl.interleave(tl.load(x_ptr + offs), tl.load(y_ptr + offs))
    tl.store(z_ptr + tl.program_id(0) * 2 * BLOCK + tl.arange(0, 2 * BLOCK), z)


# A reversed cumulative product.
@triton.jit
def cumprod_rev_kernel(x_ptr, y_ptr, L: tl.constexpr):
    offs = tl.program_id(0) * L + tl.arange(0, L)
    tl.store(y_ptr + offs, tl.cumprod(tl.load(x_ptr + offs), axis=0, reverse=True))


# Masked atomics of three kinds: a relaxed counter, a minimum, an exchange.
@triton.jit
def atomics_mix_kernel(x_ptr, cnt_ptr, mn_ptr, xchg_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    tl.atomic_add(cnt_ptr + (offs % 4), 1, mask=m, sem="relaxed")
    tl.atomic_min(mn_ptr + (offs % 8), x, mask=m)
    tl.atomic_xchg(xchg_ptr + offs, x + 1, mask=m)


# A spin lock taken with compare-and-swap around a read-modify-write.
@triton.jit
def spin_lock_kernel(lock_ptr, acc_ptr, hits_ptr):
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    v = tl.load(acc_ptr)
    tl.store(acc_ptr, v + tl.program_id(0) + 1)
    tl.atomic_xchg(lock_ptr, 0)
    tl.store(hits_ptr + tl.program_id(0), 1)


# Row offsets in 64 bits: a row minus its mean.
@triton.jit
def center_rows_i64_kernel(x_ptr, y_ptr, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK).to(tl.int64)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < stride, other=0.)
    tl.store(y_ptr + row * stride + cols, x - tl.sum(x, axis=0) / stride, mask=cols < stride)


# Bytes reinterpreted as uint8, scaled in int32 and stored back as int8.
@triton.jit
def uint8_scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    u = tl.load(x_ptr + offs, mask=m, other=0).to(tl.uint8, bitcast=True)
    tl.store(y_ptr + offs, ((u.to(tl.int32) * 3 + 7) >> 2).to(tl.int8), mask=m)


# A leaky ReLU and a row cumsum of a tile masked on both sides.
@triton.jit
def leaky_cumsum_2d_kernel(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0.)
    x = tl.where(x > 0, x, 0.1 * x)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], tl.cumsum(x, axis=1), mask=mask)


# ---------------------------------------------------------------------------------------------
# Launches: each kernel's arguments in order (a buffer, or a scalar's value), its constexprs,
# options and grid; each case a launch of the same specialisation.
# ---------------------------------------------------------------------------------------------


class Buf:
    """A tensor argument: dtype (f32, f16, i32, i8), element count, the emulator's initial data
    (random, zeros, sentinel, int3, small, wide: check_ttgir.py's init_values), written or not."""

    def __init__(self, dtype, elems, init="random", out=False, tt=None):
        self.dtype, self.elems, self.init, self.out = dtype, elems, init, out
        self.tt = tt or TT_DTYPE[dtype]  # the pointer's element type in the kernel (an fp8 type: bytes here)


class F32(float):
    """A float scalar argument (Triton passes Python floats as fp32)."""


def cdiv(a, b):
    return -(-a // b)


def f16_matmul_case(M, N, K):
    return dict(a_ptr=Buf("f16", M * K), b_ptr=Buf("f16", K * N), c_ptr=Buf("f16", M * N, "sentinel", True), M=M, N=N, K=K,
                stride_am=K, stride_ak=1, stride_bk=N, stride_bn=1, stride_cm=N, stride_cn=1)


def cases():
    """(kernel name, function, constexprs, options, [(case name, args, grid, seed)][, variant]);
    a variant sets Triton's AMD knobs for that compilation and may name its archs."""
    out = []

    def vadd(n, B):
        return dict(x_ptr=Buf("f32", cdiv(n, B) * B), y_ptr=Buf("f32", cdiv(n, B) * B),
                    output_ptr=Buf("f32", cdiv(n, B) * B, "sentinel", True), n_elements=n)
    out.append(("vector_add_256_f32", add_kernel, {"BLOCK_SIZE": 256}, {"num_warps": 4}, [
        ("n1500", vadd(1500, 256), [6, 1, 1], 101),
        ("n1000", vadd(1000, 256), [4, 1, 1], 102),
    ]))

    # The tutorial launches a persistent grid of min(programs that fit, n_rows) with num_warps 8
    # and num_stages 2 (4 where a CU has more than 200 KB of shared memory).
    def softmax(rows, cols, grid):
        return dict(output_ptr=Buf("f32", rows * cols, "sentinel", True), input_ptr=Buf("f32", rows * cols),
                    input_row_stride=cols, output_row_stride=cols, n_rows=rows, n_cols=cols)
    out.append(("softmax_persistent_256_f32", softmax_kernel, {"BLOCK_SIZE": 256, "num_stages": 2},
                {"num_warps": 8, "num_stages": 2}, [
                    ("rows37x200-grid8", softmax(37, 200, 8), [8, 1, 1], 111),
                    ("rows5x130-grid3", softmax(5, 130, 3), [3, 1, 1], 112),
                ]))

    mm = f16_matmul_case(100, 90, 70)
    out.append(("matmul_grouped_32x32x32_f16", matmul_kernel,
                {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 2}, {"num_warps": 4}, [
                    ("100x90x70", mm, [cdiv(100, 32) * cdiv(90, 32), 1, 1], 121),
                ]))

    # The tutorial: BLOCK_SIZE = next power of 2 of N (at most 64 KB of a row), num_warps =
    # min(max(BLOCK_SIZE // 256, 1), 8); x, w, b and y in f16, mean and rstd in f32.
    def layernorm(rows, N):
        return dict(X=Buf("f16", rows * N), Y=Buf("f16", rows * N, "sentinel", True), W=Buf("f16", N),
                    B=Buf("f16", N), Mean=Buf("f32", rows, "sentinel", True), Rstd=Buf("f32", rows, "sentinel", True),
                    stride=N, N=N, eps=F32(1e-5))
    out.append(("layernorm_fwd_512_f16", _layer_norm_fwd_fused, {"BLOCK_SIZE": 512}, {"num_warps": 2}, [
        ("rows10x300", layernorm(10, 300), [10, 1, 1], 131),
    ]))

    H, S, D = 2, 100, 64
    attn = dict(Q=Buf("f16", H * S * D, "int3"), K=Buf("f16", H * S * D, "int3"), V=Buf("f16", H * S * D, "int3"),
                sm_scale=F32(0.125), M=Buf("f32", H * S, "sentinel", True), Out=Buf("f16", H * S * D, "sentinel", True),
                stride_qh=S * D, stride_qm=D, stride_kh=S * D, stride_kn=D, stride_vh=S * D, stride_vn=D,
                stride_oh=S * D, stride_om=D, N_CTX=S)
    out.append(("attn_fwd_64x32_d64_f16", _attn_fwd, {"HEAD_DIM": 64, "BLOCK_M": 64, "BLOCK_N": 32}, {"num_warps": 4}, [
        ("heads2-ctx100", attn, [cdiv(S, 64), H, 1], 141),
    ]))

    def gelu(n, B):
        return dict(x_ptr=Buf("f32", cdiv(n, B) * B, "wide"), y_ptr=Buf("f32", cdiv(n, B) * B, "sentinel", True),
                    n_elements=n)
    out.append(("gelu_erf_512_f32", gelu_kernel, {"BLOCK_SIZE": 512}, {"num_warps": 4}, [
        ("n2000", gelu(2000, 512), [4, 1, 1], 151),
    ]))

    def rmsnorm(rows, N):
        return dict(x_ptr=Buf("f32", rows * N, "wide"), w_ptr=Buf("f32", N, "wide"),
                    y_ptr=Buf("f32", rows * N, "sentinel", True), stride=N, N=N, eps=F32(1e-6))
    out.append(("rmsnorm_256_f32", rmsnorm_kernel, {"BLOCK_SIZE": 256}, {"num_warps": 4}, [
        ("rows13x200", rmsnorm(13, 200), [13, 1, 1], 161),
    ]))

    # ids are the emulator's "small" integers (-100..100); the shard holds ids 10..73.
    T, V, Dm = 37, 64, 100
    emb = dict(idx_ptr=Buf("i32", T, "small"), weight_ptr=Buf("f32", V * Dm), out_ptr=Buf("f32", T * Dm, "sentinel", True),
               vocab_start=10, vocab_end=10 + V, D=Dm, stride_w=Dm, stride_o=Dm)
    out.append(("embedding_128_f32", embedding_kernel, {"BLOCK_D": 128}, {"num_warps": 4}, [
        ("tokens37-vocab64x100", emb, [T, 1, 1], 171),
    ]))

    M, N, K = 70, 50, 200
    sk = dict(a_ptr=Buf("f16", M * K), b_ptr=Buf("f16", K * N), c_ptr=Buf("f32", M * N, "zeros", True), M=M, N=N, K=K,
              stride_am=K, stride_ak=1, stride_bk=N, stride_bn=1, stride_cm=N, stride_cn=1)
    out.append(("matmul_splitk_32x32x32_f16", matmul_splitk_kernel,
                {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32, "SPLIT_K": 4}, {"num_warps": 4}, [
                    ("70x50x200-split4", sk, [cdiv(M, 32) * cdiv(N, 32), 4, 1], 181),
                ]))
    # The same with Triton's buffer atomics off (AMDGCN_USE_BUFFER_ATOMICS=0): `tt.atomic_rmw` and
    # global atomics on CDNA, which the emulator executes (it does not model buffer atomics).
    # gfx1100 has no buffer atomics to turn off (its default is this code already).
    out.append(("matmul_splitk_global_atomics_32x32x32_f16", matmul_splitk_kernel,
                {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32, "SPLIT_K": 4}, {"num_warps": 4}, [
                    ("70x50x200-split4", sk, [cdiv(M, 32) * cdiv(N, 32), 4, 1], 182),
                ], {"use_buffer_atomics": False, "archs": ["gfx942", "gfx950"]}))

    def dropout(n, B, p, seed):
        return dict(x_ptr=Buf("f32", cdiv(n, B) * B), output_ptr=Buf("f32", cdiv(n, B) * B, "sentinel", True),
                    n_elements=n, p=F32(p), seed=seed)
    out.append(("dropout_256_f32", _seeded_dropout, {"BLOCK_SIZE": 256}, {"num_warps": 4}, [
        ("n1000-p0.5", dropout(1000, 256, 0.5, 123), [4, 1, 1], 191),
        ("n700-p0.3", dropout(700, 256, 0.3, 98765), [3, 1, 1], 192),
    ]))

    def rows2d(rows, cols, out_dtype, per_row):
        return dict(x_ptr=Buf("f32", rows * cols),
                    out_ptr=Buf(out_dtype, rows if per_row else rows * cols, "sentinel", True),
                    n_rows=rows, n_cols=cols, stride=cols)
    out.append(("argmax_rows_16x128_f32", argmax_kernel, {"BLOCK_M": 16, "BLOCK_N": 128}, {"num_warps": 4}, [
        ("rows50x100", rows2d(50, 100, "i32", True), [cdiv(50, 16), 1, 1], 201),
    ]))
    cs = rows2d(40, 100, "f32", False)
    cs["y_ptr"] = cs.pop("out_ptr")
    cs = {k: cs[k] for k in ("x_ptr", "y_ptr", "n_rows", "n_cols", "stride")}
    out.append(("cumsum_rows_16x128_f32", cumsum_kernel, {"BLOCK_M": 16, "BLOCK_N": 128}, {"num_warps": 4}, [
        ("rows40x100", cs, [cdiv(40, 16), 1, 1], 211),
    ]))

    rows, cols = 7, 300
    sw = dict(a_ptr=Buf("f32", rows * cols, "wide"), b_ptr=Buf("f32", rows * cols, "wide"),
              c_ptr=Buf("f32", rows * cols, "sentinel", True), stride=cols, n_cols=cols)
    out.append(("swiglu_512_f32", swiglu_kernel, {"BLOCK_SIZE": 512}, {"num_warps": 4}, [
        ("rows7x300", sw, [rows, 1, 1], 221),
    ]))

    S, Hh, D = 20, 6, 64
    rope = dict(x_ptr=Buf("f32", S * Hh * D), cos_ptr=Buf("f32", S * D // 2), sin_ptr=Buf("f32", S * D // 2),
                out_ptr=Buf("f32", S * Hh * D, "sentinel", True), stride_xs=Hh * D, stride_xh=D, stride_cs=D // 2,
                n_heads=Hh)
    out.append(("rope_8x64_f32", rope_kernel, {"HEAD_DIM": 64, "BLOCK_H": 8}, {"num_warps": 4}, [
        ("seq20-heads6", rope, [S, 1, 1], 231),
    ]))

    # labels are the emulator's "small" integers (-100..100): about half are classes of the
    # 100, the rest (-100 among them) are ignored.
    R, C = 30, 100
    ce = dict(logits_ptr=Buf("f32", R * C), labels_ptr=Buf("i32", R, "small"), loss_ptr=Buf("f32", R, "sentinel", True),
              lse_ptr=Buf("f32", R, "sentinel", True), n_cols=C, stride=C)
    out.append(("cross_entropy_fwd_128_f32", cross_entropy_fwd_kernel, {"BLOCK_SIZE": 128}, {"num_warps": 4}, [
        ("rows30x100", ce, [R, 1, 1], 241),
    ]))

    M, N, K = 70, 50, 100
    i8 = dict(a_ptr=Buf("i8", M * K), b_ptr=Buf("i8", K * N), c_ptr=Buf("f32", M * N, "sentinel", True),
              a_scale_ptr=Buf("f32", M, "wide"), b_scale_ptr=Buf("f32", N, "wide"), M=M, N=N, K=K,
              stride_am=K, stride_ak=1, stride_bk=N, stride_bn=1, stride_cm=N, stride_cn=1)
    out.append(("int8_matmul_scaled_32x32x64", int8_matmul_kernel, {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 64},
                {"num_warps": 4}, [
                    ("70x50x100", i8, [cdiv(M, 32), cdiv(N, 32), 1], 251),
                ]))

    # NUM_SMS as a small GPU's count, the grid min(NUM_SMS, tiles) as the tutorial launches it.
    pm = f16_matmul_case(100, 90, 70)
    out.append(("matmul_persistent_32x32x32_f16", matmul_kernel_persistent,
                {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8, "NUM_SMS": 4},
                {"num_warps": 4}, [
                    ("100x90x70-sms4", pm, [4, 1, 1], 261),
                ]))

    # fp8 sweeps: n = 65536 covers every f16/bf16 pattern and every f32 top half; n = 4096 a
    # spread of them (element i's pattern steps through the range).
    for f8, short in (("fp8e4nv", "e4m3fn"), ("fp8e5", "e5m2"), ("fp8e4b8", "e4m3fnuz"), ("fp8e5b16", "e5m2fnuz")):
        def sweep(n):
            return dict(y32_ptr=Buf("i8", n, "sentinel", True, f8), y16_ptr=Buf("i8", n, "sentinel", True, f8),
                        ybf16_ptr=Buf("i8", n, "sentinel", True, f8), u32_ptr=Buf("i32", n, "sentinel", True),
                        u16_ptr=Buf("i32", n, "sentinel", True), ubf16_ptr=Buf("i32", n, "sentinel", True), n=n)
        out.append((f"fp8_casts_{short}", fp8_casts, {"BLOCK": 1024, "F8": getattr(tl, {
            "fp8e4nv": "float8e4nv", "fp8e5": "float8e5", "fp8e4b8": "float8e4b8", "fp8e5b16": "float8e5b16"}[f8])},
            {"num_warps": 4}, [
                ("n4000", sweep(4000), [4, 1, 1], 271),
                ("n65536", sweep(65536), [64, 1, 1], 272),
            ]))

    # Quantization to the fp8 type a serving stack picks: FNUZ on gfx942, OCP on gfx950; gfx1100
    # (no fp8 hardware) converts either in software.
    def quant(rows, cols, f8):
        return dict(x_ptr=Buf("f32", rows * cols, "wide"), y_ptr=Buf("i8", rows * cols, "sentinel", True, f8),
                    scale_ptr=Buf("f32", rows, "sentinel", True), n_cols=cols, stride=cols)
    for f8, short, fmax, archs in (("fp8e4b8", "e4m3fnuz", 240.0, ["gfx942", "gfx1100"]),
                                   ("fp8e4nv", "e4m3fn", 448.0, ["gfx950", "gfx1100"])):
        out.append((f"quant_fp8_rows_{short}_256_f32", quant_fp8_rows_kernel,
                    {"FP8_MAX": fmax, "BLOCK": 256, "F8": getattr(tl, {"fp8e4b8": "float8e4b8", "fp8e4nv": "float8e4nv"}[f8])},
                    {"num_warps": 4}, [
                        ("rows9x200", quant(9, 200, f8), [9, 1, 1], 281),
                    ], {"archs": archs}))
    bp = f16_matmul_case(70, 50, 90)
    out.append(("block_ptr_matmul_32x32x32_f16", block_ptr_matmul_kernel,
                {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32}, {"num_warps": 4}, [
                    ("70x50x90", bp, [cdiv(70, 32), cdiv(50, 32), 1], 291),
                ]))
    M, N, K = 70, 50, 90
    lin = dict(a_ptr=Buf("f16", M * K), b_ptr=Buf("f16", K * N), bias_ptr=Buf("f32", N),
               c_ptr=Buf("f16", M * N, "sentinel", True), M=M, N=N, K=K)
    out.append(("matmul_bias_leaky_relu_32x32x32_f16", matmul_bias_leaky_relu_kernel,
                {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32}, {"num_warps": 4}, [
                    ("70x50x90", lin, [cdiv(M, 32) * cdiv(N, 32), 1, 1], 301),
                ]))
    R, C = 11, 200
    sb = dict(dout_ptr=Buf("f32", R * C), out_ptr=Buf("f32", R * C), din_ptr=Buf("f32", R * C, "sentinel", True),
              stride=C, n_cols=C)
    out.append(("softmax_bwd_256_f32", softmax_bwd_kernel, {"BLOCK_SIZE": 256}, {"num_warps": 4}, [
        ("rows11x200", sb, [R, 1, 1], 311),
    ]))
    R, C = 9, 200
    s64 = dict(x_ptr=Buf("f32", R * C), y_ptr=Buf("f32", R * C, "sentinel", True), stride=C, n_cols=C)
    out.append(("scale_rows_i64_256_f32", scale_rows_i64_kernel, {"BLOCK_SIZE": 256}, {"num_warps": 4}, [
        ("rows9x200", s64, [R, 1, 1], 321),
    ]))
    R, C, G = 20, 200, 8
    dw = dict(DW=Buf("f32", G * C, "zeros", True), Lock=Buf("i32", 2 * G, "zeros", True), X=Buf("f32", R * C),
              stride=C, N=C)
    out.append(("dw_accumulate_lock_256_f32", dw_accumulate_lock_kernel, {"GROUP": G, "BLOCK_SIZE": 256},
                {"num_warps": 4}, [
                    ("rows20x200-group8", dw, [R, 1, 1], 331),
                ]))
    sc = dict(x_ptr=Buf("f32", 3 * 128, "int3"), sorted_ptr=Buf("f32", 3 * 128, "sentinel", True),
              cumprod_ptr=Buf("f32", 3 * 128, "sentinel", True))
    out.append(("sort_cumprod_128_f32", sort_cumprod_kernel, {"N": 128}, {"num_warps": 4}, [
        ("rows3x128", sc, [3, 1, 1], 341),
    ]))
    g3 = dict(x_ptr=Buf("f32", 2 * 3 * 4 * 64), y_ptr=Buf("f32", 2 * 3 * 4 * 64, "sentinel", True),
              stride_z=3 * 4 * 64, stride_y=4 * 64)
    out.append(("grid3d_64_f32", grid3d_kernel, {"BLOCK": 64}, {"num_warps": 1}, [
        ("4x3x2", g3, [4, 3, 2], 351),
    ]))
    ah = dict(out16_ptr=Buf("f16", 64, "zeros", True), outbf16_ptr=Buf("i32", 32, "zeros", True, "bf16"),
              x_ptr=Buf("f32", 256, "int3"), n=200)
    out.append(("atomic_add_half_256", atomic_add_half_kernel, {"BLOCK_SIZE": 256}, {"num_warps": 4}, [
        ("n200", ah, [1, 1, 1], 361),
    ]))
    M, N, K = 50, 40, 70
    for precision in ("ieee", ):
        mf = dict(a_ptr=Buf("f32", M * K), b_ptr=Buf("f32", K * N), c_ptr=Buf("f32", M * N, "sentinel", True),
                  M=M, N=N, K=K, stride_am=K, stride_bk=N, stride_cm=N)
        out.append((f"matmul_f32_{precision}_32x32x16", matmul_f32_kernel,
                    {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16, "PRECISION": precision}, {"num_warps": 4}, [
                        ("50x40x70", mf, [cdiv(M, 32), cdiv(N, 32), 1], 371),
                    ]))
    T, K, N, M = 50, 64, 32, 64
    moe = dict(a_ptr=Buf("f16", T * K), b_ptr=Buf("f16", K * N), c_ptr=Buf("f16", M * N, "sentinel", True),
               ids_ptr=Buf("i32", M, "small"), num_tokens=T, K=K, N=N)
    out.append(("moe_gather_matmul_32x32x32_f16", moe_gather_matmul_kernel,
                {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32}, {"num_warps": 4}, [
                    ("ids64-tokens50", moe, [M // 32, 1, 1], 381),
                ]))
    M, N, K = 64, 64, 64
    bf = dict(a_ptr=Buf("f32", M * K), b_ptr=Buf("f32", K * N), c_ptr=Buf("i32", M * N // 2, "sentinel", True, "bf16"),
              K=K, N=N)
    out.append(("matmul_bf16_32x32x32", matmul_bf16_kernel, {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32},
                {"num_warps": 4}, [
                    ("64x64x64", bf, [2, 2, 1], 391),
                ]))
    for f8, short, archs in (("float8e4b8", "e4m3fnuz", ["gfx942"]), ("float8e4nv", "e4m3fn", ["gfx950", "gfx1100"])):
        M, N, K = 64, 64, 128
        f8mm = dict(a_ptr=Buf("f32", M * K, "wide"), b_ptr=Buf("f32", K * N, "wide"),
                    c_ptr=Buf("f32", M * N, "sentinel", True), a_scale_ptr=Buf("f32", 1, "wide"),
                    b_scale_ptr=Buf("f32", 1, "wide"), K=K, N=N)
        out.append((f"matmul_fp8_{short}_32x32x64", matmul_fp8_kernel,
                    {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 64, "F8": getattr(tl, f8)}, {"num_warps": 4}, [
                        ("64x64x128", f8mm, [2, 2, 1], 401),
                    ], {"archs": archs}))
    dq = dict(q_ptr=Buf("i8", 3 * 128), scale_ptr=Buf("f16", 1), out_ptr=Buf("f16", 3 * 256, "sentinel", True))
    out.append(("int4_dequant_128", int4_dequant_kernel, {"N": 128}, {"num_warps": 4}, [
        ("rows3", dq, [3, 1, 1], 411),
    ]))
    fl = dict(x_ptr=Buf("f32", 2 * 128), y_ptr=Buf("f32", 2 * 128, "sentinel", True))
    out.append(("flip_128_f32", flip_kernel, {"N": 128}, {"num_warps": 4}, [
        ("rows2", fl, [2, 1, 1], 421),
    ]))
    # Every logical block maps to page 0 (the emulator's data has no valid page ids to offer).
    pages, page, D = 8, 16, 64
    pd = dict(q_ptr=Buf("f16", D, "int3"), k_cache=Buf("f16", 16 * page * D, "int3"),
              v_cache=Buf("f16", 16 * page * D), block_tables=Buf("i32", pages, "zeros"),
              out_ptr=Buf("f32", D, "sentinel", True), seq_len=100)
    out.append(("paged_decode_16x64_f16", paged_decode_kernel, {"PAGE": page, "D": D, "MAX_PAGES": pages},
                {"num_warps": 4}, [
                    ("len100", pd, [1, 1, 1], 431),
                ]))
    n_ctx = 100
    ca = dict(Q=Buf("f16", n_ctx * 64, "int3"), K=Buf("f16", n_ctx * 64, "int3"), V=Buf("f16", n_ctx * 64),
              O=Buf("f16", n_ctx * 64, "sentinel", True), N_CTX=n_ctx, sm_scale=F32(0.125))
    out.append(("causal_attn_32x32_d64_f16", causal_attn_kernel, {"BLOCK_M": 32, "BLOCK_N": 32, "D": 64},
                {"num_warps": 4}, [
                    ("ctx100", ca, [cdiv(n_ctx, 32), 1, 1], 441),
                ]))
    gh = dict(x_ptr=Buf("f32", 16 * 64), idx_ptr=Buf("i32", 16 * 64, "small"),
              out_ptr=Buf("f32", 16 * 64, "sentinel", True), hist_ptr=Buf("i32", 32, "sentinel", True))
    out.append(("gather_histogram_16x64", gather_histogram_kernel, {"N": 64, "ROWS": 16, "BINS": 32},
                {"num_warps": 4}, [
                    ("rows16", gh, [1, 1, 1], 451),
                ]))
    T, D = 30, 64
    rc = dict(key_ptr=Buf("f16", T * D), cache_ptr=Buf("f16", 101 * D, "sentinel", True),
              slot_mapping_ptr=Buf("i32", T, "small"), num_tokens=T)
    out.append(("reshape_and_cache_64_f16", reshape_and_cache_kernel, {"D": D}, {"num_warps": 1}, [
        ("tokens30-grid32", rc, [32, 1, 1], 461),
    ]))
    M, N = 70, 200
    lnd = dict(DW=Buf("f32", M * N), DB=Buf("f32", M * N), FINAL_DW=Buf("f32", N, "sentinel", True),
               FINAL_DB=Buf("f32", N, "sentinel", True), M=M, N=N)
    out.append(("ln_dwdb_32x128_f32", ln_dwdb_kernel, {"BLOCK_M": 32, "BLOCK_N": 128}, {"num_warps": 4}, [
        ("70x200", lnd, [cdiv(N, 128), 1, 1], 471),
    ]))
    ri = dict(x_ptr=Buf("f32", 5 * 64), cos_ptr=Buf("f32", 5 * 32), sin_ptr=Buf("f32", 5 * 32),
              out_ptr=Buf("f32", 5 * 64, "sentinel", True))
    out.append(("rope_interleaved_64_f32", rope_interleaved_kernel, {"HALF": 32}, {"num_warps": 1}, [
        ("rows5", ri, [5, 1, 1], 481),
    ]))
    R, C = 12, 100
    cb = dict(logits_ptr=Buf("f32", R * C), labels_ptr=Buf("i32", R, "small"), lse_ptr=Buf("f32", R, "wide"),
              dlogits_ptr=Buf("f32", R * C, "sentinel", True), n_cols=C, stride=C)
    out.append(("cross_entropy_bwd_128_f32", ce_bwd_kernel, {"BLOCK": 128}, {"num_warps": 4}, [
        ("rows12x100", cb, [R, 1, 1], 491),
    ]))
    cs2 = dict(x_ptr=Buf("f32", 64 * 16), y_ptr=Buf("f32", 64 * 16, "sentinel", True))
    out.append(("colscan_64x16_f32", colscan_kernel, {"M": 64, "N": 16}, {"num_warps": 4}, [
        ("64x16", cs2, [1, 1, 1], 501),
    ]))
    M, K = 50, 300
    gv = dict(a_ptr=Buf("f16", M * K), x_ptr=Buf("f16", K), y_ptr=Buf("f16", M, "sentinel", True), M=M, K=K)
    out.append(("gemv_16x128_f16", gemv_kernel, {"BM": 16, "BK": 128}, {"num_warps": 4}, [
        ("50x300", gv, [cdiv(M, 16), 1, 1], 511),
    ]))
    bm = dict(a_ptr=Buf("f16", 3 * 32 * 32), b_ptr=Buf("f16", 3 * 32 * 32), c_ptr=Buf("f16", 3 * 32 * 32, "sentinel", True))
    out.append(("bmm_32x32x32_f16", bmm_kernel, {"M": 32, "N": 32, "K": 32}, {"num_warps": 4}, [
        ("batch3", bm, [3, 1, 1], 521),
    ]))
    wf = dict(x_ptr=Buf("f32", 6 * 300, "wide"), mean_ptr=Buf("f32", 6, "sentinel", True),
              var_ptr=Buf("f32", 6, "sentinel", True), N=300)
    out.append(("welford_128_f32", welford_kernel, {"BLOCK": 128}, {"num_warps": 4}, [
        ("rows6x300", wf, [6, 1, 1], 531),
    ]))
    ds = dict(a_ptr=Buf("f16", 16 * 96), b_ptr=Buf("f16", 96 * 64), c_ptr=Buf("f32", 16 * 64, "sentinel", True), K=96)
    out.append(("dot_small_m_16x64x32_f16", dot_small_m_kernel, {"N": 64, "BK": 32}, {"num_warps": 4}, [
        ("16x64x96", ds, [1, 1, 1], 541),
    ]))

    # Constructs the kernels above leave out: fused residual norms, online softmax, early returns,
    # tuple scans and reduces, data-dependent gathers and loop bounds, grid-stride loops, integer
    # bit arithmetic, int8 dots, interleaving, and atomics of every kind.
    def rows(dtype, r, c, init="random", out=False):
        return Buf(dtype, r * c, init, out)
    out.append(("fused_add_rmsnorm_256_f16", fused_add_rmsnorm_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("rows4x200", dict(x_ptr=rows("f16", 4, 200, "random", True), res_ptr=rows("f16", 4, 200, "random", True),
                           w_ptr=Buf("f16", 200), n_cols=200, stride=200, eps=F32(1e-6)), [4, 1, 1], 601)]))
    out.append(("online_softmax_128_f32", online_softmax_kernel, {"BLOCK": 128}, {"num_warps": 4}, [
        ("rows4x300", dict(x_ptr=rows("f32", 4, 300), y_ptr=rows("f32", 4, 300, "sentinel", True), n_cols=300,
                           stride=300), [4, 1, 1], 602)]))
    out.append(("transpose2d_32x32_f32", transpose2d_kernel, {"BM": 32, "BN": 32}, {"num_warps": 4}, [
        ("50x70", dict(x_ptr=rows("f32", 50, 70), y_ptr=rows("f32", 50, 70, "sentinel", True), M=50, N=70),
         [2, 3, 1], 603)]))
    out.append(("early_return_128_f32", early_return_kernel, {"BLOCK": 128}, {"num_warps": 4}, [
        ("rows5-grid7", dict(x_ptr=rows("f32", 5, 100), y_ptr=rows("f32", 7, 100, "sentinel", True), n_rows=5,
                             n_cols=100), [7, 1, 1], 604)]))
    out.append(("linear_recurrence_128_f32", linear_recurrence_kernel, {"L": 128}, {"num_warps": 4}, [
        ("rows4", dict(a_ptr=rows("f32", 4, 128, "int3"), b_ptr=rows("f32", 4, 128, "int3"),
                       h_ptr=rows("f32", 4, 128, "sentinel", True)), [4, 1, 1], 605)]))
    out.append(("log_softmax_256_f16", log_softmax_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("rows3x200", dict(x_ptr=rows("f16", 3, 200), y_ptr=rows("f32", 3, 200, "sentinel", True), n_cols=200),
         [3, 1, 1], 606)]))
    out.append(("maxpool1d_256_f32", maxpool1d_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n500", dict(x_ptr=Buf("f32", 1000), y_ptr=Buf("f32", 512, "sentinel", True), n_out=500), [2, 1, 1], 607)]))
    out.append(("complex_mul_128_f32", complex_mul_kernel, {"BLOCK": 128}, {"num_warps": 4}, [
        ("pairs256", dict(x_ptr=Buf("f32", 512), y_ptr=Buf("f32", 512), z_ptr=Buf("f32", 512, "sentinel", True)),
         [2, 1, 1], 608)]))
    out.append(("searchsorted_64_f32", searchsorted_kernel, {"N": 64, "LOG": 7, "BLOCK": 128}, {"num_warps": 4}, [
        ("q300", dict(sorted_ptr=Buf("f32", 64), q_ptr=Buf("f32", 384), out_ptr=Buf("i32", 384, "sentinel", True),
                      n_q=300), [3, 1, 1], 609)]))
    out.append(("sum_middle_4x8x16_f32", sum_middle_kernel, {"A": 4, "B": 8, "C": 16}, {"num_warps": 4}, [
        ("one", dict(x_ptr=Buf("f32", 512), y_ptr=Buf("f32", 64, "sentinel", True)), [1, 1, 1], 610)]))
    out.append(("varlen_sum_64_f32", varlen_sum_kernel, {"BLOCK": 64}, {"num_warps": 4}, [
        ("seqs4", dict(x_ptr=Buf("f32", 1000), starts_ptr=Buf("i32", 5, "int3"), out_ptr=Buf("f32", 4, "sentinel", True)),
         [4, 1, 1], 611)]))
    out.append(("amax_256_f32", amax_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n1000", dict(x_ptr=Buf("f32", 1024), amax_ptr=Buf("f32", 1, "zeros", True), n=1000), [4, 1, 1], 612)]))
    out.append(("grid_stride_128_f32", grid_stride_kernel, {"BLOCK": 128}, {"num_warps": 4}, [
        ("n1000-grid3", dict(x_ptr=Buf("f32", 1000), y_ptr=Buf("f32", 1000, "sentinel", True), n=1000), [3, 1, 1], 613)]))
    out.append(("block_histogram_16_i32", block_histogram_kernel, {"NB": 16, "BLOCK": 256}, {"num_warps": 4}, [
        ("n1024", dict(x_ptr=Buf("i32", 1024), out_ptr=Buf("i32", 16, "zeros", True)), [4, 1, 1], 614)]))
    out.append(("argmin_rows_128_f32", argmin_kernel, {"BLOCK": 128}, {"num_warps": 4}, [
        ("rows3x100", dict(x_ptr=rows("f32", 3, 100), out_ptr=Buf("i32", 3, "sentinel", True), n_cols=100),
         [3, 1, 1], 615)]))
    out.append(("bit_ops_256_i32", bit_ops_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n500", dict(x_ptr=Buf("i32", 512, "small"), y_ptr=Buf("i32", 512, "sentinel", True), n=500), [2, 1, 1], 616)]))
    out.append(("runtime_divmod_256_i32", runtime_divmod_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n500-d7", dict(x_ptr=Buf("i32", 512, "small"), y_ptr=Buf("i32", 512, "sentinel", True), n=500, d=7),
         [2, 1, 1], 617)]))
    out.append(("clamp_sigmoid_256_f32", clamp_sigmoid_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n500", dict(x_ptr=Buf("f32", 512, "wide"), y_ptr=Buf("f32", 512, "sentinel", True), n=500, lo=F32(-2.0),
                      hi=F32(3.0)), [2, 1, 1], 618)]))
    out.append(("tuple_reduce_128_f32", tuple_reduce_kernel, {"BLOCK": 128}, {"num_warps": 4}, [
        ("rows3x100", dict(x_ptr=rows("f32", 3, 100), out_ptr=Buf("f32", 6, "sentinel", True), n_cols=100),
         [3, 1, 1], 619)]))
    out.append(("dot_abt_32x32x32_f16", dot_abt_kernel, {"K": 32, "BM": 32, "BN": 32}, {"num_warps": 4}, [
        ("40x50", dict(a_ptr=rows("f16", 40, 32, "int3"), b_ptr=rows("f16", 50, 32, "int3"),
                       c_ptr=rows("f32", 40, 50, "sentinel", True), M=40, N=50), [2, 2, 1], 620)]))
    out.append(("int8_dot_32x32x64_i8", int8_dot_kernel, {"M": 32, "N": 32, "K": 64}, {"num_warps": 4}, [
        ("one", dict(a_ptr=Buf("i8", 32 * 64), b_ptr=Buf("i8", 64 * 32), c_ptr=Buf("i32", 32 * 32, "sentinel", True)),
         [1, 1, 1], 621)]))
    out.append(("full_reduce_16x32_f32", full_reduce_2d_kernel, {"M": 16, "N": 32}, {"num_warps": 4}, [
        ("one", dict(x_ptr=Buf("f32", 512), out_ptr=Buf("f32", 34, "sentinel", True)), [1, 1, 1], 622)]))
    out.append(("interleave_128_f32", interleave_kernel, {"BLOCK": 128}, {"num_warps": 4}, [
        ("blocks2", dict(x_ptr=Buf("f32", 256), y_ptr=Buf("f32", 256), z_ptr=Buf("f32", 512, "sentinel", True)),
         [2, 1, 1], 623)]))
    out.append(("cumprod_rev_64_f32", cumprod_rev_kernel, {"L": 64}, {"num_warps": 4}, [
        ("rows2", dict(x_ptr=Buf("f32", 128, "int3"), y_ptr=Buf("f32", 128, "sentinel", True)), [2, 1, 1], 624)]))
    out.append(("atomics_mix_128_i32", atomics_mix_kernel, {"BLOCK": 128}, {"num_warps": 4}, [
        ("n300", dict(x_ptr=Buf("i32", 384, "small"), cnt_ptr=Buf("i32", 4, "zeros", True),
                      mn_ptr=Buf("i32", 8, "zeros", True), xchg_ptr=Buf("i32", 384, "sentinel", True), n=300),
         [3, 1, 1], 625)]))
    out.append(("spin_lock_i32", spin_lock_kernel, {}, {"num_warps": 4}, [
        ("grid4", dict(lock_ptr=Buf("i32", 1, "zeros", True), acc_ptr=Buf("i32", 1, "zeros", True),
                       hits_ptr=Buf("i32", 4, "zeros", True)), [4, 1, 1], 626)]))
    out.append(("center_rows_i64_128_f32", center_rows_i64_kernel, {"BLOCK": 128}, {"num_warps": 4}, [
        ("rows3x100", dict(x_ptr=rows("f32", 3, 100), y_ptr=rows("f32", 3, 100, "sentinel", True), stride=100),
         [3, 1, 1], 627)]))
    out.append(("uint8_scale_256_i8", uint8_scale_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n500", dict(x_ptr=Buf("i8", 512), y_ptr=Buf("i8", 512, "sentinel", True), n=500), [2, 1, 1], 628)]))
    out.append(("leaky_cumsum_16x64_f32", leaky_cumsum_2d_kernel, {"BM": 16, "BN": 64}, {"num_warps": 4}, [
        ("40x50", dict(x_ptr=rows("f32", 40, 50), y_ptr=rows("f32", 40, 50, "sentinel", True), M=40, N=50),
         [3, 1, 1], 629)]))
    return out


# ---------------------------------------------------------------------------------------------
# Specialisation as a launch does it, compilation, and the files.
# ---------------------------------------------------------------------------------------------

TT_DTYPE = {"f32": "fp32", "f16": "fp16", "i32": "i32", "i8": "i8"}


def specialise(fn, args, constexprs, backend):
    """The signature, constexprs and attributes that Triton's JIT derives from a launch with
    these arguments (torch tensors within 2 GB, 16-byte aligned, on a HIP device)."""
    names = [p.name for p in fn.params]
    sig, cex, attrs, kinds = {}, {}, {}, []
    for i, name in enumerate(names):
        if name in constexprs:
            sig[name], cex[(i, )] = "constexpr", constexprs[name]
            continue
        v = args[name]
        if isinstance(v, Buf):
            ty, spec = "*" + v.tt, "DS"
        elif isinstance(v, F32):
            ty, spec = "fp32", None
        else:
            ty, spec = native_specialize_impl(type(backend), v, False, True, True)
        if ty == "constexpr":  # an integer equal to 1: a constant of the kernel, as the JIT makes it
            sig[name], cex[(i, )] = "constexpr", spec
            kinds.append((name, ty))
            continue
        sig[name] = ty
        if spec:
            attrs[(i, )] = backend.parse_attr(spec)
        kinds.append((name, ty))
    return sig, cex, attrs, kinds


def case_args(args, kinds):
    out = []
    for name, ty in kinds:
        v = args[name]
        if ty == "constexpr":
            continue
        if isinstance(v, Buf):
            out.append({"kind": "ptr", "dtype": v.dtype, "elems": v.elems, "init": v.init, "out": v.out, "name": name})
        elif ty == "fp32":
            out.append({"kind": "f32", "value": float(v), "name": name})
        else:
            out.append({"kind": ty, "value": int(v), "name": name})
    return out


def scrub(text):
    """Keep the checkout's and the venv's locations out of the written files: locations name this
    script and Triton's files by their own names, the DWARF directories become '.'."""
    here = os.path.dirname(os.path.abspath(__file__))
    text = text.replace(here + "/", "").replace('"' + here + '"', '"."')
    text = re.sub(r'/[^"\n]*/site-packages/triton/', "triton/", text)
    text = re.sub(r'"[^"\n]*/site-packages/triton"', '"triton"', text)
    return text


def strip_debug(blob):
    """The code object without its .debug_* sections (as `llvm-objcopy --strip-debug` leaves it):
    the sections after the first debug one are not loaded (symbol and string tables), so they move
    down over the debug bytes, their offsets and the section headers' updated; code, symbols and
    the kernel descriptor keep their addresses and offsets."""
    shoff, = struct.unpack_from("<Q", blob, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", blob, 0x3A)
    phoff, = struct.unpack_from("<Q", blob, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", blob, 0x36)
    sh = [list(struct.unpack_from("<IIQQQQIIQQ", blob, shoff + i * shentsize)) for i in range(shnum)]
    strtab = sh[shstrndx]
    names = [blob[strtab[4] + s[0]:blob.index(b"\0", strtab[4] + s[0])].decode() for s in sh]
    debug = [i for i, nm in enumerate(names) if nm.startswith(".debug_")]
    if not debug:
        return blob
    cut = min(sh[i][4] for i in debug)
    ph = [struct.unpack_from("<IIQQQQQQ", blob, phoff + i * phentsize) for i in range(phnum)]
    loaded_end = max(p[2] + p[5] for p in ph)  # offset + file size
    assert loaded_end <= cut, "a loaded segment reaches the debug sections"
    out = bytearray(blob[:cut])
    old_index = [i for i in range(shnum) if i not in debug]
    for i in sorted(old_index, key=lambda i: sh[i][4]):
        s = sh[i]
        if s[4] < cut or s[1] == 8:  # before the cut (unmoved), or no file bytes
            continue
        out += b"\0" * (-len(out) % max(1, s[8]))
        data = blob[s[4]:s[4] + s[5]]
        s[4] = len(out)
        out += data
    # Section indices shift down past each removed section: fix links, infos that are indices,
    # symbols' section indices and the string-table index.
    new_of = {old: new for new, old in enumerate(old_index)}
    for i in old_index:
        s = sh[i]
        if s[6]:
            s[6] = new_of[s[6]]
        if s[1] in (4, 9) and s[7]:  # SHT_RELA, SHT_REL: info is the section relocated
            s[7] = new_of.get(s[7], 0)
    for i in old_index:
        s = sh[i]
        if s[1] in (2, 11):  # symbol tables
            for j in range(s[5] // 24):
                o = s[4] + 24 * j
                shx, = struct.unpack_from("<H", out, o + 6)
                if 0 < shx < 0xFF00:
                    struct.pack_into("<H", out, o + 6, new_of.get(shx, 0))
    out += b"\0" * (-len(out) % 8)
    new_shoff = len(out)
    for i in old_index:
        out += struct.pack("<IIQQQQIIQQ", *sh[i])
    struct.pack_into("<Q", out, 0x28, new_shoff)
    struct.pack_into("<HH", out, 0x3C, len(old_index), new_of[shstrndx])
    return bytes(out)


def add_cases(all_cases, name, fn, cex, opts, launches, kinds, arch, warp, kernel, triton_lds_bytes):
    """The emulator cases of one compiled kernel; `triton_lds_bytes` None where Triton has no
    code for it (no `--triton` run)."""
    for cname, a, grid, seed in launches:
        case = {
            "id": f"people/{name}/{cname}-{arch}", "form": "ttgir", "arch": arch,
            "file": f"{name}.{arch}.ttgir", "kernel": kernel, "args": case_args(a, kinds),
            "reference": fn.__name__,
            "constexprs": dict({n: v if isinstance(v, (int, float)) else str(v) for n, v in cex.items()},
                               **{n: a[n] for n, ty in kinds if ty == "constexpr"}), "grid": grid,
            "threads": opts["num_warps"] * warp, "seed": seed,
        }
        if triton_lds_bytes is not None:
            case["triton_lds_bytes"] = triton_lds_bytes
        all_cases.append(case)


def ttgir_only(src, target, opts):
    """The final TTGIR of a kernel whose later stages fail in Triton (its stages up to `ttgir`,
    as `triton.compile` runs them), or None where an earlier stage fails too."""
    from triton._C.libtriton import ir
    backend = make_backend(target)
    options = backend.parse_options(dict(opts))
    stages = {}
    backend.add_stages(stages, options, src.language)
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    metadata = {"target": target, **options.__dict__}
    try:
        module = src.make_ir(target, options, backend.get_codegen_implementation(options), backend.get_module_map(),
                             context)
        for ext in ("ttir", "ttgir"):
            module = stages[ext](module, metadata)
    except Exception:  # noqa: BLE001 - no TTGIR either
        return None
    return str(module)


def ttgir_name(ttgir):
    return re.search(r"tt\.func public @(\w+)", ttgir).group(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                                  "fixtures", "lower", "ttgir-people"))
    ap.add_argument("--arch", action="append")
    ap.add_argument("--only")
    ap.add_argument("--num-stages", type=int,
                    help="compile every kernel with this num_stages instead of its launch's (the yardstick of "
                         "`linear-layout compile`, whose layouts are Triton's at num_stages 1)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    all_cases, refusals = [], []
    for arch in args.arch or ARCHS:
        warp = 32 if arch.startswith("gfx1") else 64
        target = GPUTarget("hip", arch, warp)
        backend = make_backend(target)
        counts = {}
        for name, fn, cex, opts, launches, *variant in cases():
            variant = dict(variant[0]) if variant else {}
            if args.num_stages is not None:
                opts = dict(opts, num_stages=args.num_stages)
            if args.only and args.only not in name or arch not in variant.pop("archs", [arch]):
                continue
            sig, cexs, attrs, kinds = specialise(fn, launches[0][1], cex, backend)
            for _, a, _, _ in launches[1:]:
                assert specialise(fn, a, cex, backend)[:3] == (sig, cexs, attrs), f"{name}: cases specialise apart"
            try:
                with triton.knobs.amd.scope():
                    for knob, value in variant.items():
                        setattr(triton.knobs.amd, knob, value)
                    k = triton.compile(ASTSource(fn, sig, cexs, attrs), target=target, options=opts)
            except Exception as e:  # noqa: BLE001 - Triton's refusal is recorded, not fatal
                msg = " ".join(str(e).split())[:400]
                ttgir = ttgir_only(ASTSource(fn, sig, cexs, attrs), target, opts)
                kept = " (its TTGIR kept: Triton's code generation fails, the crate's must not)" if ttgir else ""
                refusals.append(f"{name}.{arch}: {type(e).__name__}: {msg}{kept}")
                print(arch, name, "REFUSED:", msg + kept)
                if ttgir:
                    open(os.path.join(args.out, f"{name}.{arch}.ttgir"), "w").write(scrub(ttgir))
                    add_cases(all_cases, name, fn, cex, opts, launches, kinds, arch, warp, ttgir_name(ttgir), None)
                continue
            base = os.path.join(args.out, f"{name}.{arch}")
            open(base + ".ttgir", "w").write(scrub(k.asm["ttgir"]))
            amdgcn = scrub(k.asm["amdgcn"])
            open(base + ".amdgcn", "w").write(amdgcn)
            open(base + ".hsaco", "wb").write(strip_debug(k.asm["hsaco"]))
            c = count(amdgcn)
            c["lds_bytes"] = getattr(k.metadata, "shared", None)
            counts[name] = c
            add_cases(all_cases, name, fn, cex, opts, launches, kinds, arch, warp, k.metadata.name, k.metadata.shared)
        json.dump({"arch": arch, "triton": triton.__version__, "kernels": counts},
                  open(os.path.join(args.out, f"triton-counts.{arch}.json"), "w"), indent=1)
        print(arch, {n: c["total"] for n, c in counts.items()})
    if not args.only:
        json.dump(all_cases, open(os.path.join(args.out, "cases.json"), "w"), indent=1)
        path = os.path.join(args.out, "refusals.txt")
        if refusals:
            with open(path, "w") as f:
                f.write("".join(r + "\n" for r in refusals))
        elif os.path.exists(path):
            os.remove(path)


if __name__ == "__main__":
    main()
