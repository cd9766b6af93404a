#!/usr/bin/env python3
"""Round 10 of the second zoo (helpers kept as calls with `noinline=True`, a 3-D grid, `tl.ravel`): writes
fx10/ as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen10.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, F32, cdiv, triton, tl  # noqa: E402


@triton.jit(noinline=True)
def _grouped_pid(pid, num_m, num_n, GROUP: tl.constexpr):
    width = GROUP * num_n
    group = pid // width
    first_m = group * GROUP
    size_m = tl.minimum(num_m - first_m, GROUP)
    return first_m + (pid % width) % size_m, (pid % width) // size_m


# 1. The grouped tile order of matmul kernels in a helper kept as a call (`noinline=True`, which Triton
#    allows with scalar arguments only): two scalars back, each tile copied and scaled where they say.
@triton.jit
def noinline_grouped_copy_kernel(x_ptr, y_ptr, M, N, stride, BM: tl.constexpr, BN: tl.constexpr,
                                 GROUP: tl.constexpr):
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    pid_m, pid_n = _grouped_pid(tl.program_id(0), num_m, num_n, GROUP)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride + rn[None, :], mask=mask, other=0.)
    tl.store(y_ptr + rm[:, None] * stride + rn[None, :], x * 2. + pid_m, mask=mask)


@triton.jit(noinline=True)
def _normalize_row(x_ptr, y_ptr, row, N, stride, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.)
    mean = tl.sum(x, axis=0) / N
    d = tl.where(mask, x - mean, 0.)
    rstd = 1 / tl.sqrt(tl.sum(d * d, axis=0) / N + 1e-5)
    tl.store(y_ptr + row * stride + cols, d * rstd, mask=mask)
    return mean


# 2. A whole row's normalization in a helper kept as a call, called for each of a program's rows in a
#    loop; the helper loads, reduces and stores itself and returns the row's mean.
@triton.jit
def noinline_row_norm_kernel(x_ptr, y_ptr, mean_ptr, n_rows, N, stride, ROWS: tl.constexpr,
                             BLOCK: tl.constexpr):
    for r in range(ROWS):
        row = tl.program_id(0) * ROWS + r
        if row < n_rows:
            mean = _normalize_row(x_ptr, y_ptr, row, N, stride, BLOCK)
            tl.store(mean_ptr + row, mean)


@triton.jit(noinline=True)
def _clamp01(t):
    return tl.minimum(tl.maximum(t, 0.), 1.)


@triton.jit(noinline=True)
def _blend_weight(t_ptr, i):
    return _clamp01(tl.load(t_ptr + i) * 2. - 0.5)


# 3. Helpers calling helpers: a per-program blend weight read and clamped by two nested calls, one
#    helper called twice.
@triton.jit
def noinline_nested_kernel(a_ptr, b_ptr, t_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0.)
    b = tl.load(b_ptr + offs, mask=mask, other=0.)
    w = _blend_weight(t_ptr, pid)
    u = _clamp01(w + 0.25)
    tl.store(y_ptr + offs, a + (b - a) * w * u, mask=mask)


@triton.jit(noinline=True)
def _fill_block(ptr, start, n, value, BLOCK: tl.constexpr):
    offs = start + tl.arange(0, BLOCK)
    tl.store(ptr + offs, tl.full([BLOCK], value, tl.float32) + offs.to(tl.float32), mask=offs < n)


# 4. A helper kept as a call that stores through the pointer it is given, called twice.
@triton.jit
def noinline_fill_kernel(y_ptr, n, value, BLOCK: tl.constexpr):
    start = tl.program_id(0) * 2 * BLOCK
    _fill_block(y_ptr, start, n, value, BLOCK)
    _fill_block(y_ptr, start + BLOCK, n, -value, BLOCK)


# 5. A 3-D grid: batch × head × block of a sequence, strides widened to 64 bits as attention kernels do.
@triton.jit
def bhs_grid_scale_kernel(x_ptr, y_ptr, s_ptr, L, stride_b, stride_h, BLOCK: tl.constexpr):
    pid_s = tl.program_id(0)
    h = tl.program_id(1)
    b = tl.program_id(2)
    n_heads = tl.num_programs(1)
    base = b.to(tl.int64) * stride_b + h.to(tl.int64) * stride_h
    offs = pid_s * BLOCK + tl.arange(0, BLOCK)
    mask = offs < L
    x = tl.load(x_ptr + base + offs, mask=mask, other=0.)
    s = tl.load(s_ptr + b * n_heads + h)
    tl.store(y_ptr + base + offs, x * s, mask=mask)


# 6. A 2-D tile flattened with tl.ravel and stored as one row.
@triton.jit
def ravel_tile_kernel(x_ptr, y_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    x = tl.load(x_ptr + pid * BM * stride + rm[:, None] * stride + rn[None, :])
    flat = tl.ravel(x * 2. + 1.)
    tl.store(y_ptr + pid * BM * BN + tl.arange(0, BM * BN), flat)


def cases():
    out = []
    M, N = 50, 70
    out.append(("noinline_grouped_copy_16x32_f32", noinline_grouped_copy_kernel, {"BM": 16, "BN": 32, "GROUP": 2},
                {"num_warps": 2}, [
        ("50x70", dict(x_ptr=Buf("f32", M * N), y_ptr=Buf("f32", M * N, "sentinel", True), M=M, N=N, stride=N),
         [cdiv(M, 16) * cdiv(N, 32), 1, 1], 1801)]))
    R, N = 7, 100
    out.append(("noinline_row_norm_128_f32", noinline_row_norm_kernel, {"ROWS": 2, "BLOCK": 128}, {"num_warps": 2}, [
        ("rows7x100", dict(x_ptr=Buf("f32", R * N), y_ptr=Buf("f32", R * N, "sentinel", True),
                           mean_ptr=Buf("f32", R, "sentinel", True), n_rows=R, N=N, stride=N), [cdiv(R, 2), 1, 1],
         1802)]))
    n = 300
    out.append(("noinline_nested_128_f32", noinline_nested_kernel, {"BLOCK": 128}, {"num_warps": 2}, [
        ("n300", dict(a_ptr=Buf("f32", n), b_ptr=Buf("f32", n), t_ptr=Buf("f32", cdiv(n, 128)),
                      y_ptr=Buf("f32", n, "sentinel", True), n=n), [cdiv(n, 128), 1, 1], 1803)]))
    out.append(("noinline_fill_64_f32", noinline_fill_kernel, {"BLOCK": 64}, {"num_warps": 1}, [
        ("n300", dict(y_ptr=Buf("f32", n, "sentinel", True), n=n, value=F32(1.5)), [cdiv(n, 128), 1, 1], 1804)]))
    B, H, L = 2, 3, 100
    out.append(("bhs_grid_scale_64_f32", bhs_grid_scale_kernel, {"BLOCK": 64}, {"num_warps": 1}, [
        ("b2h3l100", dict(x_ptr=Buf("f32", B * H * L), y_ptr=Buf("f32", B * H * L, "sentinel", True),
                          s_ptr=Buf("f32", B * H), L=L, stride_b=H * L, stride_h=L), [cdiv(L, 64), H, B], 1805)]))
    out.append(("ravel_tile_8x32_f32", ravel_tile_kernel, {"BM": 8, "BN": 32}, {"num_warps": 2}, [
        ("tiles3", dict(x_ptr=Buf("f32", 3 * 8 * 32), y_ptr=Buf("f32", 3 * 8 * 32, "sentinel", True), stride=32),
         [3, 1, 1], 1806)]))
    return out


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx10")]
    gen.main()
