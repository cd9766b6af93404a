#!/usr/bin/env python3
"""Round 25 of the second zoo (64-bit values loaded from memory: a KV-cache write through a
64-bit slot mapping that skips negative slots, a varlen reduction over 64-bit cumulative
lengths, rows gathered at 64-bit indices): writes fx25/ as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen25.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, triton, tl  # noqa: E402


# 1. Each token's key written into a paged cache at its 64-bit slot (block, offset in block);
#    a negative slot (a padding token) is skipped.
@triton.jit
def kv_slot_write_kernel(key_ptr, slot_ptr, cache_ptr, BS: tl.constexpr, D: tl.constexpr):
    t = tl.program_id(0)
    # The emulator's 64-bit words are two small 32-bit halves: the high one picks a slot.
    hi = tl.load(slot_ptr + t) >> 32
    slot = tl.where(hi < -1, -1, 2 * t + (hi & 1))
    if slot < 0:
        return
    block = slot // BS
    off = slot % BS
    d = tl.arange(0, D)
    tl.store(cache_ptr + block * (BS * D) + off * D + d, tl.load(key_ptr + t * D + d))


# 2. Per sequence, the sum of its rows between 64-bit cumulative lengths.
@triton.jit
def varlen_i64_sum_kernel(cu_ptr, x_ptr, out_ptr, D: tl.constexpr):
    b = tl.program_id(0)
    start = b * 10 + ((tl.load(cu_ptr + b) >> 32) & 3)
    end = start + (tl.load(cu_ptr + b + 1) & 7)
    d = tl.arange(0, D)
    acc = tl.zeros([D], tl.float32)
    for r in range(start, end):
        acc += tl.load(x_ptr + r * D + d)
    tl.store(out_ptr + b * D + d, acc)


# 3. Rows gathered at 64-bit indices into a 2-D tile.
@triton.jit
def i64_row_gather_kernel(idx_ptr, x_ptr, out_ptr, BM: tl.constexpr, D: tl.constexpr):
    m = tl.program_id(0) * BM + tl.arange(0, BM)
    raw = tl.load(idx_ptr + m)
    rows = ((raw >> 32) + 3) * 8 + (raw & 7)
    d = tl.arange(0, D)
    v = tl.load(x_ptr + rows[:, None] * D + d[None, :])
    tl.store(out_ptr + m[:, None] * D + d[None, :], v)


def cases():
    T, BS, D, NB = 10, 4, 32, 6
    return [
        ("kv_slot_write_4x32_f32", kv_slot_write_kernel, {"BS": BS, "D": D}, {"num_warps": 1}, [
            ("t10", dict(key_ptr=Buf("f32", T * D), slot_ptr=Buf("i32", 2 * T, "int3", tt="i64"),
                         cache_ptr=Buf("f32", NB * BS * D, "sentinel", True)), [T, 1, 1], 3301)]),
        ("varlen_i64_sum_32_f32", varlen_i64_sum_kernel, {"D": D}, {"num_warps": 1}, [
            ("b4", dict(cu_ptr=Buf("i32", 10, "int3", tt="i64"), x_ptr=Buf("f32", 40 * D),
                        out_ptr=Buf("f32", 4 * D, "sentinel", True)), [4, 1, 1], 3302)]),
        ("i64_row_gather_16x32_f32", i64_row_gather_kernel, {"BM": 16, "D": D}, {"num_warps": 2}, [
            ("m32", dict(idx_ptr=Buf("i32", 64, "int3", tt="i64"), x_ptr=Buf("f32", 64 * D),
                         out_ptr=Buf("f32", 32 * D, "sentinel", True)), [2, 1, 1], 3303)]),
    ]


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx25")]
    gen.main()
