#!/usr/bin/env python3
"""Round 2 of the second zoo (riskier constructs): writes fx2/ as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen2.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, F32, cdiv, triton, tl  # noqa: E402


# A. Split-M column sums added atomically: the reduction's (replicated) result fed to tl.atomic_add.
@triton.jit
def colsum_atomic_kernel(x_ptr, out_ptr, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=(rows[:, None] < M) & (cols[None, :] < N), other=0.)
    tl.atomic_add(out_ptr + cols, tl.sum(x, axis=0), mask=cols < N)


# B. Stream compaction in one program: a scalar atomic_add's old value as the base of a cumsum.
@triton.jit
def stream_compact_kernel(x_ptr, out_ptr, counter_ptr, n, BLOCK: tl.constexpr):
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.)
        keep = (x > 0) & (offs < n)
        k = keep.to(tl.int32)
        base = tl.atomic_add(counter_ptr, tl.sum(k, axis=0))
        pos = base + tl.cumsum(k, axis=0) - 1
        tl.store(out_ptr + pos, x, mask=keep)


# C. Tickets from a tensor atomic_add's old values on a block smaller than the workgroup.
@triton.jit
def ticket_hist_kernel(x_ptr, cnt_ptr, tick_ptr, n, NB: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    b = tl.abs(tl.load(x_ptr + offs, mask=m, other=0)) % NB
    old = tl.atomic_add(cnt_ptr + b, 1, mask=m)
    tl.atomic_add(tick_ptr, tl.sum(tl.where(m, old, 0), axis=0))


# I. Sinkhorn normalisation: rows then columns, a runtime number of times (loop-carried 2-D tile).
@triton.jit
def sinkhorn_kernel(x_ptr, y_ptr, n_iters, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    p = tl.exp(tl.load(x_ptr + offs))
    for _ in range(n_iters):
        p = p / tl.sum(p, axis=1, keep_dims=True)
        p = p / tl.sum(p, axis=0, keep_dims=True)
    tl.store(y_ptr + offs, p)


# U. Group-limited top-1 routing (DeepSeek style): [T, E] -> [T, G, E/G], group max, best group, masked argmax.
@triton.jit
def grouped_router_kernel(logits_ptr, idx_ptr, gidx_ptr, T, BT: tl.constexpr, G: tl.constexpr, EG: tl.constexpr):
    rows = tl.program_id(0) * BT + tl.arange(0, BT)
    e = tl.arange(0, G * EG)
    x = tl.load(logits_ptr + rows[:, None] * (G * EG) + e[None, :], mask=rows[:, None] < T, other=0.)
    xg = tl.reshape(x, (BT, G, EG))
    gmax = tl.max(xg, axis=2)
    best = tl.argmax(gmax, axis=1)
    keep = tl.arange(0, G)[None, :] == best[:, None]
    xm = tl.reshape(tl.where(keep[:, :, None], xg, float("-inf")), (BT, G * EG))
    top = tl.argmax(xm, axis=1)
    tl.store(idx_ptr + rows, top, mask=rows < T)
    tl.store(gidx_ptr + rows, best, mask=rows < T)


# J. Column argmax and argmin (ties: first index) of a [64, BN] tile, 8 warps.
@triton.jit
def col_argminmax_kernel(x_ptr, amax_ptr, amin_ptr, N, M: tl.constexpr, BN: tl.constexpr):
    cols = tl.program_id(0) * BN + tl.arange(0, BN)
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + cols[None, :], mask=cols[None, :] < N, other=0.)
    tl.store(amax_ptr + cols, tl.argmax(x, axis=0), mask=cols < N)
    _, imin = tl.min(x, axis=0, return_indices=True)
    tl.store(amin_ptr + cols, imin, mask=cols < N)


@triton.jit
def _imax(a, b):
    return tl.maximum(a, b)


# K. Reverse cumsum and a running max down the columns of an int32 tile, 8 warps.
@triton.jit
def rev_scan_axis0_kernel(x_ptr, y_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, tl.cumsum(x, axis=0, reverse=True))
    tl.store(z_ptr + offs, tl.associative_scan(x, 0, _imax))


# L. A murmur-style finaliser on uint32, umulhi, int16 wrap-around.
@triton.jit
def hash_u32_kernel(x_ptr, y_ptr, z_ptr, n, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    xi = tl.load(x_ptr + offs, mask=m, other=0)
    h = xi.to(tl.uint32, bitcast=True) ^ seed.to(tl.uint32, bitcast=True)
    h = h * 0x85EBCA6B
    h ^= h >> 13
    h = h * 0xC2B2AE35
    h ^= h >> 16
    hi = tl.umulhi(h, 1000003)
    big = (h > 0x80000000).to(tl.int32)
    s16 = (xi & 0xFFFF).to(tl.int16) * 7
    tl.store(y_ptr + offs, h.to(tl.int32, bitcast=True), mask=m)
    tl.store(z_ptr + offs, hi.to(tl.int32, bitcast=True) + big + s16.to(tl.int32), mask=m)


# M. tl.gather along axis 0 of a 2-D tile.
@triton.jit
def gather_axis0_kernel(x_ptr, idx_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    idx = tl.load(idx_ptr + offs) & (M - 1)
    tl.store(y_ptr + offs, tl.gather(x, idx, 0))


# N. Newton square roots in a while loop bounded by a runtime count and a reduced residual.
@triton.jit
def newton_sqrt_while_kernel(x_ptr, y_ptr, it_ptr, n, max_iter, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.abs(tl.load(x_ptr + offs, mask=m, other=1.)) + 1.0
    y = x
    it = 0
    while (it < max_iter) & (tl.max(tl.abs(y * y - x) / x, axis=0) > 1e-4):
        y = 0.5 * (y + x / y)
        it += 1
    tl.store(y_ptr + offs, y, mask=m)
    tl.store(it_ptr + tl.program_id(0), it)


# Q. Boolean loads and stores (i1 pointers: bytes).
@triton.jit
def bool_io_kernel(x_ptr, f_ptr, y_ptr, gt_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.)
    f = tl.load(f_ptr + offs, mask=m, other=0)
    tl.store(y_ptr + offs, tl.where(f & (x > 0.5), x, 0.), mask=m)
    tl.store(gt_ptr + offs, x > 0.5, mask=m)


# R. 64-bit integer tensor arithmetic: an LCG step, arithmetic shifts, truncations, C division.
@triton.jit
def i64_lcg_kernel(x_ptr, lo_ptr, hi_ptr, q_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x_ptr + offs, mask=m, other=0).to(tl.int64)
    v = v * 6364136223846793005 + 1442695040888963407
    v = v ^ (v >> 29)
    tl.store(lo_ptr + offs, v.to(tl.int32), mask=m)
    tl.store(hi_ptr + offs, (v >> 32).to(tl.int32), mask=m)
    tl.store(q_ptr + offs, ((v // 1000000007) % 1000).to(tl.int32), mask=m)


# F. f32 matmul at the default dot precision.
@triton.jit
def matmul_f32_default_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        kk = k + rk
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.)
        b = tl.load(b_ptr + kk[:, None] * N + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


# G. A 3-D permute (2, 0, 1) of a flat block.
@triton.jit
def permute3d_kernel(x_ptr, y_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    base = tl.program_id(0) * A * B * C
    x = tl.reshape(tl.load(x_ptr + base + tl.arange(0, A * B * C)), (A, B, C))
    y = tl.permute(x, (2, 0, 1))
    c = tl.arange(0, C)[:, None, None]
    a = tl.arange(0, A)[None, :, None]
    b = tl.arange(0, B)[None, None, :]
    tl.store(y_ptr + base + c * (A * B) + a * B + b, y)


# Z. A load at each row's argmax (a sliced, replicated index as a pointer offset).
@triton.jit
def load_at_argmax_kernel(x_ptr, tbl_ptr, out_ptr, idx_ptr, n_rows, N, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=(rows[:, None] < n_rows) & (cols[None, :] < N),
                other=float("-inf"))
    idx = tl.argmax(x, axis=1)
    v = tl.load(tbl_ptr + idx, mask=rows < n_rows, other=0.)
    tl.store(out_ptr + rows, v * 2.0, mask=rows < n_rows)
    tl.store(idx_ptr + rows, idx, mask=rows < n_rows)


# S. Softmax of tiny rows (2 x 16) with 4 warps: far more threads than elements.
@triton.jit
def tiny_rows_softmax_kernel(x_ptr, y_ptr, n_rows, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    offs = rows[:, None] * BN + tl.arange(0, BN)[None, :]
    m = rows[:, None] < n_rows
    x = tl.load(x_ptr + offs, mask=m, other=0.)
    e = tl.exp(x - tl.max(x, axis=1)[:, None])
    tl.store(y_ptr + offs, e / tl.sum(e, axis=1)[:, None], mask=m)


# T. A fused two-layer MLP tile: relu(x @ W1 + b1) cast to f16 and fed to a second dot.
@triton.jit
def fused_mlp_kernel(x_ptr, w1_ptr, b1_ptr, w2_ptr, y_ptr, M, D: tl.constexpr, H: tl.constexpr, O: tl.constexpr,
                     BM: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rd = tl.arange(0, D)
    rh = tl.arange(0, H)
    ro = tl.arange(0, O)
    x = tl.load(x_ptr + rm[:, None] * D + rd[None, :], mask=rm[:, None] < M, other=0.)
    w1 = tl.load(w1_ptr + rd[:, None] * H + rh[None, :])
    h = tl.dot(x, w1) + tl.load(b1_ptr + rh)[None, :]
    h = tl.maximum(h, 0.0).to(tl.float16)
    w2 = tl.load(w2_ptr + rh[:, None] * O + ro[None, :])
    y = tl.dot(h, w2)
    tl.store(y_ptr + rm[:, None] * O + ro[None, :], y, mask=rm[:, None] < M)


def cases():
    out = []
    M, N = 100, 50
    for BM, BN, W in ((32, 32, 4), (64, 16, 8)):
        out.append((f"colsum_atomic_{BM}x{BN}_w{W}_f32", colsum_atomic_kernel, {"BM": BM, "BN": BN}, {"num_warps": W}, [
            ("100x50", dict(x_ptr=Buf("f32", M * N), out_ptr=Buf("f32", N, "zeros", True), M=M, N=N, stride=N),
             [cdiv(M, BM), cdiv(N, BN), 1], 1001)]))
    out.append(("stream_compact_64_f32", stream_compact_kernel, {"BLOCK": 64}, {"num_warps": 4}, [
        ("n300", dict(x_ptr=Buf("f32", 320), out_ptr=Buf("f32", 320, "sentinel", True),
                      counter_ptr=Buf("i32", 1, "zeros", True), n=300), [1, 1, 1], 1002)]))
    out.append(("ticket_hist_16_w4_i32", ticket_hist_kernel, {"NB": 8, "BLOCK": 16}, {"num_warps": 4}, [
        ("n100", dict(x_ptr=Buf("i32", 112, "small"), cnt_ptr=Buf("i32", 8, "zeros", True),
                      tick_ptr=Buf("i32", 1, "zeros", True), n=100), [7, 1, 1], 1003)]))
    out.append(("sinkhorn_16x32_f32", sinkhorn_kernel, {"M": 16, "N": 32}, {"num_warps": 4}, [
        ("iters3", dict(x_ptr=Buf("f32", 512, "int3"), y_ptr=Buf("f32", 512, "sentinel", True), n_iters=3),
         [1, 1, 1], 1004)]))
    T = 50
    out.append(("grouped_router_16x4x8_f32", grouped_router_kernel, {"BT": 16, "G": 4, "EG": 8}, {"num_warps": 4}, [
        ("t50", dict(logits_ptr=Buf("f32", 64 * 32, "wide"), idx_ptr=Buf("i32", T, "sentinel", True),
                     gidx_ptr=Buf("i32", T, "sentinel", True), T=T), [cdiv(T, 16), 1, 1], 1005)]))
    N = 50
    out.append(("col_argminmax_64x32_w8_f32", col_argminmax_kernel, {"M": 64, "BN": 32}, {"num_warps": 8}, [
        ("n50", dict(x_ptr=Buf("f32", 64 * N, "int3"), amax_ptr=Buf("i32", N, "sentinel", True),
                     amin_ptr=Buf("i32", N, "sentinel", True), N=N), [cdiv(N, 32), 1, 1], 1006)]))
    out.append(("rev_scan_axis0_64x16_w8_i32", rev_scan_axis0_kernel, {"M": 64, "N": 16}, {"num_warps": 8}, [
        ("one", dict(x_ptr=Buf("i32", 1024), y_ptr=Buf("i32", 1024, "sentinel", True),
                     z_ptr=Buf("i32", 1024, "sentinel", True)), [1, 1, 1], 1007)]))
    out.append(("hash_u32_256_i32", hash_u32_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n500", dict(x_ptr=Buf("i32", 512), y_ptr=Buf("i32", 512, "sentinel", True),
                      z_ptr=Buf("i32", 512, "sentinel", True), n=500, seed=12345), [2, 1, 1], 1008)]))
    out.append(("gather_axis0_32x16_f32", gather_axis0_kernel, {"M": 32, "N": 16}, {"num_warps": 4}, [
        ("one", dict(x_ptr=Buf("f32", 512), idx_ptr=Buf("i32", 512, "small"), y_ptr=Buf("f32", 512, "sentinel", True)),
         [1, 1, 1], 1009)]))
    out.append(("newton_sqrt_while_128_f32", newton_sqrt_while_kernel, {"BLOCK": 128}, {"num_warps": 4}, [
        ("n300", dict(x_ptr=Buf("f32", 384, "wide"), y_ptr=Buf("f32", 384, "sentinel", True),
                      it_ptr=Buf("i32", 3, "sentinel", True), n=300, max_iter=20), [3, 1, 1], 1010),
        ("n300-max3", dict(x_ptr=Buf("f32", 384, "wide"), y_ptr=Buf("f32", 384, "sentinel", True),
                           it_ptr=Buf("i32", 3, "sentinel", True), n=300, max_iter=3), [3, 1, 1], 1011)]))
    out.append(("bool_io_256_f32", bool_io_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n500", dict(x_ptr=Buf("f32", 512, "wide"), f_ptr=Buf("i8", 512, "int3", tt="i1"),
                      y_ptr=Buf("f32", 512, "sentinel", True), gt_ptr=Buf("i8", 512, "sentinel", True, tt="i1"), n=500),
         [2, 1, 1], 1012)]))
    out.append(("i64_lcg_128_i32", i64_lcg_kernel, {"BLOCK": 128}, {"num_warps": 4}, [
        ("n300", dict(x_ptr=Buf("i32", 384), lo_ptr=Buf("i32", 384, "sentinel", True),
                      hi_ptr=Buf("i32", 384, "sentinel", True), q_ptr=Buf("i32", 384, "sentinel", True), n=300),
         [3, 1, 1], 1013)]))
    M, N, K = 40, 48, 40
    out.append(("matmul_f32_default_32x32x16", matmul_f32_default_kernel, {"BM": 32, "BN": 32, "BK": 16},
                {"num_warps": 4}, [
                    ("40x48x40", dict(a_ptr=Buf("f32", M * K), b_ptr=Buf("f32", K * N),
                                      c_ptr=Buf("f32", M * N, "sentinel", True), M=M, N=N, K=K),
                     [cdiv(M, 32), cdiv(N, 32), 1], 1014)]))
    out.append(("permute3d_4x8x16_f32", permute3d_kernel, {"A": 4, "B": 8, "C": 16}, {"num_warps": 4}, [
        ("blocks2", dict(x_ptr=Buf("f32", 1024), y_ptr=Buf("f32", 1024, "sentinel", True)), [2, 1, 1], 1015)]))
    R, N = 37, 50
    out.append(("load_at_argmax_8x64_f32", load_at_argmax_kernel, {"BM": 8, "BN": 64}, {"num_warps": 4}, [
        ("rows37x50", dict(x_ptr=Buf("f32", R * N, "wide"), tbl_ptr=Buf("f32", N), out_ptr=Buf("f32", R, "sentinel", True),
                           idx_ptr=Buf("i32", R, "sentinel", True), n_rows=R, N=N), [cdiv(R, 8), 1, 1], 1016)]))
    out.append(("tiny_rows_softmax_2x16_w4_f32", tiny_rows_softmax_kernel, {"BM": 2, "BN": 16}, {"num_warps": 4}, [
        ("rows5", dict(x_ptr=Buf("f32", 6 * 16), y_ptr=Buf("f32", 6 * 16, "sentinel", True), n_rows=5), [3, 1, 1],
         1017)]))
    M = 40
    out.append(("fused_mlp_32x32x64x32_f16", fused_mlp_kernel, {"D": 32, "H": 64, "O": 32, "BM": 32}, {"num_warps": 4}, [
        ("m40", dict(x_ptr=Buf("f16", 64 * 32, "int3"), w1_ptr=Buf("f16", 32 * 64, "int3"), b1_ptr=Buf("f32", 64, "int3"),
                     w2_ptr=Buf("f16", 64 * 32, "int3"), y_ptr=Buf("f32", 64 * 32, "sentinel", True), M=M),
         [cdiv(M, 32), 1, 1], 1018)]))
    return out


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx2")]
    gen.main()
