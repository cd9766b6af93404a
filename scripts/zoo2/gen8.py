#!/usr/bin/env python3
"""Round 8 of the second zoo (LLM and vision kernels: `tl.assume`, an early `return`, f16 atomics, a batched
3-D dot, `loop_unroll_factor`, tuple reductions and scans, fp8 quantization, gathers at computed indices, a
fused MoE matmul): writes fx8/ as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen8.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, F32, cdiv, triton, tl  # noqa: E402


# 1. A scaled 2-D copy whose strides and program id carry `tl.assume` facts (AMD's tuned kernels write them).
@triton.jit
def assume_scale_rows_kernel(x_ptr, y_ptr, M, N, stride_x, stride_y, scale, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    tl.assume(pid >= 0)
    tl.assume(stride_x > 0)
    tl.assume(stride_y > 0)
    rows = pid * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    m = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride_x + cols[None, :], mask=m, other=0.)
    tl.store(y_ptr + rows[:, None] * stride_y + cols[None, :], x * scale, mask=m)


# 2. Cross-entropy forward and backward in place (Liger style): rows whose target is the ignore index write zeros
#    and return early; the others take an online log-sum-exp over vocabulary blocks, then overwrite the logits
#    with the gradient.
@triton.jit
def cross_entropy_kernel(logits_ptr, target_ptr, loss_ptr, stride, V, ignore_index, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    y = tl.load(target_ptr + row)
    y = tl.where(y < -50, ignore_index, (y % V + V) % V)
    base = logits_ptr + row * stride
    if y == ignore_index:
        for off in range(0, V, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            tl.store(base + cols, tl.zeros([BLOCK], dtype=tl.float32), mask=cols < V)
        tl.store(loss_ptr + row, 0.0)
        return
    m = float("-inf")
    d = 0.0
    for off in range(0, V, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(base + cols, mask=cols < V, other=float("-inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    lse = m + tl.log(d)
    x_y = tl.load(base + y)
    for off in range(0, V, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(base + cols, mask=cols < V, other=0.)
        g = tl.exp(x - lse) - (cols == y).to(tl.float32)
        tl.store(base + cols, g, mask=cols < V)
    tl.store(loss_ptr + row, lse - x_y)


# 3. Embedding backward in f16: each token adds its gradient row into the table row it read, by f16 atomics.
@triton.jit
def embedding_bwd_f16_kernel(ids_ptr, dout_ptr, dw_ptr, D, NV, BLOCK: tl.constexpr):
    t = tl.program_id(0)
    idx = tl.load(ids_ptr + t)
    idx = (idx % NV + NV) % NV
    cols = tl.arange(0, BLOCK)
    g = tl.load(dout_ptr + t * D + cols, mask=cols < D, other=0.)
    tl.atomic_add(dw_ptr + idx * D + cols, g, mask=cols < D)


# 4. A batched matmul written as one 3-D `tl.dot` (a batch of 2 16x16 f16 tiles), f32 out.
@triton.jit
def bmm3d_kernel(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rb = tl.arange(0, B)
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rb[:, None, None] * M * K + rm[None, :, None] * K + rk[None, None, :])
    b = tl.load(b_ptr + rb[:, None, None] * K * N + rk[None, :, None] * N + rn[None, None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + rb[:, None, None] * M * N + rm[None, :, None] * N + rn[None, None, :], c)


# 5. Row sums over a runtime length with `tl.range(..., loop_unroll_factor=2)`: Triton's TTIR holds the loop
#    unrolled twice and a remainder loop.
@triton.jit
def unroll2_rowsum_kernel(x_ptr, y_ptr, n, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in tl.range(0, n, BLOCK, loop_unroll_factor=2):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < n, other=0.)
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def _welford_combine(mean_a, m2_a, n_a, mean_b, m2_b, n_b):
    n = n_a + n_b
    delta = mean_b - mean_a
    w = tl.where(n == 0, 0., n_b / tl.maximum(n, 1.))
    return mean_a + delta * w, m2_a + m2_b + delta * delta * n_a * w, n


# 6. Row mean and variance by Welford's parallel combine: a reduction of a three-value tuple.
@triton.jit
def welford_rows_kernel(x_ptr, mean_ptr, var_ptr, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=0.)
    cnt = mask.to(tl.float32)
    mean, m2, n = tl.reduce((x, tl.zeros_like(x), cnt), 1, _welford_combine)
    tl.store(mean_ptr + rows, mean, mask=rows < M)
    tl.store(var_ptr + rows, m2 / tl.maximum(n, 1.), mask=rows < M)


@triton.jit
def _segment_combine(v_a, f_a, v_b, f_b):
    return tl.where(f_b != 0, v_b, v_a + v_b), f_a | f_b


# 7. A segmented inclusive sum: a scan of (value, segment-start flag) pairs whose combine restarts at a flag.
@triton.jit
def segmented_cumsum_kernel(x_ptr, key_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    starts = (tl.load(key_ptr + offs, mask=mask, other=0) % 3 == 0).to(tl.int32)
    y, _ = tl.associative_scan((x, starts), 0, _segment_combine)
    tl.store(y_ptr + offs, y, mask=mask)


# 8. Dynamic per-token quantization to fp8 (e5m2): the row's absolute maximum sets the scale, stored beside.
@triton.jit
def quant_fp8_rows_kernel(x_ptr, q_ptr, scale_ptr, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    scale = tl.maximum(tl.max(tl.abs(x), axis=0), 1e-6) / 448.0
    q = (x / scale).to(tl.float8e5)
    tl.store(q_ptr + row * stride + cols, q, mask=mask)
    tl.store(scale_ptr + row, scale)


# 9. Bilinear 2x upsampling (align_corners=False): source coordinates, floors, clamps, four gathers per output.
@triton.jit
def upsample_bilinear_kernel(x_ptr, y_ptr, H, W, OH, OW, scale_h, scale_w, BLOCK: tl.constexpr):
    c = tl.program_id(1)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < OH * OW
    oy = offs // OW
    ox = offs % OW
    sy = tl.maximum((oy.to(tl.float32) + 0.5) * scale_h - 0.5, 0.)
    sx = tl.maximum((ox.to(tl.float32) + 0.5) * scale_w - 0.5, 0.)
    y0 = sy.to(tl.int32)
    x0 = sx.to(tl.int32)
    y1 = tl.minimum(y0 + 1, H - 1)
    x1 = tl.minimum(x0 + 1, W - 1)
    ly = sy - y0.to(tl.float32)
    lx = sx - x0.to(tl.float32)
    src = x_ptr + c * H * W
    v00 = tl.load(src + y0 * W + x0, mask=mask, other=0.)
    v01 = tl.load(src + y0 * W + x1, mask=mask, other=0.)
    v10 = tl.load(src + y1 * W + x0, mask=mask, other=0.)
    v11 = tl.load(src + y1 * W + x1, mask=mask, other=0.)
    top = v00 * (1. - lx) + v01 * lx
    bot = v10 * (1. - lx) + v11 * lx
    tl.store(y_ptr + c * OH * OW + offs, top * (1. - ly) + bot * ly, mask=mask)


# 10. 2x2 max pooling with the argmax's flat index (return_indices), windows unrolled by tl.static_range.
@triton.jit
def maxpool2x2_idx_kernel(x_ptr, y_ptr, idx_ptr, H, W, OH, OW, BLOCK: tl.constexpr):
    c = tl.program_id(1)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < OH * OW
    oy = offs // OW
    ox = offs % OW
    best = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
    where = tl.zeros([BLOCK], dtype=tl.int32)
    for dy in tl.static_range(2):
        for dx in tl.static_range(2):
            iy = oy * 2 + dy
            ix = ox * 2 + dx
            v = tl.load(x_ptr + c * H * W + iy * W + ix, mask=mask & (iy < H) & (ix < W), other=float("-inf"))
            take = v > best
            best = tl.where(take, v, best)
            where = tl.where(take, iy * W + ix, where)
    tl.store(y_ptr + c * OH * OW + offs, best, mask=mask)
    tl.store(idx_ptr + c * OH * OW + offs, where, mask=mask)


# 11. The bit-trick inverse square root: a float's bits as an integer and back, one Newton step.
@triton.jit
def fast_rsqrt_bits_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.abs(tl.load(x_ptr + offs, mask=mask, other=1.)) + 1.
    i = x.to(tl.int32, bitcast=True)
    i = 0x5F3759DF - (i >> 1)
    y = i.to(tl.float32, bitcast=True)
    y = y * (1.5 - 0.5 * x * y * y)
    tl.store(y_ptr + offs, y, mask=mask)


# 12. Sampling a token per row: the cumulative sum of (unnormalised) probabilities against a uniform draw.
@triton.jit
def sample_cumsum_kernel(p_ptr, u_ptr, tok_ptr, V, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    p = tl.abs(tl.load(p_ptr + row * stride + cols, mask=cols < V, other=0.))
    c = tl.cumsum(p, axis=0)
    u = tl.abs(tl.load(u_ptr + row)) / 16.0 * tl.sum(p, axis=0)
    tok = tl.sum((c < u).to(tl.int32), axis=0)
    tl.store(tok_ptr + row, tl.minimum(tok, V - 1))


# 13. KL divergence per row (log-probabilities against target probabilities), the batch total by a scalar atomic.
@triton.jit
def kl_div_rows_kernel(logp_ptr, t_ptr, row_ptr, total_ptr, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    logp = tl.load(logp_ptr + row * stride + cols, mask=mask, other=0.)
    t = tl.abs(tl.load(t_ptr + row * stride + cols, mask=mask, other=0.)) / 16.0
    kl = tl.where(t > 0, t * (tl.log(t) - logp), 0.)
    s = tl.sum(kl, axis=0)
    tl.store(row_ptr + row, s)
    tl.atomic_add(total_ptr, s)


# 14. Bias and SiLU over an NCHW tensor flattened to 1-D: the channel of each element is (i // HW) % C.
@triton.jit
def nchw_bias_silu_kernel(x_ptr, b_ptr, y_ptr, numel, HW, C, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    ch = (offs // HW) % C
    v = tl.load(x_ptr + offs, mask=mask, other=0.) + tl.load(b_ptr + ch, mask=mask, other=0.)
    tl.store(y_ptr + offs, v * tl.sigmoid(v), mask=mask)


# 15. A fused MoE matmul (vLLM style): each block of sorted token slots gathers its rows of A (token // top_k),
#     multiplies by its expert's weight matrix, scales by the routing weight and scatters rows of C.
@triton.jit
def fused_moe_kernel(a_ptr, b_ptr, c_ptr, w_ptr, ids_ptr, experts_ptr, num_valid, N, K, E, stride_am, stride_be,
                     stride_bk, stride_cm, TOP_K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                     BK: tl.constexpr, SLOTS: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    slot = pid_m * BM + tl.arange(0, BM)
    tok = tl.load(ids_ptr + slot) + (slot * 7) % SLOTS
    tmask = tok < num_valid
    e = tl.load(experts_ptr + pid_m)
    e = (e % E + E) % E
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + (tok[:, None] // TOP_K) * stride_am + rk[None, :]
    b_ptrs = b_ptr + e * stride_be + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=tmask[:, None] & (rk[None, :] < K - k * BK), other=0.)
        b = tl.load(b_ptrs, mask=(rk[:, None] < K - k * BK) & (rn[None, :] < N), other=0.)
        acc += tl.dot(a, b)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    wt = tl.load(w_ptr + tok, mask=tmask, other=0.)
    acc = acc * wt[:, None]
    tl.store(c_ptr + tok[:, None] * stride_cm + rn[None, :], acc.to(tl.float16),
             mask=tmask[:, None] & (rn[None, :] < N))


def cases():
    out = []
    M, N, S = 20, 50, 64
    out.append(("assume_scale_rows_8x64_f32", assume_scale_rows_kernel, {"BM": 8, "BN": 64}, {"num_warps": 4}, [
        ("20x50", dict(x_ptr=Buf("f32", M * S), y_ptr=Buf("f32", M * S, "sentinel", True), M=M, N=N, stride_x=S,
                       stride_y=S, scale=F32(1.5)), [cdiv(M, 8), 1, 1], 1601)]))
    R, V = 6, 100
    out.append(("cross_entropy_ignore_32_f32", cross_entropy_kernel, {"BLOCK": 32}, {"num_warps": 1}, [
        ("rows6v100", dict(logits_ptr=Buf("f32", R * V, "wide", True), target_ptr=Buf("i32", R, "small"),
                           loss_ptr=Buf("f32", R, "sentinel", True), stride=V, V=V, ignore_index=-100),
         [R, 1, 1], 1602)]))
    T, D, NV = 24, 40, 5
    out.append(("embedding_bwd_64_f16", embedding_bwd_f16_kernel, {"BLOCK": 64}, {"num_warps": 2}, [
        ("t24d40v5", dict(ids_ptr=Buf("i32", T, "small"), dout_ptr=Buf("f16", T * D, "int3"),
                          dw_ptr=Buf("f16", NV * D, "int3", True), D=D, NV=NV), [T, 1, 1], 1603)]))
    out.append(("bmm3d_2x16x16x16_f16", bmm3d_kernel, {"B": 2, "M": 16, "N": 16, "K": 16}, {"num_warps": 4}, [
        ("b2", dict(a_ptr=Buf("f16", 512, "int3"), b_ptr=Buf("f16", 512, "int3"),
                    c_ptr=Buf("f32", 512, "sentinel", True)), [1, 1, 1], 1604)]))
    R, n, S = 5, 150, 160
    out.append(("unroll2_rowsum_32_f32", unroll2_rowsum_kernel, {"BLOCK": 32}, {"num_warps": 1}, [
        ("rows5x150", dict(x_ptr=Buf("f32", R * S), y_ptr=Buf("f32", R, "sentinel", True), n=n, stride=S),
         [R, 1, 1], 1605),
        ("rows5x70", dict(x_ptr=Buf("f32", R * S), y_ptr=Buf("f32", R, "sentinel", True), n=70, stride=S),
         [R, 1, 1], 1606)]))
    M, N, S = 10, 50, 64
    out.append(("welford_rows_4x64_f32", welford_rows_kernel, {"BM": 4, "BN": 64}, {"num_warps": 4}, [
        ("10x50", dict(x_ptr=Buf("f32", M * S), mean_ptr=Buf("f32", M, "sentinel", True),
                       var_ptr=Buf("f32", M, "sentinel", True), M=M, N=N, stride=S), [cdiv(M, 4), 1, 1], 1607)]))
    n = 300
    out.append(("segmented_cumsum_128_i32", segmented_cumsum_kernel, {"BLOCK": 128}, {"num_warps": 2}, [
        ("n300", dict(x_ptr=Buf("i32", n, "small"), key_ptr=Buf("i32", n, "small"),
                      y_ptr=Buf("i32", n, "sentinel", True), n=n), [cdiv(n, 128), 1, 1], 1608)]))
    R, N = 6, 100
    out.append(("quant_fp8e5_rows_128_f16", quant_fp8_rows_kernel, {"BLOCK": 128}, {"num_warps": 2}, [
        ("rows6x100", dict(x_ptr=Buf("f16", R * N, "wide"), q_ptr=Buf("i8", R * N, "sentinel", True, tt="fp8e5"),
                           scale_ptr=Buf("f32", R, "sentinel", True), N=N, stride=N), [R, 1, 1], 1609)]))
    C, H, W = 2, 5, 7
    out.append(("upsample_bilinear_64_f32", upsample_bilinear_kernel, {"BLOCK": 64}, {"num_warps": 2}, [
        ("c2h5w7", dict(x_ptr=Buf("f32", C * H * W), y_ptr=Buf("f32", C * 4 * H * W, "sentinel", True), H=H, W=W,
                        OH=2 * H, OW=2 * W, scale_h=F32(0.5), scale_w=F32(0.5)),
         [cdiv(4 * H * W, 64), C, 1], 1610)]))
    C, H, W = 3, 9, 10
    out.append(("maxpool2x2_idx_32_f32", maxpool2x2_idx_kernel, {"BLOCK": 32}, {"num_warps": 1}, [
        ("c3h9w10", dict(x_ptr=Buf("f32", C * H * W), y_ptr=Buf("f32", C * 5 * 5, "sentinel", True),
                         idx_ptr=Buf("i32", C * 5 * 5, "sentinel", True), H=H, W=W, OH=5, OW=5),
         [1, C, 1], 1611)]))
    n = 300
    out.append(("fast_rsqrt_bits_128_f32", fast_rsqrt_bits_kernel, {"BLOCK": 128}, {"num_warps": 2}, [
        ("n300", dict(x_ptr=Buf("f32", n, "wide"), y_ptr=Buf("f32", n, "sentinel", True), n=n),
         [cdiv(n, 128), 1, 1], 1612)]))
    R, V = 6, 100
    out.append(("sample_cumsum_128_f32", sample_cumsum_kernel, {"BLOCK": 128}, {"num_warps": 2}, [
        ("rows6v100", dict(p_ptr=Buf("f32", R * V), u_ptr=Buf("f32", R), tok_ptr=Buf("i32", R, "sentinel", True),
                           V=V, stride=V), [R, 1, 1], 1613)]))
    R, N = 6, 100
    out.append(("kl_div_rows_128_f32", kl_div_rows_kernel, {"BLOCK": 128}, {"num_warps": 2}, [
        ("rows6x100", dict(logp_ptr=Buf("f32", R * N, "wide"), t_ptr=Buf("f32", R * N),
                           row_ptr=Buf("f32", R, "sentinel", True), total_ptr=Buf("f32", 1, "zeros", True), N=N,
                           stride=N), [R, 1, 1], 1614)]))
    NB, C, HW = 2, 3, 50
    out.append(("nchw_bias_silu_128_f32", nchw_bias_silu_kernel, {"BLOCK": 128}, {"num_warps": 4}, [
        ("n2c3hw50", dict(x_ptr=Buf("f32", NB * C * HW, "wide"), b_ptr=Buf("f32", C),
                          y_ptr=Buf("f32", NB * C * HW, "sentinel", True), numel=NB * C * HW, HW=HW, C=C),
         [cdiv(NB * C * HW, 128), 1, 1], 1615)]))
    T, TOPK, N, K, E = 12, 2, 40, 48, 3
    SLOTS = 32

    def moe():
        return dict(a_ptr=Buf("f16", T * K, "int3"), b_ptr=Buf("f16", E * K * N, "int3"),
                    c_ptr=Buf("f16", T * TOPK * N, "sentinel", True), w_ptr=Buf("f32", T * TOPK),
                    ids_ptr=Buf("i32", SLOTS, "zeros"), experts_ptr=Buf("i32", SLOTS // 16, "small"),
                    num_valid=T * TOPK, N=N, K=K, E=E, stride_am=K, stride_be=K * N, stride_bk=N, stride_cm=N)
    out.append(("fused_moe_16x32x16_f16", fused_moe_kernel, {"TOP_K": TOPK, "BM": 16, "BN": 32, "BK": 16,
                                                              "SLOTS": SLOTS}, {"num_warps": 4}, [
        ("t12k2n40k48e3", moe(), [SLOTS // 16, cdiv(N, 32), 1], 1616)]))
    return out


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx8")]
    gen.main()
