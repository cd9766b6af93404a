"""References of the round-3 kernels of the second zoo (cases.json beside this file), people-set format."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import _wrap, bf16, f16, f32, reference_with, swizzle2d  # noqa: E402


def adamw_step_kernel(a, o):
    lr, b1, b2, eps, wd, bc1, bc2 = (a[k] for k in ("lr", "beta1", "beta2", "eps", "weight_decay", "bc1", "bc2"))
    for i in range(a["n"]):
        p, g, m, v = a["p_ptr"][i], a["g_ptr"][i], a["m_ptr"][i], a["v_ptr"][i]
        p = p * (1.0 - lr * wd)
        m = b1 * m + (1.0 - b1) * g
        v = b2 * v + (1.0 - b2) * g * g
        o["p_ptr"][i] = p - lr * (m / bc1) / (math.sqrt(v / bc2) + eps)
        o["m_ptr"][i], o["v_ptr"][i] = m, v
    return 1e-5


def offset_copy_i64_kernel(a, o):
    d = a["start"] - a["base"]
    B = a["BLOCK"]
    for i in range(d, d + 4 * B):
        if i < a["n"]:
            o["y_ptr"][i] = a["x_ptr"][i] * a["scale"] + float(a["tail"] - a["base"])
    return 1e-6


def bit_reduce_kernel(a, o):
    N = a["n_cols"]
    for r in range(len(o["out_ptr"]) // 5):
        x = a["x_ptr"][r * N:(r + 1) * N]
        b = a["b_ptr"][r * N:(r + 1) * N]
        xs, ro, ra = 0, 0, -1
        for v in x:
            xs ^= v
            ro |= v & 0xFF
            ra &= v | 0x100
        o["out_ptr"][r * 5:r * 5 + 5] = [_wrap(xs), _wrap(ro), _wrap(ra), sum(b), max(b)]
    return 0.0


def f16_reduce_kernel(a, o):
    N = a["n_cols"]
    for r in range(len(o["s_ptr"])):
        x = a["x_ptr"][r * N:(r + 1) * N]
        o["s_ptr"][r] = sum(x)
        o["mx_ptr"][r] = max(x)
        o["ss_ptr"][r] = sum(v * v for v in x)
    return 0.0


def block_quant_4d_kernel(a, o):
    N, SM, SN = a["N"], a["SM"], a["SN"]
    M = len(a["x_ptr"]) // N
    X = a["x_ptr"]
    for bi in range(M // SM):
        for bj in range(N // SN):
            cells = [(r, c) for r in range(bi * SM, (bi + 1) * SM) for c in range(bj * SN, (bj + 1) * SN)]
            amax = max(abs(X[r * N + c]) for r, c in cells)
            scale = f32(max(amax, f32(1e-6)) / 127.0)
            o["s_ptr"][bi * (N // SN) + bj] = scale
            for r, c in cells:
                o["q_ptr"][r * N + c] = int(round(f32(X[r * N + c] / scale)))
    return 1e-6


def size1_axes_kernel(a, o):
    N = a["N"]
    for r in range(len(o["z_ptr"])):
        x = a["x_ptr"][r * N:(r + 1) * N]
        for c in range(N):
            o["y_ptr"][r * N + c] = x[c] * 2.0
        o["z_ptr"][r] = sum(x)
    return 1e-6


def topk_rows_kernel(a, o):
    K, N = a["K"], a["N"]
    for r in range(len(o["y_ptr"]) // K):
        o["y_ptr"][r * K:(r + 1) * K] = sorted(a["x_ptr"][r * N:(r + 1) * N], reverse=True)[:K]
    return 0.0


def swizzled_copy_kernel(a, o):
    M, N, BM, BN, G = a["M"], a["N"], a["BM"], a["BN"], a["GROUP"]
    gm, gn = -(-M // BM), -(-N // BN)
    for i in range(M * N):
        o["y_ptr"][i] = a["x_ptr"][i] * 2.0
    for pid in range(gm * gn):
        pm, pn = swizzle2d(pid // gn, pid % gn, gm, gn, G)
        o["owner_ptr"][pm * gn + pn] = pid
    return 0.0


def cas_claim_kernel(a, o):
    T = a["T"]
    slots = {(abs(k) + 1) & (T - 1) for k in a["keys_ptr"][:a["n"]]}
    o["count_ptr"][0] = len(slots)
    o["count_ptr"][1] = a["n"] - len(slots)
    return 0.0


def swiglu_bf16_kernel(a, o):
    for i in range(a["n"]):
        x = bf16(a["a_ptr"][i])
        b = bf16(a["b_ptr"][i])
        s = bf16(x / (1.0 + math.exp(-x)))
        o["c_ptr"][i] = bf16(s * b)
    return 8e-3


def precise_math_kernel(a, o):
    for i in range(a["n"]):
        x = a["x_ptr"][i]
        d = f32(abs(a["d_ptr"][i]) + 0.5)
        o["q_ptr"][i] = f32(x / d)
        o["r_ptr"][i] = f32(math.sqrt(abs(x)))
    return 0.0


def triangular_sum_kernel(a, o):
    B = a["BLOCK"]
    for p in range(len(o["y_ptr"]) // B):
        for j in range(B):
            o["y_ptr"][p * B + j] = sum(a["x_ptr"][i * B + j] for i in range(p + 1))
    return 0.0


def cond_transpose_kernel(a, o):
    N = a["N"]
    for p in range(len(a["flags_ptr"])):
        base = p * N * N
        for r in range(N):
            for c in range(N):
                if a["flags_ptr"][p] > 0:
                    o["y_ptr"][base + r * N + c] = a["x_ptr"][base + c * N + r]
                else:
                    o["y_ptr"][base + r * N + c] = a["x_ptr"][base + r * N + c] * 2.0
    return 0.0


def int8_gemm_w8_kernel(a, o):
    M, N, K = a["M"], a["N"], a["K"]
    A, B = a["a_ptr"], a["b_ptr"]
    for i in range(M):
        for j in range(N):
            o["c_ptr"][i * N + j] = sum(A[i * K + k] * B[k * N + j] for k in range(K))
    return 0.0


def tiny_dot_f16acc_kernel(a, o):
    BM, BN, BK = a["BM"], a["BN"], a["BK"]
    for p in range(len(o["c_ptr"]) // (BM * BN)):
        for i in range(BM):
            for j in range(BN):
                o["c_ptr"][p * BM * BN + i * BN + j] = f16(sum(
                    a["a_ptr"][p * BM * BK + i * BK + k] * a["b_ptr"][p * BK * BN + k * BN + j] for k in range(BK)))
    return 0.0


def logcumsumexp_kernel(a, o):
    L = a["L"]
    for r in range(a["n_rows"]):
        m, s = None, 0.0
        for j in range(L):
            x = a["x_ptr"][r * L + j]
            if m is None:
                m, s = x, 1.0
            else:
                nm = max(m, x)
                s = s * math.exp(m - nm) + math.exp(x - nm)
                m = nm
            o["y_ptr"][r * L + j] = m + math.log(s)
    return 1e-5


REFERENCES = {f.__name__: f for f in (
    adamw_step_kernel, offset_copy_i64_kernel, bit_reduce_kernel, f16_reduce_kernel, block_quant_4d_kernel,
    size1_axes_kernel, topk_rows_kernel, swizzled_copy_kernel, cas_claim_kernel, swiglu_bf16_kernel,
    precise_math_kernel, triangular_sum_kernel, cond_transpose_kernel, int8_gemm_w8_kernel, tiny_dot_f16acc_kernel,
    logcumsumexp_kernel)}


reference = reference_with(REFERENCES)
