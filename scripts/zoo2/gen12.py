#!/usr/bin/env python3
"""Round 12 of the second zoo (Triton's fast device-library functions for HIP: a GELU by `fast_tanhf`, a softmax
normalised by `fast_dividef` of `fast_expf`, the hyperbolic functions, `ldexp`): writes fx12/ as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen12.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, cdiv, triton, tl  # noqa: E402
from triton.language.extra.hip import libdevice  # noqa: E402


# 1. GELU, tanh approximation, with the fast tanh of Triton's HIP device library.
@triton.jit
def gelu_fast_tanh_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    tl.store(y_ptr + offs, 0.5 * x * (1. + libdevice.fast_tanhf(inner)), mask=mask)


# 2. A row softmax whose exponentials and normalisation use the fast functions.
@triton.jit
def softmax_fast_kernel(x_ptr, y_ptr, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    e = libdevice.fast_expf(x - tl.max(x, axis=0))
    s = tl.sum(e, axis=0)
    tl.store(y_ptr + row * stride + cols, libdevice.fast_dividef(e, tl.full([BLOCK], 1., tl.float32) * s), mask=mask)


# 3. The hyperbolic functions of the device library and their inverses.
@triton.jit
def hyperbolic_kernel(x_ptr, s_ptr, c_ptr, as_ptr, ac_ptr, at_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.)
    tl.store(s_ptr + offs, libdevice.sinh(x), mask=mask)
    tl.store(c_ptr + offs, libdevice.cosh(x), mask=mask)
    tl.store(as_ptr + offs, libdevice.asinh(x), mask=mask)
    tl.store(ac_ptr + offs, libdevice.acosh(tl.abs(x) + 1.), mask=mask)
    tl.store(at_ptr + offs, libdevice.atanh(x * 0.1), mask=mask)


# 4. Floats scaled by integer powers of two (`ldexp`), as block-floating-point code rescales.
@triton.jit
def ldexp_kernel(x_ptr, k_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.)
    k = tl.load(k_ptr + offs, mask=mask, other=0) % 20
    tl.store(y_ptr + offs, libdevice.ldexp(x, k), mask=mask)


def cases():
    out = []
    n = 700
    out.append(("gelu_fast_tanh_256_f32", gelu_fast_tanh_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n700", dict(x_ptr=Buf("f32", n, "wide"), y_ptr=Buf("f32", n, "sentinel", True), n=n), [cdiv(n, 256), 1, 1],
         2001)]))
    R, N = 6, 100
    out.append(("softmax_fast_128_f32", softmax_fast_kernel, {"BLOCK": 128}, {"num_warps": 2}, [
        ("rows6x100", dict(x_ptr=Buf("f32", R * N, "wide"), y_ptr=Buf("f32", R * N, "sentinel", True), N=N, stride=N),
         [R, 1, 1], 2002)]))
    out.append(("hyperbolic_256_f32", hyperbolic_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n700", dict(x_ptr=Buf("f32", n, "wide"), s_ptr=Buf("f32", n, "sentinel", True),
                      c_ptr=Buf("f32", n, "sentinel", True), as_ptr=Buf("f32", n, "sentinel", True),
                      ac_ptr=Buf("f32", n, "sentinel", True), at_ptr=Buf("f32", n, "sentinel", True), n=n),
         [cdiv(n, 256), 1, 1], 2003)]))
    out.append(("ldexp_256_f32", ldexp_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
        ("n700", dict(x_ptr=Buf("f32", n, "wide"), k_ptr=Buf("i32", n, "small"), y_ptr=Buf("f32", n, "sentinel", True),
                      n=n), [cdiv(n, 256), 1, 1], 2004)]))
    return out


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx12")]
    gen.main()
