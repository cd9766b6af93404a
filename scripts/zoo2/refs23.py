"""References of the round-23 kernels of the second zoo (cases.json beside this file), people-set format."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import f32, reference_with  # noqa: E402


def i64_bound_mask_kernel(a, o):
    for i in range(128):
        x = a["x_ptr"][i]
        o["out_ptr"][i] = x if i < a["lim"] - 2**32 else -x
    return 0.0


def loop_if_pointer_kernel(a, o):
    B = a["BLOCK"]
    for j in range(B):
        acc = 0.0
        for i in range(a["n"]):
            acc = f32(acc + (a["a_ptr"] if i % 3 == 0 else a["b_ptr"])[i * B + j])
        o["out_ptr"][j] = acc
    return 0.0


def noinline_pick_kernel(a, o):
    B = a["BLOCK"]
    for pid in range(2):
        src = a["a_ptr"] if a["flag"] + pid > 0 else a["b_ptr"]
        for j in range(B):
            o["out_ptr"][pid * B + j] = f32(src[j] + 1.0)
    return 0.0


def while_alternate_kernel(a, o):
    B = a["BLOCK"]
    for j in range(B):
        acc = 0.0
        for k in range(a["n"]):
            acc = f32(acc + (a["a_ptr"] if k % 2 == 0 else a["b_ptr"])[k * B + j])
        o["out_ptr"][j] = acc
    return 0.0


def if_strides_kernel(a, o):
    N = a["N"]
    for r in range(N):
        for c in range(N):
            o["out_ptr"][r * N + c] = a["x_ptr"][r * N + c if a["flag"] > 0 else c * N + r]
    return 0.0


REFERENCES = {f.__name__: f for f in (i64_bound_mask_kernel, loop_if_pointer_kernel, noinline_pick_kernel,
                                      while_alternate_kernel, if_strides_kernel)}


reference = reference_with(REFERENCES)
