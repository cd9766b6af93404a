#!/usr/bin/env python3
"""Round 13 of the second zoo (inline assembly, the rest of the device library's special functions — the
error functions, lgamma, nextafter, integer powers, abs, the Bessel functions —, an implicit-GEMM convolution, an
f64 dot, paged-attention decoding): writes fx13/ as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen13.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, F32, cdiv, triton, tl  # noqa: E402
from triton.language.extra.hip import libdevice  # noqa: E402


# 1. Inline assembly, element by element: one result, two operands; two results of one statement.
@triton.jit
def inline_asm_minmax_kernel(x_ptr, y_ptr, lo_ptr, hi_ptr, bits_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    y = tl.load(y_ptr + offs, mask=mask, other=0)
    lo, hi = tl.inline_asm_elementwise("v_min_i32 $0, $2, $3\n v_max_i32 $1, $2, $3", "=&v,=&v,v,v", [x, y],
                                       dtype=(tl.int32, tl.int32), is_pure=True, pack=1)
    bits = tl.inline_asm_elementwise("v_bfe_u32 $0, $1, 4, 8", "=v,v", [x], dtype=tl.int32, is_pure=True, pack=1)
    tl.store(lo_ptr + offs, lo, mask=mask)
    tl.store(hi_ptr + offs, hi, mask=mask)
    tl.store(bits_ptr + offs, bits, mask=mask)


# 2. Two halves per statement (`pack=2`): a packed f16 product.
@triton.jit
def inline_asm_packed_kernel(x_ptr, w_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.)
    w = tl.load(w_ptr + offs, mask=mask, other=0.)
    y = tl.inline_asm_elementwise("v_pk_mul_f16 $0, $1, $2", "=v,v,v", [x, w], dtype=tl.float16, is_pure=True,
                                  pack=2)
    tl.store(y_ptr + offs, y, mask=mask)


# 3. The device library's error functions and their relatives.
@triton.jit
def erf_family_kernel(x_ptr, erfc_ptr, erfcx_ptr, erfinv_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.)
    tl.store(erfc_ptr + offs, libdevice.erfc(x * 0.5), mask=mask)
    tl.store(erfcx_ptr + offs, libdevice.erfcx(x * 0.5), mask=mask)
    tl.store(erfinv_ptr + offs, libdevice.erfinv(x * 0.12), mask=mask)


# 4. lgamma, integer powers (`pow` of an int32: `pown`), nextafter and the device library's abs.
@triton.jit
def special_misc_kernel(x_ptr, k_ptr, lg_ptr, pw_ptr, nx_ptr, ab_ptr, ia_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.)
    k = tl.load(k_ptr + offs, mask=mask, other=0)
    tl.store(lg_ptr + offs, libdevice.lgamma(x), mask=mask)
    tl.store(pw_ptr + offs, libdevice.pow(x, k % 7), mask=mask)
    tl.store(nx_ptr + offs, libdevice.nextafter(x, x * 2.), mask=mask)
    tl.store(ab_ptr + offs, libdevice.abs(x), mask=mask)
    tl.store(ia_ptr + offs, libdevice.abs(k), mask=mask)


# 5. The Bessel functions of the device library.
@triton.jit
def bessel_kernel(x_ptr, j0_ptr, j1_ptr, y0_ptr, y1_ptr, i0_ptr, i1_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.) * 2.
    ax = tl.abs(x) + 0.25
    tl.store(j0_ptr + offs, libdevice.j0(x), mask=mask)
    tl.store(j1_ptr + offs, libdevice.j1(x), mask=mask)
    tl.store(y0_ptr + offs, libdevice.y0(ax), mask=mask)
    tl.store(y1_ptr + offs, libdevice.y1(ax), mask=mask)
    tl.store(i0_ptr + offs, libdevice.cyl_bessel_i0(x * 0.5), mask=mask)
    tl.store(i1_ptr + offs, libdevice.cyl_bessel_i1(x * 0.5), mask=mask)


# 6. A 3×3 convolution (NHWC, padding 1) as an implicit GEMM: rows are output pixels, columns output channels.
@triton.jit
def conv2d_nhwc_kernel(x_ptr, w_ptr, y_ptr, NB, H, W, C, K, BM: tl.constexpr, BN: tl.constexpr,
                       BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    M = NB * H * W
    nb = rm // (H * W)
    p = (rm // W) % H
    q = rm % W
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for r in range(3):
        for s in range(3):
            ih = p + r - 1
            iw = q + s - 1
            inside = (rm < M) & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
            for c0 in range(0, C, BK):
                rc = c0 + tl.arange(0, BK)
                a = tl.load(x_ptr + ((nb * H + ih) * W + iw)[:, None] * C + rc[None, :],
                            mask=inside[:, None] & (rc[None, :] < C), other=0.)
                b = tl.load(w_ptr + ((r * 3 + s) * C + rc)[:, None] * K + rn[None, :],
                            mask=(rc[:, None] < C) & (rn[None, :] < K), other=0.)
                acc += tl.dot(a, b)
    tl.store(y_ptr + rm[:, None] * K + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < K))


# 7. A matmul in double precision (f32 in memory).
@triton.jit
def dot_f64_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros([BM, BN], dtype=tl.float64)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.)
        acc += tl.dot(a.to(tl.float64), b.to(tl.float64))
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float32), mask=(rm[:, None] < M) & (rn[None, :] < N))


# 8. Decoding attention over a paged KV cache: one query per program, pages from a block table.
@triton.jit
def paged_decode_kernel(q_ptr, k_ptr, v_ptr, table_ptr, lens_ptr, o_ptr, scale, max_pages, pool,
                        PAGE: tl.constexpr, D: tl.constexpr):
    seq = tl.program_id(0)
    # (The case's lengths and pages are random integers, brought into range here.)
    L = tl.abs(tl.load(lens_ptr + seq)) % (max_pages * PAGE) + 1
    d = tl.arange(0, D)
    t = tl.arange(0, PAGE)
    q = tl.load(q_ptr + seq * D + d)
    m = -float("inf")
    l = 0.
    acc = tl.zeros([D], dtype=tl.float32)
    for b in range(0, tl.cdiv(L, PAGE)):
        page = tl.abs(tl.load(table_ptr + seq * max_pages + b)) % pool
        tok = b * PAGE + t
        kv = page * PAGE * D + t[:, None] * D + d[None, :]
        k = tl.load(k_ptr + kv)
        s = tl.where(tok < L, tl.sum(q[None, :] * k, axis=1) * scale, -float("inf"))
        m_new = tl.maximum(m, tl.max(s, axis=0))
        p = tl.exp(s - m_new)
        alpha = tl.exp(m - m_new)
        v = tl.load(v_ptr + kv)
        acc = acc * alpha + tl.sum(p[:, None] * v, axis=0)
        l = l * alpha + tl.sum(p, axis=0)
        m = m_new
    tl.store(o_ptr + seq * D + d, acc / l)


def cases():
    out = []
    n = 700
    out.append(("inline_asm_minmax_256_i32", inline_asm_minmax_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n700", dict(x_ptr=Buf("i32", n), y_ptr=Buf("i32", n), lo_ptr=Buf("i32", n, "sentinel", True),
                      hi_ptr=Buf("i32", n, "sentinel", True), bits_ptr=Buf("i32", n, "sentinel", True), n=n),
         [cdiv(n, 256), 1, 1], 2101)]))
    out.append(("inline_asm_packed_512_f16", inline_asm_packed_kernel, {"BLOCK": 512}, {"num_warps": 4}, [
        ("n1000", dict(x_ptr=Buf("f16", 1000, "wide"), w_ptr=Buf("f16", 1000, "int3"),
                       y_ptr=Buf("f16", 1000, "sentinel", True), n=1000),
         [cdiv(1000, 512), 1, 1], 2102)]))
    out.append(("erf_family_256_f32", erf_family_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n700", dict(x_ptr=Buf("f32", n, "wide"), erfc_ptr=Buf("f32", n, "sentinel", True),
                      erfcx_ptr=Buf("f32", n, "sentinel", True), erfinv_ptr=Buf("f32", n, "sentinel", True), n=n),
         [cdiv(n, 256), 1, 1], 2103)]))
    out.append(("special_misc_256_f32", special_misc_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n700", dict(x_ptr=Buf("f32", n, "wide"), k_ptr=Buf("i32", n, "small"), lg_ptr=Buf("f32", n, "sentinel", True),
                      pw_ptr=Buf("f32", n, "sentinel", True), nx_ptr=Buf("f32", n, "sentinel", True),
                      ab_ptr=Buf("f32", n, "sentinel", True), ia_ptr=Buf("i32", n, "sentinel", True), n=n),
         [cdiv(n, 256), 1, 1], 2104)]))
    out.append(("bessel_256_f32", bessel_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n700", dict(x_ptr=Buf("f32", n, "wide"), j0_ptr=Buf("f32", n, "sentinel", True),
                      j1_ptr=Buf("f32", n, "sentinel", True), y0_ptr=Buf("f32", n, "sentinel", True),
                      y1_ptr=Buf("f32", n, "sentinel", True), i0_ptr=Buf("f32", n, "sentinel", True),
                      i1_ptr=Buf("f32", n, "sentinel", True), n=n), [cdiv(n, 256), 1, 1], 2108)]))
    NB, H, W, C, K = 2, 5, 6, 20, 24
    M = NB * H * W
    out.append(("conv2d_nhwc_32x32x16_f16", conv2d_nhwc_kernel, {"BM": 32, "BN": 32, "BK": 16}, {"num_warps": 4}, [
        ("2x5x6x20to24", dict(x_ptr=Buf("f16", M * C, "int3"), w_ptr=Buf("f16", 9 * C * K, "int3"),
                              y_ptr=Buf("f32", M * K, "sentinel", True), NB=NB, H=H, W=W, C=C, K=K),
         [cdiv(M, 32), cdiv(K, 32), 1], 2105)]))
    Mf, Nf, Kf = 40, 24, 40
    out.append(("dot_f64_16x16x16", dot_f64_kernel, {"BM": 16, "BN": 16, "BK": 16}, {"num_warps": 4}, [
        ("40x24x40", dict(a_ptr=Buf("f32", Mf * Kf, "wide"), b_ptr=Buf("f32", Kf * Nf, "wide"),
                          c_ptr=Buf("f32", Mf * Nf, "sentinel", True), M=Mf, N=Nf, K=Kf),
         [cdiv(Mf, 16), cdiv(Nf, 16), 1], 2106)]))
    S, PAGE, D, MAXP, POOL = 3, 16, 32, 4, 12
    out.append(("paged_decode_16x32_f32", paged_decode_kernel, {"PAGE": PAGE, "D": D}, {"num_warps": 2}, [
        ("3seqs", dict(q_ptr=Buf("f32", S * D, "wide"), k_ptr=Buf("f32", POOL * PAGE * D, "wide"),
                       v_ptr=Buf("f32", POOL * PAGE * D, "wide"), table_ptr=Buf("i32", S * MAXP, "small"),
                       lens_ptr=Buf("i32", S, "small"), o_ptr=Buf("f32", S * D, "sentinel", True),
                       scale=F32(0.125), max_pages=MAXP, pool=POOL), [S, 1, 1], 2107)]))
    return out


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx13")]
    gen.main()
