#!/usr/bin/env python3
"""Round 11 of the second zoo (scaled dots: mxfp8, mxfp4, an e4m3 operand beside an unscaled fp16 one): writes
fx11/ as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen11.py [--only SUBSTR]

The kernels shape random bytes into the formats' finite values (fp8 bytes with the exponent's top bit cleared,
scales 2^-5 … 2^-2) so the emulator's random inputs make sums a relative tolerance can check.
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, triton, tl  # noqa: E402


# 1. An mxfp8 dot: e4m3 × e5m2, each with one e8m0 scale per 32 elements of K.
@triton.jit
def scaled_mxfp8_kernel(a_ptr, as_ptr, b_ptr, bs_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    rs = tl.arange(0, K // 32)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :]) & 0xBF
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :]) & 0xBF
    a_s = (tl.load(as_ptr + rm[:, None] * (K // 32) + rs[None, :]) & 3) + 122
    b_s = (tl.load(bs_ptr + rn[:, None] * (K // 32) + rs[None, :]) & 3) + 122
    c = tl.dot_scaled(a.to(tl.float8e4nv, bitcast=True), a_s, "e4m3",
                      b.to(tl.float8e5, bitcast=True), b_s, "e5m2")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


# 2. An mxfp4 dot: e2m1 pairs packed along K, two scales.
@triton.jit
def scaled_mxfp4_kernel(a_ptr, as_ptr, b_ptr, bs_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rka = tl.arange(0, K // 2)
    rs = tl.arange(0, K // 32)
    a = tl.load(a_ptr + rm[:, None] * (K // 2) + rka[None, :])
    b = tl.load(b_ptr + rka[:, None] * N + rn[None, :])
    a_s = (tl.load(as_ptr + rm[:, None] * (K // 32) + rs[None, :]) & 3) + 122
    b_s = (tl.load(bs_ptr + rn[:, None] * (K // 32) + rs[None, :]) & 3) + 122
    c = tl.dot_scaled(a, a_s, "e2m1", b, b_s, "e2m1")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


# 3. A scaled e4m3 operand beside an unscaled fp16 one (the compute type is then f16).
@triton.jit
def scaled_e4m3_f16_kernel(a_ptr, as_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    rs = tl.arange(0, K // 32)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :]) & 0xBF
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    a_s = (tl.load(as_ptr + rm[:, None] * (K // 32) + rs[None, :]) & 3) + 122
    c = tl.dot_scaled(a.to(tl.float8e4nv, bitcast=True), a_s, "e4m3", b, None, "fp16")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


def cases():
    out = []
    M = N = 32
    K = 64
    out.append(("scaled_mxfp8_32x32x64", scaled_mxfp8_kernel, {"M": M, "N": N, "K": K}, {"num_warps": 4}, [
        ("32x32x64", dict(a_ptr=Buf("i8", M * K, tt="u8"), as_ptr=Buf("i8", M * K // 32, tt="u8"), b_ptr=Buf("i8", K * N, tt="u8"),
                          bs_ptr=Buf("i8", N * K // 32, tt="u8"), c_ptr=Buf("f32", M * N, "sentinel", True)), [1, 1, 1], 1901)]))
    K = 128
    out.append(("scaled_mxfp4_32x32x128", scaled_mxfp4_kernel, {"M": M, "N": N, "K": K}, {"num_warps": 4}, [
        ("32x32x128", dict(a_ptr=Buf("i8", M * K // 2, tt="u8"), as_ptr=Buf("i8", M * K // 32, tt="u8"), b_ptr=Buf("i8", K // 2 * N, tt="u8"),
                           bs_ptr=Buf("i8", N * K // 32, tt="u8"), c_ptr=Buf("f32", M * N, "sentinel", True)), [1, 1, 1],
         1902)]))
    K = 64
    out.append(("scaled_e4m3_f16_32x32x64", scaled_e4m3_f16_kernel, {"M": M, "N": N, "K": K}, {"num_warps": 4}, [
        ("32x32x64", dict(a_ptr=Buf("i8", M * K, tt="u8"), as_ptr=Buf("i8", M * K // 32, tt="u8"), b_ptr=Buf("f16", K * N, "int3"),
                          c_ptr=Buf("f32", M * N, "sentinel", True)), [1, 1, 1], 1903)]))
    return out


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx11")]
    gen.main()
