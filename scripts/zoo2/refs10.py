"""References of the round-10 kernels of the second zoo (cases.json beside this file), people-set format."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import f32, reference_with  # noqa: E402


def noinline_grouped_copy_kernel(a, o):
    M, N, S, BM = a["M"], a["N"], a["stride"], a["BM"]
    for r in range(M):
        for c in range(N):
            o["y_ptr"][r * S + c] = a["x_ptr"][r * S + c] * 2 + r // BM
    return 0.0


def noinline_row_norm_kernel(a, o):
    N, S = a["N"], a["stride"]
    for r in range(a["n_rows"]):
        x = a["x_ptr"][r * S:r * S + N]
        mean = sum(x) / N
        rstd = 1 / math.sqrt(sum((v - mean) ** 2 for v in x) / N + 1e-5)
        for c in range(N):
            o["y_ptr"][r * S + c] = (x[c] - mean) * rstd
        o["mean_ptr"][r] = mean
    return 1e-5


def _clamp01(t):
    return min(max(t, 0.0), 1.0)


def noinline_nested_kernel(a, o):
    B = a["BLOCK"]
    for i in range(a["n"]):
        w = _clamp01(f32(a["t_ptr"][i // B] * 2 - 0.5))
        u = _clamp01(w + 0.25)
        x, y = a["a_ptr"][i], a["b_ptr"][i]
        o["y_ptr"][i] = x + (y - x) * w * u
    return 1e-5


def noinline_fill_kernel(a, o):
    B, n, v = a["BLOCK"], a["n"], a["value"]
    for i in range(n):
        o["y_ptr"][i] = (v if (i // B) % 2 == 0 else -v) + i
    return 0.0


def bhs_grid_scale_kernel(a, o):
    L, SB, SH = a["L"], a["stride_b"], a["stride_h"]
    heads = len(a["s_ptr"]) // (len(a["x_ptr"]) // SB)
    for b in range(len(a["x_ptr"]) // SB):
        for h in range(heads):
            for i in range(L):
                k = b * SB + h * SH + i
                o["y_ptr"][k] = f32(a["x_ptr"][k] * a["s_ptr"][b * heads + h])
    return 0.0


def ravel_tile_kernel(a, o):
    for i, x in enumerate(a["x_ptr"]):
        o["y_ptr"][i] = x * 2 + 1
    return 1e-6


REFERENCES = {f.__name__: f for f in (
    noinline_grouped_copy_kernel, noinline_row_norm_kernel, noinline_nested_kernel, noinline_fill_kernel,
    bhs_grid_scale_kernel, ravel_tile_kernel)}


reference = reference_with(REFERENCES)
