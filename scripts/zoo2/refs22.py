"""References of the round-22 kernels of the second zoo (cases.json beside this file), people-set format."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import f32, reference_with  # noqa: E402


def ptr_ifexp_kernel(a, o):
    x, y, B = a["x_ptr"], a["y_ptr"], a["BLOCK"]
    for i in range(a["n"]):
        pid = i // B
        src = x if pid % 2 == 0 else y
        other = x[i] if pid % 3 == 0 else y[i + 1]
        o["out_ptr"][i] = f32(src[i] + other)
    return 0.0


def if_offsets_2d_kernel(a, o):
    N, BM = a["N"], a["BM"]
    for pid in range(4):
        for r in range(BM):
            for c in range(N):
                off = (pid * BM + r) * N + c
                v = a["x_ptr"][off + N * BM] if a["flag"] + pid > 2 else a["y_ptr"][off]
                o["out_ptr"][off] = f32(v * 2.0)
    return 0.0


def topk_rows_kernel(a, o):
    L, K = a["L"], a["K"]
    for r in range(len(a["x_ptr"]) // L):
        top = sorted(a["x_ptr"][r * L:(r + 1) * L], reverse=True)[:K]
        o["out_ptr"][r * K:(r + 1) * K] = top
    return 0.0


def many_args_kernel(a, o):
    x = [a[f"a{i}"] for i in range(4)]
    s = [a[f"s{i}"] for i in range(5)]
    for i in range(a["n"]):
        o["o0"][i] = f32(x[0][i] * s[0] + x[1][i])
        o["o1"][i] = f32(x[1][i] * s[1] + x[2][i])
        o["o2"][i] = f32(x[2][i] * s[2] + x[3][i])
        o["o3"][i] = f32(x[3][i] * s[3] + f32(x[0][i] * s[4]))
        o["o4"][i] = (i * a["k0"] + a["k1"]) % a["k2"]
    return 1e-6


def flatten_varlen_kernel(a, o):
    L, B = a["L"], a["BLOCK"]
    for row in range(a["R"]):
        o["out_ptr"][row] = sum(a["x_ptr"][row * L:row * L + (row % 3 + 1) * B])
    return 1e-5


def flatten_rowsum_kernel(a, o):
    L = a["L"]
    for row in range(a["R"]):
        o["out_ptr"][row] = sum(a["x_ptr"][row * L:(row + 1) * L]) * a["w_ptr"][row]
    return 1e-5


REFERENCES = {f.__name__: f for f in (ptr_ifexp_kernel, if_offsets_2d_kernel, topk_rows_kernel, many_args_kernel,
                                      flatten_varlen_kernel, flatten_rowsum_kernel)}


reference = reference_with(REFERENCES)
