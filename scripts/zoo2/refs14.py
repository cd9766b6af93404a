"""References of the round-14 kernels of the second zoo (cases.json beside this file), people-set format."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import f16, reference_with  # noqa: E402


def chunked_linear_attn_kernel(a, o):
    """Causal linear attention: o_t = Σ_{s ≤ t} (q_t · k_s) v_s (the chunked form computes the same)."""
    T, D = a["T"], a["D"]
    heads = len(a["q_ptr"]) // (T * D)
    for h in range(heads):
        row = lambda buf, t: a[buf][(h * T + t) * D:(h * T + t + 1) * D]  # noqa: E731
        for t in range(T):
            q = row("q_ptr", t)
            out = [0.0] * D
            for s in range(t + 1):
                w = sum(x * y for x, y in zip(q, row("k_ptr", s)))
                v = row("v_ptr", s)
                for e in range(D):
                    out[e] += w * v[e]
            o["o_ptr"][(h * T + t) * D:(h * T + t + 1) * D] = out
    return 0.0


def sliding_window_attn_kernel(a, o):
    T, W, D, scale = a["T"], a["W"], a["D"], a["scale"]
    q, k, v = a["q_ptr"], a["k_ptr"], a["v_ptr"]
    for t in range(T):
        keys = [s for s in range(max(0, t - W + 1), t + 1)]
        s_ = [sum(q[t * D + e] * k[s * D + e] for e in range(D)) * scale for s in keys]
        mx = max(s_)
        p = [math.exp(x - mx) for x in s_]
        total = sum(p)
        for e in range(D):
            # P is rounded to f16 before its product with V.
            o["o_ptr"][t * D + e] = sum(f16(pi) * v[s * D + e] for pi, s in zip(p, keys)) / total
    return 2e-3


def awq_matmul_kernel(a, o):
    M, N, K, G = a["M"], a["N"], a["K"], a["G"]
    for i in range(M):
        for j in range(N):
            acc = 0.0
            for kk in range(K):
                packed = a["qw_ptr"][kk * (N // 8) + j // 8] & 0xFFFFFFFF
                w = (packed >> ((j % 8) * 4)) & 0xF
                g = kk // G
                b = f16((w - a["z_ptr"][g * N + j]) * a["s_ptr"][g * N + j])
                acc += a["a_ptr"][i * K + kk] * b
            o["c_ptr"][i * N + j] = acc
    return 0.0


def rmsnorm_swiglu_kernel(a, o):
    M, D, F, eps = a["M"], a["D"], a["F"], a["eps"]
    for i in range(M):
        x = a["x_ptr"][i * D:(i + 1) * D]
        rstd = 1 / math.sqrt(sum(v * v for v in x) / D + eps)
        xn = [f16(x[e] * rstd * a["nw_ptr"][e]) for e in range(D)]
        for j in range(F):
            gate = sum(xn[e] * a["wg_ptr"][e * F + j] for e in range(D))
            up = sum(xn[e] * a["wu_ptr"][e * F + j] for e in range(D))
            o["y_ptr"][i * F + j] = gate / (1 + math.exp(-gate)) * up
    return 1e-2


REFERENCES = {f.__name__: f for f in (chunked_linear_attn_kernel, sliding_window_attn_kernel, awq_matmul_kernel,
                                      rmsnorm_swiglu_kernel)}


reference = reference_with(REFERENCES)
