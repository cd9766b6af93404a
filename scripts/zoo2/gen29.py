#!/usr/bin/env python3
"""Round 29 of the second zoo (the device library in double precision: `exp2`, `log2`, `log10`,
`rsqrt`, `tanh`, `log1p`, `expm1`, `pow`, `hypot`, the hyperbolic functions, `sin`, `cos` and
`tan` of f64 (angles past 2³⁰ and near the largest double too), each
checked to the last bits of a double; a layer norm, a log-sum-exp, a GELU and a softplus in
f64): writes fx29/ as gen.py writes fx/.

A double's last bits do not survive a store to the `f32` buffers the emulator's cases read, so
the function kernel stores two `f32`s per element: the result rounded (`hi`) and what the
rounding dropped, relative to `hi` and scaled by 2²⁴ (`lo`, of magnitude at most 1; 0 where
`hi` is not a normal `f32`). An error of `n` units in a double's last place moves `lo` by
about `n·2⁻²⁸`.

    ../shared/oracle/oracle-python scripts/zoo2/gen29.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, F32, triton, tl, libdevice  # noqa: E402


# 1. One function of f64 per kernel, its result stored as hi and lo (see the module).
@triton.jit
def f64_function_kernel(x_ptr, y_ptr, hi_ptr, lo_ptr, n, FN: tl.constexpr, A: tl.constexpr,
                        B: tl.constexpr, SCALE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0).to(tl.float64) * A
    y = tl.load(y_ptr + offs, mask=mask, other=1.0).to(tl.float64) * B
    if FN == "exp":
        v = tl.exp(x)
    elif FN == "exp2":
        v = tl.exp2(x)
    elif FN == "log":
        v = tl.log(tl.abs(x) + 0.001)
    elif FN == "log2":
        v = tl.log2(tl.abs(x) + 0.001)
    elif FN == "log10":
        v = libdevice.log10(tl.abs(x) + 0.001)
    elif FN == "rsqrt":
        v = tl.math.rsqrt(tl.abs(x) + 0.001)
    elif FN == "tanh":
        v = libdevice.tanh(x)
    elif FN == "log1p":
        v = libdevice.log1p(x)
    elif FN == "expm1":
        v = libdevice.expm1(x)
    elif FN == "pow":
        v = libdevice.pow(tl.abs(x) + 0.01, y)
    elif FN == "pown":
        v = libdevice.pow(x, (y * 3.0).to(tl.int32))
    elif FN == "hypot":
        v = libdevice.hypot(x, y)
    elif FN == "sinh":
        v = libdevice.sinh(x)
    elif FN == "cosh":
        v = libdevice.cosh(x)
    elif FN == "asinh":
        v = libdevice.asinh(x)
    elif FN == "acosh":
        v = libdevice.acosh(tl.abs(x) + 1.0)
    elif FN == "sin":
        v = tl.sin(x)
    elif FN == "cos":
        v = tl.cos(x)
    elif FN == "tan":
        v = libdevice.tan(x)
    else:
        v = libdevice.atanh(x)
    v = v * SCALE
    hi = v.to(tl.float32)
    h = hi.to(tl.float64)
    ok = (tl.abs(h) >= 1.1754943508222875e-38) & (tl.abs(h) < 1e300) & (v == v)
    lo = tl.where(ok, (v - h) / tl.abs(tl.where(ok, h, 1.0)) * 16777216.0, 0.0)
    tl.store(hi_ptr + offs, hi, mask=mask)
    tl.store(lo_ptr + offs, lo.to(tl.float32), mask=mask)


# 2. A layer norm computed in f64 (inputs and outputs f32), `rsqrt` of the variance.
@triton.jit
def layernorm_f64_kernel(x_ptr, w_ptr, b_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float64)
    mean = tl.sum(x, axis=0) / N
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / N
    rstd = tl.math.rsqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask).to(tl.float64)
    b = tl.load(b_ptr + cols, mask=mask).to(tl.float64)
    tl.store(y_ptr + row * N + cols, (d * rstd * w + b).to(tl.float32), mask=mask)


# 3. A log-sum-exp per row in f64, by powers of two as flash attention writes it.
@triton.jit
def logsumexp_f64_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=-float("inf")).to(tl.float64) * 7.0
    m = tl.max(x, axis=0)
    s = tl.sum(tl.exp2((x - m) * 1.4426950408889634), axis=0)
    tl.store(out_ptr + row, (m + tl.log2(s) * 0.6931471805599453).to(tl.float32))


# 4. A GELU by tanh and a softplus with a threshold, in f64.
@triton.jit
def gelu_softplus_f64_kernel(x_ptr, g_ptr, s_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float64)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    g = 0.5 * x * (1.0 + libdevice.tanh(inner))
    sp = tl.where(x > 20.0, x, libdevice.log1p(tl.exp(x)))
    tl.store(g_ptr + offs, g.to(tl.float32), mask=mask)
    tl.store(s_ptr + offs, sp.to(tl.float32), mask=mask)


# The functions' domains: x = input·A, y = input·B (inputs are quarters in [−16, 16], or the
# "wide" hundredths in [−8, 8]), result·SCALE; the kernel's name when one function has two.
FUNCTIONS = [
    ("exp", 40.0, 1.0, 2.0 ** -900, "random"),
    ("exp2", 63.3, 1.0, 2.0 ** -900, "random"),
    ("log", 1e7, 1.0, 1.0, "wide"),
    ("log2", 3e3, 1.0, 1.0, "wide"),
    ("log10", 1e9, 1.0, 1.0, "wide"),
    ("rsqrt", 1e5, 1.0, 1.0, "wide"),
    ("tanh", 0.37, 1.0, 1.0, "wide"),
    ("log1p", 0.12, 1.0, 1.0, "wide"),
    ("expm1", 0.09, 1.0, 1.0, "wide"),
    ("pow", 3.1, 9.7, 2.0 ** -600, "wide"),
    ("pown", 1.37, 1.0, 1.0, "wide"),
    ("hypot", 3e150, 7e149, 2.0 ** -500, "wide"),
    ("sinh", 44.3, 1.0, 2.0 ** -900, "random"),
    ("cosh", 44.3, 1.0, 2.0 ** -900, "random"),
    ("asinh", 1e8, 1.0, 1.0, "wide"),
    ("acosh", 1e8, 1.0, 1.0, "wide"),
    ("atanh", 0.124, 1.0, 1.0, "wide"),
    ("sin", 1.3, 1.0, 1.0, "wide"),
    ("cos", 0.37, 1.0, 1.0, "random"),
    ("tan", 0.19, 1.0, 1.0, "wide"),
    ("sin", 3.7e8, 1.0, 1.0, "random", "sin_large"),
    ("cos", 1.1e300, 1.0, 1.0, "random", "cos_huge"),
]


def cases():
    B, n = 128, 300
    out = []
    for i, (fn, a, b, scale, init, *name) in enumerate(FUNCTIONS):
        out.append((f"f64_{(name or [fn])[0]}_128", f64_function_kernel,
                    {"FN": fn, "A": a, "B": b, "SCALE": scale, "BLOCK": B}, {"num_warps": 2}, [
                        ("n300", dict(x_ptr=Buf("f32", n, init), y_ptr=Buf("f32", n, "wide"),
                                      hi_ptr=Buf("f32", n, "sentinel", True), lo_ptr=Buf("f32", n, "sentinel", True),
                                      n=n), [3, 1, 1], 3601 + i)]))
    out.append(("layernorm_f64_128", layernorm_f64_kernel, {"BLOCK": 128}, {"num_warps": 4}, [
        ("rows5", dict(x_ptr=Buf("f32", 5 * 100), w_ptr=Buf("f32", 100), b_ptr=Buf("f32", 100),
                       y_ptr=Buf("f32", 500, "sentinel", True), N=100, eps=F32(1e-5)), [5, 1, 1], 3651)]))
    out.append(("logsumexp_f64_128", logsumexp_f64_kernel, {"BLOCK": 128}, {"num_warps": 2}, [
        ("rows4", dict(x_ptr=Buf("f32", 4 * 90), out_ptr=Buf("f32", 4, "sentinel", True), N=90),
         [4, 1, 1], 3652)]))
    out.append(("gelu_softplus_f64_256", gelu_softplus_f64_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n700", dict(x_ptr=Buf("f32", 700, "wide"), g_ptr=Buf("f32", 700, "sentinel", True),
                      s_ptr=Buf("f32", 700, "sentinel", True), n=700), [3, 1, 1], 3653)]))
    return out


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx29")]
    gen.main()
