#!/usr/bin/env python3
"""Round 20 of the second zoo (a float tensor's bytes read through a `uint8` pointer, `exp` and `log` in f64,
`tl.maximum` propagating NaN with `tl.cumprod`, a CSR sparse matrix-vector product):
writes fx20/ as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen20.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, triton, tl  # noqa: E402


# 1. A float tensor's top bytes, read through `x_ptr.to(tl.pointer_type(tl.uint8))`.
@triton.jit
def byte_view_kernel(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    b = x_ptr.to(tl.pointer_type(tl.uint8))
    v = tl.load(b + offs * 4 + 3)
    tl.store(out_ptr + offs, v.to(tl.int32))

# 2. `exp` and `log` of f64 values.
@triton.jit
def f64_exp_log_kernel(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs).to(tl.float64)
    y = tl.exp(x * 0.25) + tl.log(tl.abs(x) + 1.0)
    tl.store(out_ptr + offs, y.to(tl.float32))

# 3. `tl.maximum` propagating NaN, and `tl.cumprod`.
@triton.jit
def nan_max_cumprod_kernel(x_ptr, y_ptr, out_ptr, cp_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL))
    tl.store(cp_ptr + offs, tl.cumprod(x * 0.125 + 1.0, axis=0))

# 4. A CSR-style sparse matrix-vector product: per row, column indices loaded, `x` gathered at them.
@triton.jit
def csr_spmv_kernel(rowptr_ptr, col_ptr, val_ptr, x_ptr, y_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    start = row * 25
    end = start + tl.abs(tl.load(rowptr_ptr + row)) * 8
    acc = tl.zeros([BLOCK], tl.float32)
    for k in range(start, end, BLOCK):
        offs = k + tl.arange(0, BLOCK)
        m = offs < end
        c = tl.abs(tl.load(col_ptr + offs, mask=m, other=0)) * 9
        v = tl.load(val_ptr + offs, mask=m, other=0.0)
        acc += v * tl.load(x_ptr + c, mask=m, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


def cases():
    return [
        ("byte_view_64_f32", byte_view_kernel, {"N": 64}, {"num_warps": 1}, [
            ("n64", dict(x_ptr=Buf("f32", 64), out_ptr=Buf("i32", 64, "sentinel", True)), [1,1,1], 2801)]),
        ("f64_exp_log_64_f32", f64_exp_log_kernel, {"N": 64}, {"num_warps": 1}, [
            ("n64", dict(x_ptr=Buf("f32", 64), out_ptr=Buf("f32", 64, "sentinel", True)), [1,1,1], 2802)]),
        ("nan_max_cumprod_64_f32", nan_max_cumprod_kernel, {"N": 64}, {"num_warps": 1}, [
            ("n64", dict(x_ptr=Buf("f32", 64), y_ptr=Buf("f32", 64), out_ptr=Buf("f32", 64, "sentinel", True), cp_ptr=Buf("f32", 64, "sentinel", True)), [1,1,1], 2804)]),
        ("csr_spmv_32_f32", csr_spmv_kernel, {"BLOCK": 32}, {"num_warps": 1}, [
            ("r4", dict(rowptr_ptr=Buf("i32", 4, "int3"), col_ptr=Buf("i32", 100, "int3"), val_ptr=Buf("f32", 100), x_ptr=Buf("f32", 64), y_ptr=Buf("f32", 4, "sentinel", True)), [4,1,1], 2805)]),
    ]


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx20")]
    gen.main()
