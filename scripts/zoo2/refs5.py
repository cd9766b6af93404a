"""References of the round-5 kernels of the second zoo (cases.json beside this file), people-set format."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import _wrap, f16, f32, reference_with  # noqa: E402


def rev_recurrence_kernel(a, o):
    M, N = a["M"], a["N"]
    for c in range(N):
        h = None
        for r in reversed(range(M)):
            i = r * N + c
            h = a["b_ptr"][i] if h is None else a["a_ptr"][i] * 0.25 * h + a["b_ptr"][i]
            o["h_ptr"][i] = h
    return 1e-5


def image_normalize_u8_kernel(a, o):
    HW = a["HW"]
    mean = [a["m0"], a["m1"], a["m2"]]
    std = [a["s0"], a["s1"], a["s2"]]
    for i in range(HW * 3):
        p, c = i // 3, i % 3
        o["out_ptr"][c * HW + p] = ((a["img_ptr"][i] & 0xFF) / 255.0 - mean[c]) / std[c]
    return 1e-5


def atomic_minmax_f32_kernel(a, o):
    NB = a["NB"]
    for i in range(a["n"]):
        x, b = a["x_ptr"][i], i % NB
        o["mx_ptr"][b] = max(o["mx_ptr"][b], x)
        o["mn_ptr"][b] = min(o["mn_ptr"][b], x)
        o["last_ptr"][i] = x * 2.0
    return 0.0


def bitset_atomic_kernel(a, o):
    for i in range(a["n"]):
        x = abs(a["x_ptr"][i])
        bit = 1 << (x & 31)
        w = (x >> 5) & 7
        o["bits_ptr"][w] = _wrap(o["bits_ptr"][w] | bit)
        o["xr_ptr"][i & 7] = _wrap(o["xr_ptr"][i & 7] ^ x)
        o["an_ptr"][i & 3] = _wrap(o["an_ptr"][i & 3] & ~bit)
    return 0.0


def ptv_trans_dot_kernel(a, o):
    BM, BN, D = a["BM"], a["BN"], a["D"]
    Q, K, DO = a["q_ptr"], a["k_ptr"], a["do_ptr"]
    P = []
    for m in range(BM):
        s = [sum(Q[m * D + d] * K[n * D + d] for d in range(D)) * 0.05 for n in range(BN)]
        mx = max(s)
        e = [math.exp(v - mx) for v in s]
        t = sum(e)
        P.append([f16(v / t) for v in e])
    for n in range(BN):
        for d in range(D):
            o["dv_ptr"][n * D + d] = sum(P[m][n] * DO[m * D + d] for m in range(BM))
    return 2e-3


def matmul_e5m2_kernel(a, o):
    M = len(o["c_ptr"]) // a["N"]
    N, K = a["N"], a["K"]
    for i in range(M):
        for j in range(N):
            o["c_ptr"][i * N + j] = sum(a["a_ptr"][i * K + k] * a["b_ptr"][k * N + j] for k in range(K))
    return 0.0


def big_block_w1_kernel(a, o):
    B = a["BLOCK"]
    for p in range(len(o["s_ptr"])):
        ys = [x * 1.5 - 2.0 for x in a["x_ptr"][p * B:(p + 1) * B]]
        o["y_ptr"][p * B:(p + 1) * B] = ys
        o["s_ptr"][p] = sum(ys)
    return 0.0


def long_scan_w8_kernel(a, o):
    B = a["BLOCK"]
    t = 0
    for i in range(B):
        t += a["x_ptr"][i]
        o["y_ptr"][i] = t
    q = B // 4
    for r in range(4):
        o["r_ptr"][r] = max(a["x_ptr"][r * q:(r + 1) * q])
    return 0.0


def gather_1d_kernel(a, o):
    N = a["N"]
    for i in range(N):
        o["y_ptr"][i] = a["x_ptr"][a["idx_ptr"][i] & (N - 1)]
    return 0.0


def dot_bf16_small_kernel(a, o):
    BM, BN, BK = a["BM"], a["BN"], a["BK"]
    for p in range(len(o["c_ptr"]) // (BM * BN)):
        for i in range(BM):
            for j in range(BN):
                o["c_ptr"][p * BM * BN + i * BN + j] = sum(
                    a["a_ptr"][p * BM * BK + i * BK + k] * a["b_ptr"][p * BK * BN + k * BN + j] for k in range(BK))
    return 0.0


def dot_in_if_kernel(a, o):
    T = a["T"]
    for p in range(len(a["flags_ptr"])):
        A = a["a_ptr"][p * T * T:(p + 1) * T * T]
        for i in range(T):
            for j in range(T):
                if a["flags_ptr"][p] > 0:
                    v = sum(A[i * T + k] * a["b_ptr"][k * T + j] for k in range(T))
                else:
                    v = A[i * T + j]
                o["c_ptr"][p * T * T + i * T + j] = v
    return 0.0


def matpow_while_kernel(a, o):
    T = a["T"]
    x = list(a["a_ptr"])
    for _ in range(a["n_iter"]):
        x = [f16(f32(sum(x[i * T + k] * x[k * T + j] for k in range(T))) * 0.0625) for i in range(T) for j in range(T)]
    o["c_ptr"][:] = x
    return 1e-3


REFERENCES = {f.__name__: f for f in (
    rev_recurrence_kernel, image_normalize_u8_kernel, atomic_minmax_f32_kernel, bitset_atomic_kernel,
    ptv_trans_dot_kernel, matmul_e5m2_kernel, big_block_w1_kernel, long_scan_w8_kernel, gather_1d_kernel,
    dot_bf16_small_kernel, dot_in_if_kernel, matpow_while_kernel)}


reference = reference_with(REFERENCES)
