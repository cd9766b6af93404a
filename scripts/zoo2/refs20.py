"""References of the round-20 kernels of the second zoo (cases.json beside this file), people-set format."""
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import f32, reference_with  # noqa: E402


def byte_view_kernel(a, o):
    for i in range(64):
        o["out_ptr"][i] = struct.pack("<f", a["x_ptr"][i])[3]
    return 0.0


def f64_exp_log_kernel(a, o):
    for i in range(64):
        x = a["x_ptr"][i]
        o["out_ptr"][i] = f32(math.exp(x * 0.25) + math.log(abs(x) + 1.0))
    return 1e-6


def nan_max_cumprod_kernel(a, o):
    x, y = a["x_ptr"], a["y_ptr"]
    p = 1.0
    for i in range(64):
        o["out_ptr"][i] = max(x[i], y[i])
        p = f32(p * f32(x[i] * 0.125 + 1.0))
        o["cp_ptr"][i] = p
    return 1e-5


def csr_spmv_kernel(a, o):
    for r in range(4):
        s = r * 25
        e = s + abs(a["rowptr_ptr"][r]) * 8
        o["y_ptr"][r] = sum(a["val_ptr"][k] * a["x_ptr"][abs(a["col_ptr"][k]) * 9] for k in range(s, e))
    return 1e-5

REFERENCES = {f.__name__: f for f in (byte_view_kernel, f64_exp_log_kernel, nan_max_cumprod_kernel,
                                      csr_spmv_kernel)}


reference = reference_with(REFERENCES)
