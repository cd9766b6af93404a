"""References of the round-28 kernels of the second zoo (cases.json beside this file), people-set format."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import _wrap, f32, reference_with  # noqa: E402

M64 = 2**64 - 1


def _tdiv(a, b):
    """C's quotient: toward zero."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def u64_ops_kernel(a, o):
    d = a["d"]
    for i, v in enumerate(a["x_ptr"]):
        h = ((v & M64) * 0x9E3779B97F4A7C15) & M64
        h ^= h >> 31
        o["out_ptr"][i] = ((h // d) ^ (h % d)) & 0xFFFFFFF
    return 0.0


def i64_minmax_abs_kernel(a, o):
    for i in range(len(a["x_ptr"])):
        x, y = a["x_ptr"][i] * 4000000000, a["y_ptr"][i] * 3000000000
        v = max(x, y) + 2 * min(x, y) + abs(x - y)
        o["out_ptr"][i] = f32(float(_tdiv(v, a["d"])))
    return 0.0


def i64_float_convert_kernel(a, o):
    for i, x in enumerate(a["x_ptr"]):
        big = x * 123456789013
        o["a_ptr"][i] = f32(f32(float(big)) + f32(float(x & 0xFFFFFFFF)))
        back = int(math.trunc(float(big) * 0.5))
        r = abs(back) % 1000003
        o["b_ptr"][i] = _wrap(-r if back < 0 else r, 32)
    return 0.0


REFERENCES = {f.__name__: f for f in (u64_ops_kernel, i64_minmax_abs_kernel, i64_float_convert_kernel)}


reference = reference_with(REFERENCES)
