"""More kernels of the zoo (scripts/zoo_ttir.py writes them beside its own): 2-D and 3-D grids
with 64-bit strides, batched and chained dots, scaled dots, reversed and tuple scans, tuple
reductions, descending sorts and top-k, gathers along an axis, loop hints, data-dependent
loops and branches, cache hints, scatters and atomics through loaded offsets, spin locks,
integer wrap and division, f64 math, fp8 round trips, rounding modes.
"""
import triton
import triton.language as tl

from people_ttgir import Buf, F32


def P(tt, n=1 << 16):
    return Buf("f32", n, tt=tt)


# ============================================================================ grids / i64
@triton.jit
def grid2d_i64_kernel(x_ptr, y_ptr, stride_row, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(1).to(tl.int64)
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    for start in range(pid * BLOCK, n_cols, nprog * BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < n_cols
        x = tl.load(x_ptr + row * stride_row + offs, mask=m, other=0.)
        tl.store(y_ptr + row * stride_row + offs, x * 2.0 + row.to(tl.float32), mask=m)


@triton.jit
def grid3d_bigstride_kernel(x_ptr, y_ptr, stride_b, stride_h, n, BLOCK: tl.constexpr):
    b = tl.program_id(2).to(tl.int64)
    h = tl.program_id(1).to(tl.int64)
    pid = tl.program_id(0)
    nb = tl.num_programs(2)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    base = b * stride_b + h * stride_h
    x = tl.load(x_ptr + base + offs, mask=offs < n, other=0.)
    tl.store(y_ptr + base + offs, x / nb.to(tl.float16), mask=offs < n)


# ============================================================================ dots
@triton.jit
def bmm3d_dot_kernel(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rb = tl.arange(0, B)[:, None, None]
    rm = tl.arange(0, M)[None, :, None]
    rn = tl.arange(0, N)[None, None, :]
    rk_c = tl.arange(0, K)[None, None, :]
    rk_r = tl.arange(0, K)[None, :, None]
    a = tl.load(a_ptr + rb * M * K + rm * K + rk_c)
    b = tl.load(b_ptr + rb * K * N + rk_r * N + rn)
    c = tl.dot(a, b)
    tl.store(c_ptr + rb * M * N + rm * N + rn, c.to(tl.float16))


@triton.jit
def attn_fwd_w8_kernel(Q, K, V, O, L, N_CTX, sm_scale, stride_h, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       D: tl.constexpr):
    start_m = tl.program_id(0)
    off_h = tl.program_id(1).to(tl.int64) * stride_h
    rm = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rd = tl.arange(0, D)
    q = tl.load(Q + off_h + rm[:, None] * D + rd[None, :])
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, D], tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in range(0, N_CTX, BLOCK_N):
        kt = tl.load(K + off_h + (start_n + rn)[None, :] * D + rd[:, None])
        qk = tl.dot(q, kt) * qk_scale
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(V + off_h + (start_n + rn)[:, None] * D + rd[None, :])
        acc = tl.dot(p.to(tl.bfloat16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(L + start_m * BLOCK_M + tl.arange(0, BLOCK_M), m_i + tl.math.log2(l_i))
    tl.store(O + off_h + rm[:, None] * D + rd[None, :], acc.to(tl.bfloat16))


@triton.jit
def dot_acc_f16_loop_kernel(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float16)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc, out_dtype=tl.float16)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


@triton.jit
def i8_dot_m16_kernel(a_ptr, b_ptr, c_ptr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, 16)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.dot(a, b, out_dtype=tl.int32)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


@triton.jit
def dot_scaled_kernel(a_ptr, as_ptr, b_ptr, bs_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                      FMT_A: tl.constexpr, FMT_B: tl.constexpr):
    PA: tl.constexpr = 2 if FMT_A == "e2m1" else 1
    PB: tl.constexpr = 2 if FMT_B == "e2m1" else 1
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rka = tl.arange(0, K // PA)
    rkb = tl.arange(0, K // PB)
    rs = tl.arange(0, K // 32)
    a = tl.load(a_ptr + rm[:, None] * (K // PA) + rka[None, :])
    b = tl.load(b_ptr + rkb[:, None] * N + rn[None, :])
    a_s = tl.load(as_ptr + rm[:, None] * (K // 32) + rs[None, :])
    b_s = tl.load(bs_ptr + rn[:, None] * (K // 32) + rs[None, :])
    c = tl.dot_scaled(a, a_s, FMT_A, b, b_s, FMT_B)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


@triton.jit
def dot_scaled_bf16_rhs_kernel(a_ptr, as_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    rs = tl.arange(0, K // 32)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    a_s = tl.load(as_ptr + rm[:, None] * (K // 32) + rs[None, :])
    c = tl.dot_scaled(a, a_s, "e4m3", b, None, "bf16")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


@triton.jit
def gemm_bf16_pipelined_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sbk, scm, BM: tl.constexpr, BN: tl.constexpr,
                               BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = (pid_m * BM + tl.arange(0, BM)) % M
    rn = (pid_n * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * sam + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * sbk + rn[None, :]
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BK, other=0.)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BK, other=0.)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * sbk
    cm = pid_m * BM + tl.arange(0, BM)
    cn = pid_n * BN + tl.arange(0, BN)
    tl.store(c_ptr + cm[:, None] * scm + cn[None, :], acc.to(tl.bfloat16), mask=(cm[:, None] < M) & (cn[None, :] < N))


@triton.jit
def gemm_tl_range_stages_kernel(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in tl.range(0, K, BK, num_stages=3):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc.to(tl.float16))


@triton.jit
def dot_bf16x3_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, PREC: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b, input_precision=PREC))


@triton.jit
def dot_w8_tiny_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.dot(a, b)
    c = tl.where(c > 0, c, 0.01 * c)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c.to(tl.float16))


# ============================================================================ scans / reductions / sort
@triton.jit
def cumsum_rev_axis0_kernel(x_ptr, y_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + r[:, None] * C + c[None, :])
    tl.store(y_ptr + r[:, None] * C + c[None, :], tl.cumsum(x, axis=0, reverse=True))


@triton.jit
def _seg_combine(v1, f1, v2, f2):
    return tl.where(f2 != 0, v2, v1 + v2), f1 | f2


@triton.jit
def seg_scan_tuple_kernel(x_ptr, f_ptr, y_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    f = tl.load(f_ptr + offs).to(tl.int32)
    y, _ = tl.associative_scan((x, f), 0, _seg_combine)
    tl.store(y_ptr + offs, y)


@triton.jit
def _amax_combine(v1, i1, v2, i2):
    gt = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(gt, v1, v2), tl.where(gt, i1, i2)


@triton.jit
def reduce_tuple2d_kernel(x_ptr, v_ptr, i_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + r[:, None] * C + c[None, :]).to(tl.float32)
    idx = tl.broadcast_to(c[None, :], (R, C))
    v, i = tl.reduce((x, idx), 1, _amax_combine)
    tl.store(v_ptr + r, v)
    tl.store(i_ptr + r, i)


@triton.jit
def argmax_keepdims_kernel(x_ptr, y_ptr, z_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + r[:, None] * C + c[None, :])
    am = tl.argmax(x, axis=1, keep_dims=True)
    mx = tl.max(x, axis=0, keep_dims=True)
    tl.store(y_ptr + r[:, None] + c[None, :] * 0, am, mask=c[None, :] == 0)
    tl.store(z_ptr + r[:, None] * C + c[None, :], x - mx)


@triton.jit
def sort_desc_2d_kernel(x_ptr, y_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + r[:, None] * C + c[None, :])
    tl.store(y_ptr + r[:, None] * C + c[None, :], tl.sort(x, dim=1, descending=True))


@triton.jit
def topk_2d_kernel(x_ptr, y_ptr, R: tl.constexpr, C: tl.constexpr, K: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + r[:, None] * C + c[None, :])
    t = tl.topk(x, K, dim=1)
    tl.store(y_ptr + r[:, None] * K + tl.arange(0, K)[None, :], t)


@triton.jit
def flip2d_kernel(x_ptr, y_ptr, z_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + r[:, None] * C + c[None, :])
    tl.store(y_ptr + r[:, None] * C + c[None, :], tl.flip(x, 0))
    tl.store(z_ptr + r[:, None] * C + c[None, :], tl.flip(x, 1))


@triton.jit
def trans3d_kernel(x_ptr, y_ptr, z_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    a = tl.arange(0, A)[:, None, None]
    b = tl.arange(0, B)[None, :, None]
    c = tl.arange(0, C)[None, None, :]
    x = tl.load(x_ptr + a * B * C + b * C + c)
    t = tl.trans(x, (1, 0, 2))  # [B, A, C]
    bb = tl.arange(0, B)[:, None, None]
    aa = tl.arange(0, A)[None, :, None]
    tl.store(y_ptr + bb * A * C + aa * C + c, t)
    p = tl.permute(x, 2, 1, 0)  # [C, B, A]
    c2 = tl.arange(0, C)[:, None, None]
    b2 = tl.arange(0, B)[None, :, None]
    a2 = tl.arange(0, A)[None, None, :]
    tl.store(z_ptr + c2 * B * A + b2 * A + a2, p * 2)


@triton.jit
def reorder_shape_kernel(x_ptr, y_ptr, s_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    x2 = tl.reshape(x, (N // 16, 16), can_reorder=True)
    rs = tl.sum(x2, axis=1)
    tl.store(s_ptr, tl.sum(rs, axis=0))
    a = tl.load(x_ptr + N + offs)
    cc = tl.cat(x, a, can_reorder=True)
    tl.store(y_ptr, tl.max(cc, axis=0))


@triton.jit
def gather_axis1_kernel(x_ptr, i_ptr, y_ptr, R: tl.constexpr, C: tl.constexpr, G: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    g = tl.arange(0, G)
    x = tl.load(x_ptr + r[:, None] * C + c[None, :])
    idx = tl.load(i_ptr + r[:, None] * G + g[None, :])
    y = tl.gather(x, idx, axis=1)
    tl.store(y_ptr + r[:, None] * G + g[None, :], y)


@triton.jit
def histogram_mask_kernel(x_ptr, h_ptr, n, BLOCK: tl.constexpr, NB: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    h = tl.histogram(x, NB, mask=m)
    tl.atomic_add(h_ptr + tl.arange(0, NB), h)


# ============================================================================ control flow
@triton.jit
def range_unroll_kernel(x_ptr, y_ptr, n_iter, stride, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, ), tl.float32)
    for i in tl.range(0, n_iter, loop_unroll_factor=4):
        acc += tl.load(x_ptr + i * stride + offs).to(tl.float32)
    tl.store(y_ptr + offs, acc)


@triton.jit
def static_range_list_kernel(x_ptr, y_ptr, n, SHIFTS: tl.constexpr, W: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, ), tl.float32)
    for j in tl.static_range(len(SHIFTS)):
        o = offs + SHIFTS[j]
        acc += W[j] * tl.load(x_ptr + o, mask=(o < n) & (o >= 0), other=0.)
    tl.store(y_ptr + offs, acc, mask=offs < n)


@triton.jit
def while_tensor_cond_kernel(x_ptr, y_ptr, it_ptr, thresh, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    it = 0
    while tl.max(tl.abs(x), axis=0) > thresh:
        x = x * 0.5
        it += 1
    tl.store(y_ptr + offs, x)
    tl.store(it_ptr, it)


@triton.jit
def if_on_reduction_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.)
    s = tl.sum(x, axis=0)
    if s > 0:
        y = x / s
    else:
        y = -x
    tl.store(y_ptr + offs, y, mask=offs < n)


@triton.jit
def early_return_loop_kernel(x_ptr, y_ptr, n, n_iter, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, ), tl.float32)
    for i in range(n_iter):
        acc += tl.load(x_ptr + i * BLOCK + offs, mask=offs < n, other=0.)
        tl.store(y_ptr + offs, acc, mask=offs < n)
        if tl.sum(acc, axis=0) > 100.0:
            return


@triton.jit
def early_return_top_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, x + 1, mask=offs < n)
    if tl.max(x, axis=0) < 0:
        return
    tl.store(y_ptr + n + offs, x, mask=offs < n)


@triton.jit
def nested_if_results_kernel(x_ptr, y_ptr, mode, k, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if mode > 0:
        if k > 2:
            y = x * 2.0
            z = tl.sum(x, axis=0)
        else:
            y = x + 1.0
            z = tl.max(x, axis=0)
    else:
        if k == 0:
            y = tl.exp(x)
            z = 0.0
        else:
            y = tl.cumsum(x, axis=0)
            z = 1.0
    tl.store(y_ptr + offs, y + z)


# ============================================================================ memory ops
@triton.jit
def cache_hints_kernel(x_ptr, w_ptr, f_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0., cache_modifier=".cg", eviction_policy="evict_last")
    w = tl.load(w_ptr + offs, mask=m, other=0., eviction_policy="evict_first")
    flag = tl.load(f_ptr, volatile=True)
    tl.store(y_ptr + offs, x * w + flag, mask=m, cache_modifier=".wt")


@triton.jit
def mask2d_nan_kernel(x_ptr, y_ptr, M, N, sx, sy, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mm = rm < M
    mn = rn < N
    mask = mm[:, None] & mn[None, :]
    x = tl.load(x_ptr + rm[:, None] * sx + rn[None, :], mask=mask, other=float("nan"))
    x = tl.where(x != x, 0.0, x)
    tl.store(y_ptr + rm[:, None] * sy + rn[None, :], x, mask=mask)


@triton.jit
def embedding_bag_kernel(idx_ptr, off_ptr, w_ptr, out_ptr, D, stride_w, MAX_BAG: tl.constexpr, BD: tl.constexpr):
    bag = tl.program_id(0)
    start = tl.load(off_ptr + bag)
    end = tl.load(off_ptr + bag + 1)
    j = tl.arange(0, MAX_BAG)
    mj = start + j < end
    ids = tl.load(idx_ptr + start + j, mask=mj, other=0)  # i64
    d = tl.program_id(1) * BD + tl.arange(0, BD)
    md = d < D
    rows = tl.load(w_ptr + ids[:, None] * stride_w + d[None, :], mask=mj[:, None] & md[None, :], other=0.)
    tl.store(out_ptr + bag.to(tl.int64) * D + d, tl.sum(rows.to(tl.float32), axis=0), mask=md)


@triton.jit
def scatter_store_kernel(x_ptr, dst_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    dst = tl.load(dst_ptr + offs, mask=m, other=-1)
    tl.store(y_ptr + dst, x, mask=m & (dst >= 0))


@triton.jit
def atomic_add_old_kernel(cnt_ptr, x_ptr, out_ptr, pos_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    bucket = x & 7
    old = tl.atomic_add(cnt_ptr + bucket, 1, mask=m)
    tl.store(pos_ptr + offs, old, mask=m)
    tl.store(out_ptr + bucket * 1024 + old, x, mask=m & (old < 1024))
    tot = tl.atomic_add(cnt_ptr + 8, tl.sum(m.to(tl.int32), axis=0), sem="acq_rel", scope="gpu")
    tl.store(out_ptr + 8 * 1024 + tl.program_id(0), tot)


@triton.jit
def spinlock_kernel(lock_ptr, acc_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    s = tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.), axis=0)
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    cur = tl.load(acc_ptr, volatile=True)
    tl.store(acc_ptr, cur + s)
    tl.debug_barrier()
    tl.atomic_xchg(lock_ptr, 0)


# ============================================================================ integer / f64
@triton.jit
def int_runtime_div_kernel(a_ptr, u_ptr, o_ptr, ou_ptr, n, d, sh, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(a_ptr + offs, mask=m, other=1)
    u = tl.load(u_ptr + offs, mask=m, other=1)
    q = a // d + a % d + tl.cdiv(a, d) + tl.abs(a) + (a << sh) + (a >> sh)
    du = d.to(tl.uint32)
    qu = u // du + u % du + (u >> sh.to(tl.uint32)) + (u << (sh & 31).to(tl.uint32))
    q2 = a // (u.to(tl.int32) | 1) + a % (offs + 1)
    tl.store(o_ptr + offs, q + q2, mask=m)
    tl.store(ou_ptr + offs, qu, mask=m)


@triton.jit
def small_int_wrap_kernel(a_ptr, b_ptr, c_ptr, p_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(a_ptr + offs, mask=m)  # u8
    b = tl.load(b_ptr + offs, mask=m)  # i16
    a2 = a * a + a  # wraps in u8
    b2 = b * b - (b >> 3) + tl.abs(b)
    tl.store(a_ptr + offs, a2, mask=m)
    tl.store(b_ptr + offs, b2, mask=m)
    p = a.to(tl.int64) * b.to(tl.int64) * 0x100000001 + offs.to(tl.int64)
    tl.store(p_ptr + offs, p // 3 + p % 1000003, mask=m)
    tl.store(c_ptr + offs, (a2.to(tl.int16) ^ b2) & 0x7ff, mask=m)


@triton.jit
def f64_math_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    y = tl.sqrt(tl.abs(x)) / (x + 3.0) + tl.exp(x * 0.001) + tl.log(tl.abs(x) + 1.0)
    s = tl.sum(y, axis=0)
    tl.store(y_ptr + offs, y / s, mask=m)


# ============================================================================ low precision casts
@triton.jit
def fp8_qdq_kernel(x_ptr, y_ptr, q_ptr, n, F8: tl.constexpr, FMAX: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.).to(tl.float32)
    amax = tl.maximum(tl.max(tl.abs(x), axis=0), 1e-12)
    scale = FMAX / amax
    q = tl.clamp(x * scale, -FMAX, FMAX).to(F8)
    tl.store(q_ptr + offs, q.to(tl.uint8, bitcast=True), mask=m)
    y = q.to(tl.float32) / scale
    tl.store(y_ptr + offs, y.to(tl.bfloat16), mask=m)


@triton.jit
def half_conv_bitcast_kernel(h_ptr, b_ptr, oh_ptr, ob_ptr, bits_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    h = tl.load(h_ptr + offs, mask=m, other=0.)
    b = tl.load(b_ptr + offs, mask=m, other=0.)
    tl.store(oh_ptr + offs, b.to(tl.float16) + h, mask=m)
    tl.store(ob_ptr + offs, h.to(tl.bfloat16) * b, mask=m)
    bits = tl.cast(h, tl.int16, bitcast=True).to(tl.int32) << 16
    f = tl.cast(bits, tl.float32, bitcast=True)
    tl.store(bits_ptr + offs, tl.cast(f + 1.0, tl.int32, bitcast=True), mask=m)


@triton.jit
def rtz_downcast_kernel(x_ptr, h_ptr, b_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.)
    tl.store(h_ptr + offs, x.to(tl.float16, fp_downcast_rounding="rtz"), mask=m)
    tl.store(b_ptr + offs, x.to(tl.bfloat16, fp_downcast_rounding="rtz"), mask=m)


@triton.jit
def rtz_to_f32_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.)
    tl.store(y_ptr + offs, x.to(tl.float32, fp_downcast_rounding="rtz"), mask=m)


# ============================================================================ misc
@triton.jit
def int4_unpack_join_kernel(q_ptr, s_ptr, y_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    q = tl.load(q_ptr + r[:, None] * C + c[None, :])  # u8 packed, [R, C]
    lo = (q & 0xF).to(tl.int8) - 8
    hi = (q >> 4).to(tl.int8) - 8
    v = tl.reshape(tl.join(lo, hi), (R, 2 * C))
    s = tl.load(s_ptr + r)
    y = v.to(tl.float16) * s[:, None]
    c2 = tl.arange(0, 2 * C)
    tl.store(y_ptr + r[:, None] * 2 * C + c2[None, :], y)


@triton.jit
def block_ptr_nan_pad_kernel(x_ptr, y_ptr, M, N, sm, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    xb = tl.make_block_ptr(x_ptr, (M, N), (sm, 1), (pid * BM, 0), (BM, BN), (1, 0))
    acc = tl.full((BM, ), float("-inf"), tl.float32)
    for _ in range(0, N, BN):
        x = tl.load(xb, boundary_check=(0, 1), padding_option="nan")
        acc = tl.maximum(acc, tl.max(tl.where(x != x, float("-inf"), x), axis=1))
        xb = tl.advance(xb, (0, BN))
    yb = tl.make_block_ptr(y_ptr, (M, ), (1, ), (pid * BM, ), (BM, ), (0, ))
    tl.store(yb, acc, boundary_check=(0, ))


@triton.jit
def reduce_all_3d_kernel(x_ptr, y_ptr, z_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    a = tl.arange(0, A)[:, None, None]
    b = tl.arange(0, B)[None, :, None]
    c = tl.arange(0, C)[None, None, :]
    x = tl.load(x_ptr + a * B * C + b * C + c)
    tot = tl.sum(x)
    m2 = tl.max(x, axis=2)  # [A, B]
    sm = tl.exp(x - m2[:, :, None])
    sm = sm / tl.sum(sm, axis=2, keep_dims=True)
    tl.store(y_ptr + a * B * C + b * C + c, sm + tot)
    mx, ix = tl.max(tl.sum(x, axis=1), axis=1, return_indices=True)
    tl.store(z_ptr + tl.arange(0, A), mx + ix.to(tl.float32))


@triton.jit
def fma_clamp_umulhi_kernel(x_ptr, u_ptr, y_ptr, v_ptr, lo, hi, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.)
    u = tl.load(u_ptr + offs, mask=m, other=0)
    y = tl.fma(x, x, 1.0)
    y = tl.clamp(y, lo, hi, propagate_nan=tl.PropagateNan.ALL)
    y = tl.minimum(y, x, propagate_nan=tl.PropagateNan.ALL)
    tl.store(y_ptr + offs, y, mask=m)
    tl.store(v_ptr + offs, tl.umulhi(u, u + 12345), mask=m)


@triton.jit
def softmax_axis0_kernel(x_ptr, y_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + r[:, None] * C + c[None, :]).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=0)[None, :])
    y = e / tl.sum(e, axis=0)[None, :]
    tl.store(y_ptr + r[:, None] * C + c[None, :], y.to(tl.float16))


@triton.jit
def broadcast_expand_kernel(x_ptr, y_ptr, B: tl.constexpr, N: tl.constexpr):
    n = tl.arange(0, N)
    x = tl.load(x_ptr + n)
    x3 = tl.expand_dims(tl.expand_dims(x, 0), 2)  # [1, N, 1]
    y = tl.broadcast_to(x3, (B, N, 4))
    bb = tl.arange(0, B)[:, None, None]
    nn = tl.arange(0, N)[None, :, None]
    kk = tl.arange(0, 4)[None, None, :]
    tl.store(y_ptr + bb * N * 4 + nn * 4 + kk, y * (kk + bb).to(tl.float32))


@triton.jit
def randint_dropout_kernel(x_ptr, y_ptr, n, seed, p, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    r0, r1, r2, r3 = tl.randint4x(seed, offs)
    x = tl.load(x_ptr + offs, mask=m)
    keep = tl.rand(seed, offs + 7) > p
    tl.store(y_ptr + offs, tl.where(keep, x / (1 - p), 0.0) + (r2 & 1).to(tl.float32) * 0 + (r3 >> 31).to(tl.float32) * 0, mask=m)


@triton.jit
def tensor_desc_kernel(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    out = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pm = tl.program_id(0) * BM
    pn = tl.program_id(1) * BN
    x = desc.load([pm, pn])
    out.store([pm, pn], x * 2)


def cases():
    f16, bf16, f32, f64, i8, u8, i16, i32, u32, i64 = "fp16", "bf16", "fp32", "fp64", "i8", "u8", "i16", "i32", "u32", "i64"
    C = []

    def add(name, fn, cex, args, nw=4, ns=1, archs=None):
        C.append((name, fn, cex, {"num_warps": nw, "num_stages": ns}, args, archs))

    add("grid2d_i64_256_f32", grid2d_i64_kernel, {"BLOCK": 256},
        dict(x_ptr=P(f32), y_ptr=P(f32), stride_row=3 * 2**31, n_cols=5000))
    add("grid3d_bigstride_128_f16", grid3d_bigstride_kernel, {"BLOCK": 128},
        dict(x_ptr=P(f16), y_ptr=P(f16), stride_b=2**33, stride_h=5000, n=1000), nw=2)
    add("bmm3d_dot_2x32x32x32_f16", bmm3d_dot_kernel, {"B": 2, "M": 32, "N": 32, "K": 32},
        dict(a_ptr=P(f16), b_ptr=P(f16), c_ptr=P(f16)))
    add("bmm3d_dot_4x16x64x32_bf16_w8", bmm3d_dot_kernel, {"B": 4, "M": 16, "N": 64, "K": 32},
        dict(a_ptr=P(bf16), b_ptr=P(bf16), c_ptr=P(f16)), nw=8)
    add("attn_fwd_w8_128x64x64_bf16", attn_fwd_w8_kernel, {"BLOCK_M": 128, "BLOCK_N": 64, "D": 64},
        dict(Q=P(bf16), K=P(bf16), V=P(bf16), O=P(bf16), L=P(f32), N_CTX=512, sm_scale=F32(0.125), stride_h=32768),
        nw=8)
    add("dot_acc_f16_loop_32x32x32", dot_acc_f16_loop_kernel, {"BM": 32, "BN": 32, "BK": 32},
        dict(a_ptr=P(f16), b_ptr=P(f16), c_ptr=P(f16), K=128))
    add("i8_dot_m16_16x64x64", i8_dot_m16_kernel, {"N": 64, "K": 64}, dict(a_ptr=P(i8), b_ptr=P(i8), c_ptr=P(i32)))
    add("dot_scaled_mxfp4_32x32x128", dot_scaled_kernel, {"M": 32, "N": 32, "K": 128, "FMT_A": "e2m1", "FMT_B": "e2m1"},
        dict(a_ptr=P(u8), as_ptr=P(u8), b_ptr=P(u8), bs_ptr=P(u8), c_ptr=P(f32)))
    add("dot_scaled_mxfp8_32x32x64", dot_scaled_kernel, {"M": 32, "N": 32, "K": 64, "FMT_A": "e4m3", "FMT_B": "e5m2"},
        dict(a_ptr=P(u8), as_ptr=P(u8), b_ptr=P(u8), bs_ptr=P(u8), c_ptr=P(f32)))
    add("dot_scaled_e4m3_bf16_32x32x64", dot_scaled_bf16_rhs_kernel, {"M": 32, "N": 32, "K": 64},
        dict(a_ptr=P("fp8e4nv"), as_ptr=P(u8), b_ptr=P(bf16), c_ptr=P(f32)))
    for ns in (2, 3):
        add(f"gemm_bf16_ns{ns}_64x64x64", gemm_bf16_pipelined_kernel, {"BM": 64, "BN": 64, "BK": 64},
            dict(a_ptr=P(bf16), b_ptr=P(bf16), c_ptr=P(bf16), M=200, N=200, K=300, sam=300, sbk=200, scm=200), ns=ns)
    add("gemm_tl_range_stages_64x64x32_f16", gemm_tl_range_stages_kernel, {"BM": 64, "BN": 64, "BK": 32},
        dict(a_ptr=P(f16), b_ptr=P(f16), c_ptr=P(f16), K=256))
    for prec in ("bf16x3", "bf16x6"):
        add(f"dot_{prec}_32x32x32", dot_bf16x3_kernel, {"M": 32, "N": 32, "K": 32, "PREC": prec},
            dict(a_ptr=P(f32), b_ptr=P(f32), c_ptr=P(f32)))
    add("dot_w8_tiny_16x16x16_f16", dot_w8_tiny_kernel, {"M": 16, "N": 16, "K": 16},
        dict(a_ptr=P(f16), b_ptr=P(f16), c_ptr=P(f16)), nw=8)
    add("dot_k8_32x32x8_f16", dot_w8_tiny_kernel, {"M": 32, "N": 32, "K": 8},
        dict(a_ptr=P(f16), b_ptr=P(f16), c_ptr=P(f16)))
    add("cumsum_rev_axis0_32x16_f32", cumsum_rev_axis0_kernel, {"R": 32, "C": 16}, dict(x_ptr=P(f32), y_ptr=P(f32)))
    add("seg_scan_tuple_256", seg_scan_tuple_kernel, {"N": 256}, dict(x_ptr=P(f32), f_ptr=P(i8), y_ptr=P(f32)))
    add("reduce_tuple2d_16x128_bf16", reduce_tuple2d_kernel, {"R": 16, "C": 128},
        dict(x_ptr=P(bf16), v_ptr=P(f32), i_ptr=P(i32)))
    add("argmax_keepdims_32x64_f32", argmax_keepdims_kernel, {"R": 32, "C": 64},
        dict(x_ptr=P(f32), y_ptr=P(i32), z_ptr=P(f32)))
    add("sort_desc_2d_4x128_f16", sort_desc_2d_kernel, {"R": 4, "C": 128}, dict(x_ptr=P(f16), y_ptr=P(f16)))
    add("topk_2d_8x64_k8_f32", topk_2d_kernel, {"R": 8, "C": 64, "K": 8}, dict(x_ptr=P(f32), y_ptr=P(f32)))
    add("flip2d_16x32_i32", flip2d_kernel, {"R": 16, "C": 32}, dict(x_ptr=P(i32), y_ptr=P(i32), z_ptr=P(i32)))
    add("trans3d_4x8x32_f16", trans3d_kernel, {"A": 4, "B": 8, "C": 32},
        dict(x_ptr=P(f16), y_ptr=P(f16), z_ptr=P(f16)))
    add("reorder_shape_512_f32", reorder_shape_kernel, {"N": 512}, dict(x_ptr=P(f32), y_ptr=P(f32), s_ptr=P(f32)))
    add("gather_axis1_16x64_g32_f32", gather_axis1_kernel, {"R": 16, "C": 64, "G": 32},
        dict(x_ptr=P(f32), i_ptr=P(i32), y_ptr=P(f32)))
    add("histogram_mask_1024_nb64", histogram_mask_kernel, {"BLOCK": 1024, "NB": 64},
        dict(x_ptr=P(i32), h_ptr=P(i32), n=3000))
    add("range_unroll_256_bf16", range_unroll_kernel, {"BLOCK": 256},
        dict(x_ptr=P(bf16), y_ptr=P(f32), n_iter=10, stride=256))
    add("static_range_list_256_f32", static_range_list_kernel,
        {"SHIFTS": (-2, -1, 0, 1, 2), "W": (0.1, 0.2, 0.4, 0.2, 0.1), "BLOCK": 256},
        dict(x_ptr=P(f32), y_ptr=P(f32), n=1000))
    add("while_tensor_cond_128_f32", while_tensor_cond_kernel, {"BLOCK": 128},
        dict(x_ptr=P(f32), y_ptr=P(f32), it_ptr=P(i32), thresh=F32(1.0)))
    add("if_on_reduction_512_f32", if_on_reduction_kernel, {"BLOCK": 512}, dict(x_ptr=P(f32), y_ptr=P(f32), n=1000))
    add("early_return_loop_128_f32", early_return_loop_kernel, {"BLOCK": 128},
        dict(x_ptr=P(f32), y_ptr=P(f32), n=100, n_iter=5))
    add("early_return_top_128_f32", early_return_top_kernel, {"BLOCK": 128}, dict(x_ptr=P(f32), y_ptr=P(f32), n=1000))
    add("nested_if_results_128_f32", nested_if_results_kernel, {"BLOCK": 128},
        dict(x_ptr=P(f32), y_ptr=P(f32), mode=3, k=5))
    add("cache_hints_256_f32", cache_hints_kernel, {"BLOCK": 256},
        dict(x_ptr=P(f32), w_ptr=P(f32), f_ptr=P(f32), y_ptr=P(f32), n=1000))
    add("mask2d_nan_32x64_f32", mask2d_nan_kernel, {"BM": 32, "BN": 64},
        dict(x_ptr=P(f32), y_ptr=P(f32), M=100, N=70, sx=70, sy=72))
    add("embedding_bag_16x128_bf16", embedding_bag_kernel, {"MAX_BAG": 16, "BD": 128},
        dict(idx_ptr=P(i64), off_ptr=P(i64), w_ptr=P(bf16), out_ptr=P(f32), D=300, stride_w=300))
    add("scatter_store_256_f32", scatter_store_kernel, {"BLOCK": 256},
        dict(x_ptr=P(f32), dst_ptr=P(i32), y_ptr=P(f32), n=1000))
    add("atomic_add_old_256_i32", atomic_add_old_kernel, {"BLOCK": 256},
        dict(cnt_ptr=P(i32), x_ptr=P(i32), out_ptr=P(i32), pos_ptr=P(i32), n=1000))
    add("spinlock_256_f32", spinlock_kernel, {"BLOCK": 256},
        dict(lock_ptr=P(i32), acc_ptr=P(f32), x_ptr=P(f32), n=1000))
    add("int_runtime_div_256", int_runtime_div_kernel, {"BLOCK": 256},
        dict(a_ptr=P(i32), u_ptr=P(u32), o_ptr=P(i32), ou_ptr=P(u32), n=1000, d=7, sh=3))
    add("small_int_wrap_256", small_int_wrap_kernel, {"BLOCK": 256},
        dict(a_ptr=P(u8), b_ptr=P(i16), c_ptr=P(i16), p_ptr=P(i64), n=1000))
    add("f64_math_128", f64_math_kernel, {"BLOCK": 128}, dict(x_ptr=P(f64), y_ptr=P(f64), n=1000))
    for f8, fmax, arch in (("fp8e4nv", 448.0, None), ("fp8e5", 57344.0, None),
                           ("fp8e4b8", 240.0, ["gfx942"]), ("fp8e5b16", 57344.0, ["gfx942"])):
        add(f"fp8_qdq_{f8}_512", fp8_qdq_kernel, {"F8": getattr(tl, {"fp8e4nv": "float8e4nv", "fp8e5": "float8e5",
                                                                      "fp8e4b8": "float8e4b8",
                                                                      "fp8e5b16": "float8e5b16"}[f8]),
                                                   "FMAX": fmax, "BLOCK": 512},
            dict(x_ptr=P(f16), y_ptr=P(bf16), q_ptr=P(u8), n=1000), archs=arch)
    add("half_conv_bitcast_256", half_conv_bitcast_kernel, {"BLOCK": 256},
        dict(h_ptr=P(f16), b_ptr=P(bf16), oh_ptr=P(f16), ob_ptr=P(bf16), bits_ptr=P(i32), n=1000))
    add("rtz_downcast_256", rtz_downcast_kernel, {"BLOCK": 256},
        dict(x_ptr=P(f32), h_ptr=P(f16), b_ptr=P(bf16), n=1000))
    add("rtz_to_f32_256", rtz_to_f32_kernel, {"BLOCK": 256}, dict(x_ptr=P(f64), y_ptr=P(f32), n=1000))
    add("int4_unpack_join_16x32", int4_unpack_join_kernel, {"R": 16, "C": 32},
        dict(q_ptr=P(u8), s_ptr=P(f16), y_ptr=P(f16)))
    add("block_ptr_nan_pad_32x64_f32", block_ptr_nan_pad_kernel, {"BM": 32, "BN": 64},
        dict(x_ptr=P(f32), y_ptr=P(f32), M=100, N=300, sm=300))
    add("reduce_all_3d_4x8x16_f32", reduce_all_3d_kernel, {"A": 4, "B": 8, "C": 16},
        dict(x_ptr=P(f32), y_ptr=P(f32), z_ptr=P(f32)))
    add("fma_clamp_umulhi_256", fma_clamp_umulhi_kernel, {"BLOCK": 256},
        dict(x_ptr=P(f32), u_ptr=P(u32), y_ptr=P(f32), v_ptr=P(u32), lo=F32(-1.0), hi=F32(4.0), n=1000))
    add("softmax_axis0_64x32_f16", softmax_axis0_kernel, {"R": 64, "C": 32}, dict(x_ptr=P(f16), y_ptr=P(f16)))
    add("broadcast_expand_4x64_f32", broadcast_expand_kernel, {"B": 4, "N": 64}, dict(x_ptr=P(f32), y_ptr=P(f32)))
    add("randint_dropout_512_f32", randint_dropout_kernel, {"BLOCK": 512},
        dict(x_ptr=P(f32), y_ptr=P(f32), n=1000, seed=42, p=F32(0.1)))
    add("tensor_desc_32x64_f16", tensor_desc_kernel, {"BM": 32, "BN": 64},
        dict(x_ptr=P(f16), y_ptr=P(f16), M=128, N=256))
    return C


# ============================================================================ batch 2 (extra)
@triton.jit
def moe_scatter_rows_kernel(x_ptr, dst_ptr, out_ptr, n_tok, D, BM: tl.constexpr, BD: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    d = tl.arange(0, BD)
    mm = rm < n_tok
    dst = tl.load(dst_ptr + rm, mask=mm, other=0).to(tl.int64)
    mask = mm[:, None] & (d[None, :] < D)
    x = tl.load(x_ptr + rm[:, None] * D + d[None, :], mask=mask, other=0.)
    tl.store(out_ptr + dst[:, None] * D + d[None, :], x, mask=mask)


@triton.jit
def atomic_hist_data_kernel(x_ptr, hist_ptr, n, NB: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    tl.atomic_add(hist_ptr + (x % NB), 1, mask=m)


@triton.jit
def splitk_atomic_dot_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                             SPLIT: tl.constexpr):
    pid = tl.program_id(0)
    pk = tl.program_id(1)
    rm = pid * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = pk * BK + tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK * SPLIT):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :], mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.)
        acc += tl.dot(a, b)
    tl.atomic_add(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def trans_in_loop_kernel(x_ptr, y_ptr, n_iter, N: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + r[None, :])
    for i in range(n_iter):
        x = tl.trans(x) * 0.5 + x
    tl.store(y_ptr + r[:, None] * N + r[None, :], x)


@triton.jit
def qkT_trans_dot_kernel(q_ptr, k_ptr, s_ptr, M: tl.constexpr, N: tl.constexpr, D: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
    k = tl.load(k_ptr + rn[:, None] * D + rd[None, :])
    s = tl.dot(q, tl.trans(k))
    p = tl.softmax(s, dim=1)
    tl.store(s_ptr + rm[:, None] * N + rn[None, :], p.to(tl.float16))


@triton.jit
def _rev_max(a, b):
    return tl.maximum(a, b)


@triton.jit
def bool_cumsum_moe_kernel(ids_ptr, cnt_ptr, pos_ptr, R: tl.constexpr, E: tl.constexpr):
    r = tl.arange(0, R)
    e = tl.arange(0, E)
    ids = tl.load(ids_ptr + r)
    onehot = ids[:, None] == e[None, :]
    cs = tl.cumsum(onehot.to(tl.int32), axis=0)
    tl.store(cnt_ptr + e, tl.sum(onehot.to(tl.int32), axis=0))
    pos = tl.sum(tl.where(onehot, cs - 1, 0), axis=1)
    sufmax = tl.associative_scan(pos, 0, _rev_max, reverse=True)
    tl.store(pos_ptr + r, pos + sufmax)


@triton.jit
def i64_u64_minmax_kernel(x_ptr, u_ptr, mx_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    u = tl.load(u_ptr + offs, mask=m, other=0)
    tl.store(out_ptr + tl.program_id(0) * 2, tl.min(x, axis=0))
    tl.store(out_ptr + tl.program_id(0) * 2 + 1, tl.max(u, axis=0).to(tl.int64))
    tl.atomic_max(mx_ptr, tl.max(x, axis=0))


@triton.jit
def where_ptr_2d_kernel(a_ptr, b_ptr, y_ptr, sel_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    sel = tl.load(sel_ptr + r)
    pa = a_ptr + r[:, None] * C + c[None, :]
    pb = b_ptr + r[:, None] * C + c[None, :]
    p = tl.where(sel[:, None] != 0, pa, pb)
    tl.store(y_ptr + r[:, None] * C + c[None, :], tl.load(p))


@triton.jit
def dot_acc_from_load_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.load(c_ptr + rm[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b, c))


@triton.jit
def nested_loop_dot_kernel(a_ptr, b_ptr, o_ptr, H, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    tot = tl.zeros((BM, ), tl.float32)
    for h in range(H):
        acc = tl.zeros((BM, BN), tl.float32)
        for k in range(0, K, BK):
            a = tl.load(a_ptr + h * BM * K + rm[:, None] * K + (k + rk)[None, :])
            b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
            acc = tl.dot(a, b, acc)
        tot += tl.max(acc, axis=1)
    tl.store(o_ptr + rm, tot)


def cases_extra():
    f16, bf16, f32, i32, u32, i64 = "fp16", "bf16", "fp32", "i32", "u32", "i64"
    C = []

    def add(name, fn, cex, args, nw=4, ns=1, archs=None):
        C.append((name, fn, cex, {"num_warps": nw, "num_stages": ns}, args, archs))

    add("moe_scatter_rows_16x128_bf16", moe_scatter_rows_kernel, {"BM": 16, "BD": 128},
        dict(x_ptr=P(bf16), dst_ptr=P(i32), out_ptr=P(bf16), n_tok=100, D=128))
    add("atomic_hist_data_1024_nb32", atomic_hist_data_kernel, {"NB": 32, "BLOCK": 1024},
        dict(x_ptr=P(i32), hist_ptr=P(i32), n=3000))
    add("splitk_atomic_dot_64x64x32_f16", splitk_atomic_dot_kernel, {"BM": 64, "BN": 64, "BK": 32, "SPLIT": 4},
        dict(a_ptr=P(f16), b_ptr=P(f16), c_ptr=P(f32), M=100, N=64, K=512))
    add("trans_in_loop_32_f32", trans_in_loop_kernel, {"N": 32}, dict(x_ptr=P(f32), y_ptr=P(f32), n_iter=3))
    add("qkT_trans_dot_64x64x64_f16", qkT_trans_dot_kernel, {"M": 64, "N": 64, "D": 64},
        dict(q_ptr=P(f16), k_ptr=P(f16), s_ptr=P(f16)))
    add("bool_cumsum_moe_256x16", bool_cumsum_moe_kernel, {"R": 256, "E": 16},
        dict(ids_ptr=P(i32), cnt_ptr=P(i32), pos_ptr=P(i32)))
    add("i64_u64_minmax_256", i64_u64_minmax_kernel, {"BLOCK": 256},
        dict(x_ptr=P(i64), u_ptr=P("u64"), mx_ptr=P(i64), out_ptr=P(i64), n=1000))
    add("where_ptr_2d_16x64_f32", where_ptr_2d_kernel, {"R": 16, "C": 64},
        dict(a_ptr=P(f32), b_ptr=P(f32), y_ptr=P(f32), sel_ptr=P(i32)))
    add("dot_acc_from_load_128x16x64_f16_w2", dot_acc_from_load_kernel, {"M": 128, "N": 16, "K": 64},
        dict(a_ptr=P(f16), b_ptr=P(f16), c_ptr=P(f32)), nw=2)
    add("nested_loop_dot_32x32x32_f16", nested_loop_dot_kernel, {"BM": 32, "BN": 32, "BK": 32},
        dict(a_ptr=P(f16), b_ptr=P(f16), o_ptr=P(f32), H=4, K=128))
    return C


def more_cases():
    """Every kernel here: (name, fn, constexprs, options, arguments, archs or None)."""
    return cases() + cases_extra()
