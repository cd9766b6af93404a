#!/usr/bin/env python3
"""Round 7 of the second zoo (loops: constant-trip, nested and while loops, online softmax): writes fx7/ as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen7.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, F32, cdiv, triton, tl  # noqa: E402


# 1. f16 matmul with a constexpr K (128 = 4 trips of BK 32) and a bias epilogue, stored as f16.
@triton.jit
def matmul_k128_bias_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, stride_am, stride_bk, stride_cm,
                            K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :], mask=rm[:, None] < M, other=0.)
        b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :], mask=rn[None, :] < N, other=0.)
        acc += tl.dot(a, b)
    bias = tl.load(bias_ptr + rn, mask=rn < N, other=0.)
    acc = acc + bias[None, :]
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


# 2. A loop over a constexpr number of column chunks with a branch on the loop counter: even chunks add their
#    row sums, odd chunks take the running max and write the chunk doubled.
@triton.jit
def chunk_parity_rows_kernel(x_ptr, y_ptr, acc_ptr, M, stride, BM: tl.constexpr, BLOCK: tl.constexpr,
                             NCHUNK: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    rmask = rows < M
    acc = tl.zeros([BM], dtype=tl.float32)
    for c in range(0, NCHUNK):
        cols = c * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=rmask[:, None], other=0.)
        if c % 2 == 0:
            acc += tl.sum(x, axis=1)
        else:
            acc = tl.maximum(acc, tl.max(x, axis=1))
            tl.store(y_ptr + rows[:, None] * stride + cols[None, :], x * 2.0, mask=rmask[:, None])
    tl.store(acc_ptr + rows, acc, mask=rmask)


# 3. Online softmax over a constexpr number of column blocks: running max and sum carried across the loop,
#    a second loop writes the probabilities, the log-sum-exp per row.
@triton.jit
def online_softmax_kernel(x_ptr, y_ptr, lse_ptr, M, n_cols, stride, BM: tl.constexpr, BN: tl.constexpr,
                          NB: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    rmask = rows < M
    m_i = tl.full([BM], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BM], dtype=tl.float32)
    for b in range(0, NB):
        cols = b * BN + tl.arange(0, BN)
        mask = rmask[:, None] & (cols[None, :] < n_cols)
        x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=float("-inf"))
        m_new = tl.maximum(m_i, tl.max(x, axis=1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(x - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        m_i = m_new
    for b in range(0, NB):
        cols = b * BN + tl.arange(0, BN)
        mask = rmask[:, None] & (cols[None, :] < n_cols)
        x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=float("-inf"))
        tl.store(y_ptr + rows[:, None] * stride + cols[None, :], tl.exp(x - m_i[:, None]) / l_i[:, None], mask=mask)
    tl.store(lse_ptr + rows, m_i + tl.log(l_i), mask=rmask)


# 4. RMSNorm forward (LLaMA style): f16 in and out, f32 statistics, tl.rsqrt, the rstd saved for backward.
@triton.jit
def rmsnorm_fwd_kernel(x_ptr, w_ptr, y_ptr, rstd_ptr, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    ms = tl.sum(x * x, axis=0) / N
    rstd = tl.rsqrt(ms + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.).to(tl.float32)
    y = x * rstd * w
    tl.store(y_ptr + row * stride + cols, y.to(tl.float16), mask=mask)
    tl.store(rstd_ptr + row, rstd)


# 5. Per-program binary search (searchsorted, left): a while loop on scalars, a scalar load per trip.
@triton.jit
def searchsorted_while_kernel(sorted_ptr, q_ptr, out_ptr, N):
    pid = tl.program_id(0)
    v = tl.load(q_ptr + pid)
    lo = 0
    hi = N
    while lo < hi:
        mid = (lo + hi) // 2
        if tl.load(sorted_ptr + mid) < v:
            lo = mid + 1
        else:
            hi = mid
    tl.store(out_ptr + pid, lo)


# 6. A while loop whose condition is a reduction of the tensor it updates, with an iteration cap.
@triton.jit
def halve_until_small_kernel(x_ptr, y_ptr, it_ptr, n, thresh, MAX_IT: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.)
    it = 0
    while (tl.max(tl.abs(x), axis=0) > thresh) & (it < MAX_IT):
        x = x * 0.5
        it += 1
    tl.store(y_ptr + offs, x, mask=mask)
    tl.store(it_ptr + pid, it)


# 7. Two-pass row variance as nested loops: an outer constexpr loop over the 2 passes around an inner
#    runtime-bound loop over column blocks, branches on the pass number inside and after the inner loop.
@triton.jit
def two_pass_var_kernel(x_ptr, mean_ptr, var_ptr, n, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    mean = 0.0
    var = 0.0
    for p in range(0, 2):
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for off in range(0, n, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            m = cols < n
            x = tl.load(x_ptr + row * stride + cols, mask=m, other=0.)
            if p == 0:
                acc += x
            else:
                d = tl.where(m, x - mean, 0.)
                acc += d * d
        if p == 0:
            mean = tl.sum(acc, axis=0) / n
        else:
            var = tl.sum(acc, axis=0) / n
    tl.store(mean_ptr + row, mean)
    tl.store(var_ptr + row, var)


# 8. Variable-length rows (packed sequences): the per-row length from a lengths array, clamped, bounds a
#    runtime loop that runs zero times for empty rows.
@triton.jit
def varlen_row_mean_kernel(x_ptr, len_ptr, sum_ptr, mean_ptr, stride, MAXLEN: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    n = tl.load(len_ptr + row)
    n = tl.minimum(tl.maximum(n, 0), MAXLEN)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < n, other=0.)
    s = tl.sum(acc, axis=0)
    tl.store(sum_ptr + row, s)
    tl.store(mean_ptr + row, s / tl.maximum(n, 1).to(tl.float32))


# 9. GEMV with loop-carried pointers advanced every trip (matmul-tutorial style), constexpr trip count.
@triton.jit
def gemv_ptr_advance_kernel(w_ptr, x_ptr, y_ptr, M, stride_wm, K: tl.constexpr, BM: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rk = tl.arange(0, BK)
    w_ptrs = w_ptr + rm[:, None] * stride_wm + rk[None, :]
    x_ptrs = x_ptr + rk
    acc = tl.zeros([BM], dtype=tl.float32)
    for _ in range(0, K // BK):
        w = tl.load(w_ptrs, mask=rm[:, None] < M, other=0.)
        x = tl.load(x_ptrs)
        acc += tl.sum(w * x[None, :], axis=1)
        w_ptrs += BK
        x_ptrs += BK
    tl.store(y_ptr + rm, acc, mask=rm < M)


# 10. Causal attention probabilities for one 32x32 tile per head: q k^T with tl.dot, future keys masked to -inf,
#     row softmax.
@triton.jit
def causal_scores_kernel(q_ptr, k_ptr, p_ptr, sm_scale, S: tl.constexpr, D: tl.constexpr):
    h = tl.program_id(0)
    rs = tl.arange(0, S)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + h * S * D + rs[:, None] * D + rd[None, :])
    k = tl.load(k_ptr + h * S * D + rs[:, None] * D + rd[None, :])
    s = tl.dot(q, tl.trans(k)) * sm_scale
    s = tl.where(rs[None, :] > rs[:, None], float("-inf"), s)
    m = tl.max(s, axis=1)
    p = tl.exp(s - m[:, None])
    p = p / tl.sum(p, axis=1)[:, None]
    tl.store(p_ptr + h * S * S + rs[:, None] * S + rs[None, :], p)


# 11. A 1-D convolution with a grid-stride runtime loop around a tl.static_range loop over the taps.
@triton.jit
def conv_taps_gridstride_kernel(x_ptr, w_ptr, y_ptr, n, BLOCK: tl.constexpr, TAPS: tl.constexpr):
    for start in range(tl.program_id(0) * BLOCK, n, BLOCK * tl.num_programs(0)):
        offs = start + tl.arange(0, BLOCK)
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for t in tl.static_range(TAPS):
            w = tl.load(w_ptr + t)
            xi = offs + (t - TAPS // 2)
            acc += w * tl.load(x_ptr + xi, mask=(xi >= 0) & (xi < n), other=0.)
        tl.store(y_ptr + offs, acc, mask=offs < n)


# 12. Top-2 MoE gating (Mixtral style): softmax over experts, top-1 by argmax, mask it, top-2 by argmax,
#     renormalised weights.
@triton.jit
def top2_gating_kernel(logits_ptr, w_ptr, idx_ptr, T, E: tl.constexpr, BT: tl.constexpr):
    rows = tl.program_id(0) * BT + tl.arange(0, BT)
    rm = rows < T
    cols = tl.arange(0, E)
    x = tl.load(logits_ptr + rows[:, None] * E + cols[None, :], mask=rm[:, None], other=0.)
    mx = tl.max(x, axis=1)
    p = tl.exp(x - mx[:, None])
    p = p / tl.sum(p, axis=1)[:, None]
    i1 = tl.argmax(p, axis=1)
    p1 = tl.max(p, axis=1)
    p_rest = tl.where(cols[None, :] == i1[:, None], -1.0, p)
    i2 = tl.argmax(p_rest, axis=1)
    p2 = tl.max(p_rest, axis=1)
    denom = p1 + p2
    tl.store(w_ptr + rows * 2, p1 / denom, mask=rm)
    tl.store(w_ptr + rows * 2 + 1, p2 / denom, mask=rm)
    tl.store(idx_ptr + rows * 2, i1, mask=rm)
    tl.store(idx_ptr + rows * 2 + 1, i2, mask=rm)


# 13. SwiGLU backward: h = silu(g) * u; dg and du from dh, f16 in and out.
@triton.jit
def swiglu_bwd_kernel(g_ptr, u_ptr, dh_ptr, dg_ptr, du_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask, other=0.).to(tl.float32)
    u = tl.load(u_ptr + offs, mask=mask, other=0.).to(tl.float32)
    dh = tl.load(dh_ptr + offs, mask=mask, other=0.).to(tl.float32)
    sig = tl.sigmoid(g)
    silu = g * sig
    du = dh * silu
    dg = dh * u * sig * (1.0 + g * (1.0 - sig))
    tl.store(dg_ptr + offs, dg.to(tl.float16), mask=mask)
    tl.store(du_ptr + offs, du.to(tl.float16), mask=mask)


# 14. A K loop whose dot product is added or subtracted by the parity of the trip (tl.dot inside scf.if in scf.for).
@triton.jit
def alt_sign_dot_loop_kernel(a_ptr, b_ptr, c_ptr, M, N, K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                             BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for i in range(0, K // BK):
        kk = i * BK + rk
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=rm[:, None] < M, other=0.)
        b = tl.load(b_ptr + kk[:, None] * N + rn[None, :], mask=rn[None, :] < N, other=0.)
        if i % 2 == 0:
            acc += tl.dot(a, b)
        else:
            acc -= tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


# 15. A while loop (condition: a reduction) inside a constexpr loop over the rows of the program.
@triton.jit
def for_while_halve_int_kernel(x_ptr, y_ptr, steps_ptr, N, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    for r in range(0, ROWS):
        row = tl.program_id(0) * ROWS + r
        x = tl.load(x_ptr + row * N + cols, mask=mask, other=0)
        steps = 0
        while tl.max(x, axis=0) > 0:
            x = tl.where(x > 0, x // 2 - 1, x)
            steps += 1
        tl.store(y_ptr + row * N + cols, x, mask=mask)
        tl.store(steps_ptr + row, steps)


# 16. Loop-carried accumulators in two layouts: a transposed tile sum and a column sum over row blocks.
@triton.jit
def loop_trans_acc_kernel(x_ptr, t_ptr, cs_ptr, BM: tl.constexpr, BN: tl.constexpr, NB: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    acc_t = tl.zeros((BN, BM), dtype=tl.float32)
    colsum = tl.zeros([BN], dtype=tl.float32)
    for b in range(0, NB):
        x = tl.load(x_ptr + (b * BM + rm)[:, None] * BN + rn[None, :])
        acc_t += tl.trans(x) * (b + 1)
        colsum += tl.sum(x, axis=0)
    tl.store(t_ptr + rn[:, None] * BM + rm[None, :], acc_t)
    tl.store(cs_ptr + rn, colsum)


def cases():
    out = []
    M, N, K = 48, 40, 128
    out.append(("matmul_k128_bias_32x32x32_f16", matmul_k128_bias_kernel, {"K": K, "BM": 32, "BN": 32, "BK": 32},
                {"num_warps": 4}, [
        ("48x40x128", dict(a_ptr=Buf("f16", M * K, "int3"), b_ptr=Buf("f16", K * N, "int3"),
                           bias_ptr=Buf("f32", N, "int3"), c_ptr=Buf("f16", M * N, "sentinel", True), M=M, N=N,
                           stride_am=K, stride_bk=N, stride_cm=N), [cdiv(M, 32), cdiv(N, 32), 1], 1501)]))
    M, S = 10, 128
    out.append(("chunk_parity_rows_4x32_f32", chunk_parity_rows_kernel, {"BM": 4, "BLOCK": 32, "NCHUNK": 4},
                {"num_warps": 2}, [
        ("rows10x128", dict(x_ptr=Buf("f32", M * S), y_ptr=Buf("f32", M * S, "sentinel", True),
                            acc_ptr=Buf("f32", M, "sentinel", True), M=M, stride=S), [cdiv(M, 4), 1, 1], 1502)]))
    M, S, NC = 10, 128, 120
    out.append(("online_softmax_4x32_nb4_f32", online_softmax_kernel, {"BM": 4, "BN": 32, "NB": 4},
                {"num_warps": 4}, [
        ("rows10x120", dict(x_ptr=Buf("f32", M * S, "wide"), y_ptr=Buf("f32", M * S, "sentinel", True),
                            lse_ptr=Buf("f32", M, "sentinel", True), M=M, n_cols=NC, stride=S),
         [cdiv(M, 4), 1, 1], 1503)]))
    R, N = 6, 100
    out.append(("rmsnorm_rsqrt_128_f16", rmsnorm_fwd_kernel, {"BLOCK": 128}, {"num_warps": 2}, [
        ("rows6x100", dict(x_ptr=Buf("f16", R * N), w_ptr=Buf("f16", N), y_ptr=Buf("f16", R * N, "sentinel", True),
                           rstd_ptr=Buf("f32", R, "sentinel", True), stride=N, N=N, eps=F32(1e-6)), [R, 1, 1],
         1504)]))
    NS, Q = 100, 16
    out.append(("searchsorted_while_i32", searchsorted_while_kernel, {}, {"num_warps": 1}, [
        ("n100q16", dict(sorted_ptr=Buf("i32", NS, "small"), q_ptr=Buf("i32", Q, "small"),
                         out_ptr=Buf("i32", Q, "sentinel", True), N=NS), [Q, 1, 1], 1505)]))
    n = 100
    out.append(("halve_while_max_16_f32", halve_until_small_kernel, {"MAX_IT": 5, "BLOCK": 16}, {"num_warps": 1}, [
        ("n100", dict(x_ptr=Buf("f32", n, "wide"), y_ptr=Buf("f32", n, "sentinel", True),
                      it_ptr=Buf("i32", cdiv(n, 16), "sentinel", True), n=n, thresh=F32(0.3)), [cdiv(n, 16), 1, 1],
         1506)]))
    R, n, S = 4, 100, 112
    out.append(("two_pass_var_nested_32_f32", two_pass_var_kernel, {"BLOCK": 32}, {"num_warps": 1}, [
        ("rows4x100", dict(x_ptr=Buf("f32", R * S, "wide"), mean_ptr=Buf("f32", R, "sentinel", True),
                           var_ptr=Buf("f32", R, "sentinel", True), n=n, stride=S), [R, 1, 1], 1507)]))
    R, L = 8, 96

    def varlen():
        return dict(x_ptr=Buf("f32", R * L), len_ptr=Buf("i32", R, "small"), sum_ptr=Buf("f32", R, "sentinel", True),
                    mean_ptr=Buf("f32", R, "sentinel", True), stride=L)
    out.append(("varlen_row_mean_32_f32", varlen_row_mean_kernel, {"MAXLEN": L, "BLOCK": 32}, {"num_warps": 2}, [
        ("rows8_a", varlen(), [R, 1, 1], 1508),
        ("rows8_b", varlen(), [R, 1, 1], 1509)]))
    M, K = 40, 128
    out.append(("gemv_ptr_advance_16x32_f32", gemv_ptr_advance_kernel, {"K": K, "BM": 16, "BK": 32}, {"num_warps": 2}, [
        ("40x128", dict(w_ptr=Buf("f32", M * K), x_ptr=Buf("f32", K), y_ptr=Buf("f32", M, "sentinel", True), M=M,
                        stride_wm=K), [cdiv(M, 16), 1, 1], 1510)]))
    H, S, D = 2, 32, 32
    out.append(("causal_scores_32x32_d32_f16", causal_scores_kernel, {"S": S, "D": D}, {"num_warps": 4}, [
        ("h2", dict(q_ptr=Buf("f16", H * S * D, "int3"), k_ptr=Buf("f16", H * S * D, "int3"),
                    p_ptr=Buf("f32", H * S * S, "sentinel", True), sm_scale=F32(0.125)), [H, 1, 1], 1511)]))
    n = 300
    out.append(("conv3_static_gridstride_64_f32", conv_taps_gridstride_kernel, {"BLOCK": 64, "TAPS": 3},
                {"num_warps": 1}, [
        ("n300g2", dict(x_ptr=Buf("f32", n), w_ptr=Buf("f32", 3), y_ptr=Buf("f32", n, "sentinel", True), n=n),
         [2, 1, 1], 1512)]))
    T, E = 50, 8
    out.append(("top2_gating_16x8_f32", top2_gating_kernel, {"E": E, "BT": 16}, {"num_warps": 2}, [
        ("t50e8", dict(logits_ptr=Buf("f32", T * E, "wide"), w_ptr=Buf("f32", 2 * T, "sentinel", True),
                       idx_ptr=Buf("i32", 2 * T, "sentinel", True), T=T), [cdiv(T, 16), 1, 1], 1513)]))
    n = 700
    out.append(("swiglu_bwd_256_f16", swiglu_bwd_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n700", dict(g_ptr=Buf("f16", n), u_ptr=Buf("f16", n), dh_ptr=Buf("f16", n),
                      dg_ptr=Buf("f16", n, "sentinel", True), du_ptr=Buf("f16", n, "sentinel", True), n=n),
         [cdiv(n, 256), 1, 1], 1514)]))
    M, N, K = 40, 48, 128
    out.append(("alt_sign_dot_loop_32x32x32_f16", alt_sign_dot_loop_kernel, {"K": K, "BM": 32, "BN": 32, "BK": 32},
                {"num_warps": 4}, [
        ("40x48x128", dict(a_ptr=Buf("f16", M * K, "int3"), b_ptr=Buf("f16", K * N, "int3"),
                           c_ptr=Buf("f32", M * N, "sentinel", True), M=M, N=N), [cdiv(M, 32), cdiv(N, 32), 1], 1515)]))
    R, N = 8, 24
    out.append(("for_while_halve_int_4x32_i32", for_while_halve_int_kernel, {"ROWS": 4, "BLOCK": 32}, {"num_warps": 1}, [
        ("rows8x24", dict(x_ptr=Buf("i32", R * N, "small"), y_ptr=Buf("i32", R * N, "sentinel", True),
                          steps_ptr=Buf("i32", R, "sentinel", True), N=N), [R // 4, 1, 1], 1516)]))
    out.append(("loop_trans_acc_16x32_nb3_f32", loop_trans_acc_kernel, {"BM": 16, "BN": 32, "NB": 3}, {"num_warps": 2}, [
        ("48x32", dict(x_ptr=Buf("f32", 48 * 32), t_ptr=Buf("f32", 32 * 16, "sentinel", True),
                       cs_ptr=Buf("f32", 32, "sentinel", True)), [1, 1, 1], 1517)]))
    return out


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx7")]
    gen.main()
