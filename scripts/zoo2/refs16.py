"""References of the round-16 kernels of the second zoo (cases.json beside this file), people-set format."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import f16, reference_with  # noqa: E402


def ce_grad_inplace_kernel(a, o):
    V, S, n = a["V"], a["smoothing"], a["n_non_ignore"]
    eps = S / V
    for r in range(len(a["y_ptr"])):
        y = a["y_ptr"][r]
        y = a["ignore_index"] if y < -500 else (y % V + V) % V
        row = a["x_ptr"][r * V:(r + 1) * V]
        if y == a["ignore_index"]:
            o["x_ptr"][r * V:(r + 1) * V] = [0.0] * V
            continue
        m = max(row)
        lse = m + math.log(sum(math.exp(x - m) for x in row))
        smooth = sum(-eps * x for x in row)
        o["loss_ptr"][r] = ((lse - row[y]) * (1 - S) + smooth + S * lse) / n
        for c, x in enumerate(row):
            g = math.exp(x - lse) - eps - ((1 - S) if c == y else 0.0)
            o["x_ptr"][r * V + c] = g / n
    return 1e-4


def jsd_kernel(a, o):
    V, beta = a["V"], a["beta"]
    for r in range(len(a["loss_ptr"])):
        total = 0.0
        for c in range(V):
            x, y = a["x_ptr"][r * V + c], a["y_ptr"][r * V + c]
            X, Y = math.exp(x), math.exp(y)
            log_m = math.log(beta * X + (1 - beta) * Y)
            total += beta * X * (x - log_m) + (1 - beta) * Y * (y - log_m)
            o["dx_ptr"][r * V + c] = beta * X * (x - log_m)
        o["loss_ptr"][r] = total
    return 1e-3


def dyt_kernel(a, o):
    N, alpha = a["N"], a["alpha_ptr"][0]
    for r in range(len(a["x_ptr"]) // N):
        for c in range(N):
            x = a["x_ptr"][r * N + c]
            o["y_ptr"][r * N + c] = a["gamma_ptr"][c] * math.tanh(alpha * x) + a["beta_ptr"][c]
    return 2e-2


def sparsemax_kernel(a, o):
    N = a["N"]
    for r in range(len(a["x_ptr"]) // N):
        x = a["x_ptr"][r * N:(r + 1) * N]
        z = sorted(x, reverse=True)
        cs, k_max = 0.0, 0
        for k, v in enumerate(z, 1):
            cs += v
            if 1 + k * v > cs:
                k_max = k
        tau = (sum(z[:k_max]) - 1) / k_max
        for c in range(N):
            o["y_ptr"][r * N + c] = max(x[c] - tau, 0.0)
    return 1e-5


def tvd_kernel(a, o):
    V = a["V"]
    for r in range(len(a["loss_ptr"])):
        keep = a["label_ptr"][r] != a["ignore_index"]
        total = 0.0
        for c in range(V):
            d = a["p_ptr"][r * V + c] - a["q_ptr"][r * V + c]
            total += abs(d) if keep else 0.0
            o["grad_ptr"][r * V + c] = (0.5 if d > 0 else -0.5 if d < 0 else 0.0) if keep else 0.0
        o["loss_ptr"][r] = 0.5 * total
    return 1e-5


def mrope_kernel(a, o):
    T, HALF, s_t, s_h = a["T"], a["HALF"], a["s_t"], a["s_h"]
    H = a["stride_q"] // (2 * HALF)
    for t in range(T):
        for d in range(HALF):
            sec = 0 if d < s_t else 1 if d < s_t + s_h else 2
            cos = a["cos_ptr"][sec * T * HALF + t * HALF + d]
            sin = a["sin_ptr"][sec * T * HALF + t * HALF + d]
            for h in range(H):
                base = t * a["stride_q"] + h * 2 * HALF
                x1, x2 = a["q_ptr"][base + d], a["q_ptr"][base + HALF + d]
                o["q_ptr"][base + d] = x1 * cos - x2 * sin
                o["q_ptr"][base + HALF + d] = x2 * cos + x1 * sin
    return 1e-5


REFERENCES = {f.__name__: f for f in (ce_grad_inplace_kernel, jsd_kernel, dyt_kernel, sparsemax_kernel, tvd_kernel,
                                      mrope_kernel)}


reference = reference_with(REFERENCES)
