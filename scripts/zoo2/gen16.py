#!/usr/bin/env python3
"""Round 16 of the second zoo (kernels in the style of LLM training libraries: a cross entropy that writes its
gradient over the logits in place with label smoothing, a Jensen-Shannon divergence over vocabulary chunks,
dynamic tanh normalisation, sparsemax by sorting, total variation distance with ignored rows, multimodal RoPE
with sections chosen per column): writes fx16/ as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen16.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, F32, cdiv, triton, tl  # noqa: E402


# 1. Cross entropy with label smoothing, the loss and the gradient written over the logits (two passes over
#    the vocabulary in chunks: an online max / sum, then the gradient); an ignored row writes zeros.
@triton.jit
def ce_grad_inplace_kernel(x_ptr, y_ptr, loss_ptr, stride, V, ignore_index, smoothing, n_non_ignore,
                           BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_ptr += row * stride
    y = tl.load(y_ptr + row)
    y = tl.where(y < -500, ignore_index, (y % V + V) % V)
    if y == ignore_index:
        for i in range(0, V, BLOCK):
            offs = i + tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, 0.0, mask=offs < V)
        return
    m = float("-inf")
    d = 0.0
    smooth_sum = 0.0
    eps = smoothing / V
    for i in range(0, V, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < V, other=float("-inf")).to(tl.float32)
        smooth_sum += tl.sum(tl.where(offs < V, -eps * x, 0.0))
        m_new = tl.maximum(m, tl.max(x))
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new))
        m = m_new
    lse = m + tl.log(d)
    x_y = tl.load(x_ptr + y).to(tl.float32)
    loss = (lse - x_y) * (1 - smoothing) + smooth_sum + smoothing * lse
    for i in range(0, V, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < V, other=float("-inf")).to(tl.float32)
        g = tl.exp(x - lse) - eps
        g = tl.where(offs == y, g - (1 - smoothing), g)
        tl.store(x_ptr + offs, g / n_non_ignore, mask=offs < V)
    tl.store(loss_ptr + row, loss / n_non_ignore)


# 2. Generalised Jensen-Shannon divergence of two log-probability rows, in chunks, with its gradient.
@triton.jit
def jsd_kernel(x_ptr, y_ptr, loss_ptr, dx_ptr, stride, V, beta, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_ptr += row * stride
    y_ptr += row * stride
    dx_ptr += row * stride
    total = 0.0
    for i in range(0, V, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        mask = offs < V
        x = tl.load(x_ptr + offs, mask=mask, other=0.0)
        y = tl.load(y_ptr + offs, mask=mask, other=0.0)
        X = tl.exp(x)
        Y = tl.exp(y)
        M = beta * X + (1 - beta) * Y
        log_m = tl.log(M)
        loss = beta * X * (x - log_m) + (1 - beta) * Y * (y - log_m)
        total += tl.sum(tl.where(mask, loss, 0.0))
        tl.store(dx_ptr + offs, beta * X * (x - log_m), mask=mask)
    tl.store(loss_ptr + row, total)


# 3. Dynamic tanh normalisation (DyT): y = γ · tanh(α · x) + β over rows, α a scalar in memory.
@triton.jit
def dyt_kernel(x_ptr, alpha_ptr, gamma_ptr, beta_ptr, y_ptr, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    alpha = tl.load(alpha_ptr)
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    g = tl.load(gamma_ptr + cols, mask=mask, other=0.0)
    b = tl.load(beta_ptr + cols, mask=mask, other=0.0)
    t = 2 * tl.sigmoid(2 * alpha * x) - 1
    tl.store(y_ptr + row * stride + cols, g * t + b, mask=mask)


# 4. Sparsemax of each row: sort descending, cumulative sums, the support size, the threshold.
@triton.jit
def sparsemax_kernel(x_ptr, y_ptr, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=float("-inf"))
    z = tl.sort(x, descending=True)
    zc = tl.where(z == float("-inf"), 0.0, z)
    cs = tl.cumsum(zc, 0)
    k = (cols + 1).to(tl.float32)
    support = (1 + k * zc > cs) & (cols < N)
    k_max = tl.max(tl.where(support, cols + 1, 0))
    tau_sum = tl.sum(tl.where(cols < k_max, zc, 0.0))
    tau = (tau_sum - 1) / k_max.to(tl.float32)
    y = tl.maximum(x - tau, 0.0)
    tl.store(y_ptr + row * stride + cols, y, mask=mask)


# 5. Total variation distance per row, rows whose label is ignored contributing nothing; a gradient sign.
@triton.jit
def tvd_kernel(p_ptr, q_ptr, label_ptr, loss_ptr, grad_ptr, V, stride, ignore_index, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    label = tl.load(label_ptr + row)
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(0, V, BLOCK):
        offs = i + cols
        mask = offs < V
        p = tl.load(p_ptr + row * stride + offs, mask=mask, other=0.0)
        q = tl.load(q_ptr + row * stride + offs, mask=mask, other=0.0)
        diff = p - q
        keep = label != ignore_index
        acc += tl.where(keep, tl.abs(diff), 0.0)
        sign = tl.where(diff > 0, 0.5, tl.where(diff < 0, -0.5, 0.0))
        tl.store(grad_ptr + row * stride + offs, tl.where(keep, sign, 0.0), mask=mask)
    tl.store(loss_ptr + row, 0.5 * tl.sum(acc))


# 6. Multimodal rotary embedding: the rotary half split into temporal, height and width sections, each
#    column's cos and sin taken from its section's position row.
@triton.jit
def mrope_kernel(q_ptr, cos_ptr, sin_ptr, T, stride_q, s_t: tl.constexpr, s_h: tl.constexpr, HALF: tl.constexpr):
    tok = tl.program_id(0)
    head = tl.program_id(1)
    d = tl.arange(0, HALF)
    t_mask = d < s_t
    h_mask = (d >= s_t) & (d < s_t + s_h)
    w_mask = d >= s_t + s_h
    base = tok * HALF + d
    cos = tl.load(cos_ptr + base, mask=t_mask, other=0.) + tl.load(cos_ptr + T * HALF + base, mask=h_mask, other=0.) \
        + tl.load(cos_ptr + 2 * T * HALF + base, mask=w_mask, other=0.)
    sin = tl.load(sin_ptr + base, mask=t_mask, other=0.) + tl.load(sin_ptr + T * HALF + base, mask=h_mask, other=0.) \
        + tl.load(sin_ptr + 2 * T * HALF + base, mask=w_mask, other=0.)
    q_row = q_ptr + tok * stride_q + head * 2 * HALF
    x1 = tl.load(q_row + d)
    x2 = tl.load(q_row + HALF + d)
    tl.store(q_row + d, x1 * cos - x2 * sin)
    tl.store(q_row + HALF + d, x2 * cos + x1 * sin)


def cases():
    out = []
    R, V = 6, 300
    out.append(("ce_grad_inplace_128_f32", ce_grad_inplace_kernel, {"BLOCK": 128}, {"num_warps": 4}, [
        ("r6v300", dict(x_ptr=Buf("f32", R * V, "wide", True), y_ptr=Buf("i32", R), loss_ptr=Buf("f32", R, "sentinel", True),
                        stride=V, V=V, ignore_index=-100, smoothing=F32(0.1), n_non_ignore=F32(5.0)), [R, 1, 1],
         2401)]))
    R2, V2 = 5, 200
    out.append(("jsd_128_f32", jsd_kernel, {"BLOCK": 128}, {"num_warps": 4}, [
        ("r5v200", dict(x_ptr=Buf("f32", R2 * V2, "wide"), y_ptr=Buf("f32", R2 * V2, "wide"),
                        loss_ptr=Buf("f32", R2, "sentinel", True), dx_ptr=Buf("f32", R2 * V2, "sentinel", True),
                        stride=V2, V=V2, beta=F32(0.3)), [R2, 1, 1], 2402)]))
    R3, N3 = 12, 100
    out.append(("dyt_128_f16", dyt_kernel, {"BLOCK": 128}, {"num_warps": 4}, [
        ("r12n100", dict(x_ptr=Buf("f16", R3 * N3, "wide"), alpha_ptr=Buf("f32", 1, "wide"), gamma_ptr=Buf("f16", N3),
                         beta_ptr=Buf("f16", N3), y_ptr=Buf("f16", R3 * N3, "sentinel", True), N=N3, stride=N3),
         [R3, 1, 1], 2403)]))
    R4, N4 = 7, 50
    out.append(("sparsemax_64_f32", sparsemax_kernel, {"BLOCK": 64}, {"num_warps": 2}, [
        ("r7n50", dict(x_ptr=Buf("f32", R4 * N4, "wide"), y_ptr=Buf("f32", R4 * N4, "sentinel", True), N=N4, stride=N4),
         [R4, 1, 1], 2404)]))
    R5, V5 = 6, 150
    out.append(("tvd_64_f32", tvd_kernel, {"BLOCK": 64}, {"num_warps": 2}, [
        ("r6v150", dict(p_ptr=Buf("f32", R5 * V5), q_ptr=Buf("f32", R5 * V5), label_ptr=Buf("i32", R5, "int3"),
                        loss_ptr=Buf("f32", R5, "sentinel", True), grad_ptr=Buf("f32", R5 * V5, "sentinel", True),
                        V=V5, stride=V5, ignore_index=-1), [R5, 1, 1], 2405)]))
    T, H, HALF = 5, 3, 32
    out.append(("mrope_16_8_8_f32", mrope_kernel, {"s_t": 16, "s_h": 8, "HALF": HALF}, {"num_warps": 1}, [
        ("t5h3", dict(q_ptr=Buf("f32", T * H * 2 * HALF, "wide", True), cos_ptr=Buf("f32", 3 * T * HALF, "wide"),
                      sin_ptr=Buf("f32", 3 * T * HALF, "wide"), T=T, stride_q=H * 2 * HALF), [T, H, 1], 2406)]))
    return out


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx16")]
    gen.main()
