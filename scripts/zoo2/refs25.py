"""References of the round-25 kernels of the second zoo (cases.json beside this file), people-set format."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import f32, i64_at, reference_with  # noqa: E402


def kv_slot_write_kernel(a, o):
    BS, D = a["BS"], a["D"]
    for t in range(len(a["key_ptr"]) // D):
        hi = i64_at(a["slot_ptr"], t) >> 32
        slot = -1 if hi < -1 else 2 * t + (hi & 1)
        if slot < 0:
            continue
        block, off = slot // BS, slot % BS
        for d in range(D):
            o["cache_ptr"][block * BS * D + off * D + d] = a["key_ptr"][t * D + d]
    return 0.0


def varlen_i64_sum_kernel(a, o):
    D = a["D"]
    for b in range(4):
        start = b * 10 + ((i64_at(a["cu_ptr"], b) >> 32) & 3)
        end = start + (i64_at(a["cu_ptr"], b + 1) & 7)
        for d in range(D):
            acc = 0.0
            for r in range(start, end):
                acc = f32(acc + a["x_ptr"][r * D + d])
            o["out_ptr"][b * D + d] = acc
    return 0.0


def i64_row_gather_kernel(a, o):
    D = a["D"]
    for m in range(32):
        raw = i64_at(a["idx_ptr"], m)
        row = ((raw >> 32) + 3) * 8 + (raw & 7)
        for d in range(D):
            o["out_ptr"][m * D + d] = a["x_ptr"][row * D + d]
    return 0.0


REFERENCES = {f.__name__: f for f in (kv_slot_write_kernel, varlen_i64_sum_kernel, i64_row_gather_kernel)}


reference = reference_with(REFERENCES)
