"""References of the round-24 kernels of the second zoo (cases.json beside this file), people-set format."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import _wrap, f32, reference_with  # noqa: E402


def _srem(a, b):
    """C's remainder: the dividend's sign."""
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def i64_stride_gather_kernel(a, o):
    for i in range(128):
        idx = _srem(_wrap(i * a["stride"] + 12345, 64), 97)
        o["out_ptr"][i] = a["x_ptr"][_wrap(idx, 32)]
    return 0.0


def loaded_flag_pointer_kernel(a, o):
    B, x, y = a["BLOCK"], a["x_ptr"], a["y_ptr"]
    for pid in range(4):
        f = a["flag_ptr"][pid] > 0
        for j in range(B):
            src = x[j] if f else y[j]
            p = y[j] if f else x[B - 1 - j]
            o["out_ptr"][pid * B + j] = f32(src * 10.0 + p)
    return 1e-6


def loaded_trip_choice_kernel(a, o):
    B = a["BLOCK"]
    n = a["n_ptr"][0]
    for j in range(B):
        acc = 0.0
        for i in range(max(n, 0)):
            acc = f32(acc + (a["a_ptr"] if a["sel_ptr"][i] > 0 else a["b_ptr"])[i * B + j])
        o["out_ptr"][j] = acc
    return 0.0


def i64_scalar_kernel(a, o):
    s = _wrap(a["seed"] * 3 + 1, 64)
    t = s if s > 30000000000 else -s
    for pid in range(3):
        v = _wrap(t + pid, 64) & (2**64 - 1)
        o["out_ptr"][2 * pid] = _wrap(v & 0xFFFFFFFF, 32)
        o["out_ptr"][2 * pid + 1] = _wrap(v >> 32, 32)
    return 0.0


REFERENCES = {f.__name__: f for f in (i64_stride_gather_kernel, loaded_flag_pointer_kernel,
                                      loaded_trip_choice_kernel, i64_scalar_kernel)}


reference = reference_with(REFERENCES)
