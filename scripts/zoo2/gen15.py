#!/usr/bin/env python3
"""Round 15 of the second zoo (`tl.map_elementwise`: a scalar function with an early return, a
per-element `while` loop, a packed function of two results, a piecewise function on a 2-D tile with
several elements per thread, a Newton iteration with a static loop inside, broadcast operands and results of
two types): writes fx15/ as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen15.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, F32, cdiv, triton, tl  # noqa: E402
from triton.language.extra.hip import libdevice  # noqa: E402


# 1. Triton's own example: SELU, its negative branch (an exponential) taken per element.
@triton.jit
def selu_scalar(x, alpha):
    if x > 0:
        return x
    else:
        return alpha * (tl.exp(x) - 1)


@triton.jit
def selu_map_kernel(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.map_elementwise(selu_scalar, x, alpha)
    tl.store(y_ptr + offs, y, mask=m)


# 2. Collatz steps: a loop per element that runs until that element reaches 1.
@triton.jit
def collatz_scalar(x):
    steps = 0
    while x != 1:
        if x % 2 == 0:
            x = x // 2
        else:
            x = 3 * x + 1
        steps += 1
    return steps


@triton.jit
def collatz_map_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    y = tl.map_elementwise(collatz_scalar, tl.abs(x) + 1)
    tl.store(y_ptr + offs, y, mask=m)


# 3. Two elements per call, two results: the pairwise minimum and maximum of two halves.
@triton.jit
def minmax_pair(x0, x1, y0, y1):
    return tl.minimum(x0, y0), tl.minimum(x1, y1), tl.maximum(x0, y0), tl.maximum(x1, y1)


@triton.jit
def minmax_pack_kernel(x_ptr, y_ptr, lo_ptr, hi_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    lo, hi = tl.map_elementwise(minmax_pair, x, y, pack=2)
    tl.store(lo_ptr + offs, lo)
    tl.store(hi_ptr + offs, hi)


# 4. A piecewise function on a 2-D tile (several elements per thread): if / elif / else with values,
#    a device-library call in one arm.
@triton.jit
def piecewise_scalar(x, t):
    if x < -t:
        y = -t - libdevice.log1p(-x - t)
    elif x > t:
        y = t + tl.sqrt(x - t)
    else:
        y = x * x * x / (3 * t * t) + 2 * x / 3
    return y


@triton.jit
def piecewise_map_kernel(x_ptr, y_ptr, M, N, t, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    m = (rm[:, None] < M) & (rn[None, :] < N)
    offs = rm[:, None] * N + rn[None, :]
    x = tl.load(x_ptr + offs, mask=m, other=0.)
    y = tl.map_elementwise(piecewise_scalar, x, t)
    tl.store(y_ptr + offs, y, mask=m)


# 5. A cube root by Newton's method: a fixed number of steps (a static loop), then steps until the update is
#    small (a loop per element).
@triton.jit
def cbrt_scalar(a):
    x = tl.where(a < 0, -a, a) + 1.0
    for _ in tl.static_range(3):
        x = x - (x * x * x - tl.abs(a)) / (3 * x * x)
    dx = 1.0
    it = 0
    while (tl.abs(dx) > 1e-6 * x) & (it < 50):
        dx = (x * x * x - tl.abs(a)) / (3 * x * x)
        x = x - dx
        it += 1
    return tl.where(a < 0, -x, x)


@triton.jit
def cbrt_map_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.)
    tl.store(y_ptr + offs, tl.map_elementwise(cbrt_scalar, x), mask=m)


# 6. Broadcast operands (a column against a row), two results of two types: the quotient of two integers
#    (rounded toward zero) and half their remainder, as a float.
@triton.jit
def divmod_scalar(a, b):
    q = a // b
    return q, (a - q * b).to(tl.float32) * 0.5


@triton.jit
def divmod_map_kernel(a_ptr, b_ptr, q_ptr, r_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    a = tl.load(a_ptr + rm, mask=rm < M, other=0)
    b = tl.abs(tl.load(b_ptr + rn, mask=rn < N, other=1)) + 1
    q, r = tl.map_elementwise(divmod_scalar, a[:, None], b[None, :])
    m = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(q_ptr + rm[:, None] * N + rn[None, :], q, mask=m)
    tl.store(r_ptr + rm[:, None] * N + rn[None, :], r, mask=m)


def cases():
    out = []
    n = 1000
    out.append(("selu_map_256_f32", selu_map_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n1000", dict(x_ptr=Buf("f32", 1024, "wide"), y_ptr=Buf("f32", 1024, "sentinel", True), n=n,
                       alpha=F32(1.6732632)), [cdiv(n, 256), 1, 1], 2301)]))
    n2 = 300
    out.append(("collatz_map_128_i32", collatz_map_kernel, {"BLOCK": 128}, {"num_warps": 4}, [
        ("n300", dict(x_ptr=Buf("i32", 384), y_ptr=Buf("i32", 384, "sentinel", True), n=n2), [cdiv(n2, 128), 1, 1],
         2302)]))
    out.append(("minmax_pack_512_f16", minmax_pack_kernel, {"BLOCK": 512}, {"num_warps": 4}, [
        ("n1024", dict(x_ptr=Buf("f16", 1024, "wide"), y_ptr=Buf("f16", 1024, "wide"),
                       lo_ptr=Buf("f16", 1024, "sentinel", True), hi_ptr=Buf("f16", 1024, "sentinel", True)),
         [2, 1, 1], 2303)]))
    M, N = 20, 60
    out.append(("piecewise_map_16x64_f32", piecewise_map_kernel, {"BM": 16, "BN": 64}, {"num_warps": 4}, [
        ("20x60", dict(x_ptr=Buf("f32", M * N, "wide"), y_ptr=Buf("f32", M * N, "sentinel", True), M=M, N=N,
                       t=F32(1.5)), [cdiv(M, 16), 1, 1], 2304)]))
    n3 = 500
    out.append(("cbrt_map_256_f32", cbrt_map_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n500", dict(x_ptr=Buf("f32", 512, "wide"), y_ptr=Buf("f32", 512, "sentinel", True), n=n3),
         [cdiv(n3, 256), 1, 1], 2305)]))
    M2, N2 = 30, 20
    out.append(("divmod_map_32x32_i32", divmod_map_kernel, {"BM": 32, "BN": 32}, {"num_warps": 4}, [
        ("30x20", dict(a_ptr=Buf("i32", 32, "small"), b_ptr=Buf("i32", 32, "int3"),
                       q_ptr=Buf("i32", M2 * N2, "sentinel", True), r_ptr=Buf("f32", M2 * N2, "sentinel", True),
                       M=M2, N=N2), [1, 1, 1], 2306)]))
    return out


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx15")]
    gen.main()
