"""References of the round-4 kernels of the second zoo (cases.json beside this file), people-set format."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import f16, f32, reference_with  # noqa: E402


def attn_bwd_dkdv_kernel(a, o):
    S, D, sc = a["N_CTX"], a["D"], a["sm_scale"]
    Q, K, V, DO = a["Q"], a["K"], a["V"], a["DO"]
    for n in range(S):
        k, v = K[n * D:(n + 1) * D], V[n * D:(n + 1) * D]
        dk, dv = [0.0] * D, [0.0] * D
        for m in range(S):
            q, do = Q[m * D:(m + 1) * D], DO[m * D:(m + 1) * D]
            s = sum(k[d] * q[d] for d in range(D))
            p = f32(math.exp(f32(s * sc) - a["LSE"][m]))
            ph = f16(p)
            dp = sum(v[d] * do[d] for d in range(D))
            ds = f16(f32(p * (dp - a["DELTA"][m])))
            for d in range(D):
                dv[d] += ph * do[d]
                dk[d] += ds * q[d]
        for d in range(D):
            o["DK"][n * D + d] = dk[d] * sc
            o["DV"][n * D + d] = dv[d]
    return 1e-2


def linear_bwd_dw_kernel(a, o):
    M, K, N = a["M"], a["K"], a["N"]
    for k in range(K):
        for n in range(N):
            o["dw_ptr"][k * N + n] = sum(a["x_ptr"][m * K + k] * a["dy_ptr"][m * N + n] for m in range(M))
    return 0.0


def ssm_scan_2d_kernel(a, o):
    L = a["L"]
    for d in range(a["D"]):
        h = 0.0
        for t in range(L):
            i = d * L + t
            h = math.exp(-abs(a["dt_ptr"][i]) * 0.1) * h + a["b_ptr"][i]
            o["h_ptr"][i] = h
    return 1e-5


def embedding_i64_kernel(a, o):
    D, V = a["D"], a["V"]
    for t in range(len(o["out_ptr"]) // D):
        idx = a["ids_ptr"][2 * t] & (V - 1)
        o["out_ptr"][t * D:(t + 1) * D] = a["w_ptr"][idx * D:(idx + 1) * D]
    return 0.0


def reverse_rw_kernel(a, o):
    n = a["n"]
    for i in range(n):
        o["y_ptr"][i] = a["x_ptr"][n - 1 - i]
        o["z_ptr"][n - 1 - i] = a["x_ptr"][i] * 2.0
    return 0.0


def unaligned_copy_f16_kernel(a, o):
    for r in range(a["n_rows"]):
        for c in range(a["n_cols"]):
            o["y_ptr"][r * a["stride_y"] + c] = f16(a["x_ptr"][r * a["stride_x"] + a["col0"] + c] * 2.0)
    return 0.0


def udivmod_kernel(a, o):
    d = a["d"]
    for i in range(a["n"]):
        u = a["x_ptr"][i] & 0xFFFFFFFF
        o["q_ptr"][i] = u // d
        o["r_ptr"][i] = u % d + u % 10
        o["w_ptr"][i] = ((u * 3) // 7) >> 1
    return 0.0


def f16_math_kernel(a, o):
    for i in range(a["n"]):
        x = a["x_ptr"][i]
        o["e_ptr"][i] = f16(f16(f16(x * x) * 0.5) - x)
        o["l_ptr"][i] = f16(f16(max(x, 0.0) * f16(0.3)) + min(x, 1.0))
        o["s_ptr"][i] = f16(f32(math.sqrt(abs(x))))
    return 1e-3


def unrolled_dot_kernel(a, o):
    M, N, K = a["M"], a["N"], a["K"]
    for i in range(M):
        for j in range(N):
            o["c_ptr"][i * N + j] = f16(sum(a["a_ptr"][i * K + k] * a["b_ptr"][k * N + j] for k in range(K)))
    return 1e-3


def softmax_w16_kernel(a, o):
    N, s = a["n_cols"], a["stride"]
    for r in range(len(a["x_ptr"]) // s):
        row = a["x_ptr"][r * s:r * s + N]
        mx = max(row)
        e = [math.exp(v - mx) for v in row]
        t = sum(e)
        for c in range(N):
            o["y_ptr"][r * s + c] = e[c] / t
    return 1e-5


def col_max_count_kernel(a, o):
    M, N = a["M"], a["N"]
    for c in range(N):
        col = [a["x_ptr"][r * N + c] for r in range(M)]
        mx = max(col)
        o["v_ptr"][c], o["i_ptr"][c], o["c_ptr"][c] = mx, col.index(mx), col.count(mx)
    return 0.0


def histogram_w8_kernel(a, o):
    NB, B = a["NB"], a["BLOCK"]
    for p in range(len(o["h_ptr"]) // NB):
        h = [0] * NB
        for v in a["x_ptr"][p * B:(p + 1) * B]:
            h[v & (NB - 1)] += 1
        o["h_ptr"][p * NB:(p + 1) * NB] = h
    return 0.0


REFERENCES = {f.__name__: f for f in (
    attn_bwd_dkdv_kernel, linear_bwd_dw_kernel, ssm_scan_2d_kernel, embedding_i64_kernel, reverse_rw_kernel,
    unaligned_copy_f16_kernel, udivmod_kernel, f16_math_kernel, unrolled_dot_kernel, softmax_w16_kernel,
    col_max_count_kernel, histogram_w8_kernel)}


reference = reference_with(REFERENCES)
