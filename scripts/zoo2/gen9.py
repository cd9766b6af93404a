#!/usr/bin/env python3
"""Round 9 of the second zoo (integer and rounding semantics, keep_dims, reversed scans, scalar masks, 64-bit
hashing, u8 and i16 arithmetic, a transposed dot store, a loop carrying a flag): writes fx9/ as gen.py
writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen9.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, F32, cdiv, triton, tl  # noqa: E402


# 1. Signed division and remainder by a constant and by a runtime divisor (C semantics: toward zero).
@triton.jit
def int_divmod_signed_kernel(x_ptr, q_ptr, r_ptr, qd_ptr, rd_ptr, n, d, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.store(q_ptr + offs, x // 7, mask=mask)
    tl.store(r_ptr + offs, x % 7, mask=mask)
    tl.store(qd_ptr + offs, x // d, mask=mask)
    tl.store(rd_ptr + offs, x % d, mask=mask)


# 2. Rounding of negative and positive floats: floor, ceil, and the conversion to int (toward zero).
@triton.jit
def float_rounding_kernel(x_ptr, fl_ptr, ce_ptr, tr_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.) * 0.7
    tl.store(fl_ptr + offs, tl.floor(x), mask=mask)
    tl.store(ce_ptr + offs, tl.ceil(x), mask=mask)
    tl.store(tr_ptr + offs, x.to(tl.int32), mask=mask)


# 3. Rows centred and scaled by reductions kept as 2-D (keep_dims=True) and broadcast back.
@triton.jit
def keepdims_center_kernel(x_ptr, y_ptr, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    mask = (rows < M) & (cols < N)
    x = tl.load(x_ptr + rows * stride + cols, mask=mask, other=0.)
    mean = tl.sum(x, axis=1, keep_dims=True) / N
    amax = tl.max(tl.abs(tl.where(mask, x - mean, 0.)), axis=1, keep_dims=True)
    tl.store(y_ptr + rows * stride + cols, (x - mean) / tl.maximum(amax, 1e-6), mask=mask)


# 4. A suffix sum down the columns of a 2-D tile: `tl.cumsum(axis=0, reverse=True)` of integers.
@triton.jit
def rev_cumsum_axis0_kernel(x_ptr, y_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + r * C + c)
    tl.store(y_ptr + r * C + c, tl.cumsum(x, axis=0, reverse=True))


# 5. A scalar load under a scalar mask (programs past the table read -1) decides, as a scalar condition, the
#    sign of a whole tensor.
@triton.jit
def scalar_masked_sign_kernel(flag_ptr, x_ptr, y_ptr, n_flags, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    f = tl.load(flag_ptr + pid, mask=pid < n_flags, other=-1)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, tl.where(f > 0, x, -x) + f)


# 6. SplitMix64 over 64-bit unsigned integers: the state from a 32-bit seed and the element index, three
#    xor-shift-multiply rounds, the result's low and high words stored apart.
@triton.jit
def splitmix64_kernel(seed_ptr, lo_ptr, hi_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    s = tl.load(seed_ptr + offs, mask=mask, other=0).to(tl.uint32).to(tl.uint64)
    z = s * 0x9E3779B97F4A7C15 + offs.to(tl.uint64)
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB
    z = z ^ (z >> 31)
    tl.store(lo_ptr + offs, (z & 0xFFFFFFFF).to(tl.uint32).to(tl.int32, bitcast=True), mask=mask)
    tl.store(hi_ptr + offs, (z >> 32).to(tl.uint32).to(tl.int32, bitcast=True), mask=mask)


# 7. Gamma 2 on an 8-bit image: u8 in, float math, rounded back to u8.
@triton.jit
def u8_gamma_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    f = tl.load(x_ptr + offs, mask=mask, other=0).to(tl.float32) / 255.0
    tl.store(y_ptr + offs, (f * f * 255.0 + 0.5).to(tl.uint8), mask=mask)


# 8. Row predicates reduced as booleans: any and all of `x > 0` (`tl.max`/`tl.min` of i1) and their count.
@triton.jit
def bool_row_reduce_kernel(x_ptr, any_ptr, all_ptr, cnt_ptr, N, BN: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BN)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=1)
    pos = x > 0
    tl.store(any_ptr + row, tl.max(pos & (cols < N), axis=0).to(tl.int32))
    tl.store(all_ptr + row, tl.min(pos, axis=0).to(tl.int32))
    tl.store(cnt_ptr + row, tl.sum((pos & (cols < N)).to(tl.int32), axis=0))


# 9. A wrapping 16-bit multiply-accumulate of i8 operands over 4 column chunks, widened to i32 at the end.
@triton.jit
def i16_mac_kernel(a_ptr, b_ptr, y_ptr, N, BLOCK: tl.constexpr, CHUNKS: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.int16)
    for c in tl.static_range(CHUNKS):
        a = tl.load(a_ptr + row * N + c * BLOCK + cols).to(tl.int16)
        b = tl.load(b_ptr + row * N + c * BLOCK + cols).to(tl.int16)
        acc = acc + a * b * 3
    tl.store(y_ptr + row * BLOCK + cols, acc.to(tl.int32))


# 10. A 64x64 f16 dot over 8 warps whose f32 result is stored transposed.
@triton.jit
def dot_trans_store_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.trans(tl.dot(a, b))
    tl.store(c_ptr + rn[:, None] * M + rm[None, :], c)


# 11. A scalar loop carrying a "done" flag: elements are summed until the running sum first exceeds a
#     threshold, then the rest are skipped (a `break` written as people write it in Triton).
@triton.jit
def done_flag_loop_kernel(x_ptr, sum_ptr, cnt_ptr, N, thresh):
    row = tl.program_id(0)
    s = 0.0
    count = 0
    done = False
    for i in range(0, N):
        if not done:
            s += tl.load(x_ptr + row * N + i)
            count += 1
            done = s > thresh
    tl.store(sum_ptr + row, s)
    tl.store(cnt_ptr + row, count)


# 12. Elementwise unsigned 32-bit arithmetic: division, remainder, shifts and comparison of uint32 values.
@triton.jit
def u32_ops_kernel(x_ptr, y_ptr, q_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1).to(tl.uint32, bitcast=True)
    y = tl.load(y_ptr + offs, mask=mask, other=1).to(tl.uint32, bitcast=True) | 1
    q = x // y + (x % y) * 3 + (x >> 28)
    tl.store(q_ptr + offs, q.to(tl.int32, bitcast=True), mask=mask)
    tl.store(c_ptr + offs, (x > y).to(tl.int32), mask=mask)


def cases():
    out = []
    n = 300
    out.append(("int_divmod_signed_128_i32", int_divmod_signed_kernel, {"BLOCK": 128}, {"num_warps": 2}, [
        (f"n300d{d}", dict(x_ptr=Buf("i32", n, "small"), q_ptr=Buf("i32", n, "sentinel", True),
                           r_ptr=Buf("i32", n, "sentinel", True), qd_ptr=Buf("i32", n, "sentinel", True),
                           rd_ptr=Buf("i32", n, "sentinel", True), n=n, d=d), [cdiv(n, 128), 1, 1], 1700 + i)
        for i, d in enumerate([5, -3])]))
    out.append(("float_rounding_128_f32", float_rounding_kernel, {"BLOCK": 128}, {"num_warps": 2}, [
        ("n300", dict(x_ptr=Buf("f32", n, "wide"), fl_ptr=Buf("f32", n, "sentinel", True),
                      ce_ptr=Buf("f32", n, "sentinel", True), tr_ptr=Buf("i32", n, "sentinel", True), n=n),
         [cdiv(n, 128), 1, 1], 1702)]))
    M, N, S = 10, 50, 64
    out.append(("keepdims_center_4x64_f32", keepdims_center_kernel, {"BM": 4, "BN": 64}, {"num_warps": 4}, [
        ("10x50", dict(x_ptr=Buf("f32", M * S, "wide"), y_ptr=Buf("f32", M * S, "sentinel", True), M=M, N=N,
                       stride=S), [cdiv(M, 4), 1, 1], 1703)]))
    out.append(("rev_cumsum_axis0_16x32_i32", rev_cumsum_axis0_kernel, {"R": 16, "C": 32}, {"num_warps": 2}, [
        ("16x32", dict(x_ptr=Buf("i32", 512, "small"), y_ptr=Buf("i32", 512, "sentinel", True)), [1, 1, 1],
         1704)]))
    out.append(("scalar_masked_sign_64_f32", scalar_masked_sign_kernel, {"BLOCK": 64}, {"num_warps": 1}, [
        ("flags5grid8", dict(flag_ptr=Buf("i32", 5, "small"), x_ptr=Buf("f32", 512),
                             y_ptr=Buf("f32", 512, "sentinel", True), n_flags=5), [8, 1, 1], 1705)]))
    out.append(("splitmix64_128_i32", splitmix64_kernel, {"BLOCK": 128}, {"num_warps": 2}, [
        ("n300", dict(seed_ptr=Buf("i32", n), lo_ptr=Buf("i32", n, "sentinel", True),
                      hi_ptr=Buf("i32", n, "sentinel", True), n=n), [cdiv(n, 128), 1, 1], 1706)]))
    out.append(("u8_gamma_256_u8", u8_gamma_kernel, {"BLOCK": 256}, {"num_warps": 2}, [
        ("n700", dict(x_ptr=Buf("i8", 700, "random", tt="u8"), y_ptr=Buf("i8", 700, "sentinel", True, tt="u8"),
                      n=700), [cdiv(700, 256), 1, 1], 1707)]))
    R, N = 6, 40
    out.append(("bool_row_reduce_64_i32", bool_row_reduce_kernel, {"BN": 64}, {"num_warps": 1}, [
        ("rows6x40", dict(x_ptr=Buf("i32", R * N, "small"), any_ptr=Buf("i32", R, "sentinel", True),
                          all_ptr=Buf("i32", R, "sentinel", True), cnt_ptr=Buf("i32", R, "sentinel", True), N=N),
         [R, 1, 1], 1708)]))
    R = 3
    out.append(("i16_mac_64x4_i8", i16_mac_kernel, {"BLOCK": 64, "CHUNKS": 4}, {"num_warps": 1}, [
        ("rows3", dict(a_ptr=Buf("i8", R * 256), b_ptr=Buf("i8", R * 256), y_ptr=Buf("i32", R * 64, "sentinel", True),
                       N=256), [R, 1, 1], 1709)]))
    out.append(("dot_trans_store_64x64x32_w8_f16", dot_trans_store_kernel, {"M": 64, "N": 64, "K": 32},
                {"num_warps": 8}, [
        ("64x64x32", dict(a_ptr=Buf("f16", 64 * 32, "int3"), b_ptr=Buf("f16", 32 * 64, "int3"),
                          c_ptr=Buf("f32", 64 * 64, "sentinel", True)), [1, 1, 1], 1710)]))
    R, N = 6, 40
    out.append(("done_flag_loop_f32", done_flag_loop_kernel, {}, {"num_warps": 1}, [
        ("rows6x40", dict(x_ptr=Buf("f32", R * N), sum_ptr=Buf("f32", R, "sentinel", True),
                          cnt_ptr=Buf("i32", R, "sentinel", True), N=N, thresh=F32(20.0)), [R, 1, 1], 1711)]))
    out.append(("u32_ops_128_i32", u32_ops_kernel, {"BLOCK": 128}, {"num_warps": 2}, [
        ("n300", dict(x_ptr=Buf("i32", n, "random"), y_ptr=Buf("i32", n, "small"),
                      q_ptr=Buf("i32", n, "sentinel", True), c_ptr=Buf("i32", n, "sentinel", True), n=n),
         [cdiv(n, 128), 1, 1], 1712)]))
    return out


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx9")]
    gen.main()
