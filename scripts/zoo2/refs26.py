"""References of the round-26 kernels of the second zoo (cases.json beside this file), people-set format."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import f32, put_i64, reference_with  # noqa: E402


def i64_reduce_kernel(a, o):
    x = [v * 3000000000 for v in a["x_ptr"]]
    put_i64(o["out_ptr"], 0, sum(x))
    put_i64(o["out_ptr"], 1, max(x))
    put_i64(o["out_ptr"], 2, x.index(max(x)))
    return 0.0


def i64_cumsum_kernel(a, o):
    s = 0
    for i, v in enumerate(a["x_ptr"]):
        s += v * 1000000007
        put_i64(o["out_ptr"], i, s)
    return 0.0


def f64_scan_kernel(a, o):
    s = 0.0
    for i, v in enumerate(a["x_ptr"]):
        s += v * 1.0e-3
        o["cs_ptr"][i] = f32(s)
    o["sum_ptr"][0] = f32(s)
    return 1e-6


REFERENCES = {f.__name__: f for f in (i64_reduce_kernel, i64_cumsum_kernel, f64_scan_kernel)}


reference = reference_with(REFERENCES)
