"""References of the round-27 kernels of the second zoo (cases.json beside this file), people-set format."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import f32, put_i64, reference_with  # noqa: E402


def i64_atomic_minmax_kernel(a, o):
    for s in range(8):
        vals = [a["x_ptr"][i] * 5000000000 for i in range(128) if i % 8 == s]
        put_i64(o["mx_ptr"], s, max([0] + vals))
        put_i64(o["mn_ptr"], s, min([0] + vals))
    return 0.0


def i64_sort_kernel(a, o):
    for i, v in enumerate(sorted(x * 3000000001 for x in a["x_ptr"])):
        put_i64(o["out_ptr"], i, v)
    return 0.0


def f64_argmin_kernel(a, o):
    N = a["N"]
    for r in range(3):
        x = [v * 0.1 for v in a["x_ptr"][r * N:(r + 1) * N]]
        o["v_ptr"][r] = f32(min(x))
        o["i_ptr"][r] = x.index(min(x))
    return 1e-6


REFERENCES = {f.__name__: f for f in (i64_atomic_minmax_kernel, i64_sort_kernel, f64_argmin_kernel)}


reference = reference_with(REFERENCES)
